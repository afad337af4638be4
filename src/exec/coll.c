#include "coll.h"

#include "cplan.h"
#include "indep.h"
#include "links.h"
#include "nodeagg.h"
#include "profile.h"
#include "rounds.h"

#include <string.h>
#include <sys/stat.h>

/* ---- auto's trials ---- */

/* A call that repeats no kept shape: auto's trials t, its slot's, start
 * over (off unless the strategy is auto and tacio_auto_trials is set). */
static void trials_start(const struct call *c, struct trials *t)
{
    const struct tacio_file *f = c->f;
    bool on = !strcmp(f->hints.core.strategy, "auto");
    /* reads may also try independent I/O where the hints leave the path
     * automatic (writes of the small interleaved pieces the rule buffers
     * would go piece by piece: never a candidate worth a call), in one
     * page cache: there a sieved read's extra bytes are copies, and it won
     * over the rule's buffering (bench/io/repeat, btio's reads); on
     * storage that hosts share they cross it (SMPI, cube at 64 ranks: the
     * trial took ten collective calls' time, 45% of 20 calls) */
    bool independent = !c->is_write && f->hints.cb_read == OPT_AUTOMATIC && f->page_cache;
    trials_reset(t, on ? f->hints.auto_trials : 0, independent);
}

/* Whether the call's new schedule is kept for the next call: not a node
 * aggregation, nor a call with nothing to move (no rounds were laid out,
 * and a kept schedule is run by its rounds). Every rank decides alike: the
 * call succeeded everywhere, and whether a node aggregated is a maximum
 * every rank agreed on. */
static bool schedule_keepable(const struct call *c)
{
    const struct sched *s = c->s;
    return !c->reused && s && s != &c->stub && !c->use.node_aggregated &&
           (s->independent || s->rounds_state);
}

/* Rank 0: the first n candidates t timed, for the wisdom file (the
 * fastest is the shape's choice). */
static void remember_timed(struct learned *l, const struct trials *t, int n)
{
    char choice[AUTO_TRIALS_MAX + 2][WISDOM_CHOICE];
    double secs[AUTO_TRIALS_MAX + 2];
    for (int i = 0; i < n; i++) {
        memcpy(choice[i], t->cand[i].choice, WISDOM_CHOICE);
        secs[i] = t->cand[i].secs;
    }
    learned_settled(l, &t->key, n, (const char(*)[WISDOM_CHOICE])choice, secs);
}

/* A successful call's outcome, for the trials; on rank 0, a settled choice
 * for the wisdom file. */
static void trials_after(struct call *c)
{
    const struct tacio_plan *plan = c->s ? c->s->plan : NULL;
    const char *label = plan                        ? plan->detail
                        : c->s && c->s->independent ? "independent I/O"
                                                    : "no plan";
    bool keepable = schedule_keepable(c);
    /* what a settled call of it would pay (move_us): a schedule gathered on
     * auto's choice cannot be kept and is planned on every call, so its plan
     * counts, all but the pass that chose it (call.choosing_pass); another
     * that cannot be kept (nothing to move, gathered on the hints) pays the
     * whole call */
    int64_t paid_us =
        c->reused || keepable || c->planning.on_nodes ? c->use.move_us : c->use.call_us;
    struct trial_outcome o = {.trial = c->planning.trial,
                              .reused = c->reused,
                              .slowest = (double)paid_us * 1e-6,
                              .paid = (double)c->use.call_us * 1e-6,
                              .check =
                                  c->reused ? (double)(c->use.call_us - c->use.move_us) * 1e-6 : 0,
                              .predicted = plan ? plan->m.model_seconds : 0,
                              .label = label,
                              .choice = c->planning.choice,
                              .learned = c->planning.learned,
                              .independent = c->s && c->s->independent,
                              .last_candidate = c->planning.last_candidate,
                              .model_pick = c->planning.model_pick,
                              .pick_is_default = c->planning.pick_is_default,
                              .default_predicted = (double)c->planning.default_us * 1e-6,
                              .pick_dominated = c->planning.pick_dominated,
                              .keepable = keepable,
                              .gathered = c->use.node_aggregated,
                              .rank = c->f->rank,
                              .path = c->f->path,
                              .op = c->is_write ? "write" : "read"};
    struct trials *t = &c->ks->trials;
    if (!c->reused) { /* a trial settled on a kept schedule keys nothing itself */
        t->keyed = c->planning.keyed;
        t->key = c->planning.key;
    }
    bool settled = trials_record(t, &o);
    struct learned *l = &c->f->learned;
    if (!t->keyed)
        return;
    if (settled)
        remember_timed(l, t, t->n);
    else if (!c->reused && !o.trial && !o.learned) /* a shape's first call */
        learned_first_call(l, &t->key, o.choice, o.slowest, (int)c->f->hints.auto_trials + 1);
}

