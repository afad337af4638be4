/* Memory-conscious collective I/O (papers/mccio-*):
 * 1. aggregation groups: the access range is cut only where no host has data
 *    on both sides, once a group holds tacio_msg_group bytes;
 * 2. per group, a partition tree: recursive bisection until a leaf holds at
 *    most tacio_msg_ind bytes, or, when that hint is unset, into one leaf per
 *    aggregator slot (bisect_to_slots says why);
 * 3. per leaf, left to right: among the hosts holding its data with fewer
 *    than tacio_aggs_per_node aggregators, the one with most free memory; if
 *    that is below tacio_mem_min the leaf is remerged into its neighbour
 *    (mc_remerge) and the neighbour's host search covers both. */
#include "../mctree.h"
#include "../strategy.h"

#include <string.h>

struct mc_aux {
    struct mc_tree tree;
    int *leaves; /* tree vertex of each initial FD, left to right */
    int nleaves;
    int64_t leaves_cap;
};

static void mc_aux_free(void *p)
{
    struct mc_aux *a = p;
    if (!a)
        return;
    mc_free(&a->tree);
    free(a->leaves);
    free(a);
}

/* ---- groups ---- */

struct host_span {
    int64_t lo, hi;
};

static int cmp_span(const void *a, const void *b)
{
    const struct host_span *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

static int host_spans(const struct plan_ctx *ctx, struct host_span **out, int *n)
{
    const struct tacio_topo *t = ctx->topo;
    struct host_span *s = malloc(sizeof *s * (size_t)(t->nused_hosts ? t->nused_hosts : 1));
    if (!s)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int u = 0; u < t->nused_hosts; u++)
        s[u] = (struct host_span){INT64_MAX, INT64_MIN};
    for (int r = 0; r < t->nprocs; r++) {
        int64_t lo, hi;
        ctx->pat->ops->span(ctx->pat, r, &lo, &hi);
        struct host_span *h = &s[t->host_order[t->rank_host[r]]];
        if (lo < hi) {
            h->lo = min64(h->lo, lo);
            h->hi = max64(h->hi, hi);
        }
    }
    int k = 0;
    for (int u = 0; u < t->nused_hosts; u++)
        if (s[u].lo < s[u].hi)
            s[k++] = s[u];
    qsort(s, (size_t)k, sizeof *s, cmp_span);
    *out = s;
    *n = k;
    return 0;
}

/* Group boundaries, cuts[0] = lo ... cuts[n] = hi. */
static int group_cuts(const struct plan_ctx *ctx, int64_t **cuts, int *ncuts)
{
    struct host_span *s = NULL;
    int n = 0, rc = host_spans(ctx, &s, &n);
    if (rc)
        return rc;
    int64_t *c = malloc(sizeof(int64_t) * (size_t)(n + 2));
    if (!c) {
        free(s);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    int k = 0;
    c[k++] = ctx->lo;
    int64_t run_max = ctx->lo;
    for (int i = 0; i < n && ctx->h->msg_group > 0; i++) {
        /* a cut at run_max splits no host: all earlier hosts end by then */
        if (i > 0 && run_max <= s[i].lo && run_max > c[k - 1] &&
            pattern_total_in(ctx->pat, c[k - 1], run_max) >= ctx->h->msg_group)
            c[k++] = run_max;
        run_max = max64(run_max, s[i].hi);
    }
    c[k++] = ctx->hi;
    free(s);
    *cuts = c;
    *ncuts = k - 1;
    return 0;
}

/* ---- partition tree ---- */

static int64_t align_split(const struct plan_ctx *ctx, int64_t x, int64_t lo)
{
    int64_t unit = ctx->h->striping_unit;
    return unit > 0 && x - x % unit > lo ? x - x % unit : x;
}

/* Smallest offset x in (lo, hi) with at least `want` bytes in [lo, x). */
static int64_t byte_quantile(const struct plan_ctx *ctx, int64_t lo, int64_t hi, int64_t want)
{
    int64_t a = lo + 1, b = hi - 1;
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        if (pattern_total_in(ctx->pat, lo, m) >= want)
            b = m;
        else
            a = m + 1;
    }
    return a;
}

static int add_leaf(struct mc_aux *a, int x)
{
    int rc = grow_array((void **)&a->leaves, sizeof *a->leaves, a->nleaves + 1, &a->leaves_cap);
    if (!rc)
        a->leaves[a->nleaves++] = x;
    return rc;
}

