/* auto's trial state (src/exec/trials.c), stepped by hand through the
 * outcomes the engine would report (coll.c's trials_after and
 * keep_schedule), without MPI: which candidate each call runs.
 *   phases                  off, first, timing, confirm, settled, drifted
 *       and back, drifted into new trials.
 *   node_aggregated_choice  the fastest trial is one whose schedule is
 *       never kept (node aggregation): every later call plans it again,
 *       rather than run the kept schedule, another trial's; and drift is
 *       watched on those calls as on kept ones.
 *   gathered_pick_first     the first call's pick gathered its hosts' data
 *       (never kept): that call times it, the default follows at once, and
 *       a gathered fastest is named for the calls after, which gather at
 *       once (trials_step.gathered); a kept fastest is not; a wisdom
 *       file's gathered choice is, as remembered.
 *   kept_choice             the fastest trial's schedule was kept: the
 *       calls after the trials run it, planned by none.
 *   budget_waits            a trial that lost against the fastest (its
 *       whole call, planning included) makes the next one wait until the
 *       calls have earned it and what it is expected to lose, as much
 *       again (TRIAL_BUDGET: 3% of the seconds spent), on the fastest's
 *       kept schedule; trials that cost little run back to back.
 *   dominated_default       the default, rated by the model at twice the
 *       pick's measured time or more, is not tried (but is again when
 *       drift starts the trials over); rated closer, it is.
 *   plan_cost_waits         a runner-up in the default's place (the default
 *       plans as the pick does), or the model's pick planned after the
 *       default, is not free: before any trial has lost, it is expected to
 *       lose what the shape's first call took beyond the fastest timed
 *       call, and waits until the calls have earned that; the default
 *       itself runs at once.
 *   warm_retimed            the pick, timed on the second call while the
 *       machine was still warming up, is timed again by the kept
 *       schedule's calls while a trial waits (the middle of the last
 *       three: one slow call changes nothing): a runner-up faster than
 *       its cold call but slower than its warm ones does not win.
 *   dominated_pick          the default timed on independent I/O, a pick the
 *       model rates at twice that or more is not tried: its call runs the
 *       default's path and the trials settle on the default; rated closer,
 *       or the default collective, it is tried.
 *   pick_far_behind         the pick ran more than 1.5x the default
 *       (FAR_FACTOR): the runners-up, rated slower still, are not timed
 *       and the trials settle on the default; at 1.4x they are. */
#include "check.h"
#include "exec/trials.h"

#include <stdbool.h>
#include <string.h>

/* One successful call of trial, as trials_after reports it (rank 1: it
 * prints nothing). */
static struct trial_outcome outcome(int trial, bool reused, bool keepable, double secs, double paid)
{
    return (struct trial_outcome){.trial = trial,
                                  .reused = reused,
                                  .slowest = secs,
                                  .paid = paid,
                                  .label = "plan",
                                  .choice = "",
                                  .model_pick = true,
                                  .keepable = keepable,
                                  .rank = 1,
                                  .path = "f",
                                  .op = "write"};
}

/* That call recorded, then the engine's keep decision for its schedule
 * (keep_schedule); the next call's trial (trials_next: -1 is the kept
 * schedule). */
static int call_paying(struct trials *t, int trial, bool reused, bool keepable, double secs,
                       double paid)
{
    struct trial_outcome o = outcome(trial, reused, keepable, secs, paid);
    trials_record(t, &o);
    if (keepable)
        trials_keep_new(t, trial);
    return trials_before(t).trial;
}

/* A call that took what a settled one of it would (no planning). */
static int call(struct trials *t, int trial, bool reused, bool keepable, double secs)
{
    return call_paying(t, trial, reused, keepable, secs, secs);
}

/* Calls on the kept schedule, secs each, while the next trial waits: how
 * many ran before it was due (at most 1000). */
