/* Tsujita et al.: Lustre-style striped FDs; aggregators spread over the hosts
 * one slot at a time (host 0's first rank, host 1's first rank, ..., then
 * each host's second rank), and every aggregator collects from remote hosts in
 * a rotation starting at its own host + 1, so in each step the senders of a
 * host are drained by one aggregator rather than by all at once. */
#include "../strategy.h"

#include <string.h>

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

static int tsujita_assign(const struct plan_ctx *ctx, struct partition *part, const struct comm *c,
                          struct tacio_plan *plan)
{
    int *list = malloc(sizeof(int) * (size_t)(part->n ? part->n : 1));
    if (!list)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    int rc = spread_layout(ctx->topo, part->n, list);
    if (!rc) {
        memcpy(plan->agg, list, sizeof(int) * (size_t)part->n);
        rc = order_by_host_rotation(ctx->topo, c, plan->agg, plan);
    }
    free(list);
    return rc;
}

struct order_sort {
    const struct tacio_topo *t;
    int agg_pos, nhosts;
};
static _Thread_local struct order_sort osort;

static int64_t rotation_key(int rank)
{
    const struct tacio_topo *t = osort.t;
    int pos = t->host_order[t->rank_host[rank]];
    return (int64_t)((pos - osort.agg_pos + osort.nhosts) % osort.nhosts) * t->nprocs + rank;
}

static int cmp_rotation(const void *a, const void *b)
{
    int64_t x = rotation_key(*(const int *)a), y = rotation_key(*(const int *)b);
    return (x > y) - (x < y);
}

int order_by_host_rotation(const struct tacio_topo *t, const struct comm *c, const int *agg,
                           struct tacio_plan *plan)
{
    plan->order_ptr = malloc(sizeof(int64_t) * ((size_t)c->a + 1));
    plan->order = malloc(sizeof(int) * (size_t)(c->nnz ? c->nnz : 1));
    if (!plan->order_ptr || !plan->order)
        return tacio_fail(TACIO_ENOMEM, "out of memory for the collection order");
    for (int j = 0; j < c->a; j++) {
        int64_t lo = c->col_ptr[j], n = c->col_ptr[j + 1] - lo;
        plan->order_ptr[j] = lo;
        memcpy(plan->order + lo, c->row + lo, sizeof(int) * (size_t)n);
        osort = (struct order_sort){t, t->host_order[t->rank_host[agg[j]]], t->nused_hosts};
        qsort(plan->order + lo, (size_t)n, sizeof(int), cmp_rotation);
    }
    plan->order_ptr[c->a] = c->nnz;
    return 0;
}

const struct tacio_strategy strategy_tsujita = {
    .name = "tsujita",
    .summary = "Tsujita et al.: striped FDs, aggregators spread over hosts, rotated collection",
    .partition = partition_lustre,
    .assign = tsujita_assign,
    .auto_candidate = true,
};
