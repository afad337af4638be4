/* Partitioners: ROMIO's even split (with and without striping_unit), the
 * Lustre stripe deal, and the memory-conscious partition tree's remerge;
 * and the hints' older spellings. */
#include "check.h"
#include "plan/mctree.h"
#include "plan/strategy.h"

#include <string.h>

static struct tacio_hints *hints_with(const char *k, const char *v)
{
    struct tacio_hints *h;
    tacio_hints_new(&h);
    if (k)
        CHECK_EQ(tacio_hints_set(h, k, v), 0);
    return h;
}

static void expect_fds(const struct partition *p, int n, const int64_t (*fd)[2])
{
    CHECK_EQ(p->n, n);
    for (int j = 0; j < n && j < p->n; j++) {
        CHECK_EQ(p->dom[j].start, fd[j][0]);
        CHECK_EQ(p->dom[j].end, fd[j][1]);
    }
}

static void test_even(void)
{
    struct tacio_pattern pat = {0};
    struct tacio_hints *h = hints_with(NULL, NULL);
    struct plan_ctx ctx = {.pat = &pat, .topo = NULL, .h = h, .lo = 0, .hi = 100};
    struct partition p;
    /* ceil(100/3) = 34 */
    CHECK_EQ(partition_even(&ctx, 3, &p), 0);
    expect_fds(&p, 3, (const int64_t[][2]){{0, 34}, {34, 68}, {68, 100}});
    partition_free(&p);
    /* striping_unit 16: ends move to the nearest multiple, the last ends at max */
    CHECK_EQ(tacio_hints_set(h, "striping_unit", "16"), 0);
    CHECK_EQ(partition_even(&ctx, 3, &p), 0);
    expect_fds(&p, 3, (const int64_t[][2]){{0, 32}, {32, 64}, {64, 100}});
    partition_free(&p);
    /* ROMIO's own comment: a range of 97 over 16 leaves the last FDs empty */
    tacio_hints_free(h);
    h = hints_with(NULL, NULL);
    ctx = (struct plan_ctx){.pat = &pat, .topo = NULL, .h = h, .lo = 0, .hi = 97};
    CHECK_EQ(partition_even(&ctx, 16, &p), 0);
    CHECK_EQ(p.dom[0].end, 7);
    CHECK_EQ(p.dom[13].start, 91);
    CHECK_EQ(p.dom[13].end, 97);
    CHECK_EQ(p.dom[14].start, p.dom[14].end);
    CHECK_EQ(p.dom[15].start, p.dom[15].end);
    int64_t piece;
    CHECK_EQ(partition_locate(&p, 96, &piece), 13);
    CHECK_EQ(piece, 97);
    CHECK_EQ(partition_locate(&p, 0, &piece), 0);
    partition_free(&p);
    tacio_hints_free(h);
}

static void test_stripes(void)
{
    struct tacio_pattern pat = {0};
    struct tacio_hints *h = hints_with("striping_unit", "4");
    struct plan_ctx ctx = {.pat = &pat, .topo = NULL, .h = h, .lo = 6, .hi = 30};
    struct partition p;
    CHECK_EQ(partition_stripes(&ctx, 3, &p), 0);
    int64_t piece;
    CHECK_EQ(partition_locate(&p, 6, &piece), 1); /* stripe 1 */
    CHECK_EQ(piece, 8);
    CHECK_EQ(partition_locate(&p, 13, &piece), 0); /* stripe 3 */
    CHECK_EQ(p.dom[1].start, 6);
    CHECK_EQ(p.dom[2].start, 8);
    CHECK_EQ(p.dom[0].start, 12);
    CHECK_EQ(p.dom[0].stride, 12);
    partition_free(&p);
    tacio_hints_free(h);
}

