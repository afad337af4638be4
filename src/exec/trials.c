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
/* ...and by at least this much a call: a shared machine's scheduler takes a
 * process off its core for a few milliseconds at a time, which triples a
 * call of a hundred microseconds without anything having drifted (the
 * MPICH one-rank trials test restarted so under CI's load); a restart
 * costs several trial calls, which so small a slowdown never repays. */
#define DRIFT_FLOOR_SECS 0.01
/* The model's pick (trial 2) this much slower than the default (trial 1):
 * the model's runners-up, which it rates slower still, are not tried.
 * Where the rule sends a shape to independent I/O and collective buffering
 * costs several times as much (bench/io/repeat: cube, struct's reads),
 * three such trials cost more than 20 calls can win back. */
#define FAR_FACTOR 1.5
/* The default rated by the model at this many times the pick's measured
 * time or more: its trial is not run. The model's worst pessimism on
 * romio's plans at paper scale is 1.49x (`bench/smpi/run summary model`),
 * so a default so rated would run at least 1.34x the pick; where the
 * model rates the machine optimistically (bench/io's 4 ranks on 2 cores:
 * measured times 1.5-10x its seconds) the default is always tried.
 * Under SMPI the fat tree's and the dragonfly's default ran at twice the
 * pick's time: most of what auto lost there over 20 calls. The same
 * bound the other way round: where the default ran independent I/O, a
 * pick the model rates at this many times the default's measured time
 * or more runs slower than it, and is not tried (trials_pick_dominated).
 * On Open MPI 5 at 4 ranks on two cores, cube's read: the default's
 * independent call took 0.8 ms, the pick, rated 2.6 ms, 9.5 ms. */
#define DOMINATED_FACTOR 2.0
/* Trials pay for themselves: after the first two (the model's pick and the
 * default: trial_free), the next trial runs only while what the
 * trials so far cost beyond the fastest of them (their whole calls,
 * planning included, against the fastest's settled time), and what it is
 * expected to cost (expected_loss), are at most this share of the seconds
 * the shape's calls have taken since the trials began; until then the
 * fastest's kept schedule serves. A shape repeated 20 times then runs the
 * trials that cost little, and one repeated 200 times all of them, late:
 * the goal, auto within 3% of the best fixed choice at 20 calls. */
#define TRIAL_BUDGET 0.03

/* A planned trial's call pays what a settled call of it does not: the new
 * schedule's first exchange (stage 3) and its descriptors in the shuffle.
 * Under SMPI one plan timed 3% slower planned than on its kept schedule
 * (cube 64 scattered: 2424 against 2348 us), and the model's pick, timed
 * on its kept schedule, won over runners-up that run 2-4% faster settled
 * (cube 125: romio at one a host over bottleneck at two; btio 100). A
 * planned trial timed within this factor of the fastest is timed again on
 * its kept schedule by the next call, and that time is the one compared:
 * one call at nearly the fastest's speed, where a wrong choice costs its
 * difference on every call after. */
#define CONFIRM_BAND 1.10

void trials_reset(struct trials *t, int64_t auto_trials, bool independent)
{
    memset(t, 0, sizeof *t);
    t->chosen = -1;
    if (auto_trials <= 0)
        return;
    t->phase = TRIALS_FIRST;
    int most = auto_trials < AUTO_TRIALS_MAX ? (int)auto_trials : AUTO_TRIALS_MAX;
    t->asked = most;
    /* The first call runs the model's pick (trial 0) untimed: it pays for
     * what every later call finds ready (windows, the file's pages); then
     * the default, the model's pick and its runners-up, one call each (the
     * pick first, on the first call's schedule, where it was kept:
     * pick_first; a planned one close to the fastest a second call, on its
     * kept schedule: CONFIRM_BAND). */
    for (int k = 1; k <= most + 1; k++)
        t->cand[t->n++].trial = k;
    if (independent)
        t->cand[t->n++].trial = AUTO_TRIAL_INDEPENDENT;
}

static bool settled(const struct trials *t)
{
    return t->phase == TRIALS_SETTLED || t->phase == TRIALS_DRIFTED;
}

/* The fastest timed candidate's slot (0 when none is timed). */
static int fastest(const struct trials *t)
{
    int best = 0;
    for (int i = 1; i < t->ran; i++)
        best = t->cand[i].secs < t->cand[best].secs ? i : best;
    return best;
}

