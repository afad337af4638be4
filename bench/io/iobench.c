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
 * Prints on rank 0, one line per direction:
 *   pattern=P op=write|read np=N bytes=B times=t1,t2,... wrong=W maxrss_kib=K
 * usage: iobench FILE PATTERN quick|full REPS */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define SALT_SHIFT 40 /* salt * 2^40 + slot stays exact in a double below 2^53 */

struct pattern {
    const char *name;
    int64_t n;             /* cube, btio, collperf: edge; ior: block bytes; struct: records */
    int rank, np, dims[3]; /* rank's place in the process grid */
    int64_t file_bytes;    /* bytes the pattern spans */
    MPI_Datatype filetype;
};

typedef void (*piece_fn)(int64_t off, int64_t len, void *ctx);

/* ---- closed forms: each rank's pieces, in the order of its file view ---- */

static void block_range(int64_t n, int d, int c, int64_t *lo, int64_t *hi)
{
    int64_t b = (n + d - 1) / d;
    *lo = c * b < n ? c * b : n;
    *hi = (c + 1) * b < n ? (c + 1) * b : n;
}

/* Rows of the box [lo, hi) of an n^3 array of elem-byte elements. */
static void box_pieces(int64_t n, int64_t elem, const int64_t *lo, const int64_t *hi, piece_fn fn,
                       void *ctx)
{
    for (int64_t x = lo[0]; x < hi[0]; x++)
        for (int64_t y = lo[1]; y < hi[1] && hi[2] > lo[2]; y++)
            fn(((x * n + y) * n + lo[2]) * elem, (hi[2] - lo[2]) * elem, ctx);
}

static void grid_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    int c[3] = {p->rank / (p->dims[1] * p->dims[2]), (p->rank / p->dims[2]) % p->dims[1],
                p->rank % p->dims[2]};
    int64_t lo[3], hi[3];
    for (int d = 0; d < 3; d++)
        block_range(p->n, p->dims[d], c[d], &lo[d], &hi[d]);
    box_pieces(p->n, 8, lo, hi, fn, ctx);
}

/* BT-IO: in slice k the rank at (r, c) of slice 0 holds cell ((r-k) mod q, (c+k) mod q). */
static void btio_cell(const struct pattern *p, int k, int64_t *lo, int64_t *hi)
{
    int q = p->dims[0], r = p->rank / q, c = p->rank % q;
    block_range(p->n, q, k, &lo[0], &hi[0]);
    block_range(p->n, q, ((r - k) % q + q) % q, &lo[1], &hi[1]);
    block_range(p->n, q, (c + k) % q, &lo[2], &hi[2]);
}

static void btio_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    for (int k = 0; k < p->dims[0]; k++) {
        int64_t lo[3], hi[3];
        btio_cell(p, k, lo, hi);
        box_pieces(p->n, 40, lo, hi, fn, ctx);
    }
}

#define IOR_SEGMENTS 8
static void ior_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    for (int64_t s = 0; s < IOR_SEGMENTS; s++)
        fn((s * p->np + p->rank) * p->n, p->n, ctx);
}

/* A record is slots 0, 1 and 3 of a 4-double slot; slot 2 is a gap. */
static void struct_pieces(const struct pattern *p, piece_fn fn, void *ctx)
{
    for (int64_t r = 0; r < p->n; r++) {
        int64_t base = (r * p->np + p->rank) * 32;
        fn(base, 16, ctx);
        fn(base + 24, 8, ctx);
    }
}

static void pieces_of(const struct pattern *p, piece_fn fn, void *ctx)
{
    if (!strcmp(p->name, "btio"))
        btio_pieces(p, fn, ctx);
    else if (!strcmp(p->name, "ior"))
        ior_pieces(p, fn, ctx);
    else if (!strcmp(p->name, "struct"))
        struct_pieces(p, fn, ctx);
    else
        grid_pieces(p, fn, ctx);
}

/* Whether the file's slot (8-byte unit) is written at all: only the struct
 * pattern leaves gaps. */
static int slot_covered(const struct pattern *p, int64_t slot)
{
    return strcmp(p->name, "struct") || slot % 4 != 2;
}

/* ---- file views, built the way applications build them ---- */

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
    p->file_bytes = p->n * p->n * p->n * 8;
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
    p->file_bytes = p->n * p->n * p->n * 40;
}

static void ior_type(struct pattern *p)
{
    MPI_Datatype v;
    MPI_Type_vector(IOR_SEGMENTS, (int)(p->n / 8), (int)(p->n / 8 * p->np), MPI_DOUBLE, &v);
    int len = 1;
    MPI_Aint disp = p->rank * p->n;
    MPI_Type_create_hindexed(1, &len, &disp, v, &p->filetype); /* IOR offsets by rank */
    MPI_Type_free(&v);
    p->file_bytes = IOR_SEGMENTS * p->np * p->n;
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
    p->file_bytes = p->n * p->np * 32;
}

static int pattern_init(struct pattern *p, const char *name, int full)
{
    memset(p, 0, sizeof *p);
    p->name = name;
    MPI_Comm_rank(MPI_COMM_WORLD, &p->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p->np);
    int scale = full ? 2 : 1;
    if (!strcmp(name, "cube") || !strcmp(name, "collperf")) {
        p->n = 128 * scale; /* 16 MiB quick, 128 MiB full */
        MPI_Dims_create(p->np, 3, p->dims);
        cube_type(p, name[1] == 'o');
    } else if (!strcmp(name, "btio")) {
        int q = 1;
        while ((q + 1) * (q + 1) <= p->np)
            q++;
        if (q * q != p->np || q > 64)
            return -1;
        p->dims[0] = p->dims[1] = p->dims[2] = q;
        p->n = (full ? 120 : 60) / q * q; /* 8.2 MiB quick, 66 MiB full at q=3 */
        btio_type(p);
    } else if (!strcmp(name, "ior")) {
        p->n = (int64_t)(full ? 2048 : 256) << 10; /* block: 16 MiB quick, 128 MiB full at 8 */
        ior_type(p);
    } else if (!strcmp(name, "struct")) {
        p->n = full ? 512 << 10 : 64 << 10; /* records per rank: 16 MiB quick, 128 MiB full */
        struct_type(p);
    } else
        return -1;
    MPI_Type_commit(&p->filetype);
    return 0;
}

