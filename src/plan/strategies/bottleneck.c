/* bottleneck: ROMIO's file domains and aggregators (the cb_config_list
 * ranks), with the FDs assigned to them so that the most loaded link of the
 * tree carries as few bytes as possible, hop-bytes breaking ties. TATP
 * minimises the sum of hop-bytes, which is not the congestion its own
 * section 4 worries about: on btio at 625 ranks it cuts hop-bytes 2% and
 * triples the busiest link. None of the four papers minimises the busiest
 * link; this strategy does.
 *
 * The problem (min over one-to-one assignments of the max link load, each
 * direction of a link on its own) is NP-hard in general. The solver:
 *   - exact by branch and bound when it finishes within BB_BUDGET nodes
 *     (small jobs: about ten FDs);
 *   - otherwise multiplicative weights: solve the assignment LAP with each
 *     link's cost weighted by exp(load / max load) of the previous solution,
 *     EXP_ROUNDS times, keep the best, then local search (moves and swaps);
 *     ROMIO's own assignment and the unweighted (hop-bytes) one are among
 *     the starts, so the result is never worse than either on the busiest
 *     link;
 *   - always a lower bound: for each link, the least it can carry given how
 *     many aggregators lie below it (below). The plan's detail reports the
 *     bound and max/bound, a certificate: the result is within that factor
 *     of the optimum (1.00: optimal). */
#include "../strategy.h"

#include <math.h>
#include <string.h>

#define BB_BUDGET 2000000 /* branch-and-bound nodes before the heuristic takes over */
#define EXP_ROUNDS 40
#define LAP_MAX_CELLS (1 << 20)     /* FDs x candidate hosts solved with the dense LAP */
#define SEARCH_MAX_WORK 400000000LL /* link visits the local search may spend */
#define BOUND_MAX_CELLS (1 << 24)   /* links x FDs the lower bound may hold */

struct bn {
    const struct tacio_topo *t;
    int a, nv;        /* FDs, tree vertices */
    int nu;           /* candidate hosts (hosts of the cb_config_list ranks) */
    int *host_u;      /* topology host -> candidate host, -1 if none */
    int *u_vert;      /* candidate host -> its vertex */
    int *u_cap;       /* aggregator slots on it */
    int *fv_ptr;      /* FD j's loaded vertices: fv[fv_ptr[j] .. fv_ptr[j+1]) */
    int *fv;          /* vertex (never the root: it has no link) */
    int64_t *fin;     /* bytes of FD j held below that vertex */
    int64_t *tot;     /* FD j's bytes */
    int64_t *up, *dn; /* link loads of the current assignment, per vertex */
    int *stamp, clock;
    int64_t *inv; /* scratch: in_j(v) of the FD being moved */
};

struct score {
    int64_t max, hop; /* busiest link; bytes x links (hop-bytes between hosts) */
};

static bool better(struct score x, struct score y)
{
    return x.max < y.max || (x.max == y.max && x.hop < y.hop);
}

/* ---- loads ---- */

static void mark_path(struct bn *b, int vert)
{
    b->clock++;
    for (int v = vert; v >= 0 && b->t->parent[v] >= 0; v = b->t->parent[v])
        b->stamp[v] = b->clock;
}

/* Add (sign 1) or remove (-1) FD j at candidate host u: the holders below a
 * link that does not lead to u send up it; the path to u carries down what
 * is not already below each of its links. */
static void apply(struct bn *b, int j, int u, int sign)
{
    mark_path(b, b->u_vert[u]);
    for (int k = b->fv_ptr[j]; k < b->fv_ptr[j + 1]; k++) {
        b->inv[b->fv[k]] = b->fin[k];
        if (b->stamp[b->fv[k]] != b->clock)
            b->up[b->fv[k]] += sign * b->fin[k];
    }
    for (int v = b->u_vert[u]; b->t->parent[v] >= 0; v = b->t->parent[v])
        b->dn[v] += sign * (b->tot[j] - b->inv[v]);
    for (int k = b->fv_ptr[j]; k < b->fv_ptr[j + 1]; k++)
        b->inv[b->fv[k]] = 0;
}

