#include "trials.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A settled choice whose calls run this much slower than when it won, this
 * many calls in a row, is tried against the others again, at most
 * TRIALS_RESTARTS times a shape: contention or a new file system state,
 * without flapping on a noisy machine. */
#define DRIFT_FACTOR 1.5
#define DRIFT_CALLS 3
#define TRIALS_RESTARTS 2

void trials_reset(struct trials *t, int64_t auto_trials)
{
    memset(t, 0, sizeof *t);
    t->chosen = -1;
    if (auto_trials <= 0)
        return;
    int most = auto_trials < AUTO_TRIALS_MAX ? (int)auto_trials : AUTO_TRIALS_MAX;
    /* The first call runs the model's pick (trial 0) untimed: it pays for
     * what every later call finds ready (windows, the file's pages); then
     * the default, the model's pick and its runners-up, one call each. */
    for (int k = 1; k <= most + 1; k++)
        t->order[t->n++] = k;
}

int trials_next(const struct trials *t)
{
    if (!t->n)
        return -1;
    if (t->chosen < 0)
        return t->ran < t->n ? t->order[t->ran] : -1;
    return t->replan ? t->chosen : -1;
}

/* Where trial's time goes in order[]; -1 for the untimed first call. */
static int slot_of(const struct trials *t, int trial)
{
    for (int i = 0; trial && i < t->n; i++)
        if (t->order[i] == trial)
            return i;
    return -1;
}

/* All candidates timed: the fastest wins; TACIO_PRINT_CHOICE says so. */
static void settle(struct trials *t, const struct trial_outcome *o)
{
    int best = 0;
    for (int i = 1; i < t->n; i++)
        best = t->secs[i] < t->secs[best] ? i : best;
    t->chosen = t->order[best];
    t->settled_secs = t->secs[best];
    t->replan = t->order[t->n - 1] != t->chosen; /* the kept schedule is the last trial's */
    const char *say = getenv("TACIO_PRINT_CHOICE");
    if (o->rank != 0 || !say || !strcmp(say, "0"))
        return;
    fprintf(stderr, "tacio: auto on %s (%s): %d candidates timed, one call each\n", o->path, o->op,
            t->n);
    for (int i = 0; i < t->n; i++)
        fprintf(stderr, "tacio:   %s %.6f s measured, %.6f s predicted: %s\n",
                i == best ? "*" : " ", t->secs[i], t->predicted[i], t->label[i]);
}

void trials_record(struct trials *t, const struct trial_outcome *o)
{
    if (!t->n)
        return;
    if (o->reused) { /* the settled choice on its kept schedule: drift? */
        if (t->chosen < 0)
            return;
        t->slow = o->slowest > DRIFT_FACTOR * t->settled_secs ? t->slow + 1 : 0;
        if (t->slow >= DRIFT_CALLS && t->restarts < TRIALS_RESTARTS) {
            int restarts = t->restarts + 1; /* counted per shape: a new one resets it */
            trials_reset(t, t->n - 1);      /* order[] held the default and n - 1 others */
            t->restarts = restarts;
        }
        return;
    }
    int i = slot_of(t, o->trial);
    if (t->chosen >= 0 || i < 0) { /* the chosen one planned again: kept from now on */
        t->replan = false;
        return;
    }
    t->secs[i] = o->slowest;
    t->predicted[i] = o->predicted;
    snprintf(t->label[i], sizeof t->label[i], "%s", o->label);
    t->ran = i + 1;
    if (t->ran == t->n)
        settle(t, o);
}