static int wait_for_trial(struct trials *t, double secs)
{
    int waited = 0;
    while (trials_before(t).trial < 0 && trials_trying(t) && waited < 1000) {
        call(t, 0, true, false, secs);
        waited++;
    }
    return waited;
}

/* The first call (the model's pick, kept), the pick timed on that kept
 * schedule, then the default and the runners-up 3 and 4 planned, each
 * keepable but trial 3, the kept schedule serving while a trial waits;
 * secs[k]: trial k's time. The next call's trial. */
static int run_trials(struct trials *t, const double secs[5])
{
    trials_reset(t, 3, false);
    CHECK_EQ(call(t, 0, false, true, 9.0), 2);
    CHECK(trials_before(t).on_kept);
    CHECK_EQ(call(t, 2, true, false, secs[2]), 1);
    call(t, 1, false, true, secs[1]);
    double held = secs[1] < secs[2] ? secs[1] : secs[2];
    wait_for_trial(t, held);
    CHECK_EQ(trials_before(t).trial, 3);
    call(t, 3, false, false, secs[3]);
    wait_for_trial(t, held);
    CHECK_EQ(trials_before(t).trial, 4);
    return call(t, 4, false, true, secs[4]);
}

static void test_node_aggregated_choice(void)
{
    struct trials t;
    static const double secs[5] = {0, 2.0, 1.0, 0.5, 3.0}; /* trial 3 the fastest */
    int next = run_trials(&t, secs);
    CHECK_EQ(t.chosen, 3);
    CHECK_EQ(next, 3); /* planned again: the kept schedule is trial 2's */
    for (int k = 0; k < 5; k++)
        CHECK_EQ(call(&t, 3, false, false, 0.5), 3); /* and on every call after */
    /* three calls in a row over 1.5x its time: the trials start over */
    CHECK_EQ(call(&t, 3, false, false, 1.0), 3);
    CHECK_EQ(call(&t, 3, false, false, 1.0), 3);
    CHECK_EQ(call(&t, 3, false, false, 1.0), 1);
    CHECK_EQ(t.chosen, -1);
    CHECK_EQ(t.drift.restarts, 1);
}

/* The first call planned the model's pick with its hosts' data gathered
 * first (never kept: gathered is planned on every call): that call is the
 * pick's trial, and the default follows at once; the fastest, gathered
 * too, is named for the calls after (trials_step.gathered), which plan
 * it again every call; a kept one is not. */
static void test_gathered_pick_first(void)
{
    struct trials t;
    trials_reset(&t, 3, false);
    struct trial_outcome first = outcome(0, false, false, 1.0, 1.2);
    first.gathered = true;
    first.choice = "romio:1:nodes";
    trials_record(&t, &first);
    CHECK_EQ(t.ran, 1);
    CHECK_EQ(t.cand[0].trial, 2);
    CHECK(t.cand[0].secs == 1.0);
    CHECK_EQ(trials_before(&t).trial, 1); /* the default: free */
    CHECK(!trials_before(&t).gathered);
    call(&t, 1, false, true, 2.0);
    wait_for_trial(&t, 2.0);
    CHECK_EQ(trials_before(&t).trial, 3);
    struct trial_outcome third = outcome(3, false, false, 0.9, 0.9);
    third.gathered = true;
    third.choice = "bottleneck:4:nodes";
    trials_record(&t, &third);
    wait_for_trial(&t, 2.0);
    CHECK_EQ(trials_before(&t).trial, 4);
    call(&t, 4, false, true, 1.5);
    CHECK_EQ(t.chosen, 3);
    CHECK_EQ(trials_before(&t).trial, 3);
    struct trials_step next = trials_before(&t);
    CHECK(next.gathered && !strcmp(next.gathered, "bottleneck:4:nodes") && !next.learned);
    /* the same with the pick the fastest of none gathered: not named */
    struct trials k;
    static const double secs[5] = {0, 2.0, 0.8, 1.5, 3.0};
    run_trials(&k, secs);
    CHECK(!trials_before(&k).gathered);
    /* a wisdom file's gathered choice, settled on its first call: named
     * from the call after, which plans it again (never kept), as learned */
    trials_reset(&k, 3, false);
    struct trial_outcome remembered = outcome(0, false, false, 1.0, 1.0);
    remembered.learned = remembered.gathered = true;
    remembered.choice = "romio:2:nodes";
    trials_record(&k, &remembered);
    CHECK_EQ(k.chosen, 0);
    CHECK(!trials_before(&k).gathered); /* the next call plans it */
    remembered.learned = false;         /* that call's outcome */
    trials_record(&k, &remembered);
    next = trials_before(&k);
    CHECK(next.gathered && !strcmp(next.gathered, "romio:2:nodes") && next.learned);
}

