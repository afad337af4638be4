/* The public plan API (include/tacio_plan.h) alone: a program reads a whole
 * plan through it, the numbers agree with each other, out-of-range
 * questions get errors, and the plan outlives the topology it was made on
 * (the sanitizer build turns a borrowed name into a failure). */
#include "check.h"
#include "tacio_plan.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static tacio_plan_t plan_of(const char *strategy, tacio_topo_t *topo, tacio_pattern_t *pat)
{
    tacio_hints_t h;
    tacio_plan_t p = NULL;
    CHECK_EQ(tacio_topo_parse("tree:racks=2,nodes=2,cores=2", topo), 0);
    CHECK_EQ(tacio_pattern_parse("cube:n=32", 8, pat), 0);
    CHECK_EQ(tacio_topo_place(*topo, "scatter:seed=1", 8), 0);
    CHECK_EQ(tacio_hints_new(&h), 0);
    CHECK_EQ(tacio_hints_set(h, "tacio_strategy", strategy), 0);
    CHECK_EQ(tacio_hints_set(h, "cb_config_list", "*:2"), 0);
    CHECK_EQ(tacio_hints_set(h, "striping_unit", "16k"), 0); /* tsujita: FDs of 16k stripes */
    CHECK_EQ(tacio_plan_compute(*pat, *topo, h, &p), 0);
    tacio_hints_free(h);
    return p;
}

static void registry(void)
{
    int n = tacio_strategy_get_count();
    bool romio = false, tatp = false, autos = false;
    CHECK(n >= 7);
    for (int i = 0; i < n; i++) {
        const char *name = tacio_strategy_get_name(i);
        romio |= !strcmp(name, "romio");
        tatp |= !strcmp(name, "tatp");
        autos |= !strcmp(name, "auto");
        CHECK(strlen(tacio_strategy_get_summary(i)) > 10);
        /* auto's candidates: ROMIO's default and the papers' (not auto
         * itself, nor cuts, whose planning is too dear for a call) */
        bool candidate = !strcmp(name, "romio") || !strcmp(name, "bottleneck") ||
                         !strcmp(name, "tsujita") || !strcmp(name, "tatp");
        bool never = !strcmp(name, "auto") || !strcmp(name, "cuts");
        CHECK(!candidate || tacio_strategy_is_auto_candidate(i));
        CHECK(!never || !tacio_strategy_is_auto_candidate(i));
    }
    CHECK(romio && tatp && autos);
    CHECK(!tacio_strategy_is_auto_candidate(n) && !tacio_strategy_is_auto_candidate(-1));
    CHECK(tacio_strategy_get_name(n) == NULL);
    CHECK(tacio_strategy_get_name(-1) == NULL);
    CHECK(tacio_strategy_get_summary(n) == NULL);
}

/* FDs in file order (empty ones allowed: a striped plan deals out stripes
 * the data may not reach), served by ranks of the job, holding
 * every byte; the aggregators are the ranks serving bytes. */
static void fds(tacio_plan_t p, const struct tacio_plan_metrics *m)
{
    int n = tacio_plan_get_nfds(p), naggs = 0;
    int64_t bytes = 0, prev_end = 0, prev_start = INT64_MIN / 2;
    bool serving[8] = {false};
    struct tacio_fd_info fd;
    CHECK(n >= 1);
    for (int j = 0; j < n; j++) {
        CHECK_EQ(tacio_plan_get_fd(p, j, &fd), 0);
        /* contiguous FDs follow each other; striped ones interleave, each
         * starting a stripe after the previous */
        int64_t after = fd.unit ? prev_start + fd.unit : prev_end;
        CHECK(fd.end >= fd.start && (fd.end == fd.start || fd.start >= after));
        CHECK(fd.aggregator >= 0 && fd.aggregator < tacio_plan_get_nprocs(p));
        if (fd.end > fd.start)
            prev_end = fd.end, prev_start = fd.start;
        bytes += fd.bytes;
        if (fd.bytes && !serving[fd.aggregator & 7])
            serving[fd.aggregator & 7] = true, naggs++;
    }
    CHECK_EQ(bytes, m->total_bytes);
    CHECK_EQ(m->total_bytes, (int64_t)32 * 32 * 32 * 8);
    CHECK_EQ(naggs, m->naggs);
    CHECK_EQ(tacio_plan_get_fd(p, n, &fd), TACIO_EINVAL);
    CHECK_EQ(tacio_plan_get_fd(p, -1, &fd), TACIO_EINVAL);
}

/* Hop-bytes is W = D*C at the chosen aggregators; the busiest link is the
 * plan's max link load. */
static void costs(tacio_plan_t p, tacio_topo_t topo, const struct tacio_plan_metrics *m)
{
    int64_t hop = 0, busiest = 0;
    struct tacio_fd_info fd;
    for (int j = 0; j < tacio_plan_get_nfds(p); j++) {
        tacio_plan_get_fd(p, j, &fd);
        hop += tacio_plan_get_hop_bytes(p, topo, fd.aggregator, j);
    }
    CHECK_EQ(hop, m->hop_bytes);
    struct tacio_link_info l;
    CHECK(tacio_plan_get_nlinks(p) > 0);
    for (int k = 0; k < tacio_plan_get_nlinks(p); k++) {
        CHECK_EQ(tacio_plan_get_link(p, k, &l), 0);
        struct tacio_vertex_info v, up;
        CHECK_EQ(tacio_topo_get_vertex(topo, k, &v), 0);
        CHECK(v.parent < 0 ? l.above == NULL
                           : tacio_topo_get_vertex(topo, v.parent, &up) == 0 && l.above &&
                                 !strcmp(l.above, up.name));
        busiest = busiest > l.up ? busiest : l.up;
        busiest = busiest > l.down ? busiest : l.down;
    }
    CHECK_EQ(busiest, m->max_link_load);
    CHECK_EQ(tacio_plan_get_link(p, tacio_plan_get_nlinks(p), &l), TACIO_EINVAL);
}

