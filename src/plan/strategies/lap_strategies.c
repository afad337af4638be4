/* LATP (Filgueira et al.) and TATP (Liu, Zhou, Guo): ROMIO's file domains,
 * assigned by a linear assignment over all ranks. LATP minimises the bytes
 * that must move (maximises the bytes already at the aggregator); TATP
 * minimises hop-bytes W = D*C. A host may get several aggregators, as in the
 * TATP paper's example. */
#include "../strategy.h"

#include <string.h>

static bool use_flow(const struct plan_ctx *ctx, bool latp)
{
    const struct tacio_topo *t = ctx->topo;
    if (ctx->h->solver == SOLVER_DENSE)
        return false;
    if (ctx->h->solver == SOLVER_FLOW)
        return true;
    return topo_has_tree(t) && (latp || t->uniform_depth);
}

int assign_lap(const struct plan_ctx *ctx, const struct cmatrix *c, bool latp,
               struct tacio_plan *plan)
{
    bool flow = use_flow(ctx, latp);
    int rc = flow ? assign_tree_flow(ctx->topo, c, latp, plan->agg, &plan->lap_cost)
                  : assign_dense(ctx->topo, c, latp, plan->agg, &plan->lap_cost);
    if (!rc)
        snprintf(plan->detail, sizeof plan->detail, "solver=%s", flow ? "flow" : "dense");
    return rc;
}

static int latp_assign(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                       struct tacio_plan *plan)
{
    (void)part;
    return assign_lap(ctx, c, true, plan);
}

static int tatp_assign(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                       struct tacio_plan *plan)
{
    (void)part;
    return assign_lap(ctx, c, false, plan);
}

const struct tacio_strategy strategy_latp = {
    .name = "latp",
    .summary = "LATP: ROMIO's FDs, LAP keeping the most bytes at their aggregator",
    .partition = partition_romio,
    .assign = latp_assign,
    .auto_candidate = true,
};

const struct tacio_strategy strategy_tatp = {
    .name = "tatp",
    .summary = "TATP: ROMIO's FDs, LAP minimising hop-bytes over the topology",
    .partition = partition_romio,
    .assign = tatp_assign,
    .auto_candidate = true,
};