static void test_kept_choice(void)
{
    struct trials t;
    static const double secs[5] = {0, 2.0, 0.8, 1.5, 3.0}; /* the pick, on its kept schedule */
    int next = run_trials(&t, secs);
    CHECK_EQ(t.chosen, 2);
    CHECK_EQ(t.kept.held, 2);
    CHECK_EQ(next, -1);
    for (int k = 0; k < 5; k++)
        CHECK_EQ(call(&t, 0, true, false, 0.8), -1);
}

/* A settled call of 0.8 ms is drift only when slower by 10 ms or more: a
 * few milliseconds are a shared machine's scheduler, not a new state. */
static void test_drift_floor(void)
{
    struct trials t;
    static const double secs[5] = {0, 0.002, 0.0008, 0.0015, 0.003};
    run_trials(&t, secs);
    CHECK_EQ(t.chosen, 2);
    for (int k = 0; k < 4; k++) /* eleven times slower, 8 ms more */
        CHECK_EQ(call(&t, 0, true, false, 0.0088), -1);
    CHECK_EQ(t.drift.restarts, 0);
    for (int k = 0; k < 2; k++)
        call(&t, 0, true, false, 0.0110);
    CHECK_EQ(t.chosen, 2);
    call(&t, 0, true, false, 0.0110); /* the third in a row 10 ms slower */
    CHECK_EQ(t.chosen, -1);
    CHECK_EQ(t.drift.restarts, 1);
}

/* The first call, the model's pick kept (first_paid seconds; the model
 * rating the default at default_predicted, and seeing it plan as the pick
 * where pick_is_default); then the pick timed on its kept schedule at 1.0
 * s: the trial that follows. A first call of 1.0 s costs what the second
 * does (a plan for nothing: a runner-up need not wait, plan_cost_waits). */
static int after_first(struct trials *t, double first_paid, double default_predicted,
                       bool pick_is_default)
{
    trials_reset(t, 3, false);
    struct trial_outcome o = outcome(0, false, true, 1.0, first_paid);
    o.default_predicted = default_predicted;
    o.pick_is_default = pick_is_default;
    trials_record(t, &o);
    trials_keep_new(t, 0);
    CHECK_EQ(trials_before(t).trial, 2);
    return call(t, 2, true, false, 1.0);
}

static void test_dominated_default(void)
{
    struct trials t;
    CHECK_EQ(after_first(&t, 1.0, 2.5, false), 3); /* the default skipped: the runner-up */
    CHECK_EQ(t.n, 3);                              /* the pick and two runners-up */
    call(&t, 3, false, true, 1.3);
    call(&t, 4, false, true, 1.2);
    CHECK_EQ(t.chosen, 2);
    for (int k = 0; k < 3; k++) /* drift: the trials start over, the default among them */
        call(&t, 0, true, false, 1.6);
    CHECK_EQ(t.drift.restarts, 1);
    CHECK_EQ(t.n, 4);
    CHECK_EQ(trials_before(&t).trial, 1);
    CHECK_EQ(after_first(&t, 1.0, 1.9, false), 1); /* rated under twice: tried */
    CHECK_EQ(after_first(&t, 1.0, 0, false), 1);   /* not rated: tried */
}