/* The paper's rule, with tacio_msg_ind set: halve the region until a leaf
 * holds at most Msg_ind bytes. */
static int bisect_to_size(const struct plan_ctx *ctx, struct mc_aux *a, int x)
{
    int64_t lo = a->tree.v[x].lo, hi = a->tree.v[x].hi;
    if (hi - lo > 1 && pattern_total_in(ctx->pat, lo, hi) > ctx->h->msg_ind) {
        int l = mc_split(&a->tree, x, align_split(ctx, lo + (hi - lo) / 2, lo));
        if (l < 0)
            return l;
        int r = a->tree.v[x].right, rc = bisect_to_size(ctx, a, l);
        return rc ? rc : bisect_to_size(ctx, a, r);
    }
    return add_leaf(a, x);
}

/* Without tacio_msg_ind, Msg_ind is whatever gives each aggregator slot of
 * the group one leaf: bisect at the byte quantile that leaves floor(s/2) of
 * the s slots on the left. Halving at the midpoint with a fixed Msg_ind would
 * make 2^k leaves, and the surplus over the slots would all remerge into one
 * oversized domain. */
static int bisect_to_slots(const struct plan_ctx *ctx, struct mc_aux *a, int x, int slots)
{
    int64_t lo = a->tree.v[x].lo, hi = a->tree.v[x].hi;
    int64_t bytes = slots > 1 && hi - lo > 1 ? pattern_total_in(ctx->pat, lo, hi) : 0;
    if (bytes > 1) {
        int left = slots / 2;
        int64_t mid = byte_quantile(ctx, lo, hi, (int64_t)((__int128)bytes * left / slots));
        int l = mc_split(&a->tree, x, align_split(ctx, mid, lo));
        if (l < 0)
            return l;
        int r = a->tree.v[x].right, rc = bisect_to_slots(ctx, a, l, left);
        return rc ? rc : bisect_to_slots(ctx, a, r, slots - left);
    }
    return add_leaf(a, x);
}

/* Aggregator slots of a group: N_ah (at most its rank count) per host with
 * data in it. */
static int group_slots(const struct plan_ctx *ctx, int64_t lo, int64_t hi)
{
    const struct tacio_topo *t = ctx->topo;
    int *per = xcalloc((size_t)t->nhosts, sizeof(int));
    if (!per)
        return 1;
    int slots = 0;
    for (int r = 0; r < t->nprocs; r++) {
        int64_t a, b;
        ctx->pat->ops->span(ctx->pat, r, &a, &b);
        int h = t->rank_host[r];
        if (a < b && a < hi && lo < b && per[h] < ctx->h->aggs_per_node) {
            per[h]++;
            slots++;
        }
    }
    free(per);
    return slots > 0 ? slots : 1;
}

/* matrix: patterns: the tree splits between the fixed FDs. */
static int split_fixed(const struct plan_ctx *ctx, struct mc_aux *a, int x, int j0, int j1)
{
    if (j1 - j0 > 1) {
        int jm = j0 + (j1 - j0) / 2;
        int l = mc_split(&a->tree, x, ctx->pat->fixed_start[jm]);
        if (l < 0)
            return l;
        int r = a->tree.v[x].right, rc = split_fixed(ctx, a, l, j0, jm);
        return rc ? rc : split_fixed(ctx, a, r, jm, j1);
    }
    return add_leaf(a, x);
}

static int build_tree(const struct plan_ctx *ctx, struct mc_aux *a)
{
    if (ctx->pat->nfixed) {
        int root =
            mc_add(&a->tree, -1, ctx->pat->fixed_start[0], ctx->pat->fixed_start[ctx->pat->nfixed]);
        return root < 0 ? root : split_fixed(ctx, a, root, 0, ctx->pat->nfixed);
    }
    int64_t *cuts = NULL;
    int ng = 0, rc = group_cuts(ctx, &cuts, &ng);
    if (rc)
        return rc;
    for (int g = 0; !rc && g < ng; g++) {
        int root = mc_add(&a->tree, -1, cuts[g], cuts[g + 1]);
        if (root < 0)
            rc = root;
        else if (ctx->h->msg_ind > 0)
            rc = bisect_to_size(ctx, a, root);
        else
            rc = bisect_to_slots(ctx, a, root, group_slots(ctx, cuts[g], cuts[g + 1]));
    }
    free(cuts);
    return rc;
}

