/* bench/smpi's program: one pattern written and read back with tacio's C
 * API under SimGrid's SMPI (smpicc), times taken on the simulated clock.
 * The view is an hindexed type built from the pattern's closed form
 * (bench/common/pattern.h): SMPI 3.32 reports subarray and resized types
 * with a wrong envelope, so the applications' own types cannot be used.
 * Checks: every read buffer against the closed form, and the whole file
 * with POSIX reads (each rank a share). Data-free (TACIO_SIM_NODATA=1,
 * bench/smpi --paper, the papers' sizes): the buffer is SMPI's shared
 * memory and no byte moves (src/exec/backend/simgrid.c); then the checks
 * are the extents the ranks' writes covered, which must cover the
 * pattern's bytes exactly once (file_wrong: bytes covered twice, plus bytes
 * of the pattern missed or written outside it). Either way each call's
 * status must report its whole count (buffer_wrong).
 *
 * Prints on rank 0 one line:
 *   pattern=P ranks=N strategy=S naggs=A bytes=B write_s=W read_s=R
 *   write_shuffle_s=X read_shuffle_s=Y write_io_s=Z hop_bytes=H
 *   max_link_load=L steps=K buffer_bytes=M buffer_wrong=0 file_wrong=0
 *   write_st1..write_st5=T read_st1..read_st5=T
 * (the stage times are the slowest rank's; hop-bytes and link loads are the
 * plan's, on the topology the engine placed its hosts on).
 * With CALLS > 1 the write is made CALLS times on the open file, then the
 * read (each read checked), as a time-stepping program repeats them, and
 * the line adds
 *   calls=C write_total_s=W read_total_s=R write_last_s=X read_last_s=Y
 * (the stages and the plan's figures stay the first call's): auto's trials
 * run on those calls, so its total against a fixed strategy's is what
 * its measuring cost and won (bench/smpi run --calls, bench/lab --calls).
 * SMPIBENCH_SHRINK_FROM=K: rank 0's writes from call K on cover the first
 * half of its data only, a shape that moves (tests/smpi/smoke.sh); the
 * file's check still holds, the earlier writes covering the rest.
 * usage: smpibench FILE PATTERN N STRATEGY [CALLS] */
#include "tacio.h"

#include "exec/backend.h"
#ifdef SMPI_SHARED_MALLOC /* smpicc (SimGrid's mpi.h); bench/lab builds it with mpicc */
#include "exec/backend/sim.h"
#define SHARED_ALLOC(n) SMPI_SHARED_MALLOC(n)
#define SHARED_FREE(p) SMPI_SHARED_FREE(p)
#else /* the real machine moves its data: never data-free */
#define SHARED_ALLOC(n) malloc(n)
#define SHARED_FREE(p) free(p)
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pattern.h"

struct pieces {
    int n, cap;
    MPI_Aint *disp;
    int *len; /* in doubles */
};

static int add_piece(int64_t off, int64_t len, void *ctx)
{
    struct pieces *p = ctx;
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->disp = realloc(p->disp, sizeof(MPI_Aint) * (size_t)p->cap);
        p->len = realloc(p->len, sizeof(int) * (size_t)p->cap);
        if (!p->disp || !p->len)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    p->disp[p->n] = (MPI_Aint)off;
    p->len[p->n++] = (int)(len / 8);
    return 0;
}

