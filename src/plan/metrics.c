/* The papers' metrics for a plan (auto's cost model, which reads them, is
 * model.c's). */
#include "plan.h"

#include <math.h>

#include <string.h>

/* An FD and a remote host sending to it: collection contention counts these. */
struct host_pair {
    int fd, host, key; /* key: the host's place in the FD's sender order */
};
struct host_pairs {
    struct host_pair *v;
    int64_t n, cap;
};
struct fd_tally {
    int64_t msgs, in; /* messages and crossing bytes into the FD */
    int64_t offmsgs;  /* its senders on other hosts */
    int64_t onhost;   /* bytes into it from other ranks of its aggregator's host */
    int64_t sum, acc; /* metrics_stream: the FD's bytes; this host's crossing ones */
    int agg, host;    /* the FD's aggregator and its host */
    int key;          /* metrics_stream: this host's key (pair_key) */
};

/* What the metrics sum while walking C's entries, however they are walked
 * (by column from C, or by row from the pattern): per rank (as aggregator,
 * and as sender), per FD, and the (FD, remote host) pairs. */
struct tally {
    int64_t *bytes, *offnode_in, *onhost_in, *msgs; /* indexed by rank, as aggregator */
    int64_t *rounds, *mem;                          /* its FDs' windows, and the largest window */
    int64_t *sent;                                  /* indexed by rank: messages it sends */
    /* per FD while entries are counted: a few thousand FDs' sums, packed
     * together, stay in cache where a million ranks' arrays do not;
     * tally_fd adds them up by aggregator */
    struct fd_tally *fd;
    struct host_pairs P;
};

static int pairs_push(struct host_pairs *P, int j, int h, int key)
{
    int rc = grow_array((void **)&P->v, sizeof *P->v, P->n + 1, &P->cap);
    if (!rc)
        P->v[P->n++] = (struct host_pair){j, h, key};
    return rc;
}

/* The key of host h among FD j's senders, r being its first rank there:
 * its position for a host rotation, else (ranks in order) that rank. */
static int pair_key(const struct tacio_topo *t, const struct tacio_plan *plan, int h, int r)
{
    return plan->order_rule == ORDER_HOST_ROTATION ? t->host_order[h] : r;
}

/* Bytes from host hs to host hd on a tree: their load on each link of the
 * path, and their hop-bytes (the links walked). */
static int64_t add_host_traffic(const struct tacio_topo *t, struct tacio_plan *plan, int hs, int hd,
                                int64_t bytes)
{
    int a = t->host_vert[hs], b = t->host_vert[hd], l = topo_lca(t, a, b);
    int64_t hops = 0;
    for (int v = a; v != l; v = t->parent[v], hops++)
        plan->link_up[v] += bytes;
    for (int v = b; v != l; v = t->parent[v], hops++)
        plan->link_down[v] += bytes;
    return hops * bytes;
}

/* The plan's sums over entries, kept in a local while a column or a row is
 * walked (so they stay in registers) and added to the plan after it. */
struct entry_sums {
    int64_t shuffle_bytes, messages, hop_bytes, offnode_bytes;
};

static void sums_flush(const struct entry_sums *e, struct tacio_plan *plan)
{
    plan->m.shuffle_bytes += e->shuffle_bytes;
    plan->m.messages += e->messages;
    plan->m.hop_bytes += e->hop_bytes;
    plan->m.offnode_bytes += e->offnode_bytes;
}

/* Entry (r, j) of C, b bytes: the shuffle it costs. True when it crosses
 * hosts; the caller sums those by (FD, sending host) and hands each sum to
 * tally_host_pair, so the tree is walked once per pair, not per sender. */
static inline bool tally_entry(const struct tacio_topo *t, struct tally *T, struct entry_sums *m,
                               int r, int j, int64_t b)
{
    struct fd_tally *f = &T->fd[j];
    int a = f->agg;
    if (r == a)
        return false;
    m->shuffle_bytes += b;
    m->messages++;
    f->msgs++;
    T->sent[r]++;
    if (t->dist) /* a distance matrix: hops per rank pair */
        m->hop_bytes += topo_rank_dist(t, r, a) * b;
    if (t->rank_host[r] == f->host) {
        m->hop_bytes += t->dist ? 0 : b; /* one hop inside the host */
        f->onhost += b;
        return false;
    }
    m->offnode_bytes += b;
    f->in += b;
    f->offmsgs++;
    return true;
}

