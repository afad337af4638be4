/* auto that measures: on collective calls that repeat a shape (the file's
 * kept schedule fits every rank's access), auto times its candidates one
 * call each (a close one a second call, on its kept schedule), the default
 * (romio) among them, and keeps the fastest. Every
 * rank steps the same state from values the ranks agreed on (the kept
 * schedule's fit, the call's success, the slowest rank's time, which the
 * call's last agreement carries), so every rank runs the same candidate on
 * the same call. A shape that changes, or a call that fails, starts over.
 * A shape whose choice a wisdom file remembered (learned.h) is settled on
 * its first call, without trials.
 * What a trial's call is timed by is what a settled call would pay: the
 * slowest rank's call less its planning and the links a new schedule lays
 * out once (tacio_stats.move_us; for a schedule that is never kept, node
 * aggregation's, which plans on every call, the whole call but the pass
 * that chose it, which a settled call skips), so that the
 * model's pick, which the first call planned and kept, is timed on that
 * kept schedule (the second call: one plan fewer a shape) against the
 * others' planned calls on equal terms. */
#ifndef TACIO_EXEC_TRIALS_H
#define TACIO_EXEC_TRIALS_H

#include "../base/wisdom.h"
#include "../plan/plan.h"

#include <stdbool.h>
#include <stdint.h>

struct trials {
    int n;     /* candidates, in order[] (0: trials off) */
    int ran;   /* timed so far */
    int asked; /* the model's candidates the trials began with (tacio_auto_trials) */
    /* the default, the model's candidates and independent I/O */
    int order[AUTO_TRIALS_MAX + 2];                  /* plan_ctx.trial of each candidate */
    double secs[AUTO_TRIALS_MAX + 2];                /* by candidate: the slowest rank's time */
    double predicted[AUTO_TRIALS_MAX + 2];           /* the model's seconds for its plan */
    char label[AUTO_TRIALS_MAX + 2][160];            /* the plan's detail */
    char choice[AUTO_TRIALS_MAX + 2][WISDOM_CHOICE]; /* call_planning.choice (rank 0) */
    bool on_kept_timed[AUTO_TRIALS_MAX + 2];         /* ...timed on its kept schedule */
    bool gathered[AUTO_TRIALS_MAX + 2];              /* ...its hosts' data gathered first */
    double check[AUTO_TRIALS_MAX + 2];               /* ...and that call's check (outcome) */
    int kept_trial; /* the trial the kept schedule serves next (0: none) */
    /* a planned trial close to the fastest, timed again on its kept
     * schedule by the next call (CONFIRM_BAND in trials.c; 0: none; set
     * only while no choice is settled, which waits for it) */
    int confirm;
    int held; /* the timed trial whose schedule is kept (0: none yet) */
    /* while a trial is confirmed: the one held before, whose schedule the
     * file set aside (0: none); once it is timed, restore says whether
     * that schedule comes back (its trial still the fastest: no plan
     * again) or goes */
    int aside;
    bool restore;
    bool pick_last;           /* the pick so served has no runner-up (last_candidate) */
    double default_predicted; /* the model's seconds for the default's plan (pick_first) */
    bool default_skipped;     /* ...twice the pick's measured time or more: not tried */
    bool default_independent; /* the default's timed call ran independent I/O */
    bool pick_skipped;        /* the pick rated twice that call's time or more: not tried */
    int chosen;               /* the settled candidate's trial, -1 while trying */
    bool replan;              /* the kept schedule is not the chosen one's */
    double settled_secs;      /* the chosen one's time when it won (0: a remembered choice's, not
                                 yet measured) */
    /* a remembered choice (settle_learned) that gathered its hosts first:
     * its name (rank 0; "" elsewhere), for trials_gathered_choice */
    bool learned_gathered;
    char learned_choice[WISDOM_CHOICE];
    double spent;       /* agreed seconds of the trials' calls and of the calls between them */
    double trials_paid; /* of those, the timed trials' whole calls */
    int trial_calls;    /* ...how many (a confirmed trial's two) */
    /* the shape's first call's seconds, the slowest rank's (agreed): what
     * it took beyond the fastest timed call is what a planned trial is
     * expected to lose before any has lost (expected_loss in trials.c) */
    double first_paid;
    int slow, restarts; /* drift: slow calls in a row, restarts so far */
    /* the held trial's latest times on its kept schedule while a trial
     * waits (recent_of: that trial; 0 none), its own timed call first:
     * the middle of the last three is its time (retime_held in trials.c) */
    int recent_of, nrecent; /* ...how many (at most 3) */
    double recent[3];       /* ...oldest first */
    /* rank 0, wisdom on: the shape's wisdom key, from its last planned call */
    bool keyed;
    struct wisdom_key key;
};

/* The trial a call on a repeated shape runs (plan_ctx.trial), or -1: the
 * kept schedule serves it (the choice settled, or the next trial waits
 * until the calls have earned it: TRIAL_BUDGET in trials.c). */
int trials_next(const struct trials *t);
/* Whether the next trial waits for the budget (TRIAL_BUDGET), some timed:
 * the calls so far have not earned it, and the fastest's kept schedule
 * serves. */
bool trials_waiting(const struct trials *t);
/* Whether that trial runs on the kept schedule (the model's pick the first
 * call planned, or a planned trial to be confirmed), timed but not planned
 * again. */
bool trials_on_kept(const struct trials *t);
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
 * (aside). */
bool trials_keep_new(struct trials *t, int trial);
/* A successful call, as the trials see it. */
struct trial_outcome {
    int trial;            /* plan_ctx.trial it ran */
    bool reused;          /* on the kept schedule */
    double slowest;       /* what a settled call of it would pay (coll.c trials_after), agreed */
    double paid;          /* what this call took, planning included: the slowest rank's, agreed */
    double check;         /* on the kept schedule: the agreement that checked it fits, which
                             slowest leaves out (a late rank's arrival waits there) */
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
/* The settled choice's name (trial_outcome.choice; "" but on rank 0) when
 * it gathers its hosts' data first and so is planned on every call: the
 * call may gather at once and plan the choice on the gathered accesses,
 * without the pass that would choose it again; NULL otherwise. *learned:
 * the choice is a wisdom file's (settled without trials). */
const char *trials_gathered_choice(const struct trials *t, bool *learned);
/* After a successful call: its time and plan, and what the next call runs;
 * true when the call's trial was the last and the choice settled. */
bool trials_record(struct trials *t, const struct trial_outcome *o);
/* At close, trials that timed some candidates and did not settle (the
 * program made too few calls of the shape to earn the rest): rank 0 says
 * what they timed, as settling would have (TACIO_PRINT_CHOICE), so that a
 * short run is not silent. */
void trials_say_unsettled(const struct trials *t, int rank, const char *path, const char *op);

#endif