/* Where trial's candidate is in cand[]; -1 for the untimed first call. */
static int slot_of(const struct trials *t, int trial)
{
    for (int i = 0; trial && i < t->n; i++)
        if (t->cand[i].trial == trial)
            return i;
    return -1;
}

/* Whether trial's candidate has been timed. */
static bool timed(const struct trials *t, int trial)
{
    int i = slot_of(t, trial);
    return i >= 0 && i < t->ran;
}

/* What the next trial is expected to lose: what the timed calls that were
 * not the fastest lost on average (lost, all told), and before any has
 * lost, what the shape's first call took beyond the fastest timed call
 * (a new plan's first call pays its planning and, on a real machine, its
 * buffers' and windows' first touch: a planned trial pays about as much
 * unless it wins it back later; on one host, bench/io's btio at 4 ranks,
 * a runner-up run at once cost 6-8% of 20 calls' total). The budget is
 * paid before a trial runs, not after, so that one more trial does not
 * take the trials past it: without this, 20 writes of ior1 at 64
 * simulated ranks (bench/smpi) ran a third runner-up on the 18th, 0.7 ms
 * over the 1.6 ms choice, and auto's total was 0.96 of the best fixed
 * choice's (0.98 with it). */
static double expected_loss(const struct trials *t, double lost)
{
    if (t->budget.calls > 1)
        return lost / (t->budget.calls - 1);
    double first_over = t->budget.first_paid - t->cand[fastest(t)].secs;
    return first_over > 0 ? first_over : 0;
}

/* The trials every shape runs at once: the first, and the default (the
 * rule that auto is never slower than the default needs its time) after
 * the pick on the schedule the first call kept. The model's pick planned
 * after the default, or a runner-up in the default's place (the default
 * plans as the pick, or the model rates it dominated), waits for the
 * budget like any other. */
static bool trial_free(const struct trials *t)
{
    return t->ran == 0 || (t->ran == 1 && t->cand[1].trial == 1);
}

/* Whether the next trial has been earned (TRIAL_BUDGET). A wait runs the
 * kept schedule, so it waits only when that is the fastest trial's. */
static bool trial_due(const struct trials *t)
{
    if (trial_free(t))
        return true;
    int best = fastest(t);
    if (t->cand[best].trial != t->kept.held)
        return true;
    double lost = t->budget.paid - t->budget.calls * t->cand[best].secs;
    return lost + expected_loss(t, lost) <= TRIAL_BUDGET * t->budget.spent;
}

/* The trial the next call runs, or -1: the kept schedule serves. */
static int next_trial(const struct trials *t)
{
    switch (t->phase) {
    case TRIALS_OFF:
        return -1;
    case TRIALS_CONFIRM:
        return t->confirm;
    case TRIALS_FIRST:
    case TRIALS_TIMING:
        return t->ran < t->n && trial_due(t) ? t->cand[t->ran].trial : -1;
    default:
        return t->kept.replan ? t->chosen : -1;
    }
}

/* Whether the next trial runs on the kept schedule (the model's pick the
 * first call planned, or a planned trial to be confirmed), timed but not
 * planned again. */
static bool next_on_kept(const struct trials *t)
{
    return t->phase == TRIALS_CONFIRM || (trials_trying(t) && t->kept.first && t->ran < t->n &&
                                          t->cand[t->ran].trial == t->kept.first);
}

/* The settled choice's name where it gathers its hosts' data first and
 * the next call plans it (trials_step.gathered). */
static const char *gathered_choice(const struct trials *t, bool *learned)
{
    if (!settled(t) || !t->kept.replan || next_trial(t) != t->chosen)
        return NULL;
    int i = slot_of(t, t->chosen);
    *learned = i < 0; /* a remembered choice: no trial timed it */
    if (*learned)
        return t->learned.gathered ? t->learned.choice : NULL;
    return t->cand[i].gathered ? t->cand[i].choice : NULL;
}

struct trials_step trials_before(const struct trials *t)
{
    struct trials_step step = {.trial = next_trial(t), .on_kept = next_on_kept(t)};
    step.gathered = gathered_choice(t, &step.learned);
    return step;
}

bool trials_waiting(const struct trials *t)
{
    return trials_trying(t) && t->ran >= 1 && t->ran < t->n && next_trial(t) < 0;
}

bool trials_pick_dominated(const struct trials *t, double predicted)
{
    int d = slot_of(t, 1);
    return trials_trying(t) && t->skip.default_independent && timed(t, 1) &&
           predicted >= DOMINATED_FACTOR * t->cand[d].secs;
}

