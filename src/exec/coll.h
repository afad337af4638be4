/* The collective data path, above every stage: st1 this rank's access;
 * then the schedule the file kept from the last call of the same shape, if
 * every rank's access has that shape shifted by one common amount (one
 * agreement), else a new one (st2 the plan, st3 the links); then st4-st5
 * rounds, or independent I/O; the status and the stats. */
#ifndef TACIO_EXEC_COLL_H
#define TACIO_EXEC_COLL_H

#include "ofile.h"

/* A collective read or write of (buf, count, dt): at etype offset `offset`
 * (at), or at the individual pointer, which it then moves past the data
 * transferred. Returns the result every rank agreed on; *bytes is what this
 * rank transferred (its status: a read stops at the end of the file). */
int coll_run(struct tacio_file *f, bool at, int64_t offset, void *buf, int64_t count,
             MPI_Datatype dt, bool is_write, int64_t *bytes);

/* At close, rank 0 with a wisdom file: a shape whose trials had not ended,
 * two or more timed, or one and the next waiting (src/exec/trials.c's
 * TRIAL_BUDGET holds the costly ones back until the calls earn them), is
 * remembered as settled on the fastest it timed, so the next run starts
 * there. Before learned_close. */
void coll_trials_close(struct tacio_file *f);

/* The same access by this rank alone (MPI's independent calls): its own
 * I/O, no other rank, no agreement; the result is this rank's. */
int solo_run(struct tacio_file *f, bool at, int64_t offset, void *buf, int64_t count,
             MPI_Datatype dt, bool is_write, int64_t *bytes);

#endif
