#include "hosts.h"

#include "agree.h"
#include "backend.h"
#include "fault.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Each rank's host leader (its host's lowest rank). */
static int host_leader(MPI_Comm comm, const struct exec_hints *h)
{
    int rank, leader;
    MPI_Comm_rank(comm, &rank);
    if (h->ranks_per_node > 0)
        return (int)(rank / h->ranks_per_node * h->ranks_per_node);
    MPI_Comm shm;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, shm);
    MPI_Comm_free(&shm);
    return leader;
}

/* Host index of every rank from the (leader, memory) records: hosts
 * numbered in order of their lowest rank. */
static int hosts_of(const int64_t *rec, int nprocs, int *host_of)
{
    int nhosts = 0;
    for (int r = 0; r < nprocs; r++) /* a leader is its host's lowest rank */
        host_of[r] = rec[2 * r] == r ? nhosts++ : host_of[rec[2 * r]];
    return nhosts;
}

static int64_t mem_available(void)
{
    int64_t bytes = backend_mem_available();
    return bytes < 0 ? INT64_MAX / 4 : bytes;
}

/* Free memory per host: the host's lowest rank speaks for it. */
static int runtime_memory(const int64_t *rec, struct tacio_topo *t)
{
    if (!t->mem_free && !(t->mem_free = xcalloc((size_t)t->nhosts, sizeof(int64_t))))
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int r = t->nprocs - 1; r >= 0; r--)
        t->mem_free[t->rank_host[r]] = rec[2 * r + 1];
    return 0;
}

/* Each host's MPI_Get_processor_name, from its lowest rank, in host order:
 * host k's name at names + k * MPI_MAX_PROCESSOR_NAME. */
static int gather_names(MPI_Comm comm, const int64_t *rec, int nprocs, int nhosts, char **out)
{
    int rank, len, *counts = malloc(sizeof(int) * (size_t)nprocs);
    int *displs = malloc(sizeof(int) * (size_t)nprocs);
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    char *names = xcalloc((size_t)nhosts, sizeof mine);
    int rc = counts && displs && names ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    MPI_Comm_rank(comm, &rank);
    MPI_Get_processor_name(mine, &len);
    rc = agree(comm, rc); /* nobody enters the Allgatherv alone */
    for (int r = 0, at = 0; !rc && r < nprocs; r++) {
        counts[r] = rec[2 * r] == r ? (int)sizeof mine : 0; /* leaders, in host order */
        displs[r] = at;
        at += counts[r];
    }
    if (!rc)
        MPI_Allgatherv(mine, counts[rank], MPI_CHAR, names, counts, displs, MPI_CHAR, comm);
    free(counts);
    free(displs);
    if (rc)
        free(names);
    *out = rc ? NULL : names;
    return rc;
}

/* Hosts placed in order keep the machine's names, as in ROMIO's
 * cb_config_list (virtual hosts share their machine's). */
static int rename_hosts(struct tacio_topo *t, const char *names)
{
    for (int k = 0; k < t->nused_hosts; k++) {
        char **v = &t->vname[t->host_vert[t->used_hosts[k]]];
        char *copy = strdup(names + (size_t)k * MPI_MAX_PROCESSOR_NAME);
        if (!copy)
            return tacio_fail(TACIO_ENOMEM, "out of memory");
        free(*v);
        *v = copy;
    }
    return 0;
}

/* The job's hosts on the topology's tree: by name when every host's
 * processor name is a distinct host of the tree (a topology describing the
 * real machine, or SimGrid's platform: a scattered allocation lands where
 * it is), else the i-th host in order on the i-th candidate host. */
static int place_runtime(MPI_Comm comm, const int64_t *rec, int nprocs, const int *host_of,
                         int nhosts, struct tacio_topo *t)
{
    char *names = NULL;
    int rc = gather_names(comm, rec, nprocs, nhosts, &names);
    int placed =
        rc ? rc : topo_place_named(t, nprocs, host_of, nhosts, names, MPI_MAX_PROCESSOR_NAME);
    t->placed_by_name = placed > 0; /* TACIO_PRINT_HINTS says which */
    if (placed == 0 && !(rc = topo_place_hosts(t, nprocs, host_of, nhosts)))
        rc = rename_hosts(t, names);
    free(names);
    return placed < 0 ? placed : rc;
}

/* Host index of every rank and the topology, placed when it is not a tree
 * (a tree's hosts are placed once the names are known). */
static int topology_of(const struct exec_hints *h, const int64_t *rec, int nprocs, int *host_of,
                       int *nhosts, struct tacio_topo **out)
{
    int *count = xcalloc((size_t)nprocs, sizeof(int));
    if (!count)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    *nhosts = hosts_of(rec, nprocs, host_of);
    int64_t max_ppn = 0;
    for (int r = 0; r < nprocs; r++)
        max_ppn = max64(max_ppn, ++count[host_of[r]]);
    free(count);
    char spec[300];
    if (h->topology[0])
        snprintf(spec, sizeof spec, "%s", h->topology);
    else
        snprintf(spec, sizeof spec, "flat:nodes=%d,cores=%lld", *nhosts, (long long)max_ppn);
    int rc = tacio_topo_parse(spec, out);
    if (!rc && !topo_has_tree(*out))
        rc = topo_place_hosts(*out, nprocs, host_of, *nhosts);
    return rc;
}

/* One allgather of (host leader, free memory) per rank; host names follow,
 * from host leaders only, when the topology is a tree. Local failures are
 * agreed on before each collective, so a rank out of memory never leaves
 * the others waiting in one (TACIO_FAULT=hosts:RANK:1 tests it). */
int hosts_discover(MPI_Comm comm, const struct exec_hints *h, struct tacio_topo **out)
{
    int nprocs, rank;
    MPI_Comm_size(comm, &nprocs);
    MPI_Comm_rank(comm, &rank);
    int err = fault_check("hosts", rank);
    int *host_of = err ? NULL : malloc(sizeof(int) * (size_t)nprocs);
    int64_t *rec = err ? NULL : malloc(sizeof(int64_t) * 2 * (size_t)nprocs);
    int64_t mine[2] = {host_leader(comm, h), mem_available()};
    if (h->mem_per_node > 0)
        mine[1] = min64(mine[1], h->mem_per_node);
    int rc = host_of && rec ? 0 : fail_errno(err ? err : ENOMEM, "finding the job's hosts");
    int nhosts = 0;
    *out = NULL;
    if (!(rc = agree(comm, rc))) {
        MPI_Allgather(mine, 2, MPI_INT64_T, rec, 2, MPI_INT64_T, comm);
        rc = agree(comm, topology_of(h, rec, nprocs, host_of, &nhosts, out));
    }
    if (!rc && topo_has_tree(*out))
        rc = agree(comm, place_runtime(comm, rec, nprocs, host_of, nhosts, *out));
    if (!rc)
        rc = agree(comm, runtime_memory(rec, *out));
    free(host_of);
    free(rec);
    return rc;
}

bool hosts_one_machine(MPI_Comm comm)
{
    int nprocs, local = 0;
    MPI_Comm shm;
    MPI_Comm_size(comm, &nprocs);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &local);
    MPI_Comm_free(&shm);
    int all;
    MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_MIN, comm);
    return all == nprocs;
}
