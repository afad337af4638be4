/* One collective call's state, below every stage: the call's arguments and
 * access, the schedule it runs, what it holds (metadata, staged data) and
 * the time each stage took; and the statistics it leaves on the file. */
#ifndef TACIO_EXEC_CALL_H
#define TACIO_EXEC_CALL_H

#include "access.h"
#include "agree.h"
#include "backend.h"

/* The stages, as the stats name them. */
enum stage { ST_ACCESS, ST_PLAN, ST_ROUTE, ST_SHUFFLE, ST_IO, NSTAGES };

struct nodeagg;
struct kept_shape;

/* Collective buffering or independent I/O, where the hints leave it to tacio. */
enum call_path { PATH_RULE, PATH_COLLECTIVE, PATH_INDEPENDENT };

/* Planning (st2, cplan*.c): its outcome, which the stages after it read. */
struct call_planning {
    int rc;               /* this rank's first failure while planning, not yet agreed */
    bool peer_failed;     /* rank 0: planning stopped because another rank failed */
    bool aggregate_nodes; /* rank 0: auto's plan aggregates each node's data first */
    bool on_nodes;        /* the call plans again, on the nodes' aggregated accesses */
    int trial;            /* auto's trial this call runs (plan_ctx.trial; 0: none) */
    bool learned;         /* auto ran a choice its wisdom file remembered (every rank) */
    bool last_candidate;  /* auto's ranking has no candidate after this trial's (every rank) */
    bool model_pick;      /* auto planned its model's pick (every rank)... */
    bool pick_is_default; /* ...which the default plans alike (every rank) */
    int64_t default_us;   /* ...and the model's time for the default's plan (every rank) */
    /* the model's pick, rated DOMINATED_FACTOR times the default's timed
     * independent call, ran the default's path instead (every rank) */
    bool pick_dominated;
    /* rank 0: the path auto's trial or wisdom takes where the hints leave
     * it automatic (PATH_RULE: the hints' rule decides) */
    enum call_path path;
    bool keyed; /* rank 0: key is the call's wisdom key (wisdom is on) */
    struct wisdom_key key;
    char choice[48]; /* rank 0: auto's choice (tacio_plan.choice) before any node aggregation */
    struct crow row; /* this rank's row of C for the partition asked last */
};

/* This rank's own I/O (independent: indep.c). */
struct call_own_io {
    bool ran;      /* this rank's data moved by its own I/O */
    int64_t early; /* bytes it moved on the kept schedule before the call's path was agreed */
    /* where its reads met the end of the file (INT64_MAX: they did not); a
     * read served by aggregators asks the file instead */
    int64_t eof;
};

/* What the call holds now and at most (metadata, staged data), and the
 * maxima over ranks the stats report, once agreed. */
struct call_usage {
    int64_t meta, meta_peak, staged, staged_peak;
    int64_t node_aggregated; /* this rank led its node's access */
    int64_t call_us;         /* the call so far, microseconds (agreed: the slowest rank's) */
    int64_t move_us;         /* call_us less planning (st2) and call.route_setup */
    bool agreed;             /* the last agreement took the maxima */
};

/* The kept schedule's check (coll.c, run_kept), as an agreement reduces it
 * with MPI_MAX: whether some rank's shape differs, and the highest and
 * lowest shift (negated). */
enum { K_MISMATCH, K_HIGH, K_LOW, NKEPT };
#define NO_SHIFT INT64_MIN /* an empty access moves with any shift */