static int tally_host_pair(const struct tacio_topo *t, struct tacio_plan *plan, struct tally *T,
                           int h, int j, int key, int64_t bytes)
{
    if (!t->dist)
        plan->m.hop_bytes += add_host_traffic(t, plan, h, T->fd[j].host, bytes);
    return pairs_push(&T->P, j, h, key);
}

/* FD j, holding `bytes`, once all its entries are counted. */
static void tally_fd(const struct plan_ctx *ctx, struct tacio_plan *plan, struct tally *T, int j,
                     int64_t bytes)
{
    int a = plan->agg[j];
    T->msgs[a] += T->fd[j].msgs;
    T->offnode_in[a] += T->fd[j].in;
    T->onhost_in[a] += T->fd[j].onhost;
    T->bytes[a] += bytes;
    const struct fdom *dom = &plan->part.dom[j];
    int64_t window = fdom_memory(dom, ctx->h->cb_buffer_size);
    int64_t rounds = ceil_div(fdom_extent(dom), window);
    T->rounds[a] += rounds;
    /* a sender's bytes spread over the FD's rounds, one message each */
    plan->m.offnode_msgs += T->fd[j].offmsgs * rounds;
    plan->fd_bytes[j] = bytes;
    plan->fd_mem[j] = min64(fdom_extent(dom), window);
    T->mem[a] = max64(T->mem[a], plan->fd_mem[j]);
    plan->m.total_bytes += bytes;
}

/* Collection contention: in step s every aggregator gathers from the s-th
 * remote host of its FD's sender order. Count, per step, how many
 * aggregators hit the same host; keep the maximum. The pairs are grouped by
 * FD and ordered by key (counting sort, a comparison sort only for an FD
 * whose hosts arrived out of order), then bucketed by step: O(pairs). */
struct keyed {
    int key, host;
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* FD j's hosts v[0..n) sorted by key: their steps (rotated to start after
 * the aggregator's host under a host rotation), into step[]. */
static void fd_steps(const struct tacio_topo *t, const struct tacio_plan *plan, int j,
                     struct keyed *v, int64_t n, int *step)
{
    int64_t split = 0;
    for (int64_t i = 1; i < n; i++)
        if (v[i].key < v[i - 1].key) {
            qsort(v, (size_t)n, sizeof *v, cmp_keyed);
            break;
        }
    if (plan->order_rule == ORDER_HOST_ROTATION) {
        int start = t->host_order[t->rank_host[plan->agg[j]]];
        while (split < n && v[split].key < start)
            split++;
    }
    for (int64_t i = 0; i < n; i++)
        step[i] = (int)(i >= split ? i - split : n - split + i);
}

static int fanin_max(const struct tacio_topo *t, const int *step, const struct keyed *v, int64_t np,
                     int *best)
{
    int64_t *bucket = xcalloc((size_t)t->nhosts + 2, sizeof(int64_t));
    int *sorted = malloc(sizeof(int) * (size_t)(np ? np : 1));
    int *count = xcalloc((size_t)t->nhosts, sizeof(int));
    int rc = bucket && sorted && count ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t i = 0; !rc && i < np; i++)
        bucket[step[i] + 1]++;
    for (int s = 0; !rc && s <= t->nhosts; s++)
        bucket[s + 1] += bucket[s];
    for (int64_t i = 0; !rc && i < np; i++)
        sorted[bucket[step[i]]++] = v[i].host;
    /* bucket[s] now ends step s's run */
    *best = 0;
    int64_t lo = 0;
    for (int s = 0; !rc && s <= t->nhosts; lo = bucket[s], s++) {
        for (int64_t i = lo; i < bucket[s]; i++)
            if (++count[sorted[i]] > *best)
                *best = count[sorted[i]];
        for (int64_t i = lo; i < bucket[s]; i++)
            count[sorted[i]] = 0;
    }
    free(bucket);
    free(sorted);
    free(count);
    return rc;
}

