/* The collective data path: st1 access (views exchanged), st2 plan (the
 * planning core's plan_run, unchanged), st3 route, then rounds of st4
 * shuffle and st5 I/O bounded by cb_buffer_size.
 *
 * Every rank holds every rank's view (disp, flattened filetype, stream range),
 * so an aggregator computes by itself which bytes each rank sends it and where
 * they go: no offset lists travel. Each round ends with an error agreement. */
#include "exec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define TAG_DATA 7411

struct call {
    struct tacio_file *f;
    bool is_write;
    char *buf; /* user buffer */
    const struct flat *mt;
    struct flat *mt_owned;
    int64_t s0, n; /* this rank's stream range in the view v that serves it */
    struct view v;
    struct flat shell; /* v's filetype when v is one tile of the file's view */
    /* all ranks' views */
    struct view *views;
    struct flat *flats;
    int64_t *vs0, *vn, *arrays;
    struct tacio_pattern *pat;
    struct tacio_plan *plan;
    int *fd_of_rank; /* FD this rank aggregates, or -1 */
    int64_t rounds;
    int nsteps; /* collection steps per round: hosts when the plan orders them */
    double t[6];
};

/* ---- st1: this rank's access, then everybody's views ---- */

static int access_local(struct call *c, int64_t offset, int64_t count, MPI_Datatype dt)
{
    struct tacio_file *f = c->f;
    int size;
    view_access(NULL, 0, 0, NULL, &c->v, &c->s0); /* what an access that fails sends */
    int rc = exec_flatten(dt, &c->mt, &c->mt_owned);
    MPI_Type_size(dt, &size);
    if (rc)
        return rc;
    if (count < 0)
        return exec_fail_class(MPI_ERR_COUNT, "negative count %lld", (long long)count);
    c->n = count * size;
    if (c->n % f->etype_size)
        return exec_fail_class(MPI_ERR_ARG, "%lld bytes is not a whole number of %lld-byte etypes",
                               (long long)c->n, (long long)f->etype_size);
    if ((f->amode & MPI_MODE_RDONLY) && c->is_write)
        return exec_fail_class(MPI_ERR_READ_ONLY, "write to a file opened MPI_MODE_RDONLY");
    if ((f->amode & MPI_MODE_WRONLY) && !c->is_write)
        return exec_fail_class(MPI_ERR_ACCESS, "read from a file opened MPI_MODE_WRONLY");
    int64_t pos = offset >= 0 ? offset : f->fp;
    return view_access(&(struct view){f->disp, f->ft}, pos * f->etype_size, c->n, &c->shell, &c->v,
                       &c->s0);
}

/* Header per rank: disp, s0, n, extents, lb, extent. */
#define HDR 6

/* Rank r's segment of c->arrays starts at seg[r]: its n offsets, n lengths
 * (both gathered), then n + 1 prefix sums computed here. */
static int build_views(struct call *c, const int64_t *hdr, const int *seg)
{
    int p = c->f->nprocs;
    c->views = malloc(sizeof *c->views * (size_t)p);
    c->flats = xcalloc((size_t)p, sizeof *c->flats);
    c->vs0 = malloc(sizeof(int64_t) * (size_t)p);
    c->vn = malloc(sizeof(int64_t) * (size_t)p);
    if (!c->views || !c->flats || !c->vs0 || !c->vn)
        return tacio_fail(TACIO_ENOMEM, "out of memory for the views");
    for (int r = 0; r < p; r++) {
        const int64_t *h = hdr + HDR * r;
        int64_t n = h[3], *base = c->arrays + seg[r];
        struct flat *fl = &c->flats[r];
        *fl = (struct flat){n, base, base + n, base + 2 * n, 0, h[4], h[5], true};
        fl->cum[0] = 0;
        for (int64_t i = 0; i < n; i++)
            fl->cum[i + 1] = fl->cum[i] + fl->len[i];
        fl->size = fl->cum[n];
        c->views[r] = (struct view){h[0], fl};
        c->vs0[r] = h[1];
        c->vn[r] = h[2];
    }
    return pattern_from_views(p, c->views, c->vs0, c->vn, &c->pat);
}

