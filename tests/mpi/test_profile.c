/* auto's fitted model remembered across runs (the wisdom file's machine
 * profiles, src/exec/learned.c): two runs of this program, each a new
 * process, as a checkpoint-once program's runs are.
 *   learn   a new wisdom file; one shape written CALLS times with romio
 *           (its plan does not depend on the model): the file then holds a
 *           profile for this machine's writes, which saw every call, and
 *           rank 0 keeps the first call's prediction (the built-in model's:
 *           the process had fitted nothing) beside it;
 *   use     rank 0 sets the profile's multipliers to 1000 (a machine a
 *           thousand times slower than the built-in rates) before the
 *           same job runs again: its first call, before it has measured
 *           anything, is predicted 1000 times the first run's, on every
 *           rank, and the profile then counts this run's calls as well.
 * No clock decides anything checked here: the predictions are the model's
 * arithmetic on one plan. Data are checked against the closed form.
 * usage: test_profile DIR learn|use */
#include "mpi_check.h"

#include <string.h>
#include <unistd.h>

#define CALLS 4
#define N 2048 /* doubles a rank: every p-th double from its rank */

static int rank_, nprocs_;

static MPI_Datatype view_of(void)
{
    MPI_Datatype v, t;
    MPI_Type_vector(N, 1, nprocs_, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)8 * N * nprocs_, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&v);
    return t;
}

/* CALLS writes of the view, the wisdom file named; the first call's
 * predicted_us (the same on every rank, checked). */
static int64_t write_calls(const char *dir, const char *wisdom)
{
    char path[512], hints[800];
    snprintf(path, sizeof path, "%s/profile_%d.dat", dir, nprocs_);
    snprintf(hints, sizeof hints, "romio_cb_write=enable,tacio_wisdom=%s", wisdom);
    MPI_Info info = make_info("romio", hints);
    MPI_Datatype ft = view_of();
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    rc = rc ? rc
            : tacio_file_set_view(fh, (MPI_Offset)8 * rank_, MPI_DOUBLE, ft, "native",
                                  MPI_INFO_NULL);
    check_that(rc == MPI_SUCCESS, "open and view");
    double buf[N];
    int64_t first = -1;
    for (int k = 0; !rc && k < CALLS; k++) {
        for (int j = 0; j < N; j++)
            buf[j] = (double)((int64_t)j * nprocs_ + rank_ + k);
        rc = tacio_file_write_at_all(fh, 0, buf, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
        check_that(rc == MPI_SUCCESS, "write %d failed", k);
        struct tacio_stats st = TACIO_STATS_INIT;
        tacio_file_get_stats(fh, &st);
        check_that(!st.independent && st.predicted_us > 0,
                   "write %d: independent %lld, predicted %lld us", k, (long long)st.independent,
                   (long long)st.predicted_us);
        first = k ? first : st.predicted_us;
    }
    tacio_file_close(&fh);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    int64_t lo = first, hi = first;
    MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    check_that(lo == hi, "the first call's prediction differs between ranks: %lld to %lld",
               (long long)lo, (long long)hi);
    if (rank_ == 0) { /* the data, through POSIX */
        FILE *f = fopen(path, "rb");
        double got[64];
        bool ok = f && fread(got, sizeof *got, 64, f) == 64;
        for (int i = 0; ok && i < 64; i++)
            ok = got[i] == (double)(i + CALLS - 1);
        check_that(ok, "%s does not hold the last write", path);
        if (f)
            fclose(f);
        unlink(path);
    }
    return first;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, 1 << 16);
    if (f && text)
        text[fread(text, 1, (1 << 16) - 1, f)] = '\0';
    if (f)
        fclose(f);
    return text;
}

/* The write profile's line in text, or NULL; *calls its count. */
static const char *write_profile(const char *text, long long *calls)
{
    const char *p = text ? strstr(text, "profile op=write ") : NULL;
    const char *c = p ? strstr(p, " calls=") : NULL;
    *calls = c ? atoll(c + 7) : -1;
    return p;
}

/* The write profile's multipliers set to 1000 (pieces 0). */
static void slow_machine(const char *wisdom)
{
    char *text = slurp(wisdom), *out = calloc(1, 1 << 16);
    const char *p = text ? strstr(text, "profile op=write ") : NULL;
    const char *fit = p ? strstr(p, " fit=") : NULL;
    check_that(fit != NULL, "no write profile to change in %s", wisdom);
    if (fit && out) {
        const char *end = strchr(fit + 1, ' ');
        snprintf(out, 1 << 16, "%.*s fit=1000,1000,1000,1000,1000,0%s", (int)(fit - text), text,
                 end);
        FILE *f = fopen(wisdom, "w");
        check_that(f && fputs(out, f) >= 0, "cannot rewrite %s", wisdom);
        if (f)
            fclose(f);
    }
    free(text);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs_);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    bool learn = argc > 2 && !strcmp(argv[2], "learn");
    char wisdom[512], kept[600];
    snprintf(wisdom, sizeof wisdom, "%s/profile_wisdom_%d.txt", dir, nprocs_);
    snprintf(kept, sizeof kept, "%s.first", wisdom);
    long long calls = -1;
    if (learn) {
        if (rank_ == 0)
            unlink(wisdom);
        MPI_Barrier(MPI_COMM_WORLD);
        int64_t first = write_calls(dir, wisdom);
        if (rank_ == 0) {
            char *text = slurp(wisdom);
            check_that(write_profile(text, &calls) && calls == CALLS,
                       "learn: no profile of %d write calls in %s", CALLS, text ? text : "");
            free(text);
            FILE *f = fopen(kept, "w");
            check_that(f && fprintf(f, "%lld\n", (long long)first) > 0, "cannot write %s", kept);
            if (f)
                fclose(f);
        }
    } else {
        long long before = 0, first = 0;
        if (rank_ == 0) {
            slow_machine(wisdom);
            char *text = slurp(wisdom);
            write_profile(text, &before);
            free(text);
            FILE *f = fopen(kept, "r");
            check_that(f && fscanf(f, "%lld", &first) == 1, "use: run learn first");
            if (f)
                fclose(f);
        }
        MPI_Bcast(&first, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        int64_t now = write_calls(dir, wisdom);
        /* each rounded to a microsecond: 1000 times one is off by 500 */
        check_that(llabs((long long)now - 1000 * first) <= 1000,
                   "use: the first call rated %lld us, not 1000 x the first run's %lld us",
                   (long long)now, first);
        if (rank_ == 0) {
            char *text = slurp(wisdom);
            check_that(write_profile(text, &calls) && calls == before + CALLS,
                       "use: the profile counts %lld calls, not %lld + %d", calls, before, CALLS);
            free(text);
            unlink(wisdom);
            unlink(kept);
        }
    }
    return finish("test_profile");
}