static struct score score_of(const struct bn *b)
{
    struct score s = {0, 0};
    for (int v = 0; v < b->nv; v++) {
        s.max = max64(s.max, max64(b->up[v], b->dn[v]));
        s.hop += b->up[v] + b->dn[v];
    }
    return s;
}

static struct score load_all(struct bn *b, const int *host_of)
{
    memset(b->up, 0, sizeof(int64_t) * (size_t)b->nv);
    memset(b->dn, 0, sizeof(int64_t) * (size_t)b->nv);
    for (int j = 0; j < b->a; j++)
        apply(b, j, host_of[j], 1);
    return score_of(b);
}

/* ---- setup: candidate hosts and each FD's bytes below each vertex ---- */

static int setup_candidates(struct bn *b, const int *list, int n)
{
    const struct tacio_topo *t = b->t;
    b->host_u = malloc(sizeof(int) * (size_t)t->nhosts);
    b->u_vert = malloc(sizeof(int) * (size_t)n);
    b->u_cap = xcalloc((size_t)n, sizeof(int));
    if (!b->host_u || !b->u_vert || !b->u_cap)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int h = 0; h < t->nhosts; h++)
        b->host_u[h] = -1;
    for (int i = 0; i < n; i++) {
        int h = t->rank_host[list[i]];
        if (b->host_u[h] < 0) {
            b->host_u[h] = b->nu;
            b->u_vert[b->nu++] = t->host_vert[h];
        }
        b->u_cap[b->host_u[h]]++;
    }
    return 0;
}

static int setup_fds(struct bn *b, const struct cmatrix *c)
{
    const struct tacio_topo *t = b->t;
    int64_t cap = 0, n = 0; /* fv's and fin's capacity, entries */
    int *touched = malloc(sizeof(int) * (size_t)b->nv);
    int64_t *acc = xcalloc((size_t)b->nv, sizeof(int64_t));
    b->fv_ptr = malloc(sizeof(int) * ((size_t)b->a + 1));
    b->tot = malloc(sizeof(int64_t) * (size_t)b->a);
    int rc = touched && acc && b->fv_ptr && b->tot ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int j = 0; !rc && j < b->a; j++) {
        int nt = 0;
        b->fv_ptr[j] = (int)n;
        b->tot[j] = c->fd_bytes[j];
        for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++)
            for (int v = t->host_vert[t->rank_host[c->row[k]]]; t->parent[v] >= 0;
                 v = t->parent[v]) {
                if (!acc[v])
                    touched[nt++] = v;
                acc[v] += c->cval[k];
            }
        int64_t cap_fin = cap; /* fv and fin grow together */
        if (!rc && (grow_array((void **)&b->fv, sizeof(int), n + nt, &cap) ||
                    grow_array((void **)&b->fin, sizeof(int64_t), n + nt, &cap_fin)))
            rc = TACIO_ENOMEM;
        for (int i = 0; !rc && i < nt; i++) {
            b->fv[n] = touched[i];
            b->fin[n++] = acc[touched[i]];
            acc[touched[i]] = 0;
        }
    }
    if (!rc)
        b->fv_ptr[b->a] = (int)n;
    free(touched);
    free(acc);
    return rc;
}

static void bn_free(struct bn *b)
{
    free(b->host_u);
    free(b->u_vert);
    free(b->u_cap);
    free(b->fv_ptr);
    free(b->fv);
    free(b->fin);
    free(b->tot);
    free(b->up);
    free(b->dn);
    free(b->stamp);
    free(b->inv);
}

/* ---- the lower bound ---- */

static int cmp_desc64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_asc64(const void *x, const void *y)
{
    return -cmp_desc64(x, y);
}

/* Link v with s of the S aggregator slots below it: k of the a FDs go
 * below, k between max(0, a - (S - s)) and min(a, s). Up the link goes at
 * least what the a - k FDs left above hold below (least when the k below
 * are those holding most below); down at least the k smallest "bytes from
 * above". Each direction's least is reached by its own choice of k FDs, so
 * max(up, down) at the best k bounds any assignment from below. */
