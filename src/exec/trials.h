/* auto that measures: on collective calls that repeat a shape (one of the
 * file's kept schedules fits every rank's access: kept.h), auto times its
 * candidates one call each (a close one a second call, on its kept
 * schedule), the default (romio) among them, and keeps the fastest. Every
 * rank steps the same state from values the ranks agreed on (the kept
 * schedule's fit, the call's success, the slowest rank's time, which the
 * call's last agreement carries), so every rank runs the same candidate on
 * the same call. Each kept shape has its own (kept.h): a shape new to the
 * file starts its own, and a call that fails starts every shape's over.
 * A shape whose choice a wisdom file remembered (learned.h) is settled on
 * its first call, without trials.
 *
 * The engine asks two things a call: before it, what it runs
 * (trials_before); after it, what it measured (trials_record, and
 * trials_keep_new for its schedule). Where the state is, trials.phase says.
 *
 * What a trial's call is timed by is what a settled call would pay: the
 * slowest rank's call less its planning and the links a new schedule lays
 * out once (tacio_stats.move_us; for a schedule that is never kept, node
 * aggregation's, which plans on every call, the whole call but the pass
 * that chose it, which a settled call skips), so that the model's pick,
 * which the first call planned and kept, is timed on that kept schedule
 * (the second call: one plan fewer a shape) against the others' planned
 * calls on equal terms. */
#ifndef TACIO_EXEC_TRIALS_H
#define TACIO_EXEC_TRIALS_H

#include "../base/wisdom.h"
#include "../plan/plan.h"

#include <stdbool.h>
#include <stdint.h>

enum trials_phase {
    TRIALS_OFF,     /* not auto, or tacio_auto_trials 0: the model's pick on every shape */
    TRIALS_FIRST,   /* the shape's first call is next: it plans the model's pick, untimed */
    TRIALS_TIMING,  /* candidates timed one call each; while the next waits for the
                       budget, the fastest's kept schedule serves */
    TRIALS_CONFIRM, /* the next call times a planned candidate close to the fastest again,
                       on its kept schedule */
    TRIALS_SETTLED, /* the fastest chosen (or a wisdom file's choice): it serves every call */
    TRIALS_DRIFTED, /* settled, and its last calls ran slower than when it won: DRIFT_CALLS
                       such calls in a row start the trials over (trials.c) */
};

/* One candidate: a trial (plan_ctx.trial: 1 the default, 2 the model's
 * pick, 3... its runners-up, AUTO_TRIAL_INDEPENDENT independent I/O) and,
 * once timed, what its call took and planned. */
struct candidate {
    int trial;
    double secs;                /* what a settled call of it pays (the slowest rank's) */
    double check;               /* on its kept schedule: the agreement that checked it fits,
                                   which secs leaves out (a late rank's arrival waits there) */
    double predicted;           /* the model's seconds for its plan */
    bool on_kept;               /* timed on its kept schedule, not planned */
    bool gathered;              /* its hosts' data gathered first (never kept) */
    char label[160];            /* the plan's detail */
    char choice[WISDOM_CHOICE]; /* its tacio_plan.choice (rank 0; "" elsewhere) */
};

struct trials {
    enum trials_phase phase;
    int n;     /* candidates, in cand[], in the order they run */
    int ran;   /* of them timed so far */
    int asked; /* the model's candidates the trials began with (tacio_auto_trials) */
    struct candidate cand[AUTO_TRIALS_MAX + 2];
    int chosen;  /* settled (or drifted): the choice's trial (0: the wisdom file's) */
    int confirm; /* TRIALS_CONFIRM: the trial timed again */
    /* the schedules the file keeps for the shape (kept.h) */
    struct {
        int first;    /* the trial the first call's kept schedule serves next (0: none) */
        int held;     /* the timed trial whose schedule is kept (0: none yet) */
        int aside;    /* while confirming: the one held before, its schedule set aside */
        bool restore; /* ...once confirmed: it comes back (its trial still the fastest) */
        bool replan;  /* settled on a trial whose schedule is not the one kept */
    } kept;
    /* candidates left out by the model's ratings (trials.c's DOMINATED_FACTOR) */
    struct {
        double default_predicted; /* the model's seconds for the default's plan */
        bool default_skipped;     /* ...twice the pick's measured time or more: not tried */
        bool default_independent; /* the default's timed call ran independent I/O */
        bool pick_skipped;        /* the pick rated twice that call's time or more */
        bool pick_last;           /* the pick, served on the first call's schedule, has no
                                     runner-up */
    } skip;
    /* what the trials cost (trials.c's TRIAL_BUDGET), agreed seconds */
    struct {
        double spent; /* the trials' calls and the calls between them */
        double paid;  /* of those, the timed trials' whole calls */
        int calls;    /* ...how many (a confirmed trial's two) */
        /* the shape's first call: what it took beyond the fastest timed call
         * is what a planned trial is expected to lose before any has lost */
        double first_paid;
    } budget;
    /* the settled choice's time when it won (0: a remembered choice's, not
     * yet measured), its slow calls in a row, and the restarts so far */
    struct {
        double secs;
        int slow, restarts;
    } drift;
    /* the held trial's latest times on its kept schedule while a trial
     * waits, oldest first (of: that trial, 0 none; n of them, at most 3):
     * the middle of the last three is its time (trials.c, retime_held) */
    struct {
        int of, n;
        double secs[3];
    } recent;
    /* a remembered choice that gathers its hosts first: its name (rank 0) */
    struct {
        bool gathered;
        char choice[WISDOM_CHOICE];
    } learned;
    /* rank 0, wisdom on: the shape's wisdom key, from its last planned call */
    bool keyed;
    struct wisdom_key key;
};

