/* A collective's schedule: how a call of one access shape runs. Either
 * independent I/O, or a plan (file domains and their aggregators) with the
 * links and rounds that follow from it. A call whose shape differs from the
 * last one in its direction builds a schedule (st2 cplan.c, st3 links.c);
 * the open file keeps it, and the next call whose every rank has the same
 * shape, shifted by one common amount (what HDF5, PnetCDF and IOR loops do),
 * runs it again after one small agreement (coll.c) instead of the gather,
 * the planning and the broadcasts.
 *
 * What a rank holds is bounded by its own work: the plan's FDs and, per FD
 * it feeds (or rank feeding the FD it serves), one piece and byte count per
 * round; no rank holds another rank's view. */
#ifndef TACIO_EXEC_SCHED_H
#define TACIO_EXEC_SCHED_H

#include "../plan/plan.h"
#include "../plan/view.h"

#include <stdbool.h>

/* A sender's (offset, length) pairs are kept from one call to the next
 * when its link has at most this many pieces over all rounds: then later
 * calls send no headers, only data. Both ends apply the same rule. */
#define HDR_CACHE_PIECES 512

/* One FD this rank feeds (out) or one rank feeding the FD this rank
 * aggregates (in): rounds [r0, r0 + nr) and, per round, the pieces and bytes
 * the peer's access has in that round's window. hdr (in links, when kept):
 * every round's pairs back to back, offsets relative to the schedule's
 * shift when they were kept; hdr_at[r - r0] is where round r's start. */
struct link {
    int peer, dom;
    int64_t r0, nr;
    int64_t *np, *bytes;
    int64_t *hdr, *hdr_at;
};

struct sched {
    /* the shape it was made for: this rank's filetype (shape, a value
     * whose arrays are ft_owner's: the view's flat, held, not copied; a
     * copy would cost 24 bytes a piece in each direction, 120 million
     * pieces at BTIO 900's size; NULL owner for an empty access), stream
     * bytes and their position in the first tile, where the access lay,
     * and the hints in force */
    struct flat shape, *ft_owner;
    int64_t n, phase, base;
    uint64_t hints;
    /* a shift must be a multiple of this, or stripes would change FDs */
    int64_t align;
    int64_t shift; /* the sum of the shifts applied since it was made */
    /* independent I/O: every rank its own pieces; sieve: a rank may
     * read-modify-write its own span (no other rank's access lies in it) */
    bool independent, sieve;
    /* the shape alone, no plan: a node-aggregated call's, kept so that
     * auto's trials know the next call repeats it (coll.c, keep_shape_only);
     * never run, every call on it is planned */
    bool shape_only;
    int64_t indep_bytes; /* stats: all ranks' bytes */
    /* stats: the bytes ranks moved by their own I/O on a kept schedule
     * before the call went this new schedule's way (call_own_io.early) */
    int64_t early_bytes;
    /* the plan (every rank; C only on rank 0) */
    struct tacio_plan *plan;
    int *nsenders; /* per FD: ranks feeding it */
    bool ordered;  /* Tsujita's ordered collection */
    int nsteps;    /* collection steps per round: hosts when ordered */
    int my_fd;     /* the FD this rank aggregates, or -1 */
    int *senders;  /* the ranks feeding it (C's column), nfeeding of them */
    int nfeeding;
    struct link *out, *in;
    int nout, nin;
    int64_t rounds;
    bool pipelined; /* window I/O overlaps the next round's exchange */
    int64_t cb;     /* cb_buffer_size: a round's window, halved when pipelined */
    /* the rounds' per-link state (rounds.c), kept for the next call */
    void *rounds_state;
    void (*rounds_state_free)(void *);
};

/* Bytes of FD j a round serves, its rounds, and round r's file ranges. */
int64_t sched_window_size(const struct sched *s, int j);
int64_t sched_dom_rounds(const struct sched *s, int j);
void sched_round_window(const struct sched *s, int j, int64_t r, struct fdom_ranges *w);

/* Whether link l has data in round r. */
static inline bool link_in_round(const struct link *l, int64_t r)
{
    return r >= l->r0 && r < l->r0 + l->nr && l->bytes[r - l->r0] > 0;
}

struct sched *sched_new(void);
/* An empty schedule in place (a stand-in when none could be allocated). */
void sched_init(struct sched *s);
/* Frees what s holds; sched_free frees s too. */
void sched_clear(struct sched *s);
void sched_free(struct sched *s);
/* Whether a call whose access has filetype ft, n bytes and phase (n 0: an
 * empty access) under hints digest `hints` has the shape s was made for. */
bool sched_same_shape(const struct sched *s, const struct flat *ft, int64_t n, int64_t phase,
                      uint64_t hints);
/* Records the shape: ft is owner (the file's view flat) or a shell of it
 * sharing its arrays (view_access); s holds owner. */
int sched_set_shape(struct sched *s, struct flat *owner, const struct flat *ft, int64_t n,
                    int64_t phase, int64_t base, uint64_t hints);
/* Moves every FD, and this rank's access, by delta bytes. */
void sched_shift(struct sched *s, int64_t delta);
/* The multiple every shift of the plan must be (stripes, aligned FDs). */
int64_t sched_align(const struct tacio_plan *plan, int64_t striping_unit);
/* Keeps in link l the pairs of round r (np of them, hdr). */
int link_keep_header(struct link *l, int64_t r, const int64_t *hdr, int64_t shift);
bool link_keeps_headers(const struct link *l);

#endif
