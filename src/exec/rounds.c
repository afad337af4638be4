#include "rounds.h"

#include "job.h"
#include "window.h"

#include <limits.h>
#include <string.h>

#define TAG_DATA 7411
#define TAG_REQ 7412

/* A round's window on its aggregator: the FD's bytes it serves, the pieces
 * the round's headers announced, their spans, and the buffer. */
struct window {
    struct fdom_ranges w;
    struct span sp[FDOM_MAX_RANGES];
    struct piece_list all;
    int64_t *runs; /* where each sender's pieces start in all */
    char *buf;     /* NULL: nobody has bytes in it, or it was not opened */
};

/* One round's messages and window. Rounds alternate between two slots, so
 * that when they are pipelined the helper thread writes (or reads) one
 * slot's window while the next round's exchange fills the other. */
struct slot {
    struct call *c;
    int k;                   /* the file's slot memory it uses */
    int64_t nbytes;          /* what the round staged */
    char **inbuf, **outbuf;  /* per in link, per out link: this round's message */
    char **indata;           /* per in link: staged write data (NULL: went in place) */
    struct piece_list *outp; /* per out link: this rank's pieces */
    struct window win;
    struct job job; /* the window's file I/O */
};

/* The rounds' state, allocated before anyone sends and kept with the
 * schedule, so that no round can fail to take part in its messages and a
 * call that reuses the schedule allocates nothing. */
struct rstate {
    int nout, nin;
    MPI_Request *req; /* one phase's messages */
    int nreq;
    struct slot s[2];
};

/* ---- state ---- */

static void rstate_free(void *arg)
{
    struct rstate *rs = arg;
    for (int i = 0; i < 2; i++) {
        struct slot *s = &rs->s[i];
        for (int k = 0; k < rs->nout && s->outp; k++)
            free(s->outp[k].p);
        free(s->outp);
        free(s->win.all.p);
        free(s->win.runs);
        free(s->inbuf);
        free(s->indata);
        free(s->outbuf);
    }
    free(rs->req);
    free(rs);
}

int rounds_prepare(struct call *c)
{
    struct sched *sc = c->s;
    struct rstate *rs = xcalloc(1, sizeof *rs);
    if (!rs)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    sc->rounds_state = rs;
    sc->rounds_state_free = rstate_free;
    int n = sc->nout + sc->nfeeding;
    rs->nout = sc->nout;
    rs->nin = sc->nfeeding;
    rs->req = malloc(sizeof(MPI_Request) * (size_t)(2 * n + 1));
    bool ok = rs->req != NULL;
    for (int i = 0; i < 2; i++) {
        struct slot *s = &rs->s[i];
        s->k = i;
        s->inbuf = xcalloc((size_t)n + 1, sizeof(char *));
        s->indata = xcalloc((size_t)n + 1, sizeof(char *));
        s->outbuf = xcalloc((size_t)sc->nout + 1, sizeof(char *));
        s->outp = xcalloc((size_t)sc->nout + 1, sizeof *s->outp);
        s->win.runs = malloc(sizeof(int64_t) * (size_t)(n + 1));
        ok &= s->inbuf && s->indata && s->outbuf && s->outp && s->win.runs;
    }
    return ok ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
}

/* ---- a round's memory ---- */

/* n bytes at b taken by the round (b NULL: none were to be had). */
static char *round_counts(struct call *c, struct slot *s, char *b, int64_t n)
{
    if (b) {
        s->nbytes += n;
        staged_add(c, n);
    }
    return b;
}

static char *round_alloc(struct call *c, struct slot *s, int64_t n)
{
    return round_counts(c, s, arena_alloc(&c->f->slot[s->k].msgs, n ? n : 1), n);
}

/* A round's payload: its data messages and staged data. A data-free
 * simulation moves no byte, and takes the backend's scratch instead (the
 * bytes counted all the same: the stats report what a real run holds). */
