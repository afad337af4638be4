/* auto: plan the job with each candidate strategy (auto_candidate in the
 * registry) at 1, 2 and 4 aggregators per host, and at every rank of a
 * host where the default lets every rank aggregate (candidate_counts),
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

#include "../../base/wisdom.h"

#include <stdlib.h>
#include <string.h>

static const int per_host[] = {1, 2, 4};
#define AUTO_COUNTS (sizeof per_host / sizeof *per_host + 1)

/* The aggregator counts a host auto rates: per_host, and every rank of the
 * busiest host when the hints let every rank aggregate (cb_config_list
 * "*:*", the engine's default on one host whose file is in its page cache,
 * src/exec/api.c): a count the default runs must be one auto can choose
 * (bench/io at 8 ranks on one host: without it auto ran up to 1.6x behind
 * the default on 16 of 48 rows). Returns how many, each counted once. */
static int candidate_counts(const struct plan_ctx *ctx, int out[AUTO_COUNTS])
{
    int n = 0;
    for (size_t i = 0; i < sizeof per_host / sizeof *per_host; i++)
        out[n++] = per_host[i];
    int all = strcmp(ctx->h->cb_config_list, "*:*") ? 0 : topo_busiest_host_ranks(ctx->topo);
    if (all > per_host[n - 1])
        out[n++] = all;
    return n;
}

/* A candidate replaces the best so far only when the model rates it this
 * much faster: gains below the model's resolution are noise (bench/smpi
 * --auto: at 125 ranks mccio rated 0.7% ahead of romio and ran 18% behind),
 * so auto leaves ROMIO's plan, and then fewer aggregators per host, only
 * for a clear predicted gain: a choice that cannot lose by more than the
 * margin the model misjudges. Candidates come in registry order, romio
 * first, and each strategy at 1, 2, 4 per host, then every rank. */
#define AUTO_MARGIN 0.05
/* The model's runners-up are timed only while it rates them within this
 * factor of its pick. Its absolute times are off by 10x and more at small
 * sizes, and candidates it rates within a few percent run up to 3x apart
 * (so those are timed, not trusted); but a candidate rated this much slower
 * has fewer aggregators sharing the copies or more bytes on the busiest
 * link, and ran slower wherever we timed one: at 8 ranks on MPICH 5,
 * collperf's latp at 4 a host, rated 1.7x the pick, measured 1.5-2.1x, and
 * its trial call cost auto a fifth of a five-call run against the default. */
#define AUTO_TRY_BAND 1.5

/* A plan whose aggregators do not fit their hosts' free memory is rated
 * AUTO_UNFIT_SECONDS slower: the kernel kills it there (bench/lab
 * --host-memory, 24 MiB on two of four hosts: romio, tatp, bottleneck and
 * auto's pick killed, mccio, which places aggregators by memory, ran), so
 * it is neither picked nor tried while a candidate fits, and the default
 * so rated has no trial (trials.c: drop_unfit_default). Where none fits
 * the ranking is as it was without memory. */

/* Whether p's aggregators fit their hosts' free memory, by mccio's rule: a
 * host aggregates only with tacio_mem_min (unset: cb_buffer_size) free,
 * and its aggregators' buffers within what it has. Hosts of unknown memory
 * (no runtime figure: tacio plan without --memory) always fit. */
static bool fits_memory(const struct plan_ctx *ctx, const struct tacio_plan *p)
{
    const struct tacio_topo *t = ctx->topo;
    int64_t *on_host = t->mem_free ? calloc((size_t)t->nhosts, sizeof *on_host) : NULL;
    if (!on_host) /* unknown, or no memory to tell: as without memory */
        return true;
    for (int j = 0; j < p->part.n; j++)
        on_host[t->rank_host[p->agg[j]]] += p->fd_mem[j];
    int64_t need = hints_mem_min(ctx->h);
    bool fits = true;
    for (int h = 0; h < t->nhosts && fits; h++)
        fits = !on_host[h] || (t->mem_free[h] >= need && t->mem_free[h] >= on_host[h]);
    free(on_host);
    return fits;
}

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