static MPI_Datatype view_type(const struct pattern *pat)
{
    struct pieces p = {0};
    pieces_of(pat, add_piece, &p);
    MPI_Datatype t;
    MPI_Type_create_hindexed(p.n, p.len, p.disp, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    free(p.disp);
    free(p.len);
    return t;
}

static void check(int rc, const char *what)
{
    if (!rc)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    tacio_error_get_string(rc, msg, &len);
    fprintf(stderr, "smpibench: %s: %s\n", what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One collective, timed on the simulated clock from a common start. *got
 * is the count its status reports. */
static double timed(tacio_file_t fh, double *buf, int64_t count, int write, struct tacio_stats *st,
                    int64_t *got)
{
    MPI_Status status;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (write)
        check(tacio_file_write_at_all(fh, 0, buf, (MPI_Count)count, MPI_DOUBLE, &status),
              "write_at_all");
    else
        check(tacio_file_read_at_all(fh, 0, buf, (MPI_Count)count, MPI_DOUBLE, &status),
              "read_at_all");
    double t = MPI_Wtime() - t0, slowest;
    int n = -1; /* SMPI 3.32 has no MPI_Get_elements_x */
    MPI_Get_count(&status, MPI_DOUBLE, &n);
    *got = n;
    tacio_file_get_stats(fh, st);
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* each stage's slowest rank, as TACIO_STATS reports them */
    double stages[5] = {st->st1_access, st->st2_plan, st->st3_route, st->st4_shuffle, st->st5_io};
    double max[5];
    MPI_Allreduce(stages, max, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    st->st1_access = max[0];
    st->st2_plan = max[1];
    st->st3_route = max[2];
    st->st4_shuffle = max[3];
    st->st5_io = max[4];
    return slowest;
}

#ifdef SMPI_SHARED_MALLOC
static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Data-free: the bytes the ranks' writes covered twice, plus the pattern's
 * bytes they missed or bytes outside it, from every rank's extents
 * (gathered on rank 0; 0 elsewhere). */
static int64_t coverage_wrong(const struct pattern *pat)
{
    const struct sim_extents *w = sim_written(); /* (offset, length) pairs */
    int two_n = 2 * (int)w->n, *counts = NULL, *displs = NULL, total = 0;
    int64_t *all = NULL;
    if (pat->rank == 0) {
        counts = malloc(sizeof(int) * (size_t)pat->np);
        displs = malloc(sizeof(int) * (size_t)pat->np);
    }
    MPI_Gather(&two_n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (pat->rank == 0) {
        for (int r = 0; r < pat->np; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(sizeof(int64_t) * (size_t)(total + 2));
    }
    MPI_Gatherv(w->e, two_n, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int64_t wrong = 0;
    if (pat->rank == 0) { /* sorted by offset: overlaps and the union */
        qsort(all, (size_t)total / 2, 2 * sizeof(int64_t), cmp_i64);
        int64_t end = 0, covered = 0, outside = 0;
        for (int i = 0; i < total; i += 2) {
            int64_t lo = all[i], hi = lo + all[i + 1];
            wrong += end > lo ? (hi < end ? hi : end) - lo : 0; /* written twice */
            covered += hi > end ? hi - (lo > end ? lo : end) : 0;
            outside +=
                hi > pat->file_bytes ? hi - (lo > pat->file_bytes ? lo : pat->file_bytes) : 0;
            end = hi > end ? hi : end;
        }
        int64_t want = tacio_pattern_get_bytes_below(pat->closed, -1, pat->file_bytes);
        wrong += outside + (covered > want ? covered - want : want - covered);
    }
    free(all);
    free(counts);
    free(displs);
    return wrong;
}
#else
static int64_t coverage_wrong(const struct pattern *pat)
{
    (void)pat;
    return 0; /* never called: only a data-free run checks coverage */
}
#endif

/* calls collectives of one direction, each timed (repeat): the first's
 * time, the last's and their total; wrong: the calls whose status was
 * short, plus (reads checked) the slots read wrong. The first call's stats
 * go to repeat's st. */
struct repeated {
    double first, last, total;
    int64_t wrong;
};

static struct repeated repeat(tacio_file_t fh, const struct pattern *pat, double *buf,
                              int64_t count, int write, int calls, bool check_reads,
                              struct tacio_stats *st)
{
    struct repeated r = {0};
    const char *shrink = getenv("SMPIBENCH_SHRINK_FROM");
    int shrink_from = write && shrink && pat->rank == 0 ? atoi(shrink) : calls;
    for (int k = 0; k < calls; k++) {
        struct tacio_stats later = TACIO_STATS_INIT;
        int64_t got, n = k >= shrink_from ? count / 2 : count;
        if (check_reads)
            memset(buf, 0xff, sizeof(double) * (size_t)count);
        double t = timed(fh, buf, n, write, k ? &later : st, &got);
        r.first = k ? r.first : t;
        r.last = t;
        r.total += t;
        r.wrong += got != n;
        if (check_reads) {
            struct walk w = {buf, 0, 0, 1, 1};
            pieces_of(pat, fill_or_check, &w);
            r.wrong += w.wrong;
        }
    }
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct pattern pat;
    int calls = argc == 6 ? atoi(argv[5]) : 1;
    if (argc < 5 || argc > 6 || calls < 1 || pattern_shape(&pat, argv[2], atoll(argv[3]))) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (!rank)
            fprintf(stderr, "usage: smpibench FILE cube|btio(q^2 ranks)|collperf|ior|ior1|struct N "
                            "STRATEGY [CALLS]\n");
        MPI_Finalize();
        return 2;
    }
    const char *path = argv[1], *strategy = argv[4];
    int64_t count = 0;
    pieces_of(&pat, count_piece, &count);
    bool nodata = !backend_moves_data(); /* TACIO_SIM_NODATA: the papers' sizes */
    size_t bytes = sizeof(double) * (size_t)(count + 1);
    double *buf = nodata ? SHARED_ALLOC(bytes) : malloc(bytes);
    MPI_Datatype ft = view_type(&pat);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "tacio_strategy", strategy);
    tacio_file_t fh;
    check(tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh),
          "open");
    check(tacio_file_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL), "set_view");
    /* The view keeps what it needs (the flattened type): SMPI's copies of
     * the pieces (the type and its contents, 24 bytes a piece) go now, not
     * at the end: at BTIO 900's size, 120 million pieces, 2.9 GB. */
    MPI_Type_free(&ft);
    struct walk w = {buf, 0, 0, 1, 0};
    if (!nodata)
        pieces_of(&pat, fill_or_check, &w);
    struct tacio_stats ws = TACIO_STATS_INIT, rs = TACIO_STATS_INIT;
    struct repeated wr = repeat(fh, &pat, buf, count, 1, calls, false, &ws);
    /* data-free: nothing to compare but the counts and the coverage */
    struct repeated rd = repeat(fh, &pat, buf, count, 0, calls, !nodata, &rs);
    check(tacio_file_close(&fh), "close");
    double tw = wr.first, tr = rd.first;
    int64_t wrong[2] = {wr.wrong + rd.wrong,
                        nodata ? coverage_wrong(&pat) : check_file(&pat, path, 1)},
            all[2];
    MPI_Reduce(wrong, all, 2, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (pat.rank == 0)
        printf("pattern=%s ranks=%d strategy=%s naggs=%d bytes=%lld write_s=%.6f read_s=%.6f "
               "write_shuffle_s=%.6f read_shuffle_s=%.6f write_io_s=%.6f hop_bytes=%lld "
               "max_link_load=%lld rounds=%d steps=%d node_aggregated=%d buffer_bytes=%lld "
               "meta_bytes=%lld buffer_wrong=%lld file_wrong=%lld "
               "data=%s",
               pat.name, pat.np, strategy, (int)ws.naggs, (long long)ws.bytes, tw, tr,
               ws.st4_shuffle, rs.st4_shuffle, ws.st5_io, (long long)ws.hop_bytes,
               (long long)ws.max_link_load, (int)ws.rounds, (int)ws.steps, (int)ws.node_aggregated,
               (long long)ws.buffer_bytes, (long long)ws.meta_bytes, (long long)all[0],
               (long long)all[1], nodata ? "coverage" : "full");
    if (pat.rank == 0) /* the same line: each stage's slowest rank */
        printf(" write_st1=%.6f write_st2=%.6f write_st3=%.6f write_st4=%.6f write_st5=%.6f "
               "read_st1=%.6f read_st2=%.6f read_st3=%.6f read_st4=%.6f read_st5=%.6f",
               ws.st1_access, ws.st2_plan, ws.st3_route, ws.st4_shuffle, ws.st5_io, rs.st1_access,
               rs.st2_plan, rs.st3_route, rs.st4_shuffle, rs.st5_io);
    if (pat.rank == 0 && calls > 1)
        printf(" calls=%d write_total_s=%.6f read_total_s=%.6f write_last_s=%.6f read_last_s=%.6f",
               calls, wr.total, rd.total, wr.last, rd.last);
    if (pat.rank == 0)
        printf("\n");
    pattern_release(&pat);
    MPI_Info_free(&info);
    if (nodata)
        SHARED_FREE(buf);
    else
        free(buf);
    MPI_Finalize();
    return 0;
}
