/* The planning pipeline: st1 access range, st2 partition + assign, st3 C,
 * then metrics. The MPI engine runs these same functions. */
#include "strategy.h"

#include <string.h>

static int plan_alloc(const struct plan_ctx *ctx, const struct tacio_strategy *s,
                      struct tacio_plan **out)
{
    struct tacio_plan *p = xcalloc(1, sizeof *p);
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    snprintf(p->strategy, sizeof p->strategy, "%s", s->name);
    p->nprocs = ctx->topo->nprocs;
    p->lap_cost = -1;
    *out = p;
    return 0;
}

/* A copy of part's FDs (not its strategy state): to see what the
 * assignment changed, and to plan a partition given whole. */
static int partition_copy(const struct partition *part, struct partition *out)
{
    int rc = partition_alloc(out, part->n);
    if (!rc && part->n)
        memcpy(out->dom, part->dom, sizeof *part->dom * (size_t)part->n);
    out->striped = part->striped;
    out->unit = part->unit;
    return rc;
}

/* st2's partition: the strategy's own, or the one given (cuts plans the
 * partitions it built). */
static int partition_of(const struct plan_ctx *ctx, const struct tacio_strategy *s,
                        const struct partition *given, struct partition *out)
{
    return given ? partition_copy(given, out) : s->partition(ctx, out);
}

/* C for the partition the assignment left: mccio's remerges join
 * neighbouring FDs, whose columns are merged; anything else is rebuilt. */
static int cmatrix_after_assign(const struct plan_ctx *ctx, const struct partition *before,
                                const struct partition *part, struct cmatrix *c)
{
    int rc = c->a == part->n ? 0 : cmatrix_merge_columns(c, before, part);
    if (rc == 1) {
        cmatrix_free(c);
        rc = plan_cmatrix(ctx, part, c);
    }
    return rc;
}

/* Room for the plan's FD -> aggregator map, once its partition is set. */
static int agg_alloc(struct tacio_plan *p)
{
    p->agg = malloc(sizeof(int) * (size_t)(p->part.n ? p->part.n : 1));
    return p->agg ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
}

/* The order the hints ask aggregators to collect in, over the strategy's
 * own (tacio_collect_order): the collection order measured apart from the
 * file domains and aggregators it comes with. */
static void collect_order_of_hints(const struct plan_ctx *ctx, struct tacio_plan *p)
{
    if (ctx->h->collect_order == COLLECT_RANKS)
        p->order_rule = ORDER_RANKS;
    else if (ctx->h->collect_order == COLLECT_HOSTS)
        p->order_rule = ORDER_HOST_ROTATION;
}

/* st2 + st3: partition, C, assignment. */
static int partition_and_assign(const struct plan_ctx *ctx, const struct tacio_strategy *s,
                                const struct partition *given, struct tacio_plan *p,
                                struct cmatrix *c)
{
    struct partition before = {0};
    int rc = partition_of(ctx, s, given, &p->part);
    if (!rc)
        rc = plan_cmatrix(ctx, &p->part, c);
    if (!rc)
        rc = agg_alloc(p);
    if (!rc)
        rc = partition_copy(&p->part, &before);
    if (!rc)
        rc = s->assign(ctx, &p->part, c, p);
    if (!rc)
        collect_order_of_hints(ctx, p);
    if (!rc)
        rc = cmatrix_after_assign(ctx, &before, &p->part, c);
    partition_free(&before);
    return rc;
}

int64_t plan_keep_c_max(void)
{
    const char *env = getenv("TACIO_PLAN_KEEP_C");
    return env ? strtoll(env, NULL, 10) : (int64_t)1 << 24;
}

/* A strategy that assigns without C, planned from the pattern: C is
 * streamed through the metrics, and kept only when small enough. */
static int assign_then_stream(const struct plan_ctx *ctx, const struct tacio_strategy *s,
                              const struct partition *given, struct tacio_plan *p,
                              struct cmatrix *c)
{
    int64_t nnz = 0;
    int rc = partition_of(ctx, s, given, &p->part);
    if (!rc)
        rc = agg_alloc(p);
    if (!rc)
        rc = s->assign(ctx, &p->part, NULL, p);
    if (!rc)
        collect_order_of_hints(ctx, p);
    if (!rc)
        rc = metrics_stream(ctx, p, &nnz);
    if (!rc && nnz <= plan_keep_c_max())
        rc = cmatrix_build(ctx->pat, &p->part, ctx->threads, c);
    return rc;
}

