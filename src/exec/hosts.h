/* The run-time topology of an open: each rank's host (MPI_COMM_TYPE_SHARED,
 * or virtual hosts of tacio_ranks_per_node ranks), the hosts placed on the
 * tacio_topology tree (by processor name when the tree names them), and
 * each host's free memory (for mccio). Collective over comm; every failure,
 * on any rank, is agreed before the next collective, so none hangs. */
#ifndef TACIO_EXEC_HOSTS_H
#define TACIO_EXEC_HOSTS_H

#include "hints.h"

#include <mpi.h>

int hosts_discover(MPI_Comm comm, const struct exec_hints *h, struct tacio_topo **out);
/* Whether every rank of comm runs on one machine (MPI_COMM_TYPE_SHARED),
 * whatever virtual hosts the hints describe. Collective. */
bool hosts_one_machine(MPI_Comm comm);

#endif