static int64_t link_bound(int64_t *in_desc, int64_t *out_asc, int a, int kmin, int kmax)
{
    int64_t in_total = 0, best = INT64_MAX, in_top = 0, out_low = 0;
    for (int j = 0; j < a; j++)
        in_total += in_desc[j];
    for (int k = 0; k <= kmax; k++) {
        if (k >= kmin)
            best = min64(best, max64(in_total - in_top, out_low));
        if (k < a) {
            in_top += in_desc[k];
            out_low += out_asc[k];
        }
    }
    return best == INT64_MAX ? 0 : best;
}

/* The least the busiest link carries over every assignment of these FDs
 * to these slots, in bytes; and *secs, the least time the slowest link
 * takes at the hints' rates (each link's bound over its own rate): no
 * assignment's exchange is faster. */
static int64_t lower_bound(struct bn *b, const struct tacio_hints *h, double *secs)
{
    *secs = 0;
    if ((int64_t)b->nv * b->a > BOUND_MAX_CELLS)
        return -1; /* not computed: the detail says so */
    int nslots = 0, *below = xcalloc((size_t)b->nv, sizeof(int));
    int64_t *in = xcalloc((size_t)b->nv * (size_t)b->a, sizeof(int64_t));
    int64_t *out = malloc(sizeof(int64_t) * (size_t)b->a), lb = 0;
    if (!below || !in || !out) { /* no bound is still a bound */
        free(below);
        free(in);
        free(out);
        return 0;
    }
    for (int u = 0; u < b->nu; u++) {
        nslots += b->u_cap[u];
        for (int v = b->u_vert[u]; b->t->parent[v] >= 0; v = b->t->parent[v])
            below[v] += b->u_cap[u];
    }
    for (int j = 0; j < b->a; j++)
        for (int k = b->fv_ptr[j]; k < b->fv_ptr[j + 1]; k++)
            in[(size_t)b->fv[k] * (size_t)b->a + (size_t)j] = b->fin[k];
    for (int v = 0; v < b->nv; v++) {
        if (b->t->parent[v] < 0)
            continue;
        int64_t *iv = in + (size_t)v * (size_t)b->a;
        for (int j = 0; j < b->a; j++)
            out[j] = b->tot[j] - iv[j];
        qsort(iv, (size_t)b->a, sizeof(int64_t), cmp_desc64);
        qsort(out, (size_t)b->a, sizeof(int64_t), cmp_asc64);
        int kmin = (int)max64(0, b->a - (nslots - below[v])), kmax = (int)min64(b->a, below[v]);
        int64_t lv = link_bound(iv, out, b->a, kmin, kmax);
        lb = max64(lb, lv);
        *secs = fmax(*secs, (double)lv / plan_link_rate(b->t, h, v));
    }
    free(below);
    free(in);
    free(out);
    return lb;
}

/* ---- exact: branch and bound ---- */

struct bb {
    struct bn *b;
    int *order, *host_of, *best_host, *left;
    struct score best;
    int64_t nodes;
};

/* FDs in order of size, largest first: big ones decide the busiest link. */
static void bb_visit(struct bb *s, int depth)
{
    struct bn *b = s->b;
    if (++s->nodes > BB_BUDGET)
        return;
    struct score now = score_of(b); /* loads only grow as FDs are added */
    if (!better(now, s->best))
        return;
    if (depth == b->a) {
        s->best = now;
        memcpy(s->best_host, s->host_of, sizeof(int) * (size_t)b->a);
        return;
    }
    int j = s->order[depth];
    for (int u = 0; u < b->nu && s->nodes <= BB_BUDGET; u++) {
        if (!s->left[u])
            continue;
        s->left[u]--;
        s->host_of[j] = u;
        apply(b, j, u, 1);
        bb_visit(s, depth + 1);
        apply(b, j, u, -1);
        s->left[u]++;
    }
}

