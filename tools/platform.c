/* tacio platform: the cluster a --topology spec describes, as a SimGrid
 * platform (XML) and an smpirun hostfile, so that a simulated run and a
 * planned one refer to one machine: the same hosts under the same names,
 * the job's ranks on the same hosts (the same --placement code places
 * both), and the engine finds its hosts on the tree by name.
 *
 * Networks:
 *   tree    every topology kind: the planner's tree itself, one link per
 *           vertex (host to its switch, switch to its parent), the i-th
 *           level above the hosts at the i-th --link-bw; a <disk> per host.
 *   native  fattree: and dragonfly: as SimGrid's own FAT_TREE and DRAGONFLY
 *           clusters (several paths between switches, which the planner's
 *           tree folds into one); SimGrid clusters cannot hold disks, so
 *           storage time comes from TACIO_SIM_IO_BW (src/exec/sim.c). */
#include "tacio_plan.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MAX_LEVELS 8

struct platform_opts {
    const char *topology, *placement, *out, *network, *memory;
    int procs;
    double link_bw[MAX_LEVELS]; /* bytes/s, from the hosts' links up */
    int nlevels;
    double latency, disk_bw; /* seconds; bytes/s */
};

/* "40Gbps", "1.5GBps", "800MBps", "1e9": bytes per second (b: bits). */
static int parse_rate(const char *text, double *out)
{
    char *end;
    double v = strtod(text, &end);
    double scale = 1;
    if (*end == 'k' || *end == 'K')
        scale = 1e3, end++;
    else if (*end == 'M')
        scale = 1e6, end++;
    else if (*end == 'G')
        scale = 1e9, end++;
    else if (*end == 'T')
        scale = 1e12, end++;
    if (!strcmp(end, "bps"))
        scale /= 8;
    else if (*end && strcmp(end, "Bps"))
        return -1;
    *out = v * scale;
    return end == text || !(*out > 0) ? -1 : 0;
}

/* "1us", "0.5ms", "100ns", "2e-6" (seconds). */
static int parse_latency(const char *text, double *out)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
    char *end;
    double v = strtod(text, &end);
    for (size_t i = 0; end != text && i < sizeof units / sizeof *units; i++)
        if (!strcmp(end, units[i].unit)) {
            *out = v * units[i].scale;
            return *out >= 0 ? 0 : -1;
        }
    return -1;
}

static int parse_rates(char *list, struct platform_opts *o)
{
    o->nlevels = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (o->nlevels == MAX_LEVELS || parse_rate(tok, &o->link_bw[o->nlevels]))
            return -1;
        o->nlevels++;
    }
    return o->nlevels ? 0 : -1;
}

static int platform_option(struct platform_opts *o, const char *name, char *val)
{
    if (!strcmp(name, "--topology"))
        o->topology = val;
    else if (!strcmp(name, "--placement"))
        o->placement = val;
    else if (!strcmp(name, "--out"))
        o->out = val;
    else if (!strcmp(name, "--memory"))
        o->memory = val;
    else if (!strcmp(name, "--network"))
        o->network = val;
    else if (!strcmp(name, "--procs")) {
        char *end;
        long n = strtol(val, &end, 10);
        if (end == val || *end || n < 1 || n > 10000000)
            return cli_error("--procs %s: expected a rank count from 1 to 1e7", val);
        o->procs = (int)n;
    } else if (!strcmp(name, "--link-bw")) {
        if (parse_rates(val, o))
            return cli_error("--link-bw %s: expected rates from the hosts up, as "
                             "40Gbps,20Gbps (at most %d)",
                             val, MAX_LEVELS);
    } else if (!strcmp(name, "--latency")) {
        if (parse_latency(val, &o->latency))
            return cli_error("--latency %s: expected a time, as 1us", val);
    } else if (!strcmp(name, "--disk-bw")) {
        if (parse_rate(val, &o->disk_bw))
            return cli_error("--disk-bw %s: expected a rate, as 2GBps", val);
    } else
        return cli_error("unknown option '%s'; expected --topology, --procs, --placement, "
                         "--out, --network, --link-bw, --latency, --disk-bw or --memory",
                         name);
    return 0;
}

