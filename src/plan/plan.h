/* Internal structures of the planning pipeline:
 *   st1 access  pattern -> [lo, hi)            (pattern.h)
 *   st2 plan    partition -> FDs, assign -> aggregators  (strategies)
 *   st3 route   C[i][j] = bytes rank i holds for FD j    (cmatrix.c)
 * plus metrics (metrics.c). */
#ifndef TACIO_PLAN_INTERNAL_H
#define TACIO_PLAN_INTERNAL_H

#include "../base/util.h"
#include "../topo/topo.h"
#include "fit.h"
#include "pattern.h"

#include <stdbool.h>

#define TACIO_DEFAULT_CB_BUFFER (16 << 20)

struct tacio_hints {
    int64_t cb_nodes;          /* 0: ROMIO's default, every entry of the cb_config_list */
    int64_t cb_buffer_size;    /* bytes an aggregator holds per round */
    char cb_config_list[1024]; /* ROMIO's grammar (cbconfig.c) */
    int64_t striping_unit;     /* 0: unset */
    int64_t striping_factor;
    char strategy[32];
    int64_t msg_ind;       /* mccio: leaf size of the partition tree */
    int64_t mem_min;       /* mccio: free memory a host needs to host an aggregator */
    int64_t aggs_per_node; /* mccio: N_ah */
    int64_t msg_group;     /* mccio: aggregation group size; 0: one group */
    int solver;            /* SOLVER_* */
    int collect_order;     /* COLLECT_*: the order aggregators collect in */
    /* auto's cost model, bytes/s and seconds */
    double bw_link, bw_uplink, bw_copy, bw_agg_io, bw_node_io, bw_fs, latency, msg_overhead;
    /* the share of a link's rate a message of a given size gets, as
     * "BYTES:FACTOR;..." (SimGrid's smpi/bw-factor form: a message of at
     * least BYTES bytes, the largest such entry); empty: 1 at every size */
    char bw_factors[256];
};

/* The factor bw_factors gives a message of `bytes` bytes; 1 when none. */
double hints_bw_factor(const struct tacio_hints *h, double bytes);
/* The free memory a host needs to aggregate (mccio's Mem_min, which auto
 * holds every candidate to): tacio_mem_min, unset cb_buffer_size. */
int64_t hints_mem_min(const struct tacio_hints *h);

enum { SOLVER_AUTO, SOLVER_FLOW, SOLVER_DENSE };
/* tacio_collect_order: the strategy's own order, by rank, or by host
 * rotating from the aggregator's own (Tsujita et al.'s) */
enum { COLLECT_STRATEGY, COLLECT_RANKS, COLLECT_HOSTS };

/* A file domain: contiguous [start, end), or with unit > 0 the stripes
 * [start + k*stride, start + k*stride + unit) within [start, end). */
struct fdom {
    int64_t start, end;
    int64_t unit, stride;
    /* the most its aggregator holds at once, below cb_buffer_size: mccio's
     * share of the host's free memory; 0: cb_buffer_size */
    int64_t memory;
};

struct partition {
    int n;
    struct fdom *dom;
    bool striped; /* FD j = stripes k with k mod n == j (same unit for all) */
    int64_t unit;
    void *aux; /* a strategy's own state between partition and assign */
    void (*aux_free)(void *aux);
};

/* Sparse C by FD (CSC): column j's entries are [col_ptr[j], col_ptr[j+1]),
 * rank row[k] holding cval[k] bytes, ranks increasing. */
struct cmatrix {
    int p, a;
    int64_t nnz;
    int64_t *col_ptr, *cval;
    int *row;
    int64_t *fd_bytes;
    int64_t total;
};

struct metrics {
    int64_t total_bytes, shuffle_bytes, offnode_bytes, hop_bytes;
    int64_t max_link_load; /* -1: no tree to route over (dist: topologies) */
    int64_t max_agg_bytes, max_agg_mem, messages, rounds;
    int64_t max_host_bytes; /* bytes the busiest host's aggregators write */
    /* messages that cross hosts, an (aggregator, sender) pair counted once
     * per round of the FD: the shuffle's mean message is offnode_bytes over
     * this (auto's model reads its bandwidth factor) */
    int64_t offnode_msgs;
    int naggs;
    int max_step_fanin; /* aggregators pulling from one host in one collection step */
    double model_seconds;
    /* its shuffle and I/O terms, each alone, before rounds overlap them
     * (model.c): what bench/io/model holds against the measured stages */
    double model_shuffle, model_io;
    /* the terms at the hints' rates, which the fit weighs (fit.h) */
    struct model_terms terms;
};

