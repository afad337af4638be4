/* Tsujita et al.: Lustre-style striped FDs; aggregators spread over the hosts
 * one slot at a time (host 0's first rank, host 1's first rank, ..., then
 * each host's second rank), and every aggregator collects from remote hosts in
 * a rotation starting at its own host + 1, so in each step the senders of a
 * host are drained by one aggregator rather than by all at once (the order
 * is the plan's, built by order.c once the plan has its C). */
#include "../strategy.h"

static int spread_layout(const struct tacio_topo *t, int n, int *list)
{
    int *ptr, *ranks;
    int rc = topo_host_ranks(t, &ptr, &ranks);
    if (rc)
        return rc;
    int got = 0;
    for (int slot = 0; got < n; slot++) {
        int before = got;
        for (int u = 0; u < t->nused_hosts && got < n; u++) {
            int h = t->used_hosts[u];
            if (ptr[h] + slot < ptr[h + 1])
                list[got++] = ranks[ptr[h] + slot];
        }
        if (got == before)
            break;
    }
    free(ptr);
    free(ranks);
    return got == n ? 0 : tacio_fail(TACIO_EINVAL, "only %d ranks for %d aggregators", got, n);
}

static int tsujita_assign(const struct plan_ctx *ctx, struct partition *part,
                          const struct cmatrix *unused, struct tacio_plan *plan)
{
    (void)unused;
    plan->order_rule = ORDER_HOST_ROTATION; /* the metrics and the engine follow the rule */
    return spread_layout(ctx->topo, part->n, plan->agg);
}

const struct tacio_strategy strategy_tsujita = {
    .name = "tsujita",
    .summary = "Tsujita et al.: striped FDs, aggregators spread over hosts, rotated collection",
    .partition = partition_lustre,
    .assign = tsujita_assign,
    .assigns_without_cmatrix = true,
    .auto_candidate = true,
};
