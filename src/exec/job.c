#include "job.h"

#include "../base/util.h"
#include "backend.h"

#include <stdio.h>

static void *job_main(void *arg)
{
    struct job *j = arg;
    double t0 = backend_clock();
    j->rc = j->fn(j->arg);
    if (j->rc) /* the message is this thread's: keep it for the joiner */
        snprintf(j->msg, sizeof j->msg, "%s", tacio_last_error());
    j->secs = backend_clock() - t0;
    return NULL;
}

void job_start(struct job *j, int (*fn)(void *), void *arg, bool async)
{
    *j = (struct job){.fn = fn, .arg = arg, .started = true};
    if (async && backend_helper_start(&j->helper, job_main, j)) {
        j->running = true;
        return;
    }
    job_main(j); /* inline: asked so, or no thread could be had */
}

int job_join(struct job *j, double *secs)
{
    if (!j->started)
        return 0;
    if (j->running)
        backend_helper_join(&j->helper);
    j->running = j->started = false;
    *secs += j->secs;
    return j->rc;
}
