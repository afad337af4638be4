/* Access patterns: the closed-form prefix sums must agree with the extents
 * they summarise, and the layouts with their definitions. */
#include "check.h"
#include "plan/plan.h"

#include <string.h>

struct ext_list {
    int64_t off[200000], len[200000];
    int n;
};
static struct ext_list el;

static int gather(int64_t off, int64_t len, void *ctx)
{
    (void)ctx;
    if (el.n == 200000)
        return -1;
    el.off[el.n] = off;
    el.len[el.n++] = len;
    return 0;
}

static int64_t brute_prefix(int64_t x)
{
    int64_t s = 0;
    for (int i = 0; i < el.n; i++)
        s += max64(0, min64(el.off[i] + el.len[i], x) - el.off[i]);
    return s;
}

struct region_list {
    int64_t off[4096], end[4096], bytes[4096];
    int n;
};
static struct region_list rl;

/* A region's block structure, where it has one, gives the extents' bytes
 * below every point inside it: checked at the region's ends, at each
 * block's edges near them, and at random points. */
static void check_region_blocks(const struct region *g)
{
    if (!g->block)
        return;
    CHECK(g->block <= g->stride);
    CHECK_EQ(region_below(g, g->end), g->bytes);
    uint64_t st = (uint64_t)g->off * 2654435761u + 1;
    int64_t base = brute_prefix(g->off);
    for (int k = 0; k < 24; k++) {
        int64_t x = k < 4    ? g->off + k * g->block / 3
                    : k < 8  ? g->end - (k - 4) * g->block / 3
                    : k < 12 ? min64(g->end, g->off + g->stride * (k - 8) + g->block + k % 2)
                             : g->off + (int64_t)(rng_next(&st) % (uint64_t)(g->end - g->off + 1));
        if (x >= g->off && x <= g->end)
            CHECK_EQ(region_below(g, x), brute_prefix(x) - base);
    }
}

static void gather_region(const struct region *g, void *ctx)
{
    (void)ctx;
    if (rl.n < 4096) {
        rl.off[rl.n] = g->off;
        rl.end[rl.n] = g->end;
        rl.bytes[rl.n] = g->bytes;
        check_region_blocks(g);
    }
    rl.n++;
}

/* Regions are sorted, disjoint, inside the span, and hold exactly the
 * extents' bytes between their ends. */
static void check_regions(const struct tacio_pattern *p, int r, int64_t lo, int64_t hi,
                          int64_t total)
{
    rl.n = 0;
    pattern_regions(p, r, gather_region, NULL);
    CHECK(rl.n <= 4096);
    int64_t sum = 0;
    for (int i = 0; i < rl.n && i < 4096; i++) {
        CHECK(rl.off[i] >= lo && rl.end[i] <= hi && rl.off[i] < rl.end[i]);
        if (i)
            CHECK(rl.off[i] >= rl.end[i - 1]);
        CHECK_EQ(rl.bytes[i], brute_prefix(rl.end[i]) - brute_prefix(rl.off[i]));
        sum += rl.bytes[i];
    }
    CHECK_EQ(sum, total);
}

/* prefix() vs the extents at every extent edge and random points; span()
 * bounds the extents; extents are sorted and disjoint. Returns the bytes. */
static int64_t check_rank(const struct tacio_pattern *p, int r, uint64_t *st)
{
    el.n = 0;
    CHECK_EQ(p->ops->extents(p, r, gather, NULL), 0);
    int64_t lo, hi, total = 0;
    p->ops->span(p, r, &lo, &hi);
    for (int i = 0; i < el.n; i++) {
        total += el.len[i];
        CHECK(el.off[i] >= lo && el.off[i] + el.len[i] <= hi);
        if (i)
            CHECK(el.off[i] >= el.off[i - 1] + el.len[i - 1]);
    }
    if (el.n) {
        CHECK_EQ(lo, el.off[0]);
        CHECK_EQ(hi, el.off[el.n - 1] + el.len[el.n - 1]);
    }
    for (int i = 0; i < el.n && i < 50; i++) {
        CHECK_EQ(p->ops->prefix(p, r, el.off[i]), brute_prefix(el.off[i]));
        CHECK_EQ(p->ops->prefix(p, r, el.off[i] + 1), brute_prefix(el.off[i] + 1));
    }
    for (int k = 0; k < 30; k++) {
        int64_t x = hi > 0 ? (int64_t)(rng_next(st) % (uint64_t)(hi + 16)) : 0;
        CHECK_EQ(p->ops->prefix(p, r, x), brute_prefix(x));
    }
    CHECK_EQ(p->ops->prefix(p, r, INT64_MAX / 4), total);
    check_regions(p, r, lo, hi, total);
    return total;
}

