/* Block-decomposed 3-D arrays in row-major order: cube, coarse, btio,
 * collperf. Blocks follow MPI_Type_create_darray's BLOCK rule: ceil(n/d)
 * elements per block, the last blocks shorter (or empty). */
#include "../base/util.h"
#include "pattern.h"

#include <string.h>

struct box {
    int64_t lo[3], hi[3];
};

static void block_range(int64_t n, int d, int c, int64_t *lo, int64_t *hi)
{
    int64_t b = ceil_div(n, d);
    *lo = min64(n, (int64_t)c * b);
    *hi = min64(n, (int64_t)(c + 1) * b);
}

static int64_t box_volume(const struct box *b)
{
    int64_t v = 1;
    for (int i = 0; i < 3; i++)
        v *= b->hi[i] - b->lo[i];
    return v;
}

/* Elements of the box with row-major index below e. */
static int64_t box_count_below(const int64_t *n, const struct box *b, int64_t e)
{
    int64_t plane = n[1] * n[2];
    int64_t lx = e / plane, ly = (e % plane) / n[2], lz = e % n[2];
    int64_t ny = b->hi[1] - b->lo[1], nz = b->hi[2] - b->lo[2];
    if (lx < b->lo[0] || ny == 0 || nz == 0)
        return 0;
    if (lx >= b->hi[0])
        return box_volume(b);
    int64_t c = (lx - b->lo[0]) * ny * nz;
    if (ly >= b->hi[1])
        return c + ny * nz;
    if (ly < b->lo[1])
        return c;
    return c + (ly - b->lo[1]) * nz + max64(0, min64(lz - b->lo[2], nz));
}

/* Bytes of the box below byte offset x (a partial element counts its bytes). */
static int64_t box_prefix(const struct tacio_pattern *p, const struct box *b, int64_t x)
{
    int64_t e = x / p->elem, part = x % p->elem;
    int64_t below = box_count_below(p->n, b, e);
    int64_t owns = part ? box_count_below(p->n, b, e + 1) - below : 0;
    return below * p->elem + owns * part;
}

static void box_span(const struct tacio_pattern *p, const struct box *b, int64_t *lo, int64_t *hi)
{
    if (box_volume(b) == 0) {
        *lo = *hi = 0;
        return;
    }
    *lo = ((b->lo[0] * p->n[1] + b->lo[1]) * p->n[2] + b->lo[2]) * p->elem;
    *hi = (((b->hi[0] - 1) * p->n[1] + b->hi[1] - 1) * p->n[2] + b->hi[2]) * p->elem;
}

static int box_extents(const struct tacio_pattern *p, const struct box *b, extent_fn fn, void *ctx)
{
    int64_t nz = b->hi[2] - b->lo[2];
    if (nz <= 0)
        return 0;
    for (int64_t x = b->lo[0]; x < b->hi[0]; x++)
        for (int64_t y = b->lo[1]; y < b->hi[1]; y++) {
            int rc = fn(((x * p->n[1] + y) * p->n[2] + b->lo[2]) * p->elem, nz * p->elem, ctx);
            if (rc)
                return rc;
        }
    return 0;
}

/* One region per plane of the box: its rows there, gaps included. */
static void box_regions(const struct tacio_pattern *p, const struct box *b, region_fn fn, void *ctx)
{
    int64_t ny = b->hi[1] - b->lo[1], nz = b->hi[2] - b->lo[2];
    if (ny <= 0 || nz <= 0)
        return;
    for (int64_t x = b->lo[0]; x < b->hi[0]; x++) {
        int64_t first = (x * p->n[1] + b->lo[1]) * p->n[2] + b->lo[2];
        int64_t last = (x * p->n[1] + b->hi[1] - 1) * p->n[2] + b->hi[2];
        struct region g = {first * p->elem, last * p->elem, ny * nz * p->elem, nz * p->elem,
                           p->n[2] * p->elem};
        fn(&g, ctx);
    }
}

/* The blocks of every rank tile the array, whatever the grid. */
static int64_t grid_total_below(const struct tacio_pattern *p, int64_t x)
{
    return max64(0, min64(x, p->n[0] * p->n[1] * p->n[2] * p->elem));
}

/* Rank -> box for the cube and collperf grids (rank order is row-major over
 * the process grid, as MPI_Type_create_darray with MPI_ORDER_C). */
static void grid_box(const struct tacio_pattern *p, int rank, struct box *b)
{
    int c[3] = {rank / (p->dims[1] * p->dims[2]), (rank / p->dims[2]) % p->dims[1],
                rank % p->dims[2]};
    for (int i = 0; i < 3; i++)
        block_range(p->n[i], p->dims[i], c[i], &b->lo[i], &b->hi[i]);
}

static void grid_span(const struct tacio_pattern *p, int rank, int64_t *lo, int64_t *hi)
{
    struct box b;
    grid_box(p, rank, &b);
    box_span(p, &b, lo, hi);
}