static int step_fanin(const struct tacio_topo *t, const struct tacio_plan *plan,
                      struct host_pairs *P, int *out)
{
    int nfds = plan->part.n;
    int64_t np = P->n, *ptr = xcalloc((size_t)nfds + 2, sizeof(int64_t));
    struct keyed *v = malloc(sizeof *v * (size_t)(np ? np : 1));
    int *step = malloc(sizeof(int) * (size_t)(np ? np : 1));
    int rc =
        ptr && v && step ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory for the collection steps");
    for (int64_t i = 0; !rc && i < np; i++)
        ptr[P->v[i].fd + 2]++;
    for (int j = 0; !rc && j < nfds; j++)
        ptr[j + 2] += ptr[j + 1];
    for (int64_t i = 0; !rc && i < np; i++) /* stable: arrival order kept inside an FD */
        v[ptr[P->v[i].fd + 1]++] = (struct keyed){P->v[i].key, P->v[i].host};
    for (int j = 0; !rc && j < nfds; j++)
        fd_steps(t, plan, j, v + ptr[j], ptr[j + 1] - ptr[j], step + ptr[j]);
    if (!rc)
        rc = fanin_max(t, step, v, np, out);
    free(ptr);
    free(v);
    free(step);
    return rc;
}

static void summarise_aggs(const struct plan_ctx *ctx, struct tacio_plan *plan,
                           const struct tally *pa, int64_t *host_bytes, struct model_in *in)
{
    struct metrics *m = &plan->m;
    int64_t max_sent = 0;
    for (int r = 0; r < ctx->topo->nprocs; r++) {
        max_sent = max64(max_sent, pa->sent[r]); /* every rank sends; not all aggregate */
        if (pa->rounds[r] == 0 && pa->bytes[r] == 0 && pa->msgs[r] == 0)
            continue;
        if (host_bytes) {
            int64_t *hb = &host_bytes[ctx->topo->rank_host[r]];
            *hb += pa->bytes[r];
            m->max_host_bytes = max64(m->max_host_bytes, *hb);
        }
        m->naggs++;
        m->max_agg_bytes = max64(m->max_agg_bytes, pa->bytes[r]);
        m->max_agg_mem = max64(m->max_agg_mem, pa->mem[r]);
        m->rounds = max64(m->rounds, pa->rounds[r]);
        in->max_nic = max64(in->max_nic, pa->offnode_in[r]);
        in->max_copy = max64(in->max_copy, pa->onhost_in[r]);
        in->max_msgs = max64(in->max_msgs, pa->msgs[r]);
    }
    in->max_msgs += max_sent; /* the model's message count: busiest in + busiest out */
}

static void max_link(const struct tacio_topo *t, struct tacio_plan *plan)
{
    plan->m.max_link_load = plan->link_up ? 0 : -1;
    for (int v = 0; plan->link_up && v < t->nverts; v++)
        plan->m.max_link_load =
            max64(plan->m.max_link_load, max64(plan->link_up[v], plan->link_down[v]));
}