/* The candidates rated so far: the model's pick first (a later candidate
 * replaces it only when rated AUTO_MARGIN faster), then the runners-up,
 * fastest first, as many as a trial may ask for (ctx->trial). */
struct ranking {
    struct tacio_plan *plan[AUTO_TRIALS_MAX + 1];
    struct choice choice[AUTO_TRIALS_MAX + 1];
    int n, keep;
    struct tacio_plan *dflt; /* the default's plan on the same C (drop_default_twins) */
    bool blind;              /* no candidate fits memory: ranked as if memory were no object */
};

/* p rated AUTO_UNFIT_SECONDS slower where it does not fit (fits_memory). */
static void rate_memory(const struct plan_ctx *ctx, const struct ranking *r, struct tacio_plan *p)
{
    if (p && !r->blind && !fits_memory(ctx, p))
        p->m.model_seconds += AUTO_UNFIT_SECONDS;
}

static void ranking_free(struct ranking *r)
{
    for (int i = 0; i < r->n; i++)
        tacio_plan_free(r->plan[i]);
    r->n = 0;
    tacio_plan_free(r->dflt);
    r->dflt = NULL;
}

/* Whether p makes the same plan as q as far as the model sees it (cuts
 * often settles on bottleneck's): a trial of both would time one plan twice. */
static bool same_rating(const struct tacio_plan *p, const struct tacio_plan *q)
{
    return p->m.model_seconds == q->m.model_seconds && p->m.naggs == q->m.naggs &&
           p->m.hop_bytes == q->m.hop_bytes && p->node_aggregated == q->node_aggregated;
}

/* p, rated: the new pick when clearly faster than the pick, else a
 * runner-up in its place by model seconds; the slowest beyond keep goes. */
static void consider(struct ranking *r, struct tacio_plan *p, struct choice c)
{
    for (int i = 0; i < r->n; i++)
        if (same_rating(p, r->plan[i])) {
            tacio_plan_free(p);
            return;
        }
    int at = r->n;
    if (r->n && p->m.model_seconds < r->plan[0]->m.model_seconds * (1 - AUTO_MARGIN))
        at = 0;
    else
        while (at > 1 && p->m.model_seconds < r->plan[at - 1]->m.model_seconds)
            at--;
    if (at >= r->keep) {
        tacio_plan_free(p);
        return;
    }
    if (r->n == r->keep)
        tacio_plan_free(r->plan[--r->n]);
    memmove(r->plan + at + 1, r->plan + at, sizeof *r->plan * (size_t)(r->n - at));
    memmove(r->choice + at + 1, r->choice + at, sizeof *r->choice * (size_t)(r->n - at));
    r->plan[at] = p, r->choice[at] = c, r->n++;
}

static int default_plan(const struct plan_ctx *ctx, struct tacio_plan **out);

/* The runners-up that plan as the default does taken out of r: the default
 * has a trial of its own (trial 1), and a runner-up timing its plan again
 * cost a call for nothing (bench/smpi, btio at 100 ranks: romio at one a
 * host, the hints' own count, timed after the default at its 9.0 ms
 * against the pick's 7.6). The pick stays: the engine knows when it is
 * the default (pick_is_default, from the plan kept in r->dflt). */
static int drop_default_twins(const struct plan_ctx *ctx, struct ranking *r)
{
    int rc = r->dflt ? 0 : default_plan(ctx, &r->dflt), n = r->n ? 1 : 0;
    if (!rc)
        rate_memory(ctx, r, r->dflt);
    for (int i = 1; !rc && i < r->n; i++) {
        if (same_rating(r->plan[i], r->dflt)) {
            tacio_plan_free(r->plan[i]);
            continue;
        }
        r->plan[n] = r->plan[i], r->choice[n] = r->choice[i], n++;
    }
    if (!rc)
        r->n = n;
    return rc;
}

/* The candidates' plans, on ctx's C, ranked (struct ranking). Each
 * candidate is rated as it is and, where ctx allows, with node aggregation
 * (the same FDs and aggregators: only C's senders change), which pays where
 * the ranks' own messages are small. A runner-up that plans as the default
 * is left out (drop_default_twins): one more is ranked to take its place. */