/* C asks one rank's prefix at every FD boundary its regions cross (at a
 * million ranks and 1 MiB stripes, ~10^9 times), rank after rank: the box
 * of the last rank asked is kept, keyed by everything grid_box reads. */
struct box_memo {
    int64_t n[3];
    int dims[3], rank;
    struct box b;
    bool valid;
};
static _Thread_local struct box_memo memo;

static const struct box *grid_box_memo(const struct tacio_pattern *p, int rank)
{
    if (!memo.valid || memo.rank != rank || memcmp(memo.n, p->n, sizeof memo.n) ||
        memcmp(memo.dims, p->dims, sizeof memo.dims)) {
        memcpy(memo.n, p->n, sizeof memo.n);
        memcpy(memo.dims, p->dims, sizeof memo.dims);
        memo.rank = rank;
        grid_box(p, rank, &memo.b);
        memo.valid = true;
    }
    return &memo.b;
}

static int64_t grid_prefix(const struct tacio_pattern *p, int rank, int64_t x)
{
    return box_prefix(p, grid_box_memo(p, rank), x);
}

static int grid_extents(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx)
{
    struct box b;
    grid_box(p, rank, &b);
    return box_extents(p, &b, fn, ctx);
}

static void grid_regions(const struct tacio_pattern *p, int rank, region_fn fn, void *ctx)
{
    struct box b;
    grid_box(p, rank, &b);
    box_regions(p, &b, fn, ctx);
}

static const struct pattern_ops cube_ops = {"cube",       grid_span,    grid_prefix,
                                            grid_extents, grid_regions, grid_total_below};
static const struct pattern_ops collperf_ops = {"collperf",   grid_span,    grid_prefix,
                                                grid_extents, grid_regions, grid_total_below};
static const struct pattern_ops coarse_ops = {"coarse",     grid_span,    grid_prefix,
                                              grid_extents, grid_regions, grid_total_below};

/* BTIO: p = q^2 ranks; in slice k (the k-th block along the slowest axis) the
 * rank holding cell (r, c) of slice 0 holds ((r - k) mod q, (c + k) mod q). */
static void btio_cell(const struct tacio_pattern *p, int rank, int k, struct box *b)
{
    int q = p->dims[0];
    int r = rank / q, c = rank % q;
    block_range(p->n[0], q, k, &b->lo[0], &b->hi[0]);
    block_range(p->n[1], q, ((r - k) % q + q) % q, &b->lo[1], &b->hi[1]);
    block_range(p->n[2], q, (c + k) % q, &b->lo[2], &b->hi[2]);
}

static void btio_span(const struct tacio_pattern *p, int rank, int64_t *lo, int64_t *hi)
{
    if (p->span_lo) {
        *lo = p->span_lo[rank];
        *hi = p->span_hi[rank];
        return;
    }
    *lo = INT64_MAX;
    *hi = 0;
    for (int k = 0; k < p->dims[0]; k++) {
        struct box b;
        int64_t l, h;
        btio_cell(p, rank, k, &b);
        box_span(p, &b, &l, &h);
        if (l < h) {
            *lo = min64(*lo, l);
            *hi = max64(*hi, h);
        }
    }
    if (*lo > *hi)
        *lo = *hi = 0;
}

static int64_t btio_prefix(const struct tacio_pattern *p, int rank, int64_t x)
{
    int64_t slab = ceil_div(p->n[0], p->dims[0]) * p->n[1] * p->n[2] * p->elem;
    int kx = (int)min64(x / slab, p->dims[0] - 1);
    int64_t sum = 0;
    if (p->slice_cum)
        sum = p->slice_cum[(int64_t)rank * (p->dims[0] + 1) + kx];
    for (int k = 0; !p->slice_cum && k < kx; k++) {
        struct box b;
        btio_cell(p, rank, k, &b);
        sum += box_volume(&b) * p->elem;
    }
    struct box b;
    btio_cell(p, rank, kx, &b);
    return sum + box_prefix(p, &b, x);
}

static int btio_extents(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx)
{
    for (int k = 0; k < p->dims[0]; k++) {
        struct box b;
        btio_cell(p, rank, k, &b);
        int rc = box_extents(p, &b, fn, ctx);
        if (rc)
            return rc;
    }
    return 0;
}

/* Slices in file order, each slice's box by planes. */
static void btio_regions(const struct tacio_pattern *p, int rank, region_fn fn, void *ctx)
{
    for (int k = 0; k < p->dims[0]; k++) {
        struct box b;
        btio_cell(p, rank, k, &b);
        box_regions(p, &b, fn, ctx);
    }
}

static const struct pattern_ops btio_ops = {"btio",       btio_span,    btio_prefix,
                                            btio_extents, btio_regions, grid_total_below};

/* Striped partitions ask for a prefix per stripe and rank (tens of millions
 * of calls) and mccio for spans per tree vertex and rank, so full-slice sums
 * and spans are tabulated when the tables are modest. */
