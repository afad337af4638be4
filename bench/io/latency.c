/* bench/io's latency program: many small collectives on one file, IOR's
 * shape (-b 64k -t 4k, collective MPI-IO): transfer k of rank r lies at
 * (s * p + r) * BLOCK + t * T with s = k / (BLOCK / T), t = k % (BLOCK / T).
 *   plain  MPI_File_write_at_all / read_at_all at that offset, MPI_BYTE
 *   view   MPI_File_set_view at that offset (a contiguous filetype of T
 *          bytes), then write_all / read_all: a view per call, as HDF5 and
 *          IOR's useStridedDatatype set one
 *   block  one view set once, IOR's with --mpiio.useFileView: rank r's
 *          filetype is the r-th BLOCK of every p (a subarray), and call k
 *          is write_at_all / read_at_all at stream offset k * T of it, so
 *          the calls step through each block in transfers
 *   floor  no MPI-IO: pwrite / pread at that offset, then one MPI_Allreduce
 *          of an int: the least a collective call can cost when every rank
 *          must learn whether any rank failed (tacio's rule; OMPIO's
 *          write_at_all on contiguous data sends nothing and can be faster)
 * Every 8-byte slot holds its number plus a per-pass salt; read buffers and
 * (POSIX) the file are checked against it.
 * Prints on rank 0, per direction:
 *   latency mode=M op=O np=N transfer=T calls=C times=t1,...  (seconds per call,
 *   each pass's slowest rank) faults_per_call=F rss_kib_first=A rss_kib_last=B wrong=W
 * where rss_kib_first is the peak RSS after the first pass and rss_kib_last
 * after the last: the engine must not grow with the number of calls.
 * usage: latency FILE plain|view|floor TRANSFER CALLS PASSES */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define BLOCK (64 << 10)

struct lat {
    int rank, np, view, block, floor, fd; /* fd: floor mode's POSIX descriptor */
    int64_t transfer, calls;
    MPI_Datatype ttype; /* view: T bytes, contiguous */
    MPI_Datatype btype; /* block: the rank's block of every p */
};

static int64_t offset_of(const struct lat *l, int64_t k)
{
    int64_t per = BLOCK / l->transfer, s = k / per, t = k % per;
    return (s * l->np + l->rank) * BLOCK + t * l->transfer;
}

static double slot_value(int64_t slot, int salt)
{
    return (double)(((int64_t)salt << 40) + slot + 1);
}

static void check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "latency: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void fill(const struct lat *l, double *buf, int64_t k, int salt)
{
    int64_t s0 = offset_of(l, k) / 8;
    for (int64_t i = 0; i < l->transfer / 8; i++)
        buf[i] = slot_value(s0 + i, salt);
}

static int64_t wrong_in(const struct lat *l, const double *buf, int64_t k, int salt)
{
    int64_t s0 = offset_of(l, k) / 8, wrong = 0;
    for (int64_t i = 0; i < l->transfer / 8; i++)
        wrong += buf[i] != slot_value(s0 + i, salt);
    return wrong;
}

