/* Placement of a job's ranks on the cluster's hosts. */
#include "topo.h"

#include "../base/util.h"

#include <string.h>

#define PLACE_FORM "block, cyclic or scatter:seed=S"

/* Draw @p need hosts at random from the candidates, returned in cluster
 * order: a fragmented allocation as a busy scheduler hands out. */
static int scatter_hosts(const int *cand, int ncand, int need, uint64_t seed, int *out)
{
    int *pool = malloc(sizeof(int) * (size_t)ncand);
    if (!pool)
        return tacio_fail(TACIO_ENOMEM, "out of memory placing ranks");
    memcpy(pool, cand, sizeof(int) * (size_t)ncand);
    uint64_t st = seed;
    for (int i = 0; i < need; i++) {
        int j = i + (int)(rng_next(&st) % (uint64_t)(ncand - i));
        int tmp = pool[i];
        pool[i] = pool[j];
        pool[j] = tmp;
    }
    memcpy(out, pool, sizeof(int) * (size_t)need);
    free(pool);
    qsort(out, (size_t)need, sizeof(int), cmp_int);
    return 0;
}

static int candidate_hosts(const struct tacio_topo *t, int **out)
{
    int n = t->job_hosts ? t->njob_hosts : t->nhosts;
    *out = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!*out)
        return tacio_fail(TACIO_ENOMEM, "out of memory placing ranks");
    for (int i = 0; i < n; i++)
        (*out)[i] = t->job_hosts ? t->job_hosts[i] : i;
    return n;
}

/* Rank order inside each host and the hosts in order of their lowest rank:
 * what ROMIO's cb_config_list walks. */
static int index_hosts(struct tacio_topo *t)
{
    int *count = xcalloc(t->nhosts, sizeof(int));
    t->rank_local = malloc(sizeof(int) * (size_t)t->nprocs);
    t->used_hosts = malloc(sizeof(int) * (size_t)t->nhosts);
    t->host_order = malloc(sizeof(int) * (size_t)t->nhosts);
    if (!count || !t->rank_local || !t->used_hosts || !t->host_order) {
        free(count);
        return tacio_fail(TACIO_ENOMEM, "out of memory placing ranks");
    }
    for (int h = 0; h < t->nhosts; h++)
        t->host_order[h] = -1;
    t->nused_hosts = 0;
    for (int r = 0; r < t->nprocs; r++) {
        int h = t->rank_host[r];
        if (t->host_order[h] < 0) {
            t->host_order[h] = t->nused_hosts;
            t->used_hosts[t->nused_hosts++] = h;
        }
        t->rank_local[r] = count[h]++;
    }
    free(count);
    return 0;
}

static int parse_placement(const char *text, int *kind, uint64_t *seed)
{
    struct spec s;
    int rc = spec_parse(text ? text : "block", &s);
    if (rc)
        return rc;
    int64_t sd = 1;
    if (!strcmp(s.name, "block") && !s.nkv && !s.arg)
        *kind = 0;
    else if (!strcmp(s.name, "cyclic") && !s.nkv && !s.arg)
        *kind = 1;
    else if (!strcmp(s.name, "scatter") && !s.arg) {
        *kind = 2;
        if (!(rc = spec_get_i64(&s, "seed", 1, 0, &sd, PLACE_FORM)))
            rc = spec_check_unused(&s, PLACE_FORM);
    } else
        rc = tacio_fail(TACIO_EINVAL, "unknown placement '%s'; expected %s", text, PLACE_FORM);
    *seed = (uint64_t)sd;
    spec_free(&s);
    return rc;
}

static int place_on_dist(struct tacio_topo *t, int nprocs)
{
    if (nprocs && nprocs != t->dist_n)
        return tacio_fail(TACIO_EINVAL,
                          "the distance matrix is %d x %d but the job has %d ranks; expected "
                          "one row per rank",
                          t->dist_n, t->dist_n, nprocs);
    t->nprocs = t->dist_n;
    return index_hosts(t);
}

static int assign_ranks(struct tacio_topo *t, int kind, const int *hosts, int need)
{
    for (int r = 0; r < t->nprocs; r++)
        t->rank_host[r] = hosts[kind == 1 ? r % need : r / t->cores];
    return 0;
}

int tacio_topo_place(struct tacio_topo *t, const char *placement, int nprocs)
{
    int kind, rc;
    uint64_t seed;
    if ((rc = parse_placement(placement, &kind, &seed)))
        return rc;
    if (t->dist)
        return place_on_dist(t, nprocs);
    if (nprocs <= 0)
        return tacio_fail(TACIO_EINVAL, "the job needs a rank count (--procs N)");
    int *cand, ncand = candidate_hosts(t, &cand);
    if (ncand < 0)
        return ncand;
    int64_t need = ceil_div(nprocs, t->cores);
    if (need > ncand) {
        free(cand);
        return tacio_fail(TACIO_ERANGE,
                          "the topology has %d hosts x %d cores = %lld slots but the job has "
                          "%d ranks; expected a topology at least as large as the job",
                          ncand, t->cores, (long long)ncand * t->cores, nprocs);
    }
    int *hosts = malloc(sizeof(int) * (size_t)need);
    free(t->rank_host);
    t->rank_host = malloc(sizeof(int) * (size_t)nprocs);
    if (!hosts || !t->rank_host)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory placing ranks");
    else if (kind == 2)
        rc = scatter_hosts(cand, ncand, (int)need, seed, hosts);
    else
        memcpy(hosts, cand, sizeof(int) * (size_t)need);
    t->nprocs = nprocs;
    if (!rc)
        rc = assign_ranks(t, kind, hosts, (int)need);
    free(cand);
    free(hosts);
    return rc ? rc : index_hosts(t);
}

