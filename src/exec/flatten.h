/* Any MPI datatype as (offset, length) extents in typemap order, from
 * MPI_Type_get_envelope / MPI_Type_get_contents, never from the MPI
 * library's own flattening (ROMIO's is wrong for indexed-of-subarray views,
 * mpich issue 7169). Results are cached: on a derived type as an attribute
 * (freed with the type), a named type's for the life of the process. */
#ifndef TACIO_EXEC_FLATTEN_H
#define TACIO_EXEC_FLATTEN_H

#include "../base/util.h"
#include "../plan/view.h"

#include <mpi.h>

/* *out is borrowed: valid while t is, or while held (flat_hold). */
int flatten_type(MPI_Datatype t, struct flat **out);

#endif