/* The order in which an aggregator collects from its FD's senders: by rank,
 * or (Tsujita et al.) by host, starting after the aggregator's own host. */
enum { ORDER_RANKS, ORDER_HOST_ROTATION };

/* Plans keep C (and so the per-entry accessors and the explicit collection
 * order) up to 2^24 entries, or TACIO_PLAN_KEEP_C: a million ranks on 1 MiB
 * stripes meet 10^9, which no plan can hold. */
int64_t plan_keep_c_max(void);

struct tacio_plan {
    char strategy[32];
    char detail[160]; /* e.g. auto's choice, clamped hints, solver */
    /* auto's choice as a wisdom file names it ("default", STRATEGY:K or
     * STRATEGY:K:nodes: src/base/wisdom.h); "" from any other strategy */
    char choice[48];
    int nprocs;
    struct partition part;
    int *agg;           /* FD -> aggregator rank */
    int order_rule;     /* how aggregators order their senders (ORDER_*) */
    int64_t *order_ptr; /* per FD: senders in that order, when the plan keeps C */
    int *order;
    int64_t lap_cost;  /* optimum the solver reported, -1 if none ran */
    int mem_shortfall; /* mccio: FDs placed on a host below mem_min */
    struct metrics m;
    struct cmatrix cmat;          /* C for the plan's FDs (the engine routes with it), or empty */
    int64_t *fd_bytes, *fd_mem;   /* per FD (= per aggregator): data, buffer memory */
    int64_t *link_up, *link_down; /* per tree vertex: bytes on the link to its parent */
    char **link_name;             /* per tree vertex (names_copy: one block) */
    int *link_parent;             /* per tree vertex: the vertex above, -1 at the root */
    int nlinks;
    double plan_seconds;
    /* auto chose to gather each host's data on its first rank before the
     * shuffle (intra-node aggregation): its hosts send one message per
     * aggregator where their ranks each sent one */
    int node_aggregated;
    /* auto, on its pick or in a trial of its candidates: its ranking holds
     * none after this one (the trials of the others would time a plan twice) */
    bool last_candidate;
    /* auto: the model's pick, ranked on this call (not a trial's runner-up,
     * the default, a remembered or a not yet tried choice) */
    bool model_pick;
    /* auto, on its pick: the default (romio on the hints as they are)
     * plans alike, as the model sees it: a trial of both times one plan twice */
    bool pick_is_default;
    /* auto, on its pick: the model's seconds for the default's plan (0: not
     * rated); the engine skips the default's trial when it is far behind
     * the pick's measured time (src/exec/trials.c) */
    double default_seconds;
    /* auto rated its candidates for this plan on a shape's first call
     * (the engine times that plan as what choosing took: fit.h's choosing) */
    bool ranked;
};

struct plan_ctx;
struct wisdom_entry;
/* Builds C for a partition. NULL: cmatrix_build from the pattern. The MPI
 * engine plans from a summary of the ranks' accesses (exact spans, byte
 * quantiles) and gets each rank's exact row of C from the rank itself. */
typedef int (*cmatrix_source)(const struct plan_ctx *ctx, const struct partition *part,
                              struct cmatrix *out);

struct plan_ctx {
    const struct tacio_pattern *pat;
    const struct tacio_topo *topo;
    const struct tacio_hints *h;
    int64_t lo, hi; /* st1: the access range */
    cmatrix_source cmatrix_of;
    void *cmatrix_arg; /* cmatrix_of's own state */
    /* Threads for the walks over the ranks: 0, plan_threads' default; the
     * MPI engine plans on 1, as the other cores of rank 0's host run ranks
     * (which may busy-poll while rank 0 plans). */
    int threads;
    /* auto may rate each candidate with its hosts' data gathered on their
     * first ranks (plan_node_aggregated): the engine's intra-node aggregation
     * is left to auto (neither forced nor ruled out by the hints) */
    bool may_aggregate_nodes;
    /* auto's trials (the engine's, on repeated calls): 0 the model's pick,
     * 1 the default (romio on the hints as they are), k >= 2 the model's
     * candidate k - 2 (its pick, then the runners-up; collective buffering
     * where the hints leave the path automatic) */
    int trial;
    /* auto, trial 0: what a wisdom file remembers for the call (NULL:
     * nothing). Settled (left 0): its choice, planned in place of the
     * model's pick when it can be; else the candidates earlier runs timed,
     * and auto plans the first of the default, its pick and its runners-up
     * not among them (trials spread over runs) */
    const struct wisdom_entry *recalled;
    /* auto, on the accesses the hosts gathered: the node-aggregated
     * candidate the call runs (tacio_plan.choice, "S:K:nodes"), planned as
     * S at K there, as the model rated it (trial then only labels it a
     * trial); NULL: not on gathered accesses */
    const char *nodes_choice;
    /* auto's model fitted on this process's calls (fit.h); NULL: the
     * built-in model */
    const struct model_fit *fit;
    /* the contiguous pieces of the busiest rank's access and of all
     * ranks' (the model's pieces term; 0: not known) */
    int64_t max_pieces, total_pieces;
};
/* The most candidates of the model a trial may ask for (trial <= 1 + this). */
#define AUTO_TRIALS_MAX 8
/* The engine's trial of independent I/O (reads whose path the hints leave
 * automatic and the default sends through collective buffering): no plan. */