static char *data_alloc(struct call *c, struct slot *s, int64_t n)
{
    if (backend_moves_data())
        return round_alloc(c, s, n);
    return round_counts(c, s, backend_data_scratch(n ? n : 1), n);
}

/* Forgets what a round took for its messages; its window may still be in
 * the helper's I/O (the window is not the messages' memory). */
static void slot_release(struct call *c, struct slot *s)
{
    struct rstate *rs = c->s->rounds_state;
    arena_reset(&c->f->slot[s->k].msgs);
    c->use.staged -= s->nbytes;
    s->nbytes = 0;
    for (int k = 0; k < rs->nin; k++)
        s->inbuf[k] = s->indata[k] = NULL;
    memset(s->outbuf, 0, sizeof(char *) * (size_t)rs->nout);
}

static void window_close(struct call *c, struct slot *s)
{
    if (s->win.buf)
        c->use.staged -= window_bytes(&s->win.w);
    s->win.buf = NULL;
    s->win.all.n = s->win.all.bytes = 0;
}

/* The window's file I/O (in the helper thread when pipelined): a write
 * writes it, a read reads it. */
static int window_io(void *arg)
{
    struct slot *s = arg;
    return span_io(s->c->f, &s->win.w, s->win.sp, &s->win.all, s->win.buf, s->c->is_write, false,
                   NULL);
}

static void window_io_start(struct slot *s, bool async)
{
    if (s->win.buf)
        job_start(&s->job, window_io, s, async);
}

/* Waits for the window's I/O. A rank that already failed keeps its first
 * error and its message. */
static int window_io_join(struct call *c, struct slot *s, int local)
{
    int rc = job_join(&s->job, &c->t[ST_IO]);
    return local || !rc ? local : tacio_fail(rc, "%s", s->job.msg);
}

/* After the last round, or a failure agreed in any: nothing in flight. */
static void rounds_end(struct call *c, struct rstate *rs)
{
    for (int i = 0; i < 2; i++) {
        (void)job_join(&rs->s[i].job, &c->t[ST_IO]); /* after an agreed failure: moot */
        window_close(c, &rs->s[i]);
        slot_release(c, &rs->s[i]);
    }
}

/* Complete the phase's messages. A rank that already failed keeps its first
 * error (and its message): the exchange failing after it is a consequence. */
static int wait_all(struct call *c, struct rstate *rs, int local)
{
    double t0 = backend_clock();
    int rc = MPI_Waitall(rs->nreq, rs->req, MPI_STATUSES_IGNORE);
    stage_add(c, ST_SHUFFLE, t0);
    rs->nreq = 0;
    if (local)
        return local;
    return rc == MPI_SUCCESS ? 0 : tacio_fail(TACIO_ECOMM, "message exchange failed");
}

/* ---- pieces, headers, messages ---- */

/* Tsujita's ordered collection: when the plan orders senders, a round runs
 * in steps, and in step t each aggregator exchanges only with the ranks of
 * the host t places after its own (in host order), so no host's ranks are
 * drained by many aggregators at once. Unordered plans use one step. */
static int msg_step(const struct call *c, int sender, int agg)
{
    int nsteps = c->s->nsteps;
    if (nsteps == 1)
        return 0;
    const struct tacio_topo *t = c->f->topo;
    int hs = t->host_order[t->rank_host[sender]], ha = t->host_order[t->rank_host[agg]];
    return (hs - ha + nsteps) % nsteps;
}