/* The default rated unfit for its hosts' memory (AUTO_UNFIT_SECONDS): a
 * trial of it would be killed, so it has none, after a first call whose
 * schedule is not kept (where the default would come next) or kept, nor
 * after a drift's restart; a default rated high but fit keeps its trial
 * there. */
static void test_unfit_default(void)
{
    struct trials t;
    trials_reset(&t, 3, false);
    struct trial_outcome o = outcome(0, false, false, 1.0, 1.0);
    o.default_predicted = AUTO_UNFIT_SECONDS + 0.5;
    trials_record(&t, &o);
    CHECK(t.skip.default_skipped);
    CHECK_EQ(trials_before(&t).trial, 2); /* the pick, not the default */
    CHECK_EQ(after_first(&t, 1.0, AUTO_UNFIT_SECONDS + 0.5, false), 3);
    call(&t, 3, false, true, 1.3);
    call(&t, 4, false, true, 1.2);
    CHECK_EQ(t.chosen, 2);
    for (int k = 0; k < 3; k++) /* drift: the trials start over without it */
        call(&t, 0, true, false, 1.6);
    CHECK_EQ(t.drift.restarts, 1);
    CHECK_EQ(t.n, 3);
    CHECK(trials_before(&t).trial != 1);
    CHECK_EQ(after_first(&t, 1.0, 0.5 * AUTO_UNFIT_SECONDS, false), 3); /* dominated... */
    trials_reset(&t, 3, false);
    o.default_predicted = 0.5 * AUTO_UNFIT_SECONDS;
    trials_record(&t, &o);
    CHECK_EQ(trials_before(&t).trial, 1); /* ...but not unfit: tried before the pick */
}

/* The first call on the default's path, independent I/O (the hints'
 * rule), first_paid seconds: the default's trial follows. */
static void first_independent(struct trials *t, double first_paid)
{
    trials_reset(t, 3, false);
    struct trial_outcome o = outcome(0, false, true, 1.0, first_paid);
    o.independent = true, o.model_pick = false;
    trials_record(t, &o);
    trials_keep_new(t, 0);
    CHECK_EQ(trials_before(t).trial, 1);
}

/* That first call, then the default on independent I/O or not, timed at
 * 1.0 s: whether a pick rated predicted is tried. */
static bool pick_tried(struct trials *t, bool default_independent, double predicted)
{
    first_independent(t, 1.0);
    struct trial_outcome o = outcome(1, false, true, 1.0, 1.0);
    o.independent = default_independent;
    trials_record(t, &o);
    trials_keep_new(t, 1);
    CHECK_EQ(trials_before(t).trial, 2);
    return !trials_pick_dominated(t, predicted);
}

static void test_dominated_pick(void)
{
    struct trials t;
    CHECK(pick_tried(&t, true, 1.9));  /* rated under twice the default: tried */
    CHECK(pick_tried(&t, false, 5.0)); /* the default collective: tried */
    CHECK(!pick_tried(&t, true, 2.0));
    /* its call runs the default's path: the pick and the runners-up dropped */
    struct trial_outcome o = outcome(2, false, true, 1.0, 1.2);
    o.independent = true, o.pick_dominated = true;
    CHECK(trials_record(&t, &o));
    CHECK_EQ(t.chosen, 1);
    CHECK_EQ(t.n, 1);
    CHECK(t.skip.pick_skipped);
    trials_keep_new(&t, 2); /* the call's independent schedule: the default's path */
    CHECK_EQ(t.kept.held, 1);
    CHECK_EQ(trials_before(&t).trial, -1);
    CHECK(!trials_pick_dominated(&t, 9.0)); /* settled: nothing to skip */
}

