/* st3 route: the sparse communication matrix C[i][j] = bytes of rank i in
 * FD j, stored by FD (CSC) only.
 *
 * A rank's row comes from its regions (pattern.h): a region inside one FD
 * adds its bytes there; only a region that straddles FD boundaries asks the
 * pattern's prefix() at each boundary. A cube rank of 101^3 elements is 101
 * regions, whatever the FD count, so a row costs about its own length.
 *
 * The columns are filled in two passes over the ranks, counting then
 * storing, so C is never held twice (by rank and by FD): at a million ranks
 * C is 10^8 entries, and one copy of it is most of the planner's memory. */
#include "plan.h"

#include <string.h>

static void row_add(struct row_acc *ra, int j, int64_t bytes)
{
    if (bytes == 0)
        return;
    if (ra->acc[j] == 0)
        ra->touched[ra->ntouched++] = j;
    ra->acc[j] += bytes;
}

/* Contiguous FDs: a table of the FD holding the start of each of n equal
 * buckets of the range, so finding an offset's FD is a division and a step
 * or two forward, for ROMIO's even FDs and mccio's nearly even ones alike. */
static int fd_index_build(struct row_acc *ra)
{
    const struct partition *p = ra->part;
    int n = p->n;
    ra->lo = p->dom[0].start;
    ra->width = max64(1, ceil_div(p->dom[n - 1].end - ra->lo, n));
    ra->first = malloc(sizeof(int) * (size_t)n);
    if (!ra->first)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int b = 0, j = 0; b < n; b++) {
        int64_t x = ra->lo + ra->width * b;
        while (j < n - 1 && p->dom[j].end <= x)
            j++;
        ra->first[b] = j;
    }
    return 0;
}

static int locate(struct row_acc *ra, int64_t x, int64_t *piece_end)
{
    const struct partition *p = ra->part;
    if (p->striped)
        return partition_locate(p, x, piece_end);
    int j = ra->first[min64(max64(0, x - ra->lo) / ra->width, p->n - 1)];
    while (j < p->n - 1 && p->dom[j].end <= x)
        j++;
    *piece_end = p->dom[j].end;
    return j;
}

/* The piece after the one that ended at x: striped FDs deal their stripes
 * round-robin, so it is the next FD's stripe, found without a division. */
static int next_piece(struct row_acc *ra, int j, int64_t x, int64_t *piece_end)
{
    const struct partition *p = ra->part;
    if (!p->striped)
        return locate(ra, x, piece_end);
    *piece_end = x + p->unit;
    return j + 1 == p->n ? 0 : j + 1;
}

/* The region's bytes below x: by its block structure, else prefix(). */
static int64_t bytes_below(const struct row_acc *ra, const struct region *g, int64_t base,
                           int64_t x)
{
    if (x == g->end)
        return g->bytes;
    if (g->block)
        return region_below(g, x);
    return ra->pat->ops->prefix(ra->pat, ra->rank, x) - base;
}

/* A block-structured region over striped FDs, from piece j ending at pe:
 * every piece is one stripe further, so the blocks below each piece's end
 * advance by a fixed quotient and remainder, kept without dividing (a
 * million ranks on 1 MiB stripes cross 10^9 stripe ends). */
static void add_striped_blocks(struct row_acc *ra, const struct region *g, int j, int64_t pe)
{
    const struct partition *p = ra->part;
    int64_t q = p->unit / g->stride, qr = p->unit % g->stride;
    int64_t d = pe - g->off, rows = d / g->stride, rem = d % g->stride, below = 0;
    for (;;) {
        if (pe >= g->end) {
            row_add(ra, j, g->bytes - below);
            return;
        }
        int64_t upto = rows * g->block + (rem < g->block ? rem : g->block);
        row_add(ra, j, upto - below);
        below = upto;
        j = next_piece(ra, j, pe, &pe);
        rows += q;
        rem += qr;
        if (rem >= g->stride) {
            rem -= g->stride;
            rows++;
        }
    }
}

static void add_region(const struct region *g, void *ctx)
{
    struct row_acc *ra = ctx;
    if (g->bytes == 0)
        return;
    int64_t pe;
    int j = locate(ra, g->off, &pe);
    if (g->end <= pe) { /* the common case: the region lies in one FD */
        row_add(ra, j, g->bytes);
        return;
    }
    if (g->block && ra->part->striped) {
        add_striped_blocks(ra, g, j, pe);
        return;
    }
    int64_t base = g->block ? 0 : ra->pat->ops->prefix(ra->pat, ra->rank, g->off), below = 0;
    for (int64_t x = g->off; x < g->end;) {
        if (x != g->off)
            j = next_piece(ra, j, x, &pe);
        int64_t e = pe > x ? min64(pe, g->end) : g->end; /* past the last FD: keep it there */
        int64_t upto = bytes_below(ra, g, base, e);
        row_add(ra, j, upto - below);
        below = upto;
        x = e;
    }
}

