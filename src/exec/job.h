/* A window's file I/O, run by a helper thread while the next round's
 * exchange goes on (pipelined rounds), or in the caller. The helper makes no
 * MPI call, so the engine needs no more thread support from MPI than
 * MPI_THREAD_SINGLE's single MPI-calling thread. Where the backend allows no
 * threads (SimGrid's actors are not real threads), every job runs in the
 * caller. */
#ifndef TACIO_EXEC_JOB_H
#define TACIO_EXEC_JOB_H

#include <pthread.h>
#include <stdbool.h>

struct job {
    pthread_t th;
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