static int plan_pipeline(const struct plan_ctx *ctx, const struct tacio_strategy *s,
                         const struct partition *given, struct tacio_plan *p, struct cmatrix *c)
{
    if (s->assigns_without_cmatrix && !ctx->cmatrix_of)
        return assign_then_stream(ctx, s, given, p, c);
    int rc = partition_and_assign(ctx, s, given, p, c);
    return rc ? rc : metrics_compute(ctx, c, p);
}

int plan_run(const struct plan_ctx *ctx, const struct tacio_strategy *s, struct tacio_plan **out)
{
    if (s->plan) {
        double t0 = clock_seconds();
        int rc = s->plan(ctx, out);
        if (!rc)
            (*out)->plan_seconds = clock_seconds() - t0;
        return rc;
    }
    return plan_run_partition(ctx, s, NULL, out);
}

int plan_run_partition(const struct plan_ctx *ctx, const struct tacio_strategy *s,
                       const struct partition *given, struct tacio_plan **out)
{
    double t0 = clock_seconds();
    struct tacio_plan *p = NULL;
    struct cmatrix c = {0};
    int rc = plan_alloc(ctx, s, &p);
    if (rc)
        return rc;
    rc = plan_pipeline(ctx, s, given, p, &c);
    p->cmat = c; /* the plan owns C from here on */
    if (!rc && c.row)
        rc = order_build(ctx->topo, &c, p);
    if (rc) {
        tacio_plan_free(p);
        return rc;
    }
    p->plan_seconds = clock_seconds() - t0;
    *out = p;
    return 0;
}

/* Each rank's host's first rank: where a host gathers its data. */
static int *host_leaders(const struct tacio_topo *t)
{
    int *first = malloc(sizeof(int) * (size_t)(t->nhosts ? t->nhosts : 1));
    int *to = malloc(sizeof(int) * (size_t)(t->nprocs ? t->nprocs : 1));
    if (!first || !to) {
        free(first);
        free(to);
        return NULL;
    }
    for (int h = 0; h < t->nhosts; h++)
        first[h] = -1;
    for (int r = 0; r < t->nprocs; r++) { /* ranks in order: a host's first comes first */
        int *f = &first[t->rank_host[r]];
        *f = *f < 0 ? r : *f;
        to[r] = *f;
    }
    free(first);
    return to;
}

/* The collectives a gathered choice's call spends planning, where a call
 * on a kept schedule spends none: its schedule is never kept, so every
 * call plans twice, on the ranks' accesses and on the leaders', each pass
 * a summary gather, a partition's broadcast and C's rows gathered, and the
 * outcome's broadcast (src/exec/cplan.h). Charged two until the namespace
 * lab's block ior1, where the model rated the gathered candidate 2% ahead
 * of its pick and its call took 3.8 ms, 2.0 ms of it planning, against
 * 0.25-0.45 ms for the others. */
#define GATHERED_PLAN_COLLECTIVES 8

/* What gathering costs beside the shuffle it changes: the busiest leader
 * takes its host's bytes in and puts them in file order (two copies at
 * bw_copy; a read, the same back), and the engine's planning on every call
 * (GATHERED_PLAN_COLLECTIVES, log2 p hops each). The host's own small
 * collectives stay in its shared memory: not charged, as the model charges
 * no on-host latency. */
static double gather_seconds(const struct plan_ctx *ctx, const struct cmatrix *moved)
{
    int64_t *held = xcalloc((size_t)moved->p + 1, sizeof(int64_t)), most = 0;
    for (int64_t k = 0; held && k < moved->nnz; k++)
        most = max64(most, held[moved->row[k]] += moved->cval[k]);
    free(held);
    const struct tacio_hints *h = ctx->h;
    return 2.0 * (double)most / h->bw_copy +
           GATHERED_PLAN_COLLECTIVES * collective_hops(ctx->topo->nprocs) * h->latency;
}

