#include "profile.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Signatures one process may meet: a file system or two, a few
 * sub-communicators. Beyond them a file plans with the built-in model.
 * Slots are never reused: an open file keeps pointing at its own. */
#define PROFILES 64

static struct profile {
    struct wisdom_key at;
    struct model_fit fit[2];
} * profiles[PROFILES];
static int nprofiles;
/* Files on different communicators may run collectives from different
 * threads (MPI_THREAD_MULTIPLE) and share one machine's fits. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void profile_lock(void)
{
    pthread_mutex_lock(&lock);
}

void profile_unlock(void)
{
    pthread_mutex_unlock(&lock);
}

static bool same_machine(const struct wisdom_key *a, const struct wisdom_key *b)
{
    return a->ranks == b->ranks && a->hosts == b->hosts && a->per_host == b->per_host &&
           !strcmp(a->mpi, b->mpi) && !strcmp(a->fs, b->fs) && !strcmp(a->machine, b->machine);
}

struct model_fit *profile_fit(const struct wisdom_key *at)
{
    for (int i = 0; i < nprofiles; i++)
        if (same_machine(&profiles[i]->at, at))
            return profiles[i]->fit;
    struct profile *p = nprofiles < PROFILES ? malloc(sizeof *p) : NULL;
    if (!p)
        return NULL;
    p->at = *at;
    fit_init(&p->fit[0]);
    fit_init(&p->fit[1]);
    profiles[nprofiles++] = p;
    return p->fit;
}

const struct model_fit *profile_snapshot(struct model_fit *fit, struct model_fit *copy)
{
    if (!fit)
        return NULL;
    profile_lock();
    *copy = *fit_current(fit);
    profile_unlock();
    return copy;
}