static int64_t check_pattern(const char *spec, int procs)
{
    struct tacio_pattern *p = NULL;
    CHECK_EQ(tacio_pattern_parse(spec, procs, &p), 0);
    if (!p)
        return -1;
    uint64_t st = 7;
    int64_t total = 0;
    for (int r = 0; r < p->nprocs; r++)
        total += check_rank(p, r, &st);
    for (int k = 0; p->ops->total_below && k < 40; k++) { /* the O(1) total vs the sum */
        int64_t x = k < 2 ? k * (total + 5) : (int64_t)(rng_next(&st) % (uint64_t)(total + 9));
        int64_t sum = 0;
        for (int r = 0; r < p->nprocs; r++)
            sum += p->ops->prefix(p, r, x);
        CHECK_EQ(p->ops->total_below(p, x), sum);
    }
    tacio_pattern_free(p);
    return total;
}

/* C by regions vs C summed from the extents, for a partition. */
static void check_comm(const struct tacio_pattern *p, const struct partition *part)
{
    struct cmatrix c;
    CHECK_EQ(cmatrix_build(p, part, 0, &c), 0);
    int64_t *want = calloc((size_t)part->n, sizeof(int64_t));
    for (int r = 0; r < p->nprocs; r++) {
        el.n = 0;
        CHECK_EQ(p->ops->extents(p, r, gather, NULL), 0);
        memset(want, 0, sizeof(int64_t) * (size_t)part->n);
        for (int i = 0; i < el.n; i++)
            for (int64_t x = el.off[i], pe; x < el.off[i] + el.len[i]; x = pe) {
                int j = partition_locate(part, x, &pe);
                pe = min64(pe, el.off[i] + el.len[i]);
                want[j] += pe - x;
            }
        for (int j = 0; j < part->n; j++) {
            int64_t got = 0;
            for (int64_t k = c.col_ptr[j]; k < c.col_ptr[j + 1]; k++)
                got += c.row[k] == r ? c.cval[k] : 0;
            CHECK_EQ(got, want[j]);
        }
    }
    for (int j = 0; j < part->n; j++) /* ranks increase down a column, no zeros */
        for (int64_t k = c.col_ptr[j]; k < c.col_ptr[j + 1]; k++)
            CHECK(c.cval[k] > 0 && (k == c.col_ptr[j] || c.row[k] > c.row[k - 1]));
    free(want);
    cmatrix_free(&c);
}

/* FDs with boundaries at random offsets in [lo, hi), some empty. */
static void random_partition(int64_t lo, int64_t hi, int n, uint64_t *st, struct partition *out)
{
    CHECK_EQ(partition_alloc(out, n), 0);
    int64_t *cut = malloc(sizeof(int64_t) * (size_t)(n + 1));
    cut[0] = lo;
    cut[n] = hi;
    for (int j = 1; j < n; j++)
        cut[j] = lo + (int64_t)(rng_next(st) % (uint64_t)(hi - lo));
    for (int j = 1; j < n; j++) /* sort: n is small */
        for (int k = j; k > 1 && cut[k] < cut[k - 1]; k--) {
            int64_t t = cut[k];
            cut[k] = cut[k - 1];
            cut[k - 1] = t;
        }
    for (int j = 0; j < n; j++)
        out->dom[j] = (struct fdom){cut[j], cut[j + 1], 0, 0, 0};
    free(cut);
}

