/* A request over 2 GiB: rank 0 writes 2 GiB + 4 KiB (an MPI_Count past
 * INT_MAX) at a 3 GiB displacement, leaving a hole before it (a sparse
 * file), then reads it back. POSIX checks samples, both ends and the hole.
 *
 * usage: test_large FILE */
#include "mpi_check.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define DISP ((MPI_Offset)3 << 30)
#define BYTES (((MPI_Count)2 << 30) + 4096)

static unsigned char byte_at(int64_t k)
{
    return (unsigned char)(k * 131 + (k >> 20));
}

static void check_samples(const char *path)
{
    int fd = open(path, O_RDONLY);
    check_that(fd >= 0, "cannot open %s", path);
    int64_t bad = 0, probes = 0;
    for (int64_t k = 0; k < BYTES; k += (k < BYTES - 8192 ? 1048573 : 1)) {
        unsigned char b;
        probes++;
        if (pread(fd, &b, 1, DISP + k) != 1 || b != byte_at(k))
            bad++;
    }
    unsigned char hole[4096];
    check_that(pread(fd, hole, sizeof hole, DISP - sizeof hole) == sizeof hole, "hole read");
    for (size_t i = 0; i < sizeof hole; i++)
        bad += hole[i] != 0;
    check_that(lseek(fd, 0, SEEK_END) == DISP + BYTES, "file size");
    check_that(bad == 0, "%lld of %lld probes differ", (long long)bad, (long long)probes);
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *path = argv[1];
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Count n = rank == 0 ? BYTES : 0;
    unsigned char *buf = malloc((size_t)(n ? n : 1));
    check_that(buf != NULL, "cannot allocate %lld bytes", (long long)n);
    for (MPI_Count k = 0; buf && k < n; k++)
        buf[k] = byte_at(k);
    MPI_Info info = make_info("romio", "cb_buffer_size=64m");
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    check_that(rc == MPI_SUCCESS, "open");
    rc = rc ? rc : tacio_file_write_at_all(fh, DISP, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
    check_that(rc == MPI_SUCCESS, "write of %lld bytes", (long long)n);
    if (rank == 0 && rc == MPI_SUCCESS)
        check_samples(path);
    memset(buf, 0, (size_t)(n ? n : 1));
    rc = rc ? rc : tacio_file_read_at_all(fh, DISP, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
    int64_t bad = 0;
    for (MPI_Count k = 0; rc == MPI_SUCCESS && k < n; k++)
        bad += buf[k] != byte_at(k);
    check_that(rc == MPI_SUCCESS && bad == 0, "read back: %lld bytes differ", (long long)bad);
    if (fh)
        tacio_file_close(&fh);
    MPI_Info_free(&info);
    free(buf);
    if (rank == 0)
        unlink(path);
    return finish("test_large");
}