#define AUTO_TRIAL_INDEPENDENT (AUTO_TRIALS_MAX + 2)
/* auto rates a plan whose aggregators do not fit their hosts' free memory
 * this many seconds slower (src/plan/strategies/auto.c): a rating this
 * high says "does not fit", not a time. */
#define AUTO_UNFIT_SECONDS 1e6

struct tacio_strategy {
    const char *name;
    const char *summary;
    int (*partition)(const struct plan_ctx *ctx, struct partition *out);
    /* Sets plan->agg (and plan->order_rule); may rewrite part (mccio
     * remerges), after which the pipeline rebuilds C. c is NULL when
     * assigns_without_cmatrix is set and the planner streams C instead. */
    int (*assign)(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                  struct tacio_plan *plan);
    /* Whole-plan override (auto); partition/assign are unused when set. */
    int (*plan)(const struct plan_ctx *ctx, struct tacio_plan **out);
    /* The partition reads how bytes spread over the file (pattern prefix
     * sums over all ranks), not only the ranks' spans. */
    bool reads_distribution;
    /* Under the engine (src/exec/cplan.c), for a strategy that reads the
     * distribution only when it pays (auto): given the plan input built
     * from the ranks' spans alone (ctx, cmatrix_of NULL), whether to ask them
     * for their byte quantiles too: an order of order_bytes broadcast, then
     * a gather bringing gather_bytes to rank 0. NULL: reads_distribution
     * decides. */
    int (*wants_distribution)(const struct plan_ctx *ctx, int64_t order_bytes, int64_t gather_bytes,
                              bool *out);
    /* assign does not read C (a rank list, a layout): the planner need not
     * hold C, only stream it through the metrics */
    bool assigns_without_cmatrix;
    /* auto tries it (at 1, 2 and 4 aggregators per host) */
    bool auto_candidate;
};

const struct tacio_strategy *strategy_find(const char *name);
const char *strategy_names(void);

/* hints */
struct opt_def;
/* The planner's hint of that key, or NULL. */
const struct opt_def *hints_find(const char *key);
/* ROMIO's keys the planner leaves to the engine or the MPI library. */
bool hints_is_passthrough(const char *key);
int hints_copy(const struct tacio_hints *h, struct tacio_hints **out);
/* *h at the defaults (for hints held by value). */
int hints_defaults(struct tacio_hints *h);
/* The planner's keys beginning with prefix (NULL: all), comma-separated,
 * appended to buf. */
void hints_keys(const char *prefix, char *buf, size_t cap);
/* Every hint of the table as "key=value key=value ...", appended at buf +
 * *len: what ranks must agree on, and what TACIO_PRINT_HINTS shows. */
int hints_format(const struct tacio_hints *h, char *buf, size_t cap, size_t *len);
/* Each hint of h that holds a value, as text (opts_each). */
void hints_each(const struct tacio_hints *h,
                void (*fn)(void *arg, const char *key, const char *value), void *arg);

/* partitions */
int partition_fixed(const struct plan_ctx *ctx, struct partition *out);
int partition_even(const struct plan_ctx *ctx, int n, struct partition *out);
int partition_stripes(const struct plan_ctx *ctx, int n, struct partition *out);
int partition_alloc(struct partition *p, int n);
void partition_free(struct partition *p);

