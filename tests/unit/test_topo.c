/* Topology specs, Slurm files, hostlists, placement and distances. */
#include "check.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int find_name(const struct tacio_topo *t, const char *name)
{
    for (int v = 0; v < t->nverts; v++)
        if (!strcmp(t->vname[v], name))
            return v;
    return -1;
}

static struct tacio_topo *placed(const char *spec, const char *place, int p)
{
    struct tacio_topo *t = NULL;
    CHECK_EQ(tacio_topo_parse(spec, &t), 0);
    if (t)
        CHECK_EQ(tacio_topo_place(t, place, p), 0);
    return t;
}

static void test_tree_distances(void)
{
    /* 2 racks x 2 nodes x 2 cores, block: ranks 0-1 n0, 2-3 n1 | 4-5 n2, 6-7 n3 */
    struct tacio_topo *t = placed("tree:racks=2,nodes=2,cores=2", "block", 8);
    CHECK_EQ(topo_rank_dist(t, 0, 0), 0);
    CHECK_EQ(topo_rank_dist(t, 0, 1), 1);
    CHECK_EQ(topo_rank_dist(t, 0, 2), 2);
    CHECK_EQ(topo_rank_dist(t, 0, 4), 4);
    CHECK_EQ(topo_rank_dist(t, 7, 1), 4);
    CHECK_EQ(t->nused_hosts, 4);
    CHECK(t->uniform_depth);
    CHECK_EQ(t->host_depth, 2);
    tacio_topo_free(t);

    t = placed("flat:nodes=3,cores=1", "block", 3);
    CHECK_EQ(topo_rank_dist(t, 0, 2), 2);
    tacio_topo_free(t);

    /* fat tree k=4: 4 pods x 2 edges x 2 hosts; same edge 2, same pod 4, else 6 */
    t = placed("fattree:k=4,cores=1", "block", 16);
    CHECK_EQ(t->nhosts, 16);
    CHECK_EQ(topo_rank_dist(t, 0, 1), 2);
    CHECK_EQ(topo_rank_dist(t, 0, 2), 4);
    CHECK_EQ(topo_rank_dist(t, 0, 4), 6);
    tacio_topo_free(t);
}

static void test_placement(void)
{
    struct tacio_topo *t = placed("flat:nodes=4,cores=3", "cyclic", 6);
    /* 2 hosts needed; cyclic alternates */
    CHECK_EQ(t->rank_host[0], 0);
    CHECK_EQ(t->rank_host[1], 1);
    CHECK_EQ(t->rank_host[2], 0);
    CHECK_EQ(t->rank_local[2], 1);
    tacio_topo_free(t);

    t = placed("tree:racks=4,nodes=20,cores=12", "scatter:seed=1", 512);
    int hosts_used = t->nused_hosts;
    CHECK_EQ(hosts_used, 43);
    bool spread = false;
    for (int r = 1; r < 512; r++) {
        CHECK(t->rank_host[r] >= t->rank_host[r - 1]); /* block over sorted hosts */
        if (t->rank_host[r] - t->rank_host[r - 1] > 1)
            spread = true;
    }
    CHECK(spread);
    struct tacio_topo *u = placed("tree:racks=4,nodes=20,cores=12", "scatter:seed=1", 512);
    CHECK(memcmp(t->rank_host, u->rank_host, sizeof(int) * 512) == 0); /* seeded */
    tacio_topo_free(u);
    tacio_topo_free(t);

    struct tacio_topo *small = NULL;
    CHECK_EQ(tacio_topo_parse("flat:nodes=2,cores=2", &small), 0);
    CHECK_EQ(tacio_topo_place(small, "block", 5), TACIO_ERANGE);
    CHECK(strstr(tacio_last_error(), "slots") != NULL);
    CHECK_EQ(tacio_topo_place(small, "diagonal", 4), TACIO_EINVAL);
    CHECK_EQ(tacio_topo_place(small, "scatter:seed=x", 4), TACIO_EINVAL);
    tacio_topo_free(small);
}

static int collect(const char *name, void *ctx)
{
    char *buf = ctx;
    strcat(buf, name);
    strcat(buf, " ");
    return 0;
}

static int count_calls(const char *name, void *ctx)
{
    (void)name;
    ++*(int *)ctx;
    return 0;
}

