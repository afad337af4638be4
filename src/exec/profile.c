#include "profile.h"

#include <string.h>

/* Signatures one process meets: a file system or two, a sub-communicator
 * or two. */
#define PROFILES 8

static struct profile {
    struct wisdom_key at;
    struct model_fit fit[2];
    int64_t asked; /* when last asked for (profile_fit's count); 0: free */
} profiles[PROFILES];
static int64_t asks;

static bool same_machine(const struct wisdom_key *a, const struct wisdom_key *b)
{
    return a->ranks == b->ranks && a->hosts == b->hosts && a->per_host == b->per_host &&
           !strcmp(a->mpi, b->mpi) && !strcmp(a->fs, b->fs) && !strcmp(a->machine, b->machine);
}

struct model_fit *profile_fit(const struct wisdom_key *at)
{
    struct profile *oldest = &profiles[0];
    for (int i = 0; i < PROFILES; i++) {
        struct profile *p = &profiles[i];
        if (p->asked && same_machine(&p->at, at)) {
            p->asked = ++asks;
            return p->fit;
        }
        if (p->asked < oldest->asked)
            oldest = p;
    }
    oldest->at = *at;
    oldest->asked = ++asks;
    fit_init(&oldest->fit[0]);
    fit_init(&oldest->fit[1]);
    return oldest->fit;
}