/* The counts a link announced must be what this rank finds now. */
static int check_counts(const struct link *l, int64_t r, const struct piece_list *p)
{
    if (p->n == l->np[r - l->r0] && p->bytes == l->bytes[r - l->r0])
        return 0;
    return tacio_fail(TACIO_EINVAL, "internal: round %lld of FD %d changed size", (long long)r,
                      l->dom);
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
    return p->n ? flat_run(c->a.mt, c->buf, p->p[0].spos - c->a.s0, p->bytes) : NULL;
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
static void post(struct call *c, bool send, char *b, int64_t n, int peer, int tag)
{
    static char nothing;
    struct rstate *rs = c->s->rounds_state;
    MPI_Request *req = &rs->req[rs->nreq++];
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
    if (!backend_moves_data())
        return;
    for (int64_t q = 0, pos = 0; q < np; pos += hdr[2 * q + 1], q++) {
        char *at = win->buf + wpos(&win->w, hdr[2 * q]);
        size_t len = (size_t)hdr[2 * q + 1];
        copy_bytes(into_window ? at : staged + pos, into_window ? staged + pos : at, len);
    }
}

/* This rank's pieces between its buffer and a staged one where they lie
 * back to back: packed (write) or unpacked (read; what lies past the end
 * of the file stays out of the buffer). */
static void user_copy(struct call *c, const struct piece_list *p, char *staged, bool pack)
{
    if (!backend_moves_data())
        return;
    int64_t end = pack ? INT64_MAX : call_readable(c);
    for (int64_t i = 0, pos = 0; i < p->n; pos += p->p[i++].len) {
        int64_t s = p->p[i].spos - c->a.s0, len = p->p[i].len;
        if (pack)
            flat_gather(c->a.mt, c->buf, s, len, staged + pos);
        else if (s < end)
            flat_scatter(c->a.mt, c->buf, s, min64(len, end - s), staged + pos);
    }
}

/* Whether a read's pieces all lie before the end of the file, so they may
 * land in the user's buffer as they arrive. */
static bool all_readable(struct call *c, const struct piece_list *p)
{
    const struct piece *last = p->n ? &p->p[p->n - 1] : NULL;
    return !last || last->spos - c->a.s0 + last->len <= call_readable(c);
}

/* Whether a link's pairs travel in this call: not when the aggregator kept
 * them from the call that made the schedule. */
static bool header_travels(const struct call *c, const struct link *l)
{
    return !c->reused || !link_keeps_headers(l);
}

/* A header message per FD fed and, on the aggregator, per rank feeding it,
 * for the whole round (all steps: they are small). After a failure the
 * messages still go, empty, so no aggregator waits forever; and a rank that
 * failed still receives what it is sent into a buffer of the announced size
 * (staged, never the user's or the window's), because a receive too short
 * for its message is an error MPICH raises on MPI_COMM_WORLD, fatally. Only
 * when even that buffer cannot be had does it receive into nothing. */
static int header_sends(struct call *c, struct slot *s, int64_t r, int local)
{
    for (int k = 0; k < c->s->nout; k++) {
        const struct link *l = &c->s->out[k];
        if (!link_in_round(l, r))
            continue;
        struct fdom_ranges w;
        sched_round_window(c->s, l->dom, r, &w);
        local = local ? local : access_pieces(&c->a, &w, &s->outp[k]);
        local = local ? local : check_counts(l, r, &s->outp[k]);
        if (!header_travels(c, l))
            continue;
        char *b = local ? NULL : round_alloc(c, s, 16 * s->outp[k].n);
        if (!local && !b)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        if (b)
            pack_header(&s->outp[k], (int64_t *)b);
        post(c, true, b, 16 * s->outp[k].n, l->peer, TAG_REQ);
    }
    return local;
}

/* The pairs an aggregator kept for link l's round r, where they lie now. */
static char *kept_header(struct call *c, struct slot *s, const struct link *l, int64_t r)
{
    int64_t np = l->np[r - l->r0], *b = (int64_t *)round_alloc(c, s, 16 * np);
    const int64_t *kept = l->hdr ? l->hdr + 2 * l->hdr_at[r - l->r0] : NULL;
    for (int64_t q = 0; b && kept && q < np; q++) {
        b[2 * q] = kept[2 * q] + c->s->shift;
        b[2 * q + 1] = kept[2 * q + 1];
    }
    return kept ? (char *)b : NULL;
}

static int header_receives(struct call *c, struct slot *s, int64_t r, int local)
{
    for (int k = 0; k < c->s->nin; k++) {
        const struct link *l = &c->s->in[k];
        if (!link_in_round(l, r))
            continue;
        if (!header_travels(c, l)) {
            s->inbuf[k] = local ? NULL : kept_header(c, s, l, r);
            if (!local && !s->inbuf[k])
                local = tacio_fail(TACIO_ENOMEM, "out of memory");
            continue;
        }
        int64_t size = 16 * l->np[r - l->r0];
        char *b = round_alloc(c, s, size); /* even after a failure: see above */
        if (!local && !b)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        s->inbuf[k] = local ? NULL : b;
        post(c, false, b, size, l->peer, TAG_REQ);
    }
    return local;
}

/* The call that makes a schedule: the aggregator keeps the pairs of the
 * links whose later calls will not send them. */
static int keep_headers(struct call *c, struct slot *s, int64_t r, int local)
{
    for (int k = 0; !local && !c->reused && k < c->s->nin; k++) {
        struct link *l = &c->s->in[k];
        if (link_in_round(l, r) && link_keeps_headers(l))
            local = link_keep_header(l, r, (const int64_t *)s->inbuf[k], c->s->shift);
    }
    return local;
}

/* Round r's headers, both ways. */
static int exchange_headers(struct call *c, struct slot *s, int64_t r, int local)
{
    double t0 = backend_clock();
    local = header_sends(c, s, r, local);
    if (c->s->my_fd >= 0)
        local = header_receives(c, s, r, local);
    stage_add(c, ST_ROUTE, t0);
    local = wait_all(c, c->s->rounds_state, local);
    return c->s->my_fd >= 0 ? keep_headers(c, s, r, local) : local;
}

/* ---- the window ---- */

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

/* Aggregator: the window of round r, its pieces from this round's headers,
 * its spans, and a buffer for it (none when nobody has bytes in it). */
static int window_open(struct call *c, struct slot *s, int64_t r)
{
    struct window *win = &s->win;
    sched_round_window(c->s, c->s->my_fd, r, &win->w);
    int rc = 0, nruns = 0;
    for (int k = 0; k < c->s->nin && !rc; k++)
        if (s->inbuf[k]) {
            win->runs[nruns++] = win->all.n;
            const struct link *l = &c->s->in[k];
            rc = pieces_from_header((const int64_t *)s->inbuf[k], l->np[r - l->r0], &win->w,
                                    &win->all);
        }
    win->runs[nruns] = win->all.n;
    if (rc || win->all.n == 0 || (rc = pieces_merge_runs(win->all.p, win->all.n, win->runs, nruns)))
        return rc;
    window_spans(&win->w, &win->all, true, win->sp);
    int64_t bytes = window_bytes(&win->w);
    if (!(win->buf = slot_window(c->f, s->k, bytes)))
        return tacio_fail(TACIO_ENOMEM, "out of memory for the window");
    staged_add(c, bytes);
    return 0;
}

/* ---- write rounds ---- */

/* Write, sender side: this step's data, from the user's buffer when it is
 * one run there, packed otherwise. */
static int write_sends(struct call *c, struct slot *s, int64_t r, int local, int step)
{
    for (int k = 0; k < c->s->nout; k++) {
        const struct link *l = &c->s->out[k];
        if (!link_in_round(l, r) || msg_step(c, c->f->rank, l->peer) != step)
            continue;
        const struct piece_list *p = &s->outp[k];
        char *b = local ? NULL : user_run(c, p);
        if (!local && !b && (b = data_alloc(c, s, p->bytes)))
            user_copy(c, p, b, true);
        if (!local && !b)
            local =
                tacio_fail(TACIO_ENOMEM, "out of memory packing %lld bytes", (long long)p->bytes);
        post(c, true, b, p->bytes, l->peer, TAG_DATA);
    }
    return local;
}

/* The datatype that lays a link's pieces (np header pairs) into the
 * window as they arrive. MPI_DATATYPE_NULL when it cannot be had: the
 * caller stages instead. */
static MPI_Datatype window_type(const struct window *win, const int64_t *hdr, int64_t np)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int *len = np <= INT_MAX ? malloc(sizeof(int) * (size_t)np) : NULL;
    MPI_Aint *at = len ? malloc(sizeof(MPI_Aint) * (size_t)np) : NULL;
    bool ok = at != NULL;
    for (int64_t q = 0; ok && q < np; q++) {
        ok = hdr[2 * q + 1] <= INT_MAX;
        len[q] = (int)hdr[2 * q + 1];
        at[q] = (MPI_Aint)wpos(&win->w, hdr[2 * q]);
    }
    if (ok && (MPI_Type_create_hindexed((int)np, len, at, MPI_BYTE, &t) != MPI_SUCCESS ||
               MPI_Type_commit(&t) != MPI_SUCCESS))
        t = MPI_DATATYPE_NULL;
    free(len);
    free(at);
    return t;
}

