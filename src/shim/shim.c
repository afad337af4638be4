/* libtacio_mpiio.so: LD_PRELOAD interposition of MPI_File_* (PMPI).
 *
 * MPI_File_open still opens the file through the MPI library, so the handle
 * serves everything tacio leaves alone (independent and non-blocking I/O,
 * shared pointers, sizes, ...); tacio opens the same file beside it. The
 * blocking collectives go to tacio when it can serve them (native datarep,
 * atomic mode off), else straight to PMPI, as does everything when
 * TACIO_DISABLE=1. The individual file pointer lives in the MPI library: a
 * collective reads it, and moves it past the data afterwards. */
#include "tacio.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct shimfile {
    MPI_File fh;
    tacio_file_t tf;
    bool native; /* the current view's datarep is "native" */
    int esize;   /* the view's etype size: the pointer moves in etypes */
    struct shimfile *next;
};

static struct shimfile *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER; /* MPI_THREAD_MULTIPLE */
static _Thread_local int depth; /* re-entry guard: MPI calling MPI_File_* itself */

/* TACIO_DISABLE, read once: a collective asks at every call. */
static int disable_env = -1;

static bool disabled(void)
{
    if (disable_env < 0) {
        const char *e = getenv("TACIO_DISABLE");
        disable_env = e && *e && strcmp(e, "0");
    }
    return depth > 0 || disable_env;
}

/* A file's entry stays valid while its handle is open: only MPI_File_close,
 * on the thread that owns the handle, removes it. */
static struct shimfile *lookup(MPI_File fh)
{
    pthread_mutex_lock(&files_lock);
    struct shimfile *s = files;
    while (s && s->fh != fh)
        s = s->next;
    pthread_mutex_unlock(&files_lock);
    return s;
}

/* The file tacio serves this call for, or NULL: pass through. */
static struct shimfile *served(MPI_File fh)
{
    struct shimfile *s = disabled() ? NULL : lookup(fh);
    int atomic = 0;
    if (s)
        PMPI_File_get_atomicity(fh, &atomic);
    return s && s->native && !atomic ? s : NULL;
}

TACIO_API int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                            MPI_File *fh)
{
    int rc = PMPI_File_open(comm, filename, amode, info, fh);
    if (rc != MPI_SUCCESS || disabled())
        return rc;
    struct shimfile *s = calloc(1, sizeof *s);
    int ok = s != NULL, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(s);
        return rc; /* tacio stays out of this file; MPI serves it */
    }
    /* MPI created (or refused) the file already; tacio only opens it */
    int mode = amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE);
    depth++;
    rc = tacio_file_open(comm, filename, mode, info, &s->tf);
    depth--;
    if (rc != MPI_SUCCESS) {
        PMPI_File_close(fh);
        free(s);
        return rc;
    }
    s->fh = *fh;
    s->native = true;
    s->esize = 1;
    pthread_mutex_lock(&files_lock);
    s->next = files;
    files = s;
    pthread_mutex_unlock(&files_lock);
    return MPI_SUCCESS;
}

