#include "indep.h"

#include "window.h"

#define BOUNCE_BYTES (4 << 20) /* a scattered buffer moves through this much at once */
#define SIEVE_BYTES (4 << 20)  /* the longest stretch of file read-modify-written at once */

/* A system call costs about as much as moving this many bytes through the
 * page cache (window.c's rule): sieve a stretch when its holes cost less. */
#define CALL_BYTES 16384

struct indep {
    struct call *c;
    char *bounce;
    char *stretch; /* sieving: the stretch's bytes, from `from` */
    int64_t from;
};

static char *bounce(struct indep *in)
{
    if (!in->bounce)
        in->bounce = arena_alloc(&in->c->f->slot[0].msgs, BOUNCE_BYTES);
    return in->bounce;
}

/* One piece: straight from or to the user's buffer when it is one run
 * there, through the bounce buffer otherwise. */
static int one_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct indep *in = ctx;
    struct call *c = in->c;
    char *run = flat_run(c->a.mt, c->buf, spos - c->a.s0, len);
    if (run)
        return io_call(c->f, run, len, off, c->is_write, &c->io.eof);
    if (!bounce(in))
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t done = 0; done < len;) {
        int64_t n = min64(len - done, BOUNCE_BYTES);
        if (c->is_write)
            flat_gather(c->a.mt, c->buf, spos - c->a.s0 + done, n, in->bounce);
        int rc = io_call(c->f, in->bounce, n, off + done, c->is_write, &c->io.eof);
        if (rc)
            return rc;
        if (!c->is_write) /* what was read: a short read leaves the rest as it was */
            flat_scatter(c->a.mt, c->buf, spos - c->a.s0 + done,
                         max64(0, min64(n, c->io.eof - (off + done))), in->bounce);
        done += n;
    }
    return 0;
}

/* One piece between the user's buffer and the stretch's bytes: with a
 * contiguous memory type (the common case) one small copy. */
static int stretch_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct indep *in = ctx;
    const struct call *c = in->c;
    const struct flat *mt = c->a.mt;
    char *at = in->stretch + (off - in->from);
    int64_t s = spos - c->a.s0;
    if (flat_dense(mt)) { /* stream positions are addresses */
        char *mem = c->buf + mt->off[0] + s;
        copy_bytes(c->is_write ? at : mem, c->is_write ? mem : at, (size_t)len);
    } else if (c->is_write)
        flat_gather(mt, c->buf, s, len, at);
    else
        flat_scatter(mt, c->buf, s, len, at);
    return 0;
}

/* stretch_piece for a read whose stretch met the end of the file: what
 * lies past it stays out of the user's buffer. (Apart, so that a stretch
 * read whole, the common case, pays nothing per piece for it.) */
static int stretch_piece_to_eof(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    const struct indep *in = ctx;
    int64_t keep = max64(0, min64(len, in->c->io.eof - off));
    return keep ? stretch_piece(off, keep, spos, ctx) : 0;
}

/* The stretch [lo, hi) of this rank's span: its pieces counted from the
 * view's structure; sieved when its holes cost less than its calls (read
 * whole, pieces copied out; or holes read, pieces copied in, written
 * whole), else piece by piece. */
static int stretch_io(struct indep *in, int64_t lo, int64_t hi)
{
    struct call *c = in->c;
    const struct access *a = &c->a;
    int64_t np, bytes, s1 = a->s0 + a->n;
    view_count(&a->v, a->s0, s1, lo, hi, &np, &bytes);
    if (!bytes)
        return 0;
    int64_t first = view_offset_of(&a->v, max64(a->s0, view_bytes_below(&a->v, lo)));
    int64_t last = view_offset_of(&a->v, min64(s1, view_bytes_below(&a->v, hi)) - 1) + 1;
    int64_t holes = last - first - bytes;
    if (np < 2 || np * CALL_BYTES <= 2 * holes)
        return view_walk(&a->v, a->s0, s1, lo, hi, one_piece, in);
    if (!bounce(in))
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    in->stretch = in->bounce;
    in->from = first;
    int rc =
        io_call(c->f, in->stretch, last - first, first, false, c->is_write ? NULL : &c->io.eof);
    piece_fn copy = c->is_write || c->io.eof >= last ? stretch_piece : stretch_piece_to_eof;
    rc = rc ? rc : view_walk(&a->v, a->s0, s1, lo, hi, copy, in);
    return rc || !c->is_write ? rc : io_call(c->f, in->stretch, last - first, first, true, NULL);
}

/* Whether an access longer than one stretch is one run of the file: then
 * one call moves it, however long (sieving in stretches would only split
 * it). A shorter one is one stretch, whose own count decides the same. */
static bool one_long_run(const struct access *a, int64_t lo, int64_t hi)
{
    if (hi - lo <= SIEVE_BYTES)
        return false;
    int64_t np, bytes;
    view_count(&a->v, a->s0, a->s0 + a->n, lo, hi, &np, &bytes);
    return np < 2;
}

int indep_run(struct call *c)
{
    struct indep in = {.c = c};
    double t0 = stage_start(c); /* every caller has just ended a stage */
    c->io.ran = c->a.n > 0;     /* a host's other ranks (nodeagg) were served by its leader */
    int64_t lo, hi;
    access_span(&c->a, &lo, &hi);
    int rc = 0;
    if (flat_dense(c->a.v.ft)) /* one run of the file: no pieces to count or walk */
        rc = c->a.n ? one_piece(lo, c->a.n, c->a.s0, &in) : 0;
    else if (!c->s->sieve || one_long_run(&c->a, lo, hi))
        rc = access_walk(&c->a, one_piece, &in);
    else
        for (int64_t at = lo; at < hi && !rc; at += SIEVE_BYTES)
            rc = stretch_io(&in, at, min64(hi, at + SIEVE_BYTES));
    arena_reset(&c->f->slot[0].msgs);
    stage_add(c, ST_IO, t0);
    return rc;
}