/* Whether link data of np pieces and these bytes goes through a datatype
 * (the file's threshold on the pieces' average size). */
static bool recv_typed(const struct call *c, int64_t np, int64_t bytes)
{
    int64_t piece = c->f->recv_typed_piece;
    return backend_moves_data() && piece >= 0 && bytes >= piece * np;
}

/* Receives a link's data straight into the window through a datatype
 * (ROMIO's way): the MPI then unpacks as the data arrives, instead of the
 * aggregator copying it out of a staged buffer after the whole message
 * came, one copy of every byte fewer on the busiest rank. Freeing the type
 * at once is allowed: the receive keeps it. */
static bool post_into_window(struct call *c, struct slot *s, const int64_t *hdr, int64_t np,
                             int64_t bytes, int peer)
{
    if (!recv_typed(c, np, bytes))
        return false;
    MPI_Datatype t = window_type(&s->win, hdr, np);
    if (t == MPI_DATATYPE_NULL)
        return false;
    struct rstate *rs = c->s->rounds_state;
    MPI_Irecv(s->win.buf, 1, t, peer, TAG_DATA, c->f->comm, &rs->req[rs->nreq++]);
    MPI_Type_free(&t);
    return true;
}

/* Write, aggregator side: this step's data, straight into the window:
 * as one run where a sender's pieces sit back to back there, through a
 * datatype otherwise (staged only when that cannot be had). */
