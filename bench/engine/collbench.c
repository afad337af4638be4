/* Collective write/read of an n^3 cube of doubles, block-decomposed over the
 * ranks (TATP's cube benchmark), through the plain MPI-IO API: run it plain
 * for the MPI library's own collective I/O, or under LD_PRELOAD for tacio.
 * Prints "write_s=... read_s=..." (median over reps of the slowest rank).
 *
 * usage: collbench FILE N REPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double timed(MPI_File fh, double *buf, int count, int write)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (write)
        MPI_File_write_at_all(fh, 0, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    else
        MPI_File_read_at_all(fh, 0, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p, dims[3] = {0, 0, 0}, sizes[3], sub[3], starts[3];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int n = atoi(argv[2]), reps = atoi(argv[3]);
    MPI_Dims_create(p, 3, dims);
    int c[3] = {rank / (dims[1] * dims[2]), (rank / dims[2]) % dims[1], rank % dims[2]};
    for (int d = 0; d < 3; d++) {
        sizes[d] = n;
        sub[d] = n / dims[d];
        starts[d] = c[d] * sub[d];
    }
    int count = sub[0] * sub[1] * sub[2];
    double *buf = malloc(sizeof(double) * (size_t)count);
    for (int k = 0; k < count; k++)
        buf[k] = rank + k * 1e-6;
    MPI_Datatype ft;
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    double *w = malloc(sizeof(double) * (size_t)reps), *r = malloc(sizeof(double) * (size_t)reps);
    timed(fh, buf, count, 1); /* warm-up: file allocated, caches primed */
    for (int i = 0; i < reps; i++) {
        w[i] = timed(fh, buf, count, 1);
        r[i] = timed(fh, buf, count, 0);
    }
    qsort(w, (size_t)reps, sizeof *w, cmp_double);
    qsort(r, (size_t)reps, sizeof *r, cmp_double);
    if (rank == 0)
        printf("write_s=%.6f read_s=%.6f\n", w[reps / 2], r[reps / 2]);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    MPI_Finalize();
    return 0;
}