/* Sets up the plan's per-FD and per-link arrays and T's per-rank sums. */
static int tally_init(const struct plan_ctx *ctx, struct tacio_plan *plan, struct tally *T)
{
    const struct tacio_topo *t = ctx->topo;
    size_t p = (size_t)t->nprocs, a = (size_t)plan->part.n + 1;
    *T = (struct tally){.bytes = xcalloc(p, sizeof(int64_t)),
                        .rounds = xcalloc(p, sizeof(int64_t)),
                        .mem = xcalloc(p, sizeof(int64_t)),
                        .offnode_in = xcalloc(p, sizeof(int64_t)),
                        .onhost_in = xcalloc(p, sizeof(int64_t)),
                        .msgs = xcalloc(p, sizeof(int64_t)),
                        .sent = xcalloc(p, sizeof(int64_t)),
                        .fd = xcalloc(a, sizeof(struct fd_tally))};
    for (int j = 0; T->fd && j < plan->part.n; j++) {
        T->fd[j].agg = plan->agg[j];
        T->fd[j].host = t->rank_host[plan->agg[j]];
    }
    plan->fd_bytes = malloc(sizeof(int64_t) * a);
    plan->fd_mem = malloc(sizeof(int64_t) * a);
    if (topo_has_tree(t)) {
        plan->nlinks = t->nverts;
        plan->link_name = names_copy(t->vname, t->nverts);
        plan->link_up = xcalloc((size_t)t->nverts, sizeof(int64_t));
        plan->link_down = xcalloc((size_t)t->nverts, sizeof(int64_t));
        plan->link_parent = malloc(sizeof(int) * (size_t)t->nverts);
        if (plan->link_parent)
            memcpy(plan->link_parent, t->parent, sizeof(int) * (size_t)t->nverts);
    }
    memset(&plan->m, 0, sizeof plan->m);
    if (!T->bytes || !T->rounds || !T->mem || !T->offnode_in || !T->onhost_in || !T->msgs ||
        !T->sent || !T->fd || !plan->fd_bytes || !plan->fd_mem ||
        (topo_has_tree(t) &&
         (!plan->link_up || !plan->link_down || !plan->link_name || !plan->link_parent)))
        return tacio_fail(TACIO_ENOMEM, "out of memory computing metrics");
    return 0;
}

static void tally_free(struct tally *T)
{
    free(T->bytes);
    free(T->rounds);
    free(T->mem);
    free(T->offnode_in);
    free(T->onhost_in);
    free(T->msgs);
    free(T->sent);
    free(T->fd);
    free(T->P.v);
}

/* Once every entry is counted: the per-aggregator maxima, the busiest
 * link, the collection steps and auto's model. */
static int tally_finish(const struct plan_ctx *ctx, struct tacio_plan *plan, struct tally *T)
{
    const struct tacio_topo *t = ctx->topo;
    struct model_in in = {0};
    int64_t *host_bytes = t->rank_host ? xcalloc((size_t)t->nhosts, sizeof(int64_t)) : NULL;
    if (t->rank_host && !host_bytes)
        return tacio_fail(TACIO_ENOMEM, "out of memory computing metrics");
    summarise_aggs(ctx, plan, T, host_bytes, &in);
    free(host_bytes);
    max_link(t, plan);
    int rc = step_fanin(t, plan, &T->P, &plan->m.max_step_fanin);
    model_terms(ctx, plan, &in, &plan->m.terms);
    model_rate(ctx, plan);
    return rc;
}

/* FD j's column of C: its entries, crossing ones summed by sending host. */
static int column_traffic(const struct plan_ctx *ctx, const struct cmatrix *c, int j,
                          struct tacio_plan *plan, struct tally *T, int64_t *host_acc,
                          int *host_key, int *touched)
{
    const struct tacio_topo *t = ctx->topo;
    struct entry_sums sums = {0};
    int nt = 0, rc = 0;
    for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++) {
        int r = c->row[k], h = t->rank_host[r];
        if (!tally_entry(t, T, &sums, r, j, c->cval[k]))
            continue;
        if (host_acc[h] == 0) { /* rows run in rank order: r is the host's first */
            touched[nt++] = h;
            host_key[h] = pair_key(t, plan, h, r);
        }
        host_acc[h] += c->cval[k];
    }
    sums_flush(&sums, plan);
    for (int i = 0; i < nt; i++) {
        int h = touched[i];
        rc = rc ? rc : tally_host_pair(t, plan, T, h, j, host_key[h], host_acc[h]);
        host_acc[h] = 0;
    }
    tally_fd(ctx, plan, T, j, c->fd_bytes[j]);
    return rc;
}

int metrics_compute(const struct plan_ctx *ctx, const struct cmatrix *c, struct tacio_plan *plan)
{
    const struct tacio_topo *t = ctx->topo;
    struct tally T;
    int64_t *host_acc = xcalloc((size_t)t->nhosts, sizeof(int64_t));
    int *host_key = malloc(sizeof(int) * (size_t)t->nhosts);
    int *touched = malloc(sizeof(int) * (size_t)t->nhosts);
    int rc = tally_init(ctx, plan, &T);
    if (!rc && (!host_acc || !host_key || !touched))
        rc = tacio_fail(TACIO_ENOMEM, "out of memory computing metrics");
    for (int j = 0; !rc && j < c->a; j++)
        rc = column_traffic(ctx, c, j, plan, &T, host_acc, host_key, touched);
    if (!rc)
        rc = tally_finish(ctx, plan, &T);
    tally_free(&T);
    free(host_acc);
    free(host_key);
    free(touched);
    return rc;
}