static int write_receives(struct call *c, struct slot *s, int64_t r, int local, int step)
{
    for (int k = 0; k < c->s->nin; k++) {
        const struct link *l = &c->s->in[k];
        if (!link_in_round(l, r) || msg_step(c, l->peer, c->f->rank) != step)
            continue;
        int64_t np = l->np[r - l->r0], bytes = l->bytes[r - l->r0];
        const int64_t *hdr = (const int64_t *)s->inbuf[k];
        char *b = local ? NULL : window_run(&s->win, hdr, np);
        if (!local && !b && post_into_window(c, s, hdr, np, bytes, l->peer))
            continue;
        if (!b && !(b = s->indata[k] = data_alloc(c, s, bytes)) && !local)
            local = tacio_fail(TACIO_ENOMEM, "out of memory staging %lld bytes", (long long)bytes);
        post(c, false, b, bytes, l->peer, TAG_DATA);
    }
    return local;
}

/* Staged data (links whose pieces do not sit back to back in the window)
 * into place. */
static void place_staged(struct call *c, struct slot *s, int64_t r)
{
    for (int k = 0; k < c->s->nin; k++)
        if (s->indata[k])
            window_copy(&s->win, (const int64_t *)s->inbuf[k], c->s->in[k].np[r - c->s->in[k].r0],
                        s->indata[k], true);
}