/* The FDs by size, largest first (insertion sort: B&B runs on few FDs). */
static void by_size(const struct bn *b, int *order)
{
    for (int i = 0; i < b->a; i++) {
        int j = i;
        for (; j > 0 && b->tot[order[j - 1]] < b->tot[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

/* Improves *best (host per FD) to the optimum when the search ends within
 * the budget; returns whether it did. */
static int exact(struct bn *b, int *best_host, struct score *best)
{
    struct bb s = {
        b,         malloc(sizeof(int) * (size_t)b->a),  malloc(sizeof(int) * (size_t)b->a),
        best_host, malloc(sizeof(int) * (size_t)b->nu), *best,
        0};
    int done = 0;
    if (s.order && s.host_of && s.left) {
        memcpy(s.left, b->u_cap, sizeof(int) * (size_t)b->nu);
        by_size(b, s.order);
        memset(b->up, 0, sizeof(int64_t) * (size_t)b->nv);
        memset(b->dn, 0, sizeof(int64_t) * (size_t)b->nv);
        bb_visit(&s, 0);
        *best = s.best;
        done = s.nodes <= BB_BUDGET;
    }
    free(s.order);
    free(s.host_of);
    free(s.left);
    return done;
}

/* ---- heuristic: weighted LAPs, then local search ---- */

/* What FD j weighs on each candidate host: the weighted loads it adds. */
static void weigh_fd(struct bn *b, int j, const double *w_up, const double *w_dn, double *row)
{
    double base = 0;
    for (int k = b->fv_ptr[j]; k < b->fv_ptr[j + 1]; k++) {
        base += w_up[b->fv[k]] * (double)b->fin[k];
        b->inv[b->fv[k]] = b->fin[k];
    }
    for (int u = 0; u < b->nu; u++) {
        row[u] = base;
        for (int v = b->u_vert[u]; b->t->parent[v] >= 0; v = b->t->parent[v])
            row[u] += w_dn[v] * (double)(b->tot[j] - b->inv[v]) - w_up[v] * (double)b->inv[v];
    }
    for (int k = b->fv_ptr[j]; k < b->fv_ptr[j + 1]; k++)
        b->inv[b->fv[k]] = 0;
}

/* The LAP over FDs x aggregator slots with each direction of each link
 * weighted (all weights 1: hop-bytes between hosts). */
static int weighted_lap(struct bn *b, const double *w_up, const double *w_dn, int *host_of)
{
    int nslots = 0;
    for (int u = 0; u < b->nu; u++)
        nslots += b->u_cap[u];
    double *w = malloc(sizeof(double) * (size_t)b->a * (size_t)b->nu), top = 0;
    int64_t *cost = malloc(sizeof(int64_t) * (size_t)b->a * (size_t)nslots), total;
    int *slot_u = malloc(sizeof(int) * (size_t)nslots), *r2c = malloc(sizeof(int) * (size_t)b->a);
    int rc = w && cost && slot_u && r2c ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int u = 0, s = 0; !rc && u < b->nu; u++)
        for (int k = 0; k < b->u_cap[u]; k++)
            slot_u[s++] = u;
    for (int j = 0; !rc && j < b->a; j++) {
        weigh_fd(b, j, w_up, w_dn, w + (size_t)j * (size_t)b->nu);
        for (int u = 0; u < b->nu; u++)
            top = fmax(top, w[(size_t)j * (size_t)b->nu + (size_t)u]);
    }
    double scale = top > 0 ? 1e12 / top : 1; /* int64 costs whose sums stay far from overflow */
    for (int j = 0; !rc && j < b->a; j++)
        for (int s = 0; s < nslots; s++)
            cost[(size_t)j * (size_t)nslots + (size_t)s] =
                llround(w[(size_t)j * (size_t)b->nu + (size_t)slot_u[s]] * scale);
    if (!rc)
        rc = lap_dense(b->a, nslots, cost, r2c, &total);
    for (int j = 0; !rc && j < b->a; j++)
        host_of[j] = slot_u[r2c[j]];
    free(w);
    free(cost);
    free(slot_u);
    free(r2c);
    return rc;
}

/* Multiplicative weights: each round's busiest links weigh more in the
 * next round's LAP (the first round, all weights 1, minimises hop-bytes). */
static int reweigh(struct bn *b, int *best_host, struct score *best)
{
    double *w_up = malloc(sizeof(double) * (size_t)b->nv);
    double *w_dn = malloc(sizeof(double) * (size_t)b->nv);
    int *host_of = malloc(sizeof(int) * (size_t)b->a);
    int rc = w_up && w_dn && host_of ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int v = 0; !rc && v < b->nv; v++)
        w_up[v] = w_dn[v] = 1;
    for (int round = 0; !rc && round < EXP_ROUNDS; round++) {
        if ((rc = weighted_lap(b, w_up, w_dn, host_of)))
            break;
        struct score s = load_all(b, host_of);
        if (better(s, *best)) {
            *best = s;
            memcpy(best_host, host_of, sizeof(int) * (size_t)b->a);
        }
        double top = 0;
        for (int v = 0; s.max > 0 && v < b->nv; v++) {
            w_up[v] *= exp((double)b->up[v] / (double)s.max);
            w_dn[v] *= exp((double)b->dn[v] / (double)s.max);
            top = fmax(top, fmax(w_up[v], w_dn[v]));
        }
        for (int v = 0; top > 0 && v < b->nv; v++) { /* keep the weights in range */
            w_up[v] /= top;
            w_dn[v] /= top;
        }
    }
    free(w_up);
    free(w_dn);
    free(host_of);
    return rc;
}

/* Try FD j on host u (a move) or FDs j and k exchanged (a swap); keep the
 * change only if the score improves. */
static bool try_move(struct bn *b, int *host_of, int j, int u, struct score *cur)
{
    int was = host_of[j];
    apply(b, j, was, -1);
    apply(b, j, u, 1);
    struct score s = score_of(b);
    if (better(s, *cur)) {
        host_of[j] = u;
        *cur = s;
        return true;
    }
    apply(b, j, u, -1);
    apply(b, j, was, 1);
    return false;
}

static bool try_swap(struct bn *b, int *host_of, int j, int k, struct score *cur)
{
    int hj = host_of[j], hk = host_of[k];
    apply(b, j, hj, -1);
    apply(b, k, hk, -1);
    apply(b, j, hk, 1);
    apply(b, k, hj, 1);
    struct score s = score_of(b);
    if (better(s, *cur)) {
        host_of[j] = hk;
        host_of[k] = hj;
        *cur = s;
        return true;
    }
    apply(b, j, hk, -1);
    apply(b, k, hj, -1);
    apply(b, j, hj, 1);
    apply(b, k, hk, 1);
    return false;
}

/* Moves to free slots and pairwise swaps until none improves (or the work
 * budget is spent: each trial costs one pass over the links). */
static void local_search(struct bn *b, int *host_of, struct score *cur)
{
    int *used = xcalloc((size_t)b->nu, sizeof(int));
    if (!used)
        return;
    *cur = load_all(b, host_of);
    for (int j = 0; j < b->a; j++)
        used[host_of[j]]++;
    int64_t work = 0, per_trial = b->nv + 1;
    for (bool improved = true; improved && work < SEARCH_MAX_WORK;) {
        improved = false;
        for (int j = 0; j < b->a && work < SEARCH_MAX_WORK; j++)
            for (int u = 0; u < b->nu && work < SEARCH_MAX_WORK; u++, work += per_trial) {
                int was = host_of[j];
                if (u != was && used[u] < b->u_cap[u] && try_move(b, host_of, j, u, cur)) {
                    used[was]--;
                    used[u]++;
                    improved = true;
                }
            }
        for (int j = 0; j < b->a && work < SEARCH_MAX_WORK; j++)
            for (int k = j + 1; k < b->a && work < SEARCH_MAX_WORK; k++, work += per_trial)
                if (host_of[j] != host_of[k] && try_swap(b, host_of, j, k, cur))
                    improved = true;
    }
    free(used);
}

/* ---- the strategy ---- */

/* Each FD's rank on its host: of the host's free aggregator slots (the
 * list's ranks on it), the rank holding most of the FD (hop-bytes inside
 * the host). */
static int ranks_of(const struct bn *b, const struct cmatrix *c, const int *list, int n,
                    const int *host_of, int *agg)
{
    int *first = malloc(sizeof(int) * (size_t)b->nu), *next = malloc(sizeof(int) * (size_t)n);
    char *taken = xcalloc((size_t)n, 1);
    int rc = first && next && taken ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int u = 0; !rc && u < b->nu; u++)
        first[u] = -1;
    for (int i = n - 1; !rc && i >= 0; i--) { /* each host's slots, in list order */
        int u = b->host_u[b->t->rank_host[list[i]]];
        next[i] = first[u];
        first[u] = i;
    }
    for (int j = 0; !rc && j < b->a; j++) {
        int pick = -1;
        int64_t most = -1;
        for (int i = first[host_of[j]]; i >= 0; i = next[i]) {
            if (taken[i])
                continue;
            int64_t held = 0;
            for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++)
                held += c->row[k] == list[i] ? c->cval[k] : 0;
            if (held > most) {
                most = held;
                pick = i;
            }
        }
        taken[pick] = 1;
        agg[j] = list[pick];
    }
    free(first);
    free(next);
    free(taken);
    return rc;
}

