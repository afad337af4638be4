/* The memory a process may still use under its control group: how a batch
 * system (Slurm's ConstrainRAMSpace, a container runtime) limits a job's
 * memory on a host that has more. MemAvailable does not see such a limit;
 * the engine takes the less of the two as a host's free memory, which
 * mccio plans by. No MPI here. */
#ifndef TACIO_BASE_MEMLIMIT_H
#define TACIO_BASE_MEMLIMIT_H

#include <stdint.h>

/* The bytes the groups of self (the text of /proc/self/cgroup) still let
 * it use: the least of limit - usage over its memory group and every group
 * above it, under root (where the cgroup file systems are mounted,
 * /sys/fs/cgroup), the usage without the inactive page cache the kernel
 * would drop first (as MemAvailable counts it free). cgroup v2 (the "0::"
 * line; memory.max, memory.current, memory.stat's inactive_file) or v1
 * (the line naming the memory controller; memory.limit_in_bytes,
 * memory.usage_in_bytes, memory.stat's total_inactive_file). -1 where no
 * group limits it or none can be read (no cgroups, a path not mounted
 * here). */
int64_t memlimit_free(const char *root, const char *self);

/* memlimit_free of this process, from /proc/self/cgroup and /sys/fs/cgroup. */
int64_t memlimit_free_self(void);

#endif
