/* File I/O time under SimGrid's SMPI. SMPI runs tacio's real pwrite and
 * pread (the data is checked afterwards), but a simulated cluster's storage
 * is not this machine's: built with -DTACIO_SMPI, each access also occupies
 * the host's first <disk> of the platform for its bytes, so the simulated
 * clock advances by what the platform's storage would take (disks shared by
 * a host's ranks contend). Hosts without a disk (SimGrid's FAT_TREE and
 * DRAGONFLY clusters cannot declare one) take len / TACIO_SIM_IO_BW seconds
 * instead when that variable is set: a per-client file system bandwidth in
 * bytes/s. Run such simulations with smpi/simulate-computation:no, so the
 * real pwrite is not charged a second time as computation. */
#include "exec.h"

#ifdef TACIO_SMPI
#include <simgrid/actor.h>
#include <simgrid/disk.h>
#include <simgrid/host.h>
#include <stdlib.h>

void exec_sim_io(int64_t len, bool write)
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
#else
void exec_sim_io(int64_t len, bool write)
{
    (void)len;
    (void)write;
}
#endif
