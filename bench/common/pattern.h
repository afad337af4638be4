/* The benchmarks' access patterns, shared by bench/io (plain MPI-IO, views
 * built the way applications build them) and bench/smpi (tacio's C API
 * under SimGrid, views built from these pieces): each rank's pieces in the
 * order of its view, the value every 8-byte slot of the file holds, and
 * checks of buffers and of the file (POSIX reads) against them. The pieces
 * are the planner's own closed form of the pattern (tacio_pattern_walk on a
 * spec of the registry: `tacio list patterns`), so the bench checks the
 * data against the one definition the planner plans with.
 * Patterns: see bench/io/iobench.c. Header-only: each bench is one file;
 * link the planning core (libtacioplan.a, or libtacio). */
#ifndef TACIO_BENCH_PATTERN_H
#define TACIO_BENCH_PATTERN_H

#include "tacio_plan.h"

#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SALT_SHIFT 40 /* salt * 2^40 + slot stays exact in a double below 2^53 */
#define IOR_SEGMENTS 8

struct pattern {
    const char *name;
    int64_t n; /* cube, coarse, btio, collperf: edge; ior: block bytes; struct: records */
    int rank, np, dims[3]; /* the application's process grid and this rank's place in it */
    int64_t file_bytes;    /* bytes the pattern spans */
    MPI_Datatype filetype;
    struct tacio_pattern *closed; /* the planner's closed form */
};

typedef tacio_extent_fn piece_fn; /* returns 0 to go on */

/* The planner's spec for a bench pattern: cube and collperf are the same
 * array of doubles (the views differ: subarray against darray), btio's
 * cells hold 5-double records (NAS BT-IO's), btio8's one double. */
static inline int pattern_spec(const struct pattern *p, char *spec, size_t size)
{
    const char *nm = p->name;
    long long n = (long long)p->n;
    if (!strcmp(nm, "cube") || !strcmp(nm, "collperf"))
        return snprintf(spec, size, "collperf:n=%lld,elem=8", n);
    if (!strcmp(nm, "coarse"))
        return snprintf(spec, size, "coarse:n=%lld,elem=8", n);
    if (!strcmp(nm, "btio"))
        return snprintf(spec, size, "btio:n=%lld,elem=40", n);
    if (!strcmp(nm, "btio8")) /* the TATP paper's BTIO: cells of one double */
        return snprintf(spec, size, "btio:n=%lld,elem=8", n);
    if (!strcmp(nm, "ior") || !strcmp(nm, "ior1"))
        return snprintf(spec, size, "ior:block=%lld,transfer=%lld,segments=%d", n, n,
                        nm[3] ? 1 : IOR_SEGMENTS);
    if (!strcmp(nm, "struct"))
        return snprintf(spec, size, "struct:records=%lld", n);
    return -1;
}

/* The rank's pieces in the order of its file view (increasing offsets). */
static inline void pieces_of(const struct pattern *p, piece_fn fn, void *ctx)
{
    if (tacio_pattern_walk(p->closed, p->rank, fn, ctx)) {
        fprintf(stderr, "bench: walking the pattern's pieces failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Whether the file's slot (8-byte unit) is written at all: only the struct
 * pattern leaves gaps. */
static inline int slot_covered(const struct pattern *p, int64_t slot)
{
    return tacio_pattern_get_bytes_below(p->closed, -1, 8 * slot + 8) >
           tacio_pattern_get_bytes_below(p->closed, -1, 8 * slot);
}

/* The pattern for the calling rank (no MPI types yet): @p n is the edge
 * (cube, coarse, collperf, btio), the block bytes (ior: 8 segments; ior1:
 * one) or the records per rank (struct). -1 for an unknown pattern or a btio
 * rank count that is not a square. */
static inline int pattern_shape(struct pattern *p, const char *name, int64_t n)
{
    memset(p, 0, sizeof *p);
    p->name = name;
    p->n = n;
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->np);
    if (!strcmp(name, "cube") || !strcmp(name, "collperf"))
        MPI_Dims_create(p->np, 3, p->dims);
    else if (!strcmp(name, "coarse")) { /* the cube on a 2-D grid: whole rows, long runs */
        MPI_Dims_create(p->np, 2, p->dims);
        p->dims[2] = 1;
    } else if (!strcmp(name, "btio") || !strcmp(name, "btio8")) {
        int q = 1;
        while ((q + 1) * (q + 1) <= p->np)
            q++;
        if (q * q != p->np || q > 64)
            return -1;
        p->dims[0] = p->dims[1] = p->dims[2] = q;
        p->n = n / q * q;
    }
    char spec[128];
    if (pattern_spec(p, spec, sizeof spec) < 0 || tacio_pattern_parse(spec, p->np, &p->closed))
        return -1;
    int64_t lo;
    tacio_pattern_get_range(p->closed, &lo, &p->file_bytes);
    return 0;
}

static inline void pattern_release(struct pattern *p)
{
    tacio_pattern_free(p->closed);
    p->closed = NULL;
}

/* ---- data and checks ---- */

static inline double slot_value(int64_t slot, int salt)
{
    return (double)(((int64_t)salt << SALT_SHIFT) + slot + 1);
}

struct walk {
    double *buf;
    int64_t at, wrong;
    int salt, check;
};

static inline int fill_or_check(int64_t off, int64_t len, void *ctx)
{
    struct walk *w = ctx;
    for (int64_t s = off / 8; s < (off + len) / 8; s++, w->at++) {
        double want = slot_value(s, w->salt);
        if (!w->check)
            w->buf[w->at] = want;
        else if (w->buf[w->at] != want)
            w->wrong++;
    }
    return 0;
}

static inline int count_piece(int64_t off, int64_t len, void *ctx)
{
    (void)off;
    *(int64_t *)ctx += len / 8;
    return 0;
}

/* Slots of the file this rank's share holds that are wrong, read with POSIX. */
static inline int64_t check_file(const struct pattern *p, const char *path, int salt)
{
    int64_t slots = p->file_bytes / 8, per = (slots + p->np - 1) / p->np;
    int64_t lo = p->rank * per < slots ? p->rank * per : slots;
    int64_t hi = lo + per < slots ? lo + per : slots, wrong = 0;
    enum { CHUNK = 1 << 17 };
    double *chunk = malloc(CHUNK * sizeof(double));
    int fd = open(path, O_RDONLY);
    if (fd < 0 || !chunk) {
        free(chunk);
        if (fd >= 0)
            close(fd);
        return hi - lo + 1;
    }
    for (int64_t s = lo; s < hi; s += CHUNK) {
        int64_t n = hi - s < CHUNK ? hi - s : CHUNK;
        ssize_t got = pread(fd, chunk, (size_t)n * 8, (off_t)(s * 8));
        if (got != (ssize_t)(n * 8)) {
            wrong += n;
            continue;
        }
        for (int64_t i = 0; i < n; i++)
            wrong += chunk[i] != (slot_covered(p, s + i) ? slot_value(s + i, salt) : 0.0);
    }
    close(fd);
    free(chunk);
    return wrong;
}

#endif