/* Whether candidates are still to be timed (the first call included). */
static inline bool trials_trying(const struct trials *t)
{
    return t->phase == TRIALS_FIRST || t->phase == TRIALS_TIMING || t->phase == TRIALS_CONFIRM;
}

/* What the shape's next call runs. */
struct trials_step {
    int trial;    /* the trial it plans (plan_ctx.trial), or -1: the kept schedule serves */
    bool on_kept; /* that trial is timed on the kept schedule, not planned again */
    /* the settled choice where it gathers its hosts' data first and so is
     * planned on every call: the call may gather at once and plan it on the
     * gathered accesses, without the pass that would choose it again (its
     * name, rank 0: "" elsewhere; learned: a wisdom file's); else NULL */
    const char *gathered;
    bool learned;
};
struct trials_step trials_before(const struct trials *t);
/* Whether the next trial waits for the budget, some timed: the calls so far
 * have not earned it, and the fastest's kept schedule serves. */
bool trials_waiting(const struct trials *t);
/* Whether the model's pick, planned for its trial and rated predicted
 * seconds, is not worth a call: the default ran independent I/O, timed,
 * and the pick is rated DOMINATED_FACTOR times that or more (trials.c);
 * the call then runs the default's path (trial_outcome.pick_dominated). */
bool trials_pick_dominated(const struct trials *t, double predicted);
/* A call that did not repeat the shape (or the first): trials start over,
 * with independent I/O a candidate too when `independent` (its trial,
 * AUTO_TRIAL_INDEPENDENT, comes last, and is dropped when the default
 * itself went independent). */
void trials_reset(struct trials *t, int64_t auto_trials, bool independent);
/* A planned call's new schedule, about to be kept (keepable): whether it
 * replaces the kept one. While trials run the file keeps the fastest timed
 * trial's schedule, so the choice, once settled, is not planned again;
 * one to be confirmed replaces it for a call, the fastest's set aside
 * (kept.aside). */
bool trials_keep_new(struct trials *t, int trial);
/* A successful call, as the trials see it. */
struct trial_outcome {
    int trial;            /* plan_ctx.trial it ran */
    bool reused;          /* on the kept schedule */
    double slowest;       /* what a settled call of it would pay (coll.c trials_after), agreed */
    double paid;          /* what this call took, planning included: the slowest rank's, agreed */
    double check;         /* on the kept schedule: the agreement that checked it fits */
    double predicted;     /* the model's seconds for its plan (0: none) */
    const char *label;    /* its plan's detail */
    const char *choice;   /* its tacio_plan.choice (rank 0; "" elsewhere) */
    bool learned;         /* a choice the wisdom file remembered */
    bool independent;     /* it ran independent I/O */
    bool last_candidate;  /* auto has no candidate after this one */
    bool model_pick;      /* the first call planned the model's pick (a plan: collective) */
    bool pick_is_default; /* the default plans as that pick does */
    double default_predicted; /* ...and the model's seconds for the default's plan (0: none) */
    bool pick_dominated;      /* the pick not tried: its call ran the default's path */
    bool keepable;            /* the call's new schedule can be kept */
    bool gathered;            /* its hosts' data gathered first (node aggregation), agreed */
    int rank;                 /* this rank (0 says the choice: TACIO_PRINT_CHOICE) */
    const char *path, *op;    /* the file and "write" or "read", for saying so */
};
/* After a successful call: its time and plan, and what the next call runs;
 * true when the call's trial was the last and the choice settled. */
bool trials_record(struct trials *t, const struct trial_outcome *o);
/* At close, trials that timed some candidates and did not settle (the
 * program made too few calls of the shape to earn the rest): rank 0 says
 * what they timed, as settling would have (TACIO_PRINT_CHOICE), so that a
 * short run is not silent. */
void trials_say_unsettled(const struct trials *t, int rank, const char *path, const char *op);

#endif