static int rank_candidates(const struct plan_ctx *ctx, struct ranking *r)
{
    int keep = r->keep;
    r->keep = keep < AUTO_TRIALS_MAX + 1 ? keep + 1 : keep;
    int rc = 0, counts[AUTO_COUNTS], ncounts = candidate_counts(ctx, counts);
    const struct tacio_strategy *s;
    for (int i = 0; (s = strategy_at(i)) && !rc; i++)
        for (int k = 0; s->auto_candidate && k < ncounts && !rc; k++) {
            struct tacio_plan *p, *v = NULL;
            struct choice c = {s, counts[k], false};
            rc = run_candidate(ctx, s, c.k, &p);
            if (!rc && ctx->may_aggregate_nodes)
                rc = plan_node_aggregated(ctx, p, &v);
            if (rc) {
                tacio_plan_free(p);
                break;
            }
            rate_memory(ctx, r, p);
            rate_memory(ctx, r, v);
            consider(r, p, c);
            if (v)
                consider(r, v, (struct choice){s, c.k, true});
        }
    if (!rc)
        rc = drop_default_twins(ctx, r);
    r->keep = keep;
    if (!rc && !r->blind && r->n && r->plan[0]->m.model_seconds >= AUTO_UNFIT_SECONDS) {
        ranking_free(r); /* not even the pick fits: none does */
        r->blind = true;
        return rank_candidates(ctx, r);
    }
    while (!rc && r->n > keep)
        tacio_plan_free(r->plan[--r->n]);
    if (rc)
        ranking_free(r);
    return rc;
}

/* The candidate of auto's a choice names ("S:K" or "S:K:nodes", as
 * tacio_plan.choice and the wisdom file write it), its count and whether
 * it gathers; NULL for any other name ("default", "independent", a
 * strategy gone or no candidate). */
static const struct tacio_strategy *candidate_named(const char *choice, int64_t *k, bool *nodes)
{
    char name[32];
    if (!wisdom_choice_parse(choice, name, sizeof name, k, nodes))
        return NULL;
    const struct tacio_strategy *s = strategy_find(name);
    return s && s->auto_candidate ? s : NULL;
}

/* The gathered candidate ctx->nodes_choice names and its count; NULL
 * where there is none (not on the hosts' gathered accesses). */
static const struct tacio_strategy *gathered_candidate(const struct plan_ctx *ctx, int64_t *k)
{
    bool nodes = false;
    const struct tacio_strategy *s =
        ctx->nodes_choice ? candidate_named(ctx->nodes_choice, k, &nodes) : NULL;
    return nodes ? s : NULL;
}

static int first_call_ranks(const struct plan_ctx *ctx, bool *out);

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
    int64_t k;
    const struct tacio_strategy *one = gathered_candidate(ctx, &k);
    if (one) { /* one candidate to plan, not many to rate: its own need */
        *out = one->reads_distribution;
        return 0;
    }
    bool ranks;
    int rc = first_call_ranks(ctx, &ranks);
    if (rc || !ranks) { /* the default, which reads no quantiles, is planned */
        *out = false;
        return rc;
    }
    struct tacio_plan *romio;
    rc = run_candidate(ctx, strategy_find("romio"), 1, &romio);
    if (rc)
        return rc;
    double hops = collective_hops(ctx->pat->nprocs);
    double ask = 2 * hops * ctx->h->latency +
                 ((double)order_bytes * hops + (double)gather_bytes) / ctx->h->bw_link;
    *out = ask <= AUTO_MARGIN * romio->m.model_seconds;
    tacio_plan_free(romio);
    return 0;
}

/* The default, as a trial runs it: romio on the user's hints as they are. */
static int default_plan(const struct plan_ctx *ctx, struct tacio_plan **out)
{
    struct tacio_hints h = *ctx->h;
    snprintf(h.strategy, sizeof h.strategy, "romio");
    struct plan_ctx sub = *ctx;
    sub.h = &h;
    int rc = plan_run(&sub, strategy_find("romio"), out);
    if (!rc) {
        snprintf((*out)->detail, sizeof(*out)->detail, "%s: the default, romio",
                 !ctx->trial && wisdom_settled(ctx->recalled) ? "learned" : "trial");
        snprintf((*out)->strategy, sizeof(*out)->strategy, "auto");
        snprintf((*out)->choice, sizeof(*out)->choice, "default");
    }
    return rc;
}

