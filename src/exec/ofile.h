/* An open file: what lives from open to close. The communicators, the
 * descriptor, the hints and the run-time topology; the view and the
 * individual file pointer; the buffers every call reuses (a round's
 * messages, its windows); and per direction the schedules of the last
 * shapes, which the next call of one of them runs again (kept.h). */
#ifndef TACIO_EXEC_OFILE_H
#define TACIO_EXEC_OFILE_H

#include "tacio.h"

#include "arena.h"
#include "hints.h"
#include "kept.h"
#include "learned.h"

#include <mpi.h>

struct fview {
    MPI_Offset disp;
    int64_t etype_size;
    struct flat *ft; /* the filetype's, held: the program may free its type */
    /* a view the engine could not take where the MPI library took it (the
     * shim's set_view): every access fails with it, on every rank */
    int err;
    char errmsg[400];
};

/* Round buffers: rounds alternate between two slots, so that pipelined
 * rounds fill one while the helper thread writes (or reads) the other. */
struct slot_mem {
    struct arena msgs; /* the round's messages and staged data */
    char *win;         /* its window */
    int64_t win_cap;
};

struct tacio_file {
    MPI_Comm comm;
    MPI_Comm host_comm; /* the ranks of this rank's (virtual) host */
    int rank, nprocs;
    int fd;
    char *path;
    int amode;
    struct exec_hints hints;
    uint64_t digest; /* hints_digest(&hints) */
    /* automatic independent I/O, [is_write]: a run shorter than this needs
     * collective buffering (tacio_ind_min_piece, else the file system's
     * default for the direction) */
    int64_t min_piece[2];
    /* an aggregator receives a link's scattered pieces into its window
     * through a datatype when they average this many bytes; -1: never
     * (tacio_recv_datatype: enable 0, disable -1, automatic by the MPI) */
    int64_t recv_typed_piece;
    bool page_cache; /* one machine, a local file system: every rank reads one page cache */
    /* cb_config_list is tacio's choice for the machine, not a hint given
     * (api.c, default_aggregators): get_info leaves it out */
    bool aggregators_derived;
    struct tacio_topo *topo; /* ranks placed on their (virtual) hosts */
    struct fview view;
    double view_seconds; /* the views set since the last collective took (stats) */
    int64_t fp;          /* individual file pointer, in etypes */
    struct tacio_stats last;
    struct slot_mem slot[2];
    char *stats_path; /* TACIO_STATS at open: rank 0 appends a line per call */
    /* [is_write]: the schedules of the last shapes, auto's trials on each */
    struct kept kept[2];
    struct learned learned; /* auto's wisdom file (rank 0) */
    /* auto's models fitted on the calls of this process on this machine
     * signature, [is_write] (profile.h; rank 0, NULL elsewhere) */
    struct model_fit *fit;
};

/* Installs a view (holding the filetype's flattening, so the caller may
 * free its type): 0, or a failure that leaves the file's view as it was. */
int view_install(struct tacio_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype);
void view_release(struct fview *v);
/* Window buffer of slot k, at least n bytes, kept for the next rounds. */
char *slot_window(struct tacio_file *f, int k, int64_t n);
void ofile_free(struct tacio_file *f);

#endif