/* floor mode's call: the transfer, then every rank learns the worst result. */
static void floor_call(const struct lat *l, double *buf, MPI_Offset off, int write)
{
    ssize_t n = write ? pwrite(l->fd, buf, (size_t)l->transfer, off)
                      : pread(l->fd, buf, (size_t)l->transfer, off);
    int bad = n != l->transfer, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        fprintf(stderr, "latency: floor %s failed\n", write ? "pwrite" : "pread");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void one_call(const struct lat *l, MPI_File fh, double *buf, int64_t k, int write)
{
    MPI_Offset off = offset_of(l, k);
    int n = (int)l->transfer;
    if (l->floor)
        floor_call(l, buf, off, write);
    else if (l->block)
        check(write ? MPI_File_write_at_all(fh, k * n, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
                    : MPI_File_read_at_all(fh, k * n, buf, n, MPI_BYTE, MPI_STATUS_IGNORE),
              write ? "write_at_all" : "read_at_all");
    else if (l->view) {
        check(MPI_File_set_view(fh, off, MPI_BYTE, l->ttype, "native", MPI_INFO_NULL), "set_view");
        check(write ? MPI_File_write_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
                    : MPI_File_read_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE),
              write ? "write_all" : "read_all");
    } else
        check(write ? MPI_File_write_at_all(fh, off, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
                    : MPI_File_read_at_all(fh, off, buf, n, MPI_BYTE, MPI_STATUS_IGNORE),
              write ? "write_at_all" : "read_at_all");
}

/* One pass of calls in one direction; the slowest rank's seconds per call.
 * Each call's buffer is filled (write) or checked (read) outside the timing. */
static double pass(const struct lat *l, MPI_File fh, double *bufs, int salt, int write,
                   int64_t *wrong)
{
    int64_t words = l->transfer / 8;
    for (int64_t k = 0; write && k < l->calls; k++)
        fill(l, bufs + k * words, k, salt);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < l->calls; k++)
        one_call(l, fh, bufs + k * words, k, write);
    double t = (MPI_Wtime() - t0) / (double)l->calls, slowest;
    for (int64_t k = 0; !write && k < l->calls; k++)
        *wrong += wrong_in(l, bufs + k * words, k, salt);
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* This rank's transfers, read back with POSIX. */
static int64_t check_file(const struct lat *l, const char *path, int salt)
{
    int fd = open(path, O_RDONLY);
    double *buf = malloc((size_t)l->transfer);
    int64_t wrong = 0;
    for (int64_t k = 0; k < l->calls; k++) {
        if (fd < 0 || !buf || pread(fd, buf, (size_t)l->transfer, offset_of(l, k)) != l->transfer)
            wrong += l->transfer / 8;
        else
            wrong += wrong_in(l, buf, k, salt);
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    return wrong;
}

static long maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static long minflt(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

static void report(const struct lat *l, const char *op, const double *t, int passes, double faults,
                   long rss_first, long rss_last, int64_t wrong)
{
    long a, b;
    int64_t w;
    double f;
    MPI_Reduce(&rss_first, &a, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&rss_last, &b, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wrong, &w, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&faults, &f, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (l->rank)
        return;
    printf("latency mode=%s op=%s np=%d transfer=%lld calls=%lld times=",
           l->floor   ? "floor"
           : l->view  ? "view"
           : l->block ? "block"
                      : "plain",
           op, l->np, (long long)l->transfer, (long long)l->calls);
    for (int i = 0; i < passes; i++)
        printf("%s%.9f", i ? "," : "", t[i]);
    printf(" faults_per_call=%.3f rss_kib_first=%ld rss_kib_last=%ld wrong=%lld\n", f, a, b,
           (long long)w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct lat l = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &l.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &l.np);
    int passes = argc == 6 ? atoi(argv[5]) : 0;
    if (argc == 6) {
        l.view = !strcmp(argv[2], "view");
        l.block = !strcmp(argv[2], "block");
        l.floor = !strcmp(argv[2], "floor");
        l.transfer = atoll(argv[3]);
        l.calls = atoll(argv[4]);
    }
    if (argc != 6 || (!l.view && !l.block && !l.floor && strcmp(argv[2], "plain")) ||
        l.transfer <= 0 || l.transfer % 8 || BLOCK % l.transfer || l.calls <= 0 || passes <= 0) {
        if (!l.rank)
            fprintf(stderr,
                    "usage: latency FILE plain|view|block|floor TRANSFER(divides 64k) CALLS "
                    "PASSES\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Type_contiguous((int)l.transfer, MPI_BYTE, &l.ttype);
    MPI_Type_commit(&l.ttype);
    int sizes[2] = {1, BLOCK * l.np}, sub[2] = {1, BLOCK}, starts[2] = {0, BLOCK * l.rank};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_BYTE, &l.btype);
    MPI_Type_commit(&l.btype);
    double *bufs = malloc((size_t)(l.transfer * l.calls));
    double *tw = calloc((size_t)passes + 1, sizeof(double));
    double *tr = calloc((size_t)passes + 1, sizeof(double));
    if (!l.rank)
        unlink(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_File fh;
    check(
        MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "open");
    if (l.block)
        check(MPI_File_set_view(fh, 0, MPI_BYTE, l.btype, "native", MPI_INFO_NULL), "set_view");
    l.fd = l.floor ? open(argv[1], O_RDWR) : -1;
    if (l.floor && l.fd < 0) {
        perror("latency: open");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int64_t wrong = 0;
    long rss_first = 0, f0 = 0;
    for (int i = 0; i <= passes; i++) { /* pass 0 warms up */
        if (i == 1)
            f0 = minflt();
        tw[i] = pass(&l, fh, bufs, i + 1, 1, &wrong);
        memset(bufs, 0xff, (size_t)(l.transfer * l.calls));
        tr[i] = pass(&l, fh, bufs, i + 1, 0, &wrong);
        if (i == 1)
            rss_first = maxrss_kib();
    }
    double faults = (double)(minflt() - f0) / (double)(2 * l.calls * passes);
    long rss_last = maxrss_kib();
    if (l.fd >= 0)
        close(l.fd);
    check(MPI_File_close(&fh), "close");
    wrong += check_file(&l, argv[1], passes + 1);
    report(&l, "write", tw + 1, passes, faults, rss_first, rss_last, wrong);
    report(&l, "read", tr + 1, passes, faults, rss_first, rss_last, wrong);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!l.rank)
        unlink(argv[1]);
    MPI_Type_free(&l.ttype);
    MPI_Type_free(&l.btype);
    free(bufs);
    free(tw);
    free(tr);
    MPI_Finalize();
    return wrong != 0;
}
