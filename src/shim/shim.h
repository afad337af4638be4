/* The shim's state of one open file, shared by its parts: shim.c (open,
 * close, views, the collectives tacio serves), deferred.c (every other call
 * that reads the view while the library's is out of date) and sharedfp.c
 * (the shared file pointer of such a view). */
#ifndef TACIO_SHIM_H
#define TACIO_SHIM_H

#include "tacio.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* A view the program set that the library has not been given yet: setting
 * it costs the library a collective of its own (OMPIO's and ROMIO's
 * set_view synchronise the ranks), which a loop of one view per call pays
 * beside tacio's agreement. The library gets it at the first call that
 * needs the library's view and is collective (shim_library_view); until
 * then tacio serves every call that reads the view. */
struct pending_view {
    MPI_Offset disp;
    MPI_Datatype etype, filetype; /* duplicates, or the named types themselves */
    MPI_Info info;                /* a duplicate, or MPI_INFO_NULL */
};

struct shimfile {
    MPI_File fh;
    tacio_file_t tf;
    MPI_Comm comm; /* a duplicate of the file's: the shim's own agreements */
    int rank;
    bool native;   /* the current view's datarep is "native" */
    int esize;     /* the view's etype size: the pointers move in etypes */
    bool deferred; /* the library holds an older view than tacio's */
    struct pending_view view;
    int64_t epoch;  /* views set so far: a shared pointer of an older one is 0 */
    char *sfp_path; /* the file of a deferred view's shared pointer (sharedfp.c) */
    pthread_mutex_t sfp_lock;
    struct shimfile *next;
};

/* Whether the shim stays out of this call (TACIO_DISABLE, or MPI calling
 * MPI_File_* from inside an MPI_File_* call); depth is the re-entry count. */
bool shim_disabled(void);
extern _Thread_local int shim_depth;

/* The file's entry, or NULL: a file tacio does not know. */
struct shimfile *shim_lookup(MPI_File fh);

/* The file's entry if the library's view is out of date (tacio serves the
 * call), else NULL (the library does). */
struct shimfile *shim_deferred(MPI_File fh);

/* MPI_File_set_view, from C (fortran false: the view may be deferred) or
 * from the Fortran bindings (never deferred: see can_defer). */
int shim_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep, MPI_Info info, bool fortran);

/* Gives the library the view the program set last, with its individual
 * and shared pointers where tacio moved them. Collective: called at the
 * start of a collective call the library serves. */
int shim_library_view(struct shimfile *s);

/* sharedfp.c: a deferred view's shared file pointer, in a small file
 * beside the data file (as ROMIO keeps its own), under an fcntl lock. */
int sfp_fetch_add(struct shimfile *s, MPI_Offset add, MPI_Offset *old);
/* Collective: where the shared pointer stands, the same on every rank. */
int sfp_agreed(struct shimfile *s, MPI_Offset *at);
/* Collective, at close: rank 0 removes the pointer file, if there is one. */
void sfp_remove(struct shimfile *s);

#endif