static int exchange_views(struct call *c, int local)
{
    struct tacio_file *f = c->f;
    int p = f->nprocs;
    const struct flat *ft = c->v.ft;
    int64_t mine[HDR] = {c->v.disp, c->s0, local ? 0 : c->n, ft->n, ft->lb, ft->extent};
    int64_t *hdr = malloc(sizeof(int64_t) * HDR * (size_t)p);
    int *counts = malloc(sizeof(int) * (size_t)p), *seg = malloc(sizeof(int) * (size_t)p);
    if (!hdr || !counts || !seg)
        local = local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
    int rc = exec_agree(f->comm, local);
    if (!rc)
        MPI_Allgather(mine, HDR, MPI_INT64_T, hdr, HDR, MPI_INT64_T, f->comm);
    int64_t total = 0;
    for (int r = 0; !rc && r < p; r++) {
        counts[r] = (int)(2 * hdr[HDR * r + 3]);
        seg[r] = (int)total;
        total += 3 * hdr[HDR * r + 3] + 1;
    }
    int64_t *send = NULL;
    if (!rc) {
        c->arrays = malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
        send = malloc(sizeof(int64_t) * (size_t)(2 * ft->n));
        local = c->arrays && send && total < INT32_MAX
                    ? 0
                    : tacio_fail(TACIO_ENOMEM, "views too large");
        rc = exec_agree(f->comm, local);
    }
    if (!rc) {
        memcpy(send, ft->off, sizeof(int64_t) * (size_t)ft->n);
        memcpy(send + ft->n, ft->len, sizeof(int64_t) * (size_t)ft->n);
        MPI_Allgatherv(send, counts[f->rank], MPI_INT64_T, c->arrays, counts, seg, MPI_INT64_T,
                       f->comm);
        rc = exec_agree(f->comm, build_views(c, hdr, seg));
    }
    free(send);
    free(hdr);
    free(counts);
    free(seg);
    return rc;
}

/* ---- st2/st3: plan and routes ---- */

static int make_plan(struct call *c)
{
    struct tacio_file *f = c->f;
    struct plan_ctx ctx = {c->pat, f->topo, f->hints, 0, 0};
    pattern_range(c->pat, &ctx.lo, &ctx.hi);
    if (ctx.lo >= ctx.hi)
        return 0; /* nobody accesses a byte */
    int rc = plan_run(&ctx, strategy_find(f->hints->strategy), &c->plan);
    c->fd_of_rank = malloc(sizeof(int) * (size_t)f->nprocs);
    if (!rc && !c->fd_of_rank)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int r = 0; !rc && r < f->nprocs; r++)
        c->fd_of_rank[r] = -1;
    c->rounds = 0;
    c->nsteps = c->plan->order ? f->topo->nused_hosts : 1;
    for (int j = 0; !rc && j < c->plan->part.n; j++) {
        int a = c->plan->agg[j];
        if (c->fd_of_rank[a] >= 0)
            rc = tacio_fail(TACIO_EINVAL, "internal: rank %d aggregates two file domains", a);
        c->fd_of_rank[a] = j;
        c->rounds =
            max64(c->rounds, ceil_div(fdom_extent(&c->plan->part.fd[j]), f->hints->cb_buffer_size));
    }
    return rc;
}

/* File ranges of FD-relative bytes [lo, hi) of FD fd. */
struct ranges {
    int64_t lo[64], hi[64];
    int n;
};

static void fd_window(const struct fdom *fd, int64_t lo, int64_t hi, struct ranges *out)
{
    out->n = 0;
    if (!fd->unit) {
        out->lo[0] = fd->start + lo;
        out->hi[0] = min64(fd->end, fd->start + hi);
        out->n = out->lo[0] < out->hi[0];
        return;
    }
    int64_t head = min64(fd->end, (fd->start / fd->unit + 1) * fd->unit) - fd->start;
    for (int64_t b = lo; b < hi && out->n < 64;) {
        int64_t off, room;
        if (b < head) {
            off = fd->start + b;
            room = head - b;
        } else {
            int64_t m = 1 + (b - head) / fd->unit, within = (b - head) % fd->unit;
            off = (fd->start / fd->unit) * fd->unit + m * fd->stride + within;
            room = fd->unit - within;
        }
        if (off >= fd->end)
            break;
        room = min64(min64(room, hi - b), fd->end - off);
        out->lo[out->n] = off;
        out->hi[out->n++] = off + room;
        b += room;
    }
}

