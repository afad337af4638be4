/* st3 route: the sparse communication matrix C[i][j] from closed-form prefix
 * sums, one evaluation per (rank, FD piece) inside the rank's span. */
#include "plan.h"

#include <string.h>

struct row_acc {
    int64_t *acc; /* per FD, zero outside touched */
    int *touched;
    int ntouched;
};

struct csr_buf {
    int64_t nnz, cap;
    int *col;
    int64_t *val;
};

static int csr_push(struct csr_buf *b, int col, int64_t val)
{
    if (b->nnz == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 4096;
        int *c = realloc(b->col, sizeof(int) * (size_t)b->cap);
        if (c)
            b->col = c;
        int64_t *v = realloc(b->val, sizeof(int64_t) * (size_t)b->cap);
        if (v)
            b->val = v;
        if (!c || !v)
            return tacio_fail(TACIO_ENOMEM, "out of memory building the communication matrix");
    }
    b->col[b->nnz] = col;
    b->val[b->nnz] = val;
    b->nnz++;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void accumulate_rank(const struct tacio_pattern *pat, const struct partition *part, int rank,
                            struct row_acc *ra)
{
    int64_t a, b;
    pat->ops->span(pat, rank, &a, &b);
    int64_t below = 0; /* prefix(a) is 0: a is the rank's first byte */
    for (int64_t x = a; x < b;) {
        int64_t pe;
        int j = partition_locate(part, x, &pe);
        int64_t e = min64(pe, b);
        int64_t upto = pat->ops->prefix(pat, rank, e);
        if (upto > below) {
            if (ra->acc[j] == 0)
                ra->touched[ra->ntouched++] = j;
            ra->acc[j] += upto - below;
        }
        below = upto;
        x = e;
    }
}

static int emit_row(struct row_acc *ra, bool sort, struct csr_buf *b)
{
    if (sort)
        qsort(ra->touched, (size_t)ra->ntouched, sizeof(int), cmp_int);
    int rc = 0;
    for (int k = 0; k < ra->ntouched; k++) {
        int j = ra->touched[k];
        if (!rc)
            rc = csr_push(b, j, ra->acc[j]);
        ra->acc[j] = 0;
    }
    ra->ntouched = 0;
    return rc;
}

static int build_csc(struct comm *c)
{
    c->col_ptr = xcalloc((size_t)c->a + 1, sizeof(int64_t));
    c->row = malloc(sizeof(int) * (size_t)(c->nnz ? c->nnz : 1));
    c->cval = malloc(sizeof(int64_t) * (size_t)(c->nnz ? c->nnz : 1));
    c->fd_bytes = xcalloc((size_t)c->a, sizeof(int64_t));
    if (!c->col_ptr || !c->row || !c->cval || !c->fd_bytes)
        return tacio_fail(TACIO_ENOMEM, "out of memory building the communication matrix");
    for (int64_t k = 0; k < c->nnz; k++)
        c->col_ptr[c->col[k] + 1]++;
    for (int j = 0; j < c->a; j++)
        c->col_ptr[j + 1] += c->col_ptr[j];
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)(c->a ? c->a : 1));
    if (!fill)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    memcpy(fill, c->col_ptr, sizeof(int64_t) * (size_t)c->a);
    for (int i = 0; i < c->p; i++)
        for (int64_t k = c->row_ptr[i]; k < c->row_ptr[i + 1]; k++) {
            int64_t d = fill[c->col[k]]++;
            c->row[d] = i;
            c->cval[d] = c->val[k];
            c->fd_bytes[c->col[k]] += c->val[k];
        }
    free(fill);
    c->total = 0;
    for (int j = 0; j < c->a; j++)
        c->total += c->fd_bytes[j];
    return 0;
}

int comm_build(const struct tacio_pattern *pat, const struct partition *part, struct comm *c)
{
    memset(c, 0, sizeof *c);
    c->p = pat->nprocs;
    c->a = part->n;
    struct row_acc ra = {xcalloc((size_t)part->n, sizeof(int64_t)),
                         malloc(sizeof(int) * (size_t)(part->n ? part->n : 1)), 0};
    struct csr_buf b = {0};
    c->row_ptr = malloc(sizeof(int64_t) * (size_t)(c->p + 1));
    int rc = ra.acc && ra.touched && c->row_ptr ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int i = 0; !rc && i < c->p; i++) {
        c->row_ptr[i] = b.nnz;
        accumulate_rank(pat, part, i, &ra);
        rc = emit_row(&ra, part->striped, &b);
    }
    free(ra.acc);
    free(ra.touched);
    c->col = b.col;
    c->val = b.val;
    c->nnz = b.nnz;
    if (!rc) {
        c->row_ptr[c->p] = b.nnz;
        rc = build_csc(c);
    }
    if (rc)
        comm_free(c);
    return rc;
}

int plan_comm(const struct plan_ctx *ctx, const struct partition *part, struct comm *out)
{
    return ctx->comm_of ? ctx->comm_of(ctx, part, out) : comm_build(ctx->pat, part, out);
}

int comm_from_rows(int p, int a, int64_t *row_ptr, int *col, int64_t *val, struct comm *c)
{
    memset(c, 0, sizeof *c);
    *c = (struct comm){
        .p = p, .a = a, .nnz = row_ptr[p], .row_ptr = row_ptr, .col = col, .val = val};
    int rc = build_csc(c);
    if (rc)
        comm_free(c);
    return rc;
}

void comm_free(struct comm *c)
{
    free(c->row_ptr);
    free(c->col);
    free(c->val);
    free(c->col_ptr);
    free(c->row);
    free(c->cval);
    free(c->fd_bytes);
    memset(c, 0, sizeof *c);
}
