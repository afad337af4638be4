/* Collective calls agree on errors: every rank passes its local result (0,
 * or a negative TACIO_E* code with the thread's tacio_last_error() as its
 * message) and every rank returns the first failing rank's code, whose
 * message ("tacio: rank R: ...") becomes its own last error. Only the file
 * API's boundary (api.c) turns an agreed code into an MPI error code. */
#ifndef TACIO_EXEC_AGREE_H
#define TACIO_EXEC_AGREE_H

#include "../base/util.h"

#include <mpi.h>

int agree(MPI_Comm comm, int local);
/* The same agreement, also taking the maximum over ranks of n <=
 * AGREE_MAX_VALS values (vals, in place): one allreduce for both. */
#define AGREE_MAX_VALS 15
int agree_max(MPI_Comm comm, int local, int64_t *vals, int n);
/* An errno as the TACIO_E* code of its kind, with "message: strerror". */
int fail_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The file API's return value for a result: MPI_SUCCESS, or an MPI error
 * code of the code's class whose message is the last error's. */
int api_result(int rc);

#endif
