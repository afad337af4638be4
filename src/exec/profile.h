/* auto's model fitted on this process's calls (src/plan/fit.h), one per
 * machine signature: the wisdom key's parts that hold for a whole file
 * (ranks, hosts, ranks per host, MPI, file system, machine). Kept for the
 * process, not the file, so that a program that writes each file once (a
 * checkpoint, a history file a step) plans its next file with what the
 * calls on its last ones measured. Rank 0 only: it plans every call. */
#ifndef TACIO_EXEC_PROFILE_H
#define TACIO_EXEC_PROFILE_H

#include "../base/wisdom.h"
#include "../plan/fit.h"

/* The fits for signature at (its op, sig and hints are not read), reads'
 * and writes' ([is_write]: a file system's reads and writes run at
 * different rates, and a read that follows a write of the same bytes
 * often finds them in memory): the ones this process already has, or new
 * ones, the built-in model until a call is observed. Never NULL: with
 * every slot taken, the least recently asked for starts over. */
struct model_fit *profile_fit(const struct wisdom_key *at);

#endif