/* The default as the ranking rated it (r->dflt, on the summary): its
 * model seconds, and whether it plans as the pick does (on one host whose
 * ranks all aggregate, the pick is often romio at every rank, the
 * default's own plan). */
static void rate_default(const struct ranking *r, bool *same, double *seconds)
{
    *same = same_rating(r->plan[0], r->dflt);
    *seconds = r->dflt->m.model_seconds;
}

/* Whether the ranking's candidate j is one to time (AUTO_TRY_BAND). */
static bool in_band(const struct ranking *r, int j)
{
    return j < r->n && r->plan[j]->m.model_seconds <= AUTO_TRY_BAND * r->plan[0]->m.model_seconds;
}

/* c as a wisdom file names it (tacio_plan.choice). */
static void choice_name(struct choice c, char *out, size_t cap)
{
    snprintf(out, cap, "%s:%d%s", c.s->name, c.k, c.node_aggregated ? ":nodes" : "");
}

static void name_choice(struct tacio_plan *p, struct choice c)
{
    choice_name(c, p->choice, sizeof p->choice);
}

/* Candidate j of the ranking (0: the model's pick; ctx->trial - 1 in a
 * trial), on the ranks' exact C; one with node aggregation is planned again
 * by the engine once the nodes have aggregated. */
static int ranked_plan(const struct plan_ctx *ctx, struct ranking *r, int j,
                       struct tacio_plan **out)
{
    j = j < r->n ? j : r->n - 1;
    struct choice c = r->choice[j];
    struct tacio_plan *best = r->plan[j];
    r->plan[j] = NULL;
    int rc = 0;
    const char *trial = ctx->trial ? "trial: " : "";
    if (ctx->cmatrix_of && !c.node_aggregated) {
        double rated = best->m.model_seconds;
        tacio_plan_free(best);
        rc = run_candidate(ctx, c.s, c.k, &best);
        if (!rc)
            snprintf(best->detail, sizeof best->detail,
                     "%schose %s with %d aggregator(s) per host on the access summary (model "
                     "%.4g s there, %.4g s on the exact C)",
                     trial, c.s->name, c.k, rated, best->m.model_seconds);
    } else
        snprintf(best->detail, sizeof best->detail,
                 "%schose %s with %d aggregator(s) per host%s, model %.4g s", trial, c.s->name, c.k,
                 c.node_aggregated ? " (node aggregation first)" : "", best->m.model_seconds);
    if (!rc) {
        snprintf(best->strategy, sizeof best->strategy, "auto");
        name_choice(best, c);
        *out = best;
    }
    return rc;
}

/* The remembered choice (ctx->recalled's, settled), planned as the ranking would plan
 * it; 1 when it names no candidate this run can plan (a strategy gone, node
 * aggregation where it is not auto's to choose): the model picks then. */
static int learned_plan(const struct plan_ctx *ctx, struct tacio_plan **out)
{
    if (!strcmp(ctx->recalled->choice, "default"))
        return default_plan(ctx, out);
    int64_t k;
    bool nodes;
    /* independent I/O is the engine's path, not a plan: the model picks */
    const struct tacio_strategy *s = candidate_named(ctx->recalled->choice, &k, &nodes);
    if (!s || (nodes && !ctx->may_aggregate_nodes))
        return 1;
    struct choice c = {s, (int)k, nodes};
    struct plan_ctx summary = *ctx;
    summary.cmatrix_of = NULL; /* node aggregation is rated on the summary, as in the ranking */
    struct tacio_plan *p = NULL, *v = NULL;
    int rc = run_candidate(nodes ? &summary : ctx, s, c.k, &p);
    if (!rc && nodes) {
        rc = plan_node_aggregated(&summary, p, &v);
        tacio_plan_free(p);
        p = v;
    }
    if (rc || !p) {
        tacio_plan_free(p);
        return rc ? rc : 1;
    }
    snprintf(p->detail, sizeof p->detail,
             "learned: %s with %d aggregator(s) per host%s, model %.4g s", s->name, c.k,
             nodes ? " (node aggregation first)" : "", p->m.model_seconds);
    snprintf(p->strategy, sizeof p->strategy, "auto");
    name_choice(p, c);
    *out = p;
    return 0;
}

