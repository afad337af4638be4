/* The list API (tacio_file_write_list_all, tacio_file_read_list_all):
 *   - every rank writes a list of pieces of its own sizes, interleaved with
 *     the others' in the file (rank r's k-th piece in slot k * p + r of
 *     SLOT bytes, some pieces empty, the last rank's list empty); the file
 *     is checked with POSIX against the closed form (the byte at x holds
 *     x * 7 + 3), then read back with the list and compared;
 *   - the file's view and pointer are left as they were;
 *   - a list that is unsorted, overlapping, or has a negative offset or
 *     length, or a piece whose end passes 2^63, on one rank fails the call
 *     on every rank with MPI_ERR_ARG, and the file keeps its bytes.
 * usage: test_list DIR */
#include "mpi_check.h"

#include <string.h>

#define PIECES 300
#define SLOT 40

static unsigned char byte_at(int64_t x)
{
    return (unsigned char)(x * 7 + 3);
}

struct list {
    int n;
    MPI_Offset off[PIECES], len[PIECES];
    int64_t bytes;
};

/* Rank r's pieces: in slot k * p + r, at 1-4 bytes in, 0-31 bytes long. */
static void make_list(int rank, int p, struct list *l)
{
    l->n = rank == p - 1 && p > 1 ? 0 : PIECES;
    l->bytes = 0;
    for (int k = 0; k < l->n; k++) {
        l->off[k] = (MPI_Offset)(k * p + rank) * SLOT + 1 + (k + rank) % 4;
        l->len[k] = (k * 13 + rank * 5) % 32;
        l->bytes += l->len[k];
    }
}

static void fill(const struct list *l, unsigned char *buf)
{
    int64_t at = 0;
    for (int k = 0; k < l->n; k++)
        for (MPI_Offset b = 0; b < l->len[k]; b++)
            buf[at++] = byte_at(l->off[k] + b);
}

static int error_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* A file of size bytes with the closed form where any rank's list put data
 * and prefill_of elsewhere. */
static void check_image(const char *path, int p, int64_t size)
{
    unsigned char *got = malloc((size_t)size), *want = malloc((size_t)size);
    for (int64_t x = 0; x < size; x++)
        want[x] = prefill_of(x);
    for (int r = 0; r < p; r++) {
        struct list l;
        make_list(r, p, &l);
        for (int k = 0; k < l.n; k++)
            for (MPI_Offset b = 0; b < l.len[k]; b++)
                want[l.off[k] + b] = byte_at(l.off[k] + b);
    }
    check_that(posix_read_file(path, got, size) == 0 && !memcmp(got, want, (size_t)size),
               "the file differs from the closed form");
    free(got);
    free(want);
}

/* One rank's list broken in one way: every rank fails alike, the file
 * keeps its bytes. */
static void bad_list(tacio_file_t fh, const char *path, int p, int64_t size, int how)
{
    static const char *const what[] = {"unsorted", "overlapping", "negative offset",
                                       "negative length", "past 2^63"};
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct list l;
    make_list(rank == 0 ? 0 : rank, p, &l);
    if (rank == 0) {
        MPI_Offset t = l.off[3];
        if (how == 0)
            l.off[3] = l.off[4], l.off[4] = t;
        else if (how == 1)
            l.len[3] = l.off[4] - l.off[3] + 1, l.len[4] = 2;
        else if (how == 2)
            l.off[0] = -8;
        else if (how == 3)
            l.len[5] = -1;
        else
            l.len[l.n - 1] = INT64_MAX; /* its end would wrap */
    }
    unsigned char *buf = calloc((size_t)l.bytes + 64, 1);
    int rc = tacio_file_write_list_all(fh, l.n, l.off, l.len, buf, MPI_STATUS_IGNORE);
    int cls = error_class(rc), all_arg;
    int mine = cls == MPI_ERR_ARG;
    MPI_Allreduce(&mine, &all_arg, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check_that(all_arg, "a %s list on rank 0: rank %d got class %d, not MPI_ERR_ARG", what[how],
               rank, cls);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_image(path, p, size); /* nothing written */
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char path[512];
    snprintf(path, sizeof path, "%s/list_%d.dat", dir, p);
    int64_t size = (int64_t)PIECES * p * SLOT;
    if (rank == 0) {
        unsigned char *pre = malloc((size_t)size);
        for (int64_t x = 0; x < size; x++)
            pre[x] = prefill_of(x);
        posix_write_file(path, pre, size);
        free(pre);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    struct list l;
    make_list(rank, p, &l);
    unsigned char *buf = malloc((size_t)l.bytes + 1), *back = malloc((size_t)l.bytes + 1);
    fill(&l, buf);
    MPI_Info info = make_info("romio", "cb_buffer_size=977");
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    /* a view and a pointer of the file's own, which the list calls keep */
    rc = rc ? rc : tacio_file_set_view(fh, 16, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    rc = rc ? rc : tacio_file_seek(fh, 3, MPI_SEEK_SET);
    MPI_Status st;
    rc = rc ? rc : tacio_file_write_list_all(fh, l.n, l.off, l.len, buf, &st);
    MPI_Count got = -1;
    MPI_Get_elements_x(&st, MPI_BYTE, &got);
    check_that(rc == MPI_SUCCESS && got == l.bytes, "write_list_all: rc %d, %lld of %lld bytes", rc,
               (long long)got, (long long)l.bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_image(path, p, size);
    memset(back, 0, (size_t)l.bytes + 1);
    rc = tacio_file_read_list_all(fh, l.n, l.off, l.len, back, MPI_STATUS_IGNORE);
    check_that(rc == MPI_SUCCESS && !memcmp(back, buf, (size_t)l.bytes),
               "read_list_all: rc %d, or other bytes than written", rc);
    MPI_Offset pos = -1, byte = -1;
    tacio_file_get_position(fh, &pos);
    tacio_file_get_byte_offset(fh, pos, &byte);
    check_that(pos == 3 && byte == 16 + 3 * 4, "the view or pointer moved: %lld, byte %lld",
               (long long)pos, (long long)byte);
    for (int how = 0; how < 5 && p > 1; how++)
        bad_list(fh, path, p, size, how);
    tacio_file_close(&fh);
    MPI_Info_free(&info);
    free(buf);
    free(back);
    return finish("test_list");
}
