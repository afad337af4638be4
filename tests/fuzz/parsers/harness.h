/* Shared by the parser harnesses (libFuzzer: clang -fsanitize=fuzzer): the
 * input as C strings, and as a file for the parsers that read one. Each
 * harness is one LLVMFuzzerTestOneInput; docs/testing.md, "Fuzzed parsers". */
#ifndef TACIO_FUZZ_HARNESS_H
#define TACIO_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Texts longer than any a user would write are not interesting, and keep
 * each run fast. */
#define FUZZ_MAX_TEXT 4096

/* The input cut into at most `max` NUL-terminated parts at `sep` (the rest
 * of the input stays in the last part). Returns the number of parts; the
 * strings point into one allocation, freed with free(parts[0]). */
static inline int fuzz_split(const uint8_t *data, size_t size, char sep, char **parts, int max)
{
    if (size > FUZZ_MAX_TEXT)
        size = FUZZ_MAX_TEXT;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    int n = 0;
    parts[n++] = text;
    for (char *p = text; n < max && (p = memchr(p, sep, (size_t)(text + size - p))); p++) {
        *p = '\0';
        parts[n++] = p + 1;
    }
    for (int i = n; i < max; i++)
        parts[i] = text + size; /* "" */
    return n;
}

static char fuzz_path[256]; /* the harness's one scratch file */

static inline void fuzz_remove_file(void)
{
    unlink(fuzz_path);
}

/* The text as this process's scratch file (the parsers take a path),
 * removed when the run ends. */
static inline const char *fuzz_file(const char *name, const char *text)
{
    if (!fuzz_path[0]) {
        snprintf(fuzz_path, sizeof fuzz_path, "/tmp/tacio-fuzz-%d-%s", (int)getpid(), name);
        atexit(fuzz_remove_file);
    }
    FILE *f = fopen(fuzz_path, "w");
    size_t len = strlen(text);
    if (!f)
        abort(); /* not the parser's fault: stop the run loudly */
    if (len && fwrite(text, 1, len, f) != len)
        abort();
    fclose(f);
    return fuzz_path;
}

/* "KIND:PATH": the spec of a file kind (dist:, file:, extents:, ...) whose
 * file holds the text. */
static inline const char *fuzz_file_spec(const char *kind, const char *text)
{
    static char spec[300];
    snprintf(spec, sizeof spec, "%s:%s", kind, fuzz_file(kind, text));
    return spec;
}

#endif
