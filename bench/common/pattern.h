/* The benchmarks' access patterns in closed form, shared by bench/io (plain
 * MPI-IO, views built the way applications build them) and bench/smpi
 * (tacio's C API under SimGrid, views built from these pieces): each rank's
 * pieces in the order of its view, the value every 8-byte slot of the file
 * holds, and checks of buffers and of the file (POSIX reads) against them.
 * Patterns: see bench/io/iobench.c. Header-only: each bench is one file. */
#ifndef TACIO_BENCH_PATTERN_H
#define TACIO_BENCH_PATTERN_H

#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SALT_SHIFT 40 /* salt * 2^40 + slot stays exact in a double below 2^53 */

struct pattern {
    const char *name;
    int64_t n;             /* cube, btio, collperf: edge; ior: block bytes; struct: records */
    int64_t segments;      /* ior: 8; ior1: 1 (IOR's default -s 1) */
    int rank, np, dims[3]; /* rank's place in the process grid */
    int64_t file_bytes;    /* bytes the pattern spans */
    MPI_Datatype filetype;
};

typedef void (*piece_fn)(int64_t off, int64_t len, void *ctx);

/* ---- closed forms: each rank's pieces, in the order of its file view ---- */

static inline void block_range(int64_t n, int d, int c, int64_t *lo, int64_t *hi)
{
    int64_t b = (n + d - 1) / d;
    *lo = c * b < n ? c * b : n;
    *hi = (c + 1) * b < n ? (c + 1) * b : n;
}

/* Rows of the box [lo, hi) of an n^3 array of elem-byte elements. */
static inline void box_pieces(int64_t n, int64_t elem, const int64_t *lo, const int64_t *hi,
                              piece_fn fn, void *ctx)
{
    for (int64_t x = lo[0]; x < hi[0]; x++)
        for (int64_t y = lo[1]; y < hi[1] && hi[2] > lo[2]; y++)
            fn(((x * n + y) * n + lo[2]) * elem, (hi[2] - lo[2]) * elem, ctx);
}

static inline void grid_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    int c[3] = {p->rank / (p->dims[1] * p->dims[2]), (p->rank / p->dims[2]) % p->dims[1],
                p->rank % p->dims[2]};
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; d++)
        block_range(p->n, p->dims[d], c[d], &lo[d], &hi[d]);
    box_pieces(p->n, 8, lo, hi, fn, ctx);
}

/* BT-IO: in slice k the rank at (r, c) of slice 0 holds cell ((r-k) mod q, (c+k) mod q). */
static inline void btio_cell(const struct pattern *p, int k, int64_t *lo, int64_t *hi)
{
    int q = p->dims[0], r = p->rank / q, c = p->rank % q;
    block_range(p->n, q, k, &lo[0], &hi[0]);
    block_range(p->n, q, ((r - k) % q + q) % q, &lo[1], &hi[1]);
    block_range(p->n, q, (c + k) % q, &lo[2], &hi[2]);
}

static inline void btio_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    for (int k = 0; k < p->dims[0]; k++) {
        int64_t lo[3], hi[3];
        btio_cell(p, k, lo, hi);
        box_pieces(p->n, 40, lo, hi, fn, ctx);
    }
}

#define IOR_SEGMENTS 8
static inline void ior_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    for (int64_t s = 0; s < p->segments; s++)
        fn((s * p->np + p->rank) * p->n, p->n, ctx);
}

/* A record is slots 0, 1 and 3 of a 4-double slot; slot 2 is a gap. */
static inline void struct_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    for (int64_t r = 0; r < p->n; r++) {
        int64_t base = (r * p->np + p->rank) * 32;
        fn(base, 16, ctx);
        fn(base + 24, 8, ctx);
    }
}

static inline void pieces_of(const struct pattern *p, piece_fn fn, void *ctx)
{
    if (!strcmp(p->name, "btio"))
        btio_pieces(p, fn, ctx);
    else if (p->segments)
        ior_pieces(p, fn, ctx);
    else if (!strcmp(p->name, "struct"))
        struct_pieces(p, fn, ctx);
    else
        grid_pieces(p, fn, ctx);
}

/* Whether the file's slot (8-byte unit) is written at all: only the struct
 * pattern leaves gaps. */
static inline int slot_covered(const struct pattern *p, int64_t slot)
{
    return strcmp(p->name, "struct") || slot % 4 != 2;
}

/* The pattern's grid and sizes for the calling rank (no MPI types): @p n is
 * the edge (cube, collperf, btio), the block bytes (ior: 8 segments; ior1:
 * one) or the records per rank (struct). -1 for an unknown pattern or a btio
 * rank count that is not a square. */
static inline int pattern_shape(struct pattern *p, const char *name, int64_t n)
{
    memset(p, 0, sizeof *p);
    p->name = name;
    p->n = n;
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->np);
    if (!strcmp(name, "cube") || !strcmp(name, "collperf")) {
        MPI_Dims_create(p->np, 3, p->dims);
        p->file_bytes = n * n * n * 8;
    } else if (!strcmp(name, "coarse")) { /* the cube on a 2-D grid: whole rows, long runs */
        MPI_Dims_create(p->np, 2, p->dims);
        p->dims[2] = 1;
        p->file_bytes = n * n * n * 8;
    } else if (!strcmp(name, "btio")) {
        int q = 1;
        while ((q + 1) * (q + 1) <= p->np)
            q++;
        if (q * q != p->np || q > 64)
            return -1;
        p->dims[0] = p->dims[1] = p->dims[2] = q;
        p->n = n / q * q;
        p->file_bytes = p->n * p->n * p->n * 40;
    } else if (!strcmp(name, "ior") || !strcmp(name, "ior1")) {
        p->segments = name[3] ? 1 : IOR_SEGMENTS;
        p->file_bytes = p->segments * p->np * n;
    } else if (!strcmp(name, "struct"))
        p->file_bytes = n * p->np * 32;
    else
        return -1;
    return 0;
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

static inline void fill_or_check(int64_t off, int64_t len, void *ctx)
{
    struct walk *w = ctx;
    for (int64_t s = off / 8; s < (off + len) / 8; s++, w->at++) {
        double want = slot_value(s, w->salt);
        if (!w->check)
            w->buf[w->at] = want;
        else if (w->buf[w->at] != want)
            w->wrong++;
    }
}

static inline void count_piece(int64_t off, int64_t len, void *ctx)
{
    (void)off;
    *(int64_t *)ctx += len / 8;
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