static void test_hostlist(void)
{
    char buf[512] = "";
    CHECK_EQ(hostlist_expand("n[01-03,07],login,r[1-2]c[0-1]", collect, buf), 0);
    CHECK(strcmp(buf, "n01 n02 n03 n07 login r1c0 r1c1 r2c0 r2c1 ") == 0);
    buf[0] = '\0';
    CHECK_EQ(hostlist_expand("n[3-1]", collect, buf), TACIO_EINVAL);
    CHECK_EQ(hostlist_expand("n[1-2", collect, buf), TACIO_EINVAL);
    /* indices past the limit (strtol would saturate, and counting to
     * LONG_MAX overflows), signs and spaces are refused */
    CHECK_EQ(hostlist_expand("n[33333333333333333333333335]", collect, buf), TACIO_EINVAL);
    CHECK_EQ(hostlist_expand("n[999999998-1000000000]", collect, buf), TACIO_EINVAL);
    CHECK_EQ(hostlist_expand("n[+1-2]", collect, buf), TACIO_EINVAL);
    CHECK_EQ(hostlist_expand("n[ 1]", collect, buf), TACIO_EINVAL);
    CHECK_EQ(hostlist_expand("n[1--2]", collect, buf), TACIO_EINVAL);
    CHECK_EQ(hostlist_expand("n[999999998-999999999]", collect, buf), 0);
    CHECK(strcmp(buf, "n999999998 n999999999 ") == 0);

    /* an empty group names nothing: refused at once, not after walking
     * the groups before it (a fuzzer's input took minutes) */
    CHECK_EQ(hostlist_expand("a[0-95]b[0-95]c[0-95]d[0-95]e[]", collect, buf), TACIO_EINVAL);
    CHECK_EQ(hostlist_expand("n[,]", collect, buf), TACIO_EINVAL);
    buf[0] = '\0';
    CHECK_EQ(hostlist_expand("n[1,,2]x", collect, buf), 0);
    CHECK(strcmp(buf, "n1x n2x ") == 0);
    /* more names than a topology may hold: refused before any is made */
    int calls = 0;
    CHECK_EQ(hostlist_expand("a[0-9999]b[0-9999]", count_calls, &calls), TACIO_ERANGE);
    CHECK_EQ(calls, 0);
    /* a name past the host-name length is refused, not cut short */
    char longname[700];
    memset(longname, 'x', 600);
    strcpy(longname + 600, "[1-2]");
    CHECK_EQ(hostlist_expand(longname, count_calls, &calls), TACIO_EINVAL);
    CHECK_EQ(calls, 0);
}

static void test_slurm(void)
{
    char spec[4096];
    snprintf(spec, sizeof spec, "slurm:%s,cores=2", data_path("tatp_topology.conf"));
    struct tacio_topo *t = placed(spec, "block", 6);
    CHECK_EQ(t->nhosts, 3);
    CHECK_EQ(topo_rank_dist(t, 0, 2), 2);
    CHECK_EQ(topo_rank_dist(t, 0, 4), 4);
    tacio_topo_free(t);

    /* the job's nodes chosen by a hostlist, in that order */
    snprintf(spec, sizeof spec, "slurm:%s,nodes=n[3,1],cores=1", data_path("tatp_topology.conf"));
    t = placed(spec, "block", 2);
    CHECK_EQ(topo_rank_dist(t, 0, 1), 4);
    tacio_topo_free(t);

    t = NULL;
    snprintf(spec, sizeof spec, "slurm:%s", data_path("bad_topology.conf"));
    CHECK_EQ(tacio_topo_parse(spec, &t), TACIO_EINVAL);
    CHECK(strstr(tacio_last_error(), "never defined") != NULL);
    CHECK_EQ(tacio_topo_parse("slurm:/nonexistent/topology.conf", &t), TACIO_EIO);
    snprintf(spec, sizeof spec, "slurm:%s,nodes=n9", data_path("tatp_topology.conf"));
    CHECK_EQ(tacio_topo_parse(spec, &t), TACIO_EINVAL);
}

/* A machine-sized topology.conf: 200,000 nodes under 400 leaf switches,
 * and a job's node list naming 20,000 of them. Names are found by a hash:
 * by a scan per name this took minutes (tests/fuzz/parsers found it). */
static void test_slurm_large(void)
{
    char path[] = "/tmp/tacio-test-topo-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (!f)
        return;
    for (int sw = 0; sw < 400; sw++)
        fprintf(f, "SwitchName=s%d Nodes=n[%06d-%06d]\n", sw, sw * 500, sw * 500 + 499);
    fprintf(f, "SwitchName=top Switches=s[0-399]\n");
    fclose(f);
    char spec[256];
    snprintf(spec, sizeof spec, "slurm:%s,nodes=n[100000-119999]", path);
    struct tacio_topo *t = NULL;
    CHECK_EQ(tacio_topo_parse(spec, &t), 0);
    if (t) {
        CHECK_EQ(t->nhosts, 200000);
        CHECK_EQ(t->njob_hosts, 20000);
        CHECK_EQ(t->host_vert[t->job_hosts[0]], find_name(t, "n100000"));
        CHECK_EQ(tacio_topo_place(t, "block", 20000), 0);
        CHECK_EQ(t->rank_host[0], t->job_hosts[0]);
        tacio_topo_free(t);
    }
    /* past the host limit: refused, not built */
    f = fopen(path, "w");
    fprintf(f, "SwitchName=s Nodes=a[0-9999999],b[0-9]\n");
    fclose(f);
    snprintf(spec, sizeof spec, "slurm:%s", path);
    t = NULL;
    int64_t limit = topo_host_limit;
    topo_host_limit = 1000; /* the same rule, quicker */
    CHECK_EQ(tacio_topo_parse(spec, &t), TACIO_ERANGE);
    CHECK(strstr(tacio_last_error(), "more than 1000 hosts") != NULL);
    topo_host_limit = limit;
    unlink(path);
}

