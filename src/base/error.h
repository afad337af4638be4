/* Errors inside tacio: every internal function returns 0 or a negative
 * TACIO_E* code and records a one-line message for the calling thread
 * (tacio_fail); the public boundaries turn that into what their callers get
 * (the plan API returns the code, the file API an MPI error code). The one
 * public text function, tacio_error_get_string, names either kind of code. */
#ifndef TACIO_ERROR_H
#define TACIO_ERROR_H

#include "tacio_plan.h"

/* Record a detailed message for the calling thread and return @p code. */
int tacio_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The calling thread's last message ("" if none), and the code it was
 * recorded with. */
const char *tacio_last_error(void);
int tacio_last_code(void);
/* The name of a TACIO_E* code ("invalid argument", ...). */
const char *error_name(int code);
/* The MPI engine's text for the codes it returns (positive: MPI codes):
 * tacio_error_get_string asks it. 0 when it wrote out, else the code is not
 * one it knows. */
typedef int (*error_resolver)(int code, char *out, int *len);
void error_set_resolver(error_resolver fn);

#endif
