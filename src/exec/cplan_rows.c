/* Rows of C on request: whenever the planning core needs C for a
 * partition, rank 0 broadcasts the partition and every rank answers with
 * its own exact row, in a fixed-size gather when rows are short. */
#include "cplan.h"
#include "cplan_wire.h"

/* Row entries that ride in the fixed-size gather: a row holds at most one
 * entry a FD, so up to ROW_CAP_WIDE FDs the gather takes every row whole;
 * past them, ROW_CAP entries, and a longer row costs five more collectives
 * (rows_full). Each is a latency a hop, and with more ranks than cores
 * much more: on MPICH 5, 9 ranks on 2 cores, btio's rows (9 FDs) went the
 * long way and a planned call spent 0.12 s planning against 0.03 s for the
 * agreement of a reused one. */
#define ROW_CAP 8
#define ROW_CAP_WIDE 16
#define ROW_WORDS_MAX (2 + 2 * ROW_CAP_WIDE)

/* ---- rows of C, on request ---- */

/* The fixed gather's entries a rank for a partition of nfd FDs: every
 * rank knows nfd from the order, so all agree on the width. */
static int row_cap(int64_t nfd)
{
    return nfd <= ROW_CAP_WIDE ? (int)(nfd > 0 ? nfd : 1) : ROW_CAP;
}

static int row_words(int64_t nfd)
{
    return 2 + 2 * row_cap(nfd);
}

int own_row(const struct call *c, const struct partition *part, struct crow *row)
{
    struct tacio_pattern *pat = NULL;
    int rc = pattern_from_views(1, &c->a.v, &c->a.s0, &c->a.n, &pat);
    if (!rc)
        rc = cmatrix_row_build(pat, 0, part, row);
    tacio_pattern_free(pat);
    return rc;
}

/* Rank 0: C from the fixed-size gather (every row fits). */
static int rows_from_fixed(struct call *c, const int64_t *all, int nfd, struct cmatrix *out)
{
    int p = c->f->nprocs, words = row_words(nfd);
    int64_t nnz = 0;
    for (int r = 0; r < p; r++)
        nnz += all[words * r + 1];
    int64_t *row_ptr = malloc(sizeof(int64_t) * (size_t)(p + 1));
    int64_t *val = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
    int *col = malloc(sizeof(int) * (size_t)(nnz + 1));
    if (!row_ptr || !val || !col) {
        free(row_ptr), free(val), free(col);
        return tacio_fail(TACIO_ENOMEM, "out of memory building C");
    }
    for (int r = 0, k = 0; r < p; r++) {
        row_ptr[r] = k;
        for (int64_t q = 0; q < all[words * r + 1]; q++, k++) {
            col[k] = (int)all[words * r + 2 + 2 * q];
            val[k] = all[words * r + 3 + 2 * q];
        }
    }
    row_ptr[p] = nnz;
    meta_add(c, nnz * 24 + 16 * (int64_t)(p + nfd));
    return cmatrix_from_rows(p, nfd, row_ptr, col, val, out);
}

/* Every rank's entries (col, val) onto rank 0, where counts[r] (NULL on
 * the others) says how many rank r sends; the rank's entries land at
 * displs[r] in *all_col and *all_val. Rank 0 first says whether it could
 * make room, so that no rank sends what rank 0 cannot take. */
static int gather_entries(struct call *c, int n, const int *col, const int64_t *val,
                          const int *counts, int *displs, int **all_col, int64_t **all_val)
{
    int p = c->f->nprocs, ok = 1;
    bool root = c->f->rank == 0;
    if (root) {
        int64_t total = 0;
        for (int r = 0; r < p; r++) {
            displs[r] = (int)min64(total, INT32_MAX);
            total += counts[r];
        }
        *all_col = total < INT32_MAX ? malloc(sizeof(int) * (size_t)(total + 1)) : NULL;
        *all_val = total < INT32_MAX ? malloc(sizeof(int64_t) * (size_t)(total + 1)) : NULL;
        ok = *all_col && *all_val;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, c->f->comm);
    if (ok) {
        MPI_Gatherv(col, n, MPI_INT, root ? *all_col : NULL, counts, displs, MPI_INT, 0,
                    c->f->comm);
        MPI_Gatherv(val, n, MPI_INT64_T, root ? *all_val : NULL, counts, displs, MPI_INT64_T, 0,
                    c->f->comm);
    } else if (root) {
        free(*all_col), free(*all_val);
        *all_col = NULL, *all_val = NULL;
    }
    return ok ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory gathering C");
}

/* Every rank: its whole row, gathered on rank 0 (some rows were long),
 * which brings counts and displs (p each; NULL on the others). */
