#include "indep.h"

#include "window.h"

#define BOUNCE_BYTES (4 << 20) /* a scattered buffer moves through this much at once */
#define SIEVE_BYTES (4 << 20)  /* the longest stretch read-modify-written at once */

struct indep {
    struct call *c;
    char *bounce;
    struct piece_list chunk; /* sieving: the pieces of the current stretch */
};

static char *bounce(struct indep *in, int64_t n)
{
    if (!in->bounce)
        in->bounce = arena_alloc(&in->c->f->slot[0].msgs, max64(n, BOUNCE_BYTES));
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
        return io_call(c->f, run, len, off, c->is_write, &c->eof);
    if (!bounce(in, BOUNCE_BYTES))
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t done = 0; done < len;) {
        int64_t n = min64(len - done, BOUNCE_BYTES);
        if (c->is_write)
            flat_gather(c->a.mt, c->buf, spos - c->a.s0 + done, n, in->bounce);
        int rc = io_call(c->f, in->bounce, n, off + done, c->is_write, &c->eof);
        if (rc)
            return rc;
        if (!c->is_write)
            flat_scatter(c->a.mt, c->buf, spos - c->a.s0 + done, n, in->bounce);
        done += n;
    }
    return 0;
}

/* A stretch of pieces: sieved through the bounce buffer when its holes are
 * cheaper than its calls, else piece by piece. */
static int flush(struct indep *in)
{
    struct call *c = in->c;
    struct piece_list *p = &in->chunk;
    if (!p->n)
        return 0;
    const struct piece *last = &p->p[p->n - 1];
    struct fdom_ranges w = {.lo = {p->p[0].off}, .hi = {last->off + last->len}, .n = 1};
    struct span sp;
    window_spans(&w, p, true, &sp);
    int rc = 0;
    char *buf = sp.sieve ? bounce(in, window_bytes(&w)) : NULL;
    if (sp.sieve && !buf)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    else if (!sp.sieve)
        for (int64_t i = 0; i < p->n && !rc; i++)
            rc = one_piece(p->p[i].off, p->p[i].len, p->p[i].spos, in);
    else if (c->is_write) {
        rc = span_io(c->f, &w, &sp, p, buf, false, true, NULL); /* the holes first */
        for (int64_t i = 0; i < p->n && !rc; i++)
            flat_gather(c->a.mt, c->buf, p->p[i].spos - c->a.s0, p->p[i].len,
                        buf + wpos(&w, p->p[i].off));
        rc = rc ? rc : span_io(c->f, &w, &sp, p, buf, true, false, NULL);
    } else {
        rc = span_io(c->f, &w, &sp, p, buf, false, false, &c->eof);
        for (int64_t i = 0; i < p->n && !rc; i++)
            flat_scatter(c->a.mt, c->buf, p->p[i].spos - c->a.s0, p->p[i].len,
                         buf + wpos(&w, p->p[i].off));
    }
    p->n = p->bytes = 0;
    return rc;
}

/* Sieving: pieces gather into stretches of at most SIEVE_BYTES of file. */
static int sieve_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct indep *in = ctx;
    int rc = 0;
    if (in->chunk.n && off + len - in->chunk.p[0].off > SIEVE_BYTES)
        rc = flush(in);
    return rc ? rc : piece_push(off, len, spos, &in->chunk);
}

int indep_run(struct call *c)
{
    struct indep in = {c, NULL, {0}};
    double t0 = backend_clock();
    c->own_io = c->a.n > 0; /* a host's other ranks (nodeagg) were served by its leader */
    int rc = access_walk(&c->a, c->s->sieve ? sieve_piece : one_piece, &in);
    if (!rc && c->s->sieve)
        rc = flush(&in);
    free(in.chunk.p);
    arena_reset(&c->f->slot[0].msgs);
    stage_add(c, ST_IO, t0);
    return rc;
}