static void test_dist_and_errors(void)
{
    char spec[4096];
    snprintf(spec, sizeof spec, "dist:%s", data_path("tatp_d.txt"));
    struct tacio_topo *t = placed(spec, "block", 0);
    CHECK_EQ(t->nprocs, 6);
    CHECK_EQ(t->nused_hosts, 3);
    CHECK_EQ(t->rank_host[3], 1);
    CHECK_EQ(topo_rank_dist(t, 2, 5), 4);
    CHECK_EQ(tacio_topo_place(t, "block", 7), TACIO_EINVAL);
    tacio_topo_free(t);

    const char *bad[] = {"tree:racks=0,nodes=2,cores=2", "tree:racks=2,nodes=2,cores=2,extra=1",
                         "tree:racks=x", "fattree:k=5", "torus:x=3", "dist:", "flat:nodes=-1",
                         /* found by tests/fuzz/parsers: cores wrapped to a
                          * negative int, a product of levels overflowed */
                         "fattree:k=4,cores=5555555555555552",
                         "tree:racks=4294967296,nodes=4294967296,cores=2",
                         "dragonfly:groups=65536,chassis=65536,routers=65536,nodes=65536", NULL};
    for (int i = 0; bad[i]; i++) {
        t = NULL;
        int rc = tacio_topo_parse(bad[i], &t);
        CHECK(rc < 0);
        CHECK(t == NULL);
        CHECK(strlen(tacio_last_error()) > 10);
    }
}

static void test_memory(void)
{
    struct tacio_topo *t = placed("flat:nodes=50,cores=1", "block", 50);
    CHECK_EQ(tacio_topo_set_memory(t, "1g"), 0);
    CHECK_EQ(t->mem_free[49], 1 << 30);
    CHECK_EQ(tacio_topo_set_memory(t, "normal:mean=1g,sd=100m,seed=3"), 0);
    int64_t lo = INT64_MAX, hi = 0;
    for (int h = 0; h < 50; h++) {
        lo = min64(lo, t->mem_free[h]);
        hi = max64(hi, t->mem_free[h]);
    }
    CHECK(lo < hi && lo > (1 << 30) - (600 << 20) && hi < (1 << 30) + (600 << 20));
    CHECK_EQ(tacio_topo_set_memory(t, "gauss:mean=1"), TACIO_EINVAL);
    tacio_topo_free(t);
}

/* The registry: names unique, forms begin with their name, each form with
 * its placeholders filled parses, the accessors NULL outside, and an
 * unknown kind's error names every form. */
static void test_registry(void)
{
    static const char *const filled[] = {"tree:racks=2,nodes=3,cores=4", "fattree:k=4,cores=2",
                                         "dragonfly:groups=2,chassis=2,routers=2,nodes=2,cores=2",
                                         "flat:nodes=3,cores=2"};
    int n = tacio_topo_kind_get_count();
    CHECK(n >= 6);
    struct tacio_topo *t = NULL;
    CHECK_EQ(tacio_topo_parse("torus:x=1", &t), TACIO_EINVAL);
    char last[1024];
    snprintf(last, sizeof last, "%s", tacio_last_error());
    for (int i = 0; i < n; i++) {
        const char *name = tacio_topo_kind_get_name(i), *form = tacio_topo_kind_get_form(i);
        CHECK(name && form && tacio_topo_kind_get_summary(i));
        CHECK(!strncmp(form, name, strlen(name)) && form[strlen(name)] == ':');
        CHECK(strstr(last, form) != NULL);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(name, tacio_topo_kind_get_name(j)));
        for (size_t f = 0; f < sizeof filled / sizeof *filled; f++) {
            if (strncmp(filled[f], name, strlen(name)) || filled[f][strlen(name)] != ':')
                continue;
            CHECK_EQ(tacio_topo_parse(filled[f], &t), 0);
            CHECK(t && !strcmp(tacio_topo_get_kind(t), name));
            tacio_topo_free(t);
            t = NULL;
        }
    }
    CHECK(tacio_topo_kind_get_name(n) == NULL && tacio_topo_kind_get_form(-1) == NULL &&
          tacio_topo_kind_get_summary(n) == NULL);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        check_set_data_dir(argv[1]);
    test_registry();
    test_tree_distances();
    test_placement();
    test_hostlist();
    test_slurm();
    test_slurm_large();
    test_dist_and_errors();
    test_memory();
    return check_report("test_topo");
}
