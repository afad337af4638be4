/* Exact FD -> rank assignment over a tree topology as a min-cost flow that
 * never builds W = D*C.
 *
 * With ranks at the leaves below their hosts, the distance between two ranks
 * depends only on the level of their lowest common ancestor u: delta(u) = 0
 * for the same rank, 1 for a host, 2 * levels above the hosts for a switch.
 * Telescoping delta along the chain root = u0 > u1 > ... > uL = rank i gives
 *     W[i][j] = delta(root) * T_j - sum_{l>=1} (delta(u_{l-1}) - delta(u_l)) * B_j(u_l)
 * where B_j(u) is the bytes of FD j held by ranks under u. So W[i][j] only
 * depends on the deepest ancestor of i that holds any of FD j: its "holder".
 *
 * Network: FD j --cost_j(h)--> holder h (every vertex with B_j > 0, plus the
 * root) --0--> down the tree --> rank --cap 1--> sink. Routing FD j through a
 * shallower holder than the rank's own only over-estimates, so the min-cost
 * flow equals the LAP optimum. Successive shortest paths, one FD at a time,
 * with Dijkstra stopped at the sink and potentials updated only on settled
 * vertices (pi += d - d_sink), keep the reduced costs non-negative.
 *
 * With latp_costs, delta is 0 for the same rank and 1 otherwise: W becomes
 * the bytes FD j must move, LATP's objective. */
#include "plan.h"

#include <string.h>

struct heap_item {
    int64_t d;
    int v;
};

struct flow {
    const struct tacio_topo *t;
    const struct cmatrix *c;
    bool latp;
    int V, p, a, nv, sink, root;
    int *cptr, *cidx; /* tree vertex -> children: switches' vertices, hosts' ranks */
    int64_t *delta;   /* per tree vertex */
    /* FD j's holder arcs, made from C's column j each time j is expanded:
     * storing them would cost more than C itself at a million ranks */
    int64_t *bsum, *hcost; /* per tree vertex */
    int *holders, nholders;
    bool bulk;  /* pushes append; the heap is built once after */
    int *entry; /* FD -> holder it enters by, or -1 */
    int64_t *entry_cost;
    int *ent_head, *ent_next; /* per vertex: FDs entering there */
    int *flow_down;           /* per vertex: units on the edge from its parent */
    char *used;               /* rank already an aggregator */
    /* per vertex, together: a relaxation touches one cache line, not six */
    struct vstate {
        int64_t pi, dist;
        int64_t in_cost; /* cost of the arc that last lowered dist */
        int pred;
        unsigned seen, done; /* == gen: in this search */
    } * vs;
    unsigned gen;
    int *settled, nsettled;
    struct heap_item *heap;
    int64_t nheap, heap_cap;
    int *path;
};

static int vparent(const struct flow *f, int x)
{
    if (x < f->V)
        return f->t->parent[x];
    return f->t->host_vert[f->t->rank_host[x - f->V]];
}

static int64_t vdelta(const struct flow *f, int x)
{
    return x >= f->V ? 0 : f->delta[x];
}

/* ---- binary heap of (distance, vertex), stale entries skipped on pop ---- */

/* Ties go to the sink: once a free rank is as close as anything else, the
 * search stops instead of expanding every FD at that distance (after a few
 * hundred augmentations most reduced costs are zero). */
static bool before(const struct flow *f, struct heap_item x, struct heap_item y)
{
    return x.d < y.d || (x.d == y.d && x.v == f->sink && y.v != f->sink);
}

static int heap_push(struct flow *f, int64_t d, int v)
{
    int rc = grow_array((void **)&f->heap, sizeof *f->heap, f->nheap + 1, &f->heap_cap);
    if (rc)
        return rc;
    int64_t i = f->nheap++;
    struct heap_item it = {d, v};
    while (!f->bulk && i > 0 && before(f, it, f->heap[(i - 1) / 2])) {
        f->heap[i] = f->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    f->heap[i] = it;
    return 0;
}

static void sift_down(struct flow *f, int64_t i, struct heap_item last)
{
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= f->nheap)
            break;
        if (c + 1 < f->nheap && before(f, f->heap[c + 1], f->heap[c]))
            c++;
        if (!before(f, f->heap[c], last))
            break;
        f->heap[i] = f->heap[c];
        i = c;
    }
    f->heap[i] = last;
}

static struct heap_item heap_pop(struct flow *f)
{
    struct heap_item top = f->heap[0], last = f->heap[--f->nheap];
    if (f->nheap)
        sift_down(f, 0, last);
    return top;
}

/* Floyd's bottom-up build, after a run of bulk pushes: an FD's first
 * expansion pushes thousands of holders into an empty heap. */
