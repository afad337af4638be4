/* The assignment solvers: dense LAP against brute force, and the tree
 * min-cost flow against the dense LAP on the same problems. */
#include "check.h"
#include "plan/plan.h"

#include <string.h>

static int64_t brute_best;

static void brute(const int64_t *cost, int nr, int nc, int row, bool *used, int64_t acc)
{
    if (row == nr) {
        if (brute_best < 0 || acc < brute_best)
            brute_best = acc;
        return;
    }
    for (int j = 0; j < nc; j++)
        if (!used[j]) {
            used[j] = true;
            brute(cost, nr, nc, row + 1, used, acc + cost[row * nc + j]);
            used[j] = false;
        }
}

static void test_brute_force(void)
{
    uint64_t st = 42;
    for (int trial = 0; trial < 400; trial++) {
        int nc = 1 + (int)(rng_next(&st) % 8), nr = 1 + (int)(rng_next(&st) % (uint64_t)nc);
        int64_t scale = trial % 3 == 0 ? 10 : trial % 3 == 1 ? 1000000 : 1000000000000LL;
        int64_t cost[64];
        for (int k = 0; k < nr * nc; k++)
            cost[k] = (int64_t)(rng_next(&st) % (uint64_t)scale);
        int r2c[8];
        int64_t total;
        CHECK_EQ(lap_dense(nr, nc, cost, r2c, &total), 0);
        bool used[8] = {0};
        brute_best = -1;
        brute(cost, nr, nc, 0, used, 0);
        CHECK_EQ(total, brute_best);
        bool seen[8] = {0};
        int64_t sum = 0;
        for (int i = 0; i < nr; i++) {
            CHECK(r2c[i] >= 0 && r2c[i] < nc && !seen[r2c[i]]);
            seen[r2c[i]] = true;
            sum += cost[i * nc + r2c[i]];
        }
        CHECK_EQ(sum, total);
    }
}

/* The paper's W (with W[0][1] = 19 computed, not its printed 16). */
static void test_tatp_w(void)
{
    const int64_t w[3 * 6] = {9, 11, 8, 12, 32, 32, 19, 17, 24, 24, 16, 20, 24, 24, 20, 16, 20, 16};
    int r2c[3];
    int64_t total;
    CHECK_EQ(lap_dense(3, 6, w, r2c, &total), 0);
    CHECK_EQ(total, 40);
    CHECK_EQ(r2c[0], 2);
    CHECK_EQ(r2c[1], 4);
    CHECK(r2c[2] == 3 || r2c[2] == 5);
    CHECK(lap_dense(4, 3, w, r2c, &total) == TACIO_EINVAL);
}

/* A random run-list pattern: each rank holds 1-3 consecutive FDs' pieces.
 * With hot > 0, ranks below hot hold 1000x more, so many FDs want the same
 * few ranks and the solver must re-route earlier choices (reverse arcs). */
static struct tacio_pattern *random_job(int p, int a, uint64_t seed, int hot)
{
    int64_t n = 0, cap = (int64_t)p * 3 + (int64_t)hot * a;
    int *owner = malloc(sizeof(int) * (size_t)cap);
    int *fd = malloc(sizeof(int) * (size_t)cap);
    int64_t *bytes = malloc(sizeof(int64_t) * (size_t)cap);
    uint64_t st = seed;
    for (int r = 0; r < p; r++) {
        int len = 1 + (int)(rng_next(&st) % 3), s = (int)(rng_next(&st) % (uint64_t)a);
        for (int k = 0; k < len && s + k < a; k++, n++) {
            owner[n] = r;
            fd[n] = s + k;
            bytes[n] = (1 + (int64_t)(rng_next(&st) % 1000000)) * (r < hot ? 1000 : 1);
        }
    }
    for (int r = 0; r < hot; r++) /* hot ranks hold a little of every FD too */
        for (int j = 0; j < a; j++, n++) {
            owner[n] = r;
            fd[n] = j;
            bytes[n] = 1 + (int64_t)(rng_next(&st) % 1000);
        }
    struct tacio_pattern *pat;
    int rc = pattern_from_triplets(p, a, n, owner, fd, bytes, &pat);
    CHECK_EQ(rc, 0);
    free(owner);
    free(fd);
    free(bytes);
    return pat;
}

