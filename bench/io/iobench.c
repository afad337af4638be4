/* bench/io's program: collective writes and reads of one access pattern
 * through the plain MPI-IO API (run it plain for the MPI library's own
 * collective I/O, or under the tacio shim), checked against the pattern's
 * closed form, never against an MPI datatype's flattening:
 *   - every double written is the number of its 8-byte slot in the file, plus
 *     a per-repetition salt, so a value says where it belongs;
 *   - each rank's buffer is filled, and each read checked, from the pieces
 *     the pattern's closed form gives (pieces_of below), not from the view;
 *   - after the last write, the ranks read the whole file back with POSIX
 *     pread, each a share, and check every slot (gaps must stay zero).
 * Patterns (the file view is set with etype MPI_DOUBLE at displacement 0):
 *   cube      n^3 doubles, 3-D block decomposition, MPI_Type_create_subarray
 *   btio      NAS BT-IO's diagonal multi-partitioning, q^2 ranks, cells of
 *             5-double records, a struct of q subarrays
 *   collperf  ROMIO's coll_perf: n^3 doubles, MPI_Type_create_darray BLOCK
 *   ior       IOR's segmented layout: per segment one block per rank, a vector
 *   struct    rank-interleaved records of 3 doubles in 4-double slots (one
 *             double of gap), a struct resized to p slots
 *   coarse    the cube on a 2-D process grid (MPI_Dims_create(p, 2) x 1): each
 *             rank's rows are whole rows, runs of many rows per plane
 * Prints on rank 0, one line per direction:
 *   pattern=P op=write|read np=N bytes=B times=t1,t2,... wrong=W maxrss_kib=K
 *   (times: each call's seconds from the first rank's start to the last
 *   rank's end; with more ranks than cores a rank may leave the barrier
 *   only when another's work lets it run, and its own time leaves that
 *   wait out)
 *   faults_per_call=F (minor page faults of the slowest rank per timed call)
 *   runs=R (the most runs of the file one rank's access forms: 1 where each
 *   rank's access is one run, which every library moves with one call)
 *   first=F (the warm-up call's seconds: bench/io/repeat counts every call)
 *   run_bytes=B (the mean bytes of a run over every rank's runs)
 *   ceiling=S (the parallel POSIX ceiling: the median over REPS of the time
 *   from the first rank's start to the last rank's end when each rank
 *   pwrites, or preads, the same bytes as one run of its own, the ranks'
 *   runs side by side in rank order, in the same file after the
 *   collectives, timed as the calls are; no MPI-IO layer moves these bytes
 *   faster)
 * usage: iobench FILE PATTERN quick|full|SIZE REPS [BUDGET]
 * PATTERN and SIZE may be lists, P1+P2+... and S1+S2+... (one SIZE: every
 * pattern's): each shape in turn, its own file opened, written, read and
 * closed in the one process, as a program that writes each shape once
 * does (bench/io/shapes); its lines then end with shape=K.
 * BUDGET (seconds, default none): stop after the first timed repetition that
 * brings the timed calls past it, so that a configuration taking tens of
 * seconds a call (OMPIO's struct at full size) does not take the whole bench;
 * the line then carries fewer times. */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../common/pattern.h"

/* ---- file views, built the way applications build them ---- */

/* The application's own block decomposition (MPI_Type_create_darray's
 * BLOCK rule), kept apart from the planner's closed form that fills and
 * checks the data: a disagreement shows as wrong bytes. */
static void block_range(int64_t n, int d, int c, int64_t *lo, int64_t *hi)
{
    int64_t b = (n + d - 1) / d;
    *lo = c * b < n ? c * b : n;
    *hi = (c + 1) * b < n ? (c + 1) * b : n;
}

/* BT-IO: in slice k the rank at (r, c) of slice 0 holds cell
 * ((r-k) mod q, (c+k) mod q). */
static void btio_cell(const struct pattern *p, int k, int64_t *lo, int64_t *hi)
{
    int q = p->dims[0], r = p->rank / q, c = p->rank % q;
    block_range(p->n, q, k, &lo[0], &hi[0]);
    block_range(p->n, q, ((r - k) % q + q) % q, &lo[1], &hi[1]);
    block_range(p->n, q, (c + k) % q, &lo[2], &hi[2]);
}

