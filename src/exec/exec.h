/* The MPI engine's internals: files, views, and the two-phase stages. */
#ifndef TACIO_EXEC_H
#define TACIO_EXEC_H

#include "tacio.h"

#include "../plan/strategy.h"
#include "../plan/view.h"

#include <mpi.h>
#include <pthread.h>

struct tacio_file {
    MPI_Comm comm;
    MPI_Comm host_comm; /* the ranks of this rank's (virtual) host */
    int rank, nprocs;
    int fd;
    char *path;
    int amode;
    struct tacio_hints *hints;
    struct tacio_topo *topo; /* ranks placed on their (virtual) hosts */
    /* view */
    MPI_Offset disp;
    MPI_Datatype etype, filetype; /* our own duplicates */
    int64_t etype_size;
    const struct flat *ft;
    struct flat *ft_owned;
    int64_t fp; /* individual file pointer, in etypes */
    struct tacio_stats last;
};

/* Flatten a datatype (cached on derived types); *owned is set when the
 * caller must free the result (named types). */
int exec_flatten(MPI_Datatype t, const struct flat **out, struct flat **owned);

/* Error agreement: every rank passes its local result (0 or TACIO_E* with
 * the thread's tacio_last_error(), or an MPI error class through
 * exec_errno/exec_class); all ranks return the same MPI error code, whose
 * MPI_Error_string is the first failing rank's message. */
int exec_agree(MPI_Comm comm, int local_rc);
/* The same agreement, also taking the maximum over ranks of n <= 7 values
 * (vals, in place): one allreduce for both. */
int exec_agree_max(MPI_Comm comm, int local_rc, int64_t *vals, int n);
/* Record a failure as an MPI error class with a message (returns a local rc). */
int exec_fail_class(int mpi_class, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int exec_fail_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runtime topology: hosts from MPI_COMM_TYPE_SHARED (or tacio_ranks_per_node),
 * the network from hint tacio_topology (default: one switch). */
int exec_topology(MPI_Comm comm, const struct tacio_hints *h, struct tacio_topo **out);

/* Hints from an MPI_Info on top of base, or (base NULL) of the defaults, the
 * hints files and TACIO_HINTS. */
int exec_hints(const struct tacio_hints *base, MPI_Info info, struct tacio_hints **out);

/* The collective data path (write when is_write). */
int exec_collective(struct tacio_file *f, int64_t offset_etypes, void *buf, int64_t count,
                    MPI_Datatype datatype, bool is_write, MPI_Status *status);

/* Test-only fault injection: TACIO_FAULT=op:rank:nth[:errno] */
int exec_fault(const char *op, int rank);

/* Whole pwrite/pread in OS-sized chunks; returns 0 or -errno. */
int exec_pwrite_all(int fd, const char *buf, int64_t len, int64_t off);
int exec_pread_all(int fd, char *buf, int64_t len, int64_t off);
/* Simulated storage time of an access under SMPI (sim.c); nothing otherwise. */
void exec_sim_io(int64_t len, bool write);

/* A function run by a helper thread (async) or in the caller; its result
 * and message come back through exec_job_join, in the joining thread. */
struct exec_job {
    pthread_t th;
    bool started, running;
    int (*fn)(void *arg);
    void *arg;
    int rc;
    double secs; /* how long fn ran */
    char msg[512];
};
void exec_job_start(struct exec_job *j, int (*fn)(void *), void *arg, bool async);
/* Waits for the job (nothing when none started), adds its run time to
 * *secs, and returns fn's result (its message in j->msg). */
int exec_job_join(struct exec_job *j, double *secs);

#endif
