/**
 * @file tacio.h
 * @brief tacio's collective MPI-IO API: two-phase I/O whose file domains and
 * aggregators come from a pluggable strategy (hint "tacio_strategy").
 *
 * Error rule (stated once for every function here): each function returns
 * MPI_SUCCESS or an MPI error code. The collective ones (open, close,
 * set_view, the *_all calls) agree on errors: if any rank fails, every rank
 * returns a code of the same MPI error class, and MPI_Error_string() on it
 * names the cause as the first failing rank saw it. No rank hangs and no byte
 * outside the extents being written changes.
 * With Open MPI the returned code is a dynamic one whose MPI_Error_string is
 * that message. MPICH 4.0.2 mislabels dynamic codes on predefined classes, so
 * there tacio returns the class itself; tacio_error_get_string() gives the
 * message with either MPI.
 *
 * Hints: ROMIO's (cb_nodes, cb_buffer_size, cb_config_list, striping_unit,
 * striping_factor) keep ROMIO's meaning; tacio's are prefixed "tacio_" (see
 * the README). TACIO_HINTS="k=v,k=v" in the environment adds hints under the
 * program's own. Hints must agree across ranks.
 */
#ifndef TACIO_H
#define TACIO_H

#include <mpi.h>
#include <stdint.h>

#include "tacio_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tacio_file *tacio_file_t;

/** Per-call statistics of the last collective call, in one table from which
 * the struct, the TACIO_STATS JSON line and the engine's reductions derive.
 * X(type, field, json key, scope), scope being how the value is taken:
 * TACIO_STAT_RANK (the calling rank's: times, in seconds), TACIO_STAT_PLAN
 * (the call's plan or decision, identical on every rank) or TACIO_STAT_MAX
 * (the most any rank had). Fields are only ever appended. view is not part
 * of total: it is the time the views set since the file's last collective
 * took (decoding and flattening the filetype), charged to the next call. */
#define TACIO_STATS_FIELDS(X)                                                                      \
    X(double, st1_access, "st1", TACIO_STAT_RANK)  /* this rank's access: view, memory type */     \
    X(double, st2_plan, "st2", TACIO_STAT_RANK)    /* the plan, or the reused schedule's check */  \
    X(double, st3_route, "st3", TACIO_STAT_RANK)   /* links: who sends whom what, per round */     \
    X(double, st4_shuffle, "st4", TACIO_STAT_RANK) /* waiting for the exchange */                  \
    X(double, st5_io, "st5", TACIO_STAT_RANK)      /* file I/O */                                  \
    X(double, total, "total", TACIO_STAT_RANK)     /* the whole call, entry to return */           \
    X(int64_t, bytes, "bytes", TACIO_STAT_PLAN)    /* data moved by the call, all ranks */         \
    X(int64_t, shuffle_bytes, "shuffle_bytes", TACIO_STAT_PLAN)                                    \
    X(int64_t, offnode_bytes, "offnode_bytes", TACIO_STAT_PLAN)                                    \
    X(int64_t, hop_bytes, "hop_bytes", TACIO_STAT_PLAN)                                            \
    X(int64_t, max_link_load, "max_link_load", TACIO_STAT_PLAN)                                    \
    X(int64_t, naggs, "naggs", TACIO_STAT_PLAN)                                                    \
    X(int64_t, rounds, "rounds", TACIO_STAT_PLAN)                                                  \
    X(int64_t, steps, "steps", TACIO_STAT_PLAN) /* collection steps per round (>1: Tsujita's) */   \
    X(int64_t, buffer_bytes, "buffer_bytes", TACIO_STAT_PLAN) /* the largest aggregator buffer */  \
    X(int64_t, meta_bytes, "meta_bytes", TACIO_STAT_MAX)      /* views, requests, plan */          \
    X(int64_t, peak_buffer_bytes, "peak_buffer_bytes", TACIO_STAT_MAX) /* data staged at once */   \
    X(int64_t, independent, "independent", TACIO_STAT_PLAN) /* 1: independent I/O served it */     \
    X(int64_t, pipelined, "pipelined", TACIO_STAT_PLAN)     /* 1: I/O overlapped the exchange */   \
    X(int64_t, node_aggregated, "node_aggregated", TACIO_STAT_MAX) /* 1: a host gathered first */  \
    X(int64_t, reused, "reused", TACIO_STAT_PLAN) /* 1: a kept schedule served it */               \
    X(double, view, "view", TACIO_STAT_RANK) /* set_view since the last call: decoding the type */ \
    X(double, unaccounted, "unaccounted", TACIO_STAT_RANK) /* total minus st1..st5 */              \
    X(int64_t, call_us, "call_us", TACIO_STAT_MAX) /* the slowest rank's call, microseconds */     \
    X(int64_t, trial, "trial", TACIO_STAT_PLAN) /* auto's trial: 1 the default, k >= 2 its k-1th   \
                                                 */                                                \
    X(int64_t, learned, "learned", TACIO_STAT_PLAN) /* 1: auto ran its wisdom file's choice */     \
    X(int64_t, predicted_us, "predicted_us", TACIO_STAT_PLAN) /* the model's time for the plan */  \
    X(int64_t, move_us, "move_us", TACIO_STAT_MAX) /* the slowest rank's call less st2 and the     \
                                                      links a new schedule lays out once (in st3): \
                                                      what a reused schedule pays (a call that     \
                                                      gathered its hosts first: less the pass that \
                                                      chose to, what its settled calls pay);       \
                                                      auto's trials compare it */                  \
    X(int64_t, model_shuffle_us, "model_shuffle_us", TACIO_STAT_PLAN) /* predicted_us' shuffle     \
                                                                         term alone */             \
    X(int64_t, model_io_us, "model_io_us", TACIO_STAT_PLAN) /* ...and its I/O term alone */

