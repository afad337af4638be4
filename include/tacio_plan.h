/**
 * @file tacio_plan.h
 * @brief tacio's planning core: no MPI, pure functions from (access pattern,
 * topology, hints, free memory) to a collective I/O plan.
 *
 * Error rule (stated once for every function here): functions return 0 on
 * success or a negative TACIO_E* code; tacio_error_get_string() names the code
 * with the one-line detail of the calling thread's most recent failure.
 * Nothing here calls exit() or abort().
 */
#ifndef TACIO_PLAN_H
#define TACIO_PLAN_H

/* What the libraries export: the public API only (built with hidden
 * visibility, so no internal name can clash with an application's). */
#if defined(__GNUC__)
#define TACIO_API __attribute__((visibility("default")))
#else
#define TACIO_API
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Error codes. The file API (tacio.h) returns them as MPI error codes of
 * the class named after each. */
enum tacio_error {
    TACIO_OK = 0,
    TACIO_EINVAL = -1,       /**< malformed spec, hint or argument (MPI_ERR_ARG) */
    TACIO_ENOMEM = -2,       /**< allocation failed (MPI_ERR_NO_MEM) */
    TACIO_EIO = -3,          /**< a file could not be read or written (MPI_ERR_IO) */
    TACIO_ERANGE = -4,       /**< a value is out of its allowed range (MPI_ERR_ARG) */
    TACIO_EUNSUPPORTED = -5, /**< a valid request this combination cannot serve
                                  (MPI_ERR_UNSUPPORTED_OPERATION) */
    TACIO_ENOSPC = -6,       /**< no space left, or over quota (MPI_ERR_NO_SPACE) */
    TACIO_EREADONLY = -7,    /**< a read-only file or file system (MPI_ERR_READ_ONLY) */
    TACIO_EACCESS = -8,      /**< permission denied, or the wrong access mode (MPI_ERR_ACCESS) */
    TACIO_ENOENT = -9,       /**< no such file (MPI_ERR_NO_SUCH_FILE) */
    TACIO_EEXIST = -10,      /**< the file exists (MPI_ERR_FILE_EXISTS) */
    TACIO_EAMODE = -11,      /**< an invalid access mode (MPI_ERR_AMODE) */
    TACIO_ECOUNT = -12,      /**< an invalid count (MPI_ERR_COUNT) */
    TACIO_EDATAREP = -13,    /**< an unsupported data representation
                                  (MPI_ERR_UNSUPPORTED_DATAREP) */
    TACIO_ETYPE = -14,       /**< an invalid datatype (MPI_ERR_TYPE) */
    TACIO_ECOMM = -15        /**< a message exchange failed (MPI_ERR_OTHER) */
};

/** Room tacio_error_get_string() needs in its output buffer. */
#define TACIO_MAX_ERROR_STRING 256 /* no more than either MPI's MPI_MAX_ERROR_STRING */
/** The text of a code tacio returned: a TACIO_E* code of the plan API
 * ("invalid argument: hint cb_nodes=x is not a size; ..."), with the detail
 * of the calling thread's most recent failure when that failure had this
 * code; or an MPI error code of the file API (tacio.h), with the message
 * every rank agreed on ("tacio: rank 3: pwrite of 977 bytes at offset ...:
 * No space left on device"), or else the MPI library's MPI_Error_string.
 * @p out holds TACIO_MAX_ERROR_STRING bytes; *len gets the length. Returns
 * 0, or TACIO_EINVAL for a positive code where no MPI engine is linked. */
TACIO_API int tacio_error_get_string(int code, char *out, int *len);

/** The API's version: TACIO_API_VERSION at build time, tacio_api_get_version()
 * at run time, (major << 16) | (minor << 8) | patch. */
#define TACIO_API_VERSION 0x000500
TACIO_API unsigned tacio_api_get_version(void);