/* The steps a call runs: its rounds, and a pipelined read's late answers. */
static int64_t rounds_steps(const struct call *c)
{
    return c->s->rounds + (!c->is_write && c->s->pipelined);
}

/* Step r's agreement, which this rank enters once its transfers of the
 * step are done; the last one also takes the call's peaks (stats). */
static int round_agree(struct call *c, int64_t r, int local)
{
    double t0 = backend_clock(); /* waiting for the slowest rank's round: the exchange's */
    int rc = r == rounds_steps(c) - 1 ? call_agree_last(c, local) : agree(c->f->comm, local);
    stage_add(c, ST_SHUFFLE, t0);
    return rc;
}

/* Write: headers; the aggregator lays out its window and reads the holes
 * of the spans it sieves (read-modify-write); the data, step by step, into
 * the window; the window written. Pipelined, the write goes to the helper
 * thread and this round's agreement covers the previous round's write:
 * each write overlaps the next round's exchange, and the last is waited
 * for before the last agreement. */
static int write_round(struct call *c, int64_t r, int local)
{
    struct rstate *rs = c->s->rounds_state;
    struct slot *s = &rs->s[r % 2], *prev = &rs->s[(r + 1) % 2];
    bool last = r == c->s->rounds - 1;
    local = exchange_headers(c, s, r, local);
    double t0 = backend_clock();
    if (!local && c->s->my_fd >= 0)
        local = window_open(c, s, r);
    t0 = stage_add(c, ST_ROUTE, t0); /* laying out the window from the pairs */
    if (!local && s->win.buf)
        local = span_io(c->f, &s->win.w, s->win.sp, &s->win.all, s->win.buf, false, true, NULL);
    stage_add(c, ST_IO, t0);
    for (int step = 0; step < c->s->nsteps; step++) {
        t0 = backend_clock();
        local = write_sends(c, s, r, local, step);
        if (c->s->my_fd >= 0)
            local = write_receives(c, s, r, local, step);
        stage_add(c, ST_ROUTE, t0);
        local = wait_all(c, rs, local);
    }
    t0 = backend_clock();
    if (!local && s->win.buf)
        place_staged(c, s, r);
    slot_release(c, s);
    stage_add(c, ST_SHUFFLE, t0); /* the staged data into the window */
    local = window_io_join(c, prev, local);
    window_close(c, prev);
    if (!local)
        window_io_start(s, c->s->pipelined && !last);
    if (last)
        local = window_io_join(c, s, local);
    return round_agree(c, r, local);
}

/* ---- read rounds ---- */

/* Read, aggregator: each requester of this step gets its pieces' bytes,
 * straight from the window where they sit back to back there. */
static int read_replies(struct call *c, struct slot *s, int64_t r, int local, int step)
{
    for (int k = 0; k < c->s->nin; k++) {
        const struct link *l = &c->s->in[k];
        if (!link_in_round(l, r) || msg_step(c, l->peer, c->f->rank) != step)
            continue;
        int64_t np = l->np[r - l->r0], bytes = l->bytes[r - l->r0];
        const int64_t *hdr = (const int64_t *)s->inbuf[k];
        char *b = local || !hdr ? NULL : window_run(&s->win, hdr, np);
        if (!local && hdr && !b && (b = data_alloc(c, s, bytes)))
            window_copy(&s->win, hdr, np, b, false);
        if (!local && !b)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        post(c, true, b, bytes, l->peer, TAG_DATA);
    }
    return local;
}

/* Read, requester: receive this step's bytes, straight into the user's
 * buffer when they are one run of it. */
static int read_receives(struct call *c, struct slot *s, int64_t r, int local, int step)
{
    for (int k = 0; k < c->s->nout; k++) {
        const struct link *l = &c->s->out[k];
        if (!link_in_round(l, r) || msg_step(c, c->f->rank, l->peer) != step)
            continue;
        char *b = local || !all_readable(c, &s->outp[k]) ? NULL : user_run(c, &s->outp[k]);
        if (!b && !(b = s->outbuf[k] = data_alloc(c, s, s->outp[k].bytes)) && !local)
            local = tacio_fail(TACIO_ENOMEM, "out of memory");
        post(c, false, b, s->outp[k].bytes, l->peer, TAG_DATA);
    }
    return local;
}

