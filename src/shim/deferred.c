/* The calls that read the view, while the library's is out of date
 * (shim.h, struct pending_view). Each wrapper asks shim_deferred(): NULL,
 * and the library serves the call as it would without the shim.
 *   - independent data calls: tacio's own I/O through its view, at an
 *     explicit offset, at tacio's individual pointer, or at the shared
 *     pointer of sharedfp.c; the non-blocking ones complete at once and
 *     return a generalized request that holds their status;
 *   - pointers, byte offsets, the file's size and the view itself:
 *     tacio's;
 *   - collectives the library serves (split, non-blocking and ordered
 *     collectives, seek_shared, set_atomicity, preallocate): the library
 *     gets the view first (shim_library_view), then serves the call. */
#include "shim.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- independent data calls ---- */

enum where { AT, INDIVIDUAL, SHARED };

/* A shared-pointer call takes its place first: the pointer moves by what
 * the call asks for, whatever it then transfers (as in ROMIO). A count
 * that is not whole etypes moves nothing, and tacio's access fails it. */
static int shared_place(struct shimfile *s, MPI_Count count, MPI_Datatype dt, MPI_Offset *at)
{
    MPI_Count size = 0;
    MPI_Type_size_x(dt, &size);
    *at = 0;
    if (count < 0 || (count * size) % s->esize)
        return MPI_SUCCESS;
    return sfp_fetch_add(s, count * size / s->esize, at);
}

static int solo(struct shimfile *s, enum where w, MPI_Offset off, void *buf, MPI_Count count,
                MPI_Datatype dt, MPI_Status *st, bool write)
{
    int rc = w == SHARED ? shared_place(s, count, dt, &off) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    shim_depth++;
    if (w == INDIVIDUAL)
        rc = write ? tacio_file_write(s->tf, buf, count, dt, st)
                   : tacio_file_read(s->tf, buf, count, dt, st);
    else
        rc = write ? tacio_file_write_at(s->tf, off, buf, count, dt, st)
                   : tacio_file_read_at(s->tf, off, buf, count, dt, st);
    shim_depth--;
    return rc;
}

/* A non-blocking call's request, already complete: its status is the
 * transfer's byte count. */