/* Trials spread over runs (ctx->recalled not settled): the default if no
 * run timed it (the entry's tried holds those that did), else the first of the model's pick
 * and its runners-up no run timed; the pick again when every one was. The
 * engine takes the default's path (its rule between independent I/O and
 * collective buffering) for the one, collective buffering for the others. */
static int untried_plan(const struct plan_ctx *ctx, struct tacio_plan **out)
{
    if (wisdom_tried(ctx->recalled, "default") < 0)
        return default_plan(ctx, out);
    struct plan_ctx summary = *ctx;
    summary.cmatrix_of = NULL;
    struct ranking r = {.keep = AUTO_TRIALS_MAX};
    int rc = rank_candidates(&summary, &r), next = 0;
    char name[WISDOM_CHOICE];
    for (int j = 0; !rc && j < r.n && in_band(&r, j); j++) {
        choice_name(r.choice[j], name, sizeof name);
        if (wisdom_tried(ctx->recalled, name) < 0) {
            next = j;
            break;
        }
    }
    if (!rc)
        rc = ranked_plan(ctx, &r, next, out);
    ranking_free(&r);
    return rc;
}

/* The node-aggregated candidate ctx->nodes_choice names, planned on the
 * hosts' gathered accesses as the model rated it: its strategy at its
 * count (plan_node_aggregated keeps the candidate's FDs and aggregators).
 * Planning the model's pick there instead ran every node-aggregated
 * candidate as one plan (bench/smpi, btio at 100 ranks: romio at 1 and
 * bottleneck at 4 a host, both gathered, timed alike), so no trial could
 * tell them apart. 1 when it names none (the model picks then). */
static int gathered_plan(const struct plan_ctx *ctx, struct tacio_plan **out)
{
    int64_t k;
    const struct tacio_strategy *s = gathered_candidate(ctx, &k);
    if (!s)
        return 1;
    int rc = run_candidate(ctx, s, (int)k, out);
    if (!rc) {
        snprintf(
            (*out)->detail, sizeof(*out)->detail,
            "%s%s with %d aggregator(s) per host on the hosts' gathered accesses, model %.4g s",
            ctx->trial ? "trial: " : "", s->name, (int)k, (*out)->m.model_seconds);
        snprintf((*out)->strategy, sizeof(*out)->strategy, "auto");
        snprintf((*out)->choice, sizeof(*out)->choice, "%s", ctx->nodes_choice);
    }
    return rc;
}

/* Whether rating the candidates can pay on this call: auto leaves the
 * default only for a gain of AUTO_MARGIN of its time or more, so a call
 * the fitted model rates at less than what choosing took (ctx->fit's
 * choosing, measured on this machine's last first call) divided by
 * AUTO_MARGIN cannot win back what choosing costs. Measured on one host,
 * bench/io/shapes at 4 ranks on Open MPI 4.1.4: rating the candidates
 * took 0.3-0.45 ms of calls of 1-25 ms, where the pick was the default's
 * own plan on every shape, and auto's total was 0.88 of the default's. */
static bool choosing_pays(const struct plan_ctx *ctx, const struct tacio_plan *dflt)
{
    double cost = ctx->fit ? ctx->fit->choosing : 0;
    return !(cost > 0) || AUTO_MARGIN * dflt->m.model_seconds >= cost;
}

/* Whether ctx's call is one where choosing may not pay: a shape's first
 * call (no trial, nothing remembered, not the hosts' gathered accesses),
 * on a machine where what choosing costs was measured. */
static bool choosing_weighed(const struct plan_ctx *ctx)
{
    return !ctx->trial && !ctx->recalled && !ctx->nodes_choice && ctx->fit &&
           ctx->fit->choosing > 0;
}

/* Whether auto_plan rates its candidates on ctx's call: not where
 * choosing is weighed and would not pay (choosing_pays, on the default's
 * plan). */