int plan_node_aggregated(const struct plan_ctx *ctx, const struct tacio_plan *p,
                         struct tacio_plan **out)
{
    *out = NULL;
    const struct tacio_topo *t = ctx->topo;
    if (!p->cmat.row || !t->rank_host || t->nused_hosts >= t->nprocs)
        return 0; /* no C kept, or no host with two ranks */
    int *to = host_leaders(t);
    struct tacio_plan *v = xcalloc(1, sizeof *v);
    int rc = to && v ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    if (!rc) {
        memcpy(v->strategy, p->strategy, sizeof v->strategy);
        memcpy(v->detail, p->detail, sizeof v->detail);
        v->nprocs = p->nprocs;
        v->order_rule = p->order_rule;
        v->lap_cost = p->lap_cost;
        v->mem_shortfall = p->mem_shortfall;
        v->node_aggregated = 1;
        rc = partition_copy(&p->part, &v->part);
    }
    if (!rc)
        rc = agg_alloc(v);
    if (!rc) {
        memcpy(v->agg, p->agg, sizeof(int) * (size_t)p->part.n);
        rc = cmatrix_move_rows(&p->cmat, to, &v->cmat);
    }
    if (!rc)
        rc = metrics_compute(ctx, &v->cmat, v);
    if (!rc)
        rc = order_build(t, &v->cmat, v);
    free(to);
    if (rc) {
        tacio_plan_free(v);
        return rc;
    }
    v->m.terms.v[TERM_GATHER] = gather_seconds(ctx, &v->cmat);
    model_rate(ctx, v);
    *out = v;
    return 0;
}

static int check_job(const struct tacio_pattern *pat, const struct tacio_topo *topo)
{
    if (!topo->rank_host)
        return tacio_fail(TACIO_EINVAL, "the topology has no job placed on it");
    if (pat->nprocs != topo->nprocs)
        return tacio_fail(TACIO_EINVAL, "the pattern has %d ranks but the topology places %d",
                          pat->nprocs, topo->nprocs);
    return 0;
}

/* The job's strategy, after the checks both entry points make. */
static int job_strategy(const struct tacio_pattern *pat, const struct tacio_topo *topo,
                        const struct tacio_hints *hints, const struct tacio_strategy **s)
{
    int rc = check_job(pat, topo);
    if (rc)
        return rc;
    *s = strategy_find(hints->strategy);
    if (!*s)
        return tacio_fail(TACIO_EINVAL, "unknown strategy '%s'; expected one of %s",
                          hints->strategy, strategy_names());
    return 0;
}

/* ctx->pat's range, which must hold a byte (or fixed accesses). */
static int plan_range(struct plan_ctx *ctx)
{
    pattern_range(ctx->pat, &ctx->lo, &ctx->hi);
    if (ctx->lo >= ctx->hi && !ctx->pat->nfixed)
        return tacio_fail(TACIO_EINVAL, "no rank accesses any byte: nothing to plan");
    return 0;
}

int tacio_plan_compute(const struct tacio_pattern *pat, const struct tacio_topo *topo,
                       const struct tacio_hints *hints, struct tacio_plan **out)
{
    *out = NULL;
    const struct tacio_strategy *s = NULL;
    int rc = job_strategy(pat, topo, hints, &s);
    struct plan_ctx ctx = {.pat = pat, .topo = topo, .h = hints, .may_aggregate_nodes = true};
    rc = rc ? rc : plan_range(&ctx);
    return rc ? rc : plan_run(&ctx, s, out);
}

/* C as the engine's rank 0 gets it: each rank's exact row, from the whole
 * pattern (cmatrix_arg), whatever the summary planned on. */
static int exact_rows(const struct plan_ctx *ctx, const struct partition *part, struct cmatrix *out)
{
    return cmatrix_build(ctx->cmatrix_arg, part, 0, out);
}

int tacio_plan_compute_as_engine(const struct tacio_pattern *pat, const struct tacio_topo *topo,
                                 const struct tacio_hints *hints, struct tacio_plan **out)
{
    *out = NULL;
    const struct tacio_strategy *s = NULL;
    int rc = job_strategy(pat, topo, hints, &s);
    if (!rc && s->wants_distribution)
        rc = tacio_fail(TACIO_EINVAL,
                        "the engine's view plans every strategy but %s, which first asks the "
                        "ranks whether to send their byte quantiles",
                        s->name);
    struct tacio_pattern *sum = NULL; /* what rank 0 sees: src/exec/cplan.c */
    rc = rc ? rc : pattern_summarize(pat, s->reads_distribution ? SUMMARY_RUNS : 1, &sum);
    struct plan_ctx ctx = {.pat = sum,
                           .topo = topo,
                           .h = hints,
                           .cmatrix_of = exact_rows,
                           .cmatrix_arg = (void *)pat,
                           .may_aggregate_nodes = true};
    rc = rc ? rc : plan_range(&ctx);
    rc = rc ? rc : plan_run(&ctx, s, out);
    tacio_pattern_free(sum);
    return rc;
}

