/* cuts: the file domains' boundaries searched as well as their aggregators.
 * Every paper keeps ROMIO's even split (MCCIO aside) and moves only the
 * aggregators. cuts plans ROMIO's aggregator slots (the cb_config_list
 * ranks) on four partitions of the file into as many contiguous FDs:
 *   even      ROMIO's split of [min, max];
 *   bytes     equal bytes per FD (files with holes, uneven density);
 *   even+cut, bytes+cut  each boundary moved, within half an FD, to
 *             where the hosts holding the data change most (where one set
 *             of ranks' slab ends, a host's run of segments);
 * every boundary on a stripe's edge when striping_unit is set;
 * assigns each as bottleneck does (the busiest link) and keeps the one the
 * cost model rates fastest. Its detail certifies the result: the busiest
 * link's seconds beside a lower bound over every partition of the file
 * into contiguous FDs placed on those slots, in any assignment
 * (partition_bound below). */
#include "../strategy.h"

#include <math.h>
#include <string.h>

/* How finely the file is cut into bins to see who holds what where: about
 * BINS_PER_FD per FD, within [BINS_MIN, BINS_MAX], and at most WORK_MAX
 * prefix queries (ranks x bins) or CELLS_MAX counts (vertices x bins). A
 * coarser cut weakens the bound and the boundaries' placement, never
 * their validity. */
#define BINS_PER_FD 32
#define BINS_MIN 64
#define BINS_MAX 8192
#define WORK_MAX (1LL << 26)
#define CELLS_MAX (1LL << 23)

/* The file [lo, hi) in g bins of `width` bytes (the last may be shorter):
 * below[v * g + b] is the bytes of the ranks below tree vertex v in bin b
 * (a host's vertex: its ranks), total[b] every rank's. */
struct bins {
    int g, nv;
    int64_t lo, hi, width;
    int64_t *below, *total;
};

static int64_t bin_edge(const struct bins *bn, int b)
{
    return min64(bn->hi, bn->lo + bn->width * b);
}

static void bins_free(struct bins *bn)
{
    free(bn->below);
    free(bn->total);
    memset(bn, 0, sizeof *bn);
}

/* One rank's bytes per bin of its span, added to each vertex above it. */
static void bins_add_rank(struct bins *bn, const struct plan_ctx *ctx, int r)
{
    const struct tacio_pattern *pat = ctx->pat;
    const struct tacio_topo *t = ctx->topo;
    int64_t s0, s1;
    pat->ops->span(pat, r, &s0, &s1);
    if (s0 >= s1)
        return;
    int b0 = (int)((max64(s0, bn->lo) - bn->lo) / bn->width);
    int b1 = (int)min64(bn->g, ceil_div(min64(s1, bn->hi) - bn->lo, bn->width));
    int64_t prev = pat->ops->prefix(pat, r, bin_edge(bn, b0));
    for (int b = b0; b < b1; b++) {
        int64_t cur = pat->ops->prefix(pat, r, bin_edge(bn, b + 1)), bytes = cur - prev;
        prev = cur;
        bn->total[b] += bytes;
        for (int v = t->host_vert[t->rank_host[r]]; v >= 0 && t->parent[v] >= 0; v = t->parent[v])
            bn->below[(size_t)v * (size_t)bn->g + (size_t)b] += bytes;
    }
}

/* The bins for a partition into nfd FDs; *ok false when the job is too
 * large to bin within the limits (or has no tree): no bound, no moved
 * boundaries. */
static int bins_build(const struct plan_ctx *ctx, int nfd, struct bins *bn, bool *ok)
{
    const struct tacio_topo *t = ctx->topo;
    memset(bn, 0, sizeof *bn);
    int64_t g = min64(BINS_MAX, max64(BINS_MIN, (int64_t)BINS_PER_FD * nfd));
    g = min64(g, min64(WORK_MAX / max64(1, ctx->pat->nprocs), CELLS_MAX / max64(1, t->nverts)));
    *ok = topo_has_tree(t) && g >= 16; /* coarser says nothing */
    g = min64(g, ctx->hi - ctx->lo);   /* bins of one byte at the finest */
    if (!*ok)
        return 0;
    bn->g = (int)g;
    bn->nv = t->nverts;
    bn->lo = ctx->lo;
    bn->hi = ctx->hi;
    bn->width = ceil_div(ctx->hi - ctx->lo, g);
    bn->below = xcalloc((size_t)bn->nv * (size_t)bn->g, sizeof(int64_t));
    bn->total = xcalloc((size_t)bn->g, sizeof(int64_t));
    if (!bn->below || !bn->total) {
        bins_free(bn);
        return tacio_fail(TACIO_ENOMEM, "out of memory for the file's bins");
    }
    for (int r = 0; r < ctx->pat->nprocs; r++)
        bins_add_rank(bn, ctx, r);
    return 0;
}