static void cube_type(struct pattern *p, int darray)
{
    int sizes[3], sub[3], starts[3];
    for (int d = 0; d < 3; d++) {
        int c = d == 0   ? p->rank / (p->dims[1] * p->dims[2])
                : d == 1 ? (p->rank / p->dims[2]) % p->dims[1]
                         : p->rank % p->dims[2];
        int64_t lo, hi;
        block_range(p->n, p->dims[d], c, &lo, &hi);
        sizes[d] = (int)p->n;
        sub[d] = (int)(hi - lo);
        starts[d] = (int)lo;
    }
    if (darray) {
        int distribs[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
        int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG,
                        MPI_DISTRIBUTE_DFLT_DARG};
        MPI_Type_create_darray(p->np, p->rank, 3, sizes, distribs, dargs, p->dims, MPI_ORDER_C,
                               MPI_DOUBLE, &p->filetype);
    } else
        MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &p->filetype);
}

static void btio_type(struct pattern *p)
{
    int q = p->dims[0], sizes[3] = {(int)p->n, (int)p->n, (int)p->n}, lens[64];
    MPI_Datatype rec, cells[64];
    MPI_Aint displs[64];
    MPI_Type_contiguous(5, MPI_DOUBLE, &rec);
    for (int k = 0; k < q; k++) {
        int64_t lo[3], hi[3];
        btio_cell(p, k, lo, hi);
        int sub[3] = {(int)(hi[0] - lo[0]), (int)(hi[1] - lo[1]), (int)(hi[2] - lo[2])};
        int starts[3] = {(int)lo[0], (int)lo[1], (int)lo[2]};
        MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, rec, &cells[k]);
        lens[k] = 1;
        displs[k] = 0;
    }
    MPI_Type_create_struct(q, lens, displs, cells, &p->filetype);
    for (int k = 0; k < q; k++)
        MPI_Type_free(&cells[k]);
    MPI_Type_free(&rec);
}

static void ior_type(struct pattern *p)
{
    MPI_Datatype v;
    MPI_Type_vector(IOR_SEGMENTS, (int)(p->n / 8), (int)(p->n / 8 * p->np), MPI_DOUBLE, &v);
    int len = 1;
    MPI_Aint disp = p->rank * p->n;
    MPI_Type_create_hindexed(1, &len, &disp, v, &p->filetype); /* IOR offsets by rank */
    MPI_Type_free(&v);
}

static void struct_type(struct pattern *p)
{
    int lens[2] = {2, 1};
    MPI_Aint displs[2] = {0, 24};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_DOUBLE}, rec, slot;
    MPI_Type_create_struct(2, lens, displs, types, &rec);
    MPI_Type_create_resized(rec, 0, 32 * p->np, &slot); /* one record per rank per row */
    int one = 1;
    MPI_Aint at = 32 * p->rank;
    MPI_Datatype all;
    MPI_Type_contiguous((int)p->n, slot, &all);
    MPI_Type_create_hindexed(1, &one, &at, all, &p->filetype);
    MPI_Type_free(&all);
    MPI_Type_free(&slot);
    MPI_Type_free(&rec);
}

/* size: quick, full, or the pattern's size parameter itself (an edge, block
 * bytes or records per rank, as pattern_shape takes it). */
static int pattern_init(struct pattern *p, const char *name, const char *size)
{
    int64_t n = 0;
    int full = !strcmp(size, "full");
    if (!strcmp(name, "cube") || !strcmp(name, "collperf") || !strcmp(name, "coarse"))
        n = full ? 256 : 128; /* 16 MiB quick, 128 MiB full */
    else if (!strcmp(name, "btio"))
        n = full ? 120 : 60; /* 8.2 MiB quick, 66 MiB full at q=3 */
    else if (!strcmp(name, "ior"))
        n = (int64_t)(full ? 2048 : 256) << 10; /* block: 16 MiB quick, 128 MiB full at 8 */
    else if (!strcmp(name, "struct"))
        n = full ? 512 << 10 : 64 << 10; /* records per rank: 16 MiB quick, 128 MiB full */
    if (atoll(size) > 0)
        n = atoll(size);
    if (pattern_shape(p, name, n))
        return -1;
    if (!strcmp(name, "cube") || !strcmp(name, "collperf") || !strcmp(name, "coarse"))
        cube_type(p, !strcmp(name, "collperf"));
    else if (!strcmp(name, "btio"))
        btio_type(p);
    else if (!strcmp(name, "ior"))
        ior_type(p);
    else
        struct_type(p);
    MPI_Type_commit(&p->filetype);
    return 0;
}

