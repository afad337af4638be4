/* The base module, below the planning core and the topology module (both
 * use it, it uses neither): errors (error.h), options (options.h), spec parsing, sizes,
 * comment-stripped line reading, the clock, the PRNG, small array helpers, threads for the
 * planner's walks. */
#ifndef TACIO_UTIL_H
#define TACIO_UTIL_H

#include "error.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A local that its function fills before reading, left out of
 * -ftrivial-auto-var-init's pattern (CMakeLists.txt): the scratch of a small
 * collective's every call, whose fill cost 6% of tacio's instructions a
 * call (bench/io/instructions, 4 KiB calls on Open MPI 4.1.4). */
#if defined(__has_attribute)
#if __has_attribute(uninitialized)
#define FILLED_BEFORE_READ __attribute__((uninitialized))
#endif
#endif
#ifndef FILLED_BEFORE_READ
#define FILLED_BEFORE_READ
#endif

/* A parsed "name:arg,k=v,k=v" spec. Commas inside [...] do not split, so
 * Slurm hostlists such as nodes=n[01-04,07] stay whole. */
#define SPEC_MAX_KV 16

/* A registry's public accessors (the patterns', topologies' and
 * strategies'), defined alike: PREFIX_get_count() and
 * PREFIX_get_name/_summary(i), NULL outside [0, count); REGISTRY_FORM adds
 * PREFIX_get_form(i). ENTRY is registry entry i, written with i (kinds[i]). */
#define REGISTRY_GET(fn, count, entry, field)                                                      \
    const char *fn(int i)                                                                          \
    {                                                                                              \
        return i >= 0 && i < (count) ? (entry).field : NULL;                                       \
    }
#define REGISTRY_ACCESSORS(prefix, count, entry)                                                   \
    int prefix##_get_count(void)                                                                   \
    {                                                                                              \
        return (count);                                                                            \
    }                                                                                              \
    REGISTRY_GET(prefix##_get_name, count, entry, name)                                            \
    REGISTRY_GET(prefix##_get_summary, count, entry, summary)
#define REGISTRY_FORM(prefix, count, entry) REGISTRY_GET(prefix##_get_form, count, entry, form)
struct spec {
    char *buf; /* owned copy the pointers below point into */
    const char *name;
    const char *arg; /* first item when it has no '=' (a path), else NULL */
    int nkv;
    const char *key[SPEC_MAX_KV];
    const char *val[SPEC_MAX_KV];
    bool used[SPEC_MAX_KV];
};

int spec_parse(const char *text, struct spec *out);
void spec_free(struct spec *s);
/* Look up key; marks it used. Returns NULL when absent. */
const char *spec_get(struct spec *s, const char *key);
/* Integer/size lookups with a default; errors name the spec's form. */
int spec_get_i64(struct spec *s, const char *key, int64_t dflt, int64_t min, int64_t *out,
                 const char *form);
int spec_get_size(struct spec *s, const char *key, int64_t dflt, int64_t min, int64_t *out,
                  const char *form);
/* Fail on any key not looked up: a typo must not be silently ignored. */
int spec_check_unused(const struct spec *s, const char *form);

/* "123", "4k", "16m", "2g", "1t" (binary multiples) -> bytes. */
int parse_size(const char *text, int64_t *out);
int parse_i64(const char *text, int64_t *out);

/* splitmix64: small, seedable, identical on every platform. */
/* Monotonic seconds. */
double clock_seconds(void);

uint64_t rng_next(uint64_t *state);
double rng_uniform(uint64_t *state);

void *xcalloc(size_t n, size_t size);
/* n strings (NULL read as "") copied into one block: the pointers, then the
 * bytes; one free() releases it. NULL when out of memory. */
char **names_copy(char *const *names, int n);
/* Cut a text line at its first '#': the comment rule of every input file. */
void strip_comment(char *line);
/* Appends a registry's form to the list in buf ("a, b or c" once the last
 * is in): what an "expected ..." message names. */
void forms_join(char *buf, size_t size, const char *form, bool last);
/* qsort comparator for ints, ascending. */
int cmp_int(const void *a, const void *b);

/* Room for `need` elements of `elem` bytes in *arr, whose capacity *cap
 * doubles as needed (amortised O(1) appends). 0 or TACIO_ENOMEM. */
int grow_array(void **arr, size_t elem, int64_t need, int64_t *cap);

/* Threads for a walk over `work` items (ranks): `asked` when positive, else
 * the cores, at most 8, once there are enough items to gain (2^16). The MPI
 * engine asks for 1 (the other cores run ranks; under SMPI ranks are the
 * threads of one simulation). TACIO_PLAN_THREADS overrides both (tests run
 * small walks threaded). */
int plan_threads(int64_t work, int asked);
/* fn(args + k * stride) for k < n, on n threads (the caller's among them; a
 * share whose thread cannot start runs on the caller's). Returns the first
 * share's failure, its message carried over to the caller's thread (errors
 * are per thread). */
int parallel_run(int n, int (*fn)(void *arg), void *args, size_t stride);

static inline int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}
static inline int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}
static inline int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* memcpy for the engine's pieces, many of them a few bytes (records of
 * doubles): up to 16 bytes in two fixed-size moves the compiler inlines,
 * where a call to the C library's memcpy cost more than the copy. */
static inline void copy_bytes(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n > 16)
        memcpy(d, s, n);
    else if (n >= 8) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4);
        memcpy(d + n - 4, s + n - 4, 4);
    } else
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
}

#endif
