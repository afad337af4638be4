/* Shared harness of the MPI tests: oracle images, POSIX checks, counters. */
#ifndef TACIO_MPI_CHECK_H
#define TACIO_MPI_CHECK_H

#include "tacio.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct engine_case {
    const char *dir, *spec, *strategy;
    const char *extra_hints; /* "k=v,k=v" or NULL */
    /* spec NULL: the expected image comes from MPI_Unpack of each rank's
     * stream into `tiles` copies of its filetype (for views with holes) */
    int tiles;
    bool last_rank_empty; /* the last rank (of several) accesses no byte */
    bool independent;     /* extra_hints make the calls independent I/O */
    bool any_path;        /* extra_hints leave the choice to the engine (automatic) */
    bool unpipelined;     /* extra_hints say tacio_pipeline=disable */
    bool node_aggregated; /* extra_hints enable intra-node aggregation */
    int (*make_type)(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp);
};

extern long mpi_passed, mpi_failed;

/* What rank r's stream byte k holds, and what the file held before. */
static inline unsigned char value_of(int r, int64_t k)
{
    return (unsigned char)(r * 101 + k * 7 + (k >> 8) * 3 + 1);
}
static inline unsigned char prefill_of(int64_t x)
{
    return (unsigned char)(x * 37 + 11);
}

void check_that(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every op x memory layout of one (pattern, strategy). */
void run_engine_case(const struct engine_case *ec);
/* POSIX helpers (rank-local). */
int posix_write_file(const char *path, const unsigned char *img, int64_t n);
int posix_read_file(const char *path, unsigned char *img, int64_t n);
/* Whether the file holds n doubles, the i-th value(i, arg), read with POSIX. */
bool file_holds_doubles(const char *path, int64_t n, double (*value)(int64_t i, const void *arg),
                        const void *arg);
MPI_Info make_info(const char *strategy, const char *extra);
/* This rank's stderr into the file path (what tacio says, checked after);
 * returns the descriptor stderr_back puts back. */
int stderr_to(const char *path);
void stderr_back(int saved);
/* Reduce the counters, print "N passed, M failed" on rank 0, finalize. */
int finish(const char *name);

#endif