/* ---- the lower bound over all partitions ---- */

/* The most that s intervals of bins (the FDs placed below a link: an FD is
 * contiguous) can hold of own - lambda * other, where own is the bytes of
 * the ranks below the link and other everyone else's. An interval's first
 * and last bins count their own bytes whole and no other bytes (the FD may
 * begin or end anywhere inside them), its inner bins both: so this bounds
 * every true partition's value from above. Dynamic programming over the
 * bins: out[k] / in[k], k intervals begun, outside one / inside one. */
static double most_held(const int64_t *own, const int64_t *tot, int g, int s, double lambda,
                        double *out, double *in)
{
    for (int k = 0; k <= s; k++)
        out[k] = in[k] = -INFINITY;
    out[0] = 0;
    for (int b = 0; b < g; b++) {
        double f = (double)own[b], inner = f - lambda * (double)(tot[b] - own[b]);
        for (int k = s; k >= 0; k--) { /* descending: out[k - 1] is still the last bin's */
            double begin = k ? out[k - 1] + f : -INFINITY;
            double stay_in = fmax(in[k] + inner, begin);
            out[k] = fmax(fmax(out[k], in[k] + f), begin); /* skip, end here, one-bin FD */
            in[k] = stay_in;
        }
    }
    double best = 0;
    for (int k = 0; k <= s; k++)
        best = fmax(best, out[k]);
    return best;
}

/* The least the busier direction of one link carries over every partition
 * into contiguous FDs with at most s of them below it. Up goes what its
 * ranks hold outside those FDs (own - X), down what the others hold inside
 * (Y). For any lambda >= 0, X - lambda Y <= M(lambda) (most_held), so
 * max(own - X, Y) >= (own - M(lambda)) / (1 + lambda); the best lambda of
 * a geometric grid, refined, is taken. */
static double link_least(const struct bins *bn, int v, int s, double *out, double *in)
{
    const int64_t *own = bn->below + (size_t)v * (size_t)bn->g;
    double d = 0;
    for (int b = 0; b < bn->g; b++)
        d += (double)own[b];
    if (d == 0)
        return 0;
    double best = d - most_held(own, bn->total, bn->g, s, 0, out, in), at = -10;
    for (int e = -10; e <= 10; e++) { /* lambda = 2^e */
        double lb = (d - most_held(own, bn->total, bn->g, s, exp2(e), out, in)) / (1 + exp2(e));
        if (lb > best)
            best = lb, at = e;
    }
    for (double step = 0.5; step >= 0.125; step /= 2) /* refine around the best */
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            double l = exp2(at + sgn * step);
            double lb = (d - most_held(own, bn->total, bn->g, s, l, out, in)) / (1 + l);
            if (lb > best)
                best = lb, at += sgn * step;
        }
    return best;
}

/* The least time the slowest link takes over every partition of the file
 * into contiguous FDs, at most as many below each link as the aggregator
 * slots (list) there, in any assignment: each link's least load over its
 * rate (plan_link_rate), the slowest. */
static int partition_bound(const struct plan_ctx *ctx, const struct bins *bn, const int *list,
                           int n, double *secs)
{
    const struct tacio_topo *t = ctx->topo;
    int *slots = xcalloc((size_t)t->nverts, sizeof(int));
    double *out = malloc(sizeof(double) * ((size_t)n + 1));
    double *in = malloc(sizeof(double) * ((size_t)n + 1));
    int rc = slots && out && in ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int i = 0; !rc && i < n; i++)
        for (int v = t->host_vert[t->rank_host[list[i]]]; v >= 0; v = t->parent[v])
            slots[v]++;
    *secs = 0;
    for (int v = 0; !rc && v < t->nverts; v++)
        if (t->parent[v] >= 0)
            *secs =
                fmax(*secs, link_least(bn, v, slots[v], out, in) / plan_link_rate(t, ctx->h, v));
    free(slots);
    free(out);
    free(in);
    return rc;
}