/* FD geometry (fdom.c) */
/* Bytes of file an FD covers (its stripes' bytes, for a striped FD). */
int64_t fdom_extent(const struct fdom *dom);
/* The file ranges of FD-relative bytes [lo, hi) of an FD, in file order. */
#define FDOM_MAX_RANGES 64
struct fdom_ranges {
    int64_t lo[FDOM_MAX_RANGES], hi[FDOM_MAX_RANGES];
    int n;
};
void fdom_window(const struct fdom *dom, int64_t lo, int64_t hi, struct fdom_ranges *out);
/* The bytes of a window of the FD for a buffer of cb: cb, or fewer when its
 * stripes are so small that cb would span more than FDOM_MAX_RANGES. */
int64_t fdom_window_size(const struct fdom *dom, int64_t cb);
/* The memory FD fd's aggregator holds at once: its own limit, within cb. */
int64_t fdom_memory(const struct fdom *dom, int64_t cb);
/* The engine's rounds over an FD (src/exec/rounds.c): round r serves FD
 * bytes [r * size, (r + 1) * size) of it, size being the FD's memory, half
 * of it when rounds are pipelined (two windows are held at once), within
 * what the FD's stripes allow (fdom_window_size). Here so that the
 * planner's round counts and the engine's lay out the same windows. */
int64_t fdom_round_window(const struct fdom *dom, int64_t cb, bool pipelined);
int64_t fdom_rounds(const struct fdom *dom, int64_t cb, bool pipelined);
/* The most rounds any FD of the partition takes. */
int64_t partition_rounds(const struct partition *p, int64_t cb, bool pipelined);
/* FD holding offset x and where that piece ends. */
int partition_locate(const struct partition *p, int64_t x, int64_t *piece_end);

/* st3 */
/* threads as plan_ctx's */
int cmatrix_build(const struct tacio_pattern *pat, const struct partition *part, int threads,
                  struct cmatrix *out);
/* C for part through ctx->cmatrix_of, or cmatrix_build. */
int plan_cmatrix(const struct plan_ctx *ctx, const struct partition *part, struct cmatrix *out);
/* C from its rows (CSR over p ranks and a FDs); frees the arrays. */
int cmatrix_from_rows(int p, int a, int64_t *row_ptr, int *col, int64_t *val, struct cmatrix *out);
void cmatrix_free(struct cmatrix *c);
/* C with row r's bytes moved to row to[r] (a host's ranks to its first,
 * when hosts gather their data before the shuffle), rows summed. */
int cmatrix_move_rows(const struct cmatrix *c, const int *to, struct cmatrix *out);
/* C for part, each of whose FDs is a run of neighbouring FDs of old (C's
 * partition), by merging C's columns in place: 0. 1: part is not such a
 * merge (nothing changed); < 0: an error. */
int cmatrix_merge_columns(struct cmatrix *c, const struct partition *old,
                          const struct partition *part);
/* One rank's row at a time, accumulated per FD: after row_compute, the
 * row's FDs are touched[0 .. ntouched) (increasing when asked sorted) with
 * acc[j] bytes each; row_clear readies it for the next rank. For walks over
 * all ranks that keep only what they sum (metrics_stream, cmatrix_build). */
struct row_acc {
    const struct tacio_pattern *pat;
    const struct partition *part;
    int rank;
    int64_t lo, width; /* contiguous FDs: bucket b is [lo + b*width, +width) */
    int *first;        /* the FD holding bucket b's start */
    int64_t *acc;      /* per FD, zero outside touched */
    int *touched;
    int ntouched;
};
int row_acc_init(struct row_acc *ra, const struct tacio_pattern *pat, const struct partition *part);
void row_compute(struct row_acc *ra, int rank, bool sorted);
void row_clear(struct row_acc *ra);
void row_acc_free(struct row_acc *ra);
/* One rank's row of C: FDs col[k] increasing, val[k] bytes. */
struct crow {
    int64_t nnz;
    int *col;
    int64_t *val;
};
int cmatrix_row_build(const struct tacio_pattern *pat, int rank, const struct partition *part,
                      struct crow *out);
void crow_free(struct crow *r);

/* Aggregator candidates by ROMIO's cb_config_list rule (cbconfig.c), at most
 * cb_nodes of them; ranklist_count counts them up to cap (0: no cap). Both
 * return the count or a negative error. */
int romio_ranklist(const struct plan_ctx *ctx, int **out);
int ranklist_count(const struct plan_ctx *ctx, int64_t cap);
/* The list's ranks, in order, at most cap (<= 0: every rank); 0 when no
 * host answers to it. cb_config_check: 0 when the list parses. */
