/* The engine on a real machine: pwrite/pread, the monotonic clock, threads. */
#include "../../base/memlimit.h"
#include "../backend.h"
#include "posix_io.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/vfs.h>
#include <time.h>

int backend_pwrite(int fd, const char *buf, int64_t len, int64_t off)
{
    return posix_pwrite_all(fd, buf, len, off);
}

int64_t backend_pread(int fd, char *buf, int64_t len, int64_t off)
{
    return posix_pread_all(fd, buf, len, off);
}

/* This machine's MemAvailable, or less where this process's control group
 * leaves it less (a batch system's limit on the job: memlimit.h). */
int64_t backend_mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    int64_t machine = kb < 0 ? -1 : (int64_t)kb * 1024, group = memlimit_free_self();
    return group >= 0 && (machine < 0 || group < machine) ? group : machine;
}

double backend_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

bool backend_helper_start(struct backend_helper *h, void *(*fn)(void *), void *arg)
{
    return pthread_create(&h->thread, NULL, fn, arg) == 0;
}

void backend_helper_join(struct backend_helper *h)
{
    pthread_join(h->thread, NULL);
}

/* Local file systems by statfs(2) magic: one page cache serves every rank
 * of a machine. Anything else (NFS, Lustre, GPFS, BeeGFS, CIFS, FUSE, ...)
 * is a file system of many clients. */
bool backend_page_cache(int fd)
{
    static const long local[] = {
        0x01021994, /* tmpfs */
        0x858458f6, /* ramfs */
        0xEF53,     /* ext2/3/4 */
        0x58465342, /* xfs */
        0x9123683E, /* btrfs */
        0xF2F52010, /* f2fs */
        0x794c7630, /* overlayfs */
        0x2fc12fc1, /* zfs */
    };
    struct statfs st;
    if (fstatfs(fd, &st) != 0)
        return false;
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        if ((long)st.f_type == local[i])
            return true;
    return false;
}

bool backend_moves_data(void)
{
    return true;
}

char *backend_data_scratch(int64_t n)
{
    (void)n; /* never asked: the real machine moves its data */
    return NULL;
}
