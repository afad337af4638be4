/* The papers' metrics for a plan, and auto's cost model. */
#include "plan.h"

#include <string.h>

struct per_agg {
    int64_t *bytes, *extent, *offnode_in, *msgs; /* indexed by rank, as aggregator */
    int64_t *sent;                               /* indexed by rank: messages it sends */
};

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

/* Shuffle traffic of FD j: per-sender bytes summed by host first, so the tree
 * is walked once per (FD, sending host), not per sender. */
static void fd_traffic(const struct plan_ctx *ctx, const struct comm *c, int j,
                       struct tacio_plan *plan, int64_t *host_acc, int *touched, struct per_agg *pa)
{
    const struct tacio_topo *t = ctx->topo;
    int a = plan->agg[j], nt = 0;
    struct metrics *m = &plan->m;
    for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++) {
        int r = c->row[k];
        int64_t b = c->cval[k];
        if (r == a)
            continue;
        m->shuffle_bytes += b;
        m->messages++;
        pa->msgs[a]++;
        pa->sent[r]++;
        if (t->dist) /* a distance matrix: hops per rank pair */
            m->hop_bytes += topo_rank_dist(t, r, a) * b;
        if (t->rank_host[r] == t->rank_host[a])
            m->hop_bytes += t->dist ? 0 : b; /* one hop inside the host */
        else {
            m->offnode_bytes += b;
            pa->offnode_in[a] += b;
            if (host_acc[t->rank_host[r]] == 0)
                touched[nt++] = t->rank_host[r];
            host_acc[t->rank_host[r]] += b;
        }
    }
    for (int i = 0; i < nt; i++) {
        if (!t->dist)
            m->hop_bytes +=
                add_host_traffic(t, plan, touched[i], t->rank_host[a], host_acc[touched[i]]);
        host_acc[touched[i]] = 0;
    }
    pa->bytes[a] += c->fd_bytes[j];
    pa->extent[a] += fdom_extent(&plan->part.fd[j]);
    plan->fd_bytes[j] = c->fd_bytes[j];
    plan->fd_mem[j] = min64(fdom_extent(&plan->part.fd[j]), ctx->h->cb_buffer_size);
}

/* Collection contention: in step s every aggregator gathers from the s-th
 * distinct remote host of its sender order (plan->order, else rank order).
 * Count, per step, how many aggregators hit the same host; keep the maximum.
 * Pairs are bucketed by step (counting sort), so this is O(nnz). */
struct fanin {
    int *step, *host, *mark, *count, *sorted;
    int64_t *bucket, np;
};

static void fanin_pairs(const struct tacio_topo *t, const struct comm *c,
                        const struct tacio_plan *plan, struct fanin *F)
{
    for (int h = 0; h < t->nhosts; h++)
        F->mark[h] = -1;
    for (int j = 0; j < c->a; j++) {
        int s = 0, ha = t->rank_host[plan->agg[j]];
        for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++) {
            int r = plan->order ? plan->order[k] : c->row[k], h = t->rank_host[r];
            if (h == ha || F->mark[h] == j)
                continue;
            F->mark[h] = j;
            F->step[F->np] = s;
            F->host[F->np++] = h;
            F->bucket[++s]++;
        }
    }
}

static int fanin_max(const struct tacio_topo *t, struct fanin *F)
{
    for (int s = 0; s <= t->nhosts; s++)
        F->bucket[s + 1] += F->bucket[s];
    for (int64_t i = 0; i < F->np; i++)
        F->sorted[F->bucket[F->step[i]]++] = F->host[i];
    /* bucket[s] now ends step s's run */
    int best = 0;
    int64_t lo = 0;
    for (int s = 0; s <= t->nhosts; lo = F->bucket[s], s++) {
        for (int64_t i = lo; i < F->bucket[s]; i++)
            if (++F->count[F->sorted[i]] > best)
                best = F->count[F->sorted[i]];
        for (int64_t i = lo; i < F->bucket[s]; i++)
            F->count[F->sorted[i]] = 0;
    }
    return best;
}

static int step_fanin(const struct tacio_topo *t, const struct comm *c,
                      const struct tacio_plan *plan, int *out)
{
    size_t n = (size_t)(c->nnz ? c->nnz : 1);
    struct fanin F = {malloc(sizeof(int) * n),
                      malloc(sizeof(int) * n),
                      malloc(sizeof(int) * (size_t)t->nhosts),
                      xcalloc((size_t)t->nhosts, sizeof(int)),
                      malloc(sizeof(int) * n),
                      xcalloc((size_t)t->nhosts + 2, sizeof(int64_t)),
                      0};
    int rc = 0;
    if (F.step && F.host && F.mark && F.count && F.sorted && F.bucket) {
        fanin_pairs(t, c, plan, &F);
        *out = fanin_max(t, &F);
    } else
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    free(F.step);
    free(F.host);
    free(F.mark);
    free(F.count);
    free(F.sorted);
    free(F.bucket);
    return rc;
}

/* The busiest link's time: hosts' own links at bw_link, links between
 * switches at bw_uplink (unset: bw_link). Without a tree, all off-node bytes
 * through one link. */
static double link_seconds(const struct tacio_topo *t, const struct tacio_hints *h,
                           const struct tacio_plan *plan)
{
    if (!plan->link_up)
        return (double)plan->m.offnode_bytes / h->bw_link;
    double up = h->bw_uplink > 0 ? h->bw_uplink : h->bw_link, worst = 0;
    for (int v = 0; v < t->nverts; v++) {
        double load = (double)max64(plan->link_up[v], plan->link_down[v]);
        double s = load / (t->vert_host[v] >= 0 ? h->bw_link : up);
        worst = s > worst ? s : worst;
    }
    return worst;
}

