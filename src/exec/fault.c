#include "fault.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char spec[64]; /* TACIO_FAULT when the last file was opened; "" when unset */
static const char *const ops[] = {"pwrite", "pread", "open", "nodeagg", "hosts", NULL};

static int calls[8]; /* per op, since the last open */

static int check_locked(const char *env, const char *op, int rank)
{
    char name[16];
    int r, nth, err = EIO;
    if (sscanf(env, "%15[a-z]:%d:%d:%d", name, &r, &nth, &err) < 3 || strcmp(name, op) || r != rank)
        return 0;
    for (int i = 0; ops[i]; i++)
        if (!strcmp(ops[i], op))
            return ++calls[i] == nth ? err : 0;
    return 0;
}

void fault_arm(void)
{
    const char *env = getenv("TACIO_FAULT");
    pthread_mutex_lock(&lock);
    snprintf(spec, sizeof spec, "%s", env ? env : "");
    memset(calls, 0, sizeof calls); /* the nth op counts from this open */
    pthread_mutex_unlock(&lock);
}

int fault_check(const char *op, int rank)
{
    if (!spec[0]) /* the common case reads one byte: no lock, no getenv */
        return 0;
    pthread_mutex_lock(&lock);
    int err = spec[0] ? check_locked(spec, op, rank) : 0;
    pthread_mutex_unlock(&lock);
    if (err >= 0)
        return err;
    /* a negative errno: the op is slow instead, by that many milliseconds
     * (a trial's time a test can rely on) */
    struct timespec ms = {-err / 1000, (long)(-err % 1000) * 1000000L};
    nanosleep(&ms, NULL);
    return 0;
}
