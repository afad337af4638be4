/* st3 links, then rounds of st4 shuffle and st5 I/O.
 *
 * Links: each rank walks its own access once per round window of every FD
 * it feeds and tells that FD's aggregator, in one message, how many pieces
 * and bytes it has in each round. From then on both sides know every
 * message's size. A write sends the (offset, length) pairs first; the
 * aggregator lays out its window from them, then the data goes straight from
 * the user's buffer into the window wherever both sides are one run of
 * memory (packed and placed otherwise). A read sends the pairs, the
 * aggregator reads its window once and answers with the data, again without
 * copies where the runs allow. Nothing else is exchanged per round but the
 * error agreement. */
#include "coll.h"

#include <string.h>

#define TAG_META 7410
#define TAG_DATA 7411
#define TAG_REQ 7412

/* ---- windows: the part of an FD a round serves ---- */

/* Bytes of an FD a round serves: cb_buffer_size, half of it when rounds
 * are pipelined (two windows are held at once), within fdom_window_size. */
static int64_t window_size(const struct call *c, const struct fdom *fd)
{
    int64_t cb = c->f->hints->cb_buffer_size;
    return fdom_window_size(fd, c->pipelined ? max64(1, cb / 2) : cb);
}

static void round_window(const struct call *c, int j, int64_t r, struct fdom_ranges *w)
{
    const struct fdom *fd = &c->plan->part.fd[j];
    int64_t cb = window_size(c, fd);
    fdom_window(fd, r * cb, (r + 1) * cb, w);
}

static int64_t fd_rounds(const struct call *c, int j)
{
    const struct fdom *fd = &c->plan->part.fd[j];
    return ceil_div(fdom_extent(fd), window_size(c, fd));
}

/* Window-buffer position of file offset off (ranges are packed back to back). */
static int64_t wpos(const struct fdom_ranges *w, int64_t off)
{
    int64_t base = 0;
    for (int k = 0; k < w->n; k++) {
        if (off < w->hi[k])
            return base + off - w->lo[k];
        base += w->hi[k] - w->lo[k];
    }
    return base;
}

static int64_t window_bytes(const struct fdom_ranges *w)
{
    int64_t b = 0;
    for (int k = 0; k < w->n; k++)
        b += w->hi[k] - w->lo[k];
    return b;
}

/* ---- pieces: (file offset, length, stream position) ---- */

/* A piece: file offset, length, and position in the owner's stream (0 on
 * the aggregator, which knows only offsets and lengths). */
struct piece {
    int64_t off, len, spos;
};

struct piece_list {
    struct piece *p;
    int64_t n, cap, bytes;
};

/* Appends, merging a piece that continues the previous one in the file and
 * in the stream (fewer, longer pieces: smaller headers, fewer copies). */
static int push_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct piece_list *l = ctx;
    l->bytes += len;
    struct piece *last = l->n ? &l->p[l->n - 1] : NULL;
    if (last && last->off + last->len == off && last->spos + last->len == spos) {
        last->len += len;
        return 0;
    }
    int rc = grow_array((void **)&l->p, sizeof *l->p, l->n + 1, &l->cap);
    if (rc)
        return rc;
    l->p[l->n++] = (struct piece){off, len, spos};
    return 0;
}

/* This rank's pieces inside window w, in file order. */
static int my_pieces(const struct call *c, const struct fdom_ranges *w, struct piece_list *out)
{
    out->n = out->bytes = 0;
    int rc = 0;
    for (int k = 0; k < w->n && !rc; k++)
        rc = view_walk(&c->v, c->s0, c->s0 + c->n, w->lo[k], w->hi[k], push_piece, out);
    return rc;
}

/* Per range of the window: the span [first, last) its pieces (all->p[i0,
 * i1)) cover, whether holes lie inside it, and whether to sieve: read and
 * write the whole span (one call each, as ROMIO's data sieving does) rather
 * than one call per run of touching pieces. */
struct span {
    int64_t first, last, i0, i1;
    bool holes, sieve;
};

/* A system call costs about as much as moving this many bytes through the
 * page cache: sieve when the holes are cheaper to move than the calls. */
#define CALL_BYTES 16384

/* A round's window on its aggregator: the FD's bytes it serves, the pieces
 * the round's headers announced, their spans, and the buffer. */
struct window {
    struct fdom_ranges w;
    struct span sp[64];
    struct piece_list all;
    int64_t *runs; /* where each sender's pieces start in all */
    char *buf;     /* NULL: nobody has bytes in it, or it was not opened */
};

/* One round's messages and window. Rounds alternate between two slots, so
 * that when they are pipelined the helper thread writes (or reads) one
 * slot's window while the next round's exchange fills the other. Allocated
 * once per call so that no round can fail to take part in its messages. */
