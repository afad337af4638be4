/* st2 at scale: rank 0 plans, every rank helps with what only it knows.
 *
 * Rank 0 gathers each rank's span and bytes (or, for strategies that read
 * the byte distribution, SUMMARY_RUNS byte quantiles of its access) and runs
 * the planning core on that summary. Whenever the core needs C for a
 * partition, rank 0 broadcasts the partition and every rank answers with its
 * own exact row (CMD_ROWS); CMD_DONE ends the exchange. Rank 0 then
 * broadcasts the plan: FDs, aggregators, senders per FD, metrics. */
#include "coll.h"

#include <string.h>

#define SUMMARY_RUNS 16

enum { CMD_ROWS = 1, CMD_DONE_OK, CMD_DONE_AGREED, CMD_DONE_FAILED };

int coll_own_row(const struct call *c, const struct partition *part, struct comm *row)
{
    struct tacio_pattern *pat = NULL;
    int rc = pattern_from_views(1, &c->v, &c->s0, &c->n, &pat);
    if (!rc)
        rc = comm_build(pat, part, row);
    tacio_pattern_free(pat);
    return rc;
}

/* ---- the summary ---- */

/* This rank's access as k runs of equal bytes: (off, len, bytes) each. The
 * runs are disjoint because the access is monotonic in the file. */
static int summarize(const struct call *c, int k, int64_t *out)
{
    int m = 0;
    for (int q = 0; q < k; q++) {
        int64_t a = c->s0 + c->n * q / k, b = c->s0 + c->n * (q + 1) / k;
        if (b <= a)
            continue;
        int64_t lo = view_offset_of(&c->v, a), hi = view_offset_of(&c->v, b - 1) + 1;
        out[3 * m] = lo;
        out[3 * m + 1] = hi - lo;
        out[3 * m + 2] = b - a;
        m++;
    }
    return m;
}

struct gathered {
    int *counts, *displs;
    int64_t *all;
};

static void gathered_free(struct gathered *g)
{
    free(g->counts);
    free(g->displs);
    free(g->all);
    memset(g, 0, sizeof *g);
}

/* Gather n int64 from every rank on rank 0 (counts in int64). A rank passes
 * n < 0 when it failed later than local, its own earlier result; rank 0
 * then fails. The result is agreed. */
static int gather_on_root(struct call *c, int local, const int64_t *mine, int n,
                          struct gathered *g)
{
    MPI_Comm comm = c->f->comm;
    int p = c->f->nprocs, root = c->f->rank == 0;
    if (root && !local) {
        g->counts = malloc(sizeof(int) * (size_t)p);
        g->displs = malloc(sizeof(int) * (size_t)p);
        local = g->counts && g->displs ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    int rc = exec_agree(comm, local);
    if (rc)
        return rc;
    MPI_Gather(&n, 1, MPI_INT, g->counts, 1, MPI_INT, 0, comm);
    int64_t total = 0;
    for (int r = 0; root && r < p && !local; r++) {
        if (g->counts[r] < 0)
            local = tacio_fail(TACIO_ENOMEM, "rank %d failed (out of memory)", r);
        g->displs[r] = (int)total;
        total += g->counts[r];
    }
    if (root && !local && total >= INT32_MAX)
        local = tacio_fail(TACIO_ENOMEM, "%lld words of plan input is too many for rank 0",
                           (long long)total);
    if (root && !local && !(g->all = malloc(sizeof(int64_t) * (size_t)(total ? total : 1))))
        local = tacio_fail(TACIO_ENOMEM, "out of memory for the plan input");
    if (root && !local)
        meta_add(c, total * 8 + 8 * (int64_t)p);
    rc = exec_agree(comm, local);
    if (!rc)
        MPI_Gatherv(mine, n > 0 ? n : 0, MPI_INT64_T, g->all, g->counts, g->displs, MPI_INT64_T, 0,
                    comm);
    return rc;
}

/* Rank 0: the summary pattern from the gathered runs. */
static int summary_pattern(const struct call *c, const struct gathered *g,
                           struct tacio_pattern **out)
{
    int p = c->f->nprocs;
    int64_t n = 0;
    for (int r = 0; r < p; r++)
        n += g->counts[r] / 3;
    int64_t *first = malloc(sizeof(int64_t) * (size_t)(p + 1));
    int64_t *arr = malloc(sizeof(int64_t) * (size_t)(3 * n + 1));
    int rc = first && arr ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int r = 0, k = 0; !rc && r < p; r++) {
        first[r] = k;
        for (int q = 0; q < g->counts[r] / 3; q++, k++) {
            const int64_t *run = g->all + g->displs[r] + 3 * q;
            arr[k] = run[0];
            arr[n + k] = run[1];
            arr[2 * n + k] = run[2];
        }
    }
    if (!rc) {
        first[p] = n;
        rc = pattern_from_summary(p, first, arr, arr + n, arr + 2 * n, out);
    }
    free(first);
    free(arr);
    return rc;
}

