/* st5's file I/O on a window: the file ranges of an FD a round serves (or,
 * for independent I/O, a stretch of one rank's own span) and the pieces in
 * them. Per range, the pieces' span is written (or read) whole, holes read
 * first (read-modify-write, ROMIO's data sieving), when the holes cost less
 * to move than the system calls they save; else each run of touching pieces
 * is its own call. */
#ifndef TACIO_EXEC_WINDOW_H
#define TACIO_EXEC_WINDOW_H

#include "access.h"

/* Per range of a window: the span [first, last) its pieces p[i0, i1) cover,
 * whether holes lie inside it, and whether to sieve. */
struct span {
    int64_t first, last, i0, i1;
    bool holes, sieve;
};

/* Window-buffer position of file offset off (ranges packed back to back). */
int64_t wpos(const struct fdom_ranges *w, int64_t off);
int64_t window_bytes(const struct fdom_ranges *w);
/* The spans of each range of w, the pieces being in file order. may_sieve:
 * whether a span may be read-modify-written (no one else writes inside). */
void window_spans(const struct fdom_ranges *w, const struct piece_list *all, bool may_sieve,
                  struct span *out);
/* One pwrite or pread (fault injection included), its failure named. A
 * read that meets the end of the file lowers *eof to it when eof is given
 * (the caller stops there: the bytes past it stay as they were, in the
 * user's buffer); without eof (a window, rewritten whole) they read as
 * zeros. */
int io_call(const struct tacio_file *f, char *at, int64_t len, int64_t off, bool write,
            int64_t *eof);
/* The window's I/O from or into wbuf; holes_only: only read the holes of
 * the spans a write sieves (its read-modify-write's first half). */
int span_io(const struct tacio_file *f, const struct fdom_ranges *w, const struct span *sp,
            const struct piece_list *all, char *wbuf, bool write, bool holes_only, int64_t *eof);

#endif