static int first_call_ranks(const struct plan_ctx *ctx, bool *out)
{
    *out = true;
    if (!choosing_weighed(ctx))
        return 0;
    struct tacio_plan *dflt = NULL;
    int rc = default_plan(ctx, &dflt);
    if (!rc)
        *out = choosing_pays(ctx, dflt);
    tacio_plan_free(dflt);
    return rc;
}

/* A shape's first call: the default rated on the summary first (kept in
 * r->dflt, which the ranking reuses). Where choosing would not pay
 * (choosing_pays), *out is the default, planned on ctx, and the result
 * 0: not the model's pick, so that the trials, if the shape repeats, time
 * the default and the ranking's candidates as usual. 1: rank them. */
static int default_unless_choosing_pays(const struct plan_ctx *ctx, const struct plan_ctx *summary,
                                        struct ranking *r, struct tacio_plan **out)
{
    int rc = default_plan(summary, &r->dflt);
    if (rc || choosing_pays(ctx, r->dflt))
        return rc ? rc : 1;
    double rated = r->dflt->m.model_seconds;
    ranking_free(r);
    rc = default_plan(ctx, out);
    if (!rc)
        snprintf((*out)->detail, sizeof(*out)->detail,
                 "the default, romio: rated %.3g s, too short a call for choosing (%.3g s) to pay",
                 rated, ctx->fit->choosing);
    return rc;
}

/* ctx->trial (the engine's trials): 0 the model's pick, 1 the default,
 * k >= 2 the model's candidate k - 2 (its pick, then the runners-up). The
 * pick says whether a runner-up follows it (last_candidate) and that it is
 * the pick (model_pick): the engine then times trial 2 on the schedule the
 * first call kept instead of planning it again. */
static int auto_plan(const struct plan_ctx *ctx, struct tacio_plan **out)
{
    if (ctx->nodes_choice) { /* the second pass: the trial's candidate is the choice named */
        int rc = gathered_plan(ctx, out);
        if (rc <= 0)
            return rc;
        struct plan_ctx pick = *ctx; /* none named: the model picks on the gathered accesses */
        pick.trial = 0;
        pick.nodes_choice = NULL;
        return auto_plan(&pick, out);
    }
    if (ctx->trial == 1)
        return default_plan(ctx, out);
    const struct wisdom_entry *e = ctx->trial == 0 ? ctx->recalled : NULL;
    int rc = wisdom_settled(e) ? learned_plan(ctx, out) : 1;
    if (rc <= 0)
        return rc;
    if (e && !wisdom_settled(e))
        return untried_plan(ctx, out);
    int j = ctx->trial >= 2 ? ctx->trial - 2 : 0;
    struct plan_ctx summary = *ctx;
    summary.cmatrix_of = NULL; /* C from ctx->pat: under the engine, the summary */
    /* one more kept than asked for: whether a later trial has a candidate */
    struct ranking r = {.keep = j + 2 < AUTO_TRIALS_MAX ? j + 2 : AUTO_TRIALS_MAX};
    if (choosing_weighed(ctx) && (rc = default_unless_choosing_pays(ctx, &summary, &r, out)) <= 0)
        return rc;
    rc = rank_candidates(&summary, &r);
    bool last = r.n < j + 2 || !in_band(&r, j + 1), is_default = false;
    double default_seconds = 0;
    if (!rc && !ctx->trial && r.n)
        rate_default(&r, &is_default, &default_seconds);
    if (!rc)
        rc = ranked_plan(ctx, &r, j, out);
    if (!rc) {
        (*out)->last_candidate = last;
        (*out)->model_pick = j == 0;
        (*out)->pick_is_default = is_default;
        (*out)->default_seconds = default_seconds;
        (*out)->ranked = !ctx->trial;
    }
    ranking_free(&r);
    return rc;
}

const struct tacio_strategy strategy_auto = {
    .name = "auto",
    .summary = "tacio: the strategy and aggregators per host the cost model rates fastest",
    .plan = auto_plan,
    .wants_distribution = auto_wants_distribution, /* mccio is a candidate */
};