/* Window r of FD j: cb_buffer_size bytes of the FD at most (fewer when its
 * stripes are smaller than cb/64, so a window never needs more ranges). */
static void round_window(const struct call *c, int j, int64_t r, struct ranges *w)
{
    const struct fdom *fd = &c->plan->part.fd[j];
    int64_t cb = c->f->hints->cb_buffer_size;
    if (fd->unit && cb > 63 * fd->unit)
        cb = 63 * fd->unit;
    fd_window(fd, r * cb, (r + 1) * cb, w);
}

/* Pieces of rank i's access inside window w, in file order. */
struct piece {
    int64_t off, len, spos;
    char *data; /* aggregator side: where the piece's bytes are staged */
};

struct piece_list {
    struct piece *p;
    int64_t n, cap, bytes;
};

static int push_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct piece_list *l = ctx;
    int rc = grow_array((void **)&l->p, sizeof *l->p, l->n + 1, &l->cap);
    if (rc)
        return rc;
    l->p[l->n++] = (struct piece){off, len, spos, NULL};
    l->bytes += len;
    return 0;
}

static int pieces_of(const struct call *c, int i, const struct ranges *w, struct piece_list *out)
{
    out->n = out->bytes = 0;
    int rc = 0;
    for (int k = 0; k < w->n && !rc; k++)
        rc = view_walk(&c->views[i], c->vs0[i], c->vs0[i] + c->vn[i], w->lo[k], w->hi[k],
                       push_piece, out);
    return rc;
}

/* Window-buffer position of file offset off (ranges are packed back to back). */
static int64_t wpos(const struct ranges *w, int64_t off)
{
    int64_t base = 0;
    for (int k = 0; k < w->n; k++) {
        if (off < w->hi[k])
            return base + off - w->lo[k];
        base += w->hi[k] - w->lo[k];
    }
    return base;
}

static int64_t window_bytes(const struct ranges *w)
{
    int64_t b = 0;
    for (int k = 0; k < w->n; k++)
        b += w->hi[k] - w->lo[k];
    return b;
}

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* Per range of the window: the span [first, last) its pieces cover, and
 * whether holes lie inside it. One pread/pwrite per span (data sieving). */
struct span {
    int64_t first, last;
    bool holes;
};

static void window_spans(const struct ranges *w, struct piece_list *all, struct span *out)
{
    if (all->n > 1) /* an empty list may have no array at all */
        qsort(all->p, (size_t)all->n, sizeof *all->p, cmp_piece);
    int64_t i = 0;
    for (int k = 0; k < w->n; k++) {
        int64_t first = -1, end = -1, covered = 0;
        for (; i < all->n && all->p[i].off < w->hi[k]; i++) {
            const struct piece *p = &all->p[i];
            first = first < 0 ? p->off : first;
            covered += max64(0, p->off + p->len - max64(p->off, end));
            end = max64(end, p->off + p->len);
        }
        out[k] = (struct span){first, end, first >= 0 && covered < end - first};
    }
}

static int span_io(struct call *c, const struct ranges *w, const struct span *sp, char *wbuf,
                   bool write, bool holes_only)
{
    struct tacio_file *f = c->f;
    for (int k = 0; k < w->n; k++) {
        if (sp[k].first < 0 || (holes_only && !sp[k].holes))
            continue;
        int64_t len = sp[k].last - sp[k].first;
        char *at = wbuf + wpos(w, sp[k].first);
        int err = exec_fault(write ? "pwrite" : "pread", f->rank);
        if (!err)
            err = -(write ? exec_pwrite_all(f->fd, at, len, sp[k].first)
                          : exec_pread_all(f->fd, at, len, sp[k].first));
        if (err)
            return exec_fail_errno(err, "%s of %lld bytes at offset %lld of %s",
                                   write ? "pwrite" : "pread", (long long)len,
                                   (long long)sp[k].first, f->path);
    }
    return 0;
}

/* ---- st4/st5: one round ---- */

/* What a round allocates; freed in one place whatever fails. */
struct round {
    MPI_Request *req;
    int nreq;
    char **bufs;
    int nbufs;
    struct piece_list all, mine;
    char *wbuf, *self; /* window buffer; the aggregator's own bytes */
};

static int round_init(struct round *rd, int nmsg)
{
    memset(rd, 0, sizeof *rd);
    rd->req = malloc(sizeof(MPI_Request) * (size_t)(nmsg + 1));
    rd->bufs = malloc(sizeof(char *) * (size_t)(nmsg + 2));
    return rd->req && rd->bufs ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
}

