/* The collective data path, shared by its three parts:
 *   coll.c    the entry point: st1 this rank's access, stats, status
 *   cplan.c   st2 the plan: rank 0 plans from a summary of every access and
 *             every rank's own row of C, then broadcasts the plan
 *   rounds.c  st3 links (who exchanges what in which round), then rounds of
 *             st4 shuffle and st5 I/O bounded by cb_buffer_size
 *
 * What a rank holds is bounded by its own work: its view, O(p) records on
 * rank 0 (spans or byte quantiles, C's rows), the plan's FDs, and per FD it
 * feeds (or rank feeding the FD it serves) one byte and piece count per
 * round. No rank holds another rank's view. */
#ifndef TACIO_COLL_H
#define TACIO_COLL_H

#include "exec.h"

/* One FD this rank feeds (out) or one rank feeding the FD this rank
 * aggregates (in): rounds [r0, r0 + nr) and, per round, the pieces and bytes
 * the peer's access has in that round's window. */
struct link {
    int peer, fd;
    int64_t r0, nr;
    int64_t *np, *bytes;
};

/* Intra-node aggregation's state for one call (nodeagg.c). */
struct hpiece;
struct nodeagg {
    MPI_Comm comm; /* the host's ranks (f->host_comm) */
    int hrank, hsize;
    bool active; /* this call runs the host's access on its leader */
    /* the rank's own access, put back after the collective */
    struct view v;
    int64_t s0, n;
    const struct flat *mt;
    char *buf;
    /* its pieces as (offset, length) pairs, and its stream as one run of
     * memory: in the user's buffer, or in copy */
    int64_t *pairs;
    int64_t npieces, cap;
    char *stream, *copy;
    /* per rank of the host (every rank knows them): pair and byte counts and
     * where they start in the leader's arrays */
    int *npairs, *pair_displs, *nbytes, *byte_displs;
    int64_t total_pieces, total_bytes;
    /* the leader: the host's pieces sorted by offset, its streams in rank
     * order (packed) and in file order (staged: the buffer it brings to the
     * collective), and the view and memory type over them */
    int64_t *all_pairs;
    struct hpiece *pieces;
    char *packed, *staged;
    struct flat *view_ft, *mem_ft;
};

struct call {
    struct tacio_file *f;
    bool is_write;
    char *buf; /* user buffer */
    const struct flat *mt;
    struct flat *mt_owned;
    int64_t s0, n; /* this rank's stream range in the view v that serves it */
    struct view v;
    struct flat shell; /* v's filetype when v is one tile of the file's view */
    /* the plan: FDs, aggregators, metrics (the same on every rank; C only
     * on rank 0, which planned) */
    struct tacio_plan *plan;
    int *nsenders;       /* per FD: ranks feeding it */
    int *senders;        /* the ranks feeding the FD this rank aggregates (C's column) */
    int nfeeding;        /* how many: senders[0, nfeeding) */
    bool ordered;        /* the plan orders collection (Tsujita) */
    bool has_rounds;     /* rank 0 sent a plan: the rounds follow (c->plan NULL: this rank
                            could not take it, and coll_rounds agrees on failing) */
    bool independent;    /* rank 0 chose independent I/O: no plan, no shuffle */
    int64_t indep_bytes; /* then: the bytes all ranks access (stats) */
    int plan_rc;         /* this rank's first failure while planning, not yet agreed */
    int peer_failed;     /* rank 0: planning stopped because another rank failed */
    struct crow row;     /* this rank's row of C for the partition asked last */
    int my_fd;           /* FD this rank aggregates, or -1 */
    int64_t rounds;
    bool pipelined; /* window I/O overlaps the next round's exchange (rounds.c) */
    int nsteps;     /* collection steps per round: hosts when the plan orders them */
    struct link *out, *in;
    int nout, nin;
    /* metadata and staged data held, now and at most (stats) */
    int64_t meta, meta_peak, staged, staged_peak;
    bool peaks_agreed;       /* the last round's agreement took the maxima */
    int64_t node_aggregated; /* this rank led its host's access (stats: any rank) */
    struct nodeagg node;
    double t[6];
};

static inline void meta_add(struct call *c, int64_t bytes)
{
    c->meta += bytes;
    c->meta_peak = max64(c->meta_peak, c->meta);
}

/* The call's stats that are maxima over ranks, as the array the last
 * agreement (or reduce_peaks) reduces with MPI_MAX. */
enum { NPEAKS = 3 };
static inline void peaks_get(const struct call *c, int64_t v[NPEAKS])
{
    v[0] = c->meta_peak, v[1] = c->staged_peak, v[2] = c->node_aggregated;
}
static inline void peaks_set(struct call *c, const int64_t v[NPEAKS])
{
    c->meta_peak = v[0], c->staged_peak = v[1], c->node_aggregated = v[2];
}

static inline void staged_add(struct call *c, int64_t bytes)
{
    c->staged += bytes;
    c->staged_peak = max64(c->staged_peak, c->staged);
}

/* Intra-node aggregation (hint tacio_node_aggregation), around st2-st5:
 * begin hands this rank's access to its host's leader (writes: and the
 * data), end puts it back (reads: with the data). local: this rank's st1
 * result; both return this rank's result, agreed later by coll_plan (begin)
 * or already agreed (end's rc). */
int coll_node_begin(struct call *c, int local);
int coll_node_end(struct call *c, int rc);

/* st2: the plan, the same on every rank (no rounds: nobody accesses a
 * byte). local: this rank's st1 result. Returns 0, or a failure agreed by
 * every rank. */
int coll_plan(struct call *c, int local);
void coll_plan_free(struct call *c);

/* st3-st5: links, then every round (write when c->is_write). Returns the
 * agreed result. */
int coll_rounds(struct call *c);
/* Independent I/O of this rank's own pieces (romio_cb_write/read disabled,
 * or automatic and every rank's pieces large). Returns the agreed result. */
int coll_independent(struct call *c);
void coll_links_free(struct call *c);

/* Every piece of this rank's access, in file order (view_walk over the
 * whole stream range it serves; nothing when it accesses no byte). */
int coll_walk_access(const struct call *c, piece_fn fn, void *ctx);

/* This rank's row of C for part (a 1 x part->n comm). */
int coll_own_row(const struct call *c, const struct partition *part, struct crow *row);

#endif