/* Rank 0: a successful call that ran a plan, for auto's fitted model:
 * its plan's terms against what it paid (move_us: the slowest rank's call
 * less its planning, what the terms price). A call whose hosts gathered
 * first is left out: the plan it ran was made on the gathered accesses,
 * whose terms leave the gathering out. */
static void fit_after(const struct call *c)
{
    const struct tacio_plan *plan = c->s ? c->s->plan : NULL;
    if (!call_fit(c) || !plan || c->s->independent || c->use.node_aggregated || !c->use.agreed)
        return;
    profile_lock();
    fit_observe(call_fit(c), &plan->m.terms, (double)c->use.move_us * 1e-6);
    profile_unlock();
    c->f->learned.observed++;
}

void coll_trials_close(struct tacio_file *f)
{
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < KEPT_SHAPES_MAX; i++) {
            const struct trials *t = &f->kept[w].shape[i].trials;
            /* two timed, or the next one not earned in this run (its length
             * does not pay for it): the next run starts at the fastest */
            if (t->keyed && trials_trying(t) && (t->ran >= 2 || trials_waiting(t)))
                remember_timed(&f->learned, t, t->ran);
            trials_say_unsettled(t, f->rank, f->path, w ? "write" : "read");
        }
}

/* ---- the kept schedules ---- */

/* Whether every rank can run a kept schedule, from its agreed check: every
 * shape the same and one shift; *delta is that shift. */
static bool kept_fits(const int64_t *v, int64_t *delta)
{
    *delta = v[K_HIGH] == NO_SHIFT ? 0 : v[K_HIGH];
    return !v[K_MISMATCH] && (v[K_HIGH] == NO_SHIFT || v[K_HIGH] == -v[K_LOW]);
}

/* The slots a new shape may take: tacio_kept_shapes, at most
 * KEPT_SHAPES_MAX. */
static int kept_slots(const struct tacio_file *f)
{
    return f->hints.kept_shapes < KEPT_SHAPES_MAX ? (int)f->hints.kept_shapes : KEPT_SHAPES_MAX;
}

/* The slots a call checks: up to the last that holds a schedule (the same
 * on every rank: slots fill and empty on agreed values), so that a file
 * of one shape checks one. */
static int kept_span(const struct kept *k)
{
    int n = 0;
    for (int i = 0; i < KEPT_SHAPES_MAX; i++)
        n = k->shape[i].s ? i + 1 : n;
    return n;
}

/* This rank's check of kept schedule s (NULL: a free slot), NKEPT values:
 * whether its access has s's shape, under a shift s's plan allows. */
static bool fits_here(const struct call *c, const struct sched *s, int local, int64_t v[NKEPT])
{
    bool fits = s && !local && sched_same_shape(s, c->a.v.ft, c->a.n, c->a.phase, c->f->digest);
    int64_t shift = fits && c->a.n ? c->a.base - s->base : 0;
    fits = fits && shift % s->align == 0;
    v[K_MISMATCH] = !fits;
    v[K_HIGH] = c->a.n ? shift : NO_SHIFT;
    v[K_LOW] = c->a.n ? -shift : NO_SHIFT;
    return fits;
}

