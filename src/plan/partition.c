/* File-domain partitioners shared by the strategies. */
#include "plan.h"

#include <string.h>

int partition_alloc(struct partition *p, int n)
{
    memset(p, 0, sizeof *p);
    p->dom = xcalloc((size_t)n, sizeof(struct fdom));
    if (!p->dom)
        return tacio_fail(TACIO_ENOMEM, "out of memory for %d file domains", n);
    p->n = n;
    return 0;
}

void partition_free(struct partition *p)
{
    if (p->aux_free)
        p->aux_free(p->aux);
    p->aux = NULL;
    p->aux_free = NULL;
    free(p->dom);
    p->dom = NULL;
    p->n = 0;
}

/* matrix: patterns fix the FDs, one per column, whatever the strategy. */
int partition_fixed(const struct plan_ctx *ctx, struct partition *out)
{
    const struct tacio_pattern *pat = ctx->pat;
    int rc = partition_alloc(out, pat->nfixed);
    for (int j = 0; !rc && j < pat->nfixed; j++)
        out->dom[j] = (struct fdom){pat->fixed_start[j], pat->fixed_start[j + 1], 0, 0, 0};
    return rc;
}

static int64_t round_to_stripe(int64_t off, int64_t unit)
{
    int64_t front = off % unit, back = unit - front;
    return front < back ? off - front : off + back;
}

/* ROMIO's ADIOI_Calc_file_domains: ceil((max-min+1)/n) bytes each, every
 * boundary moved to the nearest multiple of striping_unit when it is set, the
 * last FD ending at max; FDs past the end are empty. */
int partition_even(const struct plan_ctx *ctx, int n, struct partition *out)
{
    if (ctx->pat->nfixed)
        return partition_fixed(ctx, out);
    int rc = partition_alloc(out, n);
    if (rc)
        return rc;
    int64_t lo = ctx->lo, hi = ctx->hi, unit = ctx->h->striping_unit;
    int64_t fd_size = ceil_div(hi - lo, n), start = lo;
    for (int i = 0; i < n; i++) {
        int64_t end = lo + fd_size * (i + 1);
        if (unit > 0)
            end = i == n - 1 ? hi : round_to_stripe(end, unit);
        start = min64(start, hi);
        end = max64(start, min64(end, hi));
        out->dom[i] = (struct fdom){start, end, 0, 0, 0};
        start = end;
    }
    return 0;
}

/* Liao & Choudhary's Lustre layout: stripe k belongs to FD k mod n, so each
 * aggregator always talks to the same subset of storage targets. */
int partition_stripes(const struct plan_ctx *ctx, int n, struct partition *out)
{
    if (ctx->pat->nfixed)
        return partition_fixed(ctx, out);
    int rc = partition_alloc(out, n);
    if (rc)
        return rc;
    int64_t unit = ctx->h->striping_unit > 0 ? ctx->h->striping_unit : 1 << 20;
    out->striped = true;
    out->unit = unit;
    int64_t k0 = ctx->lo / unit;
    for (int j = 0; j < n; j++) {
        int64_t k = k0 + ((j - k0 % n) % n + n) % n;
        int64_t start = min64(max64(k * unit, ctx->lo), ctx->hi);
        out->dom[j] = (struct fdom){start, ctx->hi, unit, unit * n, 0};
    }
    return 0;
}

/* The cb_config_list's ranks, at most `cap` of them (0: no cap). A list no
 * host answers to falls back to ROMIO's default "*:1": ROMIO fails the open
 * then ("no aggregators match") and OMPIO ignores the hint, and the same
 * program must run under both. */
static int ranklist_capped(const struct plan_ctx *ctx, int64_t cap, int **out)
{
    int n = cb_config_ranklist(ctx->topo, cb_config_of(ctx->h), cap, out);
    if (n == 0) {
        free(*out);
        n = cb_config_ranklist(ctx->topo, "*:1", cap, out);
    }
    return n;
}

int ranklist_count(const struct plan_ctx *ctx, int64_t cap)
{
    int *list;
    int n = ranklist_capped(ctx, cap, &list);
    if (n >= 0)
        free(list);
    return n;
}

int romio_ranklist(const struct plan_ctx *ctx, int **out)
{
    return ranklist_capped(ctx, ctx->h->cb_nodes, out);
}