static void test_plan_cost_waits(void)
{
    struct trials t;
    CHECK_EQ(after_first(&t, 3.0, 0, false), 1); /* the default: at once */
    CHECK_EQ(after_first(&t, 3.0, 0, true), -1); /* its place taken by a runner-up */
    CHECK_EQ(t.n, 3);
    CHECK(trials_waiting(&t)); /* a file closed now settles on the pick */
    /* nothing lost yet, the runner-up expected to lose 2.0 s: due once
     * 0.03 of the spent (1.0 s so far) reaches it, after 66 more calls */
    CHECK_EQ(wait_for_trial(&t, 1.0), 66);
    CHECK_EQ(trials_before(&t).trial, 3);
    CHECK(!trials_waiting(&t));
    /* the first call on the default's path (independent I/O), 3.0 s, the
     * default timed at 1.0 s: the model's pick, to be planned, waits too */
    first_independent(&t, 3.0);
    CHECK_EQ(call(&t, 1, false, true, 1.0), -1);
    CHECK_EQ(wait_for_trial(&t, 1.0), 66);
    CHECK_EQ(trials_before(&t).trial, 2);
    /* a plan that costs nothing beyond its settled call: no wait */
    trials_reset(&t, 3, false);
    struct trial_outcome o = outcome(0, false, true, 1.0, 1.0);
    o.pick_is_default = true;
    trials_record(&t, &o);
    trials_keep_new(&t, 0);
    CHECK_EQ(call(&t, 2, true, false, 1.0), 3);
}

static void test_budget_waits(void)
{
    struct trials t;
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    CHECK_EQ(call(&t, 2, true, false, 1.0), 1); /* the pick, then the default at once */
    CHECK_EQ(call(&t, 1, false, true, 2.0), -1);
    CHECK_EQ(t.kept.held, 2);
    /* lost 1.0 s of 3.0 spent, and the next expected to lose 1.0 s as
     * well: due once 0.03 of the spent reaches 2.0, after 64 calls of
     * 1.0 s on the pick's kept schedule (31 if only the loss so far were
     * paid) */
    CHECK_EQ(wait_for_trial(&t, 1.0), 64);
    CHECK_EQ(trials_before(&t).trial, 3);
    CHECK_EQ(t.chosen, -1);
    /* a runner-up within the budget, confirmed on its kept schedule: the
     * next follows at once (what is kept is no longer the fastest's) */
    CHECK_EQ(call(&t, 3, false, true, 1.001), 3);
    CHECK_EQ(call(&t, 3, true, false, 1.001), 4);
    call(&t, 4, false, true, 0.9); /* the last: it wins and is kept */
    CHECK_EQ(t.chosen, 4);
    CHECK_EQ(t.kept.held, 4);

    /* a trial's planning counts against the budget too: the default at
     * 1.12 s settled, but its call planned and took 1.5 s (lost 0.5 of
     * 2.5), waits until 0.03 of the spent reaches 0.5 twice: 31 calls */
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    CHECK_EQ(call(&t, 2, true, false, 1.0), 1);
    CHECK_EQ(call_paying(&t, 1, false, true, 1.12, 1.5), -1);
    CHECK_EQ(wait_for_trial(&t, 1.0), 31);

    /* trials that cost little run back to back */
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    CHECK_EQ(call(&t, 2, true, false, 1.0), 1);
    CHECK_EQ(call(&t, 1, false, true, 1.02), 1); /* each confirmed */
    CHECK_EQ(call(&t, 1, true, false, 1.02), 3);
    CHECK_EQ(call(&t, 3, false, true, 1.01), 3);
    CHECK_EQ(call(&t, 3, true, false, 1.01), 4);

    /* the fastest's schedule not kept (node aggregation): nothing to wait
     * on that is the fastest's, so the trials go on at once */
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    CHECK_EQ(call(&t, 2, true, false, 1.0), 1);
    CHECK_EQ(call(&t, 1, false, false, 0.8), 3);
}