static void solve_both(const char *topo_spec, const char *place, int p, int a, uint64_t seed,
                       int hot)
{
    struct tacio_topo *t;
    CHECK_EQ(tacio_topo_parse(topo_spec, &t), 0);
    CHECK_EQ(tacio_topo_place(t, place, p), 0);
    struct tacio_pattern *pat = random_job(p, a, seed, hot);
    struct plan_ctx ctx = {.pat = pat, .topo = t, .h = NULL, .lo = 0, .hi = 0};
    struct partition part;
    struct cmatrix c;
    CHECK_EQ(partition_fixed(&ctx, &part), 0);
    CHECK_EQ(cmatrix_build(pat, &part, 0, &c), 0);
    for (int latp = 0; latp < 2; latp++) {
        int *agg_f = malloc(sizeof(int) * (size_t)a), *agg_d = malloc(sizeof(int) * (size_t)a);
        int64_t cost_f = -1, cost_d = -2;
        CHECK_EQ(assign_tree_flow(t, &c, latp, agg_f, &cost_f), 0);
        CHECK_EQ(assign_dense(t, &c, latp, agg_d, &cost_d), 0);
        CHECK_EQ(cost_f, cost_d);
        /* the flow's assignment really costs what it reports, ranks distinct */
        char *used = calloc((size_t)p, 1);
        int64_t real = 0;
        for (int j = 0; j < a; j++) {
            CHECK(agg_f[j] >= 0 && agg_f[j] < p && !used[agg_f[j]]);
            used[agg_f[j]] = 1;
            int64_t held = 0;
            for (int64_t k = c.col_ptr[j]; k < c.col_ptr[j + 1]; k++)
                held += c.row[k] == agg_f[j] ? c.cval[k] : 0;
            real += latp ? c.fd_bytes[j] - held : hop_bytes_of(t, &c, j, agg_f[j]);
        }
        CHECK_EQ(real, cost_f);
        free(used);
        free(agg_f);
        free(agg_d);
    }
    cmatrix_free(&c);
    partition_free(&part);
    tacio_pattern_free(pat);
    tacio_topo_free(t);
}

static void test_flow_matches_dense(void)
{
    solve_both("tree:racks=3,nodes=4,cores=4", "block", 48, 12, 1, 0);
    solve_both("tree:racks=3,nodes=4,cores=4", "scatter:seed=3", 40, 40, 2, 0);
    solve_both("flat:nodes=5,cores=3", "cyclic", 15, 7, 3, 0);
    solve_both("fattree:k=4,cores=8", "scatter:seed=9", 100, 30, 4, 0);
    solve_both("tree:racks=8,nodes=16,cores=8", "scatter:seed=5", 600, 150, 5, 0);
    for (uint64_t s = 10; s < 40; s++)
        solve_both("tree:racks=2,nodes=3,cores=2", "scatter:seed=1", 12, 1 + (int)(s % 12), s, 0);
    for (uint64_t s = 40; s < 80; s++) /* contended: square, a few hot ranks */
        solve_both("tree:racks=3,nodes=3,cores=3", "scatter:seed=2", 24, 12 + (int)(s % 13), s,
                   1 + (int)(s % 4));
    solve_both("tree:racks=4,nodes=8,cores=8", "scatter:seed=7", 256, 256, 99, 6);
    solve_both("tree:racks=3,nodes=5,cores=4", "scatter:seed=4", 60, 58, 123, 9);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        check_set_data_dir(argv[1]);
    test_brute_force();
    test_tatp_w();
    test_flow_matches_dense();
    return check_report("test_lap");
}
