/* The engine's hints: the planner's (struct tacio_hints) and its own, which
 * only an MPI run has a use for (independent I/O, pipelining, intra-node
 * aggregation, the run-time topology), from the hints files, TACIO_HINTS
 * and the program's MPI_Info. */
#ifndef TACIO_EXEC_HINTS_H
#define TACIO_EXEC_HINTS_H

#include "../base/options.h"
#include "../plan/plan.h"

#include <mpi.h>

struct exec_hints {
    struct tacio_hints core; /* the planner's */
    /* ROMIO's romio_cb_write / romio_cb_read: OPT_ENABLE (always collective
     * buffering), OPT_DISABLE (independent I/O), OPT_AUTOMATIC (decided per
     * call: docs/architecture.md, "Independent I/O") */
    int cb_write, cb_read;
    int64_t ind_min_piece; /* automatic: a run shorter than this needs buffering; 0: the
                              file system's default (io_min_piece) */
    int pipeline;          /* tacio_pipeline: OPT_ENABLE, OPT_DISABLE, OPT_AUTOMATIC */
    /* tacio_recv_datatype: a write's aggregator receives pieces that are
     * scattered in its window through a datatype (OPT_ENABLE), staged and
     * copied (OPT_DISABLE), or (OPT_AUTOMATIC) through a datatype where the
     * MPI unpacks fast and the pieces are large enough (api.c) */
    int recv_datatype;
    /* tacio_node_aggregation: a host's ranks hand their access to its
     * leader; OPT_AUTOMATIC when the job spans real hosts and their pieces
     * average under node_agg_piece bytes (0, the default: never) */
    int node_aggregation;
    int64_t node_agg_piece;
    int64_t ranks_per_node; /* 0: real hosts */
    char topology[256];     /* "": one switch */
    int64_t mem_per_node;   /* 0: no cap */
    int64_t auto_trials;    /* auto: the model's candidates timed on repeated calls */
    int64_t kept_shapes;    /* the access shapes whose schedules a direction keeps (kept.h) */
    char wisdom[512];       /* auto: the file of learned choices (learned.h); "": none */
    /* what was made of the last ROMIO hint whose value tacio could not
     * take as given, in words (ignored, as ROMIO ignores it, or clamped);
     * "": none; not a hint itself */
    char ignored[512];
};

/* Lowest to highest precedence: the defaults, the hints files (ROMIO's,
 * then TACIO_HINTS_FILE), TACIO_HINTS, info; with a base (a file's hints),
 * only info goes over it. ROMIO's file is ROMIO_HINTS where it can be
 * read, else /etc/romio-hints where it can, else none, and its malformed
 * lines are skipped, as ROMIO does; TACIO_HINTS_FILE must be readable and
 * well formed. A ROMIO hint whose value does not parse is ignored and a
 * cb_buffer_size above 1 GiB clamped (out->ignored says which); a tacio_
 * one fails. */
int hints_from(const struct exec_hints *base, MPI_Info info, struct exec_hints *out);
/* Each hint of h that holds a value, the planner's then the engine's, as
 * text: fn(arg, key, value) (MPI_File_get_info). */
void exec_hints_each(const struct exec_hints *h,
                     void (*fn)(void *arg, const char *key, const char *value), void *arg);
/* Whether tacio serves the hint key: its own, and ROMIO's that it
 * interprets (not those it leaves to the MPI library). */
bool hints_served(const char *key);
/* h, the hints an info gave a file open with `open` (set_view, set_info):
 * those the file used at open only (its hosts, network, memory cap and
 * wisdom file)
 * keep open's values, and h->ignored says so where the info changed one,
 * as ROMIO ignores its open-only hints after open. */
void hints_keep_open_only(const struct exec_hints *open, struct exec_hints *h);
/* A digest of every hint's value: what ranks compare. */
uint64_t hints_digest(const struct exec_hints *h);
/* Every hint as "key=value key=value ..." (TACIO_PRINT_HINTS). */
int hints_text(const struct exec_hints *h, char *buf, size_t cap);

#endif