/* ---- the candidate partitions ---- */

/* Equal bytes per FD: boundary j where the bytes below reach j/n of them,
 * taken as spread evenly inside its bin. */
static void cut_bytes(const struct bins *bn, struct partition *part)
{
    int n = part->n;
    int64_t all = 0, below = 0;
    for (int b = 0; b < bn->g; b++)
        all += bn->total[b];
    int64_t start = bn->lo;
    for (int j = 0, b = 0; j < n; j++) {
        int64_t want = (int64_t)((double)all * (j + 1) / n), end = bn->hi;
        for (; j < n - 1 && b < bn->g; b++) {
            if (below + bn->total[b] >= want) {
                double f = bn->total[b] ? (double)(want - below) / (double)bn->total[b] : 0;
                int64_t from = bin_edge(bn, b), to = bin_edge(bn, b + 1);
                end = from + (int64_t)(f * (double)(to - from));
                break;
            }
            below += bn->total[b];
        }
        end = max64(start, end);
        part->dom[j] = (struct fdom){start, end, 0, 0, 0};
        start = end;
    }
}

/* How much the hosts holding bin b-1 and bin b differ: half the L1
 * distance of their shares, 0 (same holders, same shares) to 1 (no host
 * in common). */
static double holders_change(const struct bins *bn, const struct tacio_topo *t, int b)
{
    double ta = (double)bn->total[b - 1], tb = (double)bn->total[b];
    if (ta == 0 || tb == 0)
        return ta == tb ? 0 : 1;
    double d = 0;
    for (int i = 0; i < t->nused_hosts; i++) {
        const int64_t *row = bn->below + (size_t)t->host_vert[t->used_hosts[i]] * (size_t)bn->g;
        d += fabs((double)row[b - 1] / ta - (double)row[b] / tb);
    }
    return d / 2;
}

/* Each inner boundary moved to the bin edge within half the narrower of
 * its two FDs where the holders change most, when they change by more
 * than half there; kept otherwise. */
static void cut_at_changes(const struct bins *bn, const struct tacio_topo *t,
                           struct partition *part)
{
    for (int j = 0; j + 1 < part->n; j++) {
        struct fdom *a = &part->dom[j], *z = &part->dom[j + 1];
        int64_t x = a->end, reach = min64(a->end - a->start, z->end - z->start) / 2;
        int lo = (int)ceil_div(max64(a->start, x - reach) - bn->lo, bn->width);
        int hi = (int)((min64(z->end, x + reach) - bn->lo) / bn->width);
        double most = 0.5;
        for (int b = max64(1, lo); b <= min64(hi, bn->g - 1); b++) {
            double c = holders_change(bn, t, b);
            if (c > most || (c == most && llabs(bin_edge(bn, b) - x) < llabs(a->end - x)))
                most = c, a->end = z->start = bin_edge(bn, b);
        }
    }
}

/* With striping_unit set, every inner boundary on a stripe's edge (the
 * nearest; ROMIO's rule for its even FDs): an FD never shares a stripe,
 * and so a storage target's lock, with its neighbour. */
static void cut_on_stripes(int64_t unit, struct partition *part)
{
    for (int j = 0; unit > 0 && j + 1 < part->n; j++) {
        struct fdom *a = &part->dom[j], *z = &part->dom[j + 1];
        int64_t front = a->end % unit;
        int64_t x = front < unit - front ? a->end - front : a->end + unit - front;
        a->end = z->start = max64(a->start, min64(x, z->end));
    }
}

enum { CUT_EVEN, CUT_BYTES, CUT_EVEN_MOVED, CUT_BYTES_MOVED, NCUTS };
static const char *const cut_names[NCUTS] = {"even", "bytes", "even+cut", "bytes+cut"};