static void test_comm_by_regions(void)
{
    const char *specs[][2] = {{"cube:n=12", "8"},
                              {"btio:n=10,elem=5", "16"},
                              {"collperf:n=7", "5"},
                              {"coarse:n=9,elem=3", "6"},
                              {"ior:block=64k,transfer=16k,segments=3", "5"},
                              {"struct:records=40", "3"},
                              {"mesh:elems=3000,seed=3", "7"}};
    uint64_t st = 11;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        struct tacio_pattern *p = NULL;
        CHECK_EQ(tacio_pattern_parse(specs[i][0], atoi(specs[i][1]), &p), 0);
        struct tacio_hints *h;
        tacio_hints_new(&h);
        struct plan_ctx ctx = {.pat = p, .h = h};
        pattern_range(p, &ctx.lo, &ctx.hi);
        int sizes[] = {1, 3, 7, 40};
        for (int k = 0; k < 4; k++) {
            struct partition part;
            CHECK_EQ(partition_even(&ctx, sizes[k], &part), 0);
            check_comm(p, &part);
            partition_free(&part);
            random_partition(ctx.lo, ctx.hi, sizes[k], &st, &part);
            check_comm(p, &part);
            partition_free(&part);
            /* stripes small enough that a region crosses many, a power of
             * two (shifted) and not (divided), stepping past the last FD */
            const char *units[] = {"1m", "64", "96", "1000"};
            for (int u = 0; u < 4; u++) {
                CHECK_EQ(tacio_hints_set(h, "striping_unit", units[u]), 0);
                CHECK_EQ(partition_stripes(&ctx, sizes[k], &part), 0);
                check_comm(p, &part);
                partition_free(&part);
            }
            CHECK_EQ(tacio_hints_set(h, "striping_unit", "1m"), 0);
        }
        tacio_hints_free(h);
        tacio_pattern_free(p);
    }
}

/* A summary's runs hold fewer bytes than their length (no block structure):
 * C, split at stripe ends by prefix(), against prefix() summed piece by
 * piece over each rank's span. */
static void test_comm_of_summary(void)
{
    /* rank 0: two runs, rank 1: one long run, rank 2: none, rank 3: one */
    int64_t first[] = {0, 2, 3, 3, 4};
    int64_t off[] = {0, 700, 100, 2000}, len[] = {500, 900, 3000, 64},
            bytes[] = {200, 450, 999, 64};
    struct tacio_pattern *p = NULL;
    CHECK_EQ(pattern_from_summary(4, first, off, len, bytes, &p), 0);
    struct tacio_hints *h;
    tacio_hints_new(&h);
    struct plan_ctx ctx = {.pat = p, .h = h};
    pattern_range(p, &ctx.lo, &ctx.hi);
    const char *units[] = {"64", "100", "1000"};
    for (int u = 0; p && u < 3; u++)
        for (int n = 1; n <= 5; n += 2) {
            struct partition part;
            CHECK_EQ(tacio_hints_set(h, "striping_unit", units[u]), 0);
            CHECK_EQ(partition_stripes(&ctx, n, &part), 0);
            struct cmatrix c;
            CHECK_EQ(cmatrix_build(p, &part, 0, &c), 0);
            for (int r = 0; r < 4; r++) {
                int64_t want[5] = {0}, lo, hi;
                p->ops->span(p, r, &lo, &hi);
                for (int64_t x = lo, pe; x < hi; x = pe) {
                    int j = partition_locate(&part, x, &pe);
                    pe = min64(pe, hi);
                    want[j] += p->ops->prefix(p, r, pe) - p->ops->prefix(p, r, x);
                }
                for (int j = 0; j < n; j++) {
                    int64_t got = 0;
                    for (int64_t k = c.col_ptr[j]; k < c.col_ptr[j + 1]; k++)
                        got += c.row[k] == r ? c.cval[k] : 0;
                    CHECK_EQ(got, want[j]);
                }
            }
            cmatrix_free(&c);
            partition_free(&part);
        }
    tacio_hints_free(h);
    tacio_pattern_free(p);
}