static int solve(struct bn *b, const int *list, int n, int *best_host, bool *optimal)
{
    struct score best;
    for (int j = 0; j < b->a; j++) /* ROMIO's assignment: FD j to the j-th slot */
        best_host[j] = b->host_u[b->t->rank_host[list[j % n]]];
    best = load_all(b, best_host);
    int rc = (int64_t)b->a * b->nu <= LAP_MAX_CELLS ? reweigh(b, best_host, &best) : 0;
    if (!rc)
        local_search(b, best_host, &best);
    *optimal = !rc && b->a <= 12 && exact(b, best_host, &best);
    return rc;
}

int assign_bottleneck(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                      struct tacio_plan *plan)
{
    if (!topo_has_tree(ctx->topo)) { /* no links to balance: ROMIO's assignment */
        snprintf(plan->detail, sizeof plan->detail, "no tree (dist: topology): romio's assignment");
        return assign_ranklist(ctx, part, c, plan);
    }
    int *list, n = romio_ranklist(ctx, &list);
    if (n < 0)
        return n;
    struct bn b = {.t = ctx->topo, .a = part->n, .nv = ctx->topo->nverts};
    b.up = malloc(sizeof(int64_t) * (size_t)b.nv);
    b.dn = malloc(sizeof(int64_t) * (size_t)b.nv);
    b.stamp = xcalloc((size_t)b.nv, sizeof(int));
    b.inv = xcalloc((size_t)b.nv, sizeof(int64_t));
    int *best_host = malloc(sizeof(int) * (size_t)(b.a ? b.a : 1));
    int rc = b.up && b.dn && b.stamp && b.inv && best_host
                 ? 0
                 : tacio_fail(TACIO_ENOMEM, "out of memory");
    bool optimal = false;
    if (!rc && !(rc = setup_candidates(&b, list, n)) && !(rc = setup_fds(&b, c)))
        rc = solve(&b, list, n, best_host, &optimal);
    if (!rc)
        rc = ranks_of(&b, c, list, n, best_host, plan->agg);
    if (!rc) {
        struct score s = load_all(&b, best_host);
        double secs;
        int64_t lb = lower_bound(&b, ctx->h, &secs);
        int at = snprintf(plan->detail, sizeof plan->detail, "solver=%s max_link=%lld",
                          optimal ? "exact" : "search", (long long)s.max);
        if (lb >= 0) /* max / bound: the result is within this factor of the optimum */
            snprintf(plan->detail + at, sizeof plan->detail - (size_t)at,
                     " lower_bound=%lld ratio=%.3f link_seconds_bound=%.6g", (long long)lb,
                     lb > 0 ? (double)s.max / (double)lb : 1.0, secs);
    }
    bn_free(&b);
    free(best_host);
    free(list);
    return rc;
}

const struct tacio_strategy strategy_bottleneck = {
    .name = "bottleneck",
    .summary = "ROMIO's FDs and aggregators, assignment minimising the busiest link (hop-bytes "
               "break ties)",
    .partition = partition_romio,
    .assign = assign_bottleneck,
    .auto_candidate = true,
};
