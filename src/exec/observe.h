/* An observer of a call's steps, for bench/smpi's progress lines: kept
 * apart from rounds.h so that a program can set one without the engine's
 * internal types. */
#ifndef TACIO_EXEC_OBSERVE_H
#define TACIO_EXEC_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

/* Told on this rank, as it enters step r's agreement (of steps), that its
 * transfers of the step are done (rounds.c). Every step's messages go
 * between two agreements, which no rank leaves before all have entered,
 * so no transfer of a later step has begun then. */
typedef void (*rounds_observer)(bool is_write, int64_t step, int64_t steps);
/* NULL (the default) for none; one per process (under SMPI's
 * privatization, per rank). */
void rounds_observe(rounds_observer fn);

#endif
