/* Minimal assertion helpers: each failed check prints where and why, the
 * test binary exits non-zero, and the closing line is CTest-readable. */
#ifndef TACIO_CHECK_H
#define TACIO_CHECK_H

#include <stdint.h>
#include <stdio.h>

extern int check_failures, check_count;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        check_count++;                                                                             \
        if (!(cond)) {                                                                             \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long _a = (long long)(a), _b = (long long)(b);                                        \
        check_count++;                                                                             \
        if (_a != _b) {                                                                            \
            check_failures++;                                                                      \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %lld, %s = %lld\n", __FILE__, __LINE__,  \
                    #a, _a, #b, _b);                                                               \
        }                                                                                          \
    } while (0)

/* Exit status and summary line for main(). */
int check_report(const char *name);

/* A planning job: the topology, the pattern for procs ranks (0: as many as
 * a dist: topology fixes), ranks placed, default hints; each step checked. */
struct test_job {
    struct tacio_topo *t;
    struct tacio_pattern *p;
    struct tacio_hints *h;
};
void test_job_init(struct test_job *j, const char *pattern, int procs, const char *topo,
                   const char *place);
void test_job_free(struct test_job *j);
/* Path of a file in tests/data (argv[1] of every test). */
const char *data_path(const char *name);
void check_set_data_dir(const char *dir);

#endif