/* Accumulates rank's row; touched lists its FDs, in increasing order when
 * sorted is set. C's columns fill in rank order whatever a row's order, so
 * only a row handed out as such (cmatrix_row_build) is sorted. */
void row_compute(struct row_acc *ra, int rank, bool sorted)
{
    ra->rank = rank;
    pattern_regions(ra->pat, rank, add_region, ra);
    /* contiguous FDs are met in file order; a striped FD recurs */
    if (sorted && ra->part->striped)
        qsort(ra->touched, (size_t)ra->ntouched, sizeof(int), cmp_int);
}

void row_clear(struct row_acc *ra)
{
    for (int k = 0; k < ra->ntouched; k++)
        ra->acc[ra->touched[k]] = 0;
    ra->ntouched = 0;
}

int row_acc_init(struct row_acc *ra, const struct tacio_pattern *pat, const struct partition *part)
{
    *ra = (struct row_acc){.pat = pat,
                           .part = part,
                           .acc = xcalloc((size_t)part->n + 1, sizeof(int64_t)),
                           .touched = malloc(sizeof(int) * (size_t)(part->n + 1))};
    if (!ra->acc || !ra->touched)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    return part->striped || part->n == 0 ? 0 : fd_index_build(ra);
}

void row_acc_free(struct row_acc *ra)
{
    free(ra->acc);
    free(ra->touched);
    free(ra->first);
}

static int cmatrix_alloc(struct cmatrix *c, int p, int a)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    c->a = a;
    c->col_ptr = xcalloc((size_t)a + 2, sizeof(int64_t));
    c->fd_bytes = xcalloc((size_t)a + 1, sizeof(int64_t));
    return c->col_ptr && c->fd_bytes ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
}

/* col_ptr[j + 1] holds column j's count: make col_ptr the columns' starts
 * and allocate the entries. */
static int cmatrix_alloc_entries(struct cmatrix *c)
{
    for (int j = 0; j < c->a; j++)
        c->col_ptr[j + 1] += c->col_ptr[j];
    c->nnz = c->col_ptr[c->a];
    c->row = malloc(sizeof(int) * (size_t)(c->nnz ? c->nnz : 1));
    c->cval = malloc(sizeof(int64_t) * (size_t)(c->nnz ? c->nnz : 1));
    if (!c->row || !c->cval)
        return tacio_fail(TACIO_ENOMEM, "out of memory for the communication matrix (%lld entries)",
                          (long long)c->nnz);
    return 0;
}

/* Stores entry (i, j, v); fill[j] is column j's next free slot. */
static void cmatrix_put(struct cmatrix *c, int64_t *fill, int i, int j, int64_t v)
{
    int64_t d = fill[j]++;
    c->row[d] = i;
    c->cval[d] = v;
    c->fd_bytes[j] += v;
}

static void cmatrix_totals(struct cmatrix *c)
{
    c->total = 0;
    for (int j = 0; j < c->a; j++)
        c->total += c->fd_bytes[j];
}

/* A share of the ranks, [r0, r1), for cmatrix_build's passes: count its
 * entries per FD, then store them from the slots reserved for it. */
struct build_share {
    const struct tacio_pattern *pat;
    const struct partition *part;
    struct cmatrix *c;
    int r0, r1;
    bool store;
    int64_t *next;  /* per FD: entries counted, then the next slot to fill */
    int64_t *bytes; /* per FD: the share's bytes */
};

static int build_pass(void *arg)
{
    struct build_share *s = arg;
    struct row_acc ra;
    int rc = row_acc_init(&ra, s->pat, s->part);
    for (int i = s->r0; !rc && i < s->r1; i++) {
        row_compute(&ra, i, false);
        for (int k = 0; k < ra.ntouched; k++) {
            int j = ra.touched[k];
            int64_t d = s->next[j]++;
            if (s->store) {
                s->c->row[d] = i;
                s->c->cval[d] = ra.acc[j];
                s->bytes[j] += ra.acc[j];
            }
        }
        row_clear(&ra);
    }
    row_acc_free(&ra);
    return rc;
}

/* After counting: C's column starts, and each share's first slot in each
 * column (shares in rank order, so every column stays in rank order). */
