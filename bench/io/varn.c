/* bench/io's climate-style kernel, written from the public description of
 * E3SM's I/O (PnetCDF's varn API over a column decomposition): NVARS
 * variables of NLEV levels x NCOL columns of doubles. The columns are dealt
 * to the ranks in chunks of 1 to 16 along a space-filling order, so each
 * rank holds many short, scattered runs; each rank posts one nonblocking
 * varn request per variable (a start and count per level of each chunk,
 * in its chunks' shuffled order: the requests are unordered in the file),
 * and one wait_all writes them all: PnetCDF sorts the pieces into one
 * hindexed filetype and a memory type in request order, so one collective
 * MPI_File_write_all carries every piece. Then the same pieces are read
 * back the same way and checked, and the file is checked with POSIX reads
 * at each variable's offset (ncmpi_inq_varoffset) against the closed form.
 *
 * With "list" PnetCDF only defines the file (header, variables' offsets)
 * and the data goes through tacio's list API, as a library that hands its
 * flattened requests to tacio would send them (PnetCDF hands its own to
 * GIO): each rank sorts its chunks by column once, lists its pieces in
 * file order (variable, level, column), packs them
 * big-endian, and makes one tacio_file_write_list_all; reads the reverse.
 * The timed part is all of that, as wait_all's is all of PnetCDF's work.
 * With "gio" the same lists and packing go to the GIO-style baseline
 * (gio.h) instead, with one aggregator a NUMA node and 1 MiB stripes, as
 * PnetCDF 1.15 hands its requests to GIO; "gio:N" with N aggregators.
 * Prints on rank 0:
 *   varn ranks=P path=varn|list|gio pieces_per_rank=K bytes=B write_s=W read_s=R wrong=N
 *        aggregators=A (the GIO-style baseline's; 0 on the other paths)
 * (W, R: the slowest rank's wait_all, or list call, the best of REPS).
 * usage: varn FILE NCOL [REPS [list|gio|gio:N]] */
#include <fcntl.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tacio.h>
#include <unistd.h>

#include "gio.h"

#define NVARS 4
#define GIO_STRIPE (1 << 20) /* Lustre's default stripe: GIO deals the file in stripes */
#define NLEV 8

struct decomp {
    MPI_Offset nchunks, *col, *width; /* this rank's chunks: first column, columns */
    MPI_Offset ncells;                /* columns x levels held */
};

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static double value_of(int v, MPI_Offset lev, MPI_Offset col)
{
    return (double)v * 1e9 + (double)lev * 1e7 + (double)col;
}

/* Chunks of 1-16 columns dealt to ranks at random (every rank draws the
 * same sequence), then this rank's shuffled: its requests' order. */
static void decompose(MPI_Offset ncol, int rank, int np, struct decomp *d)
{
    MPI_Offset cap = ncol / np + 16;
    d->col = malloc(sizeof(MPI_Offset) * (size_t)cap);
    d->width = malloc(sizeof(MPI_Offset) * (size_t)cap);
    d->nchunks = d->ncells = 0;
    for (MPI_Offset c = 0; c < ncol;) {
        MPI_Offset w = 1 + (MPI_Offset)(next() % 16);
        w = c + w > ncol ? ncol - c : w;
        int owner = (int)(next() % (uint64_t)np);
        if (owner == rank) {
            if (d->nchunks == cap) {
                cap *= 2;
                d->col = realloc(d->col, sizeof(MPI_Offset) * (size_t)cap);
                d->width = realloc(d->width, sizeof(MPI_Offset) * (size_t)cap);
            }
            d->col[d->nchunks] = c, d->width[d->nchunks++] = w;
            d->ncells += w * NLEV;
        }
        c += w;
    }
    for (MPI_Offset i = d->nchunks - 1; i > 0; i--) {
        MPI_Offset k = (MPI_Offset)(next() % (uint64_t)(i + 1)), t = d->col[i];
        d->col[i] = d->col[k], d->col[k] = t;
        t = d->width[i], d->width[i] = d->width[k], d->width[k] = t;
    }
}

/* The varn arguments of one variable: a (lev, col) start and (1, width)
 * count per level of each chunk; buf in the same order. */