/* The ranks of one host, their rows summed per FD while the host's own
 * crossing bytes are summed by FD (then handed on as host pairs). */
struct host_walk {
    struct row_acc ra;
    int *touched; /* FDs with crossing bytes from this host */
    int64_t nnz;
};

static int host_traffic(const struct plan_ctx *ctx, struct tacio_plan *plan, struct tally *T,
                        struct host_walk *w, int h, const int *ranks, int nranks)
{
    const struct tacio_topo *t = ctx->topo;
    struct entry_sums sums = {0};
    int nt = 0, rc = 0;
    for (int q = 0; q < nranks; q++) { /* in rank order */
        int r = ranks[q];
        row_compute(&w->ra, r, false);
        for (int k = 0; k < w->ra.ntouched; k++) {
            int j = w->ra.touched[k];
            int64_t b = w->ra.acc[j];
            struct fd_tally *f = &T->fd[j];
            f->sum += b;
            w->nnz++;
            if (!tally_entry(t, T, &sums, r, j, b))
                continue;
            if (f->acc == 0) {
                w->touched[nt++] = j;
                f->key = pair_key(t, plan, h, r);
            }
            f->acc += b;
        }
        row_clear(&w->ra);
    }
    sums_flush(&sums, plan);
    for (int i = 0; i < nt; i++) {
        int j = w->touched[i];
        rc = rc ? rc : tally_host_pair(t, plan, T, h, j, T->fd[j].key, T->fd[j].acc);
        T->fd[j].acc = 0;
    }
    return rc;
}

/* A share of the hosts (consecutive in position order), walked by one
 * thread into sums of its own: a plan view with its own links and metrics,
 * and per-FD tallies; each rank is in one share, so all write the shared
 * per-rank `sent` without overlap. */
struct stream_share {
    const struct plan_ctx *ctx;
    struct tacio_plan view;
    struct tally T;
    struct host_walk w;
    const int *ptr, *ranks;
    int u0, u1;
};

static int share_init(struct stream_share *s, const struct plan_ctx *ctx,
                      const struct tacio_plan *plan, const struct tally *main)
{
    const struct tacio_topo *t = ctx->topo;
    size_t a = (size_t)plan->part.n + 1;
    s->ctx = ctx;
    s->view =
        (struct tacio_plan){.part = plan->part, .agg = plan->agg, .order_rule = plan->order_rule};
    s->T = (struct tally){.sent = main->sent, .fd = malloc(sizeof(struct fd_tally) * a)};
    s->w.touched = malloc(sizeof(int) * a);
    if (plan->link_up) {
        s->view.link_up = xcalloc((size_t)t->nverts, sizeof(int64_t));
        s->view.link_down = xcalloc((size_t)t->nverts, sizeof(int64_t));
    }
    if (!s->T.fd || !s->w.touched || (plan->link_up && (!s->view.link_up || !s->view.link_down)))
        return tacio_fail(TACIO_ENOMEM, "out of memory computing metrics");
    memcpy(s->T.fd, main->fd, sizeof(struct fd_tally) * a);
    return row_acc_init(&s->w.ra, ctx->pat, &plan->part);
}

static int share_walk(void *arg)
{
    struct stream_share *s = arg;
    const struct tacio_topo *t = s->ctx->topo;
    int rc = 0;
    for (int u = s->u0; !rc && u < s->u1; u++) {
        int h = t->used_hosts[u];
        rc = host_traffic(s->ctx, &s->view, &s->T, &s->w, h, s->ranks + s->ptr[h],
                          s->ptr[h + 1] - s->ptr[h]);
    }
    return rc;
}

/* The share's sums into the plan and the main tally; its pairs follow the
 * earlier shares', so the pairs stay in host position order. */