static int query_done(void *extra, MPI_Status *st)
{
    MPI_Status_set_elements_x(st, MPI_BYTE, *(MPI_Count *)extra);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_done(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int cancel_done(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

static int solo_request(struct shimfile *s, enum where w, MPI_Offset off, void *buf,
                        MPI_Count count, MPI_Datatype dt, MPI_Request *req, bool write)
{
    MPI_Status st;
    MPI_Count *bytes = malloc(sizeof *bytes);
    if (!bytes)
        return MPI_ERR_NO_MEM;
    int rc = solo(s, w, off, buf, count, dt, &st, write);
    if (rc == MPI_SUCCESS)
        rc = MPI_Get_elements_x(&st, MPI_BYTE, bytes);
    if (rc == MPI_SUCCESS)
        rc = MPI_Grequest_start(query_done, free_done, cancel_done, bytes, req);
    if (rc != MPI_SUCCESS) {
        free(bytes);
        return rc;
    }
    return MPI_Grequest_complete(*req);
}

/* Blocking (B) and non-blocking (NB) wrappers of one independent call:
 * served while deferred, else the library's. Each is a function body's
 * statements, inside the braces its definition writes. */
#define B(name, where, write, ...)                                                                 \
    struct shimfile *s = shim_deferred(fh);                                                        \
    return s ? solo(s, where, off, (void *)buf, count, dt, st, write) : PMPI_##name(__VA_ARGS__)
#define NB(name, where, write, ...)                                                                \
    struct shimfile *s = shim_deferred(fh);                                                        \
    return s ? solo_request(s, where, off, (void *)buf, count, dt, req, write)                     \
             : PMPI_##name(__VA_ARGS__)

/* The individual and shared calls have no offset argument. */
#define NO_OFFSET const MPI_Offset off = 0

/* One independent call in each count type: int, and MPI-4's MPI_Count. */
#define INDEPENDENT(COUNT, SUFFIX)                                                                 \
    TACIO_API int MPI_File_write_at##SUFFIX(MPI_File fh, MPI_Offset off, const void *buf,          \
                                            COUNT count, MPI_Datatype dt, MPI_Status *st)          \
    {                                                                                              \
        B(File_write_at##SUFFIX, AT, true, fh, off, buf, count, dt, st);                           \
    }                                                                                              \
    TACIO_API int MPI_File_read_at##SUFFIX(MPI_File fh, MPI_Offset off, void *buf, COUNT count,    \
                                           MPI_Datatype dt, MPI_Status *st)                        \
    {                                                                                              \
        B(File_read_at##SUFFIX, AT, false, fh, off, buf, count, dt, st);                           \
    }                                                                                              \
    TACIO_API int MPI_File_iwrite_at##SUFFIX(MPI_File fh, MPI_Offset off, const void *buf,         \
                                             COUNT count, MPI_Datatype dt, MPI_Request *req)       \
    {                                                                                              \
        NB(File_iwrite_at##SUFFIX, AT, true, fh, off, buf, count, dt, req);                        \
    }                                                                                              \
    TACIO_API int MPI_File_iread_at##SUFFIX(MPI_File fh, MPI_Offset off, void *buf, COUNT count,   \
                                            MPI_Datatype dt, MPI_Request *req)                     \
    {                                                                                              \
        NB(File_iread_at##SUFFIX, AT, false, fh, off, buf, count, dt, req);                        \
    }                                                                                              \
    TACIO_API int MPI_File_write##SUFFIX(MPI_File fh, const void *buf, COUNT count,                \
                                         MPI_Datatype dt, MPI_Status *st)                          \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        B(File_write##SUFFIX, INDIVIDUAL, true, fh, buf, count, dt, st);                           \
    }                                                                                              \
    TACIO_API int MPI_File_read##SUFFIX(MPI_File fh, void *buf, COUNT count, MPI_Datatype dt,      \
                                        MPI_Status *st)                                            \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        B(File_read##SUFFIX, INDIVIDUAL, false, fh, buf, count, dt, st);                           \
    }                                                                                              \
    TACIO_API int MPI_File_iwrite##SUFFIX(MPI_File fh, const void *buf, COUNT count,               \
                                          MPI_Datatype dt, MPI_Request *req)                       \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        NB(File_iwrite##SUFFIX, INDIVIDUAL, true, fh, buf, count, dt, req);                        \
    }                                                                                              \
    TACIO_API int MPI_File_iread##SUFFIX(MPI_File fh, void *buf, COUNT count, MPI_Datatype dt,     \
                                         MPI_Request *req)                                         \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        NB(File_iread##SUFFIX, INDIVIDUAL, false, fh, buf, count, dt, req);                        \
    }                                                                                              \
    TACIO_API int MPI_File_write_shared##SUFFIX(MPI_File fh, const void *buf, COUNT count,         \
                                                MPI_Datatype dt, MPI_Status *st)                   \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        B(File_write_shared##SUFFIX, SHARED, true, fh, buf, count, dt, st);                        \
    }                                                                                              \
    TACIO_API int MPI_File_read_shared##SUFFIX(MPI_File fh, void *buf, COUNT count,                \
                                               MPI_Datatype dt, MPI_Status *st)                    \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        B(File_read_shared##SUFFIX, SHARED, false, fh, buf, count, dt, st);                        \
    }                                                                                              \
    TACIO_API int MPI_File_iwrite_shared##SUFFIX(MPI_File fh, const void *buf, COUNT count,        \
                                                 MPI_Datatype dt, MPI_Request *req)                \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        NB(File_iwrite_shared##SUFFIX, SHARED, true, fh, buf, count, dt, req);                     \
    }                                                                                              \
    TACIO_API int MPI_File_iread_shared##SUFFIX(MPI_File fh, void *buf, COUNT count,               \
                                                MPI_Datatype dt, MPI_Request *req)                 \
    {                                                                                              \
        NO_OFFSET;                                                                                 \
        NB(File_iread_shared##SUFFIX, SHARED, false, fh, buf, count, dt, req);                     \
    }

INDEPENDENT(int, )
#if MPI_VERSION >= 4
INDEPENDENT(MPI_Count, _c)
#endif

/* ---- pointers, offsets, the view ---- */

TACIO_API int MPI_File_seek(MPI_File fh, MPI_Offset off, int whence)
{
    struct shimfile *s = shim_deferred(fh);
    return s ? tacio_file_seek(s->tf, off, whence) : PMPI_File_seek(fh, off, whence);
}

TACIO_API int MPI_File_get_position(MPI_File fh, MPI_Offset *off)
{
    struct shimfile *s = shim_deferred(fh);
    return s ? tacio_file_get_position(s->tf, off) : PMPI_File_get_position(fh, off);
}

TACIO_API int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *off)
{
    struct shimfile *s = shim_deferred(fh);
    return s ? sfp_fetch_add(s, 0, off) : PMPI_File_get_position_shared(fh, off);
}