static void requests(const struct decomp *d, int v, MPI_Offset **starts, MPI_Offset **counts,
                     double *buf)
{
    MPI_Offset k = 0, at = 0;
    for (MPI_Offset i = 0; i < d->nchunks; i++)
        for (MPI_Offset lev = 0; lev < NLEV; lev++, k++) {
            starts[k][0] = lev, starts[k][1] = d->col[i];
            counts[k][0] = 1, counts[k][1] = d->width[i];
            for (MPI_Offset c = 0; buf && c < d->width[i]; c++)
                buf[at++] = value_of(v, lev, d->col[i] + c);
        }
}

static void fail_nc(int err, const char *what)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "varn: %s: %s\n", what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

struct args {
    MPI_Offset **starts, **counts;
    double *buf[NVARS];
};

static double transfer(int nc, const int *vars, const struct decomp *d, struct args *a, int write)
{
    int req[NVARS], st[NVARS];
    MPI_Offset n = d->nchunks * NLEV;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int v = 0; v < NVARS; v++) {
        requests(d, v, a->starts, a->counts, NULL);
        int err = write ? ncmpi_iput_varn_double(nc, vars[v], (int)n, a->starts, a->counts,
                                                 a->buf[v], &req[v])
                        : ncmpi_iget_varn_double(nc, vars[v], (int)n, a->starts, a->counts,
                                                 a->buf[v], &req[v]);
        fail_nc(err, write ? "iput_varn" : "iget_varn");
    }
    fail_nc(ncmpi_wait_all(nc, NVARS, req, st), "wait_all");
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* POSIX reads of every variable against the closed form, each rank a
 * share of the levels. */
static long check_file(const char *path, const MPI_Offset *varoff, MPI_Offset ncol, int rank,
                       int np)
{
    long wrong = 0;
    int fd = open(path, O_RDONLY);
    double *row = malloc(sizeof(double) * (size_t)ncol);
    for (int v = 0; v < NVARS; v++) {
        MPI_Offset off = varoff[v];
        for (MPI_Offset lev = rank; lev < NLEV; lev += np) {
            ssize_t want = (ssize_t)(sizeof(double) * (size_t)ncol);
            if (fd < 0 || pread(fd, row, (size_t)want, off + lev * want) != want) {
                wrong++;
                continue;
            }
            for (MPI_Offset c = 0; c < ncol; c++) {
                union {
                    double d;
                    uint64_t u;
                } x = {row[c]}, y = {value_of(v, lev, c)};
                x.u = __builtin_bswap64(x.u); /* netCDF is big-endian */
                wrong += x.u != y.u;
            }
        }
    }
    free(row);
    if (fd >= 0)
        close(fd);
    return wrong;
}

/* The list API's arguments: this rank's pieces in file order, where each
 * starts in the variables' request-order buffers, and the packed data. */
struct list {
    MPI_Offset n, *off, *len, *var, *at; /* at: the piece's first double in buf[var] */
    double *packed;
};

static const struct decomp *by_column_of; /* qsort has no context argument */

static int by_column(const void *a, const void *b)
{
    MPI_Offset x = by_column_of->col[*(const MPI_Offset *)a];
    MPI_Offset y = by_column_of->col[*(const MPI_Offset *)b];
    return (x > y) - (x < y);
}

/* The pieces of every variable in file order: variables, then levels, then
 * columns (the chunks sorted once by column, not the pieces: a library
 * knows its layout). Touching pieces stay apart; tacio merges them. */
static void list_build(const struct decomp *d, const MPI_Offset *varoff, MPI_Offset ncol,
                       struct list *l)
{
    MPI_Offset *order = malloc(sizeof(MPI_Offset) * (size_t)(d->nchunks + 1));
    MPI_Offset *base = malloc(sizeof(MPI_Offset) * (size_t)(d->nchunks + 1));
    for (MPI_Offset i = 0, at = 0; i < d->nchunks; i++)
        order[i] = i, base[i] = at, at += d->width[i] * NLEV; /* requests()'s layout */
    by_column_of = d;
    qsort(order, (size_t)d->nchunks, sizeof *order, by_column);
    l->n = 0;
    for (int v = 0; v < NVARS; v++)
        for (MPI_Offset lev = 0; lev < NLEV; lev++)
            for (MPI_Offset k = 0; k < d->nchunks; k++) {
                MPI_Offset i = order[k], n = l->n;
                l->off[n] = varoff[v] + 8 * (lev * ncol + d->col[i]);
                l->len[n] = 8 * d->width[i];
                l->var[n] = v, l->at[n] = base[i] + lev * d->width[i];
                l->n++;
            }
    free(order);
    free(base);
}