static int reserve_slots(struct cmatrix *c, struct build_share *sh, int n)
{
    for (int j = 0; j < c->a; j++)
        for (int k = 0; k < n; k++)
            c->col_ptr[j + 1] += sh[k].next[j];
    int rc = cmatrix_alloc_entries(c);
    for (int j = 0; !rc && j < c->a; j++)
        for (int k = 0, at = 0; k < n; k++) {
            int64_t count = sh[k].next[j];
            sh[k].next[j] = c->col_ptr[j] + at;
            at += (int)count; /* a column has at most one entry per rank */
        }
    return rc;
}

int cmatrix_build(const struct tacio_pattern *pat, const struct partition *part, int threads,
                  struct cmatrix *c)
{
    int n = plan_threads(pat->nprocs, threads), rc = cmatrix_alloc(c, pat->nprocs, part->n);
    struct build_share *sh = rc ? NULL : xcalloc((size_t)n, sizeof *sh);
    if (!rc && !sh)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int k = 0; !rc && k < n; k++) {
        sh[k] = (struct build_share){pat,
                                     part,
                                     c,
                                     (int)((int64_t)pat->nprocs * k / n),
                                     (int)((int64_t)pat->nprocs * (k + 1) / n),
                                     false,
                                     xcalloc((size_t)part->n + 1, sizeof(int64_t)),
                                     xcalloc((size_t)part->n + 1, sizeof(int64_t))};
        if (!sh[k].next || !sh[k].bytes)
            rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    if (!rc) /* pass 1: count per FD */
        rc = parallel_run(n, build_pass, sh, sizeof *sh);
    if (!rc)
        rc = reserve_slots(c, sh, n);
    for (int k = 0; !rc && k < n; k++)
        sh[k].store = true;
    if (!rc) /* pass 2: store */
        rc = parallel_run(n, build_pass, sh, sizeof *sh);
    for (int k = 0; sh && k < n; k++) {
        for (int j = 0; !rc && j < part->n; j++)
            c->fd_bytes[j] += sh[k].bytes[j];
        free(sh[k].next);
        free(sh[k].bytes);
    }
    free(sh);
    if (!rc)
        cmatrix_totals(c);
    else
        cmatrix_free(c);
    return rc;
}