static int parse_platform_args(int argc, char **argv, struct platform_opts *o)
{
    /* The TATP paper's Inspur cluster: 40 Gb/s in a rack, 20 Gb/s between. */
    o->link_bw[0] = 40e9 / 8;
    o->link_bw[1] = 20e9 / 8;
    o->nlevels = 2;
    o->latency = 1e-6;
    o->disk_bw = 1e9;
    for (int i = 0; i < argc; i += 2) {
        if (i + 1 >= argc)
            return cli_error("%s needs a value (tacio --help)", argv[i]);
        int rc = platform_option(o, argv[i], argv[i + 1]);
        if (rc)
            return rc;
    }
    if (!o->topology || !o->procs || !o->out)
        return cli_error("--topology, --procs and --out are required (tacio --help)");
    if (o->network && strcmp(o->network, "tree") && strcmp(o->network, "native"))
        return cli_error("--network %s: expected tree or native", o->network);
    return 0;
}

static double level_bw(const struct platform_opts *o, int level)
{
    return o->link_bw[level < o->nlevels ? level : o->nlevels - 1];
}

/* auto's cost model calibrated from the platform (docs/strategies.md, "auto's cost model"): hosts'
 * links and the slowest level above them; on the tree, each host's disk for
 * one aggregator and for all of a host's, every job host's disk for the
 * whole; natively (no disks: each rank's I/O takes TACIO_SIM_IO_BW on its
 * own) that rate per aggregator only; and a message's latency: the links'
 * up to the root and back, times SMPI's default latency factor for the
 * shuffle's messages of 16-64 KiB (smpi/lat-factor: 3.48845); a message
 * costs its ends nothing besides (the runs simulate no computation: SMPI's
 * messages overlap whole), so msg_overhead is a nanosecond; and the share
 * of a link's rate a message gets by its size, SMPI's default
 * smpi/bw-factor (SimGrid 3.32's, as its option help prints it). */
#define SMPI_LAT_FACTOR 3.48845
#define SMPI_BW_FACTORS                                                                            \
    "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;"          \
    "732:0.341987;257:0.338112;0:0.812084"
static void print_model(const struct platform_opts *o, const struct tacio_topo *t, bool native)
{
    int aggs_io = native ? o->procs : tacio_topo_get_nused_hosts(t);
    double uplink = level_bw(o, 1);
    for (int l = 2; l < o->nlevels; l++)
        uplink = level_bw(o, l) < uplink ? level_bw(o, l) : uplink;
    int depth = 0;
    struct tacio_vertex_info v;
    if (!tacio_topo_get_vertex(t, tacio_topo_get_host_vertex(t, 0), &v))
        depth = v.depth;
    printf("model=tacio_bw_link=%.4g,tacio_bw_uplink=%.4g,tacio_bw_agg_io=%.4g,", level_bw(o, 0),
           uplink, o->disk_bw);
    if (!native)
        printf("tacio_bw_node_io=%.4g,", o->disk_bw);
    printf("tacio_bw_fs=%.4g,tacio_latency=%.4g,tacio_msg_overhead=1e-09,tacio_bw_factors=%s\n",
           o->disk_bw * aggs_io, SMPI_LAT_FACTOR * 2 * depth * o->latency, SMPI_BW_FACTORS);
}

static void xml_head(FILE *f, const struct platform_opts *o)
{
    fprintf(f,
            "<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<platform version=\"4.1\">\n"
            "<!-- from tacio platform: topology %s, %d ranks, placement %s -->\n",
            o->topology, o->procs, o->placement ? o->placement : "block");
}

/* A host with its disk and, under --memory, its free memory (the engine
 * reads the property tacio_mem_free under SimGrid: src/exec/backend). */