/* ---- rows of C, on request ---- */

/* Every rank: its row of C for part, gathered on rank 0 into *out. */
static int gather_rows(struct call *c, const struct partition *part, struct comm *out)
{
    struct comm row = {0};
    int local = coll_own_row(c, part, &row);
    int64_t *pairs = local ? NULL : malloc(sizeof(int64_t) * (size_t)(2 * row.nnz + 1));
    if (!local && !pairs)
        local = tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t k = 0; !local && k < row.nnz; k++) {
        pairs[2 * k] = row.col[k];
        pairs[2 * k + 1] = row.val[k];
    }
    struct gathered g = {0};
    int rc = gather_on_root(c, 0, pairs, local ? -1 : (int)(2 * row.nnz), &g);
    comm_free(&row);
    free(pairs);
    if (rc || c->f->rank != 0) {
        gathered_free(&g);
        return rc;
    }
    int p = c->f->nprocs;
    int64_t nnz = (g.displs[p - 1] + g.counts[p - 1]) / 2;
    int64_t *row_ptr = malloc(sizeof(int64_t) * (size_t)(p + 1)), *val = malloc(8 * (nnz + 1));
    int *col = malloc(sizeof(int) * (size_t)(nnz + 1));
    if (!row_ptr || !val || !col) {
        free(row_ptr), free(val), free(col), gathered_free(&g);
        return tacio_fail(TACIO_ENOMEM, "out of memory building C");
    }
    for (int r = 0; r < p; r++)
        row_ptr[r] = g.displs[r] / 2;
    row_ptr[p] = nnz;
    for (int64_t k = 0; k < nnz; k++) {
        col[k] = (int)g.all[2 * k];
        val[k] = g.all[2 * k + 1];
    }
    gathered_free(&g);
    meta_add(c, nnz * 24 + 16 * (int64_t)(p + part->n));
    return comm_from_rows(p, part->n, row_ptr, col, val, out);
}

/* The FDs of a partition travel as (start, end, unit, stride). */
static int bcast_partition(struct call *c, struct partition *part)
{
    int64_t hdr[3] = {part->n, part->striped, part->unit};
    MPI_Bcast(hdr, 3, MPI_INT64_T, 0, c->f->comm);
    int local = 0;
    if (c->f->rank != 0) {
        local = partition_alloc(part, (int)hdr[0]);
        part->striped = hdr[1];
        part->unit = hdr[2];
    }
    int rc = exec_agree(c->f->comm, local);
    if (!rc && part->n)
        MPI_Bcast(part->fd, 4 * part->n, MPI_INT64_T, 0, c->f->comm);
    return rc;
}

/* Rank 0's comm_of: ask every rank for its row. */
static int rows_from_ranks(const struct plan_ctx *ctx, const struct partition *part,
                           struct comm *out)
{
    struct call *c = ctx->comm_arg;
    int cmd = CMD_ROWS;
    MPI_Bcast(&cmd, 1, MPI_INT, 0, c->f->comm);
    int rc = bcast_partition(c, (struct partition *)part);
    if (!rc)
        rc = gather_rows(c, part, out);
    if (rc > 0) /* agreed on every rank: the plan stops here everywhere */
        c->plan_rc = rc;
    return rc;
}

/* The other ranks: answer rank 0's requests until it is done. */
static int serve_rows(struct call *c)
{
    for (;;) {
        int cmd;
        MPI_Bcast(&cmd, 1, MPI_INT, 0, c->f->comm);
        if (cmd != CMD_ROWS)
            return cmd;
        struct partition part = {0};
        int rc = bcast_partition(c, &part);
        if (!rc)
            rc = gather_rows(c, &part, NULL);
        partition_free(&part);
        if (rc)
            c->plan_rc = rc;
    }
}

/* ---- the plan, broadcast ---- */

struct plan_head {
    int nfd; /* -1: no plan, nobody accesses a byte */
    int ordered, mem_shortfall;
    bool striped;
    int64_t unit, lap_cost;
    struct metrics m;
    char strategy[32], detail[160];
};

