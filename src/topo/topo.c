#include "topo.h"

#include "../base/util.h"

#include <math.h>
#include <string.h>

struct tacio_topo *topo_alloc(void)
{
    return xcalloc(1, sizeof(struct tacio_topo));
}

static int grow(void **arr, size_t elem, int n)
{
    /* capacity doubles at powers of two, so growth is amortised O(1) */
    if (n & (n - 1))
        return 0;
    void *p = realloc(*arr, elem * (size_t)(n ? 2 * n : 1));
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory building the topology");
    *arr = p;
    return 0;
}

int topo_add_vertex(struct tacio_topo *t, int parent, const char *name)
{
    int n = t->nverts;
    if (grow((void **)&t->parent, sizeof(int), n) || grow((void **)&t->vname, sizeof(char *), n))
        return TACIO_ENOMEM;
    t->parent[n] = parent;
    t->vname[n] = strdup(name);
    if (!t->vname[n])
        return tacio_fail(TACIO_ENOMEM, "out of memory building the topology");
    t->nverts++;
    return n;
}

int64_t topo_host_limit = 10000000;

int topo_add_host(struct tacio_topo *t, int parent, const char *name)
{
    if (t->nhosts >= topo_host_limit)
        return tacio_fail(TACIO_ERANGE, "the topology has more than %lld hosts",
                          (long long)topo_host_limit);
    int v = topo_add_vertex(t, parent, name);
    if (v < 0)
        return v;
    if (grow((void **)&t->host_vert, sizeof(int), t->nhosts))
        return TACIO_ENOMEM;
    t->host_vert[t->nhosts++] = v;
    return v;
}

static int compute_depths(struct tacio_topo *t)
{
    for (int v = 0; v < t->nverts; v++) {
        int d = 0;
        for (int u = t->parent[v]; u >= 0; u = t->parent[u])
            if (++d > t->nverts)
                return tacio_fail(TACIO_EINVAL, "the switch tree has a cycle at '%s'", t->vname[v]);
        t->depth[v] = d;
    }
    return 0;
}

int topo_finish_tree(struct tacio_topo *t)
{
    int n = t->nverts;
    t->depth = xcalloc(n, sizeof(int));
    t->first_child = malloc(sizeof(int) * (n ? n : 1));
    t->next_sibling = malloc(sizeof(int) * (n ? n : 1));
    t->vert_host = malloc(sizeof(int) * (n ? n : 1));
    if (!t->depth || !t->first_child || !t->next_sibling || !t->vert_host)
        return tacio_fail(TACIO_ENOMEM, "out of memory building the topology");
    int roots = 0;
    for (int v = 0; v < n; v++) {
        t->first_child[v] = t->next_sibling[v] = t->vert_host[v] = -1;
        roots += t->parent[v] < 0;
    }
    for (int h = 0; h < t->nhosts; h++)
        t->vert_host[t->host_vert[h]] = h;
    if (roots != 1)
        return tacio_fail(TACIO_EINVAL, "the switch tree has %d roots; expected one top switch",
                          roots);
    for (int v = n - 1; v >= 0; v--)
        if (t->parent[v] >= 0) {
            t->next_sibling[v] = t->first_child[t->parent[v]];
            t->first_child[t->parent[v]] = v;
        }
    int rc = compute_depths(t);
    if (rc)
        return rc;
    if (t->nhosts == 0)
        return tacio_fail(TACIO_EINVAL, "the topology has no hosts");
    t->host_depth = t->depth[t->host_vert[0]];
    t->uniform_depth = true;
    for (int h = 1; h < t->nhosts; h++)
        if (t->depth[t->host_vert[h]] != t->host_depth)
            t->uniform_depth = false;
    return 0;
}

int topo_lca(const struct tacio_topo *t, int a, int b)
{
    while (t->depth[a] > t->depth[b])
        a = t->parent[a];
    while (t->depth[b] > t->depth[a])
        b = t->parent[b];
    while (a != b) {
        a = t->parent[a];
        b = t->parent[b];
    }
    return a;
}

