/* st3 links: who exchanges what in which round. Each rank counts its own
 * pieces and bytes in every round window of every FD it feeds, from its
 * view's structure (O(log n) a window: view_count; the rounds check each
 * count against the pieces they walk), and tells that FD's aggregator, in
 * one message, how many it has in each round. From then on both sides know every message's size.
 * The links are the schedule's (c->s->out, c->s->in): a call that reuses the schedule skips this
 * stage. */
#ifndef TACIO_EXEC_LINKS_H
#define TACIO_EXEC_LINKS_H

#include "call.h"

/* The FDs this rank feeds: its row of C for the plan's partition. */
int links_out(struct call *c);
/* Agrees on local (this rank's result so far: a rank that cannot tell
 * whom it feeds must not leave an aggregator waiting), then exchanges the
 * counts. Returns the agreed failure (*agreed set), or this rank's own
 * result after the exchange (agreed at the end of the first round). */
int links_exchange(struct call *c, int local, bool *agreed);

#endif