static char *round_alloc(struct round *rd, int64_t n)
{
    char *b = malloc((size_t)(n ? n : 1));
    if (b)
        rd->bufs[rd->nbufs++] = b;
    return b;
}

static void round_free(struct round *rd)
{
    for (int i = 0; i < rd->nbufs; i++)
        free(rd->bufs[i]);
    free(rd->bufs);
    free(rd->req);
    free(rd->all.p);
    free(rd->mine.p);
    free(rd->wbuf);
}

/* Complete the round's messages. A rank that already failed keeps its first
 * error (and its message): the exchange failing after it is a consequence. */
static int wait_all(struct call *c, struct round *rd, int local)
{
    double t0 = exec_now();
    int rc = MPI_Waitall(rd->nreq, rd->req, MPI_STATUSES_IGNORE);
    c->t[4] += exec_now() - t0;
    rd->nreq = 0;
    if (local)
        return local;
    return rc == MPI_SUCCESS ? 0 : exec_fail_class(MPI_ERR_OTHER, "message exchange failed");
}

/* Append rank i's pieces of window w to rd->all, staged at data. */
static int stage_pieces(struct call *c, struct round *rd, int i, const struct ranges *w,
                        struct piece_list *tmp, char **data)
{
    int rc = pieces_of(c, i, w, tmp);
    if (rc || tmp->bytes == 0)
        return rc;
    *data = i == c->f->rank ? rd->self : round_alloc(rd, tmp->bytes);
    if (!*data)
        return tacio_fail(TACIO_ENOMEM, "out of memory staging %lld bytes", (long long)tmp->bytes);
    for (int64_t k = 0, pos = 0; k < tmp->n && !rc; pos += tmp->p[k++].len) {
        rc = push_piece(tmp->p[k].off, tmp->p[k].len, tmp->p[k].spos, &rd->all);
        if (!rc)
            rd->all.p[rd->all.n - 1].data = *data + pos;
    }
    return rc;
}

/* Tsujita's ordered collection: when the plan orders senders, a round runs
 * in steps, and in step t each aggregator exchanges only with the ranks of
 * the host t places after its own (in host order), so no host's ranks are
 * drained by many aggregators at once. Unordered plans use one step. */
static int msg_step(const struct call *c, int sender, int agg)
{
    if (c->nsteps == 1)
        return 0;
    const struct tacio_topo *t = c->f->topo;
    int hs = t->host_order[t->rank_host[sender]], ha = t->host_order[t->rank_host[agg]];
    return (hs - ha + c->nsteps) % c->nsteps;
}

/* Sender side of a write: pack this rank's bytes for each FD it feeds. After
 * a failure the messages still go, empty, so no aggregator waits forever. */
static int write_sends(struct call *c, struct round *rd, int64_t r, int rc, int step)
{
    int me = c->f->rank;
    for (int64_t k = c->plan->comm.row_ptr[me]; k < c->plan->comm.row_ptr[me + 1]; k++) {
        int j = c->plan->comm.col[k], a = c->plan->agg[j];
        if (msg_step(c, me, a) != step)
            continue;
        struct ranges w;
        round_window(c, j, r, &w);
        if (!rc)
            rc = pieces_of(c, me, &w, &rd->mine);
        if (!rc && rd->mine.bytes == 0)
            continue;
        char *b = rc ? NULL : round_alloc(rd, rd->mine.bytes);
        if (!rc && !b)
            rc = tacio_fail(TACIO_ENOMEM, "out of memory packing %lld bytes",
                            (long long)rd->mine.bytes);
        for (int64_t i = 0, pos = 0; !rc && i < rd->mine.n; pos += rd->mine.p[i++].len)
            flat_gather(c->mt, c->buf, rd->mine.p[i].spos - c->s0, rd->mine.p[i].len, b + pos);
        if (a == me)
            rd->self = b;
        else
            MPI_Isend(b, rc ? 0 : (int)rd->mine.bytes, MPI_BYTE, a, TAG_DATA, c->f->comm,
                      &rd->req[rd->nreq++]);
    }
    return rc;
}

/* Receive from every sender that has bytes in the window; after a failure
 * the receives are still posted (into nothing: an over-long message then
 * fails the receive instead of hanging the sender). */
