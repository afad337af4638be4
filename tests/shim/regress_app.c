/* An MPI-IO program built without tacio that does what HDF5, PnetCDF, IOR
 * and ROMIO's own tests do, each a case the shim once got wrong:
 *   tile     a filetype whose extent is below its data span, one tile
 *            accessed (HDF5, PnetCDF);
 *   status   counts of a collective with a derived memory type (IOR -V,
 *            HDF5 check them);
 *   eof      a collective read crossing end-of-file reports the bytes read
 *            (PnetCDF moves data by that count);
 *   hints    ROMIO's cb_config_list forms and other ROMIO hints;
 *   split    halves of the job open different files at once;
 *   badview  a filetype whose displacements go backwards, refused by
 *            set_view itself (as ROMIO and OMPIO refuse it), not by the
 *            next collective; the file then works with a good view;
 *   excl     CREATE with EXCL: a new file opened on every rank, with its
 *            amode read back, then refused on every rank as it exists;
 *   prefix   a name with ROMIO's "ufs:" prefix (ROMIO's MPIs take it;
 *            OMPIO does not);
 *   romiohints  what ROMIO lets pass: a ROMIO_HINTS file that cannot be
 *            read, one with malformed lines, ROMIO hints whose values do
 *            not parse;
 *   info     (under the shim) hints set after open with MPI_File_set_info
 *            and read back with MPI_File_get_info: tacio's values, which
 *            the next collective uses (TACIO_STATS); hints that differ
 *            across ranks, or a tacio_ value that does not parse, fail on
 *            every rank and change nothing; an open-only hint keeps its
 *            value; get_info's info opens a second file with the same;
 *   sequential  a file opened MPI_MODE_SEQUENTIAL (a stream: shared-pointer
 *            calls only) opens, and MPI_File_write_ordered lays the ranks'
 *            ints out in rank order.
 * Every file is checked with POSIX reads against its closed form. The MPIs'
 * own MPI-IO fail some of these (ROMIO writes the tile case to the wrong
 * offsets; ROMIO and OMPIO report a read past the end as whole), so the
 * cases to run are named.
 * usage: regress_app DIR CASE...; prints "regress: N passed, M failed". */
#include <mpi.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nprocs;
static long passed, failed;

static void check(int ok, const char *fmt, ...)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL [rank %d] ", rank);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void path_of(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/regress_%s.dat", dir, name);
}

static MPI_File open_file(MPI_Comm comm, const char *path, MPI_Info info)
{
    MPI_File fh;
    int rc = MPI_File_open(comm, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    check(rc == MPI_SUCCESS, "open %s: error %d", path, rc);
    return rc == MPI_SUCCESS ? fh : MPI_FILE_NULL;
}

static int posix_int_at(const char *path, long index)
{
    int v = -1, fd = open(path, O_RDONLY);
    if (fd >= 0 && pread(fd, &v, sizeof v, index * (long)sizeof v) != sizeof v)
        v = -1;
    if (fd >= 0)
        close(fd);
    return v;
}

/* tile: a ROWS x (8 p) int array, rank r owns columns [8r, 8r+8); its
 * subarray filetype is resized to 80 bytes, far below the span it covers. */
#define ROWS 4
static void case_tile(const char *dir, MPI_Comm comm, MPI_Info info)
{
    char path[512];
    path_of(path, sizeof path, dir, "tile");
    int sizes[2] = {ROWS, 8 * nprocs}, sub[2] = {ROWS, 8}, starts[2] = {0, 8 * rank};
    int out[ROWS * 8], in[ROWS * 8];
    MPI_Datatype arr, ft;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &arr);
    MPI_Type_create_resized(arr, 0, 80, &ft);
    MPI_Type_commit(&ft);
    for (int i = 0; i < ROWS * 8; i++)
        out[i] = (i / 8) * 1000 + 8 * rank + i % 8;
    MPI_File fh = open_file(comm, path, info);
    if (fh == MPI_FILE_NULL)
        return;
    int rc = MPI_File_set_view(fh, 0, MPI_INT, ft, "native", info);
    check(rc == MPI_SUCCESS, "tile: set_view: %d", rc);
    rc = MPI_File_write_all(fh, out, ROWS * 8, MPI_INT, MPI_STATUS_IGNORE);
    check(rc == MPI_SUCCESS, "tile: write_all: %d", rc);
    rc = MPI_File_seek(fh, 0, MPI_SEEK_SET);
    rc = rc ? rc : MPI_File_read_all(fh, in, ROWS * 8, MPI_INT, MPI_STATUS_IGNORE);
    check(rc == MPI_SUCCESS && !memcmp(in, out, sizeof in), "tile: read_all back");
    MPI_File_close(&fh);
    MPI_Type_free(&arr);
    MPI_Type_free(&ft);
    MPI_Barrier(comm);
    for (long k = 0; k < ROWS * 8L * nprocs; k++) /* every rank checks the whole file */
        check(posix_int_at(path, k) == (int)((k / (8 * nprocs)) * 1000 + k % (8 * nprocs)),
              "tile: file int %ld is %d", k, posix_int_at(path, k));
}