static int rows_full(struct call *c, int nfd, int *counts, int *displs, struct cmatrix *out)
{
    int p = c->f->nprocs, root = c->f->rank == 0, n = (int)c->planning.row.nnz, *col = NULL;
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, c->f->comm);
    int64_t *val = NULL, *row_ptr = NULL;
    int rc =
        gather_entries(c, n, c->planning.row.col, c->planning.row.val, counts, displs, &col, &val);
    if (root && !rc) {
        row_ptr = malloc(sizeof(int64_t) * (size_t)(p + 1));
        rc = row_ptr ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
        for (int r = 0; !rc && r <= p; r++)
            row_ptr[r] = r < p ? displs[r] : (int64_t)displs[p - 1] + counts[p - 1];
    }
    if (root && !rc) {
        meta_add(c, row_ptr[p] * 24 + 16 * (int64_t)(p + nfd));
        rc = cmatrix_from_rows(p, nfd, row_ptr, col, val, out);
        row_ptr = NULL, col = NULL, val = NULL;
    }
    free(col), free(val), free(row_ptr);
    return rc;
}

/* Every rank: its row of C for a partition of nfd FDs (part; NULL: it
 * could not receive it), gathered on rank 0 into *out. */
static int gather_rows(struct call *c, int64_t nfd, const struct partition *part,
                       struct cmatrix *out)
{
    crow_free(&c->planning.row);
    int local = part ? own_row(c, part, &c->planning.row) : c->planning.rc;
    note_failure(c, local);
    int cap = row_cap(nfd), words = row_words(nfd);
    int64_t mine[ROW_WORDS_MAX] = {local != 0, local ? 0 : min64(c->planning.row.nnz, cap + 1)};
    for (int64_t k = 0; !local && k < c->planning.row.nnz && k < cap; k++)
        mine[2 + 2 * k] = c->planning.row.col[k], mine[3 + 2 * k] = c->planning.row.val[k];
    bool root = c->f->rank == 0;
    int64_t *all = root ? malloc(sizeof(int64_t) * (size_t)words * (size_t)c->f->nprocs) : NULL;
    int rc = !root || all ? 0 : note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    static int64_t sink[ROW_WORDS_MAX]; /* a root that failed still takes part */
    if (root && !all)
        MPI_Gather(mine, words, MPI_INT64_T, sink, 0, MPI_INT64_T, 0, c->f->comm);
    else
        MPI_Gather(mine, words, MPI_INT64_T, all, words, MPI_INT64_T, 0, c->f->comm);
    if (!root || rc) {
        free(all);
        return rc ? rc : local;
    }
    bool long_rows = false;
    rc = local;
    for (int r = 1; r < c->f->nprocs && !rc; r++) { /* rank 0 knows its own */
        if (all[words * r])
            rc = c->planning.peer_failed = tacio_fail(TACIO_EIO, "rank %d failed", r);
        long_rows |= all[words * r + 1] > cap;
    }
    int *counts = NULL, *displs = NULL; /* made before the others are asked */
    if (!rc && long_rows) {
        counts = malloc(sizeof(int) * (size_t)c->f->nprocs);
        displs = malloc(sizeof(int) * (size_t)c->f->nprocs);
        rc = counts && displs ? 0 : note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    }
    if (!rc && long_rows) {
        struct order o = {.cmd = CMD_ROWS_FULL};
        order_bcast(c, &o, NULL, 4);
        rc = note_failure(c, rows_full(c, part->n, counts, displs, out));
    } else if (!rc)
        rc = note_failure(c, rows_from_fixed(c, all, part->n, out));
    free(all), free(counts), free(displs);
    return rc;
}

/* Rank 0's cmatrix_of: ask every rank for its row. */
int rows_from_ranks(const struct plan_ctx *ctx, const struct partition *part, struct cmatrix *out)
{
    struct call *c = ctx->cmatrix_arg;
    struct order o = {.cmd = CMD_ROWS, .n = part->n, .striped = part->striped, .unit = part->unit};
    order_bcast(c, &o, part, 4);
    chunks_bcast(c, &o, (struct partition *)part, 4);
    return gather_rows(c, part->n, part, out);
}

/* The other ranks: answer rank 0's requests until it sends anything else. */
void serve_rows(struct call *c, struct order *o)
{
    for (;;) {
        order_bcast(c, o, NULL, 4);
        if (o->cmd == CMD_ROWS_FULL) {
            rows_full(c, 0, NULL, NULL, NULL);
            continue;
        }
        if (o->cmd == CMD_SUMMARY) {
            gather_summary(c, c->planning.rc, SUMMARY_RUNS);
            continue;
        }
        if (o->cmd != CMD_ROWS)
            return;
        struct partition part = {0};
        int rc = note_failure(c, partition_alloc(&part, (int)o->n));
        part.striped = o->striped;
        part.unit = o->unit;
        chunks_bcast(c, o, rc ? NULL : &part, 4);
        gather_rows(c, o->n, rc ? NULL : &part, NULL);
        partition_free(&part);
    }
}