/* Merging neighbouring FDs' columns gives the C a rebuild would. */
static void test_merge_columns(void)
{
    struct tacio_pattern *p = NULL;
    CHECK_EQ(tacio_pattern_parse("cube:n=12", 27, &p), 0);
    struct tacio_hints *h;
    tacio_hints_new(&h);
    struct plan_ctx ctx = {.pat = p, .h = h};
    pattern_range(p, &ctx.lo, &ctx.hi);
    struct partition fine, coarse;
    CHECK_EQ(partition_even(&ctx, 9, &fine), 0);
    int groups[] = {0, 2, 3, 6, 9}; /* FDs {0,1}, {2}, {3,4,5}, {6,7,8} */
    CHECK_EQ(partition_alloc(&coarse, 4), 0);
    for (int g = 0; g < 4; g++)
        coarse.dom[g] =
            (struct fdom){fine.dom[groups[g]].start, fine.dom[groups[g + 1] - 1].end, 0, 0, 0};
    struct cmatrix merged, rebuilt;
    CHECK_EQ(cmatrix_build(p, &fine, 0, &merged), 0);
    CHECK_EQ(cmatrix_merge_columns(&merged, &fine, &coarse), 0);
    CHECK_EQ(cmatrix_build(p, &coarse, 0, &rebuilt), 0);
    CHECK_EQ(merged.a, rebuilt.a);
    CHECK_EQ(merged.nnz, rebuilt.nnz);
    CHECK_EQ(merged.total, rebuilt.total);
    for (int j = 0; j <= 4; j++)
        CHECK_EQ(merged.col_ptr[j], rebuilt.col_ptr[j]);
    for (int j = 0; j < 4; j++)
        CHECK_EQ(merged.fd_bytes[j], rebuilt.fd_bytes[j]);
    for (int64_t k = 0; k < rebuilt.nnz && k < merged.nnz; k++) {
        CHECK_EQ(merged.row[k], rebuilt.row[k]);
        CHECK_EQ(merged.cval[k], rebuilt.cval[k]);
    }
    int64_t nnz = rebuilt.nnz; /* finer FDs are no merge: nothing changes */
    CHECK_EQ(cmatrix_merge_columns(&rebuilt, &coarse, &fine), 1);
    CHECK_EQ(rebuilt.a, 4);
    CHECK_EQ(rebuilt.nnz, nnz);
    cmatrix_free(&merged);
    cmatrix_free(&rebuilt);
    partition_free(&fine);
    partition_free(&coarse);
    tacio_hints_free(h);
    tacio_pattern_free(p);
}

static void test_closed_forms(void)
{
    CHECK_EQ(check_pattern("cube:n=12", 8), 12 * 12 * 12 * 8);
    CHECK_EQ(check_pattern("cube:n=10,elem=3", 27), 1000 * 3);
    CHECK_EQ(check_pattern("btio:n=9", 9), 729 * 8);
    CHECK_EQ(check_pattern("btio:n=10,elem=5", 16), 1000 * 5);
    CHECK_EQ(check_pattern("collperf:n=10", 12), 1000 * 4);
    CHECK_EQ(check_pattern("collperf:n=7", 5), 343 * 4);
    CHECK_EQ(check_pattern("ior:block=64k,transfer=16k,segments=3", 5), 5 * 3 * 65536);
    CHECK_EQ(check_pattern("mesh:elems=5000,seed=3", 7), 5000 * 8);
    CHECK_EQ(check_pattern("coarse:n=10", 6), 1000 * 8);
    CHECK_EQ(check_pattern("coarse:n=9,elem=3", 4), 729 * 3);
    CHECK_EQ(check_pattern("coarse:n=5", 7), 125 * 8); /* 7 x 1: blocks of one row empty */
    CHECK_EQ(check_pattern("struct:records=7", 5), 7 * 5 * 24);
    CHECK_EQ(check_pattern("struct:records=1", 1), 24);
}

/* coarse: the 2-D grid's rank (r / d1, r % d1) holds whole rows; struct:
 * record k of rank r in slot k*p + r, bytes 16-23 a hole. */
static void test_coarse_and_struct_layout(void)
{
    struct tacio_pattern *p = NULL;
    CHECK_EQ(tacio_pattern_parse("coarse:n=4,elem=1", 8, &p), 0); /* grid 4 x 2 x 1 */
    CHECK(p->dims[0] == 4 && p->dims[1] == 2 && p->dims[2] == 1);
    /* rank 3 = (1, 1): plane 1, rows 2 and 3, whole */
    CHECK_EQ(pattern_bytes_in(p, 3, 16, 32), 8);
    CHECK_EQ(pattern_bytes_in(p, 3, 16 + 8, 16 + 16), 8);
    CHECK_EQ(pattern_bytes_in(p, 3, 0, 16), 0);
    tacio_pattern_free(p);
    CHECK_EQ(tacio_pattern_parse("struct:records=2", 3, &p), 0);
    /* rank 1: slots 1 and 4 */
    CHECK_EQ(pattern_bytes_in(p, 1, 32, 48), 16);
    CHECK_EQ(pattern_bytes_in(p, 1, 48, 56), 0);
    CHECK_EQ(pattern_bytes_in(p, 1, 56, 64), 8);
    CHECK_EQ(pattern_bytes_in(p, 1, 64, 128), 0);
    CHECK_EQ(pattern_bytes_in(p, 1, 128, 160), 24);
    int64_t lo, hi;
    tacio_pattern_get_range(p, &lo, &hi);
    CHECK(lo == 0 && hi == 6 * 32);
    tacio_pattern_free(p);
}