static void expect_counts(const MPI_Status *st, MPI_Datatype t, int count, MPI_Datatype basic,
                          int elements, const char *what)
{
    int n = -7, e = -7;
    MPI_Get_count(st, t, &n);
    MPI_Get_elements(st, basic, &e);
    check(n == count && e == elements, "status %s: count %d (want %d), elements %d (want %d)", what,
          n, count, e, elements);
}

static void case_status(const char *dir, MPI_Comm comm, MPI_Info info)
{
    char path[512];
    path_of(path, sizeof path, dir, "status");
    MPI_File fh = open_file(comm, path, info);
    if (fh == MPI_FILE_NULL)
        return;
    MPI_Datatype vec, seven;
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_contiguous(7, MPI_DOUBLE, &seven);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&seven);
    int ints[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double d[7] = {0};
    MPI_Status st;
    MPI_Offset at = (MPI_Offset)rank * 100;
    MPI_File_write_at_all(fh, at, ints, 1, vec, &st);
    expect_counts(&st, vec, 1, MPI_INT, 4, "vector(4,1,2,int) x1");
    MPI_File_read_at_all(fh, at, ints, 1, vec, &st);
    expect_counts(&st, vec, 1, MPI_INT, 4, "read vector x1");
    MPI_File_write_at_all(fh, at + 16, d, 1, seven, &st);
    expect_counts(&st, seven, 1, MPI_DOUBLE, 7, "7 doubles x1");
    MPI_File_write_at_all(fh, at + 16, d, 7, MPI_DOUBLE, &st);
    expect_counts(&st, MPI_DOUBLE, 7, MPI_DOUBLE, 7, "double x7");
    MPI_File_close(&fh);
    MPI_Type_free(&vec);
    MPI_Type_free(&seven);
}

/* eof: a 1000-byte file; rank r reads 40 bytes at 970 + 20 r: rank 0 gets
 * 30, rank 1 10, the others nothing. */
