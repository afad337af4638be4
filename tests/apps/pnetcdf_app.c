/* A PnetCDF program that knows nothing of tacio, writing then reading back
 *   "fixed" an NZ x 4p int variable, one column block per rank (put_vara_all);
 *   "flex"  the same through the flexible API with a strided memory type;
 *   "rec"   a record variable, two records by nonblocking iput + wait_all;
 * then adding a variable in redef (the header grows and PnetCDF moves the
 * data with read_at_all/write_at_all: the short-read case). Reads use row
 * blocks, and every element is checked against its closed form.
 * usage: pnetcdf_app FILE; prints "pnetcdf: N passed, M failed". */
#include <mpi.h>
#include <pnetcdf.h>

#include <stdio.h>
#include <stdlib.h>

#define NZ 8

static int rank, nprocs;
static long passed, failed;

static void check(int ok, const char *what, long i)
{
    if (ok)
        passed++;
    else if (failed++ < 10)
        fprintf(stderr, "FAIL [rank %d] %s (%ld)\n", rank, what, i);
}

static void ok_nc(int err, const char *what)
{
    check(err == NC_NOERR, what, err);
    if (err != NC_NOERR && failed <= 10)
        fprintf(stderr, "  %s: %s\n", what, ncmpi_strerror(err));
}

static int value_of(int var, long i, long j)
{
    return var * 100000 + (int)(i * 1000 + j);
}

static void define(int nc, int *dims, int *vars)
{
    ok_nc(ncmpi_def_dim(nc, "rec", NC_UNLIMITED, &dims[0]), "def_dim rec");
    ok_nc(ncmpi_def_dim(nc, "z", NZ, &dims[1]), "def_dim z");
    ok_nc(ncmpi_def_dim(nc, "x", 4 * nprocs, &dims[2]), "def_dim x");
    ok_nc(ncmpi_def_var(nc, "fixed", NC_INT, 2, dims + 1, &vars[0]), "def_var fixed");
    ok_nc(ncmpi_def_var(nc, "flex", NC_INT, 2, dims + 1, &vars[1]), "def_var flex");
    int rdims[2] = {dims[0], dims[2]};
    ok_nc(ncmpi_def_var(nc, "rec", NC_INT, 2, rdims, &vars[2]), "def_var rec");
    ok_nc(ncmpi_put_att_text(nc, NC_GLOBAL, "title", 5, "tacio"), "put_att");
    ok_nc(ncmpi_enddef(nc), "enddef");
}

static void write_vars(int nc, const int *vars)
{
    MPI_Offset start[2] = {0, 4 * rank}, count[2] = {NZ, 4};
    int cols[NZ * 4], strided[NZ * 8];
    for (int i = 0; i < NZ; i++)
        for (int j = 0; j < 4; j++) {
            cols[i * 4 + j] = value_of(0, i, 4L * rank + j);
            strided[(i * 4 + j) * 2] = value_of(1, i, 4L * rank + j);
        }
    ok_nc(ncmpi_put_vara_int_all(nc, vars[0], start, count, cols), "put_vara_int_all");
    MPI_Datatype every_other;
    MPI_Type_vector(NZ * 4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    ok_nc(ncmpi_put_vara_all(nc, vars[1], start, count, strided, 1, every_other),
          "put_vara_all flexible");
    MPI_Type_free(&every_other);
    int recs[2][4], req[2], st[2];
    for (int r = 0; r < 2; r++) {
        MPI_Offset rs[2] = {r, 4 * rank}, rc[2] = {1, 4};
        for (int j = 0; j < 4; j++)
            recs[r][j] = value_of(2, r, 4L * rank + j);
        ok_nc(ncmpi_iput_vara_int(nc, vars[2], rs, rc, recs[r], &req[r]), "iput_vara_int");
    }
    ok_nc(ncmpi_wait_all(nc, 2, req, st), "wait_all");
    check(st[0] == NC_NOERR && st[1] == NC_NOERR, "iput statuses", 0);
}

/* Rows [lo, hi) of every column of a variable with `rows` rows. */
static void read_rows(int nc, int var, int which, int rows)
{
    int per = (rows + nprocs - 1) / nprocs, lo = per * rank, hi = lo + per < rows ? lo + per : rows;
    int n = lo < hi ? hi - lo : 0, cols = 4 * nprocs;
    MPI_Offset start[2] = {n ? lo : 0, 0}, count[2] = {n, cols};
    int *buf = malloc(sizeof(int) * (size_t)(n * cols + 1));
    ok_nc(ncmpi_get_vara_int_all(nc, var, start, count, buf), "get_vara_int_all");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < cols; j++)
            check(buf[i * cols + j] == value_of(which, lo + i, j), "element", (long)i * cols + j);
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *path = argc > 1 ? argv[1] : "pnetcdf_app.nc";
    int nc, dims[3], vars[4];
    ok_nc(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc),
          "create");
    define(nc, dims, vars);
    write_vars(nc, vars);
    /* a new variable after the data: PnetCDF moves what follows the header */
    ok_nc(ncmpi_redef(nc), "redef");
    ok_nc(ncmpi_def_var(nc, "late", NC_DOUBLE, 1, dims + 2, &vars[3]), "def_var late");
    ok_nc(ncmpi_put_att_text(nc, vars[3], "note", 40, "added after the data was written, moves it"),
          "put_att late");
    ok_nc(ncmpi_enddef(nc), "enddef again");
    ok_nc(ncmpi_close(nc), "close");
    ok_nc(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &nc), "open");
    read_rows(nc, vars[0], 0, NZ);
    read_rows(nc, vars[1], 1, NZ);
    read_rows(nc, vars[2], 2, 2);
    ok_nc(ncmpi_close(nc), "close after reading");
    long mine[2] = {passed, failed}, all[2];
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pnetcdf: %ld passed, %ld failed\n", all[0], all[1]);
    MPI_Finalize();
    return rank == 0 && all[1] ? 1 : 0;
}