int64_t topo_host_hops(const struct tacio_topo *t, int ha, int hb)
{
    if (ha == hb)
        return 0;
    int a = t->host_vert[ha], b = t->host_vert[hb];
    return t->depth[a] + t->depth[b] - 2 * t->depth[topo_lca(t, a, b)];
}

int64_t topo_rank_dist(const struct tacio_topo *t, int i, int j)
{
    if (t->dist)
        return t->dist[(int64_t)i * t->dist_n + j];
    if (i == j)
        return 0;
    int hi = t->rank_host[i], hj = t->rank_host[j];
    return hi == hj ? 1 : topo_host_hops(t, hi, hj);
}

int64_t topo_vertex_delta(const struct tacio_topo *t, int v)
{
    int levels = t->host_depth - t->depth[v];
    return levels == 0 ? 1 : 2 * (int64_t)levels;
}

void tacio_topo_free(struct tacio_topo *t)
{
    if (!t)
        return;
    for (int v = 0; v < t->nverts; v++)
        free(t->vname[v]);
    free(t->vname);
    free(t->parent);
    free(t->depth);
    free(t->first_child);
    free(t->next_sibling);
    free(t->host_vert);
    free(t->vert_host);
    free(t->job_hosts);
    free(t->dist);
    free(t->rank_host);
    free(t->rank_local);
    free(t->used_hosts);
    free(t->host_order);
    free(t->mem_free);
    free(t);
}

/* ---- memory per host ---- */

#define MEM_FORM "BYTES, normal:mean=M,sd=S,seed=K or file:PATH"

static int memory_normal(struct tacio_topo *t, struct spec *s)
{
    int64_t mean, sd, seed;
    int rc;
    if ((rc = spec_get_size(s, "mean", 0, 0, &mean, MEM_FORM)) ||
        (rc = spec_get_size(s, "sd", 0, 0, &sd, MEM_FORM)) ||
        (rc = spec_get_i64(s, "seed", 1, 0, &seed, MEM_FORM)) ||
        (rc = spec_check_unused(s, MEM_FORM)))
        return rc;
    uint64_t st = (uint64_t)seed;
    for (int h = 0; h < t->nhosts; h++) {
        /* Box-Muller; the paper draws aggregation buffers from a normal law */
        double u1 = rng_uniform(&st), u2 = rng_uniform(&st);
        double z = sqrt(-2.0 * log(u1 > 0 ? u1 : 1e-300)) * cos(2 * M_PI * u2);
        t->mem_free[h] = max64(0, (int64_t)llround((double)mean + z * (double)sd));
    }
    return 0;
}

static int memory_file(struct tacio_topo *t, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tacio_fail(TACIO_EIO, "cannot open memory file '%s'", path);
    char line[256];
    int lineno = 0, rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        strip_comment(line);
        long long h;
        char size[64], extra;
        int n = sscanf(line, "%lld %63s %c", &h, size, &extra);
        if (n <= 0)
            continue;
        int64_t bytes;
        if (n != 2 || parse_size(size, &bytes) || h < 0 || h >= t->nhosts)
            rc = tacio_fail(TACIO_EINVAL, "%s:%d: expected 'HOST_INDEX BYTES' with host < %d", path,
                            lineno, t->nhosts);
        else
            t->mem_free[h] = bytes;
    }
    fclose(f);
    return rc;
}

int tacio_topo_set_memory(struct tacio_topo *t, const char *text)
{
    if (!t->mem_free && !(t->mem_free = xcalloc(t->nhosts, sizeof(int64_t))))
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    int64_t bytes;
    if (parse_size(text, &bytes) == 0) {
        for (int h = 0; h < t->nhosts; h++)
            t->mem_free[h] = bytes;
        return 0;
    }
    struct spec s;
    int rc = spec_parse(text, &s);
    if (rc)
        return rc;
    if (!strcmp(s.name, "normal"))
        rc = memory_normal(t, &s);
    else if (!strcmp(s.name, "file") && s.arg)
        rc = memory_file(t, s.arg);
    else
        rc = tacio_fail(TACIO_EINVAL, "bad memory spec '%s'; expected %s", text, MEM_FORM);
    spec_free(&s);
    return rc;
}
