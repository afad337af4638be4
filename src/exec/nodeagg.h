/* Intra-node aggregation (hint tacio_node_aggregation), around st2-st5:
 * before the plan, the ranks of a host hand their access to the host's
 * leader (its lowest rank), which takes part in the collective as one rank
 * holding all of the host's pieces in file order; the others take part
 * with an empty access. A write ships the data to the leader before the
 * collective; a read ships it back after. Between hosts, one rank per host
 * then sends fewer, larger messages: the two-layer aggregation of TAM and
 * of PnetCDF's intra-node aggregation.
 *
 * Inside a host the leader gathers (offset, length) pairs first and checks
 * that no two ranks' pieces overlap; a host whose pieces overlap (reads of a
 * shared header, say), or that holds more than an MPI count can carry, keeps
 * the ranks' own accesses. Every buffer the read needs back is allocated
 * before the collective, so nothing after it can fail but MPI itself. */
#ifndef TACIO_EXEC_NODEAGG_H
#define TACIO_EXEC_NODEAGG_H

#include "call.h"

/* local: this rank's st1 result; returns this rank's result, agreed later
 * by the plan. The hints decide whether a host gathers, or with `chosen`
 * the plan did (auto, when the hints leave it the choice: every host of
 * more than one rank gathers, as with the hint's enable). */
int nodeagg_begin(struct call *c, int local, bool chosen);
/* Whether the hints leave gathering to the plan: automatic, no site
 * threshold (tacio_node_agg_piece), real hosts, more than one. */
bool nodeagg_left_to_plan(const struct tacio_file *f);
/* rc: the collective's agreed result (a read not yet handed back is handed
 * back where it succeeded); returns it. */
int nodeagg_end(struct call *c, int rc);

#endif
