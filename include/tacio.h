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
 * there tacio returns the class itself; tacio_error_string() gives the
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

/** Per-call statistics (the last collective call's). Times are seconds on
 * the calling rank; byte counts are the plan's, identical on every rank. */
struct tacio_stats {
    char op[16]; /**< "write_all", "read_at_all", ... */
    char strategy[32];
    double st1_access, st2_plan, st3_route, st4_shuffle, st5_io, total;
    int64_t bytes; /**< data moved by the call, all ranks */
    int64_t shuffle_bytes, offnode_bytes, hop_bytes, max_link_load;
    int naggs;
    int64_t rounds;
    int steps;                 /**< collection steps per round (>1: ordered, as Tsujita et al.) */
    int64_t buffer_bytes;      /**< the largest aggregator buffer the plan models */
    int64_t meta_bytes;        /**< the most metadata any rank held: views, requests, plan */
    int64_t peak_buffer_bytes; /**< the most data any rank had staged at once */
    int independent;           /**< 1: served by independent I/O (romio_cb_write/read disabled, or
                                    automatic and every rank's pieces at least tacio_ind_min_piece) */
    int pipelined;             /**< 1: each window's file I/O overlapped the next round's exchange
                                    (tacio_pipeline) */
    int node_aggregated;       /**< 1: some host's ranks handed their data to the host's leader
                                    first (tacio_node_aggregation) */
};

TACIO_API int tacio_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info,
                              tacio_file_t *fh);
TACIO_API int tacio_file_close(tacio_file_t *fh);
/** Only datarep "native" is supported. */
TACIO_API int tacio_file_set_view(tacio_file_t fh, MPI_Offset disp, MPI_Datatype etype,
                                  MPI_Datatype filetype, const char *datarep, MPI_Info info);
TACIO_API int tacio_file_write_all(tacio_file_t fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_read_all(tacio_file_t fh, void *buf, MPI_Count count,
                                  MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_write_at_all(tacio_file_t fh, MPI_Offset offset, const void *buf,
                                      MPI_Count count, MPI_Datatype datatype, MPI_Status *status);
TACIO_API int tacio_file_read_at_all(tacio_file_t fh, MPI_Offset offset, void *buf, MPI_Count count,
                                     MPI_Datatype datatype, MPI_Status *status);
/** Individual file pointer, in etypes of the current view. */
TACIO_API int tacio_file_seek(tacio_file_t fh, MPI_Offset offset, int whence);
TACIO_API int tacio_file_get_position(tacio_file_t fh, MPI_Offset *offset);
TACIO_API int tacio_file_get_stats(tacio_file_t fh, struct tacio_stats *out);
/** The message agreed for a code tacio returned (else MPI_Error_string's);
 * out holds MPI_MAX_ERROR_STRING bytes. */
TACIO_API int tacio_error_string(int code, char *out, int *len);

#ifdef __cplusplus
}
#endif
#endif