/* ---- data and checks ---- */

static double slot_value(int64_t slot, int salt)
{
    return (double)(((int64_t)salt << SALT_SHIFT) + slot + 1);
}

struct walk {
    double *buf;
    int64_t at, wrong;
    int salt, check;
};

static void fill_or_check(int64_t off, int64_t len, void *ctx)
{
    struct walk *w = ctx;
    for (int64_t s = off / 8; s < (off + len) / 8; s++, w->at++) {
        double want = slot_value(s, w->salt);
        if (!w->check)
            w->buf[w->at] = want;
        else if (w->buf[w->at] != want)
            w->wrong++;
    }
}

static void count_piece(int64_t off, int64_t len, void *ctx)
{
    (void)off;
    *(int64_t *)ctx += len / 8;
}

/* Slots of the file this rank's share holds that are wrong, read with POSIX. */
static int64_t check_file(const struct pattern *p, const char *path, int salt)
{
    int64_t slots = p->file_bytes / 8, per = (slots + p->np - 1) / p->np;
    int64_t lo = p->rank * per < slots ? p->rank * per : slots;
    int64_t hi = lo + per < slots ? lo + per : slots, wrong = 0;
    enum { CHUNK = 1 << 17 };
    double *chunk = malloc(CHUNK * sizeof(double));
    int fd = open(path, O_RDONLY);
    if (fd < 0 || !chunk) {
        free(chunk);
        if (fd >= 0)
            close(fd);
        return hi - lo + 1;
    }
    for (int64_t s = lo; s < hi; s += CHUNK) {
        int64_t n = hi - s < CHUNK ? hi - s : CHUNK;
        ssize_t got = pread(fd, chunk, (size_t)n * 8, (off_t)(s * 8));
        if (got != (ssize_t)(n * 8)) {
            wrong += n;
            continue;
        }
        for (int64_t i = 0; i < n; i++)
            wrong += chunk[i] != (slot_covered(p, s + i) ? slot_value(s + i, salt) : 0.0);
    }
    close(fd);
    free(chunk);
    return wrong;
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

static double timed(MPI_File fh, double *buf, int64_t count, int write)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (write)
        check(MPI_File_write_at_all(fh, 0, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE),
              "MPI_File_write_at_all");
    else
        check(MPI_File_read_at_all(fh, 0, buf, (int)count, MPI_DOUBLE, MPI_STATUS_IGNORE),
              "MPI_File_read_at_all");
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static void print_times(const struct pattern *p, const char *op, int64_t bytes, const double *t,
                        int reps, int64_t wrong, long rss)
{
    printf("pattern=%s op=%s np=%d bytes=%lld times=", p->name, op, p->np, (long long)bytes);
    for (int i = 0; i < reps; i++)
        printf("%s%.6f", i ? "," : "", t[i]);
    printf(" wrong=%lld maxrss_kib=%ld\n", (long long)wrong, rss);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct pattern p;
    if (argc != 5 || pattern_init(&p, argv[2], !strcmp(argv[3], "full"))) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (!rank)
            fprintf(stderr, "usage: iobench FILE cube|btio(q^2 ranks)|collperf|ior|struct "
                            "quick|full REPS\n");
        MPI_Finalize();
        return 2;
    }
    int reps = atoi(argv[4]);
    int64_t count = 0;
    pieces_of(&p, count_piece, &count);
    double *buf = malloc(sizeof(double) * (size_t)(count ? count : 1));
    double *tw = calloc((size_t)reps + 1, sizeof(double)),
           *tr = calloc((size_t)reps + 1, sizeof(double));
    if (!p.rank)
        unlink(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* MPI_File_open reports here */
    check(
        MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open");
    check(MPI_File_set_view(fh, 0, MPI_DOUBLE, p.filetype, "native", MPI_INFO_NULL),
          "MPI_File_set_view");
    int64_t wrong_read = 0;
    for (int i = 0; i <= reps; i++) { /* i == 0 warms up: file allocated, caches primed */
        struct walk w = {buf, 0, 0, i + 1, 0};
        pieces_of(&p, fill_or_check, &w);
        tw[i] = timed(fh, buf, count, 1);
        memset(buf, 0xff, sizeof(double) * (size_t)count);
        tr[i] = timed(fh, buf, count, 0);
        w = (struct walk){buf, 0, 0, i + 1, 1};
        pieces_of(&p, fill_or_check, &w);
        wrong_read += w.wrong;
    }
    check(MPI_File_close(&fh), "MPI_File_close");
    int64_t wrong_file = check_file(&p, argv[1], reps + 1), wf, wr, bytes = count * 8, total;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long rss = ru.ru_maxrss, maxrss;
    MPI_Allreduce(&wrong_file, &wf, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&wrong_read, &wr, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&rss, &maxrss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bytes, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!p.rank) {
        print_times(&p, "write", total, tw + 1, reps, wf, maxrss);
        print_times(&p, "read", total, tr + 1, reps, wr, maxrss);
    }
    if (!p.rank)
        unlink(argv[1]);
    MPI_Type_free(&p.filetype);
    free(buf);
    free(tw);
    free(tr);
    MPI_Finalize();
    return wf || wr;
}