/* Opaque handles, each usable as a typedef or as the struct pointer. */
struct tacio_topo;
struct tacio_pattern;
struct tacio_hints;
struct tacio_plan;
typedef struct tacio_topo *tacio_topo_t;
typedef struct tacio_pattern *tacio_pattern_t;
typedef struct tacio_hints *tacio_hints_t;
typedef struct tacio_plan *tacio_plan_t;

/** Parse a topology spec: one of the registry's forms (tree:, fattree:,
 * dragonfly:, flat:, slurm:, dist:; tacio_topo_kind_get_form). */
TACIO_API int tacio_topo_parse(const char *spec, struct tacio_topo **out);
TACIO_API void tacio_topo_free(struct tacio_topo *topo);

/** The registry of topology kinds, as tacio_pattern_kind_get_* for patterns. */
TACIO_API int tacio_topo_kind_get_count(void);
TACIO_API const char *tacio_topo_kind_get_name(int i);
TACIO_API const char *tacio_topo_kind_get_form(int i);
TACIO_API const char *tacio_topo_kind_get_summary(int i);

/**
 * Place @p nprocs ranks on the topology: "block", "cyclic" or
 * "scatter:seed=S". @p nprocs may be 0 for dist: topologies (they fix it).
 */
TACIO_API int tacio_topo_place(struct tacio_topo *topo, const char *placement, int nprocs);

/** Parse an access pattern spec for @p nprocs ranks (0: the pattern decides):
 * one of the registry's forms (tacio_pattern_kind_get_form). */
TACIO_API int tacio_pattern_parse(const char *spec, int nprocs, struct tacio_pattern **out);
TACIO_API int tacio_pattern_get_nprocs(const struct tacio_pattern *pat);
TACIO_API void tacio_pattern_free(struct tacio_pattern *pat);

/** A pattern's closed form, for programs that write or check what the
 * planner plans (bench/common/pattern.h): fn(off, len, ctx) for each extent
 * of @p rank's data in increasing offset order (adjacent extents may touch);
 * stops at fn's first nonzero return and returns it. TACIO_EINVAL for a
 * rank outside [0, nprocs). */
typedef int (*tacio_extent_fn)(int64_t off, int64_t len, void *ctx);
TACIO_API int tacio_pattern_walk(const struct tacio_pattern *pat, int rank, tacio_extent_fn fn,
                                 void *ctx);
/** Bytes of @p rank's data below file offset @p x; of every rank's for
 * rank -1. TACIO_EINVAL (negative) for a rank outside [-1, nprocs). */
TACIO_API int64_t tacio_pattern_get_bytes_below(const struct tacio_pattern *pat, int rank,
                                                int64_t x);
/** [lo, hi): the file range holding every rank's data (0, 0 when none). */
TACIO_API void tacio_pattern_get_range(const struct tacio_pattern *pat, int64_t *lo, int64_t *hi);

/** The registry of pattern kinds, in the order users meet them: i in
 * [0, count); NULL outside. The form is the spec as users write it
 * ("cube:n=N[,elem=8]"), the summary one line on its meaning. */
TACIO_API int tacio_pattern_kind_get_count(void);
TACIO_API const char *tacio_pattern_kind_get_name(int i);
TACIO_API const char *tacio_pattern_kind_get_form(int i);
TACIO_API const char *tacio_pattern_kind_get_summary(int i);

/** Hints, with ROMIO's names and defaults where they exist. */
TACIO_API int tacio_hints_new(struct tacio_hints **out);
TACIO_API int tacio_hints_set(struct tacio_hints *hints, const char *key, const char *value);
TACIO_API void tacio_hints_free(struct tacio_hints *hints);

/**
 * Free memory per host for the memory-conscious strategy: "BYTES",
 * "normal:mean=M,sd=S,seed=K" or "file:PATH" (lines "host-index bytes").
 */
TACIO_API int tacio_topo_set_memory(struct tacio_topo *topo, const char *spec);
/** A host's free memory as set by tacio_topo_set_memory, or -1 when none
 * was set (or @p host is out of range). */