static void test_lustre_counts(void)
{
    struct tacio_topo *t;
    CHECK_EQ(tacio_topo_parse("flat:nodes=10,cores=1", &t), 0);
    CHECK_EQ(tacio_topo_place(t, "block", 10), 0);
    struct tacio_pattern pat = {0};
    int cases[][3] = {{4, 10, 8}, {4, 3, 2}, {6, 6, 6}, {5, 4, 1}, {2, 7, 6}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct tacio_hints *h = hints_with(NULL, NULL);
        h->striping_factor = cases[i][0];
        h->cb_nodes = cases[i][1];
        struct plan_ctx ctx = {.pat = &pat, .topo = t, .h = h, .lo = 0, .hi = 100};
        CHECK_EQ(lustre_naggs(&ctx), cases[i][2]);
        tacio_hints_free(h);
    }
    tacio_topo_free(t);
}

/* Figure 5a: A's sibling B is a leaf: B takes the parent's whole region. */
static void test_remerge_case1(void)
{
    struct mc_tree t = {0};
    int root = mc_add(&t, -1, 0, 100);
    int a = mc_split(&t, root, 50), b = t.v[root].right;
    CHECK_EQ(mc_remerge(&t, a), b);
    CHECK_EQ(t.v[b].lo, 0);
    CHECK_EQ(t.v[b].hi, 100);
    CHECK_EQ(t.v[b].parent, -1);     /* B is now where the parent was */
    CHECK_EQ(mc_remerge(&t, b), -1); /* the group's last leaf cannot leave */
    mc_free(&t);
}

/* Figure 5b: A's sibling B was split further: a depth-first search of B's
 * subtree, nearest side first, finds C, which takes A's region. */
static void test_remerge_case2(void)
{
    struct mc_tree t = {0};
    int root = mc_add(&t, -1, 0, 100);
    int a = mc_split(&t, root, 25), b = t.v[root].right; /* A [0,25) B [25,100) */
    int b1 = mc_split(&t, b, 60), b2 = t.v[b].right;     /* B1 [25,60) B2 [60,100) */
    int b11 = mc_split(&t, b1, 40), b12 = t.v[b1].right; /* [25,40) [40,60) */
    CHECK_EQ(mc_remerge(&t, a), b11);                    /* A on the left: leftmost leaf of B */
    CHECK_EQ(t.v[b11].lo, 0);
    CHECK_EQ(t.v[b11].hi, 40);
    CHECK_EQ(t.v[b].lo, 0);
    CHECK_EQ(t.v[b1].lo, 0);
    CHECK_EQ(t.v[b12].lo, 40);
    CHECK_EQ(t.v[b2].lo, 60);
    CHECK_EQ(t.v[b].parent, -1);

    /* mirrored: a right leaf leaving goes to the rightmost leaf of its sibling */
    CHECK_EQ(mc_remerge(&t, b2), b12);
    CHECK_EQ(t.v[b12].lo, 40);
    CHECK_EQ(t.v[b12].hi, 100);
    CHECK_EQ(t.v[b1].hi, 100);
    mc_free(&t);
}

/* A hint's older spelling sets the same field, and the canonical text
 * (what ranks compare, TACIO_PRINT_HINTS) names it by its new key. */
static void test_hint_aliases(void)
{
    struct tacio_hints *h = hints_with("tacio_aggs_per_host", "3");
    CHECK_EQ(tacio_hints_set(h, "tacio_bw_host_io", "5e8"), 0);
    CHECK_EQ(h->aggs_per_node, 3);
    CHECK(h->bw_node_io == 5e8);
    char text[4096];
    size_t len = 0;
    CHECK_EQ(hints_format(h, text, sizeof text, &len), 0);
    CHECK(strstr(text, "tacio_aggs_per_node=3") != NULL);
    CHECK(strstr(text, "tacio_bw_node_io=5") != NULL);
    CHECK(strstr(text, "_host") == NULL);
    CHECK(tacio_hints_set(h, "tacio_aggs_per_hots", "3") != 0); /* a typo stays one */
    tacio_hints_free(h);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        check_set_data_dir(argv[1]);
    test_even();
    test_stripes();
    test_lustre_counts();
    test_remerge_case1();
    test_remerge_case2();
    test_hint_aliases();
    return check_report("test_partition");
}