static void heapify(struct flow *f)
{
    for (int64_t i = f->nheap / 2 - 1; i >= 0; i--)
        sift_down(f, i, f->heap[i]);
}

/* ---- holder arcs ---- */

/* W of FD j at holder v (the header's telescoped sum). */
static int64_t holder_cost(const struct flow *f, int v, int64_t tj)
{
    int64_t saving = 0;
    for (int u = v; u != f->root; u = vparent(f, u))
        saving += (vdelta(f, vparent(f, u)) - vdelta(f, u)) * f->bsum[u];
    return vdelta(f, f->root) * tj - saving;
}

static int relax(struct flow *f, int x, int y, int64_t cost);

/* FD j's holders among the switches and hosts: every one with ranks below
 * it holding part of j, with bsum[u] = B_j(u) and hcost[u] its arc's cost.
 * The holder ranks are C's column j itself (B_j(rank) is the entry), so only
 * the tree's vertices, a few tens of thousands, are summed into. */
static void collect_tree_holders(struct flow *f, int j)
{
    const struct cmatrix *c = f->c;
    for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++) {
        int h = vparent(f, f->V + c->row[k]);
        if (f->bsum[h] == 0)
            f->holders[f->nholders++] = h;
        f->bsum[h] += c->cval[k];
    }
    int nhosts = f->nholders;
    for (int k = 0; k < nhosts; k++) {
        int h = f->holders[k];
        for (int u = vparent(f, h); u >= 0; u = vparent(f, u)) {
            if (f->bsum[u] == 0)
                f->holders[f->nholders++] = u;
            f->bsum[u] += f->bsum[h];
        }
    }
    if (f->nholders == 0) /* an empty FD: any rank, at no cost */
        f->holders[f->nholders++] = f->root;
    for (int k = 0; k < f->nholders; k++)
        f->hcost[f->holders[k]] = holder_cost(f, f->holders[k], c->fd_bytes[j]);
}

static void clear_holders(struct flow *f)
{
    for (int k = 0; k < f->nholders; k++)
        f->bsum[f->holders[k]] = 0;
    f->nholders = 0;
}

/* Relaxes FD x = j's holder arcs but the one it enters by: the ranks' first,
 * whose cost is their host's less the bytes they hold there (a free one
 * bounds the search at once), then the switches' and hosts'. */
static int relax_holders(struct flow *f, int x, int j)
{
    collect_tree_holders(f, j);
    int rc = 0;
    const struct cmatrix *c = f->c;
    for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1] && !rc; k++) {
        int v = f->V + c->row[k], h = vparent(f, v);
        if (v != f->entry[j])
            rc = relax(f, x, v, f->hcost[h] - f->delta[h] * c->cval[k]);
    }
    for (int k = 0; k < f->nholders && !rc; k++)
        if (f->holders[k] != f->entry[j])
            rc = relax(f, x, f->holders[k], f->hcost[f->holders[k]]);
    clear_holders(f);
    return rc;
}

/* ---- Dijkstra over the residual network ---- */

/* A vertex no nearer than the sink's tentative distance is not pushed: ties
 * go to the sink, so it would never be settled before the search ends. */
static bool beyond_sink(const struct flow *f, int64_t d)
{
    const struct vstate *s = &f->vs[f->sink];
    return s->seen == f->gen && d >= s->dist;
}

static int relax(struct flow *f, int x, int y, int64_t cost)
{
    struct vstate *s = &f->vs[y];
    if (s->done == f->gen)
        return 0;
    int64_t nd = f->vs[x].dist + cost + f->vs[x].pi - s->pi;
    if ((s->seen == f->gen && nd >= s->dist) || beyond_sink(f, nd))
        return 0;
    s->seen = f->gen;
    s->dist = nd;
    s->pred = x;
    s->in_cost = cost;
    int rc = heap_push(f, nd, y);
    /* A free rank's arc to the sink, taken now rather than when the rank is
     * settled: the sink's distance bounds the search from the start. */
    if (!rc && y >= f->V && y < f->V + f->p && !f->used[y - f->V])
        rc = relax(f, y, f->sink, 0);
    return rc;
}

static int relax_entries(struct flow *f, int x)
{
    int rc = 0;
    for (int k = f->ent_head[x]; k >= 0 && !rc; k = f->ent_next[k])
        rc = relax(f, x, f->V + f->p + k, -f->entry_cost[k]);
    return rc;
}

