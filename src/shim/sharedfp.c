/* The shared file pointer of a deferred view (shim.h). The library's own
 * pointer counts in the library's view, which is out of date; this one
 * lives in a small file beside the data file, as ROMIO keeps its own: one
 * record (epoch, value) read and rewritten under an fcntl lock, so ranks on
 * any host of a shared file system take turns. A record of an older epoch
 * (a view set since) reads as 0: setting a view resets the pointer without
 * a message. The file is made at the first use and removed at close. */
#include "shim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct sfp_record {
    int64_t epoch, value;
};

/* An MPI error code of class cls that names the cause: a code of its own
 * with Open MPI; MPICH 4.0.2 mislabels such codes (tacio.h), so there the
 * class, with the cause on stderr. */
static int shim_error(int cls, const char *what, const char *path, int err)
{
    char msg[MPI_MAX_ERROR_STRING];
    snprintf(msg, sizeof msg, "tacio: the shared file pointer: %s(%s): %s", what, path,
             strerror(err));
#ifdef OPEN_MPI
    int code;
    if (MPI_Add_error_code(cls, &code) == MPI_SUCCESS &&
        MPI_Add_error_string(code, msg) == MPI_SUCCESS)
        return code;
#endif
    fprintf(stderr, "%s\n", msg);
    return cls;
}

static int lock(int fd, short type)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    while (fcntl(fd, F_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* The record under the lock: 0 for a file just made, or of an older view. */
static int64_t current(int fd, int64_t epoch)
{
    struct sfp_record r;
    if (pread(fd, &r, sizeof r, 0) != (ssize_t)sizeof r || r.epoch != epoch)
        return 0;
    return r.value;
}

int sfp_fetch_add(struct shimfile *s, MPI_Offset add, MPI_Offset *old)
{
    pthread_mutex_lock(&s->sfp_lock); /* fcntl locks do not exclude a process's threads */
    int rc = MPI_SUCCESS, fd = open(s->sfp_path, O_RDWR | O_CREAT, 0600);
    if (fd < 0)
        rc = shim_error(MPI_ERR_IO, "open", s->sfp_path, errno);
    else if (lock(fd, F_WRLCK) != 0)
        rc = shim_error(MPI_ERR_IO, "fcntl", s->sfp_path, errno);
    else {
        *old = current(fd, s->epoch);
        struct sfp_record r = {s->epoch, *old + add};
        if (add && pwrite(fd, &r, sizeof r, 0) != (ssize_t)sizeof r)
            rc = shim_error(MPI_ERR_IO, "pwrite", s->sfp_path, errno ? errno : ENOSPC);
        lock(fd, F_UNLCK);
    }
    if (fd >= 0)
        close(fd);
    pthread_mutex_unlock(&s->sfp_lock);
    return rc;
}

/* The pointer only grows between collectives, so the largest value any
 * rank reads once every rank has come is where it stands. A rank that
 * cannot read it counts 0 and still takes part. */
int sfp_agreed(struct shimfile *s, MPI_Offset *at)
{
    int64_t mine = 0, all = 0;
    int fd = open(s->sfp_path, O_RDONLY);
    if (fd >= 0) {
        if (lock(fd, F_RDLCK) == 0) {
            mine = current(fd, s->epoch);
            lock(fd, F_UNLCK);
        }
        close(fd);
    }
    int rc = MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MAX, s->comm);
    *at = all;
    return rc;
}

void sfp_remove(struct shimfile *s)
{
    if (s->rank == 0 && unlink(s->sfp_path) != 0 && errno != ENOENT)
        fprintf(stderr, "tacio: could not remove %s: %s\n", s->sfp_path, strerror(errno));
}