static int mccio_partition(const struct plan_ctx *ctx, struct partition *out)
{
    struct mc_aux *a = xcalloc(1, sizeof *a);
    if (!a)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    int rc = build_tree(ctx, a);
    if (!rc)
        rc = partition_alloc(out, a->nleaves);
    for (int j = 0; !rc && j < a->nleaves; j++) {
        const struct mc_vertex *v = &a->tree.v[a->leaves[j]];
        out->dom[j] = (struct fdom){v->lo, v->hi, 0, 0, 0};
    }
    if (rc) {
        mc_aux_free(a);
        return rc;
    }
    out->aux = a;
    out->aux_free = mc_aux_free;
    return 0;
}

/* ---- aggregator location ---- */

struct locator {
    const struct plan_ctx *ctx;
    const struct partition *leaves; /* the initial FDs, one per leaf, left to right */
    const struct cmatrix *c;        /* C of those leaves */
    int64_t *mem;                   /* free memory left per host */
    int *aggs_on_host;
    char *is_agg;
    int64_t *rank_bytes; /* bytes of each rank in the current leaf, */
    int64_t *host_bytes; /* of each host, zero outside hosts[] */
    int *hosts, nhosts;
    int j0, j1;         /* the current leaf's columns of C */
    int *hptr, *hranks; /* each host's ranks */
    int shortfall;
};

/* Bytes per rank and host in [lo, hi), a run of whole initial leaves (a
 * remerged leaf covers its neighbours'), summed from C's columns; the hosts
 * holding any are listed in hosts. Touches only those columns' entries:
 * per leaf, the work is the leaf's senders, not the job's ranks. */
static void leaf_bytes(struct locator *L, int64_t lo, int64_t hi)
{
    const struct tacio_topo *t = L->ctx->topo;
    int a = 0, b = L->leaves->n;
    while (a < b) { /* first leaf starting at or after lo */
        int m = a + (b - a) / 2;
        if (L->leaves->dom[m].start < lo)
            a = m + 1;
        else
            b = m;
    }
    L->j0 = a;
    for (L->j1 = a; L->j1 < L->leaves->n && L->leaves->dom[L->j1].end <= hi; L->j1++)
        for (int64_t k = L->c->col_ptr[L->j1]; k < L->c->col_ptr[L->j1 + 1]; k++) {
            int h = t->rank_host[L->c->row[k]];
            if (L->host_bytes[h] == 0)
                L->hosts[L->nhosts++] = h;
            L->rank_bytes[L->c->row[k]] += L->c->cval[k];
            L->host_bytes[h] += L->c->cval[k];
        }
}

static void leaf_clear(struct locator *L)
{
    for (int64_t k = L->c->col_ptr[L->j0]; k < L->c->col_ptr[L->j1]; k++)
        L->rank_bytes[L->c->row[k]] = 0;
    for (int i = 0; i < L->nhosts; i++)
        L->host_bytes[L->hosts[i]] = 0;
    L->nhosts = 0;
}

/* The host's free rank holding most of the leaf (lowest rank on ties). */
static int best_rank_on(const struct locator *L, int h)
{
    int best = -1;
    for (int k = L->hptr[h]; k < L->hptr[h + 1]; k++) {
        int r = L->hranks[k];
        if (!L->is_agg[r] && (best < 0 || L->rank_bytes[r] > L->rank_bytes[best]))
            best = r;
    }
    return best;
}

/* Host with most free memory among those holding the leaf's data that can
 * still take an aggregator (ignore_limits: any holder, for the fallback). */
static int pick_host(const struct locator *L, bool ignore_limits)
{
    const struct tacio_topo *t = L->ctx->topo;
    int best = -1;
    for (int i = 0; i < L->nhosts; i++) {
        int h = L->hosts[i];
        if (best_rank_on(L, h) < 0)
            continue;
        if (!ignore_limits && L->aggs_on_host[h] >= L->ctx->h->aggs_per_node)
            continue;
        if (best < 0 || L->mem[h] > L->mem[best] ||
            (L->mem[h] == L->mem[best] &&
             (L->host_bytes[h] > L->host_bytes[best] ||
              (L->host_bytes[h] == L->host_bytes[best] &&
               t->host_order[h] < t->host_order[best])))) /* ties: the earlier host */
            best = h;
    }
    return best;
}

/* The leaf's aggregator holds its share of the host's free memory (the
 * host's aggregators split it evenly; the paper's aggregation buffer is
 * the aggregator's free memory), within what the host has left and
 * cb_buffer_size, and mem_min on a host short of it (a shortfall); 0 when
 * that is cb_buffer_size, as for every other strategy. */