static void xml_host(FILE *f, const struct platform_opts *o, struct tacio_topo *t, int vertex,
                     const char *name)
{
    fprintf(f,
            "  <host id=\"%s\" speed=\"1Gf\" core=\"%d\">\n"
            "    <disk id=\"%s-disk\" read_bw=\"%.0fBps\" write_bw=\"%.0fBps\"/>\n",
            name, tacio_topo_get_cores(t), name, o->disk_bw, o->disk_bw);
    for (int h = 0; o->memory && h < tacio_topo_get_nhosts(t); h++)
        if (tacio_topo_get_host_vertex(t, h) == vertex && tacio_topo_get_host_memory(t, h) >= 0)
            fprintf(f, "    <prop id=\"tacio_mem_free\" value=\"%lld\"/>\n",
                    (long long)tacio_topo_get_host_memory(t, h));
    fprintf(f, "  </host>\n");
}

/* Every vertex its own netpoint, every tree edge one split-duplex link
 * (up and down do not share bandwidth), routes between neighbours only:
 * Floyd's routing walks the tree. */
static void xml_tree(FILE *f, const struct platform_opts *o, struct tacio_topo *t)
{
    int nv = tacio_topo_get_nverts(t), host_depth = 0;
    struct tacio_vertex_info v;
    for (int i = 0; i < nv; i++)
        if (!tacio_topo_get_vertex(t, i, &v) && v.is_host && v.depth > host_depth)
            host_depth = v.depth;
    fprintf(f, "<zone id=\"cluster\" routing=\"Floyd\">\n");
    for (int i = 0; i < nv; i++) {
        tacio_topo_get_vertex(t, i, &v);
        if (v.is_host)
            xml_host(f, o, t, i, v.name);
        else
            fprintf(f, "  <router id=\"%s\"/>\n", v.name);
    }
    for (int i = 0; i < nv; i++) { /* a link's level: 0 for a host's own */
        if (!tacio_topo_get_vertex(t, i, &v) && v.parent >= 0)
            fprintf(f,
                    "  <link id=\"l-%s\" bandwidth=\"%.0fBps\" latency=\"%gs\" "
                    "sharing_policy=\"SPLITDUPLEX\"/>\n",
                    v.name, level_bw(o, host_depth - v.depth), o->latency);
    }
    for (int i = 0; i < nv; i++) { /* the DTD wants routes after every link */
        struct tacio_vertex_info up;
        if (tacio_topo_get_vertex(t, i, &v) || v.parent < 0)
            continue;
        tacio_topo_get_vertex(t, v.parent, &up);
        fprintf(f,
                "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\">"
                "<link_ctn id=\"l-%s\" direction=\"UP\"/></route>\n"
                "  <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\">"
                "<link_ctn id=\"l-%s\" direction=\"DOWN\"/></route>\n",
                v.name, up.name, v.name, up.name, v.name, v.name);
    }
    fprintf(f, "</zone>\n");
}

/* Children of each level along the first branch from the root: the shape
 * parameters of a fattree: or dragonfly: tree (all branches alike). */
static int tree_shape(struct tacio_topo *t, int *shape, int max)
{
    int nv = tacio_topo_get_nverts(t), depth = 0, at = -1;
    struct tacio_vertex_info v;
    for (int i = 0; i < nv && at < 0; i++)
        if (!tacio_topo_get_vertex(t, i, &v) && v.parent < 0)
            at = i;
    while (at >= 0 && depth < max) {
        int next = -1;
        shape[depth] = 0;
        for (int i = 0; i < nv; i++)
            if (!tacio_topo_get_vertex(t, i, &v) && v.parent == at) {
                shape[depth]++;
                next = next < 0 ? i : next;
            }
        if (next < 0)
            break;
        depth++;
        at = next;
    }
    return depth;
}