/* Whether this rank says what auto chose (TACIO_PRINT_CHOICE; rank 0's). */
static bool saying(int rank)
{
    const char *say = getenv("TACIO_PRINT_CHOICE");
    return rank == 0 && say && strcmp(say, "0");
}

/* The timed candidates, best starred, and the trials the rules left out. */
static void say_timed(const struct trials *t, int best)
{
    for (int i = 0; i < t->ran; i++) {
        const struct candidate *c = &t->cand[i];
        fprintf(stderr, "tacio:   %s %.6f s measured%s, %.6f s predicted: %s\n",
                i == best ? "*" : " ", c->secs, c->on_kept ? " on its kept schedule" : "",
                c->predicted, c->label);
    }
    if (t->skip.default_skipped && t->skip.default_predicted >= AUTO_UNFIT_SECONDS)
        fprintf(stderr, "tacio:     the default not tried: its aggregators do not fit their "
                        "hosts' free memory\n");
    else if (t->skip.default_skipped)
        fprintf(stderr, "tacio:     the default not tried: %.6f s predicted\n",
                t->skip.default_predicted);
    if (t->skip.pick_skipped)
        fprintf(stderr,
                "tacio:     the model's candidates not tried: the pick rated %.0fx the "
                "default's time or more\n",
                DOMINATED_FACTOR);
}

/* All candidates timed: the fastest wins, on the schedule kept
 * (trials_keep_new kept the fastest: this last call's, if it won and can
 * be kept) or planned once more; TACIO_PRINT_CHOICE says so. */
static void settle(struct trials *t, const struct trial_outcome *o)
{
    int best = fastest(t);
    t->phase = TRIALS_SETTLED;
    t->chosen = t->cand[best].trial;
    t->drift.secs = t->cand[best].secs;
    bool kept_now = !o->reused && o->keepable && o->trial == t->chosen;
    t->kept.replan = t->kept.held != t->chosen && !kept_now;
    if (!saying(o->rank))
        return;
    fprintf(stderr, "tacio: auto on %s (%s): %d candidates timed\n", o->path, o->op, t->n);
    say_timed(t, best);
}

void trials_say_unsettled(const struct trials *t, int rank, const char *path, const char *op)
{
    if (!trials_trying(t) || t->ran < 1 || !saying(rank))
        return;
    fprintf(stderr,
            "tacio: auto on %s (%s): %d of %d candidates timed, not settled when the file "
            "closed (the fastest so far served the calls after)\n",
            path, op, t->ran, t->n);
    say_timed(t, fastest(t));
}

/* A remembered choice's first call: settled, on the schedule it made; its
 * time for drift is its first call on that schedule (this one paid for
 * what the later calls find ready). */
static void settle_learned(struct trials *t, const struct trial_outcome *o)
{
    t->phase = TRIALS_SETTLED;
    t->chosen = o->trial;
    t->kept.replan = false;
    t->drift.secs = 0;
    t->learned.gathered = o->gathered;
    snprintf(t->learned.choice, sizeof t->learned.choice, "%s", o->choice);
    if (saying(o->rank))
        fprintf(stderr, "tacio: auto on %s (%s): the wisdom file's choice, no trials: %s\n",
                o->path, o->op, o->label);
}

/* No runner-up of the model's after slot i's is worth a call (auto has
 * none, or its pick ran far behind the default): the default and
 * independent I/O, where they follow, move up. */
static void drop_runners_up_after(struct trials *t, int i)
{
    int n = i + 1;
    for (int k = i + 1; k < t->n; k++)
        if (t->cand[k].trial < 3 || t->cand[k].trial == AUTO_TRIAL_INDEPENDENT)
            t->cand[n++] = t->cand[k];
    t->n = n;
}

/* The candidate in slot d taken out: its trial will not run. */
static void drop_slot(struct trials *t, int d)
{
    memmove(t->cand + d, t->cand + d + 1, sizeof *t->cand * (size_t)(t->n - d - 1));
    t->n--;
}

/* The default rated unfit for its hosts' memory (AUTO_UNFIT_SECONDS: the
 * kernel would kill its trial) taken out of the trials, from the first
 * and again after a drift's restart; rated: the model's seconds for it. */
static void drop_unfit_default(struct trials *t, double rated)
{
    int d = slot_of(t, 1);
    if (d < 0 || rated < AUTO_UNFIT_SECONDS)
        return;
    drop_slot(t, d);
    t->skip.default_skipped = true;
    t->skip.default_predicted = rated;
}