static void place(struct locator *L, struct mc_vertex *v, int h)
{
    int r = best_rank_on(L, h);
    const struct tacio_topo *t = L->ctx->topo;
    int64_t cb = L->ctx->h->cb_buffer_size;
    int64_t share = t->mem_free ? t->mem_free[h] / max64(1, L->ctx->h->aggs_per_node) : cb;
    int64_t window = min64(cb, max64(min64(L->mem[h], share), hints_mem_min(L->ctx->h)));
    v->agg = r;
    v->memory = window < cb ? window : 0;
    L->is_agg[r] = 1;
    L->aggs_on_host[h]++;
    L->mem[h] -= min64(v->hi - v->lo, window);
}

static void locate_leaf(struct locator *L, struct mc_tree *tree, int x)
{
    struct mc_vertex *v = &tree->v[x];
    leaf_bytes(L, v->lo, v->hi);
    int h = pick_host(L, false);
    if (h >= 0 && L->mem[h] >= hints_mem_min(L->ctx->h)) {
        place(L, v, h);
        leaf_clear(L);
        return;
    }
    if (mc_remerge(tree, x) >= 0) {
        leaf_clear(L);
        return; /* the taker is placed in its own turn, or already is */
    }
    /* the group's last leaf: no host qualifies, take the best one anyway */
    h = pick_host(L, true);
    if (h < 0) { /* no data at all: any free rank will do */
        for (int r = 0; r < L->ctx->topo->nprocs && h < 0; r++)
            h = L->is_agg[r] ? -1 : L->ctx->topo->rank_host[r];
    }
    L->shortfall++;
    place(L, v, h);
    leaf_clear(L);
}

static int locator_init(struct locator *L, const struct plan_ctx *ctx,
                        const struct partition *leaves, const struct cmatrix *c)
{
    const struct tacio_topo *t = ctx->topo;
    L->ctx = ctx;
    L->leaves = leaves;
    L->c = c;
    L->mem = malloc(sizeof(int64_t) * (size_t)t->nhosts);
    L->aggs_on_host = xcalloc((size_t)t->nhosts, sizeof(int));
    L->is_agg = xcalloc((size_t)t->nprocs, 1);
    L->rank_bytes = xcalloc((size_t)t->nprocs, sizeof(int64_t));
    L->host_bytes = xcalloc((size_t)t->nhosts, sizeof(int64_t));
    L->hosts = malloc(sizeof(int) * (size_t)(t->nhosts ? t->nhosts : 1));
    if (!L->mem || !L->aggs_on_host || !L->is_agg || !L->rank_bytes || !L->host_bytes || !L->hosts)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    int rc = topo_host_ranks(t, &L->hptr, &L->hranks);
    if (rc)
        return rc;
    for (int h = 0; h < t->nhosts; h++) /* no memory spec: every host has plenty */
        L->mem[h] = t->mem_free ? t->mem_free[h] : INT64_MAX / 4;
    return 0;
}

static void locator_free(struct locator *L)
{
    free(L->mem);
    free(L->aggs_on_host);
    free(L->is_agg);
    free(L->rank_bytes);
    free(L->host_bytes);
    free(L->hosts);
    free(L->hptr);
    free(L->hranks);
}

static int mccio_assign(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                        struct tacio_plan *plan)
{
    struct mc_aux *a = part->aux;
    struct locator L = {0};
    int rc = locator_init(&L, ctx, part, c);
    for (int j = 0; !rc && j < a->nleaves; j++)
        if (a->tree.v[a->leaves[j]].parent != -2)
            locate_leaf(&L, &a->tree, a->leaves[j]);
    int n = 0;
    for (int j = 0; !rc && j < a->nleaves; j++) {
        const struct mc_vertex *v = &a->tree.v[a->leaves[j]];
        if (v->parent == -2)
            continue;
        part->dom[n] = (struct fdom){v->lo, v->hi, 0, 0, v->memory};
        plan->agg[n++] = v->agg;
    }
    part->n = n;
    plan->mem_shortfall = L.shortfall;
    locator_free(&L);
    return rc;
}

const struct tacio_strategy strategy_mccio = {
    .name = "mccio",
    .summary = "memory-conscious: groups, partition tree to Msg_ind, remerge, free-memory hosts",
    .partition = mccio_partition,
    .assign = mccio_assign,
    .reads_distribution = true,
    .auto_candidate = true,
};
