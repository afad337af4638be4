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
    tacio_pattern_free(p);
    return total;
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
                            {"extents:/nonexistent", "0"}};
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
    test_btio_layout();
    test_dims_and_ior();
    test_files_and_errors();
    return check_report("test_pattern");
}