struct walked {
    int64_t bytes, pieces, stop_after;
};

static int walked_piece(int64_t off, int64_t len, void *ctx)
{
    (void)off;
    struct walked *w = ctx;
    w->bytes += len;
    return ++w->pieces == w->stop_after ? 42 : 0;
}

/* The public closed form (tacio_pattern_walk, _get_bytes_below,
 * _get_range) against the internal one, and its bad arguments. */
static void test_public_closed_form(void)
{
    struct tacio_pattern *p = NULL;
    CHECK_EQ(tacio_pattern_parse("btio:n=10,elem=5", 16, &p), 0);
    int64_t sum = 0;
    for (int r = 0; r < 16; r++) {
        struct walked w = {0};
        CHECK_EQ(tacio_pattern_walk(p, r, walked_piece, &w), 0);
        CHECK_EQ(w.bytes, p->ops->prefix(p, r, INT64_MAX / 4));
        CHECK_EQ(w.bytes, tacio_pattern_get_bytes_below(p, r, INT64_MAX / 4));
        CHECK_EQ(tacio_pattern_get_bytes_below(p, r, 777), p->ops->prefix(p, r, 777));
        sum += w.bytes;
    }
    CHECK_EQ(tacio_pattern_get_bytes_below(p, -1, INT64_MAX / 4), sum);
    CHECK_EQ(tacio_pattern_get_bytes_below(p, -1, 777), pattern_total_in(p, 0, 777));
    struct walked w = {.stop_after = 3};
    CHECK_EQ(tacio_pattern_walk(p, 5, walked_piece, &w), 42); /* stops at the first nonzero */
    CHECK_EQ(w.pieces, 3);
    CHECK_EQ(tacio_pattern_walk(p, 16, walked_piece, &w), TACIO_EINVAL);
    CHECK_EQ(tacio_pattern_walk(p, -1, walked_piece, &w), TACIO_EINVAL);
    CHECK_EQ(tacio_pattern_get_bytes_below(p, 16, 0), TACIO_EINVAL);
    CHECK_EQ(tacio_pattern_get_bytes_below(p, -2, 0), TACIO_EINVAL);
    tacio_pattern_free(p);
}

/* The registry: names unique, forms begin with their name, the accessors
 * NULL outside, and an unknown kind's error names every form. */
static void test_registry(void)
{
    int n = tacio_pattern_kind_get_count();
    CHECK(n >= 9);
    struct tacio_pattern *p = NULL;
    CHECK_EQ(tacio_pattern_parse("sphere:r=1", 4, &p), TACIO_EINVAL);
    for (int i = 0; i < n; i++) {
        const char *name = tacio_pattern_kind_get_name(i), *form = tacio_pattern_kind_get_form(i);
        CHECK(name && form && tacio_pattern_kind_get_summary(i));
        CHECK(!strncmp(form, name, strlen(name)) && form[strlen(name)] == ':');
        CHECK(strstr(tacio_last_error(), form) != NULL);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(name, tacio_pattern_kind_get_name(j)));
    }
    CHECK(tacio_pattern_kind_get_name(n) == NULL && tacio_pattern_kind_get_form(-1) == NULL &&
          tacio_pattern_kind_get_summary(n) == NULL);
}

static void test_btio_layout(void)
{
    /* the paper's example: 9 ranks; rank 6 holds row 2, col 0 of slice 0,
     * then row 1, col 1 of slice 1 */
    struct tacio_pattern *p = NULL;
    CHECK_EQ(tacio_pattern_parse("btio:n=3,elem=1", 9, &p), 0);
    int64_t x = 0 * 9 + 2 * 3 + 0; /* slice 0, row 2, col 0 */
    CHECK_EQ(pattern_bytes_in(p, 6, x, x + 1), 1);
    x = 1 * 9 + 1 * 3 + 1;
    CHECK_EQ(pattern_bytes_in(p, 6, x, x + 1), 1);
    x = 2 * 9 + 0 * 3 + 2; /* slice 2: row (2-2)=0, col (0+2)=2 */
    CHECK_EQ(pattern_bytes_in(p, 6, x, x + 1), 1);
    CHECK_EQ(pattern_bytes_in(p, 6, 0, 27), 3);
    tacio_pattern_free(p);
}