static void case_eof(const char *dir, MPI_Comm comm, MPI_Info info)
{
    char path[512];
    path_of(path, sizeof path, dir, "eof");
    if (rank == 0) {
        char b[1000];
        memset(b, 7, sizeof b);
        FILE *f = fopen(path, "w");
        check(f && fwrite(b, 1, sizeof b, f) == sizeof b, "eof: prefill");
        if (f)
            fclose(f);
    }
    MPI_Barrier(comm);
    MPI_File fh = open_file(comm, path, info);
    if (fh == MPI_FILE_NULL)
        return;
    char buf[40];
    MPI_Status st;
    int n = -1, want = 1000 - (970 + 20 * rank);
    want = want < 0 ? 0 : want > 40 ? 40 : want;
    int rc = MPI_File_read_at_all(fh, 970 + 20 * rank, buf, 40, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    check(rc == MPI_SUCCESS && n == want, "eof: read %d bytes, want %d", n, want);
    MPI_File_close(&fh);
}

/* hints: ROMIO's cb_config_list forms and other ROMIO hints must open,
 * write and read as without them. */
static void case_hints(const char *dir, MPI_Comm comm)
{
    char host[MPI_MAX_PROCESSOR_NAME], lists[5][600];
    int len;
    MPI_Get_processor_name(host, &len);
    snprintf(lists[0], sizeof lists[0], "%s:2", host);
    snprintf(lists[1], sizeof lists[1], "*:1,%s:2", host);
    snprintf(lists[2], sizeof lists[2], "vm,vm,*:1");
    snprintf(lists[3], sizeof lists[3], "%s.example.org:1,*:2", host);
    snprintf(lists[4], sizeof lists[4], "nosuchhost:3,%s:*", host);
    for (int i = 0; i < 5; i++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "cb_config_list", lists[i]);
        MPI_Info_set(info, "romio_cb_write", "enable");
        MPI_Info_set(info, "romio_cb_read", "automatic");
        MPI_Info_set(info, "romio_ds_write", "disable");
        MPI_Info_set(info, "romio_no_indep_rw", "false");
        MPI_Info_set(info, "ind_wr_buffer_size", "65536");
        MPI_Info_set(info, "cb_buffer_size", "4096");
        MPI_Info_set(info, "romio_visibility_immediate", "true");
        MPI_Info_set(info, "romio_lustre_co_ratio", "1");
        MPI_Info_set(info, "access_style", "write_once,sequential");
        MPI_Info_set(info, "nc_header_align_size", "512"); /* PnetCDF passes its own */
        char path[512], name[16];
        snprintf(name, sizeof name, "hints%d", i);
        path_of(path, sizeof path, dir, name);
        MPI_File fh = open_file(comm, path, info);
        int v[256], w[256] = {0};
        for (int k = 0; k < 256; k++)
            v[k] = rank * 256 + k + i;
        if (fh != MPI_FILE_NULL) {
            MPI_Offset at = (MPI_Offset)rank * (MPI_Offset)sizeof v;
            int rc = MPI_File_write_at_all(fh, at, v, 256, MPI_INT, MPI_STATUS_IGNORE);
            rc = rc ? rc : MPI_File_read_at_all(fh, at, w, 256, MPI_INT, MPI_STATUS_IGNORE);
            check(rc == MPI_SUCCESS && !memcmp(v, w, sizeof v), "hints '%s': data", lists[i]);
            MPI_File_close(&fh);
        }
        MPI_Info_free(&info);
        MPI_Barrier(comm);
        for (long k = rank; k < 256L * nprocs; k += 97)
            check(posix_int_at(path, k) == (int)(k + i), "hints '%s': file int %ld", lists[i], k);
    }
}

/* split: each half of the job writes its own file at the same time. */
static void case_split(const char *dir, MPI_Info info)
{
    MPI_Comm half;
    int color = rank % 2, hrank, hsize;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    char path[512], name[16];
    snprintf(name, sizeof name, "split%d", color);
    path_of(path, sizeof path, dir, name);
    MPI_File fh = open_file(half, path, info);
    int v[64], w[64];
    for (int k = 0; k < 64; k++)
        v[k] = color * 100000 + hrank * 64 + k;
    if (fh != MPI_FILE_NULL) {
        MPI_Offset at = (MPI_Offset)hrank * (MPI_Offset)sizeof v;
        int rc = MPI_File_write_at_all(fh, at, v, 64, MPI_INT, MPI_STATUS_IGNORE);
        rc = rc ? rc : MPI_File_read_at_all(fh, at, w, 64, MPI_INT, MPI_STATUS_IGNORE);
        check(rc == MPI_SUCCESS && !memcmp(v, w, sizeof v), "split: data of half %d", color);
        MPI_File_close(&fh);
    }
    MPI_Barrier(half);
    for (long k = 0; k < 64L * hsize; k++)
        check(posix_int_at(path, k) == (int)(color * 100000 + k), "split %d: file int %ld", color,
              k);
    MPI_Comm_free(&half);
}