static int expand(struct flow *f, int x)
{
    int rc = 0;
    if (x >= f->V + f->p) { /* an FD: its unused holder arcs */
        int j = x - f->V - f->p;
        return relax_holders(f, x, j);
    }
    if (x >= f->V) { /* a rank */
        if (!f->used[x - f->V])
            rc = relax(f, x, f->sink, 0);
    } else {
        for (int k = f->cptr[x]; k < f->cptr[x + 1] && !rc; k++)
            rc = relax(f, x, f->cidx[k], 0);
    }
    if (!rc && f->flow_down[x] > 0 && vparent(f, x) >= 0)
        rc = relax(f, x, vparent(f, x), 0);
    return rc ? rc : relax_entries(f, x);
}

static int dijkstra(struct flow *f, int src)
{
    f->gen++;
    f->nheap = 0;
    f->nsettled = 0;
    f->vs[src].seen = f->gen;
    f->vs[src].dist = 0;
    f->vs[src].pred = -1;
    int rc = heap_push(f, 0, src);
    while (!rc && f->nheap) {
        struct heap_item it = heap_pop(f);
        if (f->vs[it.v].done == f->gen || it.d > f->vs[it.v].dist)
            continue;
        f->vs[it.v].done = f->gen;
        f->settled[f->nsettled++] = it.v;
        if (it.v == f->sink)
            return 0;
        f->bulk = f->nheap == 0;
        rc = expand(f, it.v);
        if (f->bulk)
            heapify(f);
        f->bulk = false;
    }
    return rc ? rc : tacio_fail(TACIO_EINVAL, "no free rank left for a file domain");
}

/* ---- augmentation and flow decomposition ---- */

static void entry_unlink(struct flow *f, int v, int k)
{
    int *link = &f->ent_head[v];
    while (*link != k)
        link = &f->ent_next[*link];
    *link = f->ent_next[k];
}

static void apply_arc(struct flow *f, int x, int y)
{
    int fd0 = f->V + f->p;
    if (y == f->sink)
        f->used[x - f->V] = 1;
    else if (x >= fd0) { /* FD -> holder: the FD now enters at y */
        int k = x - fd0;
        f->entry_cost[k] = f->vs[y].in_cost;
        f->entry[k] = y;
        f->ent_next[k] = f->ent_head[y];
        f->ent_head[y] = k;
    } else if (y >= fd0) /* holder -> FD: cancel that entry */
        entry_unlink(f, x, y - fd0);
    else if (vparent(f, y) == x)
        f->flow_down[y]++;
    else
        f->flow_down[x]--;
}

static void augment(struct flow *f)
{
    int n = 0;
    for (int v = f->sink; v >= 0; v = f->vs[v].pred)
        f->path[n++] = v;
    /* forward order, so a cancelled entry is unlinked before it is re-made */
    for (int i = n - 1; i > 0; i--)
        apply_arc(f, f->path[i], f->path[i - 1]);
    int64_t dsink = f->vs[f->sink].dist;
    for (int i = 0; i < f->nsettled; i++) {
        int v = f->settled[i];
        f->vs[v].pi += f->vs[v].dist - dsink;
    }
}

