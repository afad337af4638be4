/* An ordinary MPI-IO program, built without tacio, that sets a view and then
 * makes every kind of call that reads it: independent calls at an offset,
 * at the individual pointer and at the shared pointer, blocking and not;
 * seeks (SET, CUR, END), positions, byte offsets, get_view; collectives
 * tacio serves (write_all) and ones the MPI library serves (ordered, split,
 * non-blocking collectives). Under the shim a view stays tacio's until the
 * library needs it (src/shim/shim.h), so every one of these calls must see
 * the view the program set, exactly as with the MPI alone. Every result is
 * checked against the MPI standard's closed form, and the file with POSIX.
 * Prints "views: N passed, M failed".
 *
 * usage: views_app FILE */
#include <fcntl.h>
#include <glob.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define B 4       /* ints per block of a rank's strided view */
#define HEADER 64 /* the strided view's displacement, bytes */
#define BLOCKS 16 /* blocks per rank in the strided region */
#define SHARED 3  /* ints per rank written at the shared pointer */
#define ORDERED 2 /* ints per rank written in rank order */

static int rank, np;
static long passed, failed;

static void check(int ok, const char *what, long got, long want)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "views: rank %d: %s: got %ld, want %ld\n", rank, what, got, want);
}
static void eq(const char *what, long got, long want)
{
    check(got == want, what, got, want);
}
#define EQ(what, got, want) eq(what, (long)(got), (long)(want)) /* each argument once */

/* The strided region: int i of the file after HEADER holds i + 7; rank r's
 * view sees ints r*B .. r*B+B-1 of every np*B. Etype p of the view: */
static long file_int(long p)
{
    return (p / B) * np * B + rank * B + p % B;
}

static void fill(int *buf, long p0, int n)
{
    for (int k = 0; k < n; k++)
        buf[k] = (int)(file_int(p0 + k) + 7);
}

static int count_of(MPI_Status *st)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    return n;
}

/* The strided region again, as a vector from the rank's first block. */
static void vector_view(MPI_File fh)
{
    MPI_Datatype ft;
    MPI_Type_vector(BLOCKS, B, np * B, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(fh, HEADER + 4 * rank * B, MPI_INT, ft, "native", MPI_INFO_NULL);
    MPI_Type_free(&ft);
}

/* The strided view: every kind of individual and explicit-offset call. */
static void strided(MPI_File fh)
{
    MPI_Datatype v, ft;
    MPI_Type_create_hindexed_block(1, B, (MPI_Aint[]){(MPI_Aint)rank * B * 4}, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)np * B * 4, &ft);
    MPI_Type_free(&v);
    MPI_Type_commit(&ft);
    EQ("set_view", MPI_File_set_view(fh, HEADER, MPI_INT, ft, "native", MPI_INFO_NULL), 0);
    MPI_Type_free(&ft); /* the view keeps its own */
    int buf[8 * B];
    MPI_Status st;
    MPI_Request req;
    MPI_Offset pos = -1, byte = -1;
    fill(buf, 0, 8);
    EQ("write", MPI_File_write(fh, buf, 8, MPI_INT, &st), 0);
    EQ("write count", count_of(&st), 8);
    MPI_File_get_position(fh, &pos);
    EQ("position after write", pos, 8);
    fill(buf, 8, 8);
    EQ("write_at", MPI_File_write_at(fh, 8, buf, 8, MPI_INT, &st), 0);
    fill(buf, 16, 8);
    EQ("iwrite_at", MPI_File_iwrite_at(fh, 16, buf, 8, MPI_INT, &req), 0);
    MPI_Wait(&req, &st);
    EQ("iwrite_at count", count_of(&st), 8);
    EQ("seek cur", MPI_File_seek(fh, 16, MPI_SEEK_CUR), 0);
    fill(buf, 24, 8);
    EQ("iwrite", MPI_File_iwrite(fh, buf, 8, MPI_INT, &req), 0);
    MPI_Wait(&req, &st);
    MPI_File_get_position(fh, &pos);
    EQ("position after iwrite", pos, 32);
    MPI_File_get_byte_offset(fh, 33, &byte);
    EQ("byte offset", byte, HEADER + 4 * file_int(33));
    fill(buf, 32, 2 * B);
    EQ("write_all", MPI_File_write_all(fh, buf, 2 * B, MPI_INT, &st), 0);
    MPI_File_get_position(fh, &pos);
    EQ("position after write_all", pos, 32 + 2 * B);
    /* the rest of the rank's blocks, as a split collective (the library's) */
    int rest = BLOCKS * B - (32 + 2 * B);
    int *more = malloc(sizeof(int) * (size_t)rest);
    fill(more, 32 + 2 * B, rest);
    EQ("write_all_begin", MPI_File_write_all_begin(fh, more, rest, MPI_INT), 0);
    EQ("write_all_end", MPI_File_write_all_end(fh, more, &st), 0);
    MPI_File_get_position(fh, &pos);
    EQ("position after the split write", pos, BLOCKS * B);
    free(more);
    MPI_Offset disp;
    MPI_Datatype et, got_ft;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_File_get_view(fh, &disp, &et, &got_ft, rep);
    int size = 0;
    MPI_Type_size(got_ft, &size);
    EQ("get_view disp", disp, HEADER);
    EQ("get_view filetype size", size, B * 4);
    EQ("get_view datarep", strcmp(rep, "native"), 0);
    MPI_Type_free(&got_ft);

    /* a view set again, read back through it by independent calls */
    vector_view(fh);
    int back[8], want[8];
    MPI_File_get_position(fh, &pos);
    EQ("position after set_view", pos, 0);
    EQ("read_at", MPI_File_read_at(fh, 12, back, 8, MPI_INT, &st), 0);
    fill(want, 12, 8);
    EQ("read_at data", memcmp(back, want, sizeof back), 0);
    EQ("seek", MPI_File_seek(fh, 40, MPI_SEEK_SET), 0);
    EQ("iread", MPI_File_iread(fh, back, 8, MPI_INT, &req), 0);
    MPI_Wait(&req, &st);
    fill(want, 40, 8);
    EQ("iread data", memcmp(back, want, sizeof back), 0);
    EQ("iread count", count_of(&st), 8);
    EQ("read", MPI_File_read(fh, back, 4, MPI_INT, &st), 0);
    fill(want, 48, 4);
    EQ("read data", memcmp(back, want, 4 * sizeof *back), 0);
    EQ("iread_at", MPI_File_iread_at(fh, 3, back, 2, MPI_INT, &req), 0);
    MPI_Wait(&req, &st);
    fill(want, 3, 2);
    EQ("iread_at data", memcmp(back, want, 2 * sizeof *back), 0);
    /* the non-blocking collective, the library's */
    EQ("iread_at_all", MPI_File_iread_at_all(fh, 20, back, 8, MPI_INT, &req), 0);
    MPI_Wait(&req, &st);
    fill(want, 20, 8);
    EQ("iread_at_all data", memcmp(back, want, sizeof back), 0);
}