static void test_warm_retimed(void)
{
    struct trials t;
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    CHECK_EQ(call(&t, 2, true, false, 1.3), 1); /* the pick, cold */
    CHECK_EQ(call(&t, 1, false, true, 2.0), -1);
    for (int k = 0; k < 4; k++) /* the pick's kept schedule, warm */
        CHECK_EQ(call(&t, 0, true, false, 1.0), -1);
    CHECK(t.cand[0].secs == 1.0);                /* slot 0: the pick */
    CHECK_EQ(call(&t, 0, true, false, 5.0), -1); /* one call the scheduler delayed */
    CHECK(t.cand[0].secs == 1.0);
    CHECK(wait_for_trial(&t, 1.0) > 0);
    CHECK_EQ(trials_before(&t).trial, 3);
    call(&t, 3, false, false, 1.2); /* not kept: no confirmation */
    wait_for_trial(&t, 1.0);
    call(&t, 4, false, true, 2.0);
    CHECK_EQ(t.chosen, 2);
    CHECK_EQ(t.kept.held, 2); /* its schedule still kept: not planned again */
    CHECK(!t.kept.replan);
}

/* A planned trial within CONFIRM_BAND of the fastest is timed again on
 * its kept schedule by the next call, and that time is compared: its
 * planned call pays the new schedule's first exchange, which the pick's
 * kept call did not. */
static void test_confirm(void)
{
    struct trials t;
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    CHECK_EQ(call(&t, 2, true, false, 1.0), 1);
    CHECK_EQ(call(&t, 1, false, true, 1.03), 1); /* within 10%: confirmed next */
    CHECK(trials_before(&t).on_kept);
    CHECK_EQ(t.kept.held, 1);                     /* its schedule kept for that */
    CHECK_EQ(call(&t, 1, true, false, 0.97), -1); /* faster settled than the pick */
    CHECK_EQ(t.kept.held, 1);
    wait_for_trial(&t, 0.97); /* (the budget) */
    CHECK_EQ(trials_before(&t).trial, 3);
    CHECK_EQ(call(&t, 3, false, true, 1.2), -1); /* outside the band: once */
    wait_for_trial(&t, 0.97);                    /* (the budget) */
    CHECK_EQ(trials_before(&t).trial, 4);
    CHECK_EQ(call(&t, 4, false, true, 0.96), -1); /* the fastest: not confirmed */
    CHECK_EQ(t.chosen, 4);
    CHECK(!t.kept.replan);

    /* confirmed slower: the pick wins on its own schedule, which the file
     * set aside for the confirmation, and is not planned again */
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    call(&t, 2, true, false, 1.0);
    call(&t, 1, false, true, 1.03);
    CHECK_EQ(t.kept.aside, 2);
    CHECK_EQ(t.kept.held, 1);
    CHECK_EQ(call(&t, 1, true, false, 1.05), -1); /* lost: the pick's schedule back */
    CHECK(t.kept.restore);
    CHECK_EQ(t.kept.aside, 0);
    CHECK_EQ(t.kept.held, 2);
    wait_for_trial(&t, 1.0); /* on the pick's schedule, the fastest's: the budget */
    CHECK_EQ(trials_before(&t).trial, 3);
    call(&t, 3, false, true, 1.2);
    wait_for_trial(&t, 1.0);
    CHECK_EQ(call(&t, 4, false, true, 1.09), 4); /* the last, within the band */
    CHECK_EQ(t.chosen, -1);
    CHECK_EQ(call(&t, 4, true, false, 1.09), -1); /* then settled: the pick, kept */
    CHECK_EQ(t.chosen, 2);
    CHECK_EQ(t.kept.held, 2);
    CHECK(!t.kept.replan);

    /* confirmed faster: its schedule stays, the one set aside goes */
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    call(&t, 2, true, false, 1.0);
    call(&t, 1, false, true, 1.03);
    call(&t, 1, true, false, 0.95);
    CHECK(!t.kept.restore);
    CHECK_EQ(t.kept.aside, 0);
    CHECK_EQ(t.kept.held, 1);

    /* the pick timed on its kept schedule without the 0.2 s agreement
     * that checked it fits: the band reaches 0.2 s further */
    for (int check = 0; check < 2; check++) {
        trials_reset(&t, 3, false);
        call(&t, 0, false, true, 9.0);
        struct trial_outcome o = outcome(2, true, false, 1.0, 1.2);
        o.check = check ? 0.2 : 0;
        trials_record(&t, &o);
        CHECK_EQ(trials_before(&t).trial, 1);
        CHECK_EQ(call(&t, 1, false, true, 1.25), check ? 1 : -1);
    }
}