int topo_busiest_host_ranks(const struct tacio_topo *t)
{
    int most = 0;
    int *count = xcalloc((size_t)t->nhosts + 1, sizeof *count);
    for (int r = 0; count && r < t->nprocs; r++)
        most = ++count[t->rank_host[r]] > most ? count[t->rank_host[r]] : most;
    free(count);
    return most;
}

int topo_host_ranks(const struct tacio_topo *t, int **ptr_out, int **ranks_out)
{
    int *ptr = xcalloc((size_t)t->nhosts + 1, sizeof(int));
    int *ranks = malloc(sizeof(int) * (size_t)(t->nprocs ? t->nprocs : 1));
    int *fill = malloc(sizeof(int) * (size_t)(t->nhosts ? t->nhosts : 1));
    if (!ptr || !ranks || !fill) {
        free(ptr);
        free(ranks);
        free(fill);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    for (int r = 0; r < t->nprocs; r++)
        ptr[t->rank_host[r] + 1]++;
    for (int h = 0; h < t->nhosts; h++) {
        ptr[h + 1] += ptr[h];
        fill[h] = ptr[h];
    }
    for (int r = 0; r < t->nprocs; r++)
        ranks[fill[t->rank_host[r]]++] = r;
    free(fill);
    *ptr_out = ptr;
    *ranks_out = ranks;
    return 0;
}

/* Rank r on the topology's host hosts[host_of[r]]. */
static int place_on(struct tacio_topo *t, int nprocs, const int *host_of, const int *hosts)
{
    free(t->rank_host);
    if (!(t->rank_host = malloc(sizeof(int) * (size_t)(nprocs ? nprocs : 1))))
        return tacio_fail(TACIO_ENOMEM, "out of memory placing ranks");
    for (int r = 0; r < nprocs; r++)
        t->rank_host[r] = hosts[host_of[r]];
    t->nprocs = nprocs;
    return index_hosts(t);
}

struct named {
    const char *name;
    int host;
};

static int cmp_named(const void *a, const void *b)
{
    return strcmp(((const struct named *)a)->name, ((const struct named *)b)->name);
}

/* The topology's host of each name, or -1 when a name is unknown or two
 * job hosts share one (virtual hosts on one machine). */
static int match_names(const struct tacio_topo *t, const char *names, size_t stride, int nhosts,
                       int *hosts)
{
    struct named *idx = malloc(sizeof *idx * (size_t)t->nhosts);
    char *taken = xcalloc((size_t)t->nhosts, 1);
    if (!idx || !taken) {
        free(idx);
        free(taken);
        return tacio_fail(TACIO_ENOMEM, "out of memory placing ranks");
    }
    for (int h = 0; h < t->nhosts; h++)
        idx[h] = (struct named){t->vname[t->host_vert[h]], h};
    qsort(idx, (size_t)t->nhosts, sizeof *idx, cmp_named);
    int found = 1;
    for (int k = 0; k < nhosts && found; k++) {
        struct named key = {names + (size_t)k * stride, -1};
        struct named *hit = bsearch(&key, idx, (size_t)t->nhosts, sizeof *idx, cmp_named);
        found = hit && !taken[hit->host];
        if (found)
            taken[hosts[k] = hit->host] = 1;
    }
    free(idx);
    free(taken);
    return found;
}

int topo_place_named(struct tacio_topo *t, int nprocs, const int *host_of, int nhosts,
                     const char *names, size_t stride)
{
    if (t->dist)
        return 0;
    int *hosts = malloc(sizeof(int) * (size_t)(nhosts ? nhosts : 1));
    if (!hosts)
        return tacio_fail(TACIO_ENOMEM, "out of memory placing ranks");
    int rc = match_names(t, names, stride, nhosts, hosts), placed = rc == 1;
    if (placed)
        rc = place_on(t, nprocs, host_of, hosts);
    free(hosts);
    return rc < 0 ? rc : placed;
}

int topo_place_hosts(struct tacio_topo *t, int nprocs, const int *host_of, int nhosts)
{
    if (t->dist) /* the distance matrix decides who shares a host */
        return place_on_dist(t, nprocs);
    int *cand, ncand = candidate_hosts(t, &cand);
    if (ncand < 0)
        return ncand;
    int rc = nhosts > ncand
                 ? tacio_fail(TACIO_ERANGE, "the job runs on %d hosts but the topology has %d",
                              nhosts, ncand)
                 : place_on(t, nprocs, host_of, cand);
    free(cand);
    return rc;
}