static void btio_tabulate(struct tacio_pattern *p)
{
    int q = p->dims[0];
    if ((int64_t)p->nprocs * (q + 1) > (16 << 20))
        return;
    int64_t *lo = malloc(sizeof(int64_t) * (size_t)p->nprocs);
    int64_t *hi = malloc(sizeof(int64_t) * (size_t)p->nprocs);
    for (int r = 0; lo && hi && r < p->nprocs; r++)
        btio_span(p, r, &lo[r], &hi[r]);
    p->span_lo = lo && hi ? lo : NULL;
    p->span_hi = lo && hi ? hi : NULL;
    if (!p->span_lo) {
        free(lo);
        free(hi);
    }
    p->slice_cum = malloc(sizeof(int64_t) * (size_t)p->nprocs * (size_t)(q + 1));
    for (int r = 0; p->slice_cum && r < p->nprocs; r++) {
        int64_t *row = p->slice_cum + (int64_t)r * (q + 1);
        row[0] = 0;
        for (int k = 0; k < q; k++) {
            struct box b;
            btio_cell(p, r, k, &b);
            row[k + 1] = row[k] + box_volume(&b) * p->elem;
        }
    }
}

void dims_create(int n, int nd, int *dims)
{
    /* exhaustive over non-increasing factorisations; n is a rank count */
    int best[3] = {n, 1, 1};
    if (nd == 3)
        for (int a = 1; (int64_t)a * a * a <= n; a++) {
            if (n % a)
                continue;
            for (int b = a; (int64_t)b * b <= n / a; b++) {
                if ((n / a) % b)
                    continue;
                int c = n / a / b;
                if (c - a < best[0] - best[2] || (c - a == best[0] - best[2] && c < best[0])) {
                    best[0] = c;
                    best[1] = b;
                    best[2] = a;
                }
            }
        }
    if (nd == 2) /* the largest factor b <= sqrt(n): the closest pair */
        for (int b = 1; (int64_t)b * b <= n; b++)
            if (n % b == 0) {
                best[0] = n / b;
                best[1] = b;
            }
    for (int i = 0; i < nd; i++)
        dims[i] = best[i];
}

static int int_root(int64_t v, int k)
{
    int r = 0;
    while (1) {
        int64_t pw = 1;
        for (int i = 0; i < k; i++)
            pw *= r + 1;
        if (pw > v)
            return r;
        r++;
    }
}

/* The process grid and operations of a kind whose rank count fits it (btio
 * and cube need a square and a cube, q their root). */
static void grid_layout(struct tacio_pattern *p, const char *kind, int q)
{
    if (!strcmp(kind, "btio") || !strcmp(kind, "cube")) {
        p->dims[0] = p->dims[1] = p->dims[2] = q;
        p->ops = kind[0] == 'b' ? &btio_ops : &cube_ops;
    } else if (!strcmp(kind, "coarse")) {
        dims_create(p->nprocs, 2, p->dims);
        p->dims[2] = 1;
        p->ops = &coarse_ops;
    } else {
        dims_create(p->nprocs, 3, p->dims);
        p->ops = &collperf_ops;
    }
}

int pattern_parse_grid(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                       int nprocs)
{
    const char *kind = k->name, *form = k->form;
    bool btio = !strcmp(kind, "btio"), cube = !strcmp(kind, "cube");
    int64_t n, elem;
    int rc;
    if ((rc = spec_get_i64(s, "n", 0, 1, &n, form)) ||
        (rc = spec_get_size(s, "elem", strcmp(kind, "collperf") ? 8 : 4, 1, &elem, form)) ||
        (rc = spec_check_unused(s, form)))
        return rc;
    if (n == 0)
        return tacio_fail(TACIO_EINVAL, "%s needs n=N; expected %s", kind, form);
    if (nprocs <= 0)
        return tacio_fail(TACIO_EINVAL, "%s needs a rank count; expected %s", kind, form);
    if (n > 3000000 || elem > 1 << 20 || n * n > INT64_MAX / n / elem)
        return tacio_fail(TACIO_ERANGE, "%s n=%lld elem=%lld overflows a 64-bit file", kind,
                          (long long)n, (long long)elem);
    int q = int_root(nprocs, btio ? 2 : 3);
    if (cube && (int64_t)q * q * q != nprocs)
        return tacio_fail(TACIO_EINVAL, "cube needs a cube number of ranks, got %d; expected %s",
                          nprocs, form);
    if (btio && (int64_t)q * q != nprocs)
        return tacio_fail(TACIO_EINVAL, "btio needs a square number of ranks, got %d; expected %s",
                          nprocs, form);
    p->n[0] = p->n[1] = p->n[2] = n;
    p->elem = elem;
    p->nprocs = nprocs;
    grid_layout(p, kind, q);
    if (btio)
        btio_tabulate(p); /* an allocation failure only costs speed */
    return 0;
}
