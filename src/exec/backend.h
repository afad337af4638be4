/* What the engine needs from the machine it runs on: file I/O, a clock for
 * the stage times, and whether a helper thread may run a window's I/O. One
 * implementation is linked: backend/posix.c (the real machine, and the
 * default build), or backend/simgrid.c under SimGrid's SMPI (smpicc builds
 * of tests/smpi and bench/smpi), where the clock is the simulated one and a
 * host's disk takes simulated time for each access. */
#ifndef TACIO_EXEC_BACKEND_H
#define TACIO_EXEC_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

/* The whole of [off, off + len) in OS-sized chunks: 0 or -errno. */
int backend_pwrite(int fd, const char *buf, int64_t len, int64_t off);
/* The bytes read before the end of the file (the rest reads as zeros), or
 * -errno. */
int64_t backend_pread(int fd, char *buf, int64_t len, int64_t off);
/* Seconds, for the stage times. */
double backend_clock(void);
/* Whether a window's I/O may overlap the exchange on a helper thread. */
bool backend_threads(void);
/* Whether the open file lives in this machine's page cache (tmpfs, ext4,
 * xfs, ...), where a pwrite costs about a memcpy, as opposed to a network or
 * parallel file system (NFS, Lustre, GPFS, ...), where every call is a round
 * trip and writes into one stripe from several clients contend. */
bool backend_page_cache(int fd);

#endif
