/* The topology kinds users write (tree:, fattree:, dragonfly:, flat:,
 * slurm:, dist:): the registry, each kind's spec parser, and
 * tacio_topo_parse, which picks the kind. They build machines with the
 * model's topo_add_* (topo.c); the Slurm and distance-matrix files have
 * their own parsers (slurm.c). */
#include "topo.h"

#include "../base/util.h"

#include <math.h>
#include <string.h>

/* The registry (below): a kind's name, its form as users write
 * it (the CLI's usage, `tacio list topologies`, docs/cli.md's table and
 * every "expected ..." message show this one string), a line on its
 * meaning, and its parser. */
struct topo_kind {
    const char *name, *form, *summary;
    int (*parse)(struct tacio_topo *t, const struct topo_kind *k, struct spec *s);
};

static int build_tree_spec(struct tacio_topo *t, int64_t racks, int64_t nodes)
{
    char name[64];
    int root = topo_add_vertex(t, -1, "top");
    if (root < 0)
        return root;
    for (int64_t r = 0; r < racks; r++) {
        int sw = root;
        if (racks > 1) {
            snprintf(name, sizeof name, "s%lld", (long long)r);
            if ((sw = topo_add_vertex(t, root, name)) < 0)
                return sw;
        }
        for (int64_t n = 0; n < nodes; n++) {
            snprintf(name, sizeof name, "n%lld", (long long)(r * nodes + n));
            int rc = topo_add_host(t, sw, name);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* Bounds of a generated machine: hosts up to topo_host_limit, cores per
 * host up to a million. A count beyond them is a typo, and the products
 * below must not overflow. */
enum { MAX_CORES = 1000000 };

/* cores=C (default 1) into t->cores, within MAX_CORES. */
static int get_cores(struct tacio_topo *t, struct spec *s, const char *form)
{
    int64_t cores;
    int rc = spec_get_i64(s, "cores", 1, 1, &cores, form);
    if (!rc && cores > MAX_CORES)
        rc = tacio_fail(TACIO_ERANGE, "cores=%lld is above %d; expected %s", (long long)cores,
                        MAX_CORES, form);
    t->cores = rc ? 0 : (int)cores;
    return rc;
}

/* Whether a machine of these level sizes (each >= 1) has more than
 * topo_host_limit hosts, without computing a product that could overflow. */
static bool too_many_hosts(const int64_t *levels, int n)
{
    int64_t hosts = 1;
    for (int i = 0; i < n; i++) {
        if (levels[i] > topo_host_limit / hosts)
            return true;
        hosts *= levels[i];
    }
    return false;
}

static int parse_tree(struct tacio_topo *t, const struct topo_kind *k, struct spec *s)
{
    const char *form = k->form;
    bool flat = !strcmp(k->name, "flat");
    int64_t levels[2] = {1, 1}; /* racks, nodes */
    int rc = 0;
    if (!flat)
        rc = spec_get_i64(s, "racks", 1, 1, &levels[0], form);
    if (rc || (rc = spec_get_i64(s, "nodes", 1, 1, &levels[1], form)) ||
        (rc = get_cores(t, s, form)) || (rc = spec_check_unused(s, form)))
        return rc;
    if (too_many_hosts(levels, 2))
        return tacio_fail(TACIO_ERANGE, "topology too large; expected %s", form);
    int64_t racks = levels[0], nodes = levels[1];
    /* A single rack is a single switch: the tree collapses to flat. */
    return build_tree_spec(t, racks, nodes);
}

static int parse_fattree(struct tacio_topo *t, const struct topo_kind *kind, struct spec *s)
{
    const char *form = kind->form;
    int64_t k;
    int rc;
    if ((rc = spec_get_i64(s, "k", 4, 2, &k, form)) || (rc = get_cores(t, s, form)) ||
        (rc = spec_check_unused(s, form)))
        return rc;
    if (k % 2 || k > 256)
        return tacio_fail(TACIO_EINVAL, "fattree k=%lld must be even and <= 256; expected %s",
                          (long long)k, form);
    char name[64];
    int root = topo_add_vertex(t, -1, "core");
    for (int64_t p = 0; p < k && root >= 0; p++) {
        snprintf(name, sizeof name, "pod%lld", (long long)p);
        int pod = topo_add_vertex(t, root, name);
        for (int64_t e = 0; e < k / 2 && pod >= 0; e++) {
            snprintf(name, sizeof name, "edge%lld", (long long)(p * k / 2 + e));
            int edge = topo_add_vertex(t, pod, name);
            for (int64_t h = 0; h < k / 2 && edge >= 0; h++) {
                snprintf(name, sizeof name, "n%lld", (long long)((p * k / 2 + e) * k / 2 + h));
                if ((rc = topo_add_host(t, edge, name)) < 0)
                    return rc;
            }
        }
    }
    return root < 0 ? root : 0;
}

/* A dragonfly (Kim et al.; SimGrid's DRAGONFLY cluster) as the tree of its
 * levels: groups, chassis, routers, hosts. Routers of a chassis, chassis of a
 * group and groups are all-to-all in the real network, so the tree counts
 * one hop more than the shortest path between two routers of one chassis
 * (4 against 3) and keeps the order of distances, which is what the
 * strategies compare. */
static int parse_dragonfly(struct tacio_topo *t, const struct topo_kind *k, struct spec *s)
{
    const char *form = k->form;
    int64_t lv[4]; /* groups, chassis, routers, nodes */
    int rc;
    if ((rc = spec_get_i64(s, "groups", 1, 1, &lv[0], form)) ||
        (rc = spec_get_i64(s, "chassis", 1, 1, &lv[1], form)) ||
        (rc = spec_get_i64(s, "routers", 1, 1, &lv[2], form)) ||
        (rc = spec_get_i64(s, "nodes", 1, 1, &lv[3], form)) || (rc = get_cores(t, s, form)) ||
        (rc = spec_check_unused(s, form)))
        return rc;
    if (too_many_hosts(lv, 4))
        return tacio_fail(TACIO_ERANGE, "topology too large; expected %s", form);
    int64_t g = lv[0], c = lv[1], r = lv[2], n = lv[3];
    char name[64];
    int top = topo_add_vertex(t, -1, "top"), host = 0;
    for (int64_t gi = 0; gi < g && top >= 0; gi++) {
        snprintf(name, sizeof name, "g%lld", (long long)gi);
        int gv = topo_add_vertex(t, top, name);
        for (int64_t ci = 0; ci < c && gv >= 0; ci++) {
            snprintf(name, sizeof name, "g%lld.c%lld", (long long)gi, (long long)ci);
            int cv = topo_add_vertex(t, gv, name);
            for (int64_t ri = 0; ri < r && cv >= 0; ri++) {
                snprintf(name, sizeof name, "g%lld.c%lld.r%lld", (long long)gi, (long long)ci,
                         (long long)ri);
                int rv = topo_add_vertex(t, cv, name);
                for (int64_t ni = 0; ni < n && rv >= 0; ni++) {
                    snprintf(name, sizeof name, "n%d", host++);
                    if ((rc = topo_add_host(t, rv, name)) < 0)
                        return rc;
                }
                if (rv < 0)
                    return rv;
            }
            if (cv < 0)
                return cv;
        }
        if (gv < 0)
            return gv;
    }
    return top < 0 ? top : 0;
}

static int parse_slurm_spec(struct tacio_topo *t, const struct topo_kind *k, struct spec *s)
{
    const char *form = k->form;
    int rc;
    if (!s->arg)
        return tacio_fail(TACIO_EINVAL, "slurm: needs a file; expected %s", form);
    const char *nodes = spec_get(s, "nodes");
    if ((rc = get_cores(t, s, form)) || (rc = spec_check_unused(s, form)))
        return rc;
    return topo_parse_slurm(t, s->arg, nodes);
}

static int parse_dist_spec(struct tacio_topo *t, const struct topo_kind *k, struct spec *s)
{
    if (!s->arg || s->nkv)
        return tacio_fail(TACIO_EINVAL, "expected %s", k->form);
    return topo_parse_dist(t, s->arg);
}

/* The registry, in the order users meet the kinds. */
static const struct topo_kind kinds[] = {
    {"tree", "tree:racks=R,nodes=N,cores=C",
     "R rack switches under one top switch, N hosts each (TATP's Inspur: 4,20,12)", parse_tree},
    {"fattree", "fattree:k=K,cores=C",
     "k-ary fat tree (K even): K pods of K/2 edge switches of K/2 hosts (K^3/4 hosts); same "
     "edge 2, same pod 4, else 6 hops. A pod's K/2 aggregation switches are one vertex, so link "
     "loads are per bundle",
     parse_fattree},
    {"dragonfly", "dragonfly:groups=G,chassis=C,routers=R,nodes=N,cores=K",
     "a dragonfly (SimGrid's DRAGONFLY cluster) as the tree of its levels: groups, chassis, "
     "routers, hosts (`n0`...). The real network joins the routers of a chassis, the chassis of "
     "a group and the groups all-to-all, so the tree counts one hop more between two routers of "
     "one chassis (4 against 3) but keeps the order of distances",
     parse_dragonfly},
    {"flat", "flat:nodes=N,cores=C", "N hosts on one switch", parse_tree},
    {"slurm", "slurm:FILE[,nodes=HOSTLIST][,cores=C]",
     "Slurm topology.conf (`SwitchName=s0 Nodes=node[01-20]`, `SwitchName=top "
     "Switches=s[0-3]`); `nodes=` is the job's allocation, in order",
     parse_slurm_spec},
    {"dist", "dist:FILE",
     "explicit p x p distance matrix; ranks at distance <= 1 share a host. No links, so no link "
     "loads, and assignment uses the dense solver",
     parse_dist_spec},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

REGISTRY_ACCESSORS(tacio_topo_kind, NKINDS, kinds[i])
REGISTRY_FORM(tacio_topo_kind, NKINDS, kinds[i])

static int parse_by_kind(struct tacio_topo *t, struct spec *s)
{
    char forms[1024] = "";
    for (int i = 0; i < NKINDS; i++) {
        if (!strcmp(s->name, kinds[i].name))
            return kinds[i].parse(t, &kinds[i], s);
        forms_join(forms, sizeof forms, kinds[i].form, i == NKINDS - 1);
    }
    return tacio_fail(TACIO_EINVAL, "unknown topology '%s'; expected %s", s->name, forms);
}

int tacio_topo_parse(const char *text, struct tacio_topo **out)
{
    struct spec s;
    *out = NULL;
    int rc = spec_parse(text, &s);
    if (rc)
        return rc;
    struct tacio_topo *t = topo_alloc();
    if (!t) {
        spec_free(&s);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    rc = parse_by_kind(t, &s);
    snprintf(t->kind, sizeof t->kind, "%s", s.name);
    if (!rc && !t->dist)
        rc = topo_finish_tree(t);
    spec_free(&s);
    if (rc) {
        tacio_topo_free(t);
        return rc;
    }
    *out = t;
    return 0;
}