/* Whether slot ks serves its calls by independent I/O, no trial timing
 * them: a rank whose access fits may run its own I/O before agreeing. */
static bool serves_independent(const struct kept_shape *ks)
{
    return ks->s && ks->s->independent && trials_before(&ks->trials).trial < 0;
}

/* This rank's checks of the first n slots (NKEPT values each), and its own
 * I/O where the first slot its access fits serves_independent: its I/O is
 * right whatever the others decide, so a steady loop of such calls costs
 * one collective each, the agreement, which also carries errors. A rank
 * whose I/O ran can take no other slot, and one whose did not cannot take
 * a slot that counts on it (a slot can fit a rank twice: an empty access,
 * or one shape kept under two sets of shifts). Returns local, or the I/O's
 * failure. */
static int check_slots(struct call *c, int local, int n, int64_t *v)
{
    struct kept *k = &c->f->kept[c->is_write];
    int first = -1;
    for (int i = 0; i < n; i++)
        if (fits_here(c, k->shape[i].s, local, v + i * NKEPT) && first < 0)
            first = i;
    int early = first >= 0 && c->a.n && serves_independent(&k->shape[first]) ? first : -1;
    for (int i = 0; i < n; i++)
        v[i * NKEPT + K_MISMATCH] |=
            early >= 0 ? i != early : c->a.n && serves_independent(&k->shape[i]);
    if (early < 0)
        return local;
    c->s = k->shape[early].s;
    c->io.early = c->a.n;
    return indep_run(c);
}

/* The first slot whose agreed check every rank fits (of n), *delta its
 * shift; -1: none. */
static int slot_agreed(const int64_t *v, int n, int64_t *delta)
{
    for (int i = 0; i < n; i++)
        if (kept_fits(v + i * NKEPT, delta))
            return i;
    return -1;
}

/* Whether the check of the kept shape can ride on the call's last
 * agreement instead of one of its own: the file keeps one shape, on which
 * auto settled on a gathered choice, which plans every call on the
 * accesses it is given (what is kept, a schedule of a trial's or a shape
 * alone, only says the shape repeats), so a call whose shape moved still
 * runs right and only the next call need know (it starts over:
 * shape_moved_late). That check was the one collective such a call made
 * beyond the choice run fixed (under SMPI, ior at 64 ranks: 2.346 ms a
 * call against 2.320). Every rank decides alike: the trials are the same
 * everywhere. */
static struct kept_shape *check_rides_along(struct call *c)
{
    struct kept_shape *one = kept_single(&c->f->kept[c->is_write]);
    return one && trials_before(&one->trials).gathered ? one : NULL;
}

/* Whether the check that rode on the call's last agreement found the kept
 * shape moved (on some rank, or by different shifts). */
static bool shape_moved_late(const struct call *c)
{
    int64_t delta;
    return c->check_deferred && (!c->use.agreed || !kept_fits(c->kept_check, &delta));
}

/* The call takes the path of a new schedule: what its rank's own I/O
 * already moved is out of its access. */
static int not_handled(struct call *c, bool *handled)
{
    if (c->io.early)
        access_clear(&c->a);
    c->s = NULL;
    *handled = false;
    return 0;
}

/* Runs the call on one of the file's kept schedules when every rank's
 * access has its shape under one common shift; *handled false when none
 * fits (the new-schedule path follows, on every rank, in the slot the new
 * shape takes), or while auto tries a candidate on the shape that is not
 * its kept schedule (every rank knows alike). */
