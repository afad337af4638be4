/* Faults and bad input: every rank must get an error of the same class whose
 * message names the cause; no rank may hang (the test runs under a timeout);
 * no byte outside the request may change.
 *
 * usage: test_faults DIR                         injected faults, bad input
 *        test_faults DIR SMALL_FS_DIR|- READ_ONLY_DIR|-
 *                                                real file systems only
 * SMALL_FS_DIR: a nearly full file system (real ENOSPC); READ_ONLY_DIR: a
 * read-only mount (real EROFS); "-": not this one. faults.sh mounts them,
 * each its own CTest case, skipped where the machine cannot mount. */
#include "mpi_check.h"

#include <string.h>

static int rank, p;
static const char *dir;

/* Each rank writes 2000 of every 3072 bytes of its block in 3 segments. */
static void holes_view(MPI_Datatype *ft, MPI_Offset *disp)
{
    MPI_Datatype v;
    *disp = (MPI_Offset)rank * 3072 + 100;
    MPI_Type_vector(3, 2000, 3072 * p, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)3072 * p * 3, ft);
    MPI_Type_free(&v);
    MPI_Type_commit(ft);
}

static bool in_request(int64_t x)
{
    if (x < 100)
        return false;
    int64_t rel = (x - 100) % 3072, seg = (x - 100) / (3072 * (int64_t)p);
    return seg < 3 && rel < 2000;
}

/* The error's class, and its message both from tacio and from the MPI's
 * own MPI_Error_string (what a program prints: on MPICH too, whose dynamic
 * error codes lose their strings). */
static void expect_error(const char *what, int rc, int cls, const char *substr)
{
    char msg[MPI_MAX_ERROR_STRING] = "", mpi_msg[MPI_MAX_ERROR_STRING] = "";
    int len, got_cls = -1;
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &got_cls);
        tacio_error_get_string(rc, msg, &len);
        MPI_Error_string(rc, mpi_msg, &len);
    }
    check_that(rc != MPI_SUCCESS, "%s: succeeded, expected an error", what);
    check_that(got_cls == cls, "%s: error class %d, expected %d (%s)", what, got_cls, cls, msg);
    check_that(strstr(msg, substr) != NULL, "%s: message '%s' does not name '%s'", what, msg,
               substr);
    check_that(strstr(mpi_msg, substr) != NULL,
               "%s: MPI_Error_string gives '%s', which does not name '%s'", what, mpi_msg, substr);
}

static int64_t file_bytes(void)
{
    return (int64_t)3072 * p * 3 + 1000;
}