struct slot {
    struct call *c;
    char **bufs; /* what the round allocated for its messages */
    int nbufs;
    int64_t nbytes;
    char **inbuf, **outbuf;  /* per in link, per out link: this round's message */
    char **indata;           /* per in link: staged write data (NULL: went in place) */
    struct piece_list *outp; /* per out link: this rank's pieces */
    struct window win;
    struct exec_job job; /* the window's file I/O */
};

struct round {
    MPI_Request *req; /* one phase's messages */
    int nreq;
    struct slot s[2];
};

static int slot_setup(struct call *c, struct slot *s)
{
    int n = c->nout + c->nfeeding;
    s->c = c;
    s->bufs = malloc(sizeof(char *) * (size_t)(2 * n + 2)); /* two per link at most */
    s->inbuf = xcalloc((size_t)n + 1, sizeof(char *));
    s->indata = xcalloc((size_t)n + 1, sizeof(char *));
    s->outbuf = xcalloc((size_t)c->nout + 1, sizeof(char *));
    s->outp = xcalloc((size_t)c->nout + 1, sizeof *s->outp);
    s->win.runs = malloc(sizeof(int64_t) * (size_t)(n + 1));
    return s->bufs && s->inbuf && s->indata && s->outbuf && s->outp && s->win.runs
               ? 0
               : tacio_fail(TACIO_ENOMEM, "out of memory");
}

static int round_setup(struct call *c, struct round *rd)
{
    memset(rd, 0, sizeof *rd);
    rd->req = malloc(sizeof(MPI_Request) * (size_t)(2 * (c->nout + c->nfeeding) + 1));
    int rc = rd->req ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int i = 0; i < 2 && !rc; i++)
        rc = slot_setup(c, &rd->s[i]);
    return rc;
}

/* ---- st3: links ---- */

/* The rounds of FD j in which this rank has data: per round its pieces and
 * bytes, trimmed to [first, last] round with any. */