static void read_unpack(struct call *c, struct slot *s)
{
    for (int k = 0; k < c->s->nout; k++)
        if (s->outbuf[k])
            user_copy(c, &s->outp[k], s->outbuf[k], false);
}

/* Read, both sides: round r's answers, step by step, then its slot freed. */
static int read_answers(struct call *c, struct slot *s, int64_t r, int local)
{
    for (int step = 0; step < c->s->nsteps; step++) {
        double t0 = backend_clock();
        if (c->s->my_fd >= 0)
            local = read_replies(c, s, r, local, step);
        local = read_receives(c, s, r, local, step);
        stage_add(c, ST_ROUTE, t0);
        local = wait_all(c, c->s->rounds_state, local);
    }
    double t0 = backend_clock();
    if (!local)
        read_unpack(c, s);
    slot_release(c, s);
    window_close(c, s);
    stage_add(c, ST_SHUFFLE, t0); /* the answers into the user's buffer */
    return local;
}

/* Read, step r of rounds + lag: round r's headers and the aggregator's
 * read of its window, then round r - lag's answers. Unpipelined (lag 0)
 * the read completes first; pipelined (lag 1) the helper reads window r
 * while round r - 1 is answered, and this step's agreement covers the read
 * before anyone is answered from it. */
static int read_round(struct call *c, int64_t r, int local)
{
    struct rstate *rs = c->s->rounds_state;
    int64_t lag = c->s->pipelined, rounds = c->s->rounds;
    struct slot *s = &rs->s[r % 2];
    if (r < rounds) {
        local = exchange_headers(c, s, r, local);
        double t0 = backend_clock();
        if (!local && c->s->my_fd >= 0)
            local = window_open(c, s, r);
        stage_add(c, ST_ROUTE, t0); /* laying out the window from the pairs */
        if (!local)
            window_io_start(s, lag);
        if (!lag)
            local = window_io_join(c, s, local);
    }
    if (r >= lag)
        local = read_answers(c, &rs->s[(r - lag) % 2], r - lag, local);
    if (lag && r < rounds)
        local = window_io_join(c, s, local);
    return round_agree(c, r, local);
}

/* ---- the rounds ---- */

/* Rounds are pipelined when tacio_pipeline says enable, or automatic (the
 * default) and some FD needs more than one cb_buffer_size window: then
 * windows are half as large, so two fit in the same bound. */
void rounds_count(struct call *c)
{
    struct sched *s = c->s;
    int mode = c->f->hints.pipeline;
    s->cb = c->f->hints.core.cb_buffer_size;
    s->pipelined = false;
    s->rounds = partition_rounds(&s->plan->part, s->cb, s->pipelined);
    s->pipelined = mode == OPT_ENABLE || (mode == OPT_AUTOMATIC && s->rounds > 1);
    if (s->pipelined)
        s->rounds = partition_rounds(&s->plan->part, s->cb, s->pipelined);
    s->nsteps = s->ordered ? c->f->topo->nused_hosts : 1;
}

int rounds_run(struct call *c, int local)
{
    struct rstate *rs = c->s->rounds_state;
    rs->s[0].c = rs->s[1].c = c;
    int64_t steps = rounds_steps(c);
    int rc = local;
    bool agreed = false;
    for (int64_t r = 0; !agreed && r < steps; r++) {
        rc = c->is_write ? write_round(c, r, rc) : read_round(c, r, rc);
        agreed = rc != 0; /* every round ends agreed */
    }
    if (steps == 0) /* a plan always has a byte to serve; stay agreed regardless */
        rc = call_agree_last(c, rc);
    rounds_end(c, rs);
    return rc;
}
