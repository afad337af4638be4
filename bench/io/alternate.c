/* bench/io's program for shapes in turn: T shapes written one after the
 * other on one file, as a time step writes several variables (A, B, A, B,
 * ... for T = 2), through the plain MPI-IO API.
 *   Shape x has records of len_x bytes, rank-interleaved, R a rank a call:
 *   call k of shape x writes rank r's records j < R at
 *     region_x + k * span_x + (j * p + r) * len_x
 *   where span_x, one call's bytes rounded up to a MiB, keeps every call's
 *   shift a whole number of stripes. Each call sets its view for the call
 *   (displacement at the call's records, a vector filetype), as PnetCDF
 *   and HDF5 set one per variable, then writes with MPI_File_write_all.
 * Every byte is a function of its offset and the pass (byte_at), so after
 * the calls rank 0 reads the whole file back with POSIX pread and counts
 * the bytes that differ from it; a read pass reads every call back the
 * same way (MPI_File_read_all) and checks each buffer.
 * Prints on rank 0, per direction:
 *   alternate op=write|read np=N turns=T calls=C seconds=S wrong=W
 *   (S: from a barrier to the slowest rank's end of all C calls of every
 *   shape)
 * usage: alternate FILE CALLS RECORDS LEN1+LEN2+... */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SHAPES 8
#define MIB ((int64_t)1 << 20)

struct run {
    int rank, p, turns;
    int64_t calls, records, len[MAX_SHAPES], span[MAX_SHAPES], region[MAX_SHAPES];
};

static unsigned char byte_at(int64_t off)
{
    return (unsigned char)(off * 7 + off / 251 + 1);
}

static void check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "alternate: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Where this rank's record j of call k of shape x starts. */
static int64_t record_at(const struct run *r, int x, int64_t k, int64_t j)
{
    return r->region[x] + k * r->span[x] + (j * r->p + r->rank) * r->len[x];
}

/* The view of call k of shape x: this rank's records from its first. */
static void set_view(MPI_File fh, const struct run *r, int x, int64_t k)
{
    MPI_Datatype v, t;
    MPI_Type_vector((int)r->records, (int)r->len[x], (int)(r->p * r->len[x]), MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)(r->records * r->p * r->len[x]), &t);
    MPI_Type_commit(&t);
    check(MPI_File_set_view(fh, record_at(r, x, k, 0), MPI_BYTE, t, "native", MPI_INFO_NULL),
          "MPI_File_set_view");
    MPI_Type_free(&v);
    MPI_Type_free(&t);
}

/* Every call of every shape in turn, one direction: the seconds, and on
 * reads the bytes that differ from what the writes put there. */
static double pass(MPI_File fh, const struct run *r, int is_write, unsigned char *buf,
                   int64_t *wrong)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < r->calls; k++)
        for (int x = 0; x < r->turns; x++) {
            int64_t n = r->records * r->len[x];
            for (int64_t i = 0; is_write && i < n; i++)
                buf[i] = byte_at(record_at(r, x, k, i / r->len[x]) + i % r->len[x]);
            if (!is_write) /* a read that leaves a byte must not find it right */
                memset(buf, 0xa5, (size_t)n);
            set_view(fh, r, x, k);
            check(is_write ? MPI_File_write_all(fh, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE)
                           : MPI_File_read_all(fh, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE),
                  is_write ? "MPI_File_write_all" : "MPI_File_read_all");
            for (int64_t i = 0; !is_write && i < n; i++)
                *wrong += buf[i] != byte_at(record_at(r, x, k, i / r->len[x]) + i % r->len[x]);
        }
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

/* Rank 0: the bytes of the file, read with POSIX, that no call's record
 * explains (the gaps between a call's records and spans stay zero). */
static int64_t check_file(const char *path, const struct run *r)
{
    int64_t end = r->region[r->turns - 1] + r->calls * r->span[r->turns - 1], wrong = 0;
    unsigned char *got = calloc((size_t)end, 1);
    int fd = open(path, O_RDONLY);
    int64_t n = fd >= 0 ? pread(fd, got, (size_t)end, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 0)
        return end;
    for (int x = 0; x < r->turns; x++)
        for (int64_t off = r->region[x]; off < r->region[x] + r->calls * r->span[x]; off++) {
            int64_t in = (off - r->region[x]) % r->span[x];
            int data = in < r->records * r->p * r->len[x];
            wrong += got[off] != (data ? byte_at(off) : 0);
        }
    free(got);
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct run r = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.p);
    int usage = argc != 5;
    if (!usage) {
        r.calls = atoll(argv[2]);
        r.records = atoll(argv[3]);
        for (char *s = argv[4]; s && *s && r.turns < MAX_SHAPES; s = strchr(s, '+'), s += !!s)
            r.len[r.turns++] = atoll(s);
        usage = r.calls < 1 || r.records < 1;
        for (int x = 0; x < r.turns; x++)
            usage |= r.len[x] < 1;
    }
    if (usage) {
        if (!r.rank)
            fprintf(stderr, "usage: alternate FILE CALLS RECORDS LEN1+LEN2+...\n");
        MPI_Finalize();
        return 2;
    }
    int64_t most = 0;
    for (int x = 0; x < r.turns; x++) {
        r.span[x] = (r.records * r.p * r.len[x] + MIB - 1) / MIB * MIB;
        r.region[x] = x ? r.region[x - 1] + r.calls * r.span[x - 1] : 0;
        most = r.records * r.len[x] > most ? r.records * r.len[x] : most;
    }
    if (!r.rank)
        unlink(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    check(
        MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        "MPI_File_open");
    unsigned char *buf = malloc((size_t)most);
    int64_t wrong_read = 0, wrong_file = 0, wr;
    double tw = pass(fh, &r, 1, buf, NULL);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    double tr = pass(fh, &r, 0, buf, &wrong_read);
    check(MPI_File_close(&fh), "MPI_File_close");
    if (!r.rank) {
        wrong_file = check_file(argv[1], &r);
        unlink(argv[1]);
    }
    MPI_Reduce(&wrong_read, &wr, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!r.rank) {
        printf("alternate op=write np=%d turns=%d calls=%lld seconds=%.6f wrong=%lld\n", r.p,
               r.turns, (long long)r.calls, tw, (long long)wrong_file);
        printf("alternate op=read np=%d turns=%d calls=%lld seconds=%.6f wrong=%lld\n", r.p,
               r.turns, (long long)r.calls, tr, (long long)wr);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
