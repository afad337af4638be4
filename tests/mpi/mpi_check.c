#include "mpi_check.h"

#include "plan/pattern.h"

#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

long mpi_passed, mpi_failed;
static char case_name[256];

void check_that(bool ok, const char *fmt, ...)
{
    if (ok) {
        mpi_passed++;
        return;
    }
    mpi_failed++;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL [rank %d] %s: ", rank, case_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int posix_write_file(const char *path, const unsigned char *img, int64_t n)
{
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    int ok = fd >= 0 && pwrite(fd, img, (size_t)n, 0) == n;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

int posix_read_file(const char *path, unsigned char *img, int64_t n)
{
    int fd = open(path, O_RDONLY);
    int ok = fd >= 0 && pread(fd, img, (size_t)n, 0) == n;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

bool file_holds_doubles(const char *path, int64_t n, double (*value)(int64_t i, const void *arg),
                        const void *arg)
{
    unsigned char *got = malloc((size_t)(8 * n + 1));
    bool ok = got && posix_read_file(path, got, 8 * n) == 0;
    for (int64_t i = 0; ok && i < n; i++) {
        double d;
        memcpy(&d, got + 8 * i, 8);
        ok = d == value(i, arg);
    }
    free(got);
    return ok;
}

MPI_Info make_info(const char *strategy, const char *extra)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "tacio_strategy", strategy);
    MPI_Info_set(info, "cb_buffer_size", "977"); /* odd and small: many unaligned rounds */
    MPI_Info_set(info, "striping_unit", "512");
    MPI_Info_set(info, "tacio_ranks_per_node", "2");
    MPI_Info_set(info, "tacio_topology", "tree:racks=2,nodes=4,cores=2");
    /* the matrix exercises collective buffering; the variants that want
     * independent I/O or the automatic choice say so */
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    char buf[512];
    snprintf(buf, sizeof buf, "%s", extra ? extra : "");
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            MPI_Info_set(info, kv, eq + 1);
        }
    }
    return info;
}

/* The expected file: prefill, then every rank's stream at its extents. */
struct image {
    unsigned char *bytes;
    int64_t size, mine; /* file size, this rank's stream bytes */
};

struct fill_ctx {
    unsigned char *img;
    int rank;
    int64_t k;
};

static int fill_extent(int64_t off, int64_t len, void *ctx)
{
    struct fill_ctx *f = ctx;
    for (int64_t i = 0; i < len; i++)
        f->img[off + i] = value_of(f->rank, f->k++);
    return 0;
}

static int build_image(const char *spec, int p, int rank, struct image *im)
{
    struct tacio_pattern *pat;
    if (tacio_pattern_parse(spec, p, &pat))
        return -1;
    int64_t hi = 0; /* the end of the data, from the closed form's spans */
    for (int r = 0; r < p; r++) {
        int64_t a, b;
        pat->ops->span(pat, r, &a, &b);
        hi = a < b && b > hi ? b : hi;
    }
    im->size = hi + 1000; /* bytes past the data that nobody may touch */
    im->bytes = malloc((size_t)im->size);
    for (int64_t x = 0; x < im->size; x++)
        im->bytes[x] = prefill_of(x);
    for (int r = 0; r < p; r++) {
        struct fill_ctx f = {im->bytes, r, 0};
        pat->ops->extents(pat, r, fill_extent, &f);
        if (r == rank)
            im->mine = f.k;
    }
    tacio_pattern_free(pat);
    return 0;
}

/* The oracle for any filetype: MPI_Unpack each rank's stream into
 * its filetype's layout (MPI's datatype engine, no MPI-IO), mark the bytes
 * covered, and merge the ranks' (disjoint) images. */