static void xml_native(FILE *f, const struct platform_opts *o, struct tacio_topo *t)
{
    const char *kind = tacio_topo_get_kind(t);
    int shape[4] = {0, 0, 0, 0};
    tree_shape(t, shape, 4);
    char params[128];
    if (!strcmp(kind, "fattree")) /* k pods of k/2 edges of k/2 hosts, k/2 cores per pod switch */
        snprintf(params, sizeof params, "3;%d,%d,%d;1,%d,%d;1,1,1", shape[2], shape[1], shape[0],
                 shape[1], shape[1]);
    else /* groups, chassis, routers, nodes: one link between each connected pair */
        snprintf(params, sizeof params, "%d,1;%d,1;%d,1;%d", shape[0], shape[1], shape[2],
                 shape[3]);
    fprintf(f,
            "<zone id=\"world\" routing=\"Full\">\n"
            "  <cluster id=\"%s\" prefix=\"n\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\" "
            "core=\"%d\" bw=\"%.0fBps\" lat=\"%gs\" topology=\"%s\" topo_parameters=\"%s\"/>\n"
            "</zone>\n",
            kind, tacio_topo_get_nhosts(t) - 1, tacio_topo_get_cores(t), level_bw(o, 0), o->latency,
            !strcmp(kind, "fattree") ? "FAT_TREE" : "DRAGONFLY", params);
}

static int write_hostfile(const char *path, struct tacio_topo *t, int procs)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_error("%s: %s", path, strerror(errno));
    struct tacio_vertex_info v;
    for (int r = 0; r < procs; r++) {
        tacio_topo_get_vertex(t, tacio_topo_get_host_vertex(t, tacio_topo_get_rank_host(t, r)), &v);
        fprintf(f, "%s\n", v.name);
    }
    return fclose(f) ? cli_error("%s: %s", path, strerror(errno)) : 0;
}

static int write_files(const struct platform_opts *o, struct tacio_topo *t, bool native)
{
    char path[4096];
    if (mkdir(o->out, 0777) && errno != EEXIST)
        return cli_error("%s: %s", o->out, strerror(errno));
    snprintf(path, sizeof path, "%s/platform.xml", o->out);
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_error("%s: %s", path, strerror(errno));
    xml_head(f, o);
    if (native)
        xml_native(f, o, t);
    else
        xml_tree(f, o, t);
    fprintf(f, "</platform>\n");
    if (fclose(f))
        return cli_error("%s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/hostfile", o->out);
    return write_hostfile(path, t, o->procs);
}

int cmd_platform(int argc, char **argv)
{
    struct platform_opts o = {0};
    int rc = parse_platform_args(argc, argv, &o);
    if (rc)
        return rc;
    struct tacio_topo *t = NULL;
    if ((rc = tacio_topo_parse(o.topology, &t)) ||
        (rc = tacio_topo_place(t, o.placement, o.procs)) ||
        (o.memory && (rc = tacio_topo_set_memory(t, o.memory)))) {
        tacio_topo_free(t);
        return cli_fail(rc);
    }
    const char *kind = tacio_topo_get_kind(t);
    bool can_native = !strcmp(kind, "fattree") || !strcmp(kind, "dragonfly");
    bool native = o.network ? !strcmp(o.network, "native") : can_native;
    if (!tacio_topo_get_nverts(t))
        rc = cli_error("dist: topologies have no tree to simulate; expected tree:, "
                       "fattree:, dragonfly:, flat: or slurm:");
    else if (native && o.memory)
        rc = cli_error("--memory: SimGrid's native clusters hold no host properties; "
                       "expected --network tree");
    else if (native && !can_native)
        rc = cli_error("--network native: SimGrid has no native %s; expected fattree: or "
                       "dragonfly: (or --network tree)",
                       kind);
    else
        rc = write_files(&o, t, native);
    if (!rc) {
        printf("platform=%s/platform.xml hostfile=%s/hostfile network=%s hosts=%d "
               "job_hosts=%d ranks=%d hint=tacio_topology=%s sim_io_bw=%.0f ",
               o.out, o.out, native ? "native" : "tree", tacio_topo_get_nhosts(t),
               tacio_topo_get_nused_hosts(t), o.procs, o.topology, o.disk_bw);
        print_model(&o, t, native);
    }
    tacio_topo_free(t);
    return rc;
}
