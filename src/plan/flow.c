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
    const struct comm *c;
    bool latp;
    int V, p, a, nv, sink, root;
    int *cptr, *cidx;            /* tree vertex -> children: switches' vertices, hosts' ranks */
    int64_t *arc_ptr, *arc_cost; /* FD j's holder arcs */
    int *arc_v;
    int *entry; /* FD -> holder it enters by, or -1 */
    int64_t *entry_cost;
    int *ent_head, *ent_next; /* per vertex: FDs entering there */
    int *flow_down;           /* per vertex: units on the edge from its parent */
    char *used;               /* rank already an aggregator */
    int64_t *pi, *dist;
    int *pred;
    unsigned *seen, *done, gen;
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
    if (x >= f->V)
        return 0;
    return f->latp ? 1 : topo_vertex_delta(f->t, x);
}

/* ---- binary heap of (distance, vertex), stale entries skipped on pop ---- */

static int heap_push(struct flow *f, int64_t d, int v)
{
    int rc = grow_array((void **)&f->heap, sizeof *f->heap, f->nheap + 1, &f->heap_cap);
    if (rc)
        return rc;
    int64_t i = f->nheap++;
    while (i > 0 && f->heap[(i - 1) / 2].d > d) {
        f->heap[i] = f->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    f->heap[i] = (struct heap_item){d, v};
    return 0;
}

static struct heap_item heap_pop(struct flow *f)
{
    struct heap_item top = f->heap[0], last = f->heap[--f->nheap];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= f->nheap)
            break;
        if (c + 1 < f->nheap && f->heap[c + 1].d < f->heap[c].d)
            c++;
        if (f->heap[c].d >= last.d)
            break;
        f->heap[i] = f->heap[c];
        i = c;
    }
    if (f->nheap)
        f->heap[i] = last;
    return top;
}

/* ---- holder arcs ---- */

struct holder_scratch {
    int64_t *bsum;
    int *touched, ntouched;
};

static int64_t holder_cost(const struct flow *f, const struct holder_scratch *hs, int v, int64_t tj)
{
    int64_t saving = 0;
    for (int u = v; u != f->root; u = vparent(f, u))
        saving += (vdelta(f, vparent(f, u)) - vdelta(f, u)) * hs->bsum[u];
    return vdelta(f, f->root) * tj - saving;
}

static void collect_holders(struct flow *f, int j, struct holder_scratch *hs)
{
    const struct comm *c = f->c;
    for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++)
        for (int u = f->V + c->row[k]; u >= 0; u = vparent(f, u)) {
            if (hs->bsum[u] == 0)
                hs->touched[hs->ntouched++] = u;
            hs->bsum[u] += c->cval[k];
        }
}

static int build_arcs(struct flow *f)
{
    const struct comm *c = f->c;
    int64_t cap = c->nnz * (f->t->host_depth + 2) + c->a + 1;
    f->arc_ptr = malloc(sizeof(int64_t) * ((size_t)c->a + 1));
    f->arc_v = malloc(sizeof(int) * (size_t)cap);
    f->arc_cost = malloc(sizeof(int64_t) * (size_t)cap);
    struct holder_scratch hs = {xcalloc((size_t)f->nv, sizeof(int64_t)),
                                malloc(sizeof(int) * (size_t)f->nv), 0};
    if (!f->arc_ptr || !f->arc_v || !f->arc_cost || !hs.bsum || !hs.touched) {
        free(hs.bsum);
        free(hs.touched);
        return tacio_fail(TACIO_ENOMEM, "out of memory for the flow network");
    }
    int64_t n = 0;
    for (int j = 0; j < c->a; j++) {
        f->arc_ptr[j] = n;
        collect_holders(f, j, &hs);
        if (hs.ntouched == 0) { /* an empty FD: any rank, at no cost */
            f->arc_v[n] = f->root;
            f->arc_cost[n++] = 0;
        }
        for (int k = 0; k < hs.ntouched; k++) {
            f->arc_v[n] = hs.touched[k];
            f->arc_cost[n++] = holder_cost(f, &hs, hs.touched[k], c->fd_bytes[j]);
        }
        for (int k = 0; k < hs.ntouched; k++)
            hs.bsum[hs.touched[k]] = 0;
        hs.ntouched = 0;
    }
    f->arc_ptr[c->a] = n;
    free(hs.bsum);
    free(hs.touched);
    return 0;
}

