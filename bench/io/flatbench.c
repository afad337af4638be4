/* bench/io's flattening micro-bench: views of up to millions of pieces, as
 * PnetCDF's varn and HDF5's point and irregular selections build them, set
 * and used once, each step timed on its own:
 *   mpi_set_view    the MPI library's MPI_File_set_view of the filetype (its
 *                   own flattening: ROMIO flattens there, OMPIO decodes it)
 *   dup             MPI_Type_dup of the filetype (what keeping a copy costs)
 *   decode_floor    MPI_Type_get_contents of the filetype alone (and freeing
 *                   the member handles it returns): what any flattening
 *                   through MPI's decoding calls pays at least
 *   tacio_set_view  tacio_file_set_view: tacio decodes and flattens it
 *   tacio_call      the first write_all on that view with a memory type of
 *                   as many pieces (flattened in the call), and its stages
 *   tacio_list      the same pieces through tacio_file_write_list_all (no
 *                   datatype; the buffer in the pieces' order), view and
 *                   call together, against tacio_set_view + tacio_call
 * Cases (blocks of the filetype, 8-byte elements):
 *   strided    N blocks of 8 bytes every 16: one stride throughout
 *   irregular  N blocks of 8-64 bytes, sorted, random gaps
 *   touching   N blocks of 8 bytes, each where the last ended (one run)
 *   unordered  irregular's file, and the memory type's pieces in an order
 *              of their own (runs of 64 pieces shuffled: a Hilbert-ordered
 *              decomposition's requests)
 *   chunks     irregular's pieces as HDF5's linked-chunk collective I/O
 *              builds them: a struct of one derived type a chunk (a
 *              contiguous run of doubles, freed once the struct holds it),
 *              for the file and the memory alike
 * Prints one line a case:
 *   flat case=C blocks=N mpi_set_view_ns=X dup_ns=Y decode_floor_ns=D tacio_set_view_ns=Z
 *        tacio_call_ns=W unaccounted_ns=U meta_bytes_per_block=M tacio_list_ns=L
 *        list_vs_datatype=R verified=yes
 * (nanoseconds per block; unaccounted: the call's time its stats do not
 * place in a stage; meta: what tacio's call held per block of the view
 * and memory type). The file is read back with POSIX and checked.
 *
 * With --fresh, in a process that does nothing else, each case as a
 * library that builds a filetype for every collective runs it (PnetCDF's
 * wait_all): the file open throughout, the filetype built anew for every
 * call and freed after it, the buffer packed in the file's order; then the
 * same pieces through the list API, its file open throughout. The median
 * of FRESH_CALLS calls after the first:
 *   fresh case=C blocks=N view_ns= call_ns= list_ns= list_vs_datatype= verified=yes
 * (the MPI's earlier work in the default mode leaves the heap warm for
 * tacio's arrays; a program that only writes meets the C library's own
 * handling of large blocks).
 * usage: flatbench DIR N [--fresh] [CASE...] */
#include "tacio.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct blocks {
    int64_t n;
    MPI_Aint *disp; /* file offsets, sorted */
    int *len;       /* bytes */
    MPI_Aint *mem;  /* where each block's bytes sit in the buffer */
    int64_t bytes;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

/* The buffer in block order, or (unordered) runs of 64 blocks shuffled. */
static void place_in_memory(struct blocks *b, int unordered)
{
    int64_t runs = (b->n + 63) / 64, *order = malloc(sizeof(int64_t) * (size_t)runs);
    for (int64_t r = 0; r < runs; r++)
        order[r] = r;
    for (int64_t r = runs - 1; unordered && r > 0; r--) {
        int64_t k = (int64_t)(next() % (uint64_t)(r + 1)), t = order[r];
        order[r] = order[k], order[k] = t;
    }
    MPI_Aint at = 0;
    for (int64_t q = 0; q < runs; q++)
        for (int64_t i = order[q] * 64; i < b->n && i < order[q] * 64 + 64; i++)
            b->mem[i] = at, at += b->len[i];
    free(order);
}