struct call {
    struct tacio_file *f;
    bool is_write, at;
    /* The access and buffer the call runs: the user's, or nothing once
     * this rank's own I/O ran on the kept schedule, or, while its node
     * aggregates (nodeagg.c swaps them in and out), the node's on the
     * node's leader and nothing on the others. own stays the user's access
     * (the status counts its bytes). */
    struct access a, own;
    char *buf;
    /* reads: the bytes of a before the end of the file, asked of the file
     * once, when first needed (call_readable); -1 until then */
    int64_t readable;
    struct sched *s; /* what runs: one of the file's kept schedules (reused) or a new one */
    /* the file's slot of the call's shape (kept.h): the one whose schedule
     * fits every rank's access, else the one a new shape takes */
    struct kept_shape *ks;
    struct sched stub; /* the new one when none could be allocated (the call fails) */
    bool reused;
    struct call_planning planning;
    struct call_own_io io;
    struct call_usage use;
    struct nodeagg *node; /* node aggregation's state, while it runs */
    /* what runs just before the call's last agreement (call_agree_last), so
     * that the time it carries includes it: a gathered read's hand-back of
     * the data (nodeagg.c); NULL for nothing */
    void (*before_last_agreement)(struct call *c);
    double t[NSTAGES];
    double t0, mark; /* the call's start; the last stage's end */
    /* of t[ST_ROUTE], what laying out a new schedule's links and rounds
     * took: a call on the kept schedule skips it (move_us leaves it out),
     * while the rest of st3, the rounds' sends, every call pays */
    double route_setup;
    /* of t[ST_PLAN], what a call that gathered the hosts first on auto's
     * choice paid that its settled calls do not, as a call on a kept
     * schedule pays no plan (move_us leaves it out): the pass on the ranks'
     * own accesses that chose to gather (a settled call gathers at once:
     * coll.c, gathers_settled), and the kept schedule's check, which
     * move_us leaves out of every call */
    double choosing_pass;
    /* the kept shape's check where it rides on the call's last agreement
     * (coll.c, check_rides_along): this rank's values, then the agreed ones */
    bool check_deferred;
    int64_t kept_check[NKEPT];
    /* the call's shape is not the kept one's (run_kept): a gathered call
     * keeps its own shape in the stale one's place (coll.c, keep_shape_only) */
    bool shape_moved;
};

/* The gathered candidate a pass on the hosts' gathered accesses plans
 * (plan_ctx.nodes_choice): the choice the call runs; NULL on the ranks'
 * own accesses. */
static inline const char *call_nodes_choice(const struct call *c)
{
    return c->planning.on_nodes ? c->planning.choice : NULL;
}

/* auto's model fitted on this process's calls in the call's direction
 * (profile.h; rank 0), or NULL. */
static inline struct model_fit *call_fit(const struct call *c)
{
    return c->f->fit ? &c->f->fit[c->is_write] : NULL;
}

static inline void meta_add(struct call *c, int64_t bytes)
{
    c->use.meta += bytes;
    c->use.meta_peak = max64(c->use.meta_peak, c->use.meta);
}

static inline void staged_add(struct call *c, int64_t bytes)
{
    c->use.staged += bytes;
    c->use.staged_peak = max64(c->use.staged_peak, c->use.staged);
}

/* Time spent since t0 goes to stage st; returns now, also kept as the
 * mark where the next stage may start. */
static inline double stage_add(struct call *c, enum stage st, double t0)
{
    double now = backend_clock();
    c->t[st] += now - t0;
    c->mark = now;
    return now;
}

/* Where a stage that follows the last one at once starts: its end, without
 * reading the clock again (the clock is a good part of a 2 us call). */
static inline double stage_start(const struct call *c)
{
    return c->mark;
}

/* Reads: how many of the access's stream bytes lie before the end of the
 * file. Nothing past them reaches the user's buffer: a read leaves the
 * buffer beyond what it read as it was (as the MPIs' own reads do). */
int64_t call_readable(struct call *c);

/* The call's stats that are maxima over ranks, as the array an agreement
 * reduces with MPI_MAX (exec_agree_max): as many as the table has. */
#define COUNT_PEAK(type, field, key, scope) +((scope) == TACIO_STAT_MAX)
enum { NPEAKS = 0 TACIO_STATS_FIELDS(COUNT_PEAK) };
#undef COUNT_PEAK
void peaks_get(const struct call *c, int64_t v[NPEAKS]);
void peaks_set(struct call *c, const int64_t v[NPEAKS]);
/* The agreement that ends a call, taking the peaks along (and the kept
 * shape's check where it was deferred to it). */
int call_agree_last(struct call *c, int local);

/* The file's stats from a call that succeeded, and the TACIO_STATS line. */
void stats_record(struct call *c);

#endif
