/* Topology model: ranks -> hosts -> switch tree (or an explicit distance
 * matrix). Distances follow the TATP paper: same rank 0, same host 1,
 * otherwise the number of network hops between the two hosts. */
#ifndef TACIO_TOPO_H
#define TACIO_TOPO_H

#include "tacio_plan.h"

#include <stdbool.h>
#include <stdint.h>

struct tacio_topo {
    char kind[16]; /* the spec's kind: "tree", "fattree", "dragonfly", ... */
    /* Tree vertices: switches and hosts. parent[root] = -1. The edge from a
     * vertex to its parent is "link v"; link loads are indexed by v. */
    int nverts;
    int *parent;
    int *depth;
    int *first_child, *next_sibling; /* child lists, in insertion order */
    char **vname;                    /* switch/host names, for messages */
    bool uniform_depth;              /* all hosts at one depth: hops depend on the LCA only */
    int host_depth;

    int nhosts;     /* hosts of the cluster, in cluster order */
    int *host_vert; /* host index -> vertex */
    int *vert_host; /* vertex -> host index, -1 for a switch */
    int cores;      /* ranks a host can take */
    int *job_hosts; /* candidate hosts for the job (slurm nodes=), NULL: all */
    int njob_hosts;

    /* dist: topologies: explicit rank x rank distances, no tree. */
    int64_t *dist;
    int dist_n;

    /* Placement of the job (tacio_topo_place). */
    int nprocs;
    int *rank_host;  /* rank -> host index */
    int *rank_local; /* rank's position among its host's ranks */
    int nused_hosts; /* hosts with at least one rank */
    int *used_hosts; /* in order of their lowest rank */
    int *host_order; /* host index -> position in used_hosts, -1 if unused */
    /* the job's hosts were found in the tree by their names (the engine:
     * MPI_Get_processor_name), not placed in the tree's order */
    bool placed_by_name;

    int64_t *mem_free; /* per host, bytes free for aggregation buffers */
};

/* The most hosts a topology may have (10 million: a planner run at a
 * million ranks uses a tenth). A variable so the parser harnesses
 * (tests/fuzz/parsers) can lower it: a valid machine of ten million hosts
 * takes seconds to build under their instrumentation. */
extern int64_t topo_host_limit;

/* Tree construction (used by the spec parsers). */
int topo_add_vertex(struct tacio_topo *t, int parent, const char *name);
int topo_add_host(struct tacio_topo *t, int parent, const char *name);
int topo_finish_tree(struct tacio_topo *t);
struct tacio_topo *topo_alloc(void);

int topo_parse_slurm(struct tacio_topo *t, const char *path, const char *nodes);
int topo_parse_dist(struct tacio_topo *t, const char *path);
/* Whitespace-separated rows of non-negative integers, '#' comments. */
int read_int_matrix(const char *path, int64_t **out, int *rows, int *cols);
/* Expand a Slurm hostlist ("n[01-03,07],login") calling fn for each name. */
int hostlist_expand(const char *list, int (*fn)(const char *name, void *ctx), void *ctx);

static inline bool topo_has_tree(const struct tacio_topo *t)
{
    return t->dist == NULL;
}

/* Place ranks on the hosts the runtime found: rank r on the host_of[r]-th
 * candidate host of the topology (dist: topologies keep their own grouping). */
int topo_place_hosts(struct tacio_topo *t, int nprocs, const int *host_of, int nhosts);

/* Place ranks by host name: rank r on the topology host named
 * names[host_of[r] * stride]. Returns 1 when every one of the @p nhosts
 * names is a distinct host of the tree, 0 (nothing placed) when one is not,
 * or a negative TACIO_E* code. */
int topo_place_named(struct tacio_topo *t, int nprocs, const int *host_of, int nhosts,
                     const char *names, size_t stride);

/* The most ranks one host of the placed job runs (0 with no rank, or out
 * of memory). */
int topo_busiest_host_ranks(const struct tacio_topo *t);
/* Ranks of each host in increasing order: host h has ranks[ptr[h] .. ptr[h+1]). */
int topo_host_ranks(const struct tacio_topo *t, int **ptr, int **ranks);

/* Lowest common ancestor of two vertices. */
int topo_lca(const struct tacio_topo *t, int a, int b);
/* Network hops between two hosts (0 for the same host). */
int64_t topo_host_hops(const struct tacio_topo *t, int ha, int hb);
/* Rank distance D[i][j]. */
int64_t topo_rank_dist(const struct tacio_topo *t, int i, int j);
/* Distance between ranks whose lowest common tree vertex is v (uniform depth
 * only): 1 for a host, 2 * levels above the hosts for a switch. */
int64_t topo_vertex_delta(const struct tacio_topo *t, int v);

#endif