/* Candidate `which`, from the bins (ok false: only even). */
static int cut(const struct plan_ctx *ctx, const struct bins *bn, bool ok, int which,
               struct partition *out)
{
    int rc = partition_romio(ctx, out);
    if (rc || !ok || ctx->pat->nfixed || which == CUT_EVEN)
        return rc;
    if (which == CUT_BYTES || which == CUT_BYTES_MOVED)
        cut_bytes(bn, out);
    if (which == CUT_EVEN_MOVED || which == CUT_BYTES_MOVED)
        cut_at_changes(bn, ctx->topo, out);
    cut_on_stripes(ctx->h->striping_unit, out);
    return 0;
}

/* ---- the strategy ---- */

static bool same_cuts(const struct partition *x, const struct partition *y)
{
    if (x->n != y->n)
        return false;
    for (int j = 0; j < x->n; j++)
        if (x->dom[j].start != y->dom[j].start || x->dom[j].end != y->dom[j].end)
            return false;
    return true;
}

/* Every candidate partition, once each: one equal to an earlier one is
 * left empty (n == 0; a candidate always has at least one FD). */
static int distinct_cuts(const struct plan_ctx *ctx, const struct bins *bn, bool ok,
                         struct partition *p)
{
    int rc = 0;
    for (int i = 0; i < NCUTS && !rc; i++) {
        rc = cut(ctx, bn, ok, i, &p[i]);
        for (int k = 0; k < i && !rc && p[i].n; k++)
            if (p[k].n && same_cuts(&p[k], &p[i]))
                partition_free(&p[i]);
    }
    return rc;
}

/* The detail: the partition kept, how many were planned, the busiest
 * link's seconds and the bound's, and their ratio (1.000: no contiguous
 * partition on these slots does better). */
static int certify(const struct plan_ctx *ctx, const struct bins *bn, bool ok, int kept,
                   int searched, struct tacio_plan *p)
{
    double secs = plan_link_seconds(ctx->topo, ctx->h, p);
    int at = snprintf(p->detail, sizeof p->detail, "partition=%s searched=%d link_seconds=%.6g",
                      cut_names[kept], searched, secs);
    if (!ok)
        return 0;
    int *list, n = romio_ranklist(ctx, &list);
    if (n < 0)
        return n;
    double bound;
    int rc = partition_bound(ctx, bn, list, n, &bound);
    if (!rc)
        snprintf(p->detail + at, sizeof p->detail - (size_t)at,
                 " partition_seconds_bound=%.6g ratio=%.3f", bound, bound > 0 ? secs / bound : 1.0);
    free(list);
    return rc;
}

/* Each distinct candidate planned with bottleneck's assignment; the one
 * the model rates fastest kept (the earliest of equals: ROMIO's first). */
static int cuts_plan(const struct plan_ctx *ctx, struct tacio_plan **out)
{
    static const struct tacio_strategy assigner = {.name = "cuts", .assign = assign_bottleneck};
    struct bins bn;
    bool ok;
    struct partition cand[NCUTS] = {{0}};
    int n = plan_naggs(ctx), kept = 0, searched = 0;
    int rc = n < 0 ? n : bins_build(ctx, n, &bn, &ok);
    if (rc)
        return rc;
    rc = distinct_cuts(ctx, &bn, ok, cand);
    struct tacio_plan *best = NULL;
    for (int i = 0; i < NCUTS && !rc; i++) {
        if (!cand[i].n)
            continue;
        struct tacio_plan *p;
        if ((rc = plan_run_partition(ctx, &assigner, &cand[i], &p)))
            break;
        searched++;
        if (!best || p->m.model_seconds < best->m.model_seconds) {
            tacio_plan_free(best);
            best = p;
            kept = i;
        } else
            tacio_plan_free(p);
    }
    if (!rc)
        rc = certify(ctx, &bn, ok, kept, searched, best);
    for (int i = 0; i < NCUTS; i++)
        partition_free(&cand[i]);
    bins_free(&bn);
    if (rc)
        tacio_plan_free(best);
    *out = rc ? NULL : best;
    return rc;
}

const struct tacio_strategy strategy_cuts = {
    .name = "cuts",
    .summary = "tacio: FD boundaries searched too (even, equal bytes, cut where the holding hosts "
               "change), bottleneck's assignment, certified by a bound over all partitions",
    .plan = cuts_plan,
    .reads_distribution = true,
};