static void test_dims_and_ior(void)
{
    int d[3];
    int cases[][4] = {{8, 2, 2, 2},  {12, 3, 2, 2}, {6, 3, 2, 1}, {16, 4, 2, 2},
                      {64, 4, 4, 4}, {7, 7, 1, 1},  {24, 4, 3, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dims_create(cases[i][0], 3, d);
        CHECK(d[0] == cases[i][1] && d[1] == cases[i][2] && d[2] == cases[i][3]);
    }
    /* two dimensions, as MPI_Dims_create(n, 2) */
    int cases2[][3] = {{8, 4, 2}, {6, 3, 2}, {7, 7, 1}, {16, 4, 4}, {12, 4, 3}, {1, 1, 1}};
    for (size_t i = 0; i < sizeof cases2 / sizeof *cases2; i++) {
        dims_create(cases2[i][0], 2, d);
        CHECK(d[0] == cases2[i][1] && d[1] == cases2[i][2]);
    }
    struct tacio_pattern *p = NULL;
    CHECK_EQ(tacio_pattern_parse("ior:block=4,transfer=2,segments=2", 3, &p), 0);
    /* rank 1: [4,8) and [16,20) */
    CHECK_EQ(pattern_bytes_in(p, 1, 0, 4), 0);
    CHECK_EQ(pattern_bytes_in(p, 1, 4, 8), 4);
    CHECK_EQ(pattern_bytes_in(p, 1, 8, 16), 0);
    CHECK_EQ(pattern_bytes_in(p, 1, 17, 24), 3);
    tacio_pattern_free(p);
}

static void test_files_and_errors(void)
{
    char spec[4096];
    struct tacio_pattern *p = NULL;
    snprintf(spec, sizeof spec, "extents:%s", data_path("extents_small.txt"));
    CHECK_EQ(tacio_pattern_parse(spec, 0, &p), 0);
    CHECK_EQ(p->nprocs, 3);
    CHECK_EQ(pattern_bytes_in(p, 2, 0, 1000), 30);
    tacio_pattern_free(p);
    p = NULL;
    CHECK_EQ(tacio_pattern_parse(spec, 2, &p), TACIO_EINVAL); /* names rank 2 */
    snprintf(spec, sizeof spec, "extents:%s", data_path("extents_overlap.txt"));
    CHECK_EQ(tacio_pattern_parse(spec, 0, &p), TACIO_EINVAL);
    CHECK(strstr(tacio_last_error(), "overlap") != NULL);
    snprintf(spec, sizeof spec, "matrix:%s", data_path("tatp_c.txt"));
    CHECK_EQ(tacio_pattern_parse(spec, 0, &p), 0);
    CHECK_EQ(p->nfixed, 3);
    CHECK_EQ(p->fixed_start[3], 24);
    CHECK_EQ(pattern_bytes_in(p, 0, p->fixed_start[1], p->fixed_start[2]), 1);
    tacio_pattern_free(p);
    p = NULL;
    snprintf(spec, sizeof spec, "matrix:%s", data_path("ragged_matrix.txt"));
    CHECK_EQ(tacio_pattern_parse(spec, 0, &p), TACIO_EINVAL);

    const char *bad[][2] = {{"cube:n=10", "9"},
                            {"btio:n=10", "8"},
                            {"cube:n=10,q=3", "8"},
                            {"ior:block=10,transfer=3", "2"},
                            {"mesh:seed=1", "4"},
                            {"sphere:r=1", "4"},
                            {"cube", "8"},
                            {"ior:block=1x", "2"},
                            {"extents:/nonexistent", "0"},
                            {"extents:a,b=1", "0"},
                            {"coarse:n=0", "4"},
                            {"struct", "4"},
                            {"struct:records=4", "0"},
                            {"struct:records=1t,extra=1", "4"},
                            /* tests/fuzz/parsers: offsets overflowed */
                            {"mesh:elems=300,seed=3,elem=4888888888888888888", "3"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = NULL;
        CHECK(tacio_pattern_parse(bad[i][0], atoi(bad[i][1]), &p) < 0);
        CHECK(p == NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        check_set_data_dir(argv[1]);
    test_closed_forms();
    test_comm_by_regions();
    test_comm_of_summary();
    test_merge_columns();
    test_btio_layout();
    test_coarse_and_struct_layout();
    test_public_closed_form();
    test_registry();
    test_dims_and_ior();
    test_files_and_errors();
    return check_report("test_pattern");
}
