/* Fortran entry points of the shim, for Open MPI.
 *
 * Open MPI's Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) call the
 * PMPI_ C functions, never the MPI_File_* names the shim wraps, so a
 * Fortran program would bypass tacio. Here the Fortran symbols themselves
 * are defined: handles are converted and the call goes to the shim's C
 * wrapper, which serves it or passes it through as for a C program.
 * MPICH's mpif.h and `use mpi` bindings call the C MPI_ names, so they need
 * nothing. Its `use mpi_f08` ones open, close, set views and set and get
 * info through PMPI_, so those five are defined here; its data calls (the *_f08ts_ names) are
 * left to MPICH: they take the compiler's own array descriptor (gfortran's,
 * not the standard CFI_cdesc_t), turn it into a CFI descriptor, give a
 * non-contiguous section a datatype, and call the C MPI_File_* names,
 * which the shim serves. tests/fortran/run.sh checks all of them, with
 * strided and 2-D sections, on both MPIs.
 *
 * Names: gfortran's mpi_x_ and the other manglings Open MPI exports
 * (mpi_x, mpi_x__, MPI_X) for mpif.h and `use mpi`; mpi_x_f08_ for
 * `use mpi_f08`, whose ierror is optional (NULL when absent). Strings carry
 * their length as a trailing hidden argument (size_t since gfortran 8). */
#include "shim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

/* A Fortran string: blank-padded, not terminated. */
static char *c_string(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *out = malloc(len + 1);
    if (out) {
        memcpy(out, s, len);
        out[len] = '\0';
    }
    return out;
}

static void f_open(MPI_Fint *comm, const char *name, MPI_Fint *amode, MPI_Fint *info, MPI_Fint *fh,
                   MPI_Fint *ierr, size_t name_len)
{
    char *path = c_string(name, name_len);
    MPI_File c_fh = MPI_FILE_NULL;
    int rc = path
                 ? MPI_File_open(MPI_Comm_f2c(*comm), path, (int)*amode, MPI_Info_f2c(*info), &c_fh)
                 : MPI_ERR_NO_MEM;
    free(path);
    if (rc == MPI_SUCCESS)
        *fh = MPI_File_c2f(c_fh);
    set_ierr(ierr, rc);
}

static void f_close(MPI_Fint *fh, MPI_Fint *ierr)
{
    MPI_File c_fh = MPI_File_f2c(*fh);
    int rc = MPI_File_close(&c_fh);
    if (rc == MPI_SUCCESS)
        *fh = MPI_File_c2f(c_fh);
    set_ierr(ierr, rc);
}

static void f_set_view(MPI_Fint *fh, MPI_Offset *disp, MPI_Fint *etype, MPI_Fint *filetype,
                       const char *datarep, MPI_Fint *info, MPI_Fint *ierr, size_t rep_len)
{
    char *rep = c_string(datarep, rep_len);
    int rc = rep ? shim_set_view(MPI_File_f2c(*fh), *disp, MPI_Type_f2c(*etype),
                                 MPI_Type_f2c(*filetype), rep, MPI_Info_f2c(*info), true)
                 : MPI_ERR_NO_MEM;
    free(rep);
    set_ierr(ierr, rc);
}

static void f_set_info(MPI_Fint *fh, MPI_Fint *info, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_File_set_info(MPI_File_f2c(*fh), MPI_Info_f2c(*info)));
}

static void f_get_info(MPI_Fint *fh, MPI_Fint *info_used, MPI_Fint *ierr)
{
    MPI_Info used = MPI_INFO_NULL;
    int rc = MPI_File_get_info(MPI_File_f2c(*fh), &used);
    if (rc == MPI_SUCCESS)
        *info_used = MPI_Info_c2f(used);
    set_ierr(ierr, rc);
}

#ifdef OPEN_MPI
/* A collective at the individual pointer (at NULL) or at *at; the status
 * comes back as C's (the caller converts it, or passes NULL to ignore). */