TACIO_API int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset off, MPI_Offset *disp)
{
    struct shimfile *s = shim_deferred(fh);
    return s ? tacio_file_get_byte_offset(s->tf, off, disp)
             : PMPI_File_get_byte_offset(fh, off, disp);
}

/* The library's own answer can depend on the older view it holds (OMPIO
 * fails it after taking a view with a negative displacement, which tacio
 * refuses), so while deferred the size comes from tacio. */
TACIO_API int MPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    struct shimfile *s = shim_deferred(fh);
    return s ? tacio_file_get_size(s->tf, size) : PMPI_File_get_size(fh, size);
}

/* MPI returns new handles of derived types, the named ones as they are. */
static MPI_Datatype handed_out(MPI_Datatype t)
{
    int ni, na, nt, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    MPI_Datatype dup = t;
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_dup(t, &dup);
    return dup;
}

TACIO_API int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype,
                                MPI_Datatype *filetype, char *datarep)
{
    struct shimfile *s = shim_deferred(fh);
    if (!s)
        return PMPI_File_get_view(fh, disp, etype, filetype, datarep);
    *disp = s->view.disp;
    *etype = handed_out(s->view.etype);
    *filetype = handed_out(s->view.filetype);
    snprintf(datarep, MPI_MAX_DATAREP_STRING, "native"); /* only native views are deferred */
    return MPI_SUCCESS;
}

/* The extent in the view's data representation: native, while deferred. */
TACIO_API int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype dt, MPI_Aint *extent)
{
    MPI_Aint lb;
    return shim_deferred(fh) ? MPI_Type_get_extent(dt, &lb, extent)
                             : PMPI_File_get_type_extent(fh, dt, extent);
}

#if MPI_VERSION >= 4
TACIO_API int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype dt, MPI_Count *extent)
{
    MPI_Count lb;
    return shim_deferred(fh) ? MPI_Type_get_extent_x(dt, &lb, extent)
                             : PMPI_File_get_type_extent_c(fh, dt, extent);
}
#endif

/* ---- collectives the library serves: it gets the view first ---- */

/* A function body's statements, inside the braces its definition writes. */
#define LIBRARY(call)                                                                              \
    struct shimfile *s = shim_deferred(fh);                                                        \
    int rc = s ? shim_library_view(s) : MPI_SUCCESS;                                               \
    return rc != MPI_SUCCESS ? rc : PMPI_##call

TACIO_API int MPI_File_seek_shared(MPI_File fh, MPI_Offset off, int whence)
{
    LIBRARY(File_seek_shared(fh, off, whence));
}

TACIO_API int MPI_File_set_atomicity(MPI_File fh, int flag)
{
    LIBRARY(File_set_atomicity(fh, flag));
}

/* OMPIO's preallocate reads and writes the file back through the view, at
 * the individual pointer (and moves that pointer when a write fails). */
TACIO_API int MPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    LIBRARY(File_preallocate(fh, size));
}

