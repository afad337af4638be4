/* The metrics two ways: from C by column (metrics_compute, what the LAP
 * strategies and the engine use) and streamed from the pattern host by host
 * without C (metrics_stream, what romio, lustre and tsujita use), on one
 * thread and on several. Every field, every FD and every link must agree,
 * for every strategy on patterns, topologies and placements of each kind. */
#include "check.h"
#include "plan/strategy.h"

#include <stdlib.h>
#include <string.h>

struct job {
    struct test_job base; /* t, p, h (check.h) */
    struct plan_ctx ctx;
};

static void job_init(struct job *j, const char *pattern, int procs, const char *topo,
                     const char *place, const char *unit)
{
    test_job_init(&j->base, pattern, procs, topo, place);
    if (unit)
        CHECK_EQ(tacio_hints_set(j->base.h, "striping_unit", unit), 0);
    j->ctx = (struct plan_ctx){.pat = j->base.p, .topo = j->base.t, .h = j->base.h};
    pattern_range(j->base.p, &j->ctx.lo, &j->ctx.hi);
}

/* A plan with p's FDs and aggregators and none of its metrics. */
static struct tacio_plan bare(const struct tacio_plan *p)
{
    return (struct tacio_plan){.part = p->part, .agg = p->agg, .order_rule = p->order_rule};
}

static void bare_free(struct tacio_plan *q)
{
    free(q->fd_bytes);
    free(q->fd_mem);
    free(q->link_up);
    free(q->link_down);
    free(q->link_name);
    free(q->link_parent);
}

static void same_metrics(const struct tacio_plan *a, const struct tacio_plan *b)
{
    const struct metrics *x = &a->m, *y = &b->m;
    CHECK_EQ(x->total_bytes, y->total_bytes);
    CHECK_EQ(x->shuffle_bytes, y->shuffle_bytes);
    CHECK_EQ(x->offnode_bytes, y->offnode_bytes);
    CHECK_EQ(x->hop_bytes, y->hop_bytes);
    CHECK_EQ(x->max_link_load, y->max_link_load);
    CHECK_EQ(x->max_agg_bytes, y->max_agg_bytes);
    CHECK_EQ(x->max_agg_mem, y->max_agg_mem);
    CHECK_EQ(x->messages, y->messages);
    CHECK_EQ(x->rounds, y->rounds);
    CHECK_EQ(x->max_host_bytes, y->max_host_bytes);
    CHECK_EQ(x->naggs, y->naggs);
    CHECK_EQ(x->max_step_fanin, y->max_step_fanin);
    CHECK(x->model_seconds == y->model_seconds);
    for (int j = 0; j < a->part.n; j++) {
        CHECK_EQ(a->fd_bytes[j], b->fd_bytes[j]);
        CHECK_EQ(a->fd_mem[j], b->fd_mem[j]);
    }
    CHECK_EQ(!a->link_up, !b->link_up);
    for (int v = 0; a->link_up && b->link_up && v < a->nlinks; v++) {
        CHECK_EQ(a->link_up[v], b->link_up[v]);
        CHECK_EQ(a->link_down[v], b->link_down[v]);
    }
}

/* The plan's metrics against both ways of computing them. */
static void check_plan(struct job *j, const struct tacio_plan *p)
{
    CHECK(p->cmat.row != NULL); /* small jobs keep C */
    struct tacio_plan col = bare(p);
    CHECK_EQ(metrics_compute(&j->ctx, &p->cmat, &col), 0);
    same_metrics(p, &col);
    bare_free(&col);
    for (int threads = 1; threads <= 3; threads += 2) {
        j->ctx.threads = threads;
        struct tacio_plan str = bare(p);
        int64_t nnz = -1;
        CHECK_EQ(metrics_stream(&j->ctx, &str, &nnz), 0);
        CHECK_EQ(nnz, p->cmat.nnz);
        same_metrics(p, &str);
        bare_free(&str);
        struct cmatrix c; /* C's passes split over the threads: the same C */
        CHECK_EQ(cmatrix_build(j->base.p, &p->part, threads, &c), 0);
        CHECK_EQ(c.nnz, p->cmat.nnz);
        for (int64_t k = 0; k < c.nnz && k < p->cmat.nnz; k++)
            CHECK(c.row[k] == p->cmat.row[k] && c.cval[k] == p->cmat.cval[k]);
        cmatrix_free(&c);
    }
    j->ctx.threads = 0;
}