/* Where the shim holds the views (VIEWS_SIDE_FILES=1), what the MPI alone
 * does otherwise: a view with a negative displacement, which the standard
 * calls erroneous, is refused with MPI_ERR_ARG as ROMIO refuses it (OMPIO
 * takes it), and a set_view the library refuses (an uncommitted filetype,
 * in external32, which only the library serves) leaves the view as it was
 * (OMPIO keeps part of the view it refused). The view before either is
 * the vector one, which reads must still see. */
static void refused_views(MPI_File fh)
{
    const char *side = getenv("VIEWS_SIDE_FILES");
    if (!side || atoi(side) != 1)
        return;
    vector_view(fh); /* (the library got the last one for strided()'s iread_at_all) */
    MPI_File_seek(fh, 3, MPI_SEEK_SET);
    MPI_Offset size = -1, pos = -1;
    EQ("get_size", MPI_File_get_size(fh, &size), 0);
    EQ("the size", size, HEADER + 4L * BLOCKS * B * np);
    MPI_File_get_position(fh, &pos);
    int cls = -1, rc = MPI_File_set_view(fh, -8, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_Error_class(rc, &cls);
    EQ("negative displacement refused", cls, MPI_ERR_ARG);
    MPI_Datatype loose;
    MPI_Type_contiguous(2, MPI_INT, &loose); /* never committed */
    rc = MPI_File_set_view(fh, 0, MPI_INT, loose, "external32", MPI_INFO_NULL);
    MPI_Type_free(&loose);
    EQ("an uncommitted filetype refused", rc != MPI_SUCCESS, 1);
    MPI_Offset after = -1;
    MPI_File_get_position(fh, &after);
    EQ("position kept", after, pos);
    int back[4], want[4];
    MPI_Status st;
    EQ("read_at through the view kept", MPI_File_read_at(fh, 5, back, 4, MPI_INT, &st), 0);
    fill(want, 5, 4);
    EQ("read_at data through the view kept", memcmp(back, want, sizeof back), 0);
}

/* One contiguous view on every rank (MPI's rule for the shared pointer):
 * SHARED ints a rank at the shared pointer, then ORDERED ints in rank
 * order. Returns where the region starts. */
/* VIEWS_SIDE_FILES=K (tests/shim/views.sh): how many files named
 * PATH.tacio-sfp-* the shared pointer calls must have left beside the file
 * by now: 1 where the shim holds the view (its shared pointer's), else 0. */
static void side_files(const char *path)
{
    const char *want = getenv("VIEWS_SIDE_FILES");
    if (!want)
        return;
    char pattern[4096];
    snprintf(pattern, sizeof pattern, "%s.tacio-sfp-*", path);
    glob_t g;
    int found = glob(pattern, 0, NULL, &g) == 0 ? (int)g.gl_pathc : 0;
    if (found)
        globfree(&g);
    EQ("side files", found, atoi(want));
}

static MPI_Offset shared(MPI_File fh, const char *path, MPI_Offset start)
{
    MPI_File_set_view(fh, start, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_Offset pos = -1;
    MPI_File_get_position_shared(fh, &pos);
    EQ("shared position after set_view", pos, 0);
    MPI_Barrier(MPI_COMM_WORLD); /* set_view need not synchronise: no rank moves it before */
    int buf[SHARED];
    for (int k = 0; k < SHARED; k++)
        buf[k] = -(rank * 100 + k + 1);
    MPI_Status st;
    EQ("write_shared", MPI_File_write_shared(fh, buf, SHARED, MPI_INT, &st), 0);
    EQ("write_shared count", count_of(&st), SHARED);
    MPI_Barrier(MPI_COMM_WORLD);
    side_files(path);
    MPI_File_get_position_shared(fh, &pos);
    EQ("shared position after write_shared", pos, SHARED * np);
    int ord[ORDERED] = {-(1000 + rank), -(2000 + rank)};
    EQ("write_ordered", MPI_File_write_ordered(fh, ord, ORDERED, MPI_INT, &st), 0);
    MPI_File_get_position_shared(fh, &pos);
    EQ("shared position after write_ordered", pos, (SHARED + ORDERED) * np);
    /* the view again (deferred anew): the pointer back at 0, read_shared */
    MPI_File_set_view(fh, start, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    int back[SHARED];
    if (rank == 0) {
        EQ("read_shared", MPI_File_read_shared(fh, back, SHARED, MPI_INT, &st), 0);
        EQ("read_shared count", count_of(&st), SHARED);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_get_position_shared(fh, &pos);
    EQ("shared position after read_shared", pos, SHARED);
    EQ("seek end", MPI_File_seek(fh, 0, MPI_SEEK_END), 0);
    MPI_File_get_position(fh, &pos);
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    EQ("position at the end", pos, (size - start + 3) / 4);
    return start;
}

/* The file with POSIX (rank 0): the strided region by its closed form, the
 * shared one as each rank's ints once, the ordered one in rank order. */
static void check_file(const char *path, MPI_Offset start)
{
    int fd = open(path, O_RDONLY);
    long n = (start - HEADER) / 4 + (SHARED + ORDERED) * np;
    int *all = malloc(sizeof(int) * (size_t)n);
    EQ("pread",
       fd >= 0 &&
           pread(fd, all, sizeof(int) * (size_t)n, HEADER) == (ssize_t)(sizeof(int) * (size_t)n),
       1);
    long wrong = 0;
    for (long i = 0; i < (start - HEADER) / 4; i++)
        wrong += all[i] != i + 7;
    EQ("strided region", wrong, 0);
    int *sh = all + (start - HEADER) / 4;
    for (int r = 0; r < np; r++) { /* rank r's run of SHARED, once, somewhere */
        int found = 0;
        for (int slot = 0; slot < np; slot++)
            found += sh[slot * SHARED] == -(r * 100 + 1) &&
                     sh[slot * SHARED + 1] == -(r * 100 + 2) &&
                     sh[slot * SHARED + 2] == -(r * 100 + 3);
        EQ("a rank's shared run", found, 1);
    }
    int *ord = sh + SHARED * np;
    for (int r = 0; r < np; r++) {
        EQ("ordered, first", ord[r * ORDERED], -(1000 + r));
        EQ("ordered, second", ord[r * ORDERED + 1], -(2000 + r));
    }
    free(all);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *path = argv[1];
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    EQ("open",
       MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), 0);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    strided(fh);
    refused_views(fh);
    MPI_Offset start = shared(fh, path, HEADER + 4L * BLOCKS * B * np);
    EQ("close", MPI_File_close(&fh), 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_file(path, start);
    long counts[2] = {passed, failed}, sums[2];
    MPI_Reduce(counts, sums, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("views: %ld passed, %ld failed\n", sums[0], sums[1]);
    MPI_Finalize();
    return 0;
}