/* The pick (slot i) just timed: the default's trial, still to come, is
 * dropped when the model rates it DOMINATED_FACTOR times that or more. */
static void skip_dominated_default(struct trials *t, int i)
{
    int d = slot_of(t, 1);
    double rated = t->skip.default_predicted;
    if (d <= i || !rated || rated < DOMINATED_FACTOR * t->cand[i].secs)
        return;
    drop_slot(t, d);
    t->skip.default_skipped = true;
}

/* The model's pick (trial 2) timed FAR_FACTOR slower than the default. */
static bool pick_far_behind(const struct trials *t)
{
    return timed(t, 1) && timed(t, 2) &&
           t->cand[slot_of(t, 2)].secs > FAR_FACTOR * t->cand[slot_of(t, 1)].secs;
}

/* The pick's call ran the default's path (trials_pick_dominated): neither
 * the pick nor its runners-up, which the model rates no faster beyond its
 * margin, are tried; the call paid towards the trials. */
static void skip_dominated_pick(struct trials *t, const struct trial_outcome *o)
{
    int i = slot_of(t, 2);
    t->budget.spent += o->paid;
    t->skip.pick_skipped = true;
    if (i < 0)
        return;
    drop_runners_up_after(t, i);
    drop_slot(t, i);
}

/* The model's pick (trial 2), which the first call (o) planned, moved to
 * the front of the trials under that call's label and choice, and the
 * default's trial dropped where it plans as the pick does; false where
 * the pick has no trial. */
static bool pick_to_front(struct trials *t, const struct trial_outcome *o)
{
    int i = slot_of(t, 2);
    if (i < 0)
        return false;
    struct candidate pick = {.trial = 2, .predicted = o->predicted};
    snprintf(pick.label, sizeof pick.label, "%s", o->label);
    snprintf(pick.choice, sizeof pick.choice, "%s", o->choice);
    memmove(t->cand + 1, t->cand, sizeof *t->cand * (size_t)i);
    t->cand[0] = pick;
    int d = slot_of(t, 1);
    if (o->pick_is_default && d > 0)
        drop_slot(t, d);
    t->skip.default_predicted = o->default_predicted;
    return true;
}

/* The first call planned the model's pick (o) and kept its schedule: the
 * pick's trial comes first, on that schedule, under the first call's
 * label and choice (a reused call plans nothing to name); the default's
 * goes where it plans alike (the first call followed the default's rule to
 * collective buffering, and the model sees the same plan): its time would
 * be the pick's again, at the cost of a plan. */
static void pick_first(struct trials *t, const struct trial_outcome *o)
{
    if (!pick_to_front(t, o))
        return;
    t->kept.first = 2;
    t->skip.pick_last = o->last_candidate;
}

bool trials_keep_new(struct trials *t, int trial)
{
    if (t->phase == TRIALS_CONFIRM && trial == t->confirm) { /* to be timed on it next */
        t->kept.aside = t->kept.held;
        t->kept.held = trial;
        return true;
    }
    int i = slot_of(t, trial), h = slot_of(t, t->kept.held);
    if (i < 0 || i >= t->ran) /* no timed trial: the first call, a replan */
        return true;
    if (h >= 0 && h < t->ran && t->cand[h].secs <= t->cand[i].secs)
        return false;
    t->kept.held = trial;
    return true;
}

/* A settled call: slower than the choice was when it won (DRIFT_FACTOR
 * times and DRIFT_FLOOR_SECS more), DRIFT_CALLS calls in a row, and the
 * trials start over (bounded by TRIALS_RESTARTS), the default's trial
 * first: the shape's kept schedule is there. */
static void watch_drift(struct trials *t, const struct trial_outcome *o)
{
    if (!t->drift.secs) {
        t->drift.secs = o->slowest;
        return;
    }
    bool slow =
        o->slowest > DRIFT_FACTOR * t->drift.secs && o->slowest - t->drift.secs >= DRIFT_FLOOR_SECS;
    t->drift.slow = slow ? t->drift.slow + 1 : 0;
    t->phase = slow ? TRIALS_DRIFTED : TRIALS_SETTLED;
    if (t->drift.slow >= DRIFT_CALLS && t->drift.restarts < TRIALS_RESTARTS) {
        int restarts = t->drift.restarts + 1; /* counted per shape: a new one resets it */
        bool independent = t->cand[t->n - 1].trial == AUTO_TRIAL_INDEPENDENT;
        double rated = t->skip.default_predicted;
        trials_reset(t, t->asked, independent); /* the default too, if skipped... */
        drop_unfit_default(t, rated);           /* ...unless it does not fit */
        t->phase = TRIALS_TIMING;
        t->drift.restarts = restarts;
    }
}

