/* An ordinary MPI-IO program, built without tacio: a 3-D block of doubles
 * per rank through a subarray view (write_all then write_at_all of halves),
 * an independent write after the collectives (the individual pointer must be
 * where MPI says), then read_all back. It checks its file with POSIX against
 * the closed form and prints "app: N passed, M failed".
 *
 * usage: mpiio_app FILE [N] */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double value(long idx)
{
    return (double)idx * 0.5 + 1.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p, dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *path = argv[1];
    int n = argc > 2 ? atoi(argv[2]) : 12;
    MPI_Dims_create(p, 3, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    MPI_Cart_coords(cart, rank, 3, coords);
    int sizes[3] = {n, n, n}, sub[3], starts[3];
    for (int d = 0; d < 3; d++) {
        sub[d] = n / dims[d];
        starts[d] = coords[d] * sub[d];
    }
    long count = (long)sub[0] * sub[1] * sub[2], half = count / 2;
    double *buf = malloc(sizeof(double) * (size_t)count);
    for (long k = 0; k < count; k++) {
        long i = starts[0] + k / (sub[1] * sub[2]), j = starts[1] + (k / sub[2]) % sub[1];
        long l = starts[2] + k % sub[2];
        buf[k] = value((i * n + j) * n + l);
    }
    MPI_Datatype ft;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    long passed = 0, failed = 0;
#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (c)                                                                                     \
            passed++;                                                                              \
        else {                                                                                     \
            failed++;                                                                              \
            fprintf(stderr, __VA_ARGS__);                                                          \
        }                                                                                          \
    } while (0)
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == 0,
          "open\n");
    CHECK(MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL) == 0, "set_view\n");
    CHECK(MPI_File_write_all(fh, buf, (int)half, MPI_DOUBLE, MPI_STATUS_IGNORE) == 0,
          "write_all\n");
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    CHECK(pos == half, "position %lld after write_all, expected %ld\n", (long long)pos, half);
#if MPI_VERSION >= 4 /* what MPICH 4 programs such as IOR call */
    CHECK(MPI_File_write_at_all_c(fh, half, buf + half, count - half, MPI_DOUBLE,
                                  MPI_STATUS_IGNORE) == 0,
          "write_at_all_c\n");
#else
    CHECK(MPI_File_write_at_all(fh, half, buf + half, (int)(count - half), MPI_DOUBLE,
                                MPI_STATUS_IGNORE) == 0,
          "write_at_all\n");
#endif
    /* independent I/O after the collectives: rewrite the element at the pointer */
    CHECK(MPI_File_write(fh, buf + half, 1, MPI_DOUBLE, MPI_STATUS_IGNORE) == 0, "write\n");
    MPI_File_seek(fh, 0, MPI_SEEK_SET);
    double *back = calloc((size_t)count, sizeof(double));
    CHECK(MPI_File_read_all(fh, back, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE) == 0,
          "read_all\n");
    CHECK(memcmp(back, buf, sizeof(double) * (size_t)count) == 0, "read_all returned other data\n");
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) { /* the whole file, by POSIX, against the closed form */
        long total = (long)n * n * n, bad = 0;
        double *img = malloc(sizeof(double) * (size_t)total);
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0 && pread(fd, img, sizeof(double) * (size_t)total, 0) ==
                             (ssize_t)(sizeof(double) * (size_t)total),
              "pread\n");
        for (long x = 0; x < total; x++)
            bad += img[x] != value(x);
        CHECK(bad == 0, "%ld doubles differ from the closed form\n", bad);
        close(fd);
        free(img);
    }
    long local[2] = {passed, failed}, all[2];
    MPI_Reduce(local, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("app: %ld passed, %ld failed\n", all[0], all[1]);
    MPI_Type_free(&ft);
    MPI_Comm_free(&cart);
    free(buf);
    free(back);
    MPI_Finalize();
    return rank == 0 && all[1] ? 1 : 0;
}
