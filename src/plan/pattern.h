/* Access patterns: which file bytes each rank touches.
 *
 * Every pattern answers prefix(rank, x) = bytes of the rank's data that lie
 * below file offset x, in closed form (or by binary search over a run list),
 * so per-file-domain byte counts never need the extents themselves: a cube of
 * 4800^3 elements on 110,592 ranks has 10^9 extents but is planned in
 * seconds. extents() enumerates the same data for small cases and tests. */
#ifndef TACIO_PATTERN_H
#define TACIO_PATTERN_H

#include "tacio_plan.h"

#include <stdint.h>

typedef tacio_extent_fn extent_fn; /* the public walk's callback */
/* A region [off, end) of one rank's data holding `bytes` of it. When block
 * is set, those bytes are blocks of `block` bytes every `stride` from off (a
 * box's rows in a plane, or block == stride for a dense run), so the bytes
 * below any offset inside it follow with one division, without prefix(). */
struct region {
    int64_t off, end, bytes;
    int64_t block, stride; /* 0: no regular structure known */
};
typedef void (*region_fn)(const struct region *g, void *ctx);

/* The region's bytes in [off, x), for off <= x <= end; needs g->block. */
static inline int64_t region_below(const struct region *g, int64_t x)
{
    int64_t d = x - g->off, rem = d % g->stride;
    return d / g->stride * g->block + (rem < g->block ? rem : g->block);
}

struct view;

struct pattern_ops {
    const char *name;
    /* [lo, hi) holding all of the rank's bytes; lo == hi when it has none */
    void (*span)(const struct tacio_pattern *p, int rank, int64_t *lo, int64_t *hi);
    int64_t (*prefix)(const struct tacio_pattern *p, int rank, int64_t x);
    /* the rank's extents in increasing offset order (adjacent ones may touch) */
    int (*extents)(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx);
    /* Optional. The rank's data as disjoint regions in increasing offset
     * order, a few per rank however many extents it has (a box's planes, a
     * segment's block, a run): C is built from them, with prefix() only
     * where a region straddles a file-domain boundary. NULL: the span is
     * one region. */
    void (*regions)(const struct tacio_pattern *p, int rank, region_fn fn, void *ctx);
    /* Optional. Bytes of all ranks below x, in O(1) (a pattern whose ranks
     * tile the file); NULL: summed over the ranks. */
    int64_t (*total_below)(const struct tacio_pattern *p, int64_t x);
};

struct tacio_pattern {
    const struct pattern_ops *ops;
    int nprocs;
    int64_t elem;

    /* block-decomposed arrays (cube, btio, collperf) */
    int64_t n[3];
    int dims[3];
    int64_t *slice_cum;         /* btio: rank r's bytes in slices < k at [r*(q+1) + k], or NULL */
    int64_t *span_lo, *span_hi; /* btio: cached spans, or NULL */

    /* ior */
    int64_t block, transfer, segments;
    /* struct: records per rank */
    int64_t records;

    /* run lists (mesh, extents, matrix): rank r's runs are
     * [run_first[r], run_first[r+1]) sorted by offset; run_cum is the bytes
     * of the rank's earlier runs */
    int64_t *run_off, *run_len, *run_cum;
    int64_t *run_first;
    int64_t *run_bytes; /* summary: bytes inside each run, spread evenly over it */

    /* views (the MPI engine): rank r accesses stream [view_s0[r], +view_n[r]) of views[r] */
    struct view *views;
    int64_t *view_s0, *view_n;

    /* matrix: the file domains are fixed by the matrix's columns */
    int nfixed;
    int64_t *fixed_start; /* nfixed + 1 boundaries */
};

static inline int64_t pattern_bytes_in(const struct tacio_pattern *p, int rank, int64_t lo,
                                       int64_t hi)
{
    return p->ops->prefix(p, rank, hi) - p->ops->prefix(p, rank, lo);
}

/* The rank's regions (ops->regions, or the span as one). */
void pattern_regions(const struct tacio_pattern *p, int rank, region_fn fn, void *ctx);
/* Bytes of every rank in [lo, hi). */
int64_t pattern_total_in(const struct tacio_pattern *p, int64_t lo, int64_t hi);
/* [min, max) over all ranks' spans. */
void pattern_range(const struct tacio_pattern *p, int64_t *lo, int64_t *hi);

/* MPI_Dims_create's balanced factorisation of n into nd (1, 2 or 3) non-increasing dims. */
void dims_create(int n, int nd, int *dims);

/* Constructors shared by the run-list patterns. */
int runs_build(struct tacio_pattern *p, int64_t nruns, const int *owner, const int64_t *off,
               const int64_t *len);
extern const struct pattern_ops runs_ops;

/* A summary of each rank's access: rank r's runs [run_first[r],
 * run_first[r+1]) as (off, len, bytes), sorted and disjoint; prefix sums are
 * exact at run boundaries and interpolated inside. Copies the arrays. */
int pattern_from_summary(int nprocs, const int64_t *run_first, const int64_t *off,
                         const int64_t *len, const int64_t *bytes, struct tacio_pattern **out);

/* The runs the MPI engine summarises each rank's access in for a strategy
 * that reads the byte distribution (src/exec/cplan.c): its bytes' quantiles. */
#define SUMMARY_RUNS 16
/* The summary the engine plans on, from a pattern: each rank's data as k
 * runs of equal bytes (byte n*q/k to n*(q+1)/k of its n, in file order),
 * each run (the offset of its first byte, to its last byte's end, its
 * bytes), as cplan.c's summarize makes it from the rank's view. */
int pattern_summarize(const struct tacio_pattern *pat, int k, struct tacio_pattern **out);

/* A pattern from sparse C entries (rank, FD, bytes); its FDs are fixed. */
int pattern_from_triplets(int nprocs, int nfds, int64_t n, const int *rank, const int *fd,
                          const int64_t *bytes, struct tacio_pattern **out);

/* The pattern registry (pattern.c): a kind's name, its form as users write
 * it (the CLI's usage, `tacio list patterns`, docs/cli.md's table and every
 * "expected ..." message show this one string), a line on its meaning,
 * and its parser, which fills p from the spec for nprocs ranks. */
struct spec;
struct pattern_kind {
    const char *name, *form, *summary;
    int (*parse)(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s, int nprocs);
};

int pattern_parse_grid(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                       int nprocs);
int pattern_parse_ior(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                      int nprocs);
int pattern_parse_struct(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                         int nprocs);
int pattern_parse_mesh(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                       int nprocs);
/* The highest rank an extents file may name, plus one (100 million). A
 * variable so the parser harnesses (tests/fuzz/parsers) can lower it: one
 * line naming rank 50 million makes a job of that many ranks, which takes
 * seconds under their instrumentation. */
extern int64_t pattern_rank_limit;
int pattern_parse_extents(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                          int nprocs);
int pattern_parse_matrix(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                         int nprocs);

#endif