static int build_image_unpack(const struct engine_case *ec, int p, int rank, struct image *im)
{
    MPI_Datatype ft;
    MPI_Offset disp;
    MPI_Aint lb, extent;
    int size;
    ec->make_type(rank, p, &ft, &disp);
    MPI_Type_commit(&ft);
    MPI_Type_get_extent(ft, &lb, &extent);
    MPI_Type_size(ft, &size);
    bool empty = ec->last_rank_empty && p > 1 && rank == p - 1;
    int tiles = empty ? 0 : ec->tiles;
    int64_t end = disp + lb + (int64_t)extent * ec->tiles, fsize;
    MPI_Allreduce(&end, &fsize, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    im->size = fsize + 1000;
    im->mine = (int64_t)size * tiles;
    unsigned char *val = calloc((size_t)im->size, 1), *mask = calloc((size_t)im->size, 1);
    unsigned char *stream = malloc((size_t)im->mine + 1), *ones = malloc((size_t)im->mine + 1);
    for (int64_t k = 0; k < im->mine; k++) {
        stream[k] = value_of(rank, k);
        ones[k] = 1;
    }
    int pos = 0;
    MPI_Unpack(stream, (int)im->mine, &pos, val + disp, tiles, ft, MPI_COMM_WORLD);
    pos = 0;
    MPI_Unpack(ones, (int)im->mine, &pos, mask + disp, tiles, ft, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, val, (int)im->size, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, mask, (int)im->size, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    im->bytes = malloc((size_t)im->size);
    for (int64_t x = 0; x < im->size; x++)
        im->bytes[x] = mask[x] ? val[x] : prefill_of(x);
    free(val);
    free(mask);
    free(stream);
    free(ones);
    MPI_Type_free(&ft);
    return 0;
}

/* Memory layouts: contiguous bytes, or every other 4-byte int. */
struct memory {
    bool strided;
    MPI_Datatype type;
    int64_t elems, elem_bytes, footprint;
    unsigned char *buf;
};

static int64_t mem_pos(const struct memory *m, int64_t k)
{
    return m->strided ? (k / 4) * 8 + k % 4 : k;
}

static void memory_init(struct memory *m, bool strided, int64_t n)
{
    m->strided = strided;
    m->elem_bytes = strided ? 4 : 1;
    m->elems = n / m->elem_bytes;
    if (strided) {
        MPI_Type_vector(1, 1, 2, MPI_INT, &m->type); /* one int, then a gap */
        MPI_Datatype r;
        MPI_Type_create_resized(m->type, 0, 8, &r);
        MPI_Type_free(&m->type);
        m->type = r;
        MPI_Type_commit(&m->type);
    } else
        m->type = MPI_BYTE;
    m->footprint = strided ? 2 * n : n;
    m->buf = malloc((size_t)(m->footprint + 1));
    memset(m->buf, 0xEE, (size_t)(m->footprint + 1));
}

static void memory_free(struct memory *m)
{
    if (m->strided)
        MPI_Type_free(&m->type);
    free(m->buf);
}

enum op { WRITE_ALL, WRITE_AT_ALL, READ_ALL, READ_AT_ALL };
static const char *const op_names[] = {"write_all", "write_at_all", "read_all", "read_at_all"};

/* Two calls per op: halves of the stream, the at-variants second half first. */
/* The op as two calls, each of half the elements; *first: the first
 * call's stats. */
static int do_op(tacio_file_t fh, enum op op, struct memory *m, struct tacio_stats *first)
{
    int64_t e1 = m->elems / 2, e2 = m->elems - e1;
    int64_t b1 = e1 * m->elem_bytes; /* stream bytes = etypes (MPI_BYTE) */
    unsigned char *p1 = m->buf, *p2 = m->buf + (m->strided ? e1 * 8 : b1);
    int rc = 0;
    bool at = op == WRITE_AT_ALL || op == READ_AT_ALL;
    bool write = op == WRITE_ALL || op == WRITE_AT_ALL;
    /* the at-ops write the second half first */
    int64_t n[2] = {at ? e2 : e1, at ? e1 : e2}, off[2] = {at ? b1 : 0, 0};
    unsigned char *p[2] = {at ? p2 : p1, at ? p1 : p2};
    for (int k = 0; k < 2 && !rc; k++) {
        if (at)
            rc = write ? tacio_file_write_at_all(fh, off[k], p[k], n[k], m->type, MPI_STATUS_IGNORE)
                       : tacio_file_read_at_all(fh, off[k], p[k], n[k], m->type, MPI_STATUS_IGNORE);
        else
            rc = write ? tacio_file_write_all(fh, p[k], n[k], m->type, MPI_STATUS_IGNORE)
                       : tacio_file_read_all(fh, p[k], n[k], m->type, MPI_STATUS_IGNORE);
        if (k == 0)
            tacio_file_get_stats(fh, first);
    }
    return rc;
}

static void check_file(const char *path, const struct image *im)
{
    unsigned char *got = malloc((size_t)im->size);
    check_that(posix_read_file(path, got, im->size) == 0, "cannot read back %s", path);
    int64_t bad = -1, nbad = 0;
    for (int64_t x = 0; x < im->size; x++)
        if (got[x] != im->bytes[x]) {
            bad = bad < 0 ? x : bad;
            nbad++;
        }
    check_that(
        nbad == 0, "%lld bytes differ from the oracle, first at offset %lld (got %d, want %d)",
        (long long)nbad, (long long)bad, bad >= 0 ? got[bad] : 0, bad >= 0 ? im->bytes[bad] : 0);
    free(got);
}

static void check_memory(const struct memory *m, int rank, int64_t n)
{
    int64_t nbad = 0, first = -1;
    for (int64_t k = 0; k < n; k++)
        if (m->buf[mem_pos(m, k)] != value_of(rank, k)) {
            nbad++;
            first = first < 0 ? k : first;
        }
    for (int64_t x = 0; m->strided && x < m->footprint; x++)
        if (x % 8 >= 4 && m->buf[x] != 0xEE)
            nbad++; /* the gaps of the memory type must not be touched */
    check_that(nbad == 0, "%lld bytes read wrong, first at stream byte %lld", (long long)nbad,
               (long long)first);
}

static void run_op(const struct engine_case *ec, const struct image *im, enum op op, bool strided)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(case_name, sizeof case_name, "p=%d %s %s %s %s", p, ec->spec ? ec->spec : "unpack",
             ec->strategy, op_names[op], strided ? "strided" : "contig");
    char path[512];
    snprintf(path, sizeof path, "%s/engine_%d.dat", ec->dir, p);
    bool reading = op == READ_ALL || op == READ_AT_ALL;
    if (rank == 0) { /* a read starts from the oracle, written by POSIX */
        unsigned char *start = malloc((size_t)im->size);
        for (int64_t x = 0; x < im->size; x++)
            start[x] = reading ? im->bytes[x] : prefill_of(x);
        check_that(posix_write_file(path, start, im->size) == 0, "cannot prepare %s", path);
        free(start);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    struct memory m;
    memory_init(&m, strided, im->mine);
    for (int64_t k = 0; !reading && k < im->mine; k++)
        m.buf[mem_pos(&m, k)] = value_of(rank, k);
    MPI_Info info = make_info(ec->strategy, ec->extra_hints);
    MPI_Datatype ft;
    MPI_Offset disp;
    tacio_file_t fh;
    ec->make_type(rank, p, &ft, &disp);
    MPI_Type_commit(&ft);
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    check_that(rc == MPI_SUCCESS, "open failed (%d)", rc);
    if (rc == MPI_SUCCESS) {
        rc = tacio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        check_that(rc == MPI_SUCCESS, "set_view failed (%d)", rc);
        struct tacio_stats first = TACIO_STATS_INIT;
        rc = rc ? rc : do_op(fh, op, &m, &first);
        char msg[MPI_MAX_ERROR_STRING] = "";
        int len;
        if (rc)
            MPI_Error_string(rc, msg, &len);
        check_that(rc == MPI_SUCCESS, "%s failed: %s", op_names[op], msg);
        struct tacio_stats stats = TACIO_STATS_INIT;
        tacio_file_get_stats(fh, &stats);
        int64_t last = im->mine - (im->mine / m.elem_bytes / 2) * m.elem_bytes, all_last;
        if (op == WRITE_AT_ALL || op == READ_AT_ALL) /* the first half goes last */
            last = (im->mine / m.elem_bytes / 2) * m.elem_bytes;
        MPI_Allreduce(&last, &all_last, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        check_that(
            rc || (stats.bytes == all_last && !strcmp(stats.op, op_names[op]) &&
                   (all_last == 0 || stats.independent || (stats.naggs >= 1 && stats.rounds >= 1))),
            "stats: op %s bytes %lld (want %lld) naggs %lld rounds %lld", stats.op,
            (long long)stats.bytes, (long long)all_last, (long long)stats.naggs,
            (long long)stats.rounds);
        /* tsujita collects host by host: one step per (virtual) host */
        int steps = !strcmp(ec->strategy, "tsujita") ? (p + 1) / 2 : 1;
        check_that(rc || all_last == 0 || stats.independent || stats.steps == steps ||
                       !strcmp(ec->strategy, "auto"),
                   "stats: %lld collection steps, expected %d", (long long)stats.steps, steps);
        check_that(rc || all_last == 0 || ec->any_path || stats.independent == ec->independent,
                   "stats: independent=%lld, expected %d", (long long)stats.independent,
                   ec->independent);
        /* automatic pipelining: whenever an FD needs more than one round */
        bool piped = !stats.independent && !ec->unpipelined && stats.rounds >= 2;
        check_that(rc || all_last == 0 || stats.pipelined == piped,
                   "stats: pipelined=%lld over %lld rounds, expected %d",
                   (long long)stats.pipelined, (long long)stats.rounds, piped);
        /* virtual hosts of 2: a host of two gathers to its leader when
         * asked; auto (the default) leaves virtual hosts alone */
        int gathered = ec->node_aggregated && p > 1 && all_last > 0;
        check_that(rc || stats.node_aggregated == gathered,
                   "stats: node_aggregated=%lld, expected %d", (long long)stats.node_aggregated,
                   gathered);
        /* the view's cost comes with the first call after it, outside its
         * total, and not again; what no stage covers stays inside the total */
        check_that(rc || (first.view > 0 && stats.view == 0 && stats.unaccounted >= 0 &&
                          stats.unaccounted <= stats.total),
                   "stats: view %g s then %g s, unaccounted %g of %g s", first.view, stats.view,
                   stats.unaccounted, stats.total);
        MPI_Offset pos;
        tacio_file_get_position(fh, &pos);
        check_that(pos == (op == WRITE_ALL || op == READ_ALL ? im->mine : 0),
                   "file pointer %lld after the op", (long long)pos);
        tacio_file_close(&fh);
    }
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    if (reading)
        check_memory(&m, rank, im->mine);
    else if (rank == 0)
        check_file(path, im);
    memory_free(&m);
    MPI_Barrier(MPI_COMM_WORLD);
}

void run_engine_case(const struct engine_case *ec)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    struct image im;
    if (ec->spec ? build_image(ec->spec, p, rank, &im) : build_image_unpack(ec, p, rank, &im)) {
        check_that(false, "bad pattern %s", ec->spec);
        return;
    }
    for (int op = WRITE_ALL; op <= READ_AT_ALL; op++)
        for (int strided = 0; strided < 2; strided++)
            run_op(ec, &im, (enum op)op, strided);
    free(im.bytes);
}

int finish(const char *name)
{
    long local[2] = {mpi_passed, mpi_failed}, total[2];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(local, total, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %ld passed, %ld failed\n", name, total[0], total[1]);
    if (rank == 0 && total[0] + total[1] == 0)
        printf("FAIL: %s: no check ran\n", name);
    MPI_Finalize();
    return rank == 0 && (total[1] || total[0] + total[1] == 0) ? 1 : 0;
}

int stderr_to(const char *path)
{
    fflush(stderr);
    int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    check_that(saved >= 0 && fd >= 0, "cannot send stderr to %s", path);
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
    return saved;
}

void stderr_back(int saved)
{
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
}
