/* Whole-range pwrite/pread, shared by both backends (SimGrid's runs the real
 * I/O too, and only adds the simulated disk's time). */
#ifndef TACIO_EXEC_POSIX_IO_H
#define TACIO_EXEC_POSIX_IO_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static inline int posix_pwrite_all(int fd, const char *buf, int64_t len, int64_t off)
{
    while (len > 0) {
        size_t chunk = (size_t)(len < (1 << 30) ? len : (1 << 30)); /* any kernel takes this */
        ssize_t n = pwrite(fd, buf, chunk, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -ENOSPC;
        buf += n;
        off += n;
        len -= n;
    }
    return 0;
}

/* Returns the bytes read before the end of the file (the rest reads as
 * zeros), or -errno. */
static inline int64_t posix_pread_all(int fd, char *buf, int64_t len, int64_t off)
{
    int64_t got = 0;
    while (len > 0) {
        size_t chunk = (size_t)(len < (1 << 30) ? len : (1 << 30));
        ssize_t n = pread(fd, buf, chunk, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) /* the end of the file */
            return got;
        buf += n;
        off += n;
        len -= n;
        got += n;
    }
    return got;
}

#endif