static void prefill(const char *path)
{
    if (rank == 0) {
        unsigned char *b = malloc((size_t)file_bytes());
        for (int64_t x = 0; x < file_bytes(); x++)
            b[x] = prefill_of(x);
        check_that(posix_write_file(path, b, file_bytes()) == 0, "cannot prefill %s", path);
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_outside_untouched(const char *path, const char *what)
{
    if (rank != 0)
        return;
    unsigned char *b = malloc((size_t)file_bytes());
    check_that(posix_read_file(path, b, file_bytes()) == 0, "%s: cannot read back", what);
    int64_t bad = -1;
    for (int64_t x = 0; x < file_bytes() && bad < 0; x++)
        if (!in_request(x) && b[x] != prefill_of(x))
            bad = x;
    check_that(bad < 0, "%s: byte %lld outside the request changed", what, (long long)bad);
    free(b);
}

/* Open, set the holes view, write (or read) 2 tiles; returns the first error. */
static int holes_op(const char *path, MPI_Info info, bool write)
{
    tacio_file_t fh;
    MPI_Datatype ft;
    MPI_Offset disp;
    unsigned char *buf = malloc(6000); /* one tile: 3 x 2000 bytes */
    memset(buf, 0x5A, 6000);
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    if (rc == MPI_SUCCESS) {
        holes_view(&ft, &disp);
        rc = tacio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL);
        if (!rc)
            rc = write ? tacio_file_write_all(fh, buf, 6000, MPI_BYTE, MPI_STATUS_IGNORE)
                       : tacio_file_read_all(fh, buf, 6000, MPI_BYTE, MPI_STATUS_IGNORE);
        tacio_file_close(&fh);
        MPI_Type_free(&ft);
    }
    free(buf);
    return rc;
}

static void injected(const char *fault, bool write, int cls, const char *substr, const char *hints)
{
    char path[512];
    snprintf(path, sizeof path, "%s/faults.dat", dir);
    prefill(path);
    setenv("TACIO_FAULT", fault, 1);
    MPI_Info info = make_info("romio", hints);
    int rc = holes_op(path, info, write);
    unsetenv("TACIO_FAULT");
    MPI_Info_free(&info);
    expect_error(fault, rc, cls, substr);
    check_outside_untouched(path, fault);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void bad_hint(const char *key, const char *value, int cls, const char *substr)
{
    char path[512], what[128];
    snprintf(path, sizeof path, "%s/faults.dat", dir);
    snprintf(what, sizeof what, "hint %s=%s", key, value);
    MPI_Info info = make_info("romio", NULL);
    MPI_Info_set(info, key, value);
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (rc == MPI_SUCCESS)
        tacio_file_close(&fh);
    if (cls == MPI_SUCCESS)
        check_that(rc == MPI_SUCCESS, "%s: should be accepted (clamped or ignored)", what);
    else
        expect_error(what, rc, cls, substr);
}

/* A ROMIO_HINTS file skips a malformed line, as ROMIO does, but not one
 * naming a tacio_ key: a typo there fails the open on every rank. */
static void romio_hints_typo(void)
{
    char path[512], hints[512];
    snprintf(path, sizeof path, "%s/faults.dat", dir);
    snprintf(hints, sizeof hints, "%s/faults_hints.txt", dir);
    if (rank == 0) {
        FILE *f = fopen(hints, "w");
        if (f) {
            fprintf(f, "cb_nodes\ntacio_strategy=mccio\n");
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("ROMIO_HINTS", hints, 1);
    tacio_file_t fh;
    int rc =
        tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    unsetenv("ROMIO_HINTS");
    if (rc == MPI_SUCCESS)
        tacio_file_close(&fh);
    expect_error("a tacio_ line malformed in ROMIO_HINTS", rc, MPI_ERR_ARG, "tacio_strategy");
}

/* One rank alone sets a hint: every rank must fail the open (a plan
 * computed from different hints would hang the collective). auto's cost
 * model constants change its plan, so they must be agreed too. */
static void differing_hint(const char *strategy, int who, const char *hint)
{
    char path[512];
    snprintf(path, sizeof path, "%s/faults.dat", dir);
    MPI_Info info = make_info(strategy, rank == who ? hint : NULL);
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (rc == MPI_SUCCESS)
        tacio_file_close(&fh);
    char what[128];
    snprintf(what, sizeof what, "%s on rank %d only", hint, who);
    if (p > 1)
        expect_error(what, rc, MPI_ERR_ARG, "differ");
}

static void differing_hints(void)
{
    differing_hint("romio", p - 1, "cb_buffer_size=8192");
    differing_hint("auto", 0, "tacio_bw_agg_io=1e12");
    differing_hint("auto", 0, "tacio_latency=1");
    differing_hint("romio", 0, "cb_config_list=*:2");
    differing_hint("romio", p - 1, "tacio_mem_per_node=1g");
}

static int view_write(tacio_file_t fh, MPI_Datatype ft, int count)
{
    int rc = tacio_file_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    check_that(rc == MPI_SUCCESS, "set_view must accept any filetype (MPI checks accesses)");
    char buf[64] = {0};
    int size;
    MPI_Type_size(ft, &size);
    return tacio_file_write_all(fh, buf, size * count, MPI_BYTE, MPI_STATUS_IGNORE);
}

/* A view whose filetype on the last rank is two 4-byte blocks at d0 and
 * d1, which set_view must refuse on every rank (MPI_ERR_TYPE, the message
 * naming substr). */
static void refused_view(tacio_file_t fh, int d0, int d1, const char *what, const char *substr)
{
    MPI_Datatype two;
    int lens[2] = {4, 4}, displs[2] = {d0, d1};
    MPI_Type_indexed(2, lens, displs, MPI_BYTE, &two);
    MPI_Type_commit(&two);
    int rc = tacio_file_set_view(fh, 0, MPI_BYTE, rank == p - 1 ? two : MPI_BYTE, "native",
                                 MPI_INFO_NULL);
    expect_error(what, rc, MPI_ERR_TYPE, substr);
    MPI_Type_free(&two);
}

/* Filetypes MPI refuses at set_view (displacements that go backwards;
 * blocks that overlap, the file open for writing), refused there on every
 * rank with MPI_ERR_TYPE, as ROMIO and OMPIO refuse them; then views MPI
 * accepts, with accesses it does not: the access fails on every rank,
 * whichever rank made it; set_view itself succeeds. */
static void bad_view(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/faults.dat", dir);
    MPI_Info info = make_info("romio", NULL);
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    check_that(rc == MPI_SUCCESS, "open for the bad view");
    if (rc)
        return;
    refused_view(fh, 8, 0, "a filetype going backwards", "backwards");
    refused_view(fh, 0, 2, "an overlapping filetype, open for writing", "overlap");
    MPI_Datatype span, tight; /* extent 4 below the span 12: one tile is fine, two overlap */
    int lens[2] = {4, 4}, displs[2] = {0, 8};
    MPI_Type_indexed(2, lens, displs, MPI_BYTE, &span);
    MPI_Type_create_resized(span, 0, 4, &tight);
    MPI_Type_commit(&tight);
    rc = view_write(fh, tight, 1);
    check_that(rc == MPI_SUCCESS, "one tile of a filetype whose extent is below its span");
    rc = view_write(fh, tight, rank == 0 ? 2 : 1);
    expect_error("two overlapping tiles on rank 0", rc, MPI_ERR_ARG, "overlap");
    /* a sparse filetype (48 bytes in 192) multiplies rank 0's offset of
     * 2^61 past any file offset (both MPIs' ROMIO crash on it) */
    MPI_Datatype dense, sparse;
    MPI_Type_contiguous(48, MPI_BYTE, &dense);
    MPI_Type_create_resized(dense, 0, 192, &sparse);
    MPI_Type_commit(&sparse);
    rc = tacio_file_set_view(fh, 8, MPI_BYTE, sparse, "native", MPI_INFO_NULL);
    char small[64];
    MPI_Offset far = rank == 0 ? (MPI_Offset)1 << 61 : 0;
    if (!rc)
        rc = tacio_file_read_at_all(fh, far, small, 64, MPI_BYTE, MPI_STATUS_IGNORE);
    expect_error("an offset past any file on rank 0", rc, MPI_ERR_ARG, "beyond any file");
    MPI_Type_free(&dense);
    MPI_Type_free(&sparse);
    rc = tacio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL);
    expect_error("datarep external32", rc, MPI_ERR_UNSUPPORTED_DATAREP, "native");
    /* seeks whose position is negative, or would overflow past 2^63 from
     * the current one (a sum that wrapped used to pass as nonnegative) */
    rc = tacio_file_seek(fh, 16, MPI_SEEK_SET);
    check_that(rc == MPI_SUCCESS, "seek to 16");
    expect_error("seek below 0", tacio_file_seek(fh, -17, MPI_SEEK_CUR), MPI_ERR_ARG, "negative");
    expect_error("seek past 2^63", tacio_file_seek(fh, INT64_MAX - 8, MPI_SEEK_CUR), MPI_ERR_ARG,
                 "beyond 2^63");
    expect_error("seek with no such whence", tacio_file_seek(fh, 0, 12345), MPI_ERR_ARG, "whence");
    MPI_Offset pos = -1;
    tacio_file_get_position(fh, &pos);
    check_that(pos == 16, "a refused seek leaves the pointer (at %lld)", (long long)pos);
    MPI_Type_free(&span);
    MPI_Type_free(&tight);
    tacio_file_close(&fh);
}

static void read_only_open(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/faults.dat", dir);
    prefill(path);
    MPI_Info info = make_info("romio", NULL);
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    char buf[16] = {0};
    if (rc == MPI_SUCCESS) {
        /* a filetype whose blocks overlap: MPI allows it where no write can
         * go through it */
        MPI_Datatype over;
        int lens[2] = {4, 4}, displs[2] = {0, 2};
        MPI_Type_indexed(2, lens, displs, MPI_BYTE, &over);
        MPI_Type_commit(&over);
        int view = tacio_file_set_view(fh, 0, MPI_BYTE, over, "native", MPI_INFO_NULL);
        check_that(view == MPI_SUCCESS, "RDONLY: a filetype whose blocks overlap refused");
        MPI_Type_free(&over);
        tacio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        rc = tacio_file_write_all(fh, buf, rank == 0 ? 16 : 0, MPI_BYTE, MPI_STATUS_IGNORE);
        tacio_file_close(&fh);
    }
    MPI_Info_free(&info);
    expect_error("write to an RDONLY file", rc, MPI_ERR_READ_ONLY, "RDONLY");
    check_outside_untouched(path, "RDONLY");
}

static void real_fs_errors(const char *small, const char *ro)
{
    char path[512];
    MPI_Info info = make_info("romio", NULL);
    if (strcmp(small, "-")) {
        snprintf(path, sizeof path, "%s/full.dat", small);
        expect_error("a full file system", holes_op(path, info, true), MPI_ERR_NO_SPACE,
                     "No space left");
    }
    if (strcmp(ro, "-")) {
        snprintf(path, sizeof path, "%s/new.dat", ro);
        expect_error("a read-only file system", holes_op(path, info, true), MPI_ERR_READ_ONLY,
                     "Read-only");
    }
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    dir = argc > 1 ? argv[1] : "/tmp";
    if (argc > 2) {
        real_fs_errors(argv[2], argc > 3 ? argv[3] : "-");
        return finish("test_faults");
    }
    /* rank 0 aggregates in every romio plan; its second pwrite fails mid-call.
     * Windows are 977/2 bytes (make_info), so rounds are pipelined: that
     * write runs in the helper thread while the next round's headers and
     * data are in flight, and so do the reads below. */
    injected("pwrite:0:2:5", true, MPI_ERR_IO, "pwrite", NULL);
    injected("pread:0:3:5", false, MPI_ERR_IO, "pread", NULL);
    /* the same failures with each window's I/O done inside its round */
    injected("pwrite:0:2:5", true, MPI_ERR_IO, "pwrite", "tacio_pipeline=disable");
    injected("pread:0:3:5", false, MPI_ERR_IO, "pread", "tacio_pipeline=disable");
    /* the last round's write fails: waited for before the last agreement */
    injected("pwrite:0:1:5", true, MPI_ERR_IO, "pwrite", "tacio_pipeline=enable,cb_buffer_size=1m");
    injected("pwrite:0:1:28", true, MPI_ERR_NO_SPACE, "No space left", NULL);
    injected("pread:0:1:5", false, MPI_ERR_IO, "pread", NULL);
    /* windows wider than the 1072-byte holes: the read of a read-modify-write */
    injected("pread:0:1:61", true, MPI_ERR_IO, "pread", "cb_buffer_size=64k");
    injected(p > 1 ? "open:1:1:13" : "open:0:1:13", true, MPI_ERR_ACCESS, "open", NULL);
    /* the open's discovery of hosts runs out of memory on rank 1:
     * every rank fails the open, none waits in the allgather */
    injected(p > 1 ? "hosts:1:1:12" : "hosts:0:1:12", true, MPI_ERR_NO_MEM, "hosts", NULL);
    /* intra-node aggregation: the host's leader fails before anything
     * moves; the aggregator's I/O fails with the host's data on the leader */
    const char *nodeagg = "tacio_node_aggregation=enable";
    if (p > 1) /* a host of one rank does not gather */
        injected("nodeagg:0:1:12", true, MPI_ERR_NO_MEM, "leader", nodeagg);
    injected("pwrite:0:2:5", true, MPI_ERR_IO, "pwrite", nodeagg);
    injected("pread:0:2:5", false, MPI_ERR_IO, "pread", nodeagg);
    bad_hint("tacio_strategy", "best", MPI_ERR_ARG, "best");
    bad_hint("tacio_msg_ind", "lots", MPI_ERR_ARG, "tacio_msg_ind");
    bad_hint("tacio_mem_min", "-1", MPI_ERR_ARG, "tacio_mem_min");
    bad_hint("tacio_topology", "torus:x=2", MPI_ERR_ARG, "torus");
    /* ROMIO's own hints with values that do not parse or are out of
     * range: ignored, as ROMIO ignores them */
    bad_hint("cb_buffer_size", "0", MPI_SUCCESS, "");
    bad_hint("cb_nodes", "many", MPI_SUCCESS, "");
    bad_hint("cb_config_list", "node1:two", MPI_SUCCESS, "");
    bad_hint("cb_buffer_size", "2g", MPI_SUCCESS, ""); /* taken as 1 GiB */
    romio_hints_typo();
    bad_hint("cb_config_list", "node1:2,*:1", MPI_SUCCESS, ""); /* ROMIO's names */
    bad_hint("cb_nodes", "100", MPI_SUCCESS, "");
    differing_hints();
    bad_view();
    read_only_open();
    return finish("test_faults");
}
