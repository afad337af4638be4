/* The collection order of a plan (Tsujita et al.): for each file domain,
 * the ranks that feed it, sorted by their host's position and rotated to
 * start at the host after the aggregator's, so that in each step the
 * senders of a host are drained by one aggregator rather than by all at
 * once. A rule of the plan (order_rule) that the pipeline applies once C is
 * known, whichever strategy set it. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

/* n ranks sorted by their host's position (stable, so rank order inside a
 * host), LSD radix on 8-bit digits of the position: O(n) per column where
 * a comparison sort of a million ranks' columns took most of the plan. */
static void sort_by_host(int *ranks, int64_t n, const int *rank_pos, int digits, int *tmp)
{
    for (int d = 0; d < digits; d++) {
        int64_t count[257] = {0};
        int shift = 8 * d;
        for (int64_t k = 0; k < n; k++)
            count[((rank_pos[ranks[k]] >> shift) & 255) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (int64_t k = 0; k < n; k++)
            tmp[count[(rank_pos[ranks[k]] >> shift) & 255]++] = ranks[k];
        memcpy(ranks, tmp, sizeof(int) * (size_t)n);
    }
}

/* Sorted by host position, then rotated so the aggregator's host comes
 * first and the others follow in host order, wrapping around. */
static void rotate_from(int *ranks, int64_t n, const int *rank_pos, int start, int *tmp)
{
    int64_t k = 0;
    while (k < n && rank_pos[ranks[k]] < start)
        k++;
    memcpy(tmp, ranks + k, sizeof(int) * (size_t)(n - k));
    memcpy(tmp + n - k, ranks, sizeof(int) * (size_t)k);
    memcpy(ranks, tmp, sizeof(int) * (size_t)n);
}

static int order_by_host_rotation(const struct tacio_topo *t, const struct cmatrix *c,
                                  const int *agg, struct tacio_plan *plan)
{
    int64_t widest = 0;
    for (int j = 0; j < c->a; j++)
        widest = max64(widest, c->col_ptr[j + 1] - c->col_ptr[j]);
    plan->order_ptr = malloc(sizeof(int64_t) * ((size_t)c->a + 1));
    plan->order = malloc(sizeof(int) * (size_t)(c->nnz ? c->nnz : 1));
    int *rank_pos = malloc(sizeof(int) * (size_t)(t->nprocs + 1));
    int *tmp = malloc(sizeof(int) * (size_t)(widest + 1));
    int rc = 0;
    if (!plan->order_ptr || !plan->order || !rank_pos || !tmp)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory for the collection order");
    int digits = 1;
    while ((t->nused_hosts - 1) >> (8 * digits))
        digits++;
    for (int r = 0; !rc && r < t->nprocs; r++)
        rank_pos[r] = t->host_order[t->rank_host[r]];
    for (int j = 0; !rc && j < c->a; j++) {
        int64_t lo = c->col_ptr[j], n = c->col_ptr[j + 1] - lo;
        int *ranks = plan->order + lo;
        plan->order_ptr[j] = lo;
        memcpy(ranks, c->row + lo, sizeof(int) * (size_t)n);
        sort_by_host(ranks, n, rank_pos, digits, tmp);
        rotate_from(ranks, n, rank_pos, rank_pos[agg[j]], tmp);
    }
    if (!rc)
        plan->order_ptr[c->a] = c->nnz;
    free(rank_pos);
    free(tmp);
    return rc;
}

int order_build(const struct tacio_topo *t, const struct cmatrix *c, struct tacio_plan *plan)
{
    return plan->order_rule == ORDER_HOST_ROTATION ? order_by_host_rotation(t, c, plan->agg, plan)
                                                   : 0;
}