/* ---- Dijkstra over the residual network ---- */

static int relax(struct flow *f, int x, int y, int64_t cost)
{
    if (f->done[y] == f->gen)
        return 0;
    int64_t nd = f->dist[x] + cost + f->pi[x] - f->pi[y];
    if (f->seen[y] == f->gen && nd >= f->dist[y])
        return 0;
    f->seen[y] = f->gen;
    f->dist[y] = nd;
    f->pred[y] = x;
    return heap_push(f, nd, y);
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
        for (int64_t k = f->arc_ptr[j]; k < f->arc_ptr[j + 1] && !rc; k++)
            if (f->arc_v[k] != f->entry[j])
                rc = relax(f, x, f->arc_v[k], f->arc_cost[k]);
        return rc;
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
    f->seen[src] = f->gen;
    f->dist[src] = 0;
    f->pred[src] = -1;
    int rc = heap_push(f, 0, src);
    while (!rc && f->nheap) {
        struct heap_item it = heap_pop(f);
        if (f->done[it.v] == f->gen || it.d > f->dist[it.v])
            continue;
        f->done[it.v] = f->gen;
        f->settled[f->nsettled++] = it.v;
        if (it.v == f->sink)
            return 0;
        rc = expand(f, it.v);
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
        for (int64_t a = f->arc_ptr[k]; a < f->arc_ptr[k + 1]; a++)
            if (f->arc_v[a] == y)
                f->entry_cost[k] = f->arc_cost[a];
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
    for (int v = f->sink; v >= 0; v = f->pred[v])
        f->path[n++] = v;
    /* forward order, so a cancelled entry is unlinked before it is re-made */
    for (int i = n - 1; i > 0; i--)
        apply_arc(f, f->path[i], f->path[i - 1]);
    int64_t dsink = f->dist[f->sink];
    for (int i = 0; i < f->nsettled; i++) {
        int v = f->settled[i];
        f->pi[v] += f->dist[v] - dsink;
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
    f->pi = xcalloc((size_t)f->nv, sizeof(int64_t));
    f->dist = malloc(sizeof(int64_t) * (size_t)f->nv);
    f->pred = malloc(sizeof(int) * (size_t)f->nv);
    f->seen = xcalloc((size_t)f->nv, sizeof(unsigned));
    f->done = xcalloc((size_t)f->nv, sizeof(unsigned));
    f->settled = malloc(sizeof(int) * (size_t)f->nv);
    f->path = malloc(sizeof(int) * (size_t)f->nv);
    if (!f->entry || !f->entry_cost || !f->ent_head || !f->ent_next || !f->flow_down || !f->used ||
        !f->pi || !f->dist || !f->pred || !f->seen || !f->done || !f->settled || !f->path)
        return tacio_fail(TACIO_ENOMEM, "out of memory for the flow solver");
    memset(f->entry, 0xff, sizeof(int) * (size_t)f->a);
    memset(f->ent_head, 0xff, sizeof(int) * (size_t)f->nv);
    return build_arcs(f);
}

static void flow_free(struct flow *f)
{
    void *ptrs[] = {f->cptr,  f->cidx,       f->arc_ptr,  f->arc_cost, f->arc_v,
                    f->entry, f->entry_cost, f->ent_head, f->ent_next, f->flow_down,
                    f->used,  f->pi,         f->dist,     f->pred,     f->seen,
                    f->done,  f->settled,    f->heap,     f->path};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        free(ptrs[i]);
}

int assign_tree_flow(const struct tacio_topo *t, const struct comm *c, bool latp, int *agg,
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