#define LIBRARY_COLLECTIVES(COUNT, SUFFIX)                                                         \
    TACIO_API int MPI_File_write_ordered##SUFFIX(MPI_File fh, const void *buf, COUNT count,        \
                                                 MPI_Datatype dt, MPI_Status *st)                  \
    {                                                                                              \
        LIBRARY(File_write_ordered##SUFFIX(fh, buf, count, dt, st));                               \
    }                                                                                              \
    TACIO_API int MPI_File_read_ordered##SUFFIX(MPI_File fh, void *buf, COUNT count,               \
                                                MPI_Datatype dt, MPI_Status *st)                   \
    {                                                                                              \
        LIBRARY(File_read_ordered##SUFFIX(fh, buf, count, dt, st));                                \
    }                                                                                              \
    TACIO_API int MPI_File_write_ordered_begin##SUFFIX(MPI_File fh, const void *buf, COUNT count,  \
                                                       MPI_Datatype dt)                            \
    {                                                                                              \
        LIBRARY(File_write_ordered_begin##SUFFIX(fh, buf, count, dt));                             \
    }                                                                                              \
    TACIO_API int MPI_File_read_ordered_begin##SUFFIX(MPI_File fh, void *buf, COUNT count,         \
                                                      MPI_Datatype dt)                             \
    {                                                                                              \
        LIBRARY(File_read_ordered_begin##SUFFIX(fh, buf, count, dt));                              \
    }                                                                                              \
    TACIO_API int MPI_File_write_all_begin##SUFFIX(MPI_File fh, const void *buf, COUNT count,      \
                                                   MPI_Datatype dt)                                \
    {                                                                                              \
        LIBRARY(File_write_all_begin##SUFFIX(fh, buf, count, dt));                                 \
    }                                                                                              \
    TACIO_API int MPI_File_read_all_begin##SUFFIX(MPI_File fh, void *buf, COUNT count,             \
                                                  MPI_Datatype dt)                                 \
    {                                                                                              \
        LIBRARY(File_read_all_begin##SUFFIX(fh, buf, count, dt));                                  \
    }                                                                                              \
    TACIO_API int MPI_File_write_at_all_begin##SUFFIX(                                             \
        MPI_File fh, MPI_Offset off, const void *buf, COUNT count, MPI_Datatype dt)                \
    {                                                                                              \
        LIBRARY(File_write_at_all_begin##SUFFIX(fh, off, buf, count, dt));                         \
    }                                                                                              \
    TACIO_API int MPI_File_read_at_all_begin##SUFFIX(MPI_File fh, MPI_Offset off, void *buf,       \
                                                     COUNT count, MPI_Datatype dt)                 \
    {                                                                                              \
        LIBRARY(File_read_at_all_begin##SUFFIX(fh, off, buf, count, dt));                          \
    }                                                                                              \
    TACIO_API int MPI_File_iwrite_all##SUFFIX(MPI_File fh, const void *buf, COUNT count,           \
                                              MPI_Datatype dt, MPI_Request *req)                   \
    {                                                                                              \
        LIBRARY(File_iwrite_all##SUFFIX(fh, buf, count, dt, req));                                 \
    }                                                                                              \
    TACIO_API int MPI_File_iread_all##SUFFIX(MPI_File fh, void *buf, COUNT count, MPI_Datatype dt, \
                                             MPI_Request *req)                                     \
    {                                                                                              \
        LIBRARY(File_iread_all##SUFFIX(fh, buf, count, dt, req));                                  \
    }                                                                                              \
    TACIO_API int MPI_File_iwrite_at_all##SUFFIX(MPI_File fh, MPI_Offset off, const void *buf,     \
                                                 COUNT count, MPI_Datatype dt, MPI_Request *req)   \
    {                                                                                              \
        LIBRARY(File_iwrite_at_all##SUFFIX(fh, off, buf, count, dt, req));                         \
    }                                                                                              \
    TACIO_API int MPI_File_iread_at_all##SUFFIX(MPI_File fh, MPI_Offset off, void *buf,            \
                                                COUNT count, MPI_Datatype dt, MPI_Request *req)    \
    {                                                                                              \
        LIBRARY(File_iread_at_all##SUFFIX(fh, off, buf, count, dt, req));                          \
    }

LIBRARY_COLLECTIVES(int, )
#if MPI_VERSION >= 4
LIBRARY_COLLECTIVES(MPI_Count, _c)
#endif
