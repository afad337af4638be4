/* The wisdom file (src/base/wisdom.h) as the engine reads it: any bytes,
 * NULs included. What parses must write back as lines that parse to the
 * same entries: the engine rewrites the file from what it read. */
#include "harness.h"

#include "base/wisdom.h"

/* w's entries as a file's text, in buf. */
static size_t text_of(const struct wisdom *w, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "tacio-wisdom %d\n", WISDOM_VERSION);
    for (int i = 0; i < w->n && n + 1100 < cap; i++) {
        wisdom_line(&w->e[i], buf + n, cap - n - 1);
        n += strlen(buf + n);
        buf[n++] = '\n';
    }
    buf[n] = '\0';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_TEXT)
        size = FUZZ_MAX_TEXT;
    struct wisdom w, again;
    if (wisdom_parse((const char *)data, size, &w))
        return 0;
    static char buf[WISDOM_MAX_ENTRIES * 8 + (1 << 16)];
    size_t n = text_of(&w, buf, sizeof buf);
    if (wisdom_parse(buf, n, &again) || again.n != w.n)
        abort();
    for (int i = 0; i < w.n; i++) {
        const struct wisdom_entry *e = wisdom_find(&again, &w.e[i].key);
        if (!e || strcmp(e->choice, w.e[i].choice) || e->ntried != w.e[i].ntried ||
            e->left != w.e[i].left)
            abort();
    }
    wisdom_free(&w);
    wisdom_free(&again);
    return 0;
}