enum tacio_stat_scope { TACIO_STAT_RANK, TACIO_STAT_PLAN, TACIO_STAT_MAX };

/** ABI rule: set size to sizeof(struct tacio_stats) (TACIO_STATS_INIT does)
 * before tacio_file_get_stats, which fills at most size bytes: a program
 * built against an older, shorter struct gets the fields it knows. */
struct tacio_stats {
    size_t size;
    char op[16];       /**< "write_all", "read_at_all", ... */
    char strategy[32]; /**< the hint tacio_strategy ("auto" under auto) */
#define TACIO_STATS_MEMBER(type, field, key, scope) type field;
    TACIO_STATS_FIELDS(TACIO_STATS_MEMBER)
#undef TACIO_STATS_MEMBER
    /* planned is the last member: a field added to TACIO_STATS_FIELDS would
     * move it, so fields added from now on go after it */
    char planned[48]; /**< the strategy whose plan served the call ("" without a plan) */
};
#define TACIO_STATS_INIT                                                                           \
    {                                                                                              \
        .size = sizeof(struct tacio_stats)                                                         \
    }

TACIO_API int tacio_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info,
                              tacio_file_t *fh);
TACIO_API int tacio_file_close(tacio_file_t *fh);
/** Only datarep "native" is supported. */
TACIO_API int tacio_file_set_view(tacio_file_t fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char *datarep, MPI_Info info);
/** For a layer over an MPI library that keeps its own view of the same file
 * (the LD_PRELOAD shim): the view the MPI library accepted, on every rank,
 * without an agreement of its own. tacio takes any view the MPI library
 * took; one tacio cannot serve (a filetype whose size is not a multiple of
 * the etype's, an info hint it cannot parse) fails every later collective
 * access on every rank, with its reason, until the next view. */
TACIO_API int tacio_file_adopt_view(tacio_file_t fh, MPI_Offset disp, MPI_Datatype etype,
                                    MPI_Datatype filetype, const char *datarep, MPI_Info info);
/** The view, checked on this rank alone, without an agreement: for a layer
 * that sets the MPI library's view later, if ever (the shim). On failure
 * the error is this rank's and the view stays as it was. */
TACIO_API int tacio_file_set_view_local(tacio_file_t fh, MPI_Offset disp, MPI_Datatype etype,
                                        MPI_Datatype filetype, const char *datarep, MPI_Info info);