int cmatrix_row_build(const struct tacio_pattern *pat, int rank, const struct partition *part,
                      struct crow *out)
{
    memset(out, 0, sizeof *out);
    struct row_acc ra;
    int rc = row_acc_init(&ra, pat, part);
    if (!rc) {
        row_compute(&ra, rank, true);
        out->col = malloc(sizeof(int) * (size_t)(ra.ntouched + 1));
        out->val = malloc(sizeof(int64_t) * (size_t)(ra.ntouched + 1));
        if (!out->col || !out->val)
            rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    for (int k = 0; !rc && k < ra.ntouched; k++) {
        out->col[k] = ra.touched[k];
        out->val[k] = ra.acc[ra.touched[k]];
    }
    if (!rc)
        out->nnz = ra.ntouched;
    row_acc_free(&ra);
    if (rc)
        crow_free(out);
    return rc;
}

void crow_free(struct crow *r)
{
    free(r->col);
    free(r->val);
    memset(r, 0, sizeof *r);
}

int plan_cmatrix(const struct plan_ctx *ctx, const struct partition *part, struct cmatrix *out)
{
    return ctx->cmatrix_of ? ctx->cmatrix_of(ctx, part, out)
                           : cmatrix_build(ctx->pat, part, ctx->threads, out);
}

int cmatrix_from_rows(int p, int a, int64_t *row_ptr, int *col, int64_t *val, struct cmatrix *c)
{
    int rc = cmatrix_alloc(c, p, a);
    for (int64_t k = 0; !rc && k < row_ptr[p]; k++)
        c->col_ptr[col[k] + 1]++;
    if (!rc)
        rc = cmatrix_alloc_entries(c);
    int64_t *fill = rc ? NULL : malloc(sizeof(int64_t) * (size_t)(a + 1));
    if (!rc && !fill)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    if (!rc)
        memcpy(fill, c->col_ptr, sizeof(int64_t) * (size_t)a);
    for (int i = 0; !rc && i < p; i++)
        for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            cmatrix_put(c, fill, i, col[k], val[k]);
    free(fill);
    free(row_ptr);
    free(col);
    free(val);
    if (!rc)
        cmatrix_totals(c);
    else
        cmatrix_free(c);
    return rc;
}

struct pair {
    int row;
    int64_t val;
};

static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

/* Old FDs [j0, j1) form new FD n when they tile it exactly; -1 otherwise. */
static int group_end(const struct partition *old, int j0, const struct fdom *dom)
{
    if (dom->unit || j0 >= old->n || old->dom[j0].start != dom->start)
        return -1;
    int j = j0;
    while (j < old->n && old->dom[j].end <= dom->end && !old->dom[j].unit)
        j++;
    return j > j0 && old->dom[j - 1].end == dom->end ? j : -1;
}

/* The n entries of v sorted by rank and written to row and val with each
 * rank's bytes summed; returns how many were written. */
static int64_t sum_by_row(struct pair *v, int64_t n, int *row, int64_t *val)
{
    qsort(v, (size_t)n, sizeof *v, cmp_pair);
    int64_t w = 0;
    for (int64_t k = 0; k < n; k++) {
        if (w > 0 && row[w - 1] == v[k].row) {
            val[w - 1] += v[k].val;
            continue;
        }
        row[w] = v[k].row;
        val[w++] = v[k].val;
    }
    return w;
}

/* Writes the merged column of old columns [j0, j1) at c->row + w: a group's
 * entries are copied out first, as the output may overlap them. */
static int64_t merge_group(struct cmatrix *c, int j0, int j1, int64_t w, struct pair *scratch)
{
    int64_t lo = c->col_ptr[j0], hi = c->col_ptr[j1];
    if (j1 - j0 == 1) {
        memmove(c->row + w, c->row + lo, sizeof(int) * (size_t)(hi - lo));
        memmove(c->cval + w, c->cval + lo, sizeof(int64_t) * (size_t)(hi - lo));
        return hi - lo;
    }
    for (int64_t k = lo; k < hi; k++)
        scratch[k - lo] = (struct pair){c->row[k], c->cval[k]};
    return sum_by_row(scratch, hi - lo, c->row + w, c->cval + w);
}

int cmatrix_merge_columns(struct cmatrix *c, const struct partition *old,
                          const struct partition *part)
{
    int *end = malloc(sizeof(int) * (size_t)(part->n + 1));
    if (!end)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    int64_t widest = 0;
    for (int n = 0, j = 0; n < part->n; n++, j = end[n - 1]) {
        end[n] = group_end(old, j, &part->dom[n]);
        if (end[n] < 0) {
            free(end);
            return 1; /* not a merge of neighbours: the caller rebuilds C */
        }
        widest = max64(widest, c->col_ptr[end[n]] - c->col_ptr[j]);
    }
    struct pair *scratch = malloc(sizeof *scratch * (size_t)(widest + 1));
    if (!scratch) {
        free(end);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    int64_t w = 0;
    for (int n = 0, j = 0; n < part->n; j = end[n], n++) {
        int64_t len = merge_group(c, j, end[n], w, scratch);
        int64_t bytes = 0;
        for (int k = j; k < end[n]; k++)
            bytes += c->fd_bytes[k];
        c->col_ptr[n] = w;
        c->fd_bytes[n] = bytes;
        w += len;
    }
    c->a = part->n;
    c->col_ptr[c->a] = c->nnz = w;
    free(scratch);
    free(end);
    return 0;
}

int cmatrix_move_rows(const struct cmatrix *c, const int *to, struct cmatrix *out)
{
    int rc = cmatrix_alloc(out, c->p, c->a);
    int64_t widest = 0;
    for (int j = 0; j < c->a; j++)
        widest = max64(widest, c->col_ptr[j + 1] - c->col_ptr[j]);
    struct pair *scratch = malloc(sizeof *scratch * (size_t)(widest + 1));
    out->row = malloc(sizeof(int) * (size_t)(c->nnz + 1));
    out->cval = malloc(sizeof(int64_t) * (size_t)(c->nnz + 1));
    if (!rc && (!scratch || !out->row || !out->cval))
        rc = tacio_fail(TACIO_ENOMEM, "out of memory moving C's rows");
    int64_t w = 0;
    for (int j = 0; !rc && j < c->a; j++) {
        int64_t lo = c->col_ptr[j], n = c->col_ptr[j + 1] - lo;
        for (int64_t k = 0; k < n; k++)
            scratch[k] = (struct pair){to[c->row[lo + k]], c->cval[lo + k]};
        out->col_ptr[j] = w;
        w += sum_by_row(scratch, n, out->row + w, out->cval + w);
        out->fd_bytes[j] = c->fd_bytes[j];
    }
    out->col_ptr[c->a] = out->nnz = w;
    out->total = c->total;
    free(scratch);
    if (rc)
        cmatrix_free(out);
    return rc;
}

void cmatrix_free(struct cmatrix *c)
{
    free(c->col_ptr);
    free(c->row);
    free(c->cval);
    free(c->fd_bytes);
    memset(c, 0, sizeof *c);
}