TACIO_API int MPI_File_close(MPI_File *fh)
{
    pthread_mutex_lock(&files_lock);
    struct shimfile **link = &files, *s;
    while (*link && (*link)->fh != *fh)
        link = &(*link)->next;
    if ((s = *link))
        *link = s->next;
    pthread_mutex_unlock(&files_lock);
    int rc = MPI_SUCCESS;
    if (s) {
        depth++;
        rc = tacio_file_close(&s->tf);
        depth--;
        free(s);
    }
    int rc2 = PMPI_File_close(fh);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* tacio takes the view the library holds: collectives (tacio's) and
 * independent calls (the library's) then see one view. */
static int adopt(struct shimfile *s, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                 const char *datarep, MPI_Info info)
{
    s->native = !datarep || !strcmp(datarep, "native");
    if (!s->native)
        return MPI_SUCCESS; /* MPI serves this view's data conversion */
    MPI_Type_size(etype, &s->esize);
    depth++;
    int rc = tacio_file_adopt_view(s->tf, disp, etype, filetype, "native", info);
    depth--;
    return rc;
}

static void free_derived(MPI_Datatype t)
{
    int ni, na, nt, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&t);
}

/* After a set_view the library refused, its view may still have changed
 * (OMPIO keeps the displacement of a view whose filetype it then rejects):
 * tacio follows what the library reports. */
static void follow_library(struct shimfile *s)
{
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char rep[MPI_MAX_DATAREP_STRING];
    if (PMPI_File_get_view(s->fh, &disp, &etype, &filetype, rep) != MPI_SUCCESS)
        return;
    adopt(s, disp, etype, filetype, rep, MPI_INFO_NULL);
    free_derived(etype);
    free_derived(filetype);
}

/* The MPI library sees the view first, and agrees on it as it does; tacio
 * then takes the same view (tacio_file_adopt_view), never refusing one the
 * library took: what tacio cannot serve fails the next collective on every
 * rank instead. So the two never hold different views. */
TACIO_API int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    struct shimfile *s = disabled() ? NULL : lookup(fh);
    if (s && rc != MPI_SUCCESS)
        follow_library(s);
    if (rc != MPI_SUCCESS || !s)
        return rc;
    return adopt(s, disp, etype, filetype, datarep, info);
}

/* A collective through tacio, at `at` or at MPI's individual pointer,
 * which then moves past the bytes transferred (a read stops at the end of
 * the file, and so does the pointer, as in ROMIO). */
static int via_tacio(struct shimfile *s, const MPI_Offset *at, void *buf, MPI_Count count,
                     MPI_Datatype dt, MPI_Status *st, bool write)
{
    MPI_Offset pos;
    int rc = at ? MPI_SUCCESS : PMPI_File_get_position(s->fh, &pos);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Status mine;
    MPI_Status *use = st == MPI_STATUS_IGNORE ? &mine : st;
    depth++;
    rc = write ? tacio_file_write_at_all(s->tf, at ? *at : pos, buf, count, dt, use)
               : tacio_file_read_at_all(s->tf, at ? *at : pos, buf, count, dt, use);
    depth--;
    if (rc != MPI_SUCCESS || at)
        return rc;
    MPI_Count bytes = 0;
    MPI_Get_elements_x(use, MPI_BYTE, &bytes);
    return PMPI_File_seek(s->fh, pos + (MPI_Offset)bytes / s->esize, MPI_SEEK_SET);
}

TACIO_API int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype dt,
                                 MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, NULL, (void *)buf, count, dt, st, true)
             : PMPI_File_write_all(fh, buf, count, dt, st);
}

TACIO_API int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, NULL, buf, count, dt, st, false)
             : PMPI_File_read_all(fh, buf, count, dt, st);
}

TACIO_API int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int count,
                                    MPI_Datatype dt, MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, &off, (void *)buf, count, dt, st, true)
             : PMPI_File_write_at_all(fh, off, buf, count, dt, st);
}

TACIO_API int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int count,
                                   MPI_Datatype dt, MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, &off, buf, count, dt, st, false)
             : PMPI_File_read_at_all(fh, off, buf, count, dt, st);
}

#if MPI_VERSION >= 4
/* MPI-4 large-count names: MPICH 4 programs (IOR among them) call these. */
TACIO_API int MPI_File_write_all_c(MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype dt,
                                   MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, NULL, (void *)buf, count, dt, st, true)
             : PMPI_File_write_all_c(fh, buf, count, dt, st);
}

TACIO_API int MPI_File_read_all_c(MPI_File fh, void *buf, MPI_Count count, MPI_Datatype dt,
                                  MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, NULL, buf, count, dt, st, false)
             : PMPI_File_read_all_c(fh, buf, count, dt, st);
}

TACIO_API int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset off, const void *buf, MPI_Count count,
                                      MPI_Datatype dt, MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, &off, (void *)buf, count, dt, st, true)
             : PMPI_File_write_at_all_c(fh, off, buf, count, dt, st);
}

TACIO_API int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset off, void *buf, MPI_Count count,
                                     MPI_Datatype dt, MPI_Status *st)
{
    struct shimfile *s = served(fh);
    return s ? via_tacio(s, &off, buf, count, dt, st, false)
             : PMPI_File_read_at_all_c(fh, off, buf, count, dt, st);
}
#endif
