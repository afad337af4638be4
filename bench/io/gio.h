/* A baseline for bench/io/kernels written from the published description of
 * PnetCDF 1.15's GIO engine (not its code): two-phase I/O that takes the
 * caller's flattened (offset, length) lists directly, deals the file to the
 * aggregators in stripes, round robin, and places one aggregator on each
 * NUMA node. Every rank hands each aggregator its pieces in that
 * aggregator's stripes (one exchange of lists, one of data); the aggregator
 * lays them out in an image of its stripes and writes each stretch of
 * them with one pwrite (reads: the reverse). What it leaves out of GIO: its
 * bounded buffer (one round here, every aggregator holding all its
 * stripes' bytes at once) and its own file system layer. */
#ifndef TACIO_BENCH_GIO_H
#define TACIO_BENCH_GIO_H

#include <mpi.h>
#include <stdint.h>

/* The aggregators a host of `ranks` ranks gets: one a NUMA node (from
 * /sys/devices/system/node), at most one a rank, at least one. */
int gio_numa_aggregators(int ranks);

/* One collective transfer of this rank's n pieces (sorted by offset, not
 * overlapping) between buf, where they lie packed in that order, and the
 * file open as fd on every rank, by naggs aggregators dealt stripes of
 * `stripe` bytes. Returns 0, or an errno some rank met (every rank the
 * same). */
int gio_transfer(MPI_Comm comm, int fd, int naggs, int64_t stripe, int64_t n, const MPI_Offset *off,
                 const MPI_Offset *len, char *buf, int write);

#endif
