/* st4 shuffle and st5 I/O, in rounds bounded by cb_buffer_size. A write
 * sends each round's (offset, length) pairs first; the aggregator lays out
 * its window from them, then the data goes straight from the user's buffer
 * into the window wherever both sides are one run of memory (packed and
 * placed otherwise). A read sends the pairs, the aggregator reads its window
 * once and answers with the data, again without copies where the runs
 * allow. An aggregator keeps a sender's pairs when they are few
 * (HDR_CACHE_PIECES): a call that reuses the schedule then sends data only.
 * Nothing else is exchanged per round but the error agreement. Messages,
 * staged data and windows come from the file's slot memory (ofile.h),
 * reused from round to round and call to call. */
#ifndef TACIO_EXEC_ROUNDS_H
#define TACIO_EXEC_ROUNDS_H

#include "call.h"

/* Rounds, pipelining and collection steps of the call's plan. */
void rounds_count(struct call *c);
/* The per-link state the rounds need, kept in the schedule: 0 or a local
 * failure (to be agreed before anyone sends). */
int rounds_prepare(struct call *c);
/* Every round (write when c->is_write), from this rank's local result;
 * returns the agreed result. */
int rounds_run(struct call *c, int local);

#endif