static int link_fill(const struct call *c, int j, struct link *l, struct piece_list *tmp)
{
    int64_t nr = fd_rounds(c, j), first = -1, last = -1;
    l->np = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    l->bytes = malloc(sizeof(int64_t) * (size_t)(nr + 1));
    if (!l->np || !l->bytes)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t r = 0; r < nr; r++) {
        struct fdom_ranges w;
        round_window(c, j, r, &w);
        int rc = my_pieces(c, &w, tmp);
        if (rc)
            return rc;
        l->np[r] = tmp->n;
        l->bytes[r] = tmp->bytes;
        if (tmp->bytes) {
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

static bool in_round(const struct link *l, int64_t r)
{
    return r >= l->r0 && r < l->r0 + l->nr && l->bytes[r - l->r0] > 0;
}

/* The FDs this rank feeds (its row of C for the plan's partition) and all
 * the memory the exchange and the rounds need besides their data. Agreed:
 * a rank that cannot tell whom it feeds could not send the counts below. */
static int links_out(struct call *c, struct round *rd, int64_t ***bufs, MPI_Request **req,
                     MPI_Status **st)
{
    struct crow row = {0};
    int rc = c->plan_rc ? c->plan_rc : coll_own_row(c, &c->plan->part, &row);
    c->out = rc ? NULL : xcalloc((size_t)row.nnz + 1, sizeof *c->out);
    if (!rc && !c->out)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t k = 0; !rc && k < row.nnz; k++) {
        struct link *l = &c->out[c->nout++];
        l->fd = row.col[k];
        l->peer = c->plan->agg[l->fd];
    }
    crow_free(&row);
    size_t n = (size_t)c->nout + (size_t)c->nfeeding + 1;
    *bufs = xcalloc(n, sizeof **bufs);
    *req = malloc(sizeof **req * n);
    *st = malloc(sizeof **st * n);
    if (!rc && (!*bufs || !*req || !*st))
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    rc = rc ? rc : round_setup(c, rd);
    rc = exec_agree(c->f->comm, rc);
    if (rc)
        free(*bufs), free(*req), free(*st);
    return rc;
}

static int fill_links_out(struct call *c)
{
    struct piece_list tmp = {0};
    int rc = 0;
    for (int k = 0; !rc && k < c->nout; k++) {
        rc = link_fill(c, c->out[k].fd, &c->out[k], &tmp);
        meta_add(c, 32 + 16 * c->out[k].nr);
    }
    free(tmp.p);
    return rc;
}

/* One message per link to the FD's aggregator: [fd, r0, nr, np..., bytes...];
 * after a failure, [fd, -1, 0] so the aggregator still hears from everyone. */
static int send_meta(struct call *c, int local, int64_t **bufs, MPI_Request *req)
{
    int n = 0;
    for (int k = 0; k < c->nout; k++) {
        const struct link *l = &c->out[k];
        int64_t len = local ? 3 : 3 + 2 * l->nr, *b = malloc(sizeof(int64_t) * (size_t)len);
        if (!b) { /* the failure travels in place of the counts */
            local = local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
            static int64_t failed[3] = {0, -1, 0};
            MPI_Isend(failed, 3, MPI_INT64_T, l->peer, TAG_META, c->f->comm, &req[n++]);
            continue;
        }
        b[0] = l->fd;
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
    *l = (struct link){.peer = peer, .fd = (int)m[0], .r0 = m[1], .nr = m[2]};
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
 * (the plan's column, c->senders), each as long as the FD has rounds. */
static int post_meta_receives(struct call *c, int64_t **bufs, MPI_Request *req, int64_t cap)
{
    static int64_t none;
    int local = 0;
    for (int k = 0; k < c->nfeeding; k++) {
        bufs[k] = malloc(sizeof(int64_t) * (size_t)cap);
        if (!bufs[k])
            local = local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
        MPI_Irecv(bufs[k] ? bufs[k] : &none, bufs[k] ? (int)cap : 0, MPI_INT64_T, c->senders[k],
                  TAG_META, c->f->comm, &req[k]);
    }
    return local;
}

static int take_meta(struct call *c, int64_t **bufs, MPI_Status *st, int local)
{
    int n = c->nfeeding;
    c->in = xcalloc((size_t)n + 1, sizeof *c->in);
    if (!c->in)
        return local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int k = 0; k < n && !local; k++) {
        int count;
        MPI_Get_count(&st[k], MPI_INT64_T, &count);
        local = link_from_meta(&c->in[c->nin++], c->senders[k], bufs[k], count);
        if (!local)
            meta_add(c, 32 + 16 * c->in[c->nin - 1].nr);
    }
    return local;
}

static int exchange_links(struct call *c, struct round *rd, bool *agreed)
{
    int64_t **bufs = NULL;
    MPI_Request *req = NULL;
    MPI_Status *st = NULL;
    int local = links_out(c, rd, &bufs, &req, &st);
    *agreed = local != 0;
    if (local)
        return local;
    int nin = c->nfeeding, prc = 0;
    local = fill_links_out(c);
    if (nin)
        prc = post_meta_receives(c, bufs + c->nout, req + c->nout, 3 + 2 * fd_rounds(c, c->my_fd));
    local = send_meta(c, local ? local : prc, bufs, req);
    if (MPI_Waitall(c->nout + nin, req, st) != MPI_SUCCESS && !local)
        local = exec_fail_class(MPI_ERR_OTHER, "the exchange of round counts failed");
    if (nin && !local)
        local = take_meta(c, bufs + c->nout, st + c->nout, local);
    for (int k = 0; k < c->nout + nin; k++)
        free(bufs[k]);
    free(bufs);
    free(req);
    free(st);
    return local; /* agreed at the end of round 0 */
}

void coll_links_free(struct call *c)
{
    for (int k = 0; k < c->nout; k++)
        free(c->out[k].np), free(c->out[k].bytes);
    for (int k = 0; k < c->nin; k++)
        free(c->in[k].np), free(c->in[k].bytes);
    free(c->out);
    free(c->in);
}

/* ---- st5: the aggregator's I/O on a window ---- */

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* The spans of each range of a window whose pieces are in file order. */
static void window_spans(const struct fdom_ranges *w, const struct piece_list *all,
                         struct span *out)
{
    int64_t i = 0;
    for (int k = 0; k < w->n; k++) {
        int64_t first = -1, end = -1, covered = 0, i0 = i, runs = 0;
        for (; i < all->n && all->p[i].off < w->hi[k]; i++) {
            const struct piece *p = &all->p[i];
            first = first < 0 ? p->off : first;
            runs += p->off > end;
            covered += max64(0, p->off + p->len - max64(p->off, end));
            end = max64(end, p->off + p->len);
        }
        bool holes = first >= 0 && covered < end - first;
        out[k] = (struct span){
            first, end, i0, i, holes, holes && runs * CALL_BYTES > 2 * (end - first - covered)};
    }
}

static int io_call(struct call *c, char *at, int64_t len, int64_t off, bool write)
{
    struct tacio_file *f = c->f;
    int err = exec_fault(write ? "pwrite" : "pread", f->rank);
    if (!err)
        err = -(write ? exec_pwrite_all(f->fd, at, len, off) : exec_pread_all(f->fd, at, len, off));
    if (err)
        return exec_fail_errno(err, "%s of %lld bytes at offset %lld of %s",
                               write ? "pwrite" : "pread", (long long)len, (long long)off, f->path);
    return 0;
}

/* One call per run of touching pieces of a span, to or from the window. */
static int runs_io(struct call *c, const struct fdom_ranges *w, const struct span *sp,
                   const struct piece_list *all, char *wbuf, bool write)
{
    for (int64_t i = sp->i0; i < sp->i1;) {
        int64_t a = all->p[i].off, b = a + all->p[i].len;
        for (i++; i < sp->i1 && all->p[i].off <= b; i++)
            b = max64(b, all->p[i].off + all->p[i].len);
        int rc = io_call(c, wbuf + wpos(w, a), b - a, a, write);
        if (rc)
            return rc;
    }
    return 0;
}

/* The window's I/O: a write first reads the holes of the spans it sieves
 * (read-modify-write), then writes; a read reads. */
static int span_io(struct call *c, const struct fdom_ranges *w, const struct span *sp,
                   const struct piece_list *all, char *wbuf, bool write, bool holes_only)
{
    for (int k = 0; k < w->n; k++) {
        int rc = 0;
        if (sp[k].first < 0 || (holes_only && !sp[k].sieve))
            continue;
        if (sp[k].holes && !sp[k].sieve)
            rc = runs_io(c, w, &sp[k], all, wbuf, write);
        else
            rc = io_call(c, wbuf + wpos(w, sp[k].first), sp[k].last - sp[k].first, sp[k].first,
                         write);
        if (rc)
            return rc;
    }
    return 0;
}

/* Pieces announced in a (offset, length) header must lie in the window. */
static int pieces_from_header(const int64_t *hdr, int64_t np, const struct fdom_ranges *w,
                              struct piece_list *all)
{
    int64_t wb = window_bytes(w);
    int rc = grow_array((void **)&all->p, sizeof *all->p, all->n + np, &all->cap);
    for (int64_t q = 0; q < np && !rc; q++) {
        int64_t off = hdr[2 * q], len = hdr[2 * q + 1];
        if (len <= 0 || off < w->lo[0] || off + len > w->hi[w->n - 1] || wpos(w, off) + len > wb)
            return tacio_fail(TACIO_EINVAL, "internal: a piece at %lld outside the window",
                              (long long)off);
        all->p[all->n++] = (struct piece){off, len, 0};
        all->bytes += len;
    }
    return rc;
}

/* Merges sorted runs src[a, m) and src[m, b) into dst[a, b). */
static void merge_two(const struct piece *src, int64_t a, int64_t m, int64_t b, struct piece *dst)
{
    int64_t i = a, j = m, o = a;
    while (i < m && j < b)
        dst[o++] = src[j].off < src[i].off ? src[j++] : src[i++];
    while (i < m)
        dst[o++] = src[i++];
    while (j < b)
        dst[o++] = src[j++];
}

/* The window's pieces in file order. Each sender lists its pieces in file
 * order, so the list is nruns sorted runs (starting at runs[0..nruns), and
 * runs[nruns] == all->n): merged pairwise, n log(runs) instead of a sort
 * (qsort was the largest cost of an aggregator on btio's small records). */
static int merge_runs(struct piece_list *all, int64_t *runs, int nruns)
{
    for (int k = 0; k < nruns; k++)
        for (int64_t i = runs[k] + 1; i < runs[k + 1]; i++)
            if (all->p[i].off < all->p[i - 1].off) { /* not a run: sort it all */
                qsort(all->p, (size_t)all->n, sizeof *all->p, cmp_piece);
                return 0;
            }
    if (nruns < 2)
        return 0;
    struct piece *tmp = malloc(sizeof *tmp * (size_t)all->n), *src = all->p, *dst = tmp;
    if (!tmp)
        return tacio_fail(TACIO_ENOMEM, "out of memory ordering %lld pieces", (long long)all->n);
    while (nruns > 1) {
        int out = 0;
        for (int k = 0; k < nruns; k += 2) {
            int64_t a = runs[k], m = runs[k + 1], b = k + 1 < nruns ? runs[k + 2] : m;
            merge_two(src, a, m, b, dst);
            runs[out++] = a; /* out <= k: no run start still to be read is overwritten */
        }
        runs[out] = all->n;
        nruns = out;
        struct piece *t = src;
        src = dst;
        dst = t;
    }
    if (src != all->p)
        memcpy(all->p, src, sizeof *src * (size_t)all->n);
    free(tmp);
    return 0;
}

/* ---- st4: one round ---- */

static char *round_alloc(struct call *c, struct slot *s, int64_t n)
{
    char *b = malloc((size_t)(n ? n : 1));
    if (b) {
        s->bufs[s->nbufs++] = b;
        s->nbytes += n;
        staged_add(c, n);
    }
    return b;
}

/* Frees what a round allocated for its messages and forgets them; its
 * window may still be in the helper's I/O. */
static void slot_release(struct call *c, struct slot *s)
{
    for (int i = 0; i < s->nbufs; i++)
        free(s->bufs[i]);
    s->nbufs = 0;
    c->staged -= s->nbytes;
    s->nbytes = 0;
    for (int k = 0; k < c->nin; k++)
        s->inbuf[k] = s->indata[k] = NULL;
    memset(s->outbuf, 0, sizeof(char *) * (size_t)c->nout);
}

static void window_close(struct call *c, struct slot *s)
{
    if (s->win.buf)
        c->staged -= window_bytes(&s->win.w);
    free(s->win.buf);
    s->win.buf = NULL;
    s->win.all.n = s->win.all.bytes = 0;
}

/* The window's file I/O (in the helper thread when pipelined): a write
 * writes it, a read reads it. */
static int window_io(void *arg)
{
    struct slot *s = arg;
    return span_io(s->c, &s->win.w, s->win.sp, &s->win.all, s->win.buf, s->c->is_write, false);
}

static void window_io_start(struct slot *s, bool async)
{
    if (s->win.buf)
        exec_job_start(&s->job, window_io, s, async);
}

/* Waits for the window's I/O. A rank that already failed keeps its first
 * error and its message. */
static int window_io_join(struct call *c, struct slot *s, int local)
{
    int rc = exec_job_join(&s->job, &c->t[5]);
    return local || !rc ? local : tacio_fail(rc, "%s", s->job.msg);
}

static void round_teardown(struct call *c, struct round *rd)
{
    for (int i = 0; i < 2; i++) {
        struct slot *s = &rd->s[i];
        (void)exec_job_join(&s->job, &c->t[5]); /* after an agreed failure: moot */
        window_close(c, s);
        if (s->bufs && s->inbuf && s->indata && s->outbuf)
            slot_release(c, s);
        for (int k = 0; k < c->nout && s->outp; k++)
            free(s->outp[k].p);
        free(s->outp);
        free(s->win.all.p);
        free(s->win.runs);
        free(s->bufs);
        free(s->inbuf);
        free(s->indata);
        free(s->outbuf);
    }
    free(rd->req);
}

/* Complete the phase's messages. A rank that already failed keeps its first
 * error (and its message): the exchange failing after it is a consequence. */
static int wait_all(struct call *c, struct round *rd, int local)
{
    double t0 = clock_seconds();
    int rc = MPI_Waitall(rd->nreq, rd->req, MPI_STATUSES_IGNORE);
    c->t[4] += clock_seconds() - t0;
    rd->nreq = 0;
    if (local)
        return local;
    return rc == MPI_SUCCESS ? 0 : exec_fail_class(MPI_ERR_OTHER, "message exchange failed");
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

/* The counts a link announced must be what this rank finds now. */
static int check_counts(const struct link *l, int64_t r, const struct piece_list *p)
{
    if (p->n == l->np[r - l->r0] && p->bytes == l->bytes[r - l->r0])
        return 0;
    return tacio_fail(TACIO_EINVAL, "internal: round %lld of FD %d changed size", (long long)r,
                      l->fd);
}

/* The (offset, length) pairs of a piece list. */
static void pack_header(const struct piece_list *p, int64_t *hdr)
{
    for (int64_t i = 0; i < p->n; i++) {
        hdr[2 * i] = p->p[i].off;
        hdr[2 * i + 1] = p->p[i].len;
    }
}

/* Where this rank's pieces lie in its buffer when they are one run of it
 * (consecutive in the stream, and one run of memory): then the message goes
 * from or to the user's buffer with no copy. NULL otherwise. */
static char *user_run(const struct call *c, const struct piece_list *p)
{
    for (int64_t i = 1; i < p->n; i++)
        if (p->p[i].spos != p->p[i - 1].spos + p->p[i - 1].len)
            return NULL;
    return p->n ? flat_run(c->mt, c->buf, p->p[0].spos - c->s0, p->bytes) : NULL;
}

/* Where a link's pieces (np pairs of hdr) lie in the window buffer when
 * they sit back to back there; NULL otherwise. */
static char *window_run(const struct window *win, const int64_t *hdr, int64_t np)
{
    int64_t first = wpos(&win->w, hdr[0]), at = first;
    for (int64_t q = 0; q < np; at += hdr[2 * q + 1], q++)
        if (wpos(&win->w, hdr[2 * q]) != at)
            return NULL;
    return win->buf + first;
}

/* Posts one of the phase's byte messages. A side without a buffer (it
 * failed, or could not get one) still posts, empty, so its peer never
 * waits forever. */
static void post(struct call *c, struct round *rd, bool send, char *b, int64_t n, int peer, int tag)
{
    static char nothing;
    MPI_Request *req = &rd->req[rd->nreq++];
    if (send)
        MPI_Isend(b ? b : &nothing, b ? (int)n : 0, MPI_BYTE, peer, tag, c->f->comm, req);
    else
        MPI_Irecv(b ? b : &nothing, b ? (int)n : 0, MPI_BYTE, peer, tag, c->f->comm, req);
}

/* A link's pieces (np header pairs) between the window and a staged
 * buffer where they lie back to back: into the window (write) or out of it
 * (read). */
static void window_copy(const struct window *win, const int64_t *hdr, int64_t np, char *staged,
                        bool into_window)
{
    for (int64_t q = 0, pos = 0; q < np; pos += hdr[2 * q + 1], q++) {
        char *at = win->buf + wpos(&win->w, hdr[2 * q]);
        size_t len = (size_t)hdr[2 * q + 1];
        memcpy(into_window ? at : staged + pos, into_window ? staged + pos : at, len);
    }
}

/* This rank's pieces between its buffer and a staged one where they lie
 * back to back: packed (write) or unpacked (read). */
static void user_copy(const struct call *c, const struct piece_list *p, char *staged, bool pack)
{
    for (int64_t i = 0, pos = 0; i < p->n; pos += p->p[i++].len) {
        if (pack)
            flat_gather(c->mt, c->buf, p->p[i].spos - c->s0, p->p[i].len, staged + pos);
        else
            flat_scatter(c->mt, c->buf, p->p[i].spos - c->s0, p->p[i].len, staged + pos);
    }
}

/* A header message per FD fed and, on the aggregator, per rank feeding it,
 * for the whole round (all steps: they are small). After a failure the
 * messages still go, empty, so no aggregator waits forever; and a rank that
 * failed still receives what it is sent into a buffer of the announced size
 * (staged, never the user's or the window's), because a receive too short
 * for its message is an error MPICH raises on MPI_COMM_WORLD, fatally. Only
 * when even that buffer cannot be had does it receive into nothing. */
static int header_sends(struct call *c, struct round *rd, struct slot *s, int64_t r, int local)
{
    for (int k = 0; k < c->nout; k++) {
        const struct link *l = &c->out[k];
        if (!in_round(l, r))
            continue;
        struct fdom_ranges w;
        round_window(c, l->fd, r, &w);
        local = local ? local : my_pieces(c, &w, &s->outp[k]);
        local = local ? local : check_counts(l, r, &s->outp[k]);
        char *b = local ? NULL : round_alloc(c, s, 16 * s->outp[k].n);
        if (!local && !b)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        if (b)
            pack_header(&s->outp[k], (int64_t *)b);
        post(c, rd, true, b, 16 * s->outp[k].n, l->peer, TAG_REQ);
    }
    return local;
}

static int header_receives(struct call *c, struct round *rd, struct slot *s, int64_t r, int local)
{
    for (int k = 0; k < c->nin; k++) {
        const struct link *l = &c->in[k];
        if (!in_round(l, r))
            continue;
        int64_t size = 16 * l->np[r - l->r0];
        char *b = round_alloc(c, s, size); /* even after a failure: see below */
        if (!local && !b)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        s->inbuf[k] = local ? NULL : b;
        post(c, rd, false, b, size, l->peer, TAG_REQ);
    }
    return local;
}

/* Round r's headers, both ways. */
static int exchange_headers(struct call *c, struct round *rd, struct slot *s, int64_t r, int local)
{
    double t0 = clock_seconds();
    local = header_sends(c, rd, s, r, local);
    if (c->my_fd >= 0)
        local = header_receives(c, rd, s, r, local);
    c->t[3] += clock_seconds() - t0;
    return wait_all(c, rd, local);
}

/* Write, sender side: this step's data, from the user's buffer when it is
 * one run there, packed otherwise. */
static int write_sends(struct call *c, struct round *rd, struct slot *s, int64_t r, int local,
                       int step)
{
    for (int k = 0; k < c->nout; k++) {
        const struct link *l = &c->out[k];
        if (!in_round(l, r) || msg_step(c, c->f->rank, l->peer) != step)
            continue;
        const struct piece_list *p = &s->outp[k];
        char *b = local ? NULL : user_run(c, p);
        if (!local && !b && (b = round_alloc(c, s, p->bytes)))
            user_copy(c, p, b, true);
        if (!local && !b)
            local =
                tacio_fail(TACIO_ENOMEM, "out of memory packing %lld bytes", (long long)p->bytes);
        post(c, rd, true, b, p->bytes, l->peer, TAG_DATA);
    }
    return local;
}

/* Write, aggregator side: this step's data, straight into the window where
 * a sender's pieces sit back to back there, staged otherwise. */
static int write_receives(struct call *c, struct round *rd, struct slot *s, int64_t r, int local,
                          int step)
{
    for (int k = 0; k < c->nin; k++) {
        const struct link *l = &c->in[k];
        if (!in_round(l, r) || msg_step(c, l->peer, c->f->rank) != step)
            continue;
        int64_t np = l->np[r - l->r0], bytes = l->bytes[r - l->r0];
        char *b = local ? NULL : window_run(&s->win, (const int64_t *)s->inbuf[k], np);
        if (!b && !(b = s->indata[k] = round_alloc(c, s, bytes)) && !local)
            local = tacio_fail(TACIO_ENOMEM, "out of memory staging %lld bytes", (long long)bytes);
        post(c, rd, false, b, bytes, l->peer, TAG_DATA);
    }
    return local;
}

/* Aggregator: the window of round r, its pieces from this round's headers,
 * its spans, and a buffer for it (none when nobody has bytes in it). */
static int window_open(struct call *c, struct slot *s, int64_t r)
{
    struct window *win = &s->win;
    round_window(c, c->my_fd, r, &win->w);
    int rc = 0, nruns = 0;
    for (int k = 0; k < c->nin && !rc; k++)
        if (s->inbuf[k]) {
            win->runs[nruns++] = win->all.n;
            rc = pieces_from_header((const int64_t *)s->inbuf[k], c->in[k].np[r - c->in[k].r0],
                                    &win->w, &win->all);
        }
    win->runs[nruns] = win->all.n;
    if (rc || win->all.n == 0 || (rc = merge_runs(&win->all, win->runs, nruns)))
        return rc;
    window_spans(&win->w, &win->all, win->sp);
    int64_t bytes = window_bytes(&win->w);
    if (!(win->buf = malloc((size_t)bytes)))
        return tacio_fail(TACIO_ENOMEM, "out of memory for the window");
    staged_add(c, bytes);
    return 0;
}

/* Staged data (links whose pieces do not sit back to back in the window)
 * into place. */
static void place_staged(struct call *c, struct slot *s, int64_t r)
{
    for (int k = 0; k < c->nin; k++)
        if (s->indata[k])
            window_copy(&s->win, (const int64_t *)s->inbuf[k], c->in[k].np[r - c->in[k].r0],
                        s->indata[k], true);
}

/* The round's agreement; the last one also takes the call's peaks (stats). */
static int round_agree(struct call *c, bool last, int local)
{
    if (!last)
        return exec_agree(c->f->comm, local);
    int64_t peaks[NPEAKS];
    peaks_get(c, peaks);
    int rc = exec_agree_max(c->f->comm, local, peaks, NPEAKS);
    peaks_set(c, peaks);
    c->peaks_agreed = true;
    return rc;
}

/* Write: headers; the aggregator lays out its window and reads the holes
 * of the spans it sieves (read-modify-write); the data, step by step, into
 * the window; the window written. Pipelined, the write goes to the helper
 * thread and this round's agreement covers the previous round's write:
 * each write overlaps the next round's exchange, and the last is waited
 * for before the last agreement. */
static int write_round(struct call *c, struct round *rd, int64_t r, int local)
{
    struct slot *s = &rd->s[r % 2], *prev = &rd->s[(r + 1) % 2];
    bool last = r == c->rounds - 1;
    local = exchange_headers(c, rd, s, r, local);
    double t0 = clock_seconds();
    if (!local && c->my_fd >= 0)
        local = window_open(c, s, r);
    if (!local && s->win.buf)
        local = span_io(c, &s->win.w, s->win.sp, &s->win.all, s->win.buf, false, true);
    c->t[5] += clock_seconds() - t0;
    for (int step = 0; step < c->nsteps; step++) {
        t0 = clock_seconds();
        local = write_sends(c, rd, s, r, local, step);
        if (c->my_fd >= 0)
            local = write_receives(c, rd, s, r, local, step);
        c->t[3] += clock_seconds() - t0;
        local = wait_all(c, rd, local);
    }
    if (!local && s->win.buf)
        place_staged(c, s, r);
    slot_release(c, s);
    local = window_io_join(c, prev, local);
    window_close(c, prev);
    if (!local)
        window_io_start(s, c->pipelined && !last);
    if (last)
        local = window_io_join(c, s, local);
    return round_agree(c, last, local);
}

/* Read, aggregator: each requester of this step gets its pieces' bytes,
 * straight from the window where they sit back to back there. */
static int read_replies(struct call *c, struct round *rd, struct slot *s, int64_t r, int local,
                        int step)
{
    for (int k = 0; k < c->nin; k++) {
        const struct link *l = &c->in[k];
        if (!in_round(l, r) || msg_step(c, l->peer, c->f->rank) != step)
            continue;
        int64_t np = l->np[r - l->r0], bytes = l->bytes[r - l->r0];
        const int64_t *hdr = (const int64_t *)s->inbuf[k];
        char *b = local || !hdr ? NULL : window_run(&s->win, hdr, np);
        if (!local && hdr && !b && (b = round_alloc(c, s, bytes)))
            window_copy(&s->win, hdr, np, b, false);
        if (!local && !b)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        post(c, rd, true, b, bytes, l->peer, TAG_DATA);
    }
    return local;
}

/* Read, requester: receive this step's bytes, straight into the user's
 * buffer when they are one run of it. */
static int read_receives(struct call *c, struct round *rd, struct slot *s, int64_t r, int local,
                         int step)
{
    for (int k = 0; k < c->nout; k++) {
        const struct link *l = &c->out[k];
        if (!in_round(l, r) || msg_step(c, c->f->rank, l->peer) != step)
            continue;
        char *b = local ? NULL : user_run(c, &s->outp[k]);
        if (!b && !(b = s->outbuf[k] = round_alloc(c, s, s->outp[k].bytes)) && !local)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        post(c, rd, false, b, s->outp[k].bytes, l->peer, TAG_DATA);
    }
    return local;
}

static void read_unpack(struct call *c, struct slot *s)
{
    for (int k = 0; k < c->nout; k++)
        if (s->outbuf[k])
            user_copy(c, &s->outp[k], s->outbuf[k], false);
}

/* Read, both sides: round r's answers, step by step, then its slot freed. */
static int read_answers(struct call *c, struct round *rd, struct slot *s, int64_t r, int local)
{
    for (int step = 0; step < c->nsteps; step++) {
        double t0 = clock_seconds();
        if (c->my_fd >= 0)
            local = read_replies(c, rd, s, r, local, step);
        local = read_receives(c, rd, s, r, local, step);
        c->t[3] += clock_seconds() - t0;
        local = wait_all(c, rd, local);
    }
    if (!local)
        read_unpack(c, s);
    slot_release(c, s);
    window_close(c, s);
    return local;
}

/* Read, step r of rounds + lag: round r's headers and the aggregator's
 * read of its window, then round r - lag's answers. Unpipelined (lag 0)
 * the read completes first; pipelined (lag 1) the helper reads window r
 * while round r - 1 is answered, and this step's agreement covers the read
 * before anyone is answered from it. */
static int read_round(struct call *c, struct round *rd, int64_t r, int local)
{
    int64_t lag = c->pipelined;
    struct slot *s = &rd->s[r % 2];
    if (r < c->rounds) {
        local = exchange_headers(c, rd, s, r, local);
        if (!local && c->my_fd >= 0)
            local = window_open(c, s, r);
        if (!local)
            window_io_start(s, lag);
        if (!lag)
            local = window_io_join(c, s, local);
    }
    if (r >= lag)
        local = read_answers(c, rd, &rd->s[(r - lag) % 2], r - lag, local);
    if (lag && r < c->rounds)
        local = window_io_join(c, s, local);
    return round_agree(c, r == c->rounds - 1 + lag, local);
}

/* ---- independent I/O ---- */

#define BOUNCE_BYTES (4 << 20) /* a scattered buffer moves through this much at once */

struct indep {
    struct call *c;
    char *bounce;
};

/* One piece: straight from or to the user's buffer when it is one run
 * there, through the bounce buffer otherwise. */
static int indep_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct indep *in = ctx;
    struct call *c = in->c;
    char *run = flat_run(c->mt, c->buf, spos - c->s0, len);
    if (run)
        return io_call(c, run, len, off, c->is_write);
    if (!in->bounce && !(in->bounce = malloc(BOUNCE_BYTES)))
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t done = 0; done < len;) {
        int64_t n = min64(len - done, BOUNCE_BYTES), rc;
        if (c->is_write)
            flat_gather(c->mt, c->buf, spos - c->s0 + done, n, in->bounce);
        if ((rc = io_call(c, in->bounce, n, off + done, c->is_write)))
            return (int)rc;
        if (!c->is_write)
            flat_scatter(c->mt, c->buf, spos - c->s0 + done, n, in->bounce);
        done += n;
    }
    return 0;
}

int coll_independent(struct call *c)
{
    struct indep in = {c, NULL};
    int rc = 0;
    double t0 = clock_seconds();
    if (!c->plan_rc)
        rc = coll_walk_access(c, indep_piece, &in);
    c->t[5] = clock_seconds() - t0;
    free(in.bounce);
    return exec_agree(c->f->comm, c->plan_rc ? c->plan_rc : rc);
}

/* ---- the rounds ---- */

static int64_t most_rounds(const struct call *c)
{
    int64_t n = 0;
    for (int j = 0; j < c->plan->part.n; j++)
        n = max64(n, fd_rounds(c, j));
    return n;
}

/* Rounds are pipelined when tacio_pipeline says enable, or automatic (the
 * default) and some FD needs more than one cb_buffer_size window: then
 * windows are half as large, so two fit in the same bound. */
static void count_rounds(struct call *c)
{
    const char *mode = c->f->hints->pipeline;
    c->pipelined = false;
    c->rounds = most_rounds(c);
    c->pipelined = !strcmp(mode, "enable") || (!strcmp(mode, "automatic") && c->rounds > 1);
    if (c->pipelined)
        c->rounds = most_rounds(c);
    c->nsteps = c->ordered ? c->f->topo->nused_hosts : 1;
}

int coll_rounds(struct call *c)
{
    if (!c->plan) /* this rank could not take the plan; links_out's agreement */
        return exec_agree(c->f->comm, c->plan_rc);
    count_rounds(c);
    double t0 = clock_seconds();
    struct round rd = {0};
    bool agreed;
    int rc = exchange_links(c, &rd, &agreed);
    c->t[3] += clock_seconds() - t0;
    int64_t steps = c->rounds + (!c->is_write && c->pipelined); /* reads answer a round late */
    for (int64_t r = 0; !agreed && r < steps; r++) {
        rc = c->is_write ? write_round(c, &rd, r, rc) : read_round(c, &rd, r, rc);
        agreed = rc != 0; /* every round ends agreed */
    }
    round_teardown(c, &rd);
    return rc;
}