static void case_badview(const char *dir, MPI_Comm comm, MPI_Info info)
{
    char path[512];
    path_of(path, sizeof path, dir, "badview");
    MPI_File fh = open_file(comm, path, info);
    if (fh == MPI_FILE_NULL)
        return;
    MPI_Datatype back;
    int lens[2] = {4, 4}, displs[2] = {8, 0}, cls = MPI_SUCCESS;
    MPI_Type_indexed(2, lens, displs, MPI_BYTE, &back);
    MPI_Type_commit(&back);
    int rc = MPI_File_set_view(fh, 0, MPI_BYTE, back, "native", MPI_INFO_NULL);
    MPI_Error_class(rc, &cls);
    /* OMPIO and Open MPI's ROMIO say MPI_ERR_TYPE, MPICH's ROMIO MPI_ERR_IO */
    check(cls == MPI_ERR_TYPE || cls == MPI_ERR_IO,
          "badview: set_view of a filetype going backwards: class %d", cls);
    MPI_Type_free(&back);
    /* what a view that failed leaves differs among the MPIs (MPICH's ROMIO
     * keeps part of it): the program sets a good one, as it would */
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    int v = 1000 + rank, w = -1;
    MPI_Offset at = (MPI_Offset)sizeof(int) * rank;
    rc = rc ? rc : MPI_File_write_at_all(fh, at, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
    rc = rc ? rc : MPI_File_read_at_all(fh, at, &w, 1, MPI_INT, MPI_STATUS_IGNORE);
    check(rc == MPI_SUCCESS && w == v, "badview: after the refused view, error %d, read %d", rc, w);
    MPI_File_close(&fh);
    MPI_Barrier(comm);
    check(posix_int_at(path, rank) == v, "badview: file int %d", rank);
}

/* 1 where every rank's open succeeded, 0 where none did, -1 otherwise
 * (agreed: the ranks then decide alike whether to close) */
static int opened_on(MPI_Comm comm, int rc)
{
    int ok = rc == MPI_SUCCESS, all[2] = {ok, -ok}, most[2];
    MPI_Allreduce(all, most, 2, MPI_INT, MPI_MAX, comm);
    int every = -most[1], any = most[0];
    return every ? 1 : any ? -1 : 0;
}

/* excl: each round, a new file opened with CREATE|EXCL by every rank
 * (which must succeed everywhere, with the amode given read back), then
 * again (which must fail everywhere, as the file exists); rounds, as the
 * ranks race to create it. */
#define EXCL_ROUNDS 10
static void case_excl(const char *dir, MPI_Comm comm, MPI_Info info)
{
    char path[512];
    path_of(path, sizeof path, dir, "excl");
    int amode = MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY;
    for (int round = 0; round < EXCL_ROUNDS; round++) {
        if (rank == 0)
            unlink(path);
        MPI_Barrier(comm);
        MPI_File fh = MPI_FILE_NULL;
        int rc = MPI_File_open(comm, path, amode, info, &fh), got = 0;
        check(rc == MPI_SUCCESS, "excl round %d: a new file: error %d", round, rc);
        if (opened_on(comm, rc) != 1)
            return; /* not everywhere: a close would wait for the others */
        MPI_File_get_amode(fh, &got);
        check(got == amode, "excl: get_amode %#x, opened with %#x", got, amode);
        MPI_File_close(&fh);
        rc = MPI_File_open(comm, path, amode, info, &fh);
        /* the class is the MPI's (the shim hands it the open first):
         * MPI_ERR_FILE_EXISTS by the standard, MPI_ERR_IO from MPICH 4's
         * ROMIO; MPICH 5 and Intel MPI give the ranks but 0 a code from
         * rank 0 that they cannot decode (MPI_ERR_OTHER) */
        check(rc != MPI_SUCCESS, "excl round %d: the file again: opened", round);
        int where = opened_on(comm, rc);
        if (where == 1)
            MPI_File_close(&fh);
        else if (where != 0)
            return;
    }
}

/* prefix: "ufs:" before the name, written collectively, read with POSIX
 * at the name without it. */
static void case_prefix(const char *dir, MPI_Comm comm, MPI_Info info)
{
    char path[512], named[520];
    path_of(path, sizeof path, dir, "prefix");
    snprintf(named, sizeof named, "ufs:%s", path);
    MPI_File fh = open_file(comm, named, info);
    if (fh == MPI_FILE_NULL)
        return;
    int v[2] = {7000 + rank, 8000 + rank};
    int rc =
        MPI_File_write_at_all(fh, (MPI_Offset)sizeof v * rank, v, 2, MPI_INT, MPI_STATUS_IGNORE);
    check(rc == MPI_SUCCESS, "prefix: write_at_all: error %d", rc);
    MPI_File_close(&fh);
    MPI_Barrier(comm);
    check(posix_int_at(path, 2L * rank) == v[0] && posix_int_at(path, 2L * rank + 1) == v[1],
          "prefix: file ints %d, %d", 2 * rank, 2 * rank + 1);
}

/* romiohints: one open under each of three hints setups ROMIO ignores,
 * each file written and checked */
static void romiohints_file(const char *dir, MPI_Comm comm, MPI_Info info, int k)
{
    char path[512], name[32];
    snprintf(name, sizeof name, "romiohints%d", k);
    path_of(path, sizeof path, dir, name);
    MPI_File fh = open_file(comm, path, info);
    if (fh == MPI_FILE_NULL)
        return;
    int v = 100 * k + rank;
    int rc =
        MPI_File_write_at_all(fh, (MPI_Offset)sizeof v * rank, &v, 1, MPI_INT, MPI_STATUS_IGNORE);
    check(rc == MPI_SUCCESS, "romiohints %d: write_at_all: error %d", k, rc);
    MPI_File_close(&fh);
    MPI_Barrier(comm);
    check(posix_int_at(path, rank) == v, "romiohints %d: file int %d", k, rank);
}

static void case_romiohints(const char *dir, MPI_Comm comm)
{
    char hints[512];
    snprintf(hints, sizeof hints, "%s/regress_no_such_hints", dir);
    setenv("ROMIO_HINTS", hints, 1); /* ROMIO reads it at every open */
    romiohints_file(dir, comm, MPI_INFO_NULL, 0);
    snprintf(hints, sizeof hints, "%s/regress_hints.txt", dir);
    if (rank == 0) {
        FILE *f = fopen(hints, "w");
        if (f) { /* a key alone, three words, then a good line */
            fprintf(f, "# malformed lines\ncb_buffer_size\nstriping_unit 1m extra\ncb_nodes 1\n");
            fclose(f);
        }
    }
    MPI_Barrier(comm);
    setenv("ROMIO_HINTS", hints, 1);
    romiohints_file(dir, comm, MPI_INFO_NULL, 1);
    unsetenv("ROMIO_HINTS");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "lots");
    MPI_Info_set(info, "romio_cb_write", "sometimes");
    romiohints_file(dir, comm, info, 2);
    MPI_Info_free(&info);
}