static int run_kept(struct call *c, int local, bool *handled)
{
    struct kept *k = &c->f->kept[c->is_write];
    if ((c->ks = check_rides_along(c))) {
        c->check_deferred = true;
        fits_here(c, c->ks->s, local, c->kept_check);
        c->planning.trial = trials_before(&c->ks->trials).trial;
        kept_touch(k, c->ks);
        return not_handled(c, handled);
    }
    int n = kept_span(k);
    int64_t v[KEPT_SHAPES_MAX * NKEPT + NPEAKS];
    local = check_slots(c, local, n, v);
    peaks_get(c, v + n * NKEPT);
    double t0 = stage_start(c);
    int rc = agree_max(c->f->comm, local, v, n * NKEPT + NPEAKS);
    c->choosing_pass = stage_add(c, ST_PLAN, t0) - t0; /* the check (call.choosing_pass) */
    int64_t delta = 0;
    int j = rc ? -1 : slot_agreed(v, n, &delta);
    if (rc) { /* coll_run drops every kept schedule */
        *handled = c->reused = true;
        peaks_set(c, v + n * NKEPT);
        c->use.agreed = true;
        return rc;
    }
    c->ks = j >= 0 ? &k->shape[j] : kept_victim(k, kept_slots(c->f));
    kept_touch(k, c->ks);
    if (j < 0) { /* a new shape */
        trials_start(c, &c->ks->trials);
        c->shape_moved = true;
        return not_handled(c, handled);
    }
    struct sched *s = c->ks->s;
    struct trials_step next = trials_before(&c->ks->trials);
    if (next.trial >= 0 || s->shape_only) {
        c->planning.trial = next.trial >= 0 ? next.trial : 0;
        if (s->shape_only || !next.on_kept) /* planned anew */
            return not_handled(c, handled);
    }
    *handled = c->reused = true;
    c->s = s;
    if (s->independent) {
        peaks_set(c, v + n * NKEPT);
        c->use.agreed = true;
        return 0;
    }
    sched_shift(s, delta);
    return rounds_run(c, 0);
}

/* ---- a new schedule ---- */

/* The rounds of a new plan: counts, links, then the rounds themselves. */
static int run_rounds(struct call *c)
{
    double t0 = backend_clock();
    int local = c->planning.rc;
    if (!local && c->s->plan) {
        rounds_count(c);
        local = links_out(c);
    }
    local = local ? local : rounds_prepare(c);
    bool agreed;
    int rc = links_exchange(c, local, &agreed);
    c->route_setup += stage_add(c, ST_ROUTE, t0) - t0;
    return agreed ? rc : rounds_run(c, rc);
}

/* auto chose node aggregation: every node of more than one rank gathers
 * its data on its first rank, and the call plans again on the leaders'
 * accesses (a second pass: a summary gather and the outcome's broadcast,
 * which auto's model charged the node-aggregated candidate). */
static int aggregate_then_plan(struct call *c, int local)
{
    double t0 = backend_clock();
    c->planning.on_nodes = true;
    local = nodeagg_begin(c, local, true);
    t0 = stage_add(c, ST_SHUFFLE, t0);
    int next = plan_call(c, local);
    stage_add(c, ST_PLAN, t0);
    return next;
}

/* Independent I/O, then the agreement that ends the call: its wait for the
 * slowest rank's own I/O counts as I/O. */
static int independent_agreed(struct call *c)
{
    int local = c->planning.rc ? c->planning.rc : indep_run(c);
    double t0 = backend_clock();
    int rc = call_agree_last(c, local);
    stage_add(c, ST_IO, t0);
    return rc;
}

/* Whether the call runs auto's settled choice that gathers its hosts' data
 * first (trials_step.gathered: every rank knows alike): then it gathers
 * at once and plans that choice on the gathered accesses, without the pass
 * on the ranks' own that would only choose it again (under SMPI, btio at
 * 100 ranks: that pass was 0.28 ms of a 7.5 ms call), also where a
 * wisdom file remembered it. The call carries the choice, whether it is
 * the remembered one, and the shape's wisdom key, which only that pass
 * derives. */
static bool gathers_settled(struct call *c)
{
    const struct trials *t = &c->ks->trials;
    struct trials_step next = trials_before(t);
    if (!next.gathered || c->node)
        return false;
    snprintf(c->planning.choice, sizeof c->planning.choice, "%s", next.gathered);
    c->planning.learned = next.learned; /* not a shape's first call (trials_after) */
    c->planning.keyed = t->keyed;
    c->planning.key = t->key;
    return true;
}

