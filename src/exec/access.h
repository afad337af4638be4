/* st1: this rank's access in a collective call: the stream bytes its
 * (buffer, count, datatype) fills, at the offset it names, through the
 * file's view; and its shape, the part of it a schedule depends on. */
#ifndef TACIO_EXEC_ACCESS_H
#define TACIO_EXEC_ACCESS_H

#include "ofile.h"

struct access {
    struct view v;     /* the view that serves it */
    struct flat shell; /* v's filetype when v is one tile of the file's view */
    int64_t s0, n;     /* stream bytes [s0, s0 + n) of v */
    int64_t phase;     /* s0 within v's first tile: with v's filetype and n, its shape */
    int64_t base;      /* where that tile lies: the file offsets are base + the shape's */
    struct flat *mt;   /* the memory type, tiled from the buffer */
};

/* A piece: file offset, length, and position in its owner's stream (0 on an
 * aggregator, which knows only offsets and lengths). */
struct piece {
    int64_t off, len, spos;
};

struct piece_list {
    struct piece *p;
    int64_t n, cap, bytes;
};

/* A piece_fn appending to a piece_list (ctx), merging a piece that continues
 * the previous one in the file and in the stream (fewer, longer pieces:
 * smaller headers, fewer copies). */
int piece_push(int64_t off, int64_t len, int64_t spos, void *ctx);

/* Sorts p[0, n) by file offset where it is nruns runs each already in file
 * order (run k starts at runs[k], runs[nruns] == n: what each sender's or
 * each rank's list is), by merging them; a run out of order gets a full
 * sort. Overwrites runs. */
int pieces_merge_runs(struct piece *p, int64_t n, int64_t *runs, int nruns);

/* The access of (count, dt) at etype offset `offset` (at) or at the file's
 * individual pointer. On failure *a is an empty access, which is what a
 * failing rank takes part in the collective with. */
int access_of(const struct tacio_file *f, bool at, int64_t offset, int64_t count, MPI_Datatype dt,
              bool write, struct access *a);
/* The empty access (a rank whose data went another way). */
void access_clear(struct access *a);
/* Every piece of the access, in file order. */
int access_walk(const struct access *a, piece_fn fn, void *ctx);
/* Its pieces inside the file ranges of w, in file order (out emptied first). */
int access_pieces(const struct access *a, const struct fdom_ranges *w, struct piece_list *out);
/* The stream bytes of the access that lie below file offset `eof`. */
int64_t access_bytes_below(const struct access *a, int64_t eof);
/* [lo, hi): the file range it spans (0, 0 when empty). */
void access_span(const struct access *a, int64_t *lo, int64_t *hi);

#endif
