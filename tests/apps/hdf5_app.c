/* A parallel HDF5 program that knows nothing of tacio: the MPI-IO driver
 * with collective transfers, writing then reading back
 *   "contig"  a contiguous 2D dataset, one column block per rank;
 *   "chunked" the same in 4 x 4 chunks;
 *   "points"  a point selection of scattered elements per rank;
 *   "grow"    an extendible dataset, extended and written twice;
 * plus attributes. Reads use another decomposition (row blocks) than the
 * writes, and every element is checked against its closed form.
 * usage: hdf5_app FILE; prints "hdf5: N passed, M failed". */
#include <hdf5.h>
#include <mpi.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define NY 16 /* columns per rank: NY x (4 p) */

static int rank, nprocs;
static long passed, failed;

static void check(int ok, const char *what, long i)
{
    if (ok)
        passed++;
    else if (failed++ < 10)
        fprintf(stderr, "FAIL [rank %d] %s (element %ld)\n", rank, what, i);
}

static int value_of(int set, long i, long j)
{
    return set * 100000 + (int)(i * 1000 + j);
}

static hid_t collective(void)
{
    hid_t dx = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE);
    return dx;
}

/* Rank r's column block [4r, 4r+4) of an NY x 4p dataset. */
static void write_columns(hid_t ds, int set, hsize_t rows, hsize_t row0)
{
    hsize_t start[2] = {row0, (hsize_t)4 * rank}, count[2] = {rows, 4};
    int *buf = malloc(sizeof(int) * rows * 4);
    for (hsize_t i = 0; i < rows; i++)
        for (int j = 0; j < 4; j++)
            buf[i * 4 + j] = value_of(set, (long)(row0 + i), 4L * rank + j);
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(2, count, NULL), dx = collective();
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    check(H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, dx, buf) >= 0, "H5Dwrite columns", set);
    H5Pclose(dx);
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
}

/* Read rows [lo, hi) of every column, collectively, and check them. */
static void read_rows(hid_t ds, int set, hsize_t nrows)
{
    hsize_t per = (nrows + nprocs - 1) / nprocs, lo = per * rank;
    hsize_t hi = lo + per < nrows ? lo + per : nrows, cols = 4 * (hsize_t)nprocs;
    hsize_t start[2] = {lo < hi ? lo : 0, 0}, count[2] = {lo < hi ? hi - lo : 0, cols};
    int *buf = malloc(sizeof(int) * (count[0] * cols + 1));
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(2, count, NULL), dx = collective();
    if (count[0])
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    else {
        H5Sselect_none(fs);
        H5Sselect_none(ms);
    }
    check(H5Dread(ds, H5T_NATIVE_INT, ms, fs, dx, buf) >= 0, "H5Dread rows", set);
    for (hsize_t i = 0; i < count[0]; i++)
        for (hsize_t j = 0; j < cols; j++)
            check(buf[i * cols + j] == value_of(set, (long)(lo + i), (long)j), "row data",
                  (long)((lo + i) * cols + j));
    H5Pclose(dx);
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
}

static hid_t create_2d(hid_t file, const char *name, hsize_t rows, hsize_t maxrows, bool chunk)
{
    hsize_t dims[2] = {rows, 4 * (hsize_t)nprocs}, max[2] = {maxrows, dims[1]}, ch[2] = {4, 4};
    hid_t space = H5Screate_simple(2, dims, max), dc = H5Pcreate(H5P_DATASET_CREATE);
    if (chunk)
        H5Pset_chunk(dc, 2, ch);
    hid_t ds = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dc, H5P_DEFAULT);
    check(ds >= 0, name, 0);
    H5Pclose(dc);
    H5Sclose(space);
    return ds;
}

/* points: rank r writes the elements (i, j) with (i + j) mod p == r, listed
 * row by row, so the ranks' points interleave and cover the dataset. */
static void points(hid_t ds, bool write)
{
    hsize_t n = NY * 4, coord[NY * 4][2];
    int buf[NY * 4];
    for (hsize_t k = 0; k < n; k++) {
        hsize_t i = k / 4, phase = (hsize_t)((rank - (int)(i % nprocs) + nprocs) % nprocs);
        coord[k][0] = i;
        coord[k][1] = (k % 4) * (hsize_t)nprocs + phase;
        buf[k] = write ? value_of(3, (long)i, (long)coord[k][1]) : -1;
    }
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &n, NULL), dx = collective();
    H5Sselect_elements(fs, H5S_SELECT_SET, n, &coord[0][0]);
    if (write)
        check(H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, dx, buf) >= 0, "H5Dwrite points", 0);
    else {
        check(H5Dread(ds, H5T_NATIVE_INT, ms, fs, dx, buf) >= 0, "H5Dread points", 0);
        for (hsize_t k = 0; k < n; k++)
            check(buf[k] == value_of(3, (long)coord[k][0], (long)coord[k][1]), "point data",
                  (long)k);
    }
    H5Pclose(dx);
    H5Sclose(ms);
    H5Sclose(fs);
}

static hid_t open_file(const char *path, bool create)
{
    hid_t fa = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fa, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fa)
                     : H5Fopen(path, H5F_ACC_RDONLY, fa);
    check(f >= 0, create ? "H5Fcreate" : "H5Fopen", 0);
    H5Pclose(fa);
    return f;
}

static void write_file(const char *path)
{
    hid_t f = open_file(path, true);
    hid_t ds = create_2d(f, "contig", NY, NY, false);
    write_columns(ds, 1, NY, 0);
    hsize_t one = 1;
    hid_t as = H5Screate_simple(1, &one, NULL);
    hid_t at = H5Acreate2(ds, "ranks", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
    check(H5Awrite(at, H5T_NATIVE_INT, &nprocs) >= 0, "H5Awrite", 0);
    H5Aclose(at);
    H5Sclose(as);
    H5Dclose(ds);
    ds = create_2d(f, "chunked", NY, NY, true);
    write_columns(ds, 2, NY, 0);
    H5Dclose(ds);
    ds = create_2d(f, "points", NY, NY, false);
    points(ds, true);
    H5Dclose(ds);
    ds = create_2d(f, "grow", NY / 2, H5S_UNLIMITED, true);
    write_columns(ds, 4, NY / 2, 0);
    hsize_t dims[2] = {NY, 4 * (hsize_t)nprocs};
    check(H5Dset_extent(ds, dims) >= 0, "H5Dset_extent", 0);
    write_columns(ds, 4, NY / 2, NY / 2);
    H5Dclose(ds);
    H5Fclose(f);
}

static void read_file(const char *path)
{
    hid_t f = open_file(path, false);
    const char *names[] = {"contig", "chunked", NULL, "grow"};
    for (int set = 1; set <= 4; set++) {
        hid_t ds = H5Dopen2(f, set == 3 ? "points" : names[set - 1], H5P_DEFAULT);
        check(ds >= 0, "H5Dopen2", set);
        if (set == 3)
            points(ds, false);
        read_rows(ds, set, NY);
        if (set == 1) {
            int got = -1;
            hid_t at = H5Aopen(ds, "ranks", H5P_DEFAULT);
            H5Aread(at, H5T_NATIVE_INT, &got);
            check(got == nprocs, "attribute", 0);
            H5Aclose(at);
        }
        H5Dclose(ds);
    }
    H5Fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *path = argc > 1 ? argv[1] : "hdf5_app.h5";
    write_file(path);
    read_file(path);
    long mine[2] = {passed, failed}, all[2];
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("hdf5: %ld passed, %ld failed\n", all[0], all[1]);
    MPI_Finalize();
    return rank == 0 && all[1] ? 1 : 0;
}
