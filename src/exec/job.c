/* A window's file I/O, run by a helper thread while the next round's
 * exchange goes on (pipelined rounds). The helper makes no MPI call, so the
 * engine needs no more thread support from MPI than MPI_THREAD_SINGLE's
 * single MPI-calling thread. Under SMPI (TACIO_JOBS_INLINE) every job runs
 * in the caller: SimGrid's actors are not real threads, and its clock and
 * contexts are not for threads it did not start. */
#include "exec.h"

#include <stdio.h>

static void *job_main(void *arg)
{
    struct exec_job *j = arg;
    double t0 = clock_seconds();
    j->rc = j->fn(j->arg);
    if (j->rc) /* the message is this thread's: keep it for the joiner */
        snprintf(j->msg, sizeof j->msg, "%s", tacio_last_error());
    j->secs = clock_seconds() - t0;
    return NULL;
}

void exec_job_start(struct exec_job *j, int (*fn)(void *), void *arg, bool async)
{
    *j = (struct exec_job){.fn = fn, .arg = arg, .started = true};
#ifndef TACIO_JOBS_INLINE
    if (async && pthread_create(&j->th, NULL, job_main, j) == 0) {
        j->running = true;
        return;
    }
#else
    (void)async;
#endif
    job_main(j); /* inline: asked so, or no thread could be had */
}

int exec_job_join(struct exec_job *j, double *secs)
{
    if (!j->started)
        return 0;
    if (j->running)
        pthread_join(j->th, NULL);
    j->running = j->started = false;
    *secs += j->secs;
    return j->rc;
}