static int write_receives(struct call *c, struct round *rd, int j, const struct ranges *w, int rc,
                          int step)
{
    static char nothing;
    struct piece_list tmp = {0};
    int me = c->f->rank;
    for (int64_t k = c->plan->comm.col_ptr[j]; k < c->plan->comm.col_ptr[j + 1]; k++) {
        int i = c->plan->comm.row[k];
        char *data = NULL;
        if (msg_step(c, i, me) != step)
            continue;
        if (!rc)
            rc = stage_pieces(c, rd, i, w, &tmp, &data);
        else if (i != me && pieces_of(c, i, w, &tmp) == 0 && tmp.bytes == 0)
            continue;
        if (i != me && (rc || tmp.bytes))
            MPI_Irecv(rc ? &nothing : data, rc ? 0 : (int)tmp.bytes, MPI_BYTE, i, TAG_DATA,
                      c->f->comm, &rd->req[rd->nreq++]);
    }
    free(tmp.p);
    return rc;
}

/* Messages this rank may post in a round: one per FD it feeds, one per rank
 * feeding the FD it aggregates. */
static int64_t round_messages(const struct call *c)
{
    int me = c->f->rank, j = c->fd_of_rank[me];
    int64_t n = c->plan->comm.row_ptr[me + 1] - c->plan->comm.row_ptr[me];
    return j >= 0 ? n + c->plan->comm.col_ptr[j + 1] - c->plan->comm.col_ptr[j] : n;
}

static int write_round(struct call *c, int64_t r)
{
    int j = c->fd_of_rank[c->f->rank];
    int64_t nmsg = round_messages(c);
    struct round rd;
    struct ranges w;
    double t0 = exec_now();
    int local = round_init(&rd, (int)nmsg);
    if (!rd.req || !rd.bufs) { /* cannot even take part: agree on failing */
        round_free(&rd);
        return exec_agree(c->f->comm, local);
    }
    if (j >= 0)
        round_window(c, j, r, &w);
    for (int step = 0; step < c->nsteps; step++) {
        local = write_sends(c, &rd, r, local, step);
        if (j >= 0)
            local = write_receives(c, &rd, j, &w, local, step);
        c->t[3] += exec_now() - t0;
        local = wait_all(c, &rd, local);
        t0 = exec_now();
    }
    if (!local && j >= 0 && rd.all.n) {
        struct span sp[64];
        t0 = exec_now();
        window_spans(&w, &rd.all, sp);
        rd.wbuf = malloc((size_t)window_bytes(&w));
        local = rd.wbuf ? span_io(c, &w, sp, rd.wbuf, false, true)
                        : tacio_fail(TACIO_ENOMEM, "out of memory for the window");
        for (int64_t k = 0; !local && k < rd.all.n; k++)
            memcpy(rd.wbuf + wpos(&w, rd.all.p[k].off), rd.all.p[k].data, (size_t)rd.all.p[k].len);
        if (!local)
            local = span_io(c, &w, sp, rd.wbuf, true, false);
        c->t[5] += exec_now() - t0;
    }
    round_free(&rd);
    return exec_agree(c->f->comm, local);
}

static int append_pieces(struct piece_list *dst, const struct piece_list *src)
{
    int rc = 0;
    for (int64_t k = 0; k < src->n && !rc; k++)
        rc = push_piece(src->p[k].off, src->p[k].len, src->p[k].spos, dst);
    return rc;
}

/* Aggregator side of a read: read the window's spans once. */
static int read_fill(struct call *c, struct round *rd, int j, const struct ranges *w, int rc)
{
    struct piece_list tmp = {0};
    for (int64_t k = c->plan->comm.col_ptr[j]; k < c->plan->comm.col_ptr[j + 1] && !rc; k++)
        if (!(rc = pieces_of(c, c->plan->comm.row[k], w, &tmp)))
            rc = append_pieces(&rd->all, &tmp);
    free(tmp.p);
    struct span sp[64];
    double t0 = exec_now();
    window_spans(w, &rd->all, sp);
    rd->wbuf = rc ? NULL : malloc((size_t)window_bytes(w));
    if (!rc)
        rc = rd->wbuf ? span_io(c, w, sp, rd->wbuf, false, false)
                      : tacio_fail(TACIO_ENOMEM, "out of memory for the window");
    c->t[5] += exec_now() - t0;
    return rc;
}