/* Whether the planned trial just timed in slot i is close enough to the
 * fastest so far to be timed again on its kept schedule (CONFIRM_BAND):
 * not where it is the fastest (its planned call only overstates it), nor
 * where its schedule cannot be kept, nor independent I/O. A fastest timed
 * on its kept schedule is timed without the agreement that checked it
 * fits, and a planned call has none such: the band reaches that much
 * further (under SMPI at 512 ranks the check was 0.13 ms of a 0.73 ms
 * call, and romio's pick, so timed, ran 3.5% slower settled than
 * bottleneck's planned trial, timed 17% slower). */
static bool worth_confirming(const struct trials *t, const struct trial_outcome *o, int i)
{
    int best = fastest(t);
    return o->keepable && !o->independent && best != i &&
           t->cand[i].secs <= CONFIRM_BAND * t->cand[best].secs + t->cand[best].check;
}

/* Slot i timed by the call o (on its kept schedule or not), and the call
 * paid towards the trials (TRIAL_BUDGET). */
static void time_slot(struct trials *t, int i, const struct trial_outcome *o, bool on_kept)
{
    struct candidate *c = &t->cand[i];
    c->secs = o->slowest;
    c->on_kept = on_kept;
    c->gathered = o->gathered;
    c->check = o->check;
    t->recent.of = 0; /* a trial timed: the held one's calls counted afresh */
    t->budget.paid += o->paid;
    t->budget.calls++;
    t->budget.spent += o->paid;
}

/* The middle of the held trial's last three times (of two, their mean);
 * the latest is secs[2]. */
static double recent_middle(const struct trials *t)
{
    const double *r = t->recent.secs;
    if (t->recent.n < 3)
        return (r[1] + r[2]) / 2;
    double lo = r[0] < r[1] ? r[0] : r[1], hi = r[0] < r[1] ? r[1] : r[0];
    return r[2] < lo ? lo : r[2] > hi ? hi : r[2];
}

/* A call on the kept schedule while the next trial waits ran the held
 * trial's plan again: the held trial's time becomes the middle of its last
 * three calls, its own timed call among them. On a real machine a shape's
 * first calls run slow and speed up over ten or so (Open MPI 4.1.4, btio
 * at 4 ranks on /dev/shm, romio fixed: the second call 25-35% over the
 * median, the next five 5-20%), so the pick, timed on the second call,
 * lost to runners-up timed later on a warm machine (tsujita at 4 a host,
 * 10% slower fixed, won btio's 200-call write in nine runs of eleven). The
 * middle, not the latest (one call the scheduler delayed, just before a
 * trial, handed a read to independent I/O) nor the fastest (a candidate
 * timed more often would be favoured by its luckiest call). Under SMPI
 * the kept schedule's calls take what its trial took. */
static void retime_held(struct trials *t, const struct trial_outcome *o)
{
    int i = t->kept.held ? slot_of(t, t->kept.held) : -1;
    t->budget.spent += o->paid;
    if (i < 0 || i >= t->ran)
        return;
    double *r = t->recent.secs;
    if (t->recent.of != t->kept.held) {
        t->recent.of = t->kept.held;
        r[2] = t->cand[i].secs;
        t->recent.n = 1;
    }
    r[0] = r[1], r[1] = r[2], r[2] = o->slowest;
    t->recent.n += t->recent.n < 3;
    t->cand[i].secs = recent_middle(t);
}

/* The trials' last candidate timed (and confirmed): settle on the fastest. */
static bool settle_when_done(struct trials *t, const struct trial_outcome *o)
{
    if (t->ran < t->n || t->phase == TRIALS_CONFIRM)
        return false;
    settle(t, o);
    return true;
}

/* The confirmation timed: the schedule set aside for it comes back when
 * its trial is still the fastest, so a runner-up that lost its
 * confirmation costs no plan of the fastest again (under SMPI, btio at 100
 * ranks: a planned call, 11% over a settled one). */
static void end_confirmation(struct trials *t)
{
    t->phase = TRIALS_TIMING;
    t->confirm = 0;
    t->kept.restore = t->kept.aside && t->cand[fastest(t)].trial == t->kept.aside;
    if (t->kept.restore)
        t->kept.held = t->kept.aside;
    t->kept.aside = 0;
}

