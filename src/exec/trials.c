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
/* The model's pick (trial 2) this much slower than the fastest timed before
 * it (the default): the model's runners-up, which it rates slower still,
 * are not tried. Where the rule sends a shape to independent I/O and
 * collective buffering costs several times as much (bench/io/repeat: cube,
 * struct's reads), three such trials cost more than 20 calls can win back. */
#define FAR_FACTOR 1.5

void trials_reset(struct trials *t, int64_t auto_trials, bool independent)
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
    if (independent)
        t->order[t->n++] = AUTO_TRIAL_INDEPENDENT;
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

/* A remembered choice's first call: settled, on the schedule it made; its
 * time for drift is its first call on that schedule (this one paid for
 * what the later calls find ready). */
static void settle_learned(struct trials *t, const struct trial_outcome *o)
{
    t->chosen = o->trial;
    t->replan = false;
    t->settled_secs = 0;
    const char *say = getenv("TACIO_PRINT_CHOICE");
    if (o->rank == 0 && say && strcmp(say, "0"))
        fprintf(stderr, "tacio: auto on %s (%s): the wisdom file's choice, no trials: %s\n",
                o->path, o->op, o->label);
}

/* The fastest time of the slots before i (a huge one for none). */
static double fastest(const struct trials *t, int i)
{
    double best = 1e300;
    for (int k = 0; k < i; k++)
        best = t->secs[k] < best ? t->secs[k] : best;
    return best;
}

/* auto has no candidate after slot i's: the model's trials after it would
 * time a plan again; independent I/O, if it follows, moves up. */
static void drop_model_trials_after(struct trials *t, int i)
{
    int n = i + 1;
    for (int k = i + 1; k < t->n; k++)
        if (t->order[k] == AUTO_TRIAL_INDEPENDENT)
            t->order[n++] = t->order[k];
    t->n = n;
}

bool trials_record(struct trials *t, const struct trial_outcome *o)
{
    if (!t->n)
        return false;
    if (o->reused) { /* the settled choice on its kept schedule: drift? */
        if (t->chosen < 0)
            return false;
        if (!t->settled_secs) {
            t->settled_secs = o->slowest;
            return false;
        }
        t->slow = o->slowest > DRIFT_FACTOR * t->settled_secs ? t->slow + 1 : 0;
        if (t->slow >= DRIFT_CALLS && t->restarts < TRIALS_RESTARTS) {
            int restarts = t->restarts + 1; /* counted per shape: a new one resets it */
            bool independent = t->order[t->n - 1] == AUTO_TRIAL_INDEPENDENT;
            trials_reset(t, t->n - 1 - independent, independent); /* as order[] held them */
            t->restarts = restarts;
        }
        return false;
    }
    if (o->learned && t->chosen < 0 && !t->ran) {
        settle_learned(t, o);
        return false;
    }
    int i = slot_of(t, o->trial);
    if (t->chosen >= 0 || i < 0) { /* the chosen one planned again: kept from now on */
        t->replan = false;
        return false;
    }
    if (o->trial == 1 && o->independent && t->order[t->n - 1] == AUTO_TRIAL_INDEPENDENT)
        t->n--; /* the default's own path: timed already */
    if (o->last_candidate || (o->trial == 2 && o->slowest > FAR_FACTOR * fastest(t, i)))
        drop_model_trials_after(t, i);
    t->secs[i] = o->slowest;
    t->predicted[i] = o->predicted;
    snprintf(t->label[i], sizeof t->label[i], "%s", o->label);
    snprintf(t->choice[i], sizeof t->choice[i], "%s", o->choice);
    t->ran = i + 1;
    if (t->ran < t->n)
        return false;
    settle(t, o);
    return true;
}