/* The value of key in the file's info ("" when it has none). */
static void info_value(MPI_File fh, const char *key, char *out, int cap)
{
    MPI_Info used;
    int flag = 0;
    out[0] = '\0';
    if (MPI_File_get_info(fh, &used) != MPI_SUCCESS)
        return;
    MPI_Info_get(used, key, cap - 1, out, &flag);
    if (!flag)
        out[0] = '\0';
    MPI_Info_free(&used);
}

static int value_is(MPI_File fh, const char *key, const char *want)
{
    char got[MPI_MAX_INFO_VAL + 1];
    info_value(fh, key, got, sizeof got);
    if (strcmp(got, want))
        fprintf(stderr, "[rank %d] info %s=%s, expected %s\n", rank, key, got, want);
    return !strcmp(got, want);
}

/* One set_info of key=value (this rank's): its result. */
static int set_one_info(MPI_File fh, const char *key, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    int rc = MPI_File_set_info(fh, info);
    MPI_Info_free(&info);
    return rc;
}

/* Whether the last line of TACIO_STATS (rank 0 appends one a call) names
 * strategy as the one that planned the call. */
static int last_planned(const char *strategy)
{
    const char *path = getenv("TACIO_STATS");
    char line[4096], last[4096] = "", want[64];
    FILE *f = path ? fopen(path, "r") : NULL;
    while (f && fgets(line, sizeof line, f))
        memcpy(last, line, sizeof last);
    if (f)
        fclose(f);
    snprintf(want, sizeof want, "\"planned\":\"%s\"", strategy);
    return strstr(last, want) != NULL;
}

