/* Independent I/O: each rank reads or writes its own pieces, straight from
 * or into its buffer where they are one run of it, through a bounce buffer
 * otherwise. When no other rank's access reaches into its span (the
 * schedule's sieve), a stretch of holey pieces is read-modify-written whole
 * when the holes cost less than the calls, as ROMIO's data sieving does. */
#ifndef TACIO_EXEC_INDEP_H
#define TACIO_EXEC_INDEP_H

#include "call.h"

/* This rank's I/O: 0 or its local failure (not agreed). */
int indep_run(struct call *c);

#endif