/* The phase through a shape's life: off without trials; the first call,
 * then timing, a confirmation and timing again, settled; one slow call
 * drifted and a fast one settled again; three slow in a row start the
 * trials over (timing, the first call's step skipped: the shape's kept
 * schedule is there). */
static void test_phases(void)
{
    struct trials t;
    trials_reset(&t, 0, false);
    CHECK_EQ(t.phase, TRIALS_OFF);
    CHECK_EQ(trials_before(&t).trial, -1);
    CHECK(!trials_record(&t, &(struct trial_outcome){.trial = 0, .label = "plan"}));
    trials_reset(&t, 3, false);
    CHECK_EQ(t.phase, TRIALS_FIRST);
    CHECK_EQ(call(&t, 0, false, true, 9.0), 2);
    CHECK_EQ(t.phase, TRIALS_TIMING);
    CHECK_EQ(call(&t, 2, true, false, 1.0), 1);
    CHECK_EQ(call(&t, 1, false, true, 1.03), 1); /* within the band */
    CHECK_EQ(t.phase, TRIALS_CONFIRM);
    CHECK_EQ(call(&t, 1, true, false, 1.05), -1); /* lost: the budget's wait */
    CHECK_EQ(t.phase, TRIALS_TIMING);
    wait_for_trial(&t, 1.0);
    call(&t, 3, false, true, 1.5);
    wait_for_trial(&t, 1.0);
    call(&t, 4, false, true, 1.6);
    CHECK_EQ(t.phase, TRIALS_SETTLED);
    CHECK_EQ(t.chosen, 2);
    CHECK_EQ(call(&t, 0, true, false, 2.0), -1); /* 1.5x and 10 ms slower */
    CHECK_EQ(t.phase, TRIALS_DRIFTED);
    call(&t, 0, true, false, 1.0);
    CHECK_EQ(t.phase, TRIALS_SETTLED);
    for (int k = 0; k < 3; k++)
        call(&t, 0, true, false, 2.0);
    CHECK_EQ(t.phase, TRIALS_TIMING);
    CHECK_EQ(t.drift.restarts, 1);
    CHECK_EQ(trials_before(&t).trial, 1); /* the default, planned */
}

static void test_pick_far_behind(void)
{
    struct trials t;
    trials_reset(&t, 3, false);
    CHECK_EQ(call(&t, 0, false, true, 9.0), 2);
    CHECK_EQ(call(&t, 2, true, false, 1.6), 1); /* the pick, on its kept schedule */
    call(&t, 1, false, true, 1.0);              /* the default: the pick ran 1.6x it */
    CHECK_EQ(t.phase, TRIALS_SETTLED);
    CHECK_EQ(t.chosen, 1);
    CHECK_EQ(t.n, 2); /* no runner-up left */
    trials_reset(&t, 3, false);
    call(&t, 0, false, true, 9.0);
    call(&t, 2, true, false, 1.4);
    call(&t, 1, false, true, 1.0);
    CHECK(trials_trying(&t));
    CHECK_EQ(t.n, 4); /* the pick, the default and both runners-up */
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_phases();
    test_node_aggregated_choice();
    test_gathered_pick_first();
    test_kept_choice();
    test_drift_floor();
    test_budget_waits();
    test_dominated_default();
    test_unfit_default();
    test_dominated_pick();
    test_plan_cost_waits();
    test_confirm();
    test_warm_retimed();
    test_pick_far_behind();
    return check_report("test_trials_state");
}