void tacio_plan_free(struct tacio_plan *p)
{
    if (!p)
        return;
    partition_free(&p->part);
    cmatrix_free(&p->cmat);
    free(p->agg);
    free(p->order_ptr);
    free(p->order);
    free(p->fd_bytes);
    free(p->fd_mem);
    free(p->link_up);
    free(p->link_down);
    free(p->link_name);
    free(p->link_parent);
    free(p);
}

/* ---- JSON ---- */

static void json_fds(const struct tacio_plan *p, FILE *out)
{
    fputs("\"fds\":[", out);
    for (int j = 0; j < p->part.n; j++) {
        const struct fdom *dom = &p->part.dom[j];
        fprintf(out,
                "%s{\"index\":%d,\"start\":%lld,\"end\":%lld,\"aggregator\":%d,\"bytes\":%lld,"
                "\"mem\":%lld",
                j ? "," : "", j, (long long)dom->start, (long long)dom->end, p->agg[j],
                (long long)p->fd_bytes[j], (long long)p->fd_mem[j]);
        if (dom->unit)
            fprintf(out, ",\"unit\":%lld,\"stride\":%lld", (long long)dom->unit,
                    (long long)dom->stride);
        fputc('}', out);
    }
    fputc(']', out);
}

/* Links that carry any bytes: the vertices below and above the link, bytes
 * up, down (with "above", a reader can draw the loaded part of the tree). */
static void json_links(const struct tacio_plan *p, FILE *out)
{
    fputs(",\"links\":[", out);
    bool first = true;
    for (int v = 0; p->link_up && v < p->nlinks; v++)
        if (p->link_up[v] || p->link_down[v]) {
            fprintf(out, "%s{\"below\":\"%s\",\"above\":\"%s\",\"up\":%lld,\"down\":%lld}",
                    first ? "" : ",", p->link_name[v],
                    p->link_parent[v] >= 0 ? p->link_name[p->link_parent[v]] : "",
                    (long long)p->link_up[v], (long long)p->link_down[v]);
            first = false;
        }
    fputc(']', out);
}

int tacio_plan_write_json(const struct tacio_plan *p, FILE *out)
{
    const struct metrics *m = &p->m;
    fprintf(out, "{\"strategy\":\"%s\",\"detail\":\"%s\",\"procs\":%d,\"naggs\":%d,", p->strategy,
            p->detail, p->nprocs, m->naggs);
    json_fds(p, out);
    json_links(p, out);
    fprintf(out,
            ",\"total_bytes\":%lld,\"shuffle_bytes\":%lld,\"offnode_bytes\":%lld,"
            "\"hop_bytes\":%lld,",
            (long long)m->total_bytes, (long long)m->shuffle_bytes, (long long)m->offnode_bytes,
            (long long)m->hop_bytes);
    if (m->max_link_load >= 0)
        fprintf(out, "\"max_link_load\":%lld,", (long long)m->max_link_load);
    else
        fputs("\"max_link_load\":null,", out);
    fprintf(out,
            "\"max_agg_bytes\":%lld,\"max_agg_mem\":%lld,\"messages\":%lld,\"rounds\":%lld,"
            "\"offnode_msgs\":%lld,\"max_step_fanin\":%d,\"mem_shortfall\":%d,"
            "\"node_aggregated\":%d,\"model_seconds\":%.6g,\"plan_seconds\":%.6f}",
            (long long)m->max_agg_bytes, (long long)m->max_agg_mem, (long long)m->messages,
            (long long)m->rounds, (long long)m->offnode_msgs, m->max_step_fanin, p->mem_shortfall,
            p->node_aggregated, m->model_seconds, p->plan_seconds);
    return fflush(out) == 0 && !ferror(out) ? 0 : tacio_fail(TACIO_EIO, "writing the plan failed");
}