/* Whether two files' infos hold the same value for every key of a's. */
static int same_info(MPI_File a, MPI_File b)
{
    MPI_Info ia, ib;
    int n = 0, same = 1;
    MPI_File_get_info(a, &ia);
    MPI_File_get_info(b, &ib);
    MPI_Info_get_nkeys(ia, &n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], va[MPI_MAX_INFO_VAL + 1], vb[MPI_MAX_INFO_VAL + 1];
        int fa = 0, fb = 0;
        MPI_Info_get_nthkey(ia, i, key);
        MPI_Info_get(ia, key, MPI_MAX_INFO_VAL, va, &fa);
        MPI_Info_get(ib, key, MPI_MAX_INFO_VAL, vb, &fb);
        if (strncmp(key, "filename", 8) && (!fb || strcmp(va, vb))) {
            fprintf(stderr, "[rank %d] %s: %s against %s\n", rank, key, va, fb ? vb : "none");
            same = 0;
        }
    }
    MPI_Info_free(&ia);
    MPI_Info_free(&ib);
    return same;
}

static void case_info(const char *dir, MPI_Comm comm)
{
    char path[512], second[512];
    path_of(path, sizeof path, dir, "info0");
    path_of(second, sizeof second, dir, "info1");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "65536");
    MPI_Info_set(info, "tacio_pipeline", "disable");
    MPI_Info_set(info, "romio_cb_write", "enable"); /* planned, not independent */
    MPI_File fh = open_file(comm, path, info);
    MPI_Info_free(&info);
    if (fh == MPI_FILE_NULL)
        return;
    check(value_is(fh, "cb_buffer_size", "65536") && value_is(fh, "tacio_pipeline", "disable"),
          "info: the open's hints read back");
    /* a hint tacio serves and leaves unset is not the library's value */
    check(value_is(fh, "cb_nodes", ""), "info: cb_nodes, unset, read back with a value");
    int rc = set_one_info(fh, "tacio_strategy", "tatp");
    rc = rc ? rc : set_one_info(fh, "cb_buffer_size", "131072");
    check(rc == MPI_SUCCESS, "info: set_info failed: error %d", rc);
    check(value_is(fh, "tacio_strategy", "tatp") && value_is(fh, "cb_buffer_size", "131072"),
          "info: set_info's hints read back");
    int v[64];
    for (int k = 0; k < 64; k++)
        v[k] = rank * 64 + k + 7;
    MPI_Offset at = (MPI_Offset)rank * (MPI_Offset)sizeof v;
    rc = MPI_File_write_at_all(fh, at, v, 64, MPI_INT, MPI_STATUS_IGNORE);
    check(rc == MPI_SUCCESS, "info: write_at_all after set_info: error %d", rc);
    if (rank == 0)
        check(last_planned("tatp"), "info: the call after set_info was not planned by tatp");
    /* hints that differ across ranks (nprocs > 1), and a tacio_ value
     * that does not parse: refused on every rank, nothing changed */
    if (nprocs > 1) {
        rc = set_one_info(fh, "cb_buffer_size", rank ? "262144" : "524288");
        check(rc != MPI_SUCCESS, "info: hints that differ across ranks were taken");
    }
    rc = set_one_info(fh, "tacio_pipeline", "maybe");
    check(rc != MPI_SUCCESS, "info: tacio_pipeline=maybe was taken");
    check(value_is(fh, "cb_buffer_size", "131072") && value_is(fh, "tacio_pipeline", "disable"),
          "info: a refused set_info changed the hints");
    /* the hosts are found at open: a new tacio_ranks_per_node is ignored */
    char before[MPI_MAX_INFO_VAL + 1];
    info_value(fh, "tacio_ranks_per_node", before, sizeof before);
    rc = set_one_info(fh, "tacio_ranks_per_node", "1");
    check(rc == MPI_SUCCESS && value_is(fh, "tacio_ranks_per_node", before),
          "info: an open-only hint changed after open");
    /* a view kept from the library (the shim defers it) with one value of
     * a hint the library serves, then set_info with another: once the
     * library gets the view (set_atomicity is its), the later value holds */
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "disable");
    rc = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info);
    MPI_Info_free(&info);
    rc = rc ? rc : set_one_info(fh, "romio_ds_write", "enable");
    rc = rc ? rc : MPI_File_set_atomicity(fh, 0);
    char ds[MPI_MAX_INFO_VAL + 1];
    info_value(fh, "romio_ds_write", ds, sizeof ds);
    check(rc == MPI_SUCCESS && (!ds[0] || !strcmp(ds, "enable")),
          "info: romio_ds_write=%s after set_info's enable (error %d)", ds, rc);
    MPI_Info used;
    MPI_File_get_info(fh, &used);
    MPI_File fh2 = open_file(comm, second, used);
    MPI_Info_free(&used);
    if (fh2 != MPI_FILE_NULL) {
        check(same_info(fh, fh2), "info: get_info's info gave another file other hints");
        MPI_File_close(&fh2);
    }
    MPI_File_close(&fh);
    MPI_Barrier(comm);
    for (long k = rank; k < 64L * nprocs; k += 13)
        check(posix_int_at(path, k) == (int)(k + 7), "info: file int %ld", k);
}

