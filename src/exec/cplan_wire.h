/* cplan's wire: what rank 0 and the others send each other while a call
 * plans (the commands, the plan's head, FDs in chunks), and what the three
 * parts of planning (cplan_rows.c, cplan_summary.c, cplan.c) call of each
 * other. Internal to them. */
#ifndef TACIO_EXEC_CPLAN_WIRE_H
#define TACIO_EXEC_CPLAN_WIRE_H

#include "call.h"
#define CHUNK_FDS 64 /* FDs per broadcast */

enum {
    CMD_ROWS = 1,
    CMD_ROWS_FULL,
    CMD_SUMMARY, /* the byte quantiles, for a strategy that asked (auto) */
    CMD_DONE,
    CMD_NO_PLAN,
    CMD_FAILED,
    CMD_INDEPENDENT,
    CMD_AGGREGATE_NODES /* auto: gather each host's data on its first rank, then plan again */
};

struct plan_head {
    int ordered, mem_shortfall;
    int64_t lap_cost;
    struct metrics m;
    char strategy[32], detail[160];
    char choice[48]; /* auto's (tacio_plan.choice), which the stats name on every rank */
};

/* A broadcast from rank 0: a command, a partition's (or plan's) shape and
 * its first FDs; FD j as start, end, unit, stride (+ aggregator, senders,
 * memory in a plan: PLAN_WORDS). */
#define PLAN_WORDS 7
struct order {
    int64_t cmd, n, striped, unit;
    int64_t learned;         /* auto ran a remembered choice (call_planning.learned) */
    int64_t last_candidate;  /* call_planning.last_candidate */
    int64_t model_pick;      /* call_planning.model_pick */
    int64_t pick_is_default; /* call_planning.pick_is_default */
    int64_t default_us;      /* call_planning.default_us */
    int64_t pick_dominated;  /* call_planning.pick_dominated */
    int64_t early;           /* sched.early_bytes */
    struct plan_head head;
    int64_t w[PLAN_WORDS * CHUNK_FDS];
};

/* A rank's summary record: [flags, hints digest, nruns, pieces, early,
 * then per run (off, len, bytes)]; records are `words` long in the
 * gathered array. The digest is how ranks agree on their hints: a
 * set_view's info changes them without a collective of its own. pieces:
 * about how many runs the access has (from its filetype, not a walk).
 * early: the bytes its own I/O moved on a kept schedule before the call
 * took a new one (call_own_io.early), for the stats. */
#define SUMMARY_HEAD 5
#define SUMMARY_WORDS (SUMMARY_HEAD + 3 * SUMMARY_RUNS)

/* Rank 0: the bytes the ranks' own I/O moved before the call took a new
 * schedule (sched.early_bytes), from their summaries. */
void sum_early_bytes(struct call *c, int64_t *all, int words);
/* Keeps this rank's first failure for the agreement that follows. */
int note_failure(struct call *c, int rc);
/* Rank 0 sends an order (its first chunk filled from src); chunks_bcast
 * then passes the FDs past the first chunk (wpf words a FD: 4 for a
 * partition, PLAN_WORDS for a plan). A receiver whose part is NULL (it
 * could not allocate) still takes part. */
void order_bcast(struct call *c, struct order *o, const struct partition *src, int wpf);
void chunks_bcast(struct call *c, struct order *o, struct partition *part, int wpf);

/* cplan_rows.c: rank 0's cmatrix_of (every rank answers with its row of C
 * for the partition), and the others answering rank 0's requests until it
 * sends anything else (left in *o). */
int rows_from_ranks(const struct plan_ctx *ctx, const struct partition *part, struct cmatrix *out);
void serve_rows(struct call *c, struct order *o);

/* cplan_summary.c: every rank's summary of k runs, gathered on rank 0
 * (returned there; NULL elsewhere, or when rank 0 is out of memory,
 * noted); on rank 0, checks of the summaries, the independent decision,
 * the summary pattern and the byte distribution when the strategy asks. */
int64_t *gather_summary(struct call *c, int local, int k);
int check_summaries(struct call *c, int64_t *all, int words);
int decide_independent(struct call *c, int64_t *all, int words);
int summary_pattern(const struct call *c, int64_t *all, int words, struct tacio_pattern **out);
int ask_distribution(struct call *c, struct tacio_pattern **pat,
                     const struct wisdom_entry *recalled, const int64_t *all, int words);
/* The most pieces one rank's access has and all ranks' (auto's model
 * prices them: plan_ctx.max_pieces). */
void summary_pieces(const int64_t *all, int words, int p, int64_t *most, int64_t *total);
/* The access shape's signature in the gathered summaries (wisdom's key):
 * every rank's flags, runs and pieces, not its hints digest; the runs'
 * offsets from the lowest of any rank, so that a time step's shape at a
 * later offset of the file signs alike. */
uint64_t summary_signature(const int64_t *all, int words, int p);

#endif