/* A failed call ends the bench with the library's own message. */
static void check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "iobench: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static long faults; /* minor page faults during the timed calls */

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* The host's clock, which every rank reads alike (bench/io runs on one
 * host), in seconds. */
static double host_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Work every rank did from a barrier, this rank from t0 to end: the
 * seconds from the first rank's start to the last rank's end, which every
 * rank learns (the calls' and the ceiling's measure). */
static double span_seconds(double t0, double end)
{
    double mine[2] = {end, -t0}, last[2];
    MPI_Allreduce(mine, last, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return last[0] + last[1];
}

/* A call's time: its span (above). */
static double timed(MPI_File fh, double *buf, int64_t count, int write, int counted)
{
    MPI_Barrier(MPI_COMM_WORLD);
    long f0 = minflt();
    double t0 = host_clock();
    if (write)
        check(MPI_File_write_at_all(fh, 0, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE),
              "MPI_File_write_at_all");
    else
        check(MPI_File_read_at_all(fh, 0, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE),
              "MPI_File_read_at_all");
    double end = host_clock();
    if (counted)
        faults += minflt() - f0;
    return span_seconds(t0, end);
}

/* The runs of the file a rank's pieces form (touching pieces are one run). */
struct runs {
    int64_t n, end;
};

static int count_run(int64_t off, int64_t len, void *ctx)
{
    struct runs *r = ctx;
    r->n += !r->n || off != r->end;
    r->end = off + len;
    return 0;
}

/* One POSIX transfer of the ceiling, from the first rank's start after a
 * barrier to the last rank's end. A short transfer ends the bench: the
 * ceiling would be of fewer bytes than the collectives moved. */
static double posix_timed(int fd, double *buf, int64_t bytes, int64_t at, int write)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = host_clock();
    int64_t done = 0;
    while (done < bytes) {
        ssize_t n = write ? pwrite(fd, (char *)buf + done, (size_t)(bytes - done), at + done)
                          : pread(fd, (char *)buf + done, (size_t)(bytes - done), at + done);
        if (n <= 0) {
            perror(write ? "iobench: ceiling pwrite" : "iobench: ceiling pread");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        done += n;
    }
    return span_seconds(t0, host_clock());
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, by_value);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* The parallel POSIX ceiling (see the header) for a write (ceiling[0]) and
 * a read (ceiling[1]): a warm-up pair, then reps timed pairs. */
static void posix_ceiling(const char *path, double *buf, int64_t bytes, int reps, double ceiling[2])
{
    int64_t at = 0;
    MPI_Exscan(&bytes, &at, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!rank)
        at = 0; /* MPI_Exscan leaves rank 0's undefined */
    int fd = open(path, O_RDWR);
    if (fd < 0) {
        perror("iobench: ceiling open");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *t[2] = {malloc(sizeof(double) * (size_t)reps), malloc(sizeof(double) * (size_t)reps)};
    for (int i = 0; i <= reps; i++)
        for (int op = 0; op < 2; op++) {
            double s = posix_timed(fd, buf, bytes, at, op == 0);
            if (i > 0)
                t[op][i - 1] = s;
        }
    close(fd);
    for (int op = 0; op < 2; op++) {
        ceiling[op] = median_of(t[op], reps);
        free(t[op]);
    }
}

/* t[0] is the warm-up's time, t[1..reps] the timed calls'. */
static void print_times(const struct pattern *p, const char *op, int64_t bytes, const double *t,
                        int reps, int64_t wrong, long rss, double fpc, int64_t runs,
                        double run_bytes, double ceiling, int shape)
{
    printf("pattern=%s op=%s np=%d bytes=%lld times=", p->name, op, p->np, (long long)bytes);
    for (int i = 1; i <= reps; i++)
        printf("%s%.6f", i > 1 ? "," : "", t[i]);
    printf(" wrong=%lld maxrss_kib=%ld faults_per_call=%.1f runs=%lld first=%.6f run_bytes=%.0f "
           "ceiling=%.6f",
           (long long)wrong, rss, fpc, (long long)runs, t[0], run_bytes, ceiling);
    if (shape >= 0)
        printf(" shape=%d", shape);
    printf("\n");
}

/* One shape: its file written and read reps + 1 times (the first warms
 * up), checked, and its lines printed (with shape=K when the run has more
 * than one). Returns whether any value was wrong. */
static int run_shape(const char *path, struct pattern *p, int reps, double budget, int shape)
{
    double spent = 0;
    int64_t count = 0;
    pieces_of(p, count_piece, &count);
    double *buf = malloc(sizeof(double) * (size_t)(count ? count : 1));
    double *tw = calloc((size_t)reps + 1, sizeof(double)),
           *tr = calloc((size_t)reps + 1, sizeof(double));
    if (!p->rank)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          "MPI_File_open");
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, p->filetype, "native", MPI_INFO_NULL),
          "MPI_File_set_view");
    int64_t wrong_read = 0;
    faults = 0;
    for (int i = 0; i <= reps; i++) { /* i == 0 warms up: file allocated, caches primed */
        struct walk w = {buf, 0, 0, i + 1, 0};
        pieces_of(p, fill_or_check, &w);
        tw[i] = timed(fh, buf, count, 1, i > 0);
        memset(buf, 0xff, sizeof(double) * (size_t)count);
        tr[i] = timed(fh, buf, count, 0, i > 0);
        w = (struct walk){buf, 0, 0, i + 1, 1};
        pieces_of(p, fill_or_check, &w);
        wrong_read += w.wrong;
        spent += i > 0 ? tw[i] + tr[i] : 0; /* agreed: the same on every rank */
        if (budget > 0 && i > 0 && spent >= budget)
            reps = i; /* every rank leaves after the same repetition */
    }
    check(MPI_File_close(&fh), "MPI_File_close");
    int64_t wrong_file = check_file(p, path, reps + 1), wf, wr, bytes = count * 8, total;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss, maxrss, most_faults = 0; /* rank 0's alone is the maximum */
    MPI_Reduce(&faults, &most_faults, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    double fpc = reps ? (double)most_faults / (2.0 * reps) : 0;
    MPI_Allreduce(&wrong_file, &wf, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&wrong_read, &wr, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&rss, &maxrss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bytes, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    struct runs mine = {0, 0};
    int64_t runs = 0, all_runs = 0;
    pieces_of(p, count_run, &mine);
    MPI_Reduce(&mine.n, &runs, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine.n, &all_runs, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    double ceiling[2];
    posix_ceiling(path, buf, bytes, reps > 0 ? reps : 1, ceiling);
    if (!p->rank) {
        double run_bytes = all_runs ? (double)total / (double)all_runs : 0;
        print_times(p, "write", total, tw, reps, wf, maxrss, fpc, runs, run_bytes, ceiling[0],
                    shape);
        print_times(p, "read", total, tr, reps, wr, maxrss, fpc, runs, run_bytes, ceiling[1],
                    shape);
        unlink(path);
    }
    free(buf);
    free(tw);
    free(tr);
    return wf || wr;
}

/* The '+'-separated item k of list (the whole list when it has none),
 * in out; false past its end. */
static int list_item(const char *list, int k, char *out, size_t cap)
{
    for (int i = 0; i < k; i++) {
        list = strchr(list, '+');
        if (!list++)
            return 0;
    }
    size_t n = strcspn(list, "+");
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), list);
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* MPI_File_open reports here */
    int rank, usage = argc < 5 || argc > 6, failed = 0, shapes = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64], size[64];
    while (!usage && list_item(argv[2], shapes, name, sizeof name))
        shapes++;
    for (int k = 0; !usage && k < shapes && !failed; k++) {
        struct pattern p;
        list_item(argv[2], k, name, sizeof name);
        if (!list_item(argv[3], k, size, sizeof size))
            list_item(argv[3], 0, size, sizeof size); /* one size for every shape */
        if (pattern_init(&p, name, size)) {
            usage = 1;
            break;
        }
        failed = run_shape(argv[1], &p, atoi(argv[4]), argc == 6 ? atof(argv[5]) : 0,
                           shapes > 1 ? k : -1);
        MPI_Type_free(&p.filetype);
        pattern_release(&p);
    }
    if (usage && !rank)
        fprintf(stderr, "usage: iobench FILE cube|coarse|btio(q^2 ranks)|collperf|ior|struct"
                        "[+PATTERN...] quick|full|SIZE[+SIZE...] REPS [BUDGET]\n");
    MPI_Finalize();
    return usage ? 2 : failed;
}