static void check_job(const char *pattern, int procs, const char *topo, const char *place,
                      const char *unit)
{
    static const char *const strategies[] = {"romio", "lustre", "tsujita",    "latp",
                                             "tatp",  "mccio",  "bottleneck", "auto"};
    struct job j;
    job_init(&j, pattern, procs, topo, place, unit);
    for (size_t s = 0; s < sizeof strategies / sizeof *strategies; s++) {
        struct tacio_plan *p = NULL;
        CHECK_EQ(tacio_hints_set(j.base.h, "tacio_strategy", strategies[s]), 0);
        int rc = tacio_plan_compute(j.base.p, j.base.t, j.base.h, &p);
        if (rc)
            fprintf(stderr, "%s %s: %s\n", pattern, strategies[s], tacio_last_error());
        CHECK_EQ(rc, 0);
        if (p)
            check_plan(&j, p);
        tacio_plan_free(p);
    }
    test_job_free(&j.base);
}

/* Past the size a plan keeps C (lowered here through TACIO_PLAN_KEEP_C),
 * the metrics are still exact, the accessors that need C say -1, and the
 * threaded walk agrees with the single one. */
static void check_without_c(void)
{
    struct job j;
    job_init(&j, "cube:n=64", 64, "tree:racks=2,nodes=4,cores=8", "scatter:seed=2", "512");
    CHECK_EQ(tacio_hints_set(j.base.h, "tacio_strategy", "tsujita"), 0);
    struct tacio_plan *kept = NULL, *dropped = NULL, *threaded = NULL;
    CHECK_EQ(tacio_plan_compute(j.base.p, j.base.t, j.base.h, &kept), 0);
    setenv("TACIO_PLAN_KEEP_C", "100", 1);
    CHECK_EQ(tacio_plan_compute(j.base.p, j.base.t, j.base.h, &dropped), 0);
    setenv("TACIO_PLAN_THREADS", "4", 1);
    CHECK_EQ(tacio_plan_compute(j.base.p, j.base.t, j.base.h, &threaded), 0);
    unsetenv("TACIO_PLAN_THREADS");
    unsetenv("TACIO_PLAN_KEEP_C");
    CHECK(kept && dropped && threaded && kept->cmat.nnz > 100);
    if (kept && dropped && threaded) {
        CHECK(dropped->cmat.row == NULL && dropped->order == NULL);
        same_metrics(kept, dropped);
        same_metrics(kept, threaded);
        const int *s = NULL;
        CHECK(tacio_plan_get_order(kept, 0, &s) > 0 && s != NULL);
        CHECK_EQ(tacio_plan_get_order(dropped, 0, &s), -1);
        CHECK(s == NULL);
        CHECK(tacio_plan_get_hop_bytes(kept, j.base.t, 0, 0) >= 0);
        CHECK_EQ(tacio_plan_get_hop_bytes(dropped, j.base.t, 0, 0), -1);
    }
    tacio_plan_free(kept);
    tacio_plan_free(dropped);
    tacio_plan_free(threaded);
    test_job_free(&j.base);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        check_set_data_dir(argv[1]);
    char matrix[4096], dist[4096];
    snprintf(matrix, sizeof matrix, "matrix:%s", data_path("tatp_c.txt"));
    snprintf(dist, sizeof dist, "dist:%s", data_path("tatp_d.txt"));
    /* small stripes: a box's rows cross stripe ends inside a plane */
    check_job("cube:n=24", 27, "tree:racks=2,nodes=3,cores=5", "scatter:seed=3", "512");
    check_job("cube:n=16", 8, "tree:racks=2,nodes=2,cores=2", "cyclic", NULL);
    check_job("btio:n=30", 16, "tree:racks=2,nodes=2,cores=4", "cyclic", "1024");
    check_job("ior:block=64k,transfer=16k,segments=3", 12, "flat:nodes=3,cores=4", "block", "24k");
    check_job("collperf:n=20", 12, "fattree:k=4,cores=2", "scatter:seed=7", "4096");
    check_job("mesh:elems=4000,seed=9", 12, "flat:nodes=3,cores=4", "cyclic", "2048");
    check_job(matrix, 0, dist, "block", NULL);
    check_without_c();
    return check_report("test_metrics");
}
