/* The scale driver: a cube of N^3 doubles block-decomposed over p ranks
 * (MPI_Dims_create's grid), written and read back with tacio's C API with
 * one strategy, then checked against the closed form (element i holds i)
 * with POSIX reads. Built with smpicc it runs thousands of ranks in one
 * process under SimGrid's SMPI; with mpicc it runs on a real MPI.
 *
 * The filetype is an hindexed_block of the block's rows, not a subarray:
 * SMPI 3.32 reports subarray and resized types with a wrong envelope
 * (MPI_Type_get_envelope), so no library can flatten them there. One tile
 * of it is the same access.
 *
 * usage: scale FILE N STRATEGY   (rank 0 prints one line of results) */
#include "tacio.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void block(int n, int parts, int k, int *start, int *len)
{
    int base = n / parts, extra = n % parts;
    *start = k * base + (k < extra ? k : extra);
    *len = base + (k < extra);
}

/* Rank's block of the cube and its values (the global linear index). */
static double *fill_block(int n, int rank, int p, int sizes[3], int sub[3], int st[3])
{
    int dims[3] = {0, 0, 0}, c[3];
    MPI_Dims_create(p, 3, dims);
    c[0] = rank / (dims[1] * dims[2]);
    c[1] = (rank / dims[2]) % dims[1];
    c[2] = rank % dims[2];
    for (int d = 0; d < 3; d++) {
        sizes[d] = n;
        block(n, dims[d], c[d], &st[d], &sub[d]);
    }
    double *b = malloc(sizeof(double) * ((size_t)sub[0] * sub[1] * sub[2] + 1));
    size_t k = 0;
    for (int i = 0; b && i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++)
            for (int l = 0; l < sub[2]; l++)
                b[k++] = (double)(((int64_t)(st[0] + i) * n + st[1] + j) * n + st[2] + l);
    return b;
}

/* The block's rows in the file: sub[0] * sub[1] runs of sub[2] doubles. */
static void rows_type(int n, const int sub[3], const int st[3], MPI_Datatype *ft)
{
    int nrows = sub[0] * sub[1];
    MPI_Aint *disp = malloc(sizeof(MPI_Aint) * (size_t)(nrows + 1));
    for (int i = 0, k = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++, k++)
            disp[k] = (MPI_Aint)((((int64_t)(st[0] + i) * n + st[1] + j) * n + st[2]) * 8);
    MPI_Type_create_hindexed_block(nrows, sub[2], disp, MPI_DOUBLE, ft);
    MPI_Type_commit(ft);
    free(disp);
}

/* Rank 0: every element of the file equals its index (POSIX, no MPI-IO). */
static int64_t check_file(const char *path, int n)
{
    int fd = open(path, O_RDONLY);
    int64_t total = (int64_t)n * n * n, bad = fd < 0 ? total : 0;
    double buf[8192];
    for (int64_t i = 0; fd >= 0 && i < total; i += 8192) {
        int64_t m = total - i < 8192 ? total - i : 8192;
        if (pread(fd, buf, (size_t)m * 8, i * 8) != m * 8)
            return total;
        for (int64_t k = 0; k < m; k++)
            bad += buf[k] != (double)(i + k);
    }
    if (fd >= 0)
        close(fd);
    return bad;
}

static int die(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    tacio_error_get_string(rc, msg, &len);
    fprintf(stderr, "scale: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p, sizes[3], sub[3], st[3];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 4)
        return rank == 0 ? fprintf(stderr, "usage: scale FILE N STRATEGY\n"), 2 : 2;
    const char *path = argv[1], *strategy = argv[3];
    int n = atoi(argv[2]);
    double *mine = fill_block(n, rank, p, sizes, sub, st);
    size_t count = (size_t)sub[0] * sub[1] * sub[2];
    double *back = malloc(sizeof(double) * (count + 1));
    MPI_Datatype ft;
    rows_type(n, sub, st, &ft);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "tacio_strategy", strategy);
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    if (rc)
        return die(rc, "open");
    if ((rc = tacio_file_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL)))
        return die(rc, "set_view");
    struct tacio_stats ws = TACIO_STATS_INIT, rs = TACIO_STATS_INIT;
    double t0 = MPI_Wtime();
    if ((rc = tacio_file_write_all(fh, mine, (MPI_Count)count, MPI_DOUBLE, MPI_STATUS_IGNORE)))
        return die(rc, "write_all");
    double tw = MPI_Wtime() - t0;
    tacio_file_get_stats(fh, &ws);
    tacio_file_seek(fh, 0, MPI_SEEK_SET); /* the write moved the file pointer */
    t0 = MPI_Wtime();
    if ((rc = tacio_file_read_all(fh, back, (MPI_Count)count, MPI_DOUBLE, MPI_STATUS_IGNORE)))
        return die(rc, "read_all");
    double tr = MPI_Wtime() - t0;
    tacio_file_get_stats(fh, &rs);
    tacio_file_close(&fh);
    int64_t bad = memcmp(mine, back, count * sizeof(double)) != 0, all_bad;
    MPI_Reduce(&bad, &all_bad, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int64_t file_bad = check_file(path, n);
        printf("ranks=%d strategy=%s n=%d naggs=%d meta_bytes=%lld read_meta_bytes=%lld "
               "peak_buffer_bytes=%lld sim_write_s=%.6f sim_read_s=%.6f "
               "ranks_read_wrong=%lld file_elements_wrong=%lld\n",
               p, strategy, n, ws.naggs, (long long)ws.meta_bytes, (long long)rs.meta_bytes,
               (long long)ws.peak_buffer_bytes, tw, tr, (long long)all_bad, (long long)file_bad);
    }
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    free(mine);
    free(back);
    MPI_Finalize();
    return 0;
}