/* Route the units entering each vertex down the edges that carry flow. */
static int decompose(struct flow *f, int *agg)
{
    int *carry = malloc(sizeof(int) * (size_t)f->nv), *next = malloc(sizeof(int) * (size_t)f->a);
    int *queue = malloc(sizeof(int) * (size_t)f->nv);
    if (!carry || !next || !queue) {
        free(carry);
        free(next);
        free(queue);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    memset(carry, 0xff, sizeof(int) * (size_t)f->nv);
    for (int k = 0; k < f->a; k++) { /* each FD starts at its entry vertex */
        next[k] = carry[f->entry[k]];
        carry[f->entry[k]] = k;
    }
    int qn = 0, rc = 0;
    queue[qn++] = f->root;
    for (int qi = 0; qi < qn && !rc; qi++) {
        int x = queue[qi];
        if (x >= f->V) {
            if (carry[x] >= 0)
                agg[carry[x]] = x - f->V;
            continue;
        }
        for (int i = f->cptr[x]; i < f->cptr[x + 1]; i++) {
            int ch = f->cidx[i];
            queue[qn++] = ch;
            for (int u = 0; u < f->flow_down[ch]; u++) {
                int k = carry[x];
                if (k < 0) {
                    rc = tacio_fail(TACIO_EINVAL, "internal: flow decomposition lost a unit");
                    break;
                }
                carry[x] = next[k];
                next[k] = carry[ch];
                carry[ch] = k;
            }
        }
    }
    free(carry);
    free(next);
    free(queue);
    return rc;
}

static int build_children(struct flow *f)
{
    const struct tacio_topo *t = f->t;
    int *hptr, *hranks;
    int rc = topo_host_ranks(t, &hptr, &hranks);
    if (rc)
        return rc;
    f->cptr = xcalloc((size_t)f->V + 1, sizeof(int));
    f->cidx = malloc(sizeof(int) * (size_t)(f->V + f->p));
    int *host_of = malloc(sizeof(int) * (size_t)f->V);
    if (!f->cptr || !f->cidx || !host_of)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory for the flow network");
    for (int v = 0; !rc && v < f->V; v++)
        host_of[v] = -1;
    for (int h = 0; !rc && h < t->nhosts; h++)
        host_of[t->host_vert[h]] = h;
    for (int v = 0, n = 0; !rc && v < f->V; v++) {
        f->cptr[v] = n;
        for (int ch = t->first_child[v]; ch >= 0; ch = t->next_sibling[ch])
            f->cidx[n++] = ch;
        int h = host_of[v];
        if (h >= 0)
            for (int k = hptr[h]; k < hptr[h + 1]; k++)
                f->cidx[n++] = f->V + hranks[k];
        f->cptr[v + 1] = n;
    }
    free(hptr);
    free(hranks);
    free(host_of);
    return rc;
}

static int flow_init(struct flow *f)
{
    const struct tacio_topo *t = f->t;
    f->V = t->nverts;
    f->p = t->nprocs;
    f->a = f->c->a;
    f->nv = f->V + f->p + f->a + 1;
    f->sink = f->nv - 1;
    for (f->root = 0; t->parent[f->root] >= 0;)
        f->root = t->parent[f->root];
    int rc = build_children(f);
    if (rc)
        return rc;
    f->entry = malloc(sizeof(int) * (size_t)f->a);
    f->entry_cost = xcalloc((size_t)f->a, sizeof(int64_t));
    f->ent_head = malloc(sizeof(int) * (size_t)f->nv);
    f->ent_next = malloc(sizeof(int) * (size_t)f->a);
    f->flow_down = xcalloc((size_t)f->nv, sizeof(int));
    f->used = xcalloc((size_t)f->p, 1);
    f->vs = xcalloc((size_t)f->nv, sizeof *f->vs);
    f->settled = malloc(sizeof(int) * (size_t)f->nv);
    f->path = malloc(sizeof(int) * (size_t)f->nv);
    f->delta = malloc(sizeof(int64_t) * (size_t)f->V);
    f->bsum = xcalloc((size_t)f->V, sizeof(int64_t));
    f->hcost = malloc(sizeof(int64_t) * (size_t)f->V);
    f->holders = malloc(sizeof(int) * (size_t)f->V);
    if (!f->entry || !f->entry_cost || !f->ent_head || !f->ent_next || !f->flow_down || !f->used ||
        !f->vs || !f->settled || !f->path || !f->delta || !f->bsum || !f->hcost || !f->holders)
        return tacio_fail(TACIO_ENOMEM, "out of memory for the flow solver");
    memset(f->entry, 0xff, sizeof(int) * (size_t)f->a);
    memset(f->ent_head, 0xff, sizeof(int) * (size_t)f->nv);
    for (int v = 0; v < f->V; v++)
        f->delta[v] = f->latp ? 1 : topo_vertex_delta(t, v);
    return 0;
}

static void flow_free(struct flow *f)
{
    void *ptrs[] = {f->cptr,  f->cidx,       f->delta,    f->bsum,     f->hcost,     f->holders,
                    f->entry, f->entry_cost, f->ent_head, f->ent_next, f->flow_down, f->used,
                    f->vs,    f->settled,    f->heap,     f->path};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        free(ptrs[i]);
}

int assign_tree_flow(const struct tacio_topo *t, const struct cmatrix *c, bool latp, int *agg,
                     int64_t *total)
{
    if (!topo_has_tree(t) || (!latp && !t->uniform_depth))
        return tacio_fail(TACIO_EUNSUPPORTED, "the flow solver needs a tree with every host at "
                                              "one depth (use tacio_solver=dense)");
    if (c->a > t->nprocs)
        return tacio_fail(TACIO_EINVAL, "%d file domains but only %d ranks to serve them", c->a,
                          t->nprocs);
    struct flow f = {.t = t, .c = c, .latp = latp};
    int rc = flow_init(&f);
    for (int j = 0; !rc && j < f.a; j++) {
        rc = dijkstra(&f, f.V + f.p + j);
        if (!rc)
            augment(&f);
    }
    if (!rc)
        rc = decompose(&f, agg);
    *total = 0;
    for (int j = 0; !rc && j < f.a; j++)
        *total += f.entry_cost[j];
    flow_free(&f);
    return rc;
}