static int c_collective(MPI_Fint *fh, const MPI_Offset *at, void *buf, MPI_Fint *count,
                        MPI_Fint *datatype, MPI_Status *st, int write)
{
    MPI_File f = MPI_File_f2c(*fh);
    MPI_Datatype t = MPI_Type_f2c(*datatype);
    st = st ? st : MPI_STATUS_IGNORE;
    if (at)
        return write ? MPI_File_write_at_all(f, *at, buf, (int)*count, t, st)
                     : MPI_File_read_at_all(f, *at, buf, (int)*count, t, st);
    return write ? MPI_File_write_all(f, buf, (int)*count, t, st)
                 : MPI_File_read_all(f, buf, (int)*count, t, st);
}

extern int mpi_fortran_bottom_ __attribute__((weak)); /* Fortran's MPI_BOTTOM */

/* The four manglings of one Fortran name, all for one C function. */
#define MANGLED(lower, upper, impl)                                                                \
    TACIO_API __typeof__(impl) lower##_ __attribute__((alias(#impl)));                             \
    TACIO_API __typeof__(impl) lower __attribute__((alias(#impl)));                                \
    TACIO_API __typeof__(impl) lower##__ __attribute__((alias(#impl)));                            \
    TACIO_API __typeof__(impl) upper __attribute__((alias(#impl)));                                \
    TACIO_API __typeof__(impl) lower##_f08_ __attribute__((alias(#impl)))

static void *c_buffer(void *buf)
{
    return &mpi_fortran_bottom_ && buf == (void *)&mpi_fortran_bottom_ ? MPI_BOTTOM : buf;
}

MANGLED(mpi_file_open, MPI_FILE_OPEN, f_open);

MANGLED(mpi_file_close, MPI_FILE_CLOSE, f_close);

MANGLED(mpi_file_set_view, MPI_FILE_SET_VIEW, f_set_view);

MANGLED(mpi_file_set_info, MPI_FILE_SET_INFO, f_set_info);

MANGLED(mpi_file_get_info, MPI_FILE_GET_INFO, f_get_info);

static int f_collective(MPI_Fint *fh, const MPI_Offset *at, void *buf, MPI_Fint *count,
                        MPI_Fint *datatype, MPI_Fint *status, int write)
{
    MPI_Status c_st;
    bool ignore = status == MPI_F_STATUS_IGNORE;
    int rc = c_collective(fh, at, c_buffer(buf), count, datatype, ignore ? NULL : &c_st, write);
    if (rc == MPI_SUCCESS && !ignore)
        MPI_Status_c2f(&c_st, status);
    return rc;
}

static void f_write_all(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *datatype,
                        MPI_Fint *status, MPI_Fint *ierr)
{
    set_ierr(ierr, f_collective(fh, NULL, buf, count, datatype, status, 1));
}
MANGLED(mpi_file_write_all, MPI_FILE_WRITE_ALL, f_write_all);

static void f_read_all(MPI_Fint *fh, void *buf, MPI_Fint *count, MPI_Fint *datatype,
                       MPI_Fint *status, MPI_Fint *ierr)
{
    set_ierr(ierr, f_collective(fh, NULL, buf, count, datatype, status, 0));
}
MANGLED(mpi_file_read_all, MPI_FILE_READ_ALL, f_read_all);

static void f_write_at_all(MPI_Fint *fh, MPI_Offset *at, void *buf, MPI_Fint *count,
                           MPI_Fint *datatype, MPI_Fint *status, MPI_Fint *ierr)
{
    set_ierr(ierr, f_collective(fh, at, buf, count, datatype, status, 1));
}
MANGLED(mpi_file_write_at_all, MPI_FILE_WRITE_AT_ALL, f_write_at_all);

static void f_read_at_all(MPI_Fint *fh, MPI_Offset *at, void *buf, MPI_Fint *count,
                          MPI_Fint *datatype, MPI_Fint *status, MPI_Fint *ierr)
{
    set_ierr(ierr, f_collective(fh, at, buf, count, datatype, status, 0));
}
MANGLED(mpi_file_read_at_all, MPI_FILE_READ_AT_ALL, f_read_at_all);
#endif

#ifdef MPICH
#define F08(name, impl) TACIO_API __typeof__(impl) name __attribute__((alias(#impl)))
F08(mpi_file_open_f08_, f_open);
F08(mpi_file_close_f08_, f_close);
F08(mpi_file_set_view_f08_, f_set_view);
F08(mpi_file_set_info_f08_, f_set_info);
F08(mpi_file_get_info_f08_, f_get_info);
#endif
