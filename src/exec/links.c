#include "links.h"

#include "cplan.h"

#include <string.h>

#define TAG_META 7410

/* This rank's pieces and bytes in a window, from its view's structure
 * (view_count) rather than a walk: ranges that touch are one range, as the
 * walk merges the pieces that meet across them. */
static void window_counts(const struct access *a, const struct fdom_ranges *w, int64_t *np,
                          int64_t *bytes)
{
    *np = *bytes = 0;
    for (int k = 0; k < w->n && a->n > 0;) {
        int64_t lo = w->lo[k], hi = w->hi[k], p, b;
        while (++k < w->n && w->lo[k] == hi)
            hi = w->hi[k];
        view_count(&a->v, a->s0, a->s0 + a->n, lo, hi, &p, &b);
        *np += p;
        *bytes += b;
    }
}

/* The rounds of FD j in which this rank has data: per round its pieces and
 * bytes, trimmed to [first, last] round with any. */
static int link_fill(const struct call *c, struct link *l)
{
    int64_t nr = sched_dom_rounds(c->s, l->dom), first = -1, last = -1;
    l->np = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    l->bytes = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    if (!l->np || !l->bytes)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t r = 0; r < nr; r++) {
        struct fdom_ranges w;
        sched_round_window(c->s, l->dom, r, &w);
        window_counts(&c->a, &w, &l->np[r], &l->bytes[r]);
        if (l->bytes[r]) {
            first = first < 0 ? r : first;
            last = r;
        }
    }
    l->r0 = max64(first, 0);
    l->nr = last - first + (first >= 0);
    memmove(l->np, l->np + l->r0, sizeof(int64_t) * (size_t)l->nr);
    memmove(l->bytes, l->bytes + l->r0, sizeof(int64_t) * (size_t)l->nr);
    return 0;
}

int links_out(struct call *c)
{
    struct sched *s = c->s;
    struct crow row = {0};
    int rc = c->planning.rc ? c->planning.rc : own_row(c, &s->plan->part, &row);
    s->out = rc ? NULL : xcalloc((size_t)row.nnz + 1, sizeof *s->out);
    if (!rc && !s->out)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t k = 0; !rc && k < row.nnz; k++) {
        struct link *l = &s->out[s->nout++];
        l->dom = row.col[k];
        l->peer = s->plan->agg[l->dom];
    }
    crow_free(&row);
    return rc;
}

static int fill_links_out(struct call *c)
{
    int rc = 0;
    for (int k = 0; !rc && k < c->s->nout; k++) {
        rc = link_fill(c, &c->s->out[k]);
        meta_add(c, 32 + 16 * c->s->out[k].nr);
    }
    return rc;
}

/* One message per link to the FD's aggregator: [dom, r0, nr, np..., bytes...];
 * after a failure, [dom, -1, 0] so the aggregator still hears from everyone. */
static int send_meta(struct call *c, int local, int64_t **bufs, MPI_Request *req)
{
    int n = 0;
    for (int k = 0; k < c->s->nout; k++) {
        const struct link *l = &c->s->out[k];
        int64_t len = local ? 3 : 3 + 2 * l->nr, *b = malloc(sizeof(int64_t) * (size_t)len);
        if (!b) { /* the failure travels in place of the counts */
            local = local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
            static int64_t failed[3] = {0, -1, 0};
            MPI_Isend(failed, 3, MPI_INT64_T, l->peer, TAG_META, c->f->comm, &req[n++]);
            continue;
        }
        b[0] = l->dom;
        b[1] = local ? -1 : l->r0;
        b[2] = local ? 0 : l->nr;
        if (!local) {
            memcpy(b + 3, l->np, sizeof(int64_t) * (size_t)l->nr);
            memcpy(b + 3 + l->nr, l->bytes, sizeof(int64_t) * (size_t)l->nr);
        }
        bufs[n] = b;
        MPI_Isend(b, (int)len, MPI_INT64_T, l->peer, TAG_META, c->f->comm, &req[n++]);
    }
    return local;
}

static int link_from_meta(struct link *l, int peer, const int64_t *m, int count)
{
    *l = (struct link){.peer = peer, .dom = (int)m[0], .r0 = m[1], .nr = m[2]};
    if (l->r0 < 0)
        return tacio_fail(TACIO_EIO, "rank %d failed before the shuffle", peer);
    if (count != 3 + 2 * l->nr)
        return tacio_fail(TACIO_EINVAL, "internal: rank %d sent %d words of counts", peer, count);
    l->np = malloc(sizeof(int64_t) * (size_t)(l->nr + 1));
    l->bytes = malloc(sizeof(int64_t) * (size_t)(l->nr + 1));
    if (!l->np || !l->bytes)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    memcpy(l->np, m + 3, sizeof(int64_t) * (size_t)l->nr);
    memcpy(l->bytes, m + 3 + l->nr, sizeof(int64_t) * (size_t)l->nr);
    return 0;
}

/* The aggregator's receives of the counts, one per rank feeding its FD
 * (the plan's column), each as long as the FD has rounds. */
static int post_meta_receives(struct call *c, int64_t **bufs, MPI_Request *req, int64_t cap)
{
    static int64_t none;
    int local = 0;
    for (int k = 0; k < c->s->nfeeding; k++) {
        bufs[k] = malloc(sizeof(int64_t) * (size_t)cap);
        if (!bufs[k])
            local = local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
        MPI_Irecv(bufs[k] ? bufs[k] : &none, bufs[k] ? (int)cap : 0, MPI_INT64_T, c->s->senders[k],
                  TAG_META, c->f->comm, &req[k]);
    }
    return local;
}

static int take_meta(struct call *c, int64_t **bufs, MPI_Status *st, int local)
{
    struct sched *s = c->s;
    s->in = xcalloc((size_t)s->nfeeding + 1, sizeof *s->in);
    if (!s->in)
        return local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int k = 0; k < s->nfeeding && !local; k++) {
        int count;
        MPI_Get_count(&st[k], MPI_INT64_T, &count);
        local = link_from_meta(&s->in[s->nin++], s->senders[k], bufs[k], count);
        if (!local)
            meta_add(c, 32 + 16 * s->in[s->nin - 1].nr);
    }
    return local;
}

int links_exchange(struct call *c, int local, bool *agreed)
{
    struct sched *s = c->s;
    size_t n = (size_t)s->nout + (size_t)s->nfeeding + 1;
    int64_t **bufs = xcalloc(n, sizeof *bufs);
    MPI_Request *req = malloc(sizeof *req * n);
    MPI_Status *st = malloc(sizeof *st * n);
    if (!local && (!bufs || !req || !st))
        local = tacio_fail(TACIO_ENOMEM, "out of memory");
    int rc = agree(c->f->comm, local);
    *agreed = rc != 0;
    if (!rc) {
        int nin = s->nfeeding, prc = 0;
        local = fill_links_out(c);
        if (nin)
            prc = post_meta_receives(c, bufs + s->nout, req + s->nout,
                                     3 + 2 * sched_dom_rounds(s, s->my_fd));
        local = send_meta(c, local ? local : prc, bufs, req);
        if (MPI_Waitall(s->nout + nin, req, st) != MPI_SUCCESS && !local)
            local = tacio_fail(TACIO_ECOMM, "the exchange of round counts failed");
        if (nin && !local)
            local = take_meta(c, bufs + s->nout, st + s->nout, local);
        for (int k = 0; k < s->nout + nin; k++)
            free(bufs[k]);
        rc = local; /* agreed at the end of round 0 */
    }
    free(bufs);
    free(req);
    free(st);
    return rc;
}