static int share_merge(struct stream_share *s, struct tacio_plan *plan, struct tally *T,
                       int64_t *nnz, int nverts)
{
    struct metrics *m = &plan->m, *v = &s->view.m;
    m->shuffle_bytes += v->shuffle_bytes;
    m->messages += v->messages;
    m->hop_bytes += v->hop_bytes;
    m->offnode_bytes += v->offnode_bytes;
    for (int k = 0; plan->link_up && k < nverts; k++) {
        plan->link_up[k] += s->view.link_up[k];
        plan->link_down[k] += s->view.link_down[k];
    }
    for (int j = 0; j < plan->part.n; j++) {
        T->fd[j].msgs += s->T.fd[j].msgs;
        T->fd[j].in += s->T.fd[j].in;
        T->fd[j].offmsgs += s->T.fd[j].offmsgs;
        T->fd[j].onhost += s->T.fd[j].onhost;
        T->fd[j].sum += s->T.fd[j].sum;
    }
    *nnz += s->w.nnz;
    int rc = grow_array((void **)&T->P.v, sizeof *T->P.v, T->P.n + s->T.P.n, &T->P.cap);
    if (!rc && s->T.P.n)
        memcpy(T->P.v + T->P.n, s->T.P.v, sizeof *T->P.v * (size_t)s->T.P.n);
    T->P.n += rc ? 0 : s->T.P.n;
    return rc;
}

static void share_free(struct stream_share *s)
{
    free(s->T.fd);
    free(s->T.P.v);
    free(s->view.link_up);
    free(s->view.link_down);
    free(s->w.touched);
    row_acc_free(&s->w.ra);
}

/* Splits the used hosts into n shares of about equal rank counts. */
static void share_bounds(const struct tacio_topo *t, const int *ptr, struct stream_share *sh, int n)
{
    int u = 0;
    int64_t seen = 0;
    for (int k = 0; k < n; k++) {
        sh[k].u0 = u;
        int64_t goal = (int64_t)t->nprocs * (k + 1) / n;
        while (u < t->nused_hosts && (k == n - 1 || seen < goal)) {
            int h = t->used_hosts[u++];
            seen += ptr[h + 1] - ptr[h];
        }
        sh[k].u1 = u;
    }
}

static int stream_walk(const struct plan_ctx *ctx, struct tacio_plan *plan, struct tally *T,
                       const int *ptr, const int *ranks, int64_t *nnz)
{
    int n = plan_threads(ctx->topo->nprocs, ctx->threads), rc = 0;
    struct stream_share *sh = xcalloc((size_t)n, sizeof *sh);
    if (!sh)
        return tacio_fail(TACIO_ENOMEM, "out of memory computing metrics");
    share_bounds(ctx->topo, ptr, sh, n);
    for (int k = 0; !rc && k < n; k++) {
        sh[k].ptr = ptr;
        sh[k].ranks = ranks;
        rc = share_init(&sh[k], ctx, plan, T);
    }
    if (!rc)
        rc = parallel_run(n, share_walk, sh, sizeof *sh);
    for (int k = 0; !rc && k < n; k++)
        rc = share_merge(&sh[k], plan, T, nnz, ctx->topo->nverts);
    for (int k = 0; k < n; k++)
        share_free(&sh[k]);
    free(sh);
    return rc;
}

int metrics_stream(const struct plan_ctx *ctx, struct tacio_plan *plan, int64_t *nnz)
{
    const struct tacio_topo *t = ctx->topo;
    struct tally T;
    int *ptr = NULL, *ranks = NULL;
    *nnz = 0;
    int rc = tally_init(ctx, plan, &T);
    if (!rc)
        rc = topo_host_ranks(t, &ptr, &ranks);
    if (!rc)
        rc = stream_walk(ctx, plan, &T, ptr, ranks, nnz);
    for (int j = 0; !rc && j < plan->part.n; j++)
        tally_fd(ctx, plan, &T, j, T.fd[j].sum);
    if (!rc)
        rc = tally_finish(ctx, plan, &T);
    tally_free(&T);
    free(ptr);
    free(ranks);
    return rc;
}