int cb_config_ranklist(const struct tacio_topo *t, const char *list, int64_t cap, int **out);
/* The hints' cb_config_list, ROMIO's default "*:1" when unset. */
static inline const char *cb_config_of(const struct tacio_hints *h)
{
    return h->cb_config_list[0] ? h->cb_config_list : "*:1";
}
int cb_config_check(const char *list);

/* assignment solvers */
int lap_dense(int nrows, int ncols, const int64_t *cost, int *row_to_col, int64_t *total);
/* Exact min hop-bytes (or, with latp_costs, min moved bytes) assignment of
 * every FD to a distinct rank over a tree topology, never building W. */
int assign_tree_flow(const struct tacio_topo *t, const struct cmatrix *c, bool latp_costs, int *agg,
                     int64_t *total);
/* Same optimum from the dense W (or moved-bytes) matrix: any topology. */
int assign_dense(const struct tacio_topo *t, const struct cmatrix *c, bool latp_costs, int *agg,
                 int64_t *total);
/* W[i][j] for one rank and FD (hop-bytes if FD j is served by rank i). */
int64_t hop_bytes_of(const struct tacio_topo *t, const struct cmatrix *c, int j, int rank);

/* st-order: the explicit collection order of plan->order_rule, from C
 * (order.c) */
int order_build(const struct tacio_topo *t, const struct cmatrix *c, struct tacio_plan *plan);
int metrics_compute(const struct plan_ctx *ctx, const struct cmatrix *c, struct tacio_plan *plan);
/* The same metrics from the pattern's rows, host by host, without holding
 * C; *nnz is C's entry count. */
int metrics_stream(const struct plan_ctx *ctx, struct tacio_plan *plan, int64_t *nnz);
/* Link v's rate, bytes/s: a host's own link at bw_link, a link between
 * switches at bw_uplink (unset: bw_link). */
double plan_link_rate(const struct tacio_topo *t, const struct tacio_hints *h, int v);
/* The busiest link's time, each link at plan_link_rate. Without a tree,
 * all off-node bytes through one link. */
double plan_link_seconds(const struct tacio_topo *t, const struct tacio_hints *h,
                         const struct tacio_plan *plan);
/* The share of the links' rates the plan's shuffle gets: bw_factors at its
 * mean crossing message (offnode_bytes / offnode_msgs). */
double plan_msg_factor(const struct tacio_hints *h, const struct tacio_plan *plan);
/* The steps of a tree collective (a gather, a broadcast) over nprocs
 * ranks, as the model charges them: ceil(log2 p), at least 1. */
double collective_hops(int nprocs);

/* The figures of a plan auto's cost model reads besides its metrics. */
struct model_in {
    int64_t max_nic;  /* off-host bytes into the busiest aggregator */
    int64_t max_copy; /* on-host bytes (from other ranks of its host) into the busiest one */
    int64_t max_msgs; /* messages into the busiest aggregator and out of the busiest sender */
};
/* auto's cost model's terms for plan (model.c's comment says what each
 * prices), at the hints' rates. */
void model_terms(const struct plan_ctx *ctx, const struct tacio_plan *plan,
                 const struct model_in *in, struct model_terms *out);
/* The plan's model_seconds, model_shuffle and model_io from its terms,
 * weighed by ctx's fit (NULL: the built-in model). */
void model_rate(const struct plan_ctx *ctx, struct tacio_plan *plan);

/* the pipeline with an explicit strategy (auto runs it per candidate) */
int plan_run(const struct plan_ctx *ctx, const struct tacio_strategy *s, struct tacio_plan **out);
/* The same on a partition given whole (a copy is planned) in place of
 * s->partition's; s has no plan override. */
int plan_run_partition(const struct plan_ctx *ctx, const struct tacio_strategy *s,
                       const struct partition *given, struct tacio_plan **out);
/* plan with each host's ranks' data gathered on the host's first rank
 * before the shuffle (intra-node aggregation): the same FDs and
 * aggregators, C's rows moved to the leaders, the metrics and model redone
 * and the gathering's own cost added. *out NULL when there is nothing to
 * gather (no host runs two ranks) or the plan kept no C. */
int plan_node_aggregated(const struct plan_ctx *ctx, const struct tacio_plan *plan,
                         struct tacio_plan **out);

#endif