/* ... then send each rank of this step its bytes; after a failure the
 * messages still go, empty. */
static int read_send(struct call *c, struct round *rd, int j, const struct ranges *w, int rc,
                     int step)
{
    int me = c->f->rank;
    struct piece_list tmp = {0};
    for (int64_t k = c->plan->comm.col_ptr[j]; k < c->plan->comm.col_ptr[j + 1]; k++) {
        int i = c->plan->comm.row[k];
        if (msg_step(c, i, me) != step || pieces_of(c, i, w, &tmp) || tmp.bytes == 0)
            continue;
        char *b = rc ? NULL : round_alloc(rd, tmp.bytes);
        if (!rc && !b)
            rc = tacio_fail(TACIO_ENOMEM, "out of memory");
        for (int64_t q = 0, pos = 0; !rc && q < tmp.n; pos += tmp.p[q++].len)
            memcpy(b + pos, rd->wbuf + wpos(w, tmp.p[q].off), (size_t)tmp.p[q].len);
        if (i == me)
            rd->self = b;
        else
            MPI_Isend(b, rc ? 0 : (int)tmp.bytes, MPI_BYTE, i, TAG_DATA, c->f->comm,
                      &rd->req[rd->nreq++]);
    }
    free(tmp.p);
    return rc;
}

/* Receiver side of a read for one step: post the receives from aggregators. */
static int read_receives(struct call *c, struct round *rd, int64_t r, char **in, int local,
                         int step)
{
    static char nothing;
    int me = c->f->rank;
    for (int64_t k = c->plan->comm.row_ptr[me]; k < c->plan->comm.row_ptr[me + 1]; k++) {
        int j = c->plan->comm.col[k], a = c->plan->agg[j];
        struct ranges w;
        if (a == me || msg_step(c, me, a) != step)
            continue;
        round_window(c, j, r, &w);
        int prc = pieces_of(c, me, &w, &rd->mine);
        local = local ? local : prc;
        if (!prc && rd->mine.bytes == 0)
            continue;
        char *b = local ? NULL : round_alloc(rd, rd->mine.bytes);
        if (!local && !b)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        in[k - c->plan->comm.row_ptr[me]] = b;
        MPI_Irecv(b ? b : &nothing, b ? (int)rd->mine.bytes : 0, MPI_BYTE, a, TAG_DATA, c->f->comm,
                  &rd->req[rd->nreq++]);
    }
    return local;
}

static int read_round(struct call *c, int64_t r)
{
    int me = c->f->rank, jme = c->fd_of_rank[me];
    int64_t nmsg = round_messages(c);
    struct round rd;
    struct ranges w;
    int local = round_init(&rd, (int)nmsg);
    char **in = xcalloc((size_t)nmsg + 1, sizeof(char *));
    if (!rd.req || !rd.bufs || !in) {
        free(in);
        round_free(&rd);
        return exec_agree(c->f->comm, local ? local : tacio_fail(TACIO_ENOMEM, "out of memory"));
    }
    if (jme >= 0) {
        round_window(c, jme, r, &w);
        local = read_fill(c, &rd, jme, &w, local);
    }
    for (int step = 0; step < c->nsteps; step++) {
        double t0 = exec_now();
        if (jme >= 0)
            local = read_send(c, &rd, jme, &w, local, step);
        local = read_receives(c, &rd, r, in, local, step);
        c->t[3] += exec_now() - t0;
        local = wait_all(c, &rd, local);
    }
    for (int64_t k = c->plan->comm.row_ptr[me]; !local && k < c->plan->comm.row_ptr[me + 1]; k++) {
        int j = c->plan->comm.col[k];
        char *src = c->plan->agg[j] == me ? rd.self : in[k - c->plan->comm.row_ptr[me]];
        round_window(c, j, r, &w);
        if (pieces_of(c, me, &w, &rd.mine) || !src)
            continue;
        for (int64_t i = 0, pos = 0; i < rd.mine.n; pos += rd.mine.p[i++].len)
            flat_scatter(c->mt, c->buf, rd.mine.p[i].spos - c->s0, rd.mine.p[i].len, src + pos);
    }
    free(in);
    round_free(&rd);
    return exec_agree(c->f->comm, local);
}

/* ---- the entry point ---- */

