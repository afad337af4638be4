/* st2 at scale: rank 0 plans, every rank helps with what only it knows.
 *
 * Rank 0 gathers each rank's status, hints digest and span (or, for
 * strategies that read the byte distribution, SUMMARY_RUNS byte quantiles of
 * its access) in one fixed-size gather, decides between independent I/O and
 * collective buffering, and runs the planning core on that summary. A
 * strategy that reads the distribution only when it pays (auto) is asked,
 * on the spans, whether to gather the quantiles too (CMD_SUMMARY). Whenever
 * the core needs C for a partition, rank 0 broadcasts the partition and
 * every rank answers with its own exact row, in the same fixed-size way
 * when rows are short. The last broadcast carries the plan, or says there is
 * none, or that the call goes independent, or that planning failed. Errors
 * travel up in the gathers and down in the broadcasts, so a call that
 * succeeds spends two collectives per partition planned and none on
 * agreement. The result fills the call's new schedule (c->s). */
#ifndef TACIO_EXEC_CPLAN_H
#define TACIO_EXEC_CPLAN_H

#include "call.h"

enum { PLAN_ROUNDS = 1, PLAN_INDEPENDENT, PLAN_NOTHING, PLAN_NODE_AGGREGATION };

/* local: this rank's st1 result. Returns what follows (PLAN_*: the same on
 * every rank; PLAN_ROUNDS with c->s->plan NULL on a rank that could not
 * take the plan, whose links' agreement then fails the call;
 * PLAN_NODE_AGGREGATION when auto rated gathering each host's data first
 * fastest, after which the call plans again), or a failure agreed by every
 * rank. */
int plan_call(struct call *c, int local);
/* This rank's row of C for part (a 1 x part->n comm). */
int own_row(const struct call *c, const struct partition *part, struct crow *row);

#endif