TACIO_API int64_t tacio_topo_get_host_memory(const struct tacio_topo *topo, int host);

/** Hosts with at least one rank, once ranks are placed. */
TACIO_API int tacio_topo_get_nused_hosts(const struct tacio_topo *topo);
/** The host index of a placed rank, or -1 when @p rank is not placed. */
TACIO_API int tacio_topo_get_rank_host(const struct tacio_topo *topo, int rank);
/** The rank count a dist: topology fixes (0 for the others). */
TACIO_API int tacio_topo_get_fixed_nprocs(const struct tacio_topo *topo);

/** The spec's kind: "tree", "fattree", "dragonfly", "flat", "slurm" or "dist". */
TACIO_API const char *tacio_topo_get_kind(const struct tacio_topo *topo);
/** Ranks a host takes (the spec's cores=). */
TACIO_API int tacio_topo_get_cores(const struct tacio_topo *topo);
/** Vertices of the tree (switches and hosts; 0 for dist: topologies). */
TACIO_API int tacio_topo_get_nverts(const struct tacio_topo *topo);
/** Hosts of the cluster, placed or not (0 for dist: topologies). */
TACIO_API int tacio_topo_get_nhosts(const struct tacio_topo *topo);
/** The tree vertex of host @p host, or -1 out of range. */
TACIO_API int tacio_topo_get_host_vertex(const struct tacio_topo *topo, int host);
struct tacio_vertex_info {
    const char *name; /**< owned by the topology */
    int parent;       /**< -1 for the root */
    int depth;        /**< 0 for the root */
    int is_host;
};
TACIO_API int tacio_topo_get_vertex(const struct tacio_topo *topo, int v,
                                    struct tacio_vertex_info *out);

/** Strategies, in the registry's order: names are what tacio_strategy takes. */
TACIO_API int tacio_strategy_get_count(void);
/** The name, or NULL when @p i is out of range. */
TACIO_API const char *tacio_strategy_get_name(int i);
/** One line on where it comes from and what it does, or NULL. */
TACIO_API const char *tacio_strategy_get_summary(int i);
/** 1 when auto rates and tries strategy @p i (at 1, 2 and 4 aggregators per
 * node, each also with node aggregation first); 0 otherwise or out of range. */
TACIO_API int tacio_strategy_is_auto_candidate(int i);

/** Compute a plan with the strategy named in the hints (tacio_strategy).
 * The plan owns everything it points to: free the plan, the topology and the
 * pattern in any order. */
TACIO_API int tacio_plan_compute(const struct tacio_pattern *pat, const struct tacio_topo *topo,
                                 const struct tacio_hints *hints, struct tacio_plan **out);
/** The plan the MPI engine makes for the same job: its rank 0 never sees
 * the pattern, only each rank's access summary (its span, or for a
 * strategy that reads the byte distribution, mccio and cuts, 16 runs of
 * equal bytes) and each rank's exact row of bytes per file domain. Equal
 * to tacio_plan_compute's for the other strategies; mccio's and cuts'
 * boundaries can differ. TACIO_EINVAL for auto, which first asks the
 * ranks whether to send their byte quantiles at all. */
TACIO_API int tacio_plan_compute_as_engine(const struct tacio_pattern *pat,
                                           const struct tacio_topo *topo,
                                           const struct tacio_hints *hints,
                                           struct tacio_plan **out);
TACIO_API void tacio_plan_free(struct tacio_plan *plan);

/** Write the plan as one JSON object (no trailing newline); TACIO_EIO when
 * the stream reports an error (a full disk, a closed pipe). */
TACIO_API int tacio_plan_write_json(const struct tacio_plan *plan, FILE *out);

/** The strategy that made the plan ("auto" for auto's choice). */
TACIO_API const char *tacio_plan_get_strategy(const struct tacio_plan *plan);
/** Notes on the plan: auto's choice, clamped hints, the solver ("" if none). */
TACIO_API const char *tacio_plan_get_detail(const struct tacio_plan *plan);
TACIO_API int tacio_plan_get_nprocs(const struct tacio_plan *plan);
/** File domains: one per aggregator. */
TACIO_API int tacio_plan_get_nfds(const struct tacio_plan *plan);

