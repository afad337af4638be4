/* Flattened datatypes and file views, without MPI.
 *
 * A flattened type is one instance of an MPI typemap as (offset, length)
 * extents in typemap order, adjacent extents merged. A "stream" is the bytes
 * of count instances read in typemap order: MPI's packed order. Tiling the
 * type every `extent` bytes maps stream positions to byte offsets, which is
 * how both a memory buffer (buf, count, datatype) and a file view (disp,
 * filetype) lay out their data. */
#ifndef TACIO_VIEW_H
#define TACIO_VIEW_H

#include "tacio_plan.h"

#include <stdbool.h>
#include <stdint.h>

struct flat {
    int64_t n;
    int64_t *off, *len;
    int64_t *cum; /* n + 1 prefix sums of len */
    int64_t size; /* cum[n]: bytes of data in one instance */
    int64_t lb, extent;
    bool monotonic; /* offsets nondecreasing and extents disjoint: usable as a filetype */
    bool ordered;   /* offsets nondecreasing (extents may overlap): MPI's rule for any filetype */
    uint64_t hash;  /* of the extents, lb and extent: equal flats hash equal */
    int refs;       /* holders (flat_hold / flat_release); flat_finish makes one */
};
/* One extent filling its whole extent: tiles abut, so the stream is a single
 * run (MPI_BYTE views, contiguous buffers) and is moved or walked as one. */
static inline bool flat_dense(const struct flat *f)
{
    return f->n == 1 && f->len[0] == f->extent;
}
/* Whether a and b are one flat's extents in memory: the flat itself, or a
 * shell of it (view_access: the same arrays, its own extent). */
static inline bool flat_shares_arrays(const struct flat *a, const struct flat *b)
{
    return a->off == b->off && a->len == b->len && a->cum == b->cum;
}
/* Whether two flats describe the same typemap (the hash first, then the
 * extents themselves). */
bool flat_equal(const struct flat *a, const struct flat *b);

/* Growable builder: append() merges with the previous extent when adjacent.
 * shift is added to every offset appended (a part built in place at its
 * displacement in a larger type). */
struct flat_builder {
    struct flat f;
    int64_t cap, shift;
};
/* Room for one more extent (flat_append's slow path). */
int flat_grow(struct flat_builder *b);
/* Inline: a million-block type appends a million times, and the call cost
 * as much as the append. */
static inline int flat_append(struct flat_builder *b, int64_t off, int64_t len)
{
    struct flat *f = &b->f;
    if (len <= 0)
        return 0;
    off += b->shift;
    if (f->n && f->off[f->n - 1] + f->len[f->n - 1] == off) {
        f->len[f->n - 1] += len;
        return 0;
    }
    int rc = f->n == b->cap ? flat_grow(b) : 0;
    if (rc)
        return rc;
    f->off[f->n] = off;
    f->len[f->n++] = len;
    return 0;
}
/* Room for more extents at once (a datatype's block count is known before
 * its blocks are appended): one allocation instead of log(n) doublings
 * with their copies and page faults. flat_finish gives back what merged
 * blocks left unused. */
int flat_reserve(struct flat_builder *b, int64_t more);
/* count instances of t, the k-th at base + k*stride. */
int flat_append_repeat(struct flat_builder *b, const struct flat *t, int64_t base, int64_t count,
                       int64_t stride);
/* Seal: prefix sums, monotonic flag; lb and extent are the caller's. */
int flat_finish(struct flat_builder *b, int64_t lb, int64_t extent, struct flat **out);
void flat_free(struct flat *f);
/* Shared flats: one more holder, or one fewer (the last frees it). */
void flat_hold(struct flat *f);
void flat_release(struct flat *f);

/* Offset (relative to the origin of tile 0) of stream byte s. */
int64_t flat_offset_of(const struct flat *f, int64_t s);
/* Where the contiguous run of the file that holds stream bytes [r, r + n)
 * of f starts in f's stream (0 <= r < size): the start of their piece
 * where they lie in one, 0 where f has no gaps at all (one piece, tiles
 * that touch); -1 where they are not one run. */
int64_t flat_run_start(const struct flat *f, int64_t r, int64_t n);

/* A file view: filetype tiled from disp. */
struct view {
    int64_t disp;
    const struct flat *ft;
};
/* The view that serves an access of stream bytes [s0, s0 + n) of v, as
 * *out from stream position *s0_out: monotonic, with tiles that never
 * overlap. MPI asks only the accessed typemap to be nondecreasing, so a
 * filetype whose extent is below its data span is accepted when the access
 * stays in one tile (shell, the caller's, then holds that tile); an access
 * that crosses overlapping tiles or goes below offset 0 is an error. An
 * empty access gets a one-byte view. */
int view_access(const struct view *v, int64_t s0, int64_t n, struct flat *shell, struct view *out,
                int64_t *s0_out);
/* Stream bytes lying below file offset x. */
int64_t view_bytes_below(const struct view *v, int64_t x);
static inline int64_t view_offset_of(const struct view *v, int64_t s)
{
    return v->disp + flat_offset_of(v->ft, s);
}

/* Pieces of stream [s0, s1) that fall in file [lo, hi), in file order:
 * fn(file offset, length, stream position). */
typedef int (*piece_fn)(int64_t off, int64_t len, int64_t spos, void *ctx);
int view_walk(const struct view *v, int64_t s0, int64_t s1, int64_t lo, int64_t hi, piece_fn fn,
              void *ctx);

/* What view_walk(v, s0, s1, lo, hi) would give, counted from the view's
 * structure in O(log n) instead of walked: the pieces (touching ones in the
 * file and the stream merged, as a walk that merges them yields) and their
 * bytes. */
void view_count(const struct view *v, int64_t s0, int64_t s1, int64_t lo, int64_t hi,
                int64_t *pieces, int64_t *bytes);

/* Copy between a typed memory buffer (memtype tiled from base) and a packed
 * stream: len bytes starting at stream position s. */
void flat_gather(const struct flat *mt, const char *base, int64_t s, int64_t len, char *dst);
/* Where stream bytes [s, s + len) of memory type mt tiled from base lie when
 * they are one run of memory (a contiguous type, or inside one extent), so
 * a message can go straight from or to there; NULL otherwise. */
char *flat_run(const struct flat *mt, char *base, int64_t s, int64_t len);
void flat_scatter(const struct flat *mt, char *base, int64_t s, int64_t len, const char *src);

/* A pattern whose rank r accesses stream [s0[r], s0[r] + n[r]) of views[r];
 * the views' flats must outlive the pattern. */
int pattern_from_views(int nprocs, const struct view *views, const int64_t *s0, const int64_t *n,
                       struct tacio_pattern **out);

#endif
