/* auto: plan the job with each candidate strategy (auto_candidate in the
 * registry) at 1, 2 and 4 aggregators per host
 * and keep the plan the cost model (metrics.c, docs/strategies.md) rates fastest.
 * The TATP paper leaves choosing the aggregator count as future work; the
 * model makes that choice explicit and reproducible.
 *
 * Under the engine, C comes from the ranks, one round of messages per
 * partition: 18 candidates cost 9 rounds, and at 512 simulated ranks more
 * time than the collective's I/O. There auto rates the candidates on C
 * built from the access summary rank 0 already holds (SUMMARY_RUNS byte
 * quantiles per rank, src/exec/cplan.c) and asks the ranks only for the
 * chosen candidate's C. The quantiles themselves are asked for only when
 * their gather is cheap beside the collective (auto_wants_distribution);
 * otherwise the candidates are rated on the ranks' spans. */
#include "../strategy.h"

#include <string.h>

static const int per_host[] = {1, 2, 4};

/* A candidate replaces the best so far only when the model rates it this
 * much faster: gains below the model's resolution are noise (bench/smpi
 * --auto: at 125 ranks mccio rated 0.7% ahead of romio and ran 18% behind),
 * so auto leaves ROMIO's plan, and then fewer aggregators per host, only
 * for a clear predicted gain: a choice that cannot lose by more than the
 * margin the model misjudges. Candidates come in registry order, romio
 * first, and each strategy at 1, 2, then 4 per host. */
#define AUTO_MARGIN 0.05

static int run_candidate(const struct plan_ctx *ctx, const struct tacio_strategy *s, int k,
                         struct tacio_plan **out)
{
    struct tacio_hints h = *ctx->h;
    snprintf(h.cb_config_list, sizeof h.cb_config_list, "*:%d", k);
    h.aggs_per_node = k;
    h.cb_nodes = 0; /* the candidate's own count: k per host */
    snprintf(h.strategy, sizeof h.strategy, "%s", s->name);
    struct plan_ctx sub = *ctx;
    sub.h = &h;
    return plan_run(&sub, s, out);
}

/* The candidate: strategy s at k per node, with node aggregation or not. */
struct choice {
    const struct tacio_strategy *s;
    int k;
    bool node_aggregated;
};

/* p replaces *best (and c *chosen) when the model rates it clearly faster. */
static void consider(struct tacio_plan **best, struct choice *chosen, struct tacio_plan *p,
                     struct choice c)
{
    if (*best && p->m.model_seconds >= (*best)->m.model_seconds * (1 - AUTO_MARGIN)) {
        tacio_plan_free(p);
        return;
    }
    tacio_plan_free(*best);
    *best = p;
    *chosen = c;
}

/* The best candidate's plan, on ctx's C. Each candidate is rated as it is
 * and, where ctx allows, with node aggregation (the same FDs and
 * aggregators: only C's senders change), which pays where the ranks' own
 * messages are small. */
static int best_candidate(const struct plan_ctx *ctx, struct tacio_plan **out,
                          struct choice *chosen)
{
    struct tacio_plan *best = NULL;
    int rc = 0;
    const struct tacio_strategy *s;
    for (int i = 0; (s = strategy_at(i)) && !rc; i++)
        for (size_t k = 0; s->auto_candidate && k < sizeof per_host / sizeof *per_host && !rc;
             k++) {
            struct tacio_plan *p, *v = NULL;
            struct choice c = {s, per_host[k], false};
            rc = run_candidate(ctx, s, c.k, &p);
            if (!rc && ctx->may_aggregate_nodes)
                rc = plan_node_aggregated(ctx, p, &v);
            if (rc) {
                tacio_plan_free(p);
                break;
            }
            consider(&best, chosen, p, c);
            if (v)
                consider(&best, chosen, v, (struct choice){s, c.k, true});
        }
    if (rc)
        tacio_plan_free(best);
    *out = rc ? NULL : best;
    return rc;
}

/* Whether to ask the ranks for their byte quantiles: when the asking (an
 * order down log2 p hops and a gather up, a latency a hop, and their bytes
 * over a host's link) costs at most AUTO_MARGIN of romio's plan at one
 * aggregator per host, as the model rates both on the spans in ctx. Then
 * auto, choosing romio after asking, stays within the margin of romio's
 * time, and a gain the quantiles reveal (auto acts on none below the
 * margin) pays for them. Why ask at all: a rank's span alone reads as
 * bytes spread evenly over it, which segmented accesses (IOR's) are not;
 * why not always: under SMPI, cube 128^3 at 512 ranks on the scattered
 * Inspur tree, gathering the quantiles with every call (208 KiB into rank
 * 0) took 0.14 ms of a 1.15 ms collective, and auto with romio's own plan
 * ran 1.12x romio's time. Rated there: asking 0.30 ms, 28% of romio's 1.07
 * ms (simulated: 0.25 ms); IOR's segments at 64 ranks: 0.18 ms, 5.0%
 * (simulated: 0.06 ms), asked, and the quantiles took auto from romio's
 * plan (1.51x the best) to within 2.3% of it. */
static int auto_wants_distribution(const struct plan_ctx *ctx, int64_t order_bytes,
                                   int64_t gather_bytes, bool *out)
{
    struct tacio_plan *romio;
    int rc = run_candidate(ctx, strategy_find("romio"), 1, &romio);
    if (rc)
        return rc;
    double hops = collective_hops(ctx->pat->nprocs);
    double ask = 2 * hops * ctx->h->latency +
                 ((double)order_bytes * hops + (double)gather_bytes) / ctx->h->bw_link;
    *out = ask <= AUTO_MARGIN * romio->m.model_seconds;
    tacio_plan_free(romio);
    return 0;
}

static int auto_plan(const struct plan_ctx *ctx, struct tacio_plan **out)
{
    struct choice c = {0};
    struct plan_ctx summary = *ctx;
    summary.cmatrix_of = NULL; /* C from ctx->pat: under the engine, the summary */
    struct tacio_plan *best;
    int rc = best_candidate(&summary, &best, &c);
    /* the chosen one on the ranks' exact C; one with node aggregation is
     * planned again by the engine once the nodes have aggregated */
    if (!rc && ctx->cmatrix_of && !c.node_aggregated) {
        double rated = best->m.model_seconds;
        tacio_plan_free(best);
        rc = run_candidate(ctx, c.s, c.k, &best);
        if (!rc)
            snprintf(best->detail, sizeof best->detail,
                     "chose %s with %d aggregator(s) per host on the access summary (model "
                     "%.4g s there, %.4g s on the exact C)",
                     c.s->name, c.k, rated, best->m.model_seconds);
    } else if (!rc)
        snprintf(best->detail, sizeof best->detail,
                 "chose %s with %d aggregator(s) per host%s, model %.4g s", c.s->name, c.k,
                 c.node_aggregated ? " (node aggregation first)" : "", best->m.model_seconds);
    if (rc)
        return rc;
    snprintf(best->strategy, sizeof best->strategy, "auto");
    *out = best;
    return 0;
}

const struct tacio_strategy strategy_auto = {
    .name = "auto",
    .summary = "tacio: the strategy and aggregators per host the cost model rates fastest",
    .plan = auto_plan,
    .wants_distribution = auto_wants_distribution, /* mccio is a candidate */
};
