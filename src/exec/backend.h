/* What the engine needs from the machine it runs on: file I/O, a clock for
 * the stage times, and a helper to run a window's I/O beside the exchange. One
 * implementation is linked: backend/posix.c (the real machine, and the
 * default build), or backend/simgrid.c under SimGrid's SMPI (smpicc builds
 * of tests/smpi and bench/smpi), where the clock is the simulated one and a
 * host's disk takes simulated time for each access. */
#ifndef TACIO_EXEC_BACKEND_H
#define TACIO_EXEC_BACKEND_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* The whole of [off, off + len) in OS-sized chunks: 0 or -errno. */
int backend_pwrite(int fd, const char *buf, int64_t len, int64_t off);
/* The bytes read before the end of the file (the rest reads as zeros), or
 * -errno. */
int64_t backend_pread(int fd, char *buf, int64_t len, int64_t off);
/* Seconds, for the stage times. */
double backend_clock(void);
/* A helper running fn(arg) beside its caller, so that a window's file I/O
 * overlaps the next round's exchange (pipelined rounds). On a real machine
 * a thread; under SimGrid a second actor on the caller's host, so that the
 * host's disk takes the I/O's simulated time while the caller's messages
 * take theirs, as on the machine being simulated (SimGrid's actors are not
 * threads, and its clock is not for threads it did not start). */
struct backend_helper {
    pthread_t thread; /* posix.c */
    void *actor;      /* simgrid.c */
    void *(*fn)(void *arg);
    void *arg;
};
/* False when no helper could be had: the caller then runs fn itself. */
bool backend_helper_start(struct backend_helper *h, void *(*fn)(void *), void *arg);
/* Waits for the helper to finish fn. */
void backend_helper_join(struct backend_helper *h);
/* Whether the open file lives in this machine's page cache (tmpfs, ext4,
 * xfs, ...), where a pwrite costs about a memcpy, as opposed to a network or
 * parallel file system (NFS, Lustre, GPFS, ...), where every call is a round
 * trip and writes into one stripe from several clients contend. */
bool backend_page_cache(int fd);
/* Bytes of memory this rank's host has free (MemAvailable; under SimGrid
 * the platform's own figure for the host, tacio platform --memory), or -1
 * when unknown (a simulated host without that figure). */
int64_t backend_mem_available(void);

/* Whether payload bytes move. Always on a real machine. A simulation may
 * run data-free (bench/smpi --paper, TACIO_SIM_NODATA=1: the papers' 60 GB
 * files on a 2-core machine): the simulated network and disks take the
 * transfers' time, but no byte is copied, sent or stored. The engine then
 * skips its payload copies and takes payload memory from
 * backend_data_scratch; everything else (plans, headers, agreements) runs
 * as always. */
bool backend_moves_data(void);
/* At least n bytes of payload memory that nothing reads: only when
 * !backend_moves_data(). Every caller gets the same region (grown as
 * needed, never freed): its content is meaningless. NULL when out of
 * memory. */
char *backend_data_scratch(int64_t n);

#endif