static void make_case(const char *name, int64_t n, struct blocks *b)
{
    b->n = n;
    b->disp = malloc(sizeof(MPI_Aint) * (size_t)n);
    b->len = malloc(sizeof(int) * (size_t)n);
    b->mem = malloc(sizeof(MPI_Aint) * (size_t)n);
    MPI_Aint at = 0;
    int irregular = strcmp(name, "strided") && strcmp(name, "touching");
    for (int64_t i = 0; i < n; i++) {
        b->len[i] = irregular ? 8 * (int)(1 + next() % 8) : 8;
        b->disp[i] = at;
        at += b->len[i] + (!strcmp(name, "strided") ? 8 : irregular ? 8 * (int)(next() % 4) : 0);
    }
    b->bytes = 0;
    for (int64_t i = 0; i < n; i++)
        b->bytes += b->len[i];
    place_in_memory(b, !strcmp(name, "unordered"));
}

static double now(void)
{
    return MPI_Wtime();
}

static MPI_Datatype hindexed(int64_t n, const int *len, const MPI_Aint *disp)
{
    MPI_Datatype t;
    MPI_Type_create_hindexed((int)n, len, disp, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* A struct of one derived type a block, each its own handle. */
static MPI_Datatype chunked(int64_t n, const int *len, const MPI_Aint *disp)
{
    MPI_Datatype *each = calloc((size_t)n, sizeof(MPI_Datatype)), t;
    int *ones = calloc((size_t)n, sizeof(int));
    for (int64_t i = 0; i < n; i++) {
        MPI_Type_contiguous(len[i] / 8, MPI_DOUBLE, &each[i]);
        ones[i] = 1;
    }
    MPI_Type_create_struct((int)n, ones, disp, each, &t);
    MPI_Type_commit(&t);
    for (int64_t i = 0; i < n; i++)
        MPI_Type_free(&each[i]);
    free(each), free(ones);
    return t;
}

/* The case's datatype over (len, disp). */
static MPI_Datatype case_type(const char *name, int64_t n, const int *len, const MPI_Aint *disp)
{
    return strcmp(name, "chunks") ? hindexed(n, len, disp) : chunked(n, len, disp);
}

/* Each byte holds the low bits of its file offset. */
static void fill(const struct blocks *b, char *buf)
{
    for (int64_t i = 0; i < b->n; i++)
        for (int k = 0; k < b->len[i]; k++)
            buf[b->mem[i] + k] = (char)((b->disp[i] + k) * 7);
}

static int check_file(const struct blocks *b, const char *path)
{
    int64_t end = b->disp[b->n - 1] + b->len[b->n - 1];
    char *file = malloc((size_t)end);
    int fd = open(path, O_RDONLY), wrong = 0;
    if (fd < 0 || pread(fd, file, (size_t)end, 0) != (ssize_t)end)
        wrong = 1;
    for (int64_t i = 0; !wrong && i < b->n; i++)
        for (int k = 0; k < b->len[i]; k++)
            wrong |= file[b->disp[i] + k] != (char)((b->disp[i] + k) * 7);
    if (fd >= 0)
        close(fd);
    free(file);
    return wrong;
}

/* The least any flattening through MPI's decoding calls pays: the
 * filetype's own contents asked once (and the member handles it returns
 * freed), its members not looked into. */
static double decode_floor(MPI_Datatype ft)
{
    int ni, na, nd, comb;
    double t0 = now();
    MPI_Type_get_envelope(ft, &ni, &na, &nd, &comb);
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    MPI_Type_get_contents(ft, ni, na, nd, ints, aints, types);
    for (int i = 0; i < nd; i++) {
        int a, b, c, member;
        MPI_Type_get_envelope(types[i], &a, &b, &c, &member);
        if (member != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    double t = now() - t0;
    free(ints), free(aints), free(types);
    return t;
}

static double mpi_set_view(const char *path, MPI_Datatype ft)
{
    MPI_File fh;
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    double t0 = now();
    MPI_File_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    double t = now() - t0;
    MPI_File_close(&fh);
    return t;
}

/* The pieces as the list API takes them (offset, length). */
static void pieces_list(const struct blocks *b, MPI_Offset **off, MPI_Offset **len)
{
    *off = malloc(sizeof(MPI_Offset) * (size_t)b->n);
    *len = malloc(sizeof(MPI_Offset) * (size_t)b->n);
    for (int64_t i = 0; i < b->n; i++)
        (*off)[i] = b->disp[i], (*len)[i] = b->len[i];
}

/* The pieces' bytes packed in file order, each the low bits of its offset
 * (fill's values, without the memory type's layout). */
static char *packed_buffer(const struct blocks *b)
{
    char *buf = malloc((size_t)b->bytes);
    for (int64_t i = 0, at = 0; i < b->n; i++)
        for (int k = 0; k < b->len[i]; k++)
            buf[at++] = (char)((b->disp[i] + k) * 7);
    return buf;
}

/* The pieces through the list API, the buffer in the pieces' order: its
 * seconds; *wrong set when the file is not the closed form. */
static double list_write(const struct blocks *b, const char *path, int *wrong)
{
    MPI_Offset *off, *len;
    pieces_list(b, &off, &len);
    char *buf = packed_buffer(b);
    tacio_file_t fh;
    tacio_file_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    double t0 = now();
    int rc = tacio_file_write_list_all(fh, b->n, off, len, buf, MPI_STATUS_IGNORE);
    double t = now() - t0;
    tacio_file_close(&fh);
    *wrong |= rc || check_file(b, path);
    unlink(path);
    free(off), free(len), free(buf);
    return t;
}

#define FRESH_CALLS 5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* A filetype built for each of FRESH_CALLS + 1 calls on one open file, the
 * buffer packed: the median seconds of the view (*view_s) and the call
 * (*call_s) after the first. */
static int fresh_datatype(const char *path, const char *name, const struct blocks *b,
                          const char *packed, double *view_s, double *call_s)
{
    double view[FRESH_CALLS + 1], call[FRESH_CALLS + 1];
    tacio_file_t fh;
    int rc =
        tacio_file_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    for (int r = 0; !rc && r <= FRESH_CALLS; r++) {
        MPI_Datatype ft = case_type(name, b->n, b->len, b->disp);
        double t0 = now();
        rc = tacio_file_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        double t1 = now();
        rc = rc ? rc : tacio_file_write_all(fh, packed, (int)b->bytes, MPI_BYTE, MPI_STATUS_IGNORE);
        view[r] = t1 - t0, call[r] = now() - t1;
        rc = rc ? rc : tacio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        MPI_Type_free(&ft);
    }
    if (fh)
        tacio_file_close(&fh);
    *view_s = median(view + 1, FRESH_CALLS), *call_s = median(call + 1, FRESH_CALLS);
    return rc;
}

/* The same pieces through the list API, FRESH_CALLS + 1 calls on one open
 * file: the median seconds after the first. */
static int fresh_list(const char *path, const struct blocks *b, const char *packed, double *list_s)
{
    MPI_Offset *off, *len;
    pieces_list(b, &off, &len);
    double t[FRESH_CALLS + 1];
    tacio_file_t fh;
    int rc =
        tacio_file_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    for (int r = 0; !rc && r <= FRESH_CALLS; r++) {
        double t0 = now();
        rc = tacio_file_write_list_all(fh, b->n, off, len, packed, MPI_STATUS_IGNORE);
        t[r] = now() - t0;
    }
    if (fh)
        tacio_file_close(&fh);
    *list_s = median(t + 1, FRESH_CALLS);
    free(off), free(len);
    return rc;
}

static void run_fresh(const char *dir, const char *name, int64_t n)
{
    struct blocks b;
    make_case(name, n, &b);
    char path[4096];
    snprintf(path, sizeof path, "%s/flatbench.%s", dir, name);
    char *packed = packed_buffer(&b);
    double view_s, call_s, list_s;
    int wrong = fresh_datatype(path, name, &b, packed, &view_s, &call_s);
    wrong |= check_file(&b, path);
    unlink(path);
    wrong |= fresh_list(path, &b, packed, &list_s);
    wrong |= check_file(&b, path);
    unlink(path);
    double per = 1e9 / (double)n;
    printf("fresh case=%s blocks=%lld view_ns=%.1f call_ns=%.1f list_ns=%.1f "
           "list_vs_datatype=%.2f verified=%s\n",
           name, (long long)n, view_s * per, call_s * per, list_s * per, (view_s + call_s) / list_s,
           wrong ? "no" : "yes");
    fflush(stdout);
    free(packed), free(b.disp), free(b.len), free(b.mem);
}

static void run_case(const char *dir, const char *name, int64_t n)
{
    struct blocks b;
    make_case(name, n, &b);
    char path[4096];
    snprintf(path, sizeof path, "%s/flatbench.%s", dir, name);
    MPI_Datatype ft = case_type(name, n, b.len, b.disp), mt = case_type(name, n, b.len, b.mem), dup;
    double mpi = mpi_set_view(path, ft), decode_s = decode_floor(ft);
    double t0 = now();
    MPI_Type_dup(ft, &dup);
    double dup_s = now() - t0;
    MPI_Type_free(&dup);
    unlink(path);
    char *buf = malloc((size_t)b.bytes);
    fill(&b, buf);
    tacio_file_t fh;
    tacio_file_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    t0 = now();
    int rc = tacio_file_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    double view_s = now() - t0;
    MPI_Status st;
    t0 = now();
    rc = rc ? rc : tacio_file_write_all(fh, buf, 1, mt, &st);
    double call_s = now() - t0;
    struct tacio_stats s = TACIO_STATS_INIT;
    tacio_file_get_stats(fh, &s);
    tacio_file_close(&fh);
    double staged = s.st1_access + s.st2_plan + s.st3_route + s.st4_shuffle + s.st5_io;
    int wrong = rc || check_file(&b, path);
    unlink(path);
    double list_s = list_write(&b, path, &wrong);
    double per = 1e9 / (double)n;
    printf("flat case=%s blocks=%lld mpi_set_view_ns=%.1f dup_ns=%.1f decode_floor_ns=%.1f "
           "tacio_set_view_ns=%.1f tacio_call_ns=%.1f unaccounted_ns=%.1f "
           "meta_bytes_per_block=%.1f tacio_list_ns=%.1f list_vs_datatype=%.2f verified=%s\n",
           name, (long long)n, mpi * per, dup_s * per, decode_s * per, view_s * per, call_s * per,
           (call_s - staged) * per, (double)s.meta_bytes / (double)n, list_s * per,
           (view_s + call_s) / list_s, wrong ? "no" : "yes");
    fflush(stdout);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
    free(buf), free(b.disp), free(b.len), free(b.mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(
            stderr,
            "usage: flatbench DIR N [--fresh] [strided|irregular|touching|unordered|chunks...]\n");
        MPI_Finalize();
        return 2;
    }
    static const char *const all[] = {"strided", "irregular", "touching", "unordered", "chunks"};
    int64_t n = atoll(argv[2]);
    int first = 3, fresh = argc > 3 && !strcmp(argv[3], "--fresh");
    first += fresh;
    void (*run)(const char *, const char *, int64_t) = fresh ? run_fresh : run_case;
    if (argc > first)
        for (int i = first; i < argc; i++)
            run(argv[1], argv[i], n);
    else
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            run(argv[1], all[i], n);
    MPI_Finalize();
    return 0;
}
