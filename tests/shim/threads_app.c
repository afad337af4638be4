/* An MPI_THREAD_MULTIPLE program built without tacio: THREADS threads per
 * rank, each on its own duplicate of MPI_COMM_WORLD and its own file, open,
 * set a strided view, write_all, read_all and close ROUNDS times at once;
 * every file is checked with POSIX reads. The MPI standard lets threads
 * call collectives concurrently on different communicators.
 * usage: threads_app DIR; prints "threads: N passed, M failed". */
#include <mpi.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define THREADS 3
#define ROUNDS 4
#define PER 512 /* ints per rank per file */

static int rank, nprocs;
static const char *dir;
static long passed[THREADS], failed[THREADS];
static MPI_Comm comms[THREADS]; /* made in order on the main thread, one per thread */

static void check(int t, int ok, const char *what)
{
    if (ok)
        passed[t]++;
    else if (failed[t]++ < 5)
        fprintf(stderr, "FAIL [rank %d thread %d] %s\n", rank, t, what);
}

static int value_of(int t, int round, long k)
{
    return t * 10000000 + round * 100000 + (int)k;
}

/* Ints interleave by rank in blocks of 8: rank r owns blocks r, r+p, ... */
static void one_round(int t, int round, MPI_Comm comm, const char *path)
{
    int out[PER], in[PER];
    for (int k = 0; k < PER; k++)
        out[k] = value_of(t, round, (long)(k / 8) * 8 * nprocs + 8L * rank + k % 8);
    MPI_Datatype vec, ft;
    MPI_Type_vector(PER / 8, 8, 8 * nprocs, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * PER * nprocs, &ft);
    MPI_Type_commit(&ft);
    MPI_File fh;
    int rc = MPI_File_open(comm, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    check(t, rc == MPI_SUCCESS, "open");
    if (rc == MPI_SUCCESS) {
        rc = MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * 8 * rank, MPI_INT, ft, "native",
                               MPI_INFO_NULL);
        rc = rc ? rc : MPI_File_write_all(fh, out, PER, MPI_INT, MPI_STATUS_IGNORE);
        rc = rc ? rc : MPI_File_read_at_all(fh, 0, in, PER, MPI_INT, MPI_STATUS_IGNORE);
        check(t, rc == MPI_SUCCESS && !memcmp(in, out, sizeof in), "write_all, read back");
        MPI_File_close(&fh);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&ft);
    MPI_Barrier(comm);
    int fd = open(path, O_RDONLY), v;
    for (long k = rank; k < (long)PER * nprocs; k += 7)
        check(t, fd >= 0 && pread(fd, &v, sizeof v, k * 4) == 4 && v == value_of(t, round, k),
              "file contents");
    if (fd >= 0)
        close(fd);
    MPI_Barrier(comm);
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    char path[512];
    snprintf(path, sizeof path, "%s/threads_%d.dat", dir, t);
    for (int round = 0; round < ROUNDS; round++)
        one_round(t, round, comms[t], path);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    dir = argc > 1 ? argv[1] : ".";
    check(0, provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE provided");
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, thread_main, (void *)(long)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&comms[t]);
    long mine[2] = {0, 0}, all[2];
    for (int t = 0; t < THREADS; t++) {
        mine[0] += passed[t];
        mine[1] += failed[t];
    }
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: %ld passed, %ld failed\n", all[0], all[1]);
    MPI_Finalize();
    return rank == 0 && all[1] ? 1 : 0;
}