/* auto's cost model, in seconds (README "auto"): the network (the busiest
 * link, or the busiest aggregator's NIC) plus the I/O (the busiest
 * aggregator at bw_agg_io, the busiest host at bw_host_io since its
 * aggregators share its way to storage, or the whole at bw_fs, whichever
 * is slowest) plus one latency per message of the busiest aggregator in
 * and of the busiest sender out (more aggregators: fewer messages into
 * each, more out of each rank). */
static double model_seconds(const struct tacio_topo *t, const struct tacio_hints *h,
                            const struct tacio_plan *plan, int64_t max_nic, int64_t max_msgs)
{
    const struct metrics *m = &plan->m;
    double net = link_seconds(t, h, plan), nic = (double)max_nic / h->bw_link;
    double io = (double)m->max_agg_bytes / h->bw_agg_io;
    double host = h->bw_host_io > 0 ? (double)m->max_host_bytes / h->bw_host_io : 0;
    double fs = (double)m->total_bytes / h->bw_fs;
    io = host > io ? host : io;
    return (net > nic ? net : nic) + (io > fs ? io : fs) + (double)max_msgs * h->latency;
}

static void summarise_aggs(const struct plan_ctx *ctx, struct tacio_plan *plan,
                           const struct per_agg *pa, int64_t *host_bytes, int64_t *max_nic,
                           int64_t *max_msgs)
{
    struct metrics *m = &plan->m;
    int64_t cb = ctx->h->cb_buffer_size, max_sent = 0;
    for (int r = 0; r < ctx->topo->nprocs; r++) {
        max_sent = max64(max_sent, pa->sent[r]); /* every rank sends; not all aggregate */
        if (pa->extent[r] == 0 && pa->bytes[r] == 0 && pa->msgs[r] == 0)
            continue;
        if (host_bytes) {
            int64_t *hb = &host_bytes[ctx->topo->rank_host[r]];
            *hb += pa->bytes[r];
            m->max_host_bytes = max64(m->max_host_bytes, *hb);
        }
        m->naggs++;
        m->max_agg_bytes = max64(m->max_agg_bytes, pa->bytes[r]);
        m->max_agg_mem = max64(m->max_agg_mem, min64(pa->extent[r], cb));
        m->rounds = max64(m->rounds, ceil_div(pa->extent[r], cb));
        *max_nic = max64(*max_nic, pa->offnode_in[r]);
        *max_msgs = max64(*max_msgs, pa->msgs[r]);
    }
    *max_msgs += max_sent; /* the model's message count: busiest in + busiest out */
}

static void max_link(const struct tacio_topo *t, struct tacio_plan *plan)
{
    plan->m.max_link_load = plan->link_up ? 0 : -1;
    for (int v = 0; plan->link_up && v < t->nverts; v++)
        plan->m.max_link_load =
            max64(plan->m.max_link_load, max64(plan->link_up[v], plan->link_down[v]));
}

int metrics_compute(const struct plan_ctx *ctx, const struct comm *c, struct tacio_plan *plan)
{
    const struct tacio_topo *t = ctx->topo;
    size_t p = (size_t)t->nprocs;
    struct per_agg pa = {xcalloc(p, sizeof(int64_t)), xcalloc(p, sizeof(int64_t)),
                         xcalloc(p, sizeof(int64_t)), xcalloc(p, sizeof(int64_t)),
                         xcalloc(p, sizeof(int64_t))};
    int64_t *host_acc = xcalloc((size_t)t->nhosts, sizeof(int64_t));
    int *touched = malloc(sizeof(int) * (size_t)t->nhosts);
    plan->fd_bytes = malloc(sizeof(int64_t) * (size_t)(c->a ? c->a : 1));
    plan->fd_mem = malloc(sizeof(int64_t) * (size_t)(c->a ? c->a : 1));
    if (topo_has_tree(t)) {
        plan->nlinks = t->nverts;
        plan->link_name = names_copy(t->vname, t->nverts);
        plan->link_up = xcalloc((size_t)t->nverts, sizeof(int64_t));
        plan->link_down = xcalloc((size_t)t->nverts, sizeof(int64_t));
        plan->link_parent = malloc(sizeof(int) * (size_t)t->nverts);
        if (plan->link_parent)
            memcpy(plan->link_parent, t->parent, sizeof(int) * (size_t)t->nverts);
    }
    int rc = 0;
    if (!pa.bytes || !pa.extent || !pa.offnode_in || !pa.msgs || !pa.sent || !host_acc ||
        !touched || !plan->fd_bytes || !plan->fd_mem ||
        (topo_has_tree(t) &&
         (!plan->link_up || !plan->link_down || !plan->link_name || !plan->link_parent)))
        rc = tacio_fail(TACIO_ENOMEM, "out of memory computing metrics");
    memset(&plan->m, 0, sizeof plan->m);
    plan->m.total_bytes = c->total;
    for (int j = 0; !rc && j < c->a; j++)
        fd_traffic(ctx, c, j, plan, host_acc, touched, &pa);
    int64_t max_nic = 0, max_msgs = 0;
    if (!rc) {
        memset(host_acc, 0, sizeof(int64_t) * (size_t)t->nhosts); /* now per host I/O */
        summarise_aggs(ctx, plan, &pa, t->rank_host ? host_acc : NULL, &max_nic, &max_msgs);
        max_link(t, plan);
        rc = step_fanin(t, c, plan, &plan->m.max_step_fanin);
        plan->m.model_seconds = model_seconds(t, ctx->h, plan, max_nic, max_msgs);
    }
    free(pa.bytes);
    free(pa.extent);
    free(pa.offnode_in);
    free(pa.msgs);
    free(pa.sent);
    free(host_acc);
    free(touched);
    return rc;
}