static int plan_receive(struct call *c, const struct plan_head *h)
{
    struct tacio_plan *p = xcalloc(1, sizeof *p);
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    c->plan = p;
    p->nprocs = c->f->nprocs;
    p->m = h->m;
    p->lap_cost = h->lap_cost;
    p->mem_shortfall = h->mem_shortfall;
    memcpy(p->strategy, h->strategy, sizeof p->strategy);
    memcpy(p->detail, h->detail, sizeof p->detail);
    int rc = partition_alloc(&p->part, h->nfd);
    p->part.striped = h->striped;
    p->part.unit = h->unit;
    p->agg = malloc(sizeof(int) * (size_t)(h->nfd + 1));
    return rc ? rc : p->agg ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
}

static int bcast_plan(struct call *c)
{
    struct tacio_plan *p = c->plan;
    struct plan_head h;
    memset(&h, 0, sizeof h); /* padding travels too */
    h.nfd = p ? p->part.n : -1;
    if (p) {
        h.ordered = !!p->order;
        h.mem_shortfall = p->mem_shortfall;
        h.striped = p->part.striped;
        h.unit = p->part.unit;
        h.lap_cost = p->lap_cost;
        h.m = p->m;
        memcpy(h.strategy, p->strategy, sizeof h.strategy);
        memcpy(h.detail, p->detail, sizeof h.detail);
    }
    MPI_Bcast(&h, sizeof h, MPI_BYTE, 0, c->f->comm);
    if (h.nfd < 0)
        return 0;
    int local = c->f->rank != 0 ? plan_receive(c, &h) : 0;
    c->nsenders = malloc(sizeof(int) * (size_t)(h.nfd + 1));
    if (!local && !c->nsenders)
        local = tacio_fail(TACIO_ENOMEM, "out of memory");
    int rc = exec_agree(c->f->comm, local);
    if (rc)
        return rc;
    for (int j = 0; c->f->rank == 0 && j < h.nfd; j++)
        c->nsenders[j] = (int)(p->comm.col_ptr[j + 1] - p->comm.col_ptr[j]);
    p = c->plan;
    MPI_Bcast(p->part.fd, 4 * h.nfd, MPI_INT64_T, 0, c->f->comm);
    MPI_Bcast(p->agg, h.nfd, MPI_INT, 0, c->f->comm);
    MPI_Bcast(c->nsenders, h.nfd, MPI_INT, 0, c->f->comm);
    c->ordered = h.ordered;
    meta_add(c, 40 * (int64_t)h.nfd + (int64_t)sizeof h);
    return 0;
}

/* ---- rank 0 plans ---- */

static int plan_on_root(struct call *c, const struct gathered *g)
{
    struct tacio_file *f = c->f;
    struct tacio_pattern *pat = NULL;
    int rc = summary_pattern(c, g, &pat);
    struct plan_ctx ctx = {pat, f->topo, f->hints, 0, 0, rows_from_ranks, c};
    if (!rc)
        pattern_range(pat, &ctx.lo, &ctx.hi);
    if (!rc && ctx.lo < ctx.hi)
        rc = plan_run(&ctx, strategy_find(f->hints->strategy), &c->plan);
    tacio_pattern_free(pat);
    return rc;
}

int coll_plan(struct call *c, int local)
{
    const struct tacio_strategy *s = strategy_find(c->f->hints->strategy);
    int k = s && s->reads_distribution ? SUMMARY_RUNS : 1;
    int64_t mine[3 * SUMMARY_RUNS];
    struct gathered g = {0};
    int rc = gather_on_root(c, local, mine, 3 * summarize(c, k, mine), &g);
    if (rc)
        return rc;
    int cmd;
    if (c->f->rank == 0) {
        local = plan_on_root(c, &g);
        cmd = c->plan_rc ? CMD_DONE_AGREED : local ? CMD_DONE_FAILED : CMD_DONE_OK;
        MPI_Bcast(&cmd, 1, MPI_INT, 0, c->f->comm);
    } else
        cmd = serve_rows(c);
    gathered_free(&g);
    if (cmd == CMD_DONE_AGREED)
        return c->plan_rc;
    rc = exec_agree(c->f->comm, c->f->rank == 0 ? local : 0);
    return rc ? rc : bcast_plan(c);
}

void coll_plan_free(struct call *c)
{
    tacio_plan_free(c->plan);
    free(c->nsenders);
}
