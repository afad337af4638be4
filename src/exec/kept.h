/* The schedules an open file keeps per direction: those of the last few
 * access shapes its calls had (tacio_kept_shapes), each with auto's trials
 * on it, so that a loop that alternates shapes on one file (a 3D and a 2D
 * variable every time step: A, B, A, B) runs each shape's schedule again
 * after one small agreement, instead of planning every call and starting
 * auto's trials over at each change. Which slot a call takes follows from
 * values every rank agreed on (coll.c, run_kept), so slot k holds the same
 * collective schedule on every rank. */
#ifndef TACIO_EXEC_KEPT_H
#define TACIO_EXEC_KEPT_H

#include "sched.h"
#include "trials.h"

#include <stdbool.h>
#include <stdint.h>

/* The most shapes a direction keeps (tacio_kept_shapes is clamped to it):
 * each holds a plan and its links, a rank's share of which is bounded by
 * its own work, so eight cost at most eight calls' metadata. */
#define KEPT_SHAPES_MAX 8

struct kept_shape {
    struct sched *s; /* its schedule (NULL: the slot is free) */
    /* the fastest trial's schedule, set aside while a close runner-up's
     * is confirmed on s (trials.kept.aside) */
    struct sched *aside;
    struct trials trials; /* auto's, on the calls of this shape */
    uint64_t used;        /* kept.calls when a call last took the slot */
};

struct kept {
    struct kept_shape shape[KEPT_SHAPES_MAX];
    uint64_t calls; /* the direction's collective calls so far */
};

/* Frees the slot's schedules (its trials are the caller's to reset). */
void kept_drop(struct kept_shape *k);
/* Frees every slot's schedules and resets their trials (off). */
void kept_drop_all(struct kept *k);
/* Whether some slot holds a schedule. */
bool kept_any(const struct kept *k);
/* The one slot holding a schedule; NULL where none or several do. */
struct kept_shape *kept_single(struct kept *k);
/* The slot a new shape takes among the first n: a free one, else the one
 * least recently taken. Its old schedule stays until the new shape's
 * replaces it (a call whose schedule cannot be kept leaves it). */
struct kept_shape *kept_victim(struct kept *k, int n);
/* The call took slot ks: it is now the most recently used. */
void kept_touch(struct kept *k, struct kept_shape *ks);

#endif