/* Tsujita orders each FD's senders: every rank holding bytes of an FD is
 * listed once, hosts in rotation from the aggregator's (hosts numbered by
 * their first rank), ranks in order inside a host. romio does not order. */
static void order(tacio_plan_t tsujita, tacio_plan_t romio, tacio_topo_t topo)
{
    const int *s;
    int64_t total = 0;
    int pos[8], host_pos[64], nh = 0;
    for (int h = 0; h < 64; h++)
        host_pos[h] = -1;
    for (int r = 0; r < 8; r++) {
        int h = tacio_topo_get_rank_host(topo, r);
        pos[r] = host_pos[h] >= 0 ? host_pos[h] : (host_pos[h] = nh++);
    }
    for (int j = 0; j < tacio_plan_get_nfds(tsujita); j++) {
        int64_t n = tacio_plan_get_order(tsujita, j, &s);
        struct tacio_fd_info fd;
        tacio_plan_get_fd(tsujita, j, &fd);
        bool seen[8] = {false};
        int64_t prev = -1;
        for (int64_t k = 0; k < n; k++) {
            CHECK(s[k] >= 0 && s[k] < 8 && !seen[s[k]]);
            seen[s[k] & 7] = true;
            int64_t key = (int64_t)((pos[s[k] & 7] - pos[fd.aggregator] + nh) % nh) * 8 + s[k];
            CHECK(key > prev);
            prev = key;
        }
        total += n;
    }
    CHECK(total >= tacio_plan_get_nfds(tsujita));
    CHECK_EQ(tacio_plan_get_order(romio, 0, &s), 0);
    CHECK(s == NULL);
}

/* The engine's view (tacio_plan_compute_as_engine): on cube 48 at 64
 * ranks mccio's FDs, cut at the ranks' 16 byte quantiles, move from the
 * closed form's (1495405 hop-bytes against 1502208, the engine's own under
 * SMPI: tests/smpi/smoke.sh); romio's, on spans, do not; auto is refused. */
static void as_engine(void)
{
    tacio_topo_t t;
    tacio_pattern_t pat;
    tacio_hints_t h;
    CHECK_EQ(tacio_topo_parse("tree:racks=4,nodes=20,cores=12", &t), 0);
    CHECK_EQ(tacio_pattern_parse("cube:n=48", 64, &pat), 0);
    CHECK_EQ(tacio_topo_place(t, "scatter:seed=2", 64), 0);
    CHECK_EQ(tacio_hints_new(&h), 0);
    CHECK_EQ(tacio_hints_set(h, "cb_config_list", "*:1"), 0);
    const char *strategies[] = {"mccio", "romio"};
    int64_t want[][2] = {{1495405, 1502208}, {1502208, 1502208}};
    for (int i = 0; i < 2; i++) {
        tacio_plan_t engine = NULL, closed = NULL;
        struct tacio_plan_metrics me, mc;
        CHECK_EQ(tacio_hints_set(h, "tacio_strategy", strategies[i]), 0);
        CHECK_EQ(tacio_plan_compute_as_engine(pat, t, h, &engine), 0);
        CHECK_EQ(tacio_plan_compute(pat, t, h, &closed), 0);
        if (engine && closed) {
            tacio_plan_get_metrics(engine, &me);
            tacio_plan_get_metrics(closed, &mc);
            CHECK_EQ(me.hop_bytes, want[i][0]);
            CHECK_EQ(mc.hop_bytes, want[i][1]);
            CHECK_EQ(me.total_bytes, mc.total_bytes);
        }
        tacio_plan_free(engine);
        tacio_plan_free(closed);
    }
    tacio_plan_t none = NULL;
    CHECK_EQ(tacio_hints_set(h, "tacio_strategy", "auto"), 0);
    CHECK_EQ(tacio_plan_compute_as_engine(pat, t, h, &none), TACIO_EINVAL);
    CHECK(none == NULL);
    tacio_hints_free(h);
    tacio_pattern_free(pat);
    tacio_topo_free(t);
}

int main(void)
{
    /* the header's version, the library's, and the project's (CMake's
     * project(VERSION), which names the soname) must be one */
    CHECK_EQ(TACIO_API_VERSION, TACIO_PROJECT_VERSION);
    CHECK_EQ(tacio_api_get_version(), TACIO_PROJECT_VERSION);
    registry();
    as_engine();
    tacio_topo_t topo, topo2;
    tacio_pattern_t pat, pat2;
    tacio_plan_t p = plan_of("tsujita", &topo, &pat), r = plan_of("romio", &topo2, &pat2);
    struct tacio_plan_metrics m;
    tacio_plan_get_metrics(p, &m);
    CHECK(!strcmp(tacio_plan_get_strategy(p), "tsujita"));
    CHECK_EQ(tacio_plan_get_nprocs(p), 8);
    fds(p, &m);
    costs(p, topo, &m);
    order(p, r, topo);
    /* the plan keeps its link names after the topology is gone */
    struct tacio_link_info l;
    tacio_plan_get_link(p, 0, &l);
    char name[64];
    snprintf(name, sizeof name, "%s", l.name);
    tacio_topo_free(topo);
    tacio_pattern_free(pat);
    tacio_plan_get_link(p, 0, &l);
    CHECK(!strcmp(l.name, name));
    tacio_plan_free(p);
    tacio_plan_free(r);
    tacio_topo_free(topo2);
    tacio_pattern_free(pat2);
    return check_report("test_plan_api");
}
