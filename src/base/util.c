#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void *xcalloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

char **names_copy(char *const *names, int n)
{
    size_t bytes = sizeof(char *) * (size_t)(n ? n : 1);
    for (int i = 0; i < n; i++)
        bytes += strlen(names[i] ? names[i] : "") + 1;
    char **out = malloc(bytes), *at = (char *)(out + (n ? n : 1));
    for (int i = 0; out && i < n; i++) {
        const char *s = names[i] ? names[i] : "";
        out[i] = strcpy(at, s);
        at += strlen(s) + 1;
    }
    return out;
}

void strip_comment(char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
}

void forms_join(char *buf, size_t size, const char *form, bool last)
{
    size_t used = strlen(buf);
    const char *sep = !used ? "" : last ? " or " : ", ";
    snprintf(buf + used, size - used, "%s%s", sep, form);
}

int grow_array(void **arr, size_t elem, int64_t need, int64_t *cap)
{
    if (need <= *cap)
        return 0;
    int64_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*arr, elem * (size_t)c);
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory growing an array to %lld elements",
                          (long long)c);
    *arr = p;
    *cap = c;
    return 0;
}

static char *split_item(char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        else if (*p == ',' && depth == 0) {
            *p = '\0';
            return p + 1;
        }
    }
    return NULL;
}

static int spec_add_item(struct spec *s, char *item, bool first)
{
    char *eq = strchr(item, '=');
    if (!eq) {
        if (!first || !*item)
            return tacio_fail(TACIO_EINVAL, "'%s' in spec '%s' is not of the form key=value", item,
                              s->name);
        s->arg = item;
        return 0;
    }
    if (s->nkv == SPEC_MAX_KV)
        return tacio_fail(TACIO_EINVAL, "too many parameters in spec '%s'", s->name);
    *eq = '\0';
    s->key[s->nkv] = item;
    s->val[s->nkv] = eq + 1;
    s->used[s->nkv] = false;
    s->nkv++;
    return 0;
}

int spec_parse(const char *text, struct spec *out)
{
    memset(out, 0, sizeof *out);
    out->buf = strdup(text ? text : "");
    if (!out->buf)
        return tacio_fail(TACIO_ENOMEM, "out of memory parsing a spec");
    char *colon = strchr(out->buf, ':');
    out->name = out->buf;
    if (!colon)
        return 0;
    *colon = '\0';
    char *item = colon + 1;
    for (bool first = true; item; first = false) {
        char *next = split_item(item);
        if (*item || next) {
            int rc = spec_add_item(out, item, first);
            if (rc) {
                spec_free(out);
                return rc;
            }
        }
        item = next;
    }
    return 0;
}

void spec_free(struct spec *s)
{
    free(s->buf);
    s->buf = NULL;
}

const char *spec_get(struct spec *s, const char *key)
{
    for (int i = 0; i < s->nkv; i++)
        if (strcmp(s->key[i], key) == 0) {
            s->used[i] = true;
            return s->val[i];
        }
    return NULL;
}

static int spec_get_num(struct spec *s, const char *key, int64_t dflt, int64_t min, int64_t *out,
                        const char *form, int (*parse)(const char *, int64_t *))
{
    const char *v = spec_get(s, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (parse(v, out))
        return tacio_fail(TACIO_EINVAL, "%s=%s is not a number; expected %s", key, v, form);
    if (*out < min)
        return tacio_fail(TACIO_ERANGE, "%s=%s is below the minimum %lld; expected %s", key, v,
                          (long long)min, form);
    return 0;
}

int spec_get_i64(struct spec *s, const char *key, int64_t dflt, int64_t min, int64_t *out,
                 const char *form)
{
    return spec_get_num(s, key, dflt, min, out, form, parse_i64);
}

int spec_get_size(struct spec *s, const char *key, int64_t dflt, int64_t min, int64_t *out,
                  const char *form)
{
    return spec_get_num(s, key, dflt, min, out, form, parse_size);
}

int spec_check_unused(const struct spec *s, const char *form)
{
    for (int i = 0; i < s->nkv; i++)
        if (!s->used[i])
            return tacio_fail(TACIO_EINVAL, "unknown parameter '%s' in '%s' spec; expected %s",
                              s->key[i], s->name, form);
    return 0;
}

int parse_i64(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end)
        return TACIO_EINVAL;
    *out = v;
    return 0;
}

int parse_size(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text)
        return TACIO_EINVAL;
    int shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0':
        break;
    case 'k':
        shift = 10;
        break;
    case 'm':
        shift = 20;
        break;
    case 'g':
        shift = 30;
        break;
    case 't':
        shift = 40;
        break;
    default:
        return TACIO_EINVAL;
    }
    if (*end && end[1] && !(tolower((unsigned char)end[1]) == 'b' && !end[2]) &&
        !(tolower((unsigned char)end[1]) == 'i' && end[2] == 'B' && !end[3]))
        return TACIO_EINVAL;
    if (v < 0 || (shift && v > (INT64_MAX >> shift)))
        return TACIO_EINVAL;
    *out = (int64_t)v << shift;
    return 0;
}

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double rng_uniform(uint64_t *state)
{
    return (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

double clock_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int plan_threads(int64_t work, int asked)
{
    const char *env = getenv("TACIO_PLAN_THREADS");
    long n = 1;
    if (env)
        n = strtol(env, NULL, 10);
    else if (asked > 0)
        n = asked;
    else if (work >= (1 << 16))
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

struct share_slot {
    int (*fn)(void *arg);
    void *arg;
    int rc;
    char err[256];
};

static void *share_run(void *p)
{
    struct share_slot *s = p;
    s->rc = s->fn(s->arg);
    if (s->rc)
        snprintf(s->err, sizeof s->err, "%s", tacio_last_error());
    return NULL;
}

int parallel_run(int n, int (*fn)(void *arg), void *args, size_t stride)
{
    struct share_slot *slot = xcalloc((size_t)n, sizeof *slot);
    pthread_t *tid = xcalloc((size_t)n, sizeof *tid);
    bool *running = xcalloc((size_t)n, sizeof *running);
    if (!slot || !tid || !running) {
        free(slot);
        free(tid);
        free(running);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    for (int k = 0; k < n; k++)
        slot[k] = (struct share_slot){fn, (char *)args + (size_t)k * stride, 0, ""};
    for (int k = 1; k < n; k++)
        running[k] = pthread_create(&tid[k], NULL, share_run, &slot[k]) == 0;
    for (int k = 0; k < n; k++)
        if (!running[k])
            share_run(&slot[k]);
    int rc = 0;
    for (int k = 0; k < n; k++) {
        if (running[k])
            pthread_join(tid[k], NULL);
        if (!rc && slot[k].rc)
            rc = tacio_fail(slot[k].rc, "%s", slot[k].err);
    }
    free(slot);
    free(tid);
    free(running);
    return rc;
}