static void swap_copy(double *to, const double *from, MPI_Offset n)
{
    for (MPI_Offset k = 0; k < n; k++) {
        uint64_t u;
        memcpy(&u, &from[k], 8);
        u = __builtin_bswap64(u);
        memcpy(&to[k], &u, 8);
    }
}

static void fail_tacio(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[TACIO_MAX_ERROR_STRING];
        int len;
        tacio_error_get_string(err, msg, &len);
        fprintf(stderr, "varn: %s: %s\n", what, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Where the list path sends its lists: tacio's list API, or the GIO-style
 * baseline (gio_aggs > 0 aggregators, on the file open as fd). */
struct engine {
    tacio_file_t fh;
    int fd, gio_aggs;
};

static void engine_transfer(const struct engine *e, struct list *l, int write)
{
    if (e->gio_aggs) {
        int err = gio_transfer(MPI_COMM_WORLD, e->fd, e->gio_aggs, GIO_STRIPE, l->n, l->off, l->len,
                               (char *)l->packed, write);
        if (err) {
            fprintf(stderr, "varn: the GIO-style baseline: %s\n", strerror(err));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        return;
    }
    fail_tacio(
        write ? tacio_file_write_list_all(e->fh, l->n, l->off, l->len, l->packed, MPI_STATUS_IGNORE)
              : tacio_file_read_list_all(e->fh, l->n, l->off, l->len, l->packed, MPI_STATUS_IGNORE),
        write ? "write_list_all" : "read_list_all");
}

/* One collective of every piece through the engine, the pieces listed and
 * packed (or unpacked) inside the timed part. */
static double list_transfer(const struct engine *e, const struct decomp *d,
                            const MPI_Offset *varoff, MPI_Offset ncol, struct list *l,
                            struct args *a, int write)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    list_build(d, varoff, ncol, l);
    MPI_Offset at = 0;
    for (MPI_Offset k = 0; write && k < l->n; at += l->len[k++] / 8)
        swap_copy(l->packed + at, a->buf[l->var[k]] + l->at[k], l->len[k] / 8);
    engine_transfer(e, l, write);
    for (MPI_Offset k = 0; !write && k < l->n; at += l->len[k++] / 8)
        swap_copy(a->buf[l->var[k]] + l->at[k], l->packed + at, l->len[k] / 8);
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* The list path's reps in one direction, on a file opened for them: the
 * best of reps. gio_aggs: 0 through tacio, else the GIO-style baseline. */
static double list_reps(const char *path, const struct decomp *d, const MPI_Offset *varoff,
                        MPI_Offset ncol, struct args *a, int reps, int write, int gio_aggs)
{
    MPI_Offset n = d->nchunks * NLEV * NVARS + 1;
    struct list l = {0};
    l.off = malloc(sizeof(MPI_Offset) * 4 * (size_t)n);
    l.len = l.off + n, l.var = l.len + n, l.at = l.var + n;
    l.packed = malloc(sizeof(double) * (size_t)(d->ncells * NVARS + 1));
    struct engine e = {.gio_aggs = gio_aggs, .fd = -1};
    double best = 1e30;
    if (gio_aggs && (e.fd = open(path, O_RDWR)) < 0) {
        perror("varn: open");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!gio_aggs)
        fail_tacio(tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &e.fh),
                   "open");
    for (int i = 0; i < reps; i++) {
        for (int v = 0; !write && v < NVARS; v++)
            memset(a->buf[v], 0, sizeof(double) * (size_t)d->ncells);
        double t = list_transfer(&e, d, varoff, ncol, &l, a, write);
        best = t < best ? t : best;
    }
    if (gio_aggs)
        close(e.fd);
    else
        fail_tacio(tacio_file_close(&e.fh), "close");
    free(l.off);
    free(l.packed);
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 3) {
        if (!rank)
            fprintf(stderr, "usage: varn FILE NCOL [REPS [list]]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Offset ncol = atoll(argv[2]);
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    const char *how = argc > 4 ? argv[4] : "varn";
    int list = !strcmp(how, "list") || !strncmp(how, "gio", 3);
    int gio_aggs =
        !strncmp(how, "gio", 3) ? (how[3] == ':' ? atoi(how + 4) : gio_numa_aggregators(np)) : 0;
    if (list && strcmp(how, "list") && (gio_aggs < 1 || gio_aggs > np)) {
        if (!rank)
            fprintf(stderr, "varn: %s: 1 to %d aggregators\n", how, np);
        MPI_Finalize();
        return 2;
    }
    struct decomp d;
    decompose(ncol, rank, np, &d);
    MPI_Offset n = d.nchunks * NLEV;
    struct args a;
    a.starts = malloc(sizeof(MPI_Offset *) * (size_t)(n + 1));
    a.counts = malloc(sizeof(MPI_Offset *) * (size_t)(n + 1));
    MPI_Offset *pool = malloc(sizeof(MPI_Offset) * 4 * (size_t)(n + 1));
    for (MPI_Offset k = 0; k < n; k++)
        a.starts[k] = pool + 4 * k, a.counts[k] = pool + 4 * k + 2;
    for (int v = 0; v < NVARS; v++) {
        a.buf[v] = malloc(sizeof(double) * (size_t)(d.ncells + 1));
        requests(&d, v, a.starts, a.counts, a.buf[v]);
    }
    int nc, dims[2], vars[NVARS];
    fail_nc(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc),
            "create");
    fail_nc(ncmpi_def_dim(nc, "lev", NLEV, &dims[0]), "def_dim");
    fail_nc(ncmpi_def_dim(nc, "ncol", ncol, &dims[1]), "def_dim");
    for (int v = 0; v < NVARS; v++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", v);
        fail_nc(ncmpi_def_var(nc, name, NC_DOUBLE, 2, dims, &vars[v]), "def_var");
    }
    fail_nc(ncmpi_enddef(nc), "enddef");
    MPI_Offset varoff[NVARS];
    for (int v = 0; v < NVARS; v++)
        fail_nc(ncmpi_inq_varoffset(nc, vars[v], &varoff[v]), "inq_varoffset");
    double w = 1e30, r = 1e30;
    long wrong = 0;
    if (list) { /* PnetCDF's header only: the data through tacio's list API */
        fail_nc(ncmpi_close(nc), "close");
        w = list_reps(argv[1], &d, varoff, ncol, &a, reps, 1, gio_aggs);
        MPI_Barrier(MPI_COMM_WORLD);
        wrong += check_file(argv[1], varoff, ncol, rank, np);
        r = list_reps(argv[1], &d, varoff, ncol, &a, reps, 0, gio_aggs);
    } else {
        for (int i = 0; i < reps; i++) {
            double t = transfer(nc, vars, &d, &a, 1);
            w = t < w ? t : w;
        }
        fail_nc(ncmpi_sync(nc), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        wrong += check_file(argv[1], varoff, ncol, rank, np);
        for (int i = 0; i < reps; i++) {
            for (int v = 0; v < NVARS; v++)
                memset(a.buf[v], 0, sizeof(double) * (size_t)d.ncells);
            double t = transfer(nc, vars, &d, &a, 0);
            r = t < r ? t : r;
        }
        fail_nc(ncmpi_close(nc), "close");
    }
    for (int v = 0; v < NVARS; v++) { /* the read buffers against the closed form */
        double *want = malloc(sizeof(double) * (size_t)(d.ncells + 1));
        requests(&d, v, a.starts, a.counts, want);
        for (MPI_Offset k = 0; k < d.ncells; k++)
            wrong += memcmp(&want[k], &a.buf[v][k], sizeof(double)) != 0;
        free(want);
    }
    long all_wrong = 0; /* every rank's exit status says whether any rank read wrong */
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long long pieces = (long long)n * NVARS, most;
    MPI_Reduce(&pieces, &most, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!rank)
        printf("varn ranks=%d path=%s pieces_per_rank=%lld bytes=%lld write_s=%.6f read_s=%.6f "
               "wrong=%ld aggregators=%d\n",
               np,
               gio_aggs ? "gio"
               : list   ? "list"
                        : "varn",
               most, (long long)(8 * NVARS * NLEV * ncol), w, r, all_wrong, gio_aggs);
    MPI_Finalize();
    return all_wrong != 0;
}
