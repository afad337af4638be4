/* auto's trial state (src/exec/trials.c), stepped by hand through the
 * outcomes the engine would report (coll.c's trials_after and
 * keep_schedule), without MPI: which candidate each call runs.
 *   node_aggregated_choice  the fastest trial is one whose schedule is
 *       never kept (node aggregation): every later call plans it again,
 *       rather than run the kept schedule, another trial's; and drift is
 *       watched on those calls as on kept ones.
 *   kept_choice             the fastest trial's schedule was kept: the
 *       calls after the trials run it, planned by none. */
#include "check.h"
#include "exec/trials.h"

#include <stdbool.h>

/* One successful call of trial, as trials_after reports it, then the
 * engine's keep decision for its schedule (keep_schedule); the next call's
 * trial (trials_next: -1 is the kept schedule). */
static int call(struct trials *t, int trial, bool reused, bool keepable, double secs)
{
    struct trial_outcome o = {.trial = trial,
                              .reused = reused,
                              .slowest = secs,
                              .label = "plan",
                              .choice = "",
                              .model_pick = true,
                              .keepable = keepable,
                              .rank = 1, /* not 0: nothing printed */
                              .path = "f",
                              .op = "write"};
    trials_record(t, &o);
    if (keepable)
        trials_keep_new(t, trial);
    return trials_next(t);
}

/* The first call (the model's pick, kept), the pick timed on that kept
 * schedule, then the default and the runners-up 3 and 4 planned, each
 * keepable but trial 3; secs[k]: trial k's time. The next call's trial. */
static int run_trials(struct trials *t, const double secs[5])
{
    trials_reset(t, 3, false);
    CHECK_EQ(call(t, 0, false, true, 9.0), 2);
    CHECK(trials_on_kept(t));
    CHECK_EQ(call(t, 2, true, false, secs[2]), 1);
    CHECK_EQ(call(t, 1, false, true, secs[1]), 3);
    CHECK_EQ(call(t, 3, false, false, secs[3]), 4);
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
    CHECK_EQ(t.restarts, 1);
}

static void test_kept_choice(void)
{
    struct trials t;
    static const double secs[5] = {0, 2.0, 0.8, 1.5, 3.0}; /* the pick, on its kept schedule */
    int next = run_trials(&t, secs);
    CHECK_EQ(t.chosen, 2);
    CHECK_EQ(t.held, 2);
    CHECK_EQ(next, -1);
    for (int k = 0; k < 5; k++)
        CHECK_EQ(call(&t, 0, true, false, 0.8), -1);
}

int main(int argc, char **argv)
{
    (void)argc, (void)argv;
    test_node_aggregated_choice();
    test_kept_choice();
    return check_report("test_trials_state");
}
