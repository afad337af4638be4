/* auto's model fitted on this process's calls (src/plan/fit.h), one pair
 * (reads, writes) per machine signature: the wisdom key's parts that hold
 * for a whole file (ranks, hosts, ranks per host, MPI, file system,
 * machine). Kept for the process, not the file, so that a program that
 * writes each file once (a checkpoint, a history file a step) plans its
 * next file with what the calls on its last ones measured. Rank 0 only:
 * it plans every call. */
#ifndef TACIO_EXEC_PROFILE_H
#define TACIO_EXEC_PROFILE_H

#include "../base/wisdom.h"
#include "../plan/fit.h"

/* Every use of a fit from profile_fit (observing, seeding, reading it
 * whole) holds this lock: files on different communicators may run their
 * collectives from different threads and share a machine's fits. */
void profile_lock(void);
void profile_unlock(void);
/* The fits ([is_write]) for signature at (its op, sig and hints are not
 * read): the ones this process already has, or new ones, the built-in
 * model until a call is observed; NULL (the built-in model for good)
 * beyond the signatures a process may hold. Under the lock. */
struct model_fit *profile_fit(const struct wisdom_key *at);
/* fit brought up to date and copied for one plan to read while other
 * threads observe (NULL for NULL). Takes the lock. */
const struct model_fit *profile_snapshot(struct model_fit *fit, struct model_fit *copy);

#endif