/** MPI_File_set_info: the info's hints over the file's, on every rank
 * (collective: hints that differ across ranks, or a tacio_ hint whose
 * value does not parse, fail on every rank and leave the file's as they
 * were; a ROMIO hint whose value does not parse is ignored, as at open).
 * The hints a file uses at open only (tacio_topology,
 * tacio_ranks_per_node, tacio_mem_per_node, tacio_wisdom) keep their
 * values, said on stderr, as ROMIO ignores its own open-only hints after
 * open. */
TACIO_API int tacio_file_set_info(tacio_file_t fh, MPI_Info info);
/** MPI_File_get_info: a new info object, which the caller frees, holding
 * every hint the file was given or set, each with its value (one left
 * unset, or set by tacio for the machine, such as the default
 * aggregators, is left out, and so is a value longer than the MPI's
 * MPI_MAX_INFO_VAL), so that on another open it gives the same hints. */
TACIO_API int tacio_file_get_info(tacio_file_t fh, MPI_Info *info_used);
/** 1 when tacio serves the hint key (its own, and the ROMIO hints it
 * interprets), 0 for one it leaves to the MPI library. */
TACIO_API int tacio_hints_served(const char *key);
TACIO_API int tacio_file_write_all(tacio_file_t fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_read_all(tacio_file_t fh, void *buf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_write_at_all(tacio_file_t fh, MPI_Offset offset, const void *buf,
                                      MPI_Count count, MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_read_at_all(tacio_file_t fh, MPI_Offset offset, void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Status *status);
/** Collective I/O of a list of the file's byte extents, with no datatype
 * (what PnetCDF's varn and HDF5's selections hold flattened): piece i is
 * lengths[i] bytes at byte offsets[i] of the file (not of the view), taken
 * from (or read into) buf in order, contiguously. The pieces must be sorted
 * by offset and must not overlap; offsets and lengths must not be negative;
 * otherwise every rank fails with MPI_ERR_ARG and nothing is written. The
 * view and the file pointer are left as they are. */
TACIO_API int tacio_file_write_list_all(tacio_file_t fh, MPI_Count n, const MPI_Offset offsets[],
                                        const MPI_Offset lengths[], const void *buf,
                                        MPI_Status *status);
TACIO_API int tacio_file_read_list_all(tacio_file_t fh, MPI_Count n, const MPI_Offset offsets[],
                                       const MPI_Offset lengths[], void *buf, MPI_Status *status);
/** Independent I/O: this rank alone, through the current view, at an
 * explicit offset (in etypes) or at the individual pointer, which then
 * moves past the data. Errors are this rank's; nothing is agreed. */
TACIO_API int tacio_file_write(tacio_file_t fh, const void *buf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_read(tacio_file_t fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                              MPI_Status *status);
TACIO_API int tacio_file_write_at(tacio_file_t fh, MPI_Offset offset, const void *buf,
                                  MPI_Count count, MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_read_at(tacio_file_t fh, MPI_Offset offset, void *buf, MPI_Count count,
                                 MPI_Datatype datatype, MPI_Status *status);
/** Individual file pointer, in etypes of the current view (MPI_SEEK_END:
 * from the first etype at or past the end of the file). */
TACIO_API int tacio_file_seek(tacio_file_t fh, MPI_Offset offset, int whence);
TACIO_API int tacio_file_get_position(tacio_file_t fh, MPI_Offset *offset);
/** The absolute byte offset in the file of etype `offset` of the view. */
TACIO_API int tacio_file_get_byte_offset(tacio_file_t fh, MPI_Offset offset, MPI_Offset *disp);
/** The file's size in bytes, this rank's view of it (not collective). */
TACIO_API int tacio_file_get_size(tacio_file_t fh, MPI_Offset *size);
/** The last collective's statistics, at most out->size bytes of them (see
 * struct tacio_stats); MPI_ERR_ARG when out->size cannot hold size itself. */
TACIO_API int tacio_file_get_stats(tacio_file_t fh, struct tacio_stats *out);

#ifdef __cplusplus
}
#endif
#endif