static int run_new(struct call *c, int local)
{
    struct sched *s = sched_new();
    if (!s) {
        sched_init(&c->stub);
        s = &c->stub;
        local = local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    c->s = s;
    int rc =
        sched_set_shape(s, c->f->view.ft, c->a.v.ft, c->a.n, c->a.phase, c->a.base, c->f->digest);
    local = local ? local : rc;
    double t0 = stage_add(c, ST_PLAN, stage_start(c)); /* the schedule's shape: planning */
    local = nodeagg_begin(c, local, false);
    t0 = stage_add(c, ST_SHUFFLE, t0); /* handing data to the host's leader is shuffle */
    int next = PLAN_NODE_AGGREGATION;
    if (!gathers_settled(c)) {
        next = plan_call(c, local);
        local = 0; /* agreed in the plan */
    }
    double chosen = stage_add(c, ST_PLAN, t0);
    c->choosing_pass += chosen - t0;
    t0 = chosen;
    if (next == PLAN_NODE_AGGREGATION)
        next = aggregate_then_plan(c, local);
    if (next == PLAN_ROUNDS)
        rc = run_rounds(c);
    else if (next == PLAN_INDEPENDENT)
        rc = independent_agreed(c);
    else
        rc = next == PLAN_NOTHING ? call_agree_last(c, 0) : next;
    t0 = backend_clock();
    rc = nodeagg_end(c, rc);
    stage_add(c, ST_SHUFFLE, t0);
    return rc;
}

/* A node-aggregated call's schedule is never kept (it is planned every
 * call), yet auto's trials need to know that the next call repeats its
 * shape: with nothing kept every call starts them over, and a
 * node-aggregated pick is run on every call, the default never timed
 * (bench/smpi, btio at 100 ranks: 200 calls, no trial). Where nothing else
 * is kept and trials are on, its shape alone is kept (sched.shape_only)
 * until a trial's schedule takes its place; so it is where what is kept is
 * the shape the call moved from, which every later call would otherwise
 * find moved again. */
static void keep_shape_only(struct call *c)
{
    struct kept_shape *ks = c->ks;
    const struct sched *s = c->s;
    if (!c->use.node_aggregated || !ks->trials.n || (ks->s && !c->shape_moved))
        return;
    kept_drop(ks); /* the shape the call moved from */
    struct sched *shape = sched_new();
    if (!shape ||
        sched_set_shape(shape, s->ft_owner, &s->shape, s->n, s->phase, s->base, s->hints)) {
        sched_free(shape); /* only a trial the less: not the call's error */
        return;
    }
    shape->shape_only = true;
    shape->align = 1;
    ks->s = shape;
}

/* A successful call's new schedule becomes its shape's slot's where it is
 * keepable (schedule_keepable), and, while auto's trials run, only while
 * it is the fastest trial's (trials_keep_new). */
static void keep_schedule(struct call *c)
{
    struct kept_shape *ks = c->ks;
    struct sched *s = c->s;
    if (c->reused || s == &c->stub)
        return;
    keep_shape_only(c);
    if (!schedule_keepable(c) || (ks->s && !trials_keep_new(&ks->trials, c->planning.trial))) {
        sched_free(s);
        return;
    }
    s->align = s->plan ? sched_align(s->plan, c->f->hints.core.striping_unit) : 1;
    if (ks->trials.kept.aside) { /* a confirmation's: back if it loses */
        sched_free(ks->aside);
        ks->aside = ks->s;
    } else
        sched_free(ks->s);
    ks->s = s;
}

/* The schedule set aside for a confirmation, once the trials are done with
 * it (trials.kept.aside cleared: timed, or the trials started over): back
 * in place where they say so (trials.kept.restore), else freed. */
static void settle_aside(struct call *c)
{
    struct kept_shape *ks = c->ks;
    struct trials *t = &ks->trials;
    if (!ks->aside || t->kept.aside)
        return;
    if (t->kept.restore) {
        sched_free(ks->s);
        ks->s = ks->aside;
    } else
        sched_free(ks->aside);
    ks->aside = NULL;
    t->kept.restore = false;
}

/* The call's new schedule freed, and the kept ones it leaves behind: after
 * a failure every kept shape's (a schedule may be half run; trials start
 * over on the next call), after a gathered call whose shape moved its
 * slot's (shape_moved_late). */
static void drop_schedules(struct call *c, bool failed)
{
    if (c->s && !c->reused) {
        if (c->s == &c->stub)
            sched_clear(c->s);
        else
            sched_free(c->s);
    }
    if (failed || !c->ks) {
        kept_drop_all(&c->f->kept[c->is_write]);
        return;
    }
    kept_drop(c->ks);
    trials_start(c, &c->ks->trials);
}

/* ---- the entry points ---- */

/* Bytes the call moved for this rank, for its status: all of a write; of a
 * read, the stream up to the end of the file, as an independent read
 * reports it (PnetCDF moves data by that count). A rank whose own reads
 * served it knows where they met the end, also when they ran on a kept
 * schedule before another rank's shape sent the call down a new path
 * (io.early: the rank took part in it with nothing); one served by aggregators
 * asks the file. */
static int64_t transferred(struct call *c)
{
    if (c->is_write || c->io.ran || c->io.early)
        return access_bytes_below(&c->own, c->io.eof);
    return call_readable(c); /* c->a is the user's access again */
}

int coll_run(struct tacio_file *f, bool at, int64_t offset, void *buf, int64_t count,
             MPI_Datatype dt, bool is_write, int64_t *bytes)
{
    struct call c = {
        .f = f, .is_write = is_write, .at = at, .buf = buf, .io.eof = INT64_MAX, .readable = -1};
    c.t0 = c.mark = backend_clock();
    int local = access_of(f, at, offset, count, dt, is_write, &c.a);
    c.own = c.a;
    meta_add(&c, 24 * (c.a.v.ft->n + (c.a.mt ? c.a.mt->n : 0)));
    /* On a kept schedule the access is timed with the stage that follows:
     * in a 2 us call, reading the clock costs as much as the access. */
    struct kept *k = &f->kept[is_write];
    bool any = kept_any(k);
    if (!any) { /* no kept shape to repeat */
        stage_add(&c, ST_ACCESS, c.t0);
        kept_touch(k, c.ks = kept_victim(k, kept_slots(f)));
        trials_start(&c, &c.ks->trials);
    }
    bool handled = false;
    int rc = any ? run_kept(&c, local, &handled) : 0;
    if (!handled)
        rc = run_new(&c, local);
    if (!rc) {
        *bytes = transferred(&c);
        if (!at)
            f->fp += *bytes / f->view.etype_size;
        stats_record(&c);
    }
    if (rc || shape_moved_late(&c))
        drop_schedules(&c, rc != 0); /* whatever it tried (or a moved shape) starts over */
    else {
        fit_after(&c);
        trials_after(&c);
        settle_aside(&c);
        keep_schedule(&c);
    }
    crow_free(&c.planning.row);
    return rc;
}

int solo_run(struct tacio_file *f, bool at, int64_t offset, void *buf, int64_t count,
             MPI_Datatype dt, bool is_write, int64_t *bytes)
{
    /* the stub schedule: no sieve, since other ranks' writes may land in
     * this access's holes at any time */
    struct call c = {.f = f, .is_write = is_write, .at = at, .buf = buf, .io.eof = INT64_MAX};
    c.t0 = c.mark = backend_clock();
    c.s = &c.stub;
    int rc = access_of(f, at, offset, count, dt, is_write, &c.a);
    rc = rc ? rc : indep_run(&c);
    if (!rc) {
        *bytes = access_bytes_below(&c.a, c.io.eof);
        if (!at)
            f->fp += *bytes / f->view.etype_size;
    }
    return rc;
}