/** One file domain: bytes [start, end) of the file, or with unit > 0 the
 * stripes [start + k*stride, start + k*stride + unit) inside it. */
struct tacio_fd_info {
    int64_t start, end, unit, stride;
    int64_t bytes;  /**< data the ranks access in it */
    int64_t memory; /**< buffer its aggregator holds (the model's) */
    int aggregator; /**< the rank that serves it */
};
/** Returns TACIO_EINVAL when @p fd is not in [0, nfds). */
TACIO_API int tacio_plan_get_fd(const struct tacio_plan *plan, int fd, struct tacio_fd_info *out);

/** What the plan costs (README "Metrics"). */
struct tacio_plan_metrics {
    int64_t total_bytes, shuffle_bytes, offnode_bytes, hop_bytes;
    int64_t max_link_load; /**< -1: no tree to route over (dist: topologies) */
    int64_t max_agg_bytes, max_agg_mem, messages, rounds;
    int naggs;
    int max_step_fanin; /**< aggregators pulling from one host in one step */
    int mem_shortfall;  /**< mccio: FDs on hosts below tacio_mem_min */
    int64_t lap_cost;   /**< the optimum the LAP solver reported, -1 if none ran */
    double model_seconds, plan_seconds;
};
TACIO_API void tacio_plan_get_metrics(const struct tacio_plan *plan,
                                      struct tacio_plan_metrics *out);

/** Links of the topology's tree (one per vertex: to its parent); 0 when the
 * topology has no tree. */
TACIO_API int tacio_plan_get_nlinks(const struct tacio_plan *plan);
struct tacio_link_info {
    const char *name;  /**< the vertex below the link (owned by the plan) */
    const char *above; /**< the vertex above it; NULL for the root's (no link) */
    int64_t up, down;  /**< bytes the plan sends over it each way */
};
/** Returns TACIO_EINVAL when @p link is not in [0, nlinks). */
TACIO_API int tacio_plan_get_link(const struct tacio_plan *plan, int link,
                                  struct tacio_link_info *out);

/** The ranks feeding FD @p fd in the order its aggregator collects from them
 * (Tsujita et al.): their count, and *senders (owned by the plan). 0 and
 * NULL when the plan does not order collection or fd is out of range; -1
 * and NULL when it does but is too large to list them (plans keep the
 * communication matrix, from which the lists come, up to 2^24 entries: a
 * million ranks on 1 MiB stripes meet about 10^9; the metrics cover every
 * entry all the same). */
TACIO_API int64_t tacio_plan_get_order(const struct tacio_plan *plan, int fd, const int **senders);

/** Hop-bytes if @p rank served FD @p fd: the plan's data for that FD times
 * each holder's distance to the rank (the TATP paper's W = D*C); 0 out of
 * range; -1 when the plan is too large to keep C (see tacio_plan_get_order). */
TACIO_API int64_t tacio_plan_get_hop_bytes(const struct tacio_plan *plan,
                                           const struct tacio_topo *topo, int rank, int fd);

/** Wisdom files: the choices auto's trials settled on, remembered across
 * runs (tacio_wisdom, TACIO_WISDOM; docs/usage.md, "Wisdom").
 * tacio_wisdom_print writes the file's entries to @p out, one a line
 * numbered from 0 (@p index -1), or entry @p index field by field.
 * tacio_wisdom_forget removes entry @p index, or every entry (-1: also the
 * way to reset a file that no longer parses), under the file's lock, as
 * jobs update it. Both return 0 or a TACIO_E* code. */
TACIO_API int tacio_wisdom_print(const char *path, int index, FILE *out);
TACIO_API int tacio_wisdom_forget(const char *path, int index);

#ifdef __cplusplus
}
#endif
#endif