/* The first call planned the model's pick (o) with its hosts' data
 * gathered, whose schedule is never kept (every call of it plans, and the
 * file keeps its shape alone: coll.c's keep_shape_only): that call is the
 * pick's trial, timed as its every call would be, and the default's
 * follows; a trial call of its own would time the same plan again
 * (bench/smpi, btio at 100 ranks: that call, and a wait on the default's
 * schedule before it, cost 2.6 ms of a 20-call run's 300). */
static void pick_timed_first(struct trials *t, const struct trial_outcome *o)
{
    if (!pick_to_front(t, o))
        return;
    time_slot(t, 0, o, false);
    t->ran = 1;
    if (o->last_candidate)
        drop_runners_up_after(t, 0);
}

/* A call that timed no candidate: the shape's first, a settled choice
 * planned again, or one planned while a trial waits. The first call's
 * model pick leads the trials: on its kept schedule (pick_first), or, its
 * hosts gathered and so never kept, timed by that call (pick_timed_first). */
static bool record_untimed(struct trials *t, const struct trial_outcome *o)
{
    t->kept.replan = false; /* a settled choice planned again: kept from now on */
    if (!trials_trying(t) || o->trial || t->ran)
        return false;
    t->budget.first_paid = o->paid;
    if (o->model_pick)
        drop_unfit_default(t, o->default_predicted);
    if (t->kept.first || !o->model_pick)
        return false;
    if (o->keepable)
        pick_first(t, o);
    else if (o->gathered) {
        pick_timed_first(t, o);
        return settle_when_done(t, o);
    }
    return false;
}

/* A call that ran a candidate's trial (planned, or on its kept schedule:
 * on_kept) and timed it. */
static bool record_timed(struct trials *t, int i, const struct trial_outcome *o, bool on_kept)
{
    if (o->trial == 1)
        t->skip.default_independent = o->independent;
    if (o->trial == 1 && o->independent && t->cand[t->n - 1].trial == AUTO_TRIAL_INDEPENDENT)
        t->n--; /* the default's own path: timed already */
    time_slot(t, i, o, on_kept);
    if (!on_kept) {
        struct candidate *c = &t->cand[i];
        c->predicted = o->predicted;
        snprintf(c->label, sizeof c->label, "%s", o->label);
        snprintf(c->choice, sizeof c->choice, "%s", o->choice);
    }
    t->ran = i + 1;
    if ((on_kept ? t->skip.pick_last : o->last_candidate) || pick_far_behind(t))
        drop_runners_up_after(t, i);
    if (on_kept) { /* the pick's schedule, kept, is timed now */
        t->kept.held = t->kept.first, t->kept.first = 0;
        skip_dominated_default(t, i);
    } else if (worth_confirming(t, o, i)) {
        t->phase = TRIALS_CONFIRM;
        t->confirm = o->trial;
    }
    return settle_when_done(t, o);
}

bool trials_record(struct trials *t, const struct trial_outcome *o)
{
    if (t->phase == TRIALS_OFF)
        return false;
    bool first = t->phase == TRIALS_FIRST;
    if (first)
        t->phase = TRIALS_TIMING; /* whatever the call ran, it was the shape's first */
    if (o->pick_dominated && trials_trying(t)) {
        skip_dominated_pick(t, o);
        return settle_when_done(t, o);
    }
    bool on_kept = o->reused && next_on_kept(t) && o->trial == t->kept.first;
    if (o->reused && t->phase == TRIALS_CONFIRM && o->trial == t->confirm) {
        time_slot(t, slot_of(t, t->confirm), o, true); /* its planned call's time gives way */
        end_confirmation(t);
        return settle_when_done(t, o);
    }
    if (o->reused && !on_kept) { /* the kept schedule: settled, or waiting for a trial */
        if (settled(t))
            watch_drift(t, o);
        else
            retime_held(t, o);
        return false;
    }
    if (o->learned && trials_trying(t) && !t->ran) {
        settle_learned(t, o);
        return false;
    }
    int i = slot_of(t, o->trial);
    if (settled(t) && o->trial == t->chosen && !o->keepable) {
        /* a choice whose schedule is never kept (node aggregation) plans
         * every call; the file's kept schedule, another trial's, only
         * tells that the shape repeats */
        t->kept.replan = true;
        watch_drift(t, o);
        return false;
    }
    if (settled(t) || i < 0)
        return record_untimed(t, o);
    return record_timed(t, i, o, on_kept);
}
