/* A window's file I/O, run by the backend's helper (a thread, or under
 * SimGrid an actor of the same host) while the next round's exchange goes
 * on (pipelined rounds), or in the caller. The helper makes no MPI call, so
 * the engine needs no more thread support from MPI than
 * MPI_THREAD_SINGLE's single MPI-calling thread. */
#ifndef TACIO_EXEC_JOB_H
#define TACIO_EXEC_JOB_H

#include "backend.h"

#include <stdbool.h>

struct job {
    struct backend_helper helper;
    bool started, running;
    int (*fn)(void *arg);
    void *arg;
    int rc;
    double secs; /* how long fn ran */
    char msg[512];
};

void job_start(struct job *j, int (*fn)(void *), void *arg, bool async);
/* Waits for the job (nothing when none started), adds its run time to
 * *secs, and returns fn's result (its message in j->msg: the joiner decides
 * whether it becomes its own last error). */
int job_join(struct job *j, double *secs);

#endif