static void call_free(struct call *c)
{
    flat_free(c->mt_owned);
    free(c->views);
    free(c->flats);
    free(c->vs0);
    free(c->vn);
    free(c->arrays);
    tacio_pattern_free(c->pat);
    tacio_plan_free(c->plan);
    free(c->fd_of_rank);
}

static void record_stats(struct call *c, int64_t offset)
{
    struct tacio_stats *s = &c->f->last;
    memset(s, 0, sizeof *s);
    snprintf(s->op, sizeof s->op, "%s%s", c->is_write ? "write" : "read",
             offset >= 0 ? "_at_all" : "_all");
    snprintf(s->strategy, sizeof s->strategy, "%s", c->f->hints->strategy);
    s->st1_access = c->t[1];
    s->st2_plan = c->t[2];
    s->st3_route = c->t[3];
    s->st4_shuffle = c->t[4];
    s->st5_io = c->t[5];
    s->total = c->t[0];
    s->rounds = c->rounds;
    s->steps = c->nsteps;
    if (c->plan) {
        const struct metrics *m = &c->plan->m;
        s->bytes = m->total_bytes;
        s->shuffle_bytes = m->shuffle_bytes;
        s->offnode_bytes = m->offnode_bytes;
        s->hop_bytes = m->hop_bytes;
        s->max_link_load = m->max_link_load;
        s->naggs = m->naggs;
        s->buffer_bytes = m->max_agg_mem;
    }
    const char *path = getenv("TACIO_STATS");
    FILE *out = path && c->f->rank == 0 ? fopen(path, "a") : NULL;
    if (out) {
        fprintf(out,
                "{\"op\":\"%s\",\"strategy\":\"%s\",\"procs\":%d,\"st1\":%.6f,\"st2\":%.6f,"
                "\"st3\":%.6f,\"st4\":%.6f,\"st5\":%.6f,\"total\":%.6f,\"bytes\":%lld,"
                "\"shuffle_bytes\":%lld,\"offnode_bytes\":%lld,\"hop_bytes\":%lld,"
                "\"max_link_load\":%lld,\"naggs\":%d,\"rounds\":%lld,\"steps\":%d,\"buffer_bytes\":"
                "%lld}\n",
                s->op, s->strategy, c->f->nprocs, s->st1_access, s->st2_plan, s->st3_route,
                s->st4_shuffle, s->st5_io, s->total, (long long)s->bytes,
                (long long)s->shuffle_bytes, (long long)s->offnode_bytes, (long long)s->hop_bytes,
                (long long)s->max_link_load, s->naggs, (long long)s->rounds, s->steps,
                (long long)s->buffer_bytes);
        fclose(out);
    }
}

/* Bytes the call moved for this rank, for its status: all of a write; of a
 * read, the stream up to the end of the file, as an independent read
 * reports it (PnetCDF moves data by that count). Counted in bytes because
 * MPI_Status_set_elements_x counts basic elements of its type, not units. */
static int64_t transferred(const struct call *c)
{
    struct stat st;
    if (c->is_write || c->n == 0 || fstat(c->f->fd, &st) != 0)
        return c->n;
    int64_t below = view_bytes_below(&c->v, (int64_t)st.st_size) - c->s0;
    return max64(0, min64(below, c->n));
}

int exec_collective(struct tacio_file *f, int64_t offset, void *buf, int64_t count,
                    MPI_Datatype datatype, bool is_write, MPI_Status *status)
{
    struct call c = {.f = f, .is_write = is_write, .buf = buf};
    double t0 = exec_now();
    int local = access_local(&c, offset, count, datatype);
    int rc = exchange_views(&c, local);
    c.t[1] = exec_now() - t0;
    if (!rc) {
        double t1 = exec_now();
        rc = exec_agree(f->comm, make_plan(&c));
        c.t[2] = exec_now() - t1;
    }
    for (int64_t r = 0; !rc && c.plan && r < c.rounds; r++)
        rc = is_write ? write_round(&c, r) : read_round(&c, r);
    c.t[0] = exec_now() - t0;
    if (!rc) {
        if (offset < 0)
            f->fp += c.n / f->etype_size;
        if (status != MPI_STATUS_IGNORE)
            MPI_Status_set_elements_x(status, MPI_BYTE, transferred(&c));
        record_stats(&c, offset);
    }
    call_free(&c);
    return rc;
}
