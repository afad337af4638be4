/* The engine under SimGrid's SMPI (smpicc builds: tests/smpi, bench/smpi,
 * bench/scale). SMPI runs tacio's real pwrite and pread (the data is checked
 * afterwards), but a simulated cluster's storage is not this machine's: each
 * access also occupies the host's first <disk> of the platform for its
 * bytes, so the simulated clock advances by what the platform's storage
 * would take (disks shared by a host's ranks contend). Hosts without a disk
 * (SimGrid's FAT_TREE and DRAGONFLY clusters cannot declare one) take len /
 * TACIO_SIM_IO_BW seconds instead when that variable is set: a per-client
 * file system bandwidth in bytes/s. Run such simulations with
 * smpi/simulate-computation:no, so the real pwrite is not charged a second
 * time as computation. The stage times are SimGrid's clock, and every
 * window's I/O runs on the calling actor: SimGrid's actors are not real
 * threads, and its clock is not for threads it did not start. */
#include "../backend.h"
#include "posix_io.h"

#include <simgrid/actor.h>
#include <simgrid/disk.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <stdlib.h>

static void simulate_io(int64_t len, bool write)
{
    unsigned n = 0;
    sg_disk_t *disks = NULL;
    sg_host_get_disks(sg_host_self(), &n, &disks);
    if (n > 0) {
        if (write)
            sg_disk_write(disks[0], (sg_size_t)len);
        else
            sg_disk_read(disks[0], (sg_size_t)len);
    } else {
        const char *bw = getenv("TACIO_SIM_IO_BW");
        double rate = bw ? atof(bw) : 0;
        if (rate > 0)
            sg_actor_sleep_for((double)len / rate);
    }
    free(disks);
}

int backend_pwrite(int fd, const char *buf, int64_t len, int64_t off)
{
    simulate_io(len, true);
    return posix_pwrite_all(fd, buf, len, off);
}

int64_t backend_pread(int fd, char *buf, int64_t len, int64_t off)
{
    simulate_io(len, false);
    return posix_pread_all(fd, buf, len, off);
}

double backend_clock(void)
{
    return simgrid_get_clock();
}

bool backend_threads(void)
{
    return false;
}

/* The simulated cluster's storage is its platform's disks, not a page
 * cache: the engine decides as on a parallel file system. */
bool backend_page_cache(int fd)
{
    (void)fd;
    return false;
}