static void case_sequential(const char *dir, MPI_Comm comm, MPI_Info info)
{
    enum { INTS = 4 };
    char path[512];
    path_of(path, sizeof path, dir, "sequential");
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL,
                           info, &fh);
    check(rc == MPI_SUCCESS, "sequential: open: error %d", rc);
    if (opened_on(comm, rc) != 1)
        return; /* not everywhere: a close would wait for the others */
    int v[INTS];
    for (int i = 0; i < INTS; i++)
        v[i] = rank * INTS + i + 3;
    rc = MPI_File_write_ordered(fh, v, INTS, MPI_INT, MPI_STATUS_IGNORE);
    check(rc == MPI_SUCCESS, "sequential: write_ordered: error %d", rc);
    MPI_File_close(&fh);
    MPI_Barrier(comm);
    for (long k = rank; k < (long)INTS * nprocs; k += nprocs)
        check(posix_int_at(path, k) == (int)(k + 3), "sequential: file int %ld", k);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *dir = argc > 1 ? argv[1] : ".";
    if (rank == 0) { /* MPI_MODE_CREATE does not truncate: start from nothing */
        const char *names[] = {"tile",   "status", "hints0",      "hints1",      "hints2",
                               "hints3", "hints4", "split0",      "split1",      "badview",
                               "excl",   "prefix", "romiohints0", "romiohints1", "romiohints2",
                               "info0",  "info1",  "sequential"};
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            char path[512];
            path_of(path, sizeof path, dir, names[i]);
            unlink(path);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "tile"))
            case_tile(dir, MPI_COMM_WORLD, MPI_INFO_NULL);
        else if (!strcmp(argv[i], "status"))
            case_status(dir, MPI_COMM_WORLD, MPI_INFO_NULL);
        else if (!strcmp(argv[i], "eof"))
            case_eof(dir, MPI_COMM_WORLD, MPI_INFO_NULL);
        else if (!strcmp(argv[i], "hints"))
            case_hints(dir, MPI_COMM_WORLD);
        else if (!strcmp(argv[i], "split"))
            case_split(dir, MPI_INFO_NULL);
        else if (!strcmp(argv[i], "badview"))
            case_badview(dir, MPI_COMM_WORLD, MPI_INFO_NULL);
        else if (!strcmp(argv[i], "excl"))
            case_excl(dir, MPI_COMM_WORLD, MPI_INFO_NULL);
        else if (!strcmp(argv[i], "prefix"))
            case_prefix(dir, MPI_COMM_WORLD, MPI_INFO_NULL);
        else if (!strcmp(argv[i], "romiohints"))
            case_romiohints(dir, MPI_COMM_WORLD);
        else if (!strcmp(argv[i], "info"))
            case_info(dir, MPI_COMM_WORLD);
        else if (!strcmp(argv[i], "sequential"))
            case_sequential(dir, MPI_COMM_WORLD, MPI_INFO_NULL);
        else
            check(0, "unknown case '%s'", argv[i]);
    }
    long tot[2] = {passed, failed}, all[2];
    MPI_Reduce(tot, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("regress: %ld passed, %ld failed\n", all[0], all[1]);
    MPI_Finalize();
    return rank == 0 && all[1] ? 1 : 0;
}
