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
 * time as computation. The stage times are SimGrid's clock. A pipelined
 * window's I/O runs on a helper actor of the rank's host, as the real
 * machine runs it on a helper thread: the disk's time then overlaps the
 * next round's messages.
 *
 * Data-free (TACIO_SIM_NODATA=1, bench/smpi --paper): the papers' files
 * (60 GB) cannot be written here, nor their buffers held. The disks still
 * take each access's time, but nothing is written or read: the file only
 * grows (ftruncate, a sparse file) so that reads find its end; payload
 * memory is SMPI_SHARED_MALLOC'd, whose pages every rank shares and whose
 * messages SMPI does not copy; and each rank records the extents its
 * writes covered (sim.h), so that the bench can check that the file was
 * covered exactly once. */
#include "sim.h"

#include "../../base/util.h"
#include "../backend.h"
#include "posix_io.h"

#include <errno.h>
#include <simgrid/actor.h>
#include <simgrid/disk.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* TACIO_SIM_IO_BW, bytes/s, read once: where a host has no <disk>, each
 * access takes its length at this rate (0: no time). */
static double sim_io_rate(void)
{
    static double rate = -1; /* the rank's own: SMPI privatizes it */
    if (rate < 0) {
        const char *bw = getenv("TACIO_SIM_IO_BW");
        rate = bw ? atof(bw) : 0;
        rate = rate > 0 ? rate : 0;
    }
    return rate;
}

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
    } else if (sim_io_rate() > 0) {
        sg_actor_sleep_for((double)len / sim_io_rate());
    }
    free(disks);
}

/* ---- data-free runs ---- */

/* Every global here is the calling rank's own: SMPI privatizes them. */
static int nodata = -1;
static struct sim_extents written;
static char *scratch;
static int64_t scratch_cap;

bool backend_moves_data(void)
{
    if (nodata < 0) {
        const char *e = getenv("TACIO_SIM_NODATA");
        nodata = e && *e && strcmp(e, "0") != 0;
    }
    return !nodata;
}

char *backend_data_scratch(int64_t n)
{
    if (n > scratch_cap) { /* the old region stays: a caller may still hold it */
        int64_t cap = n > 2 * scratch_cap ? n : 2 * scratch_cap;
        scratch = SMPI_SHARED_MALLOC((size_t)cap);
        scratch_cap = scratch ? cap : 0;
    }
    return scratch;
}

/* Appends [off, off + len), merged with the last extent when it continues it. */
static int record_write(int64_t off, int64_t len)
{
    struct sim_extents *w = &written;
    struct sim_extent *last = w->n ? &w->e[w->n - 1] : NULL;
    if (last && last->off + last->len == off) {
        last->len += len;
        return 0;
    }
    if (grow_array((void **)&w->e, sizeof *w->e, w->n + 1, &w->cap))
        return -ENOMEM;
    w->e[w->n++] = (struct sim_extent){off, len};
    return 0;
}

const struct sim_extents *sim_written(void)
{
    return &written;
}

/* The file grows to cover a write, holding no data (a hole). */
static int grow_to(int fd, int64_t end)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    return st.st_size >= end || ftruncate(fd, (off_t)end) == 0 ? 0 : -errno;
}

/* What a read finds before the end of the file. */
static int64_t readable(int fd, int64_t len, int64_t off)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    int64_t left = (int64_t)st.st_size - off;
    return left < 0 ? 0 : left < len ? left : len;
}

/* ---- the backend ---- */

int backend_pwrite(int fd, const char *buf, int64_t len, int64_t off)
{
    simulate_io(len, true);
    if (!backend_moves_data()) {
        int rc = record_write(off, len);
        return rc ? rc : grow_to(fd, off + len);
    }
    return posix_pwrite_all(fd, buf, len, off);
}

int64_t backend_pread(int fd, char *buf, int64_t len, int64_t off)
{
    simulate_io(len, false);
    return backend_moves_data() ? posix_pread_all(fd, buf, len, off) : readable(fd, len, off);
}

/* The platform's figure for the host (tacio platform --memory writes it as
 * the host's property tacio_mem_free, in bytes): every simulated host
 * would otherwise read this one machine's /proc/meminfo. */
int64_t backend_mem_available(void)
{
    const char *v = sg_host_get_property_value(sg_host_self(), "tacio_mem_free");
    if (!v) /* unknown: this machine's free memory, which moves while the
               simulation runs, would make two runs of one job plan apart */
        return -1;
    char *end;
    long long bytes = strtoll(v, &end, 10);
    return end != v && *end == '\0' && bytes >= 0 ? (int64_t)bytes : -1;
}

double backend_clock(void)
{
    return simgrid_get_clock();
}

/* The helper actor's body: the job the engine handed over. */
static void helper_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    struct backend_helper *h = sg_actor_self_get_data();
    h->fn(h->arg);
}

/* A second actor on the caller's host (the disk it charges is the host's).
 * It makes no MPI call; its code and globals are the calling rank's (SMPI's
 * dlopen privatization), so what it records is the rank's. */
bool backend_helper_start(struct backend_helper *h, void *(*fn)(void *), void *arg)
{
    h->fn = fn;
    h->arg = arg;
    sg_actor_t actor = sg_actor_init("tacio-io", sg_host_self());
    sg_actor_ref(actor); /* joined after it ends */
    sg_actor_set_data(actor, h);
    sg_actor_start_(actor, helper_main, 0, NULL);
    h->actor = actor;
    return true;
}

void backend_helper_join(struct backend_helper *h)
{
    sg_actor_join(h->actor, -1);
    sg_actor_unref(h->actor);
    h->actor = NULL;
}

/* The simulated cluster's storage is its platform's disks, not a page
 * cache: the engine decides as on a parallel file system. */
bool backend_page_cache(int fd)
{
    (void)fd;
    return false;
}
