/* auto's trials on repeated calls (src/exec/trials.c): every rank runs the
 * same candidate on the same call, whatever its own clock says, and the
 * file holds what the calls wrote (POSIX against the closed form).
 *   same    ten writes of one shape with auto: the first call (the model's
 *           pick, not timed), then the pick timed on the schedule the first
 *           call kept, the default and the model's runners-up one call each,
 *           then the kept schedule of the fastest (kept since its trial:
 *           not planned again);
 *   skew    the same while one rank enters every call 20 ms late;
 *   shape   rank 1 changes its access in the middle of the trials: every
 *           rank starts them over on that call;
 *   fault   a write fails inside a trial (TACIO_FAULT): the same error on
 *           every rank, and the next call starts the trials over;
 *   reads   ten reads of the file with the path left automatic: after the
 *           model's candidates, independent I/O is tried too, unless the
 *           default itself went independent; every read returns the data;
 *   dominated  ten writes of a contiguous block a rank, the path left
 *           automatic (the default goes independent), the model told the
 *           links carry 1 kB/s and its aggregators write 10 kB/s (one
 *           rank has no links), the default's call made 100 ms slow
 *           (TACIO_FAULT) so that the pick's trial has been earned at
 *           once (trials.c's budget): the pick, rated far over twice the
 *           default's call, is not tried; its trial call runs the
 *           default's path and every later call the default's kept
 *           schedule.
 * The "same" case runs with TACIO_PRINT_CHOICE=1: rank 0 alone says once
 * what the trials timed, one line a timed candidate, the fastest starred,
 * when they settle or, where the ten calls end first (the budget holding
 * the runners-up back: three ranks here), when the file closes.
 * usage: test_trials DIR */
#include "mpi_check.h"

#include <string.h>
#include <unistd.h>

#define CALLS 10
#define N 8192 /* doubles a rank, every other one of a strided view */

struct seq {
    int64_t trial[CALLS], reused[CALLS], independent[CALLS];
    int rc[CALLS];
};

/* Rank r's view: every p-th double from r (a strided access, which goes
 * through collective buffering). */
static MPI_Datatype view_of(int p)
{
    MPI_Datatype v, t;
    MPI_Type_vector(N, 1, p, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)8 * N * p, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&v);
    return t;
}

/* Every rank's sequence must be rank 0's. */
static void same_everywhere(const struct seq *s, const char *what)
{
    struct seq first = *s;
    MPI_Bcast(&first, sizeof first, MPI_BYTE, 0, MPI_COMM_WORLD);
    int differ = memcmp(&first, s, sizeof first) != 0, any;
    MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check_that(!any, "%s: the ranks ran different candidates or paths", what);
}

/* Double i of the file after call k (*arg) wrote it. */
static double written(int64_t i, const void *arg)
{
    return (double)(i * 3 + *(const int *)arg);
}

static void check_file(const char *path, int p, int calls_ok)
{
    check_that(file_holds_doubles(path, (int64_t)N * p, written, &calls_ok),
               "the file does not hold the last call's data");
}

/* This rank (*rank) and the ranks' count (returned); path: the case's file in dir. */
static int case_file(const char *dir, const char *what, char *path, size_t cap, int *rank)
{
    int p;
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    snprintf(path, cap, "%s/trials_%s_%d.dat", dir, what, p);
    return p;
}

/* Call k's trial, path and whether it reused the kept schedule. */
static void record(tacio_file_t fh, struct seq *s, int k)
{
    struct tacio_stats st = TACIO_STATS_INIT;
    tacio_file_get_stats(fh, &st);
    s->trial[k] = st.trial, s->reused[k] = st.reused, s->independent[k] = st.independent;
}

/* CALLS writes of the same data (value i * 3 + k at double i in call k);
 * late: the rank that enters every call late; shape_at: the call where rank
 * 1 writes one double fewer (-1: never). */
static void run(const char *dir, const char *what, int late, int shape_at, struct seq *s)
{
    int rank;
    char path[512];
    int p = case_file(dir, what, path, sizeof path, &rank);
    MPI_Datatype ft = view_of(p);
    /* collective buffering always; one window a file domain (one pwrite) */
    MPI_Info info =
        make_info("auto", "cb_buffer_size=1048576,romio_cb_write=enable,tacio_auto_trials=3");
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    rc =
        rc ? rc
           : tacio_file_set_view(fh, (MPI_Offset)8 * rank, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    check_that(rc == MPI_SUCCESS, "%s: open and view", what);
    double *buf = malloc(sizeof(double) * N);
    int last_ok = 0;
    for (int k = 0; k < CALLS && !rc; k++) {
        for (int64_t j = 0; j < N; j++)
            buf[j] = (double)((j * p + rank) * 3 + k);
        if (rank == late)
            usleep(20000);
        int count = k == shape_at && rank == 1 ? N - 1 : N;
        int err = tacio_file_write_at_all(fh, 0, buf, count, MPI_DOUBLE, MPI_STATUS_IGNORE);
        MPI_Error_class(err, &s->rc[k]); /* the class: the same on every rank */
        record(fh, s, k);
        if (s->rc[k]) /* a failed call ran nothing to say */
            s->trial[k] = s->reused[k] = s->independent[k] = -1;
        last_ok = s->rc[k] || count < N ? last_ok : k;
    }
    tacio_file_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && shape_at < 0)
        check_file(path, p, last_ok);
    same_everywhere(s, what);
    free(buf);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
}

/* Whether call k times again, on its kept schedule, the trial call k - 1
 * planned (one within CONFIRM_BAND of the fastest: src/exec/trials.c). */
static bool confirms(const struct seq *s, int k)
{
    return k > 0 && s->trial[k] > 0 && s->trial[k] == s->trial[k - 1] && s->reused[k] &&
           !s->reused[k - 1];
}

/* The first call, then from call first + 1 the trials: the model's pick
 * (2) on the first call's schedule where that call was collective (else
 * planned, after the default), the default (1; not where the pick plans as
 * the default does, which unit.test_strategies checks), then the
 * runners-up 3, 4 planned, only while the model's ranking has more (one
 * rank has one candidate), each planned one perhaps confirmed by the next
 * call. A planned trial but the default may wait for the budget (the
 * kept schedule serving meanwhile) and run later, in order; one the rules
 * dropped does not run, nor the default after the runners-up. */
static void trials_from(const struct seq *s, int first, const char *what)
{
    check_that(s->trial[first] == 0, "%s: call %d ran trial %lld, not the model's pick", what,
               first, (long long)s->trial[first]);
    static const int pick_kept[] = {2, 1, 3, 4}, pick_as_default[] = {2, 3, 4, 5},
                     pick_planned[] = {1, 2, 3, 4};
    bool kept = !s->independent[first], as_default = first + 2 < CALLS && s->trial[first + 2] != 1;
    const int *order = !kept ? pick_planned : as_default ? pick_as_default : pick_kept;
    int k = first + 1, n = 0, want = 0;
    for (; k < CALLS && n < 4; k++) {
        if (confirms(s, k))
            continue;
        want = order[n++];
        bool on_kept = kept && want == 2;
        if (s->trial[k] == want && s->reused[k] == on_kept)
            continue;
        /* only the free trials may not wait for the budget: the pick on
         * the first call's kept schedule and the default */
        check_that(want > 2 || (want == 2 && !kept),
                   "%s: call %d ran trial %lld (reused %lld), expected trial %d", what, k,
                   (long long)s->trial[k], (long long)s->reused[k], want);
        break;
    }
    if (n == 4) { /* every one ran: a replan of any may follow */
        for (; k < CALLS; k++)
            check_that(s->trial[k] < 5 || s->trial[k] > 9, "%s: call %d ran trial %lld", what, k,
                       (long long)s->trial[k]);
        return;
    }
    /* after that: the kept schedule, and the trial that waited or the ones
     * after it, in order (one the rules dropped is not run later) */
    for (int last = want - 1; k < CALLS; k++) {
        int64_t t = s->trial[k];
        if (!t || t > 9 || (t == last && s->reused[k])) /* a confirmation */
            continue;
        check_that(t > last && t <= 5, "%s: call %d ran trial %lld after trial %d", what, k,
                   (long long)t, last);
        last = (int)t;
    }
}

/* Each trial runs once (and perhaps its confirmation), and after the last
 * every call reuses the kept schedule: the choice is never planned again,
 * also where a confirmed trial lost (the fastest's schedule was set aside
 * for it; one host: no node aggregation, whose schedules are never kept,
 * among the candidates). */
static void settled_on_kept(const struct seq *s, const char *what)
{
    int last = -1, runs[16] = {0};
    for (int k = 0; k < CALLS; k++)
        if (s->trial[k] > 0 && s->trial[k] < 16 && !confirms(s, k)) {
            last = k;
            check_that(++runs[s->trial[k]] == 1, "%s: call %d ran trial %lld again", what, k,
                       (long long)s->trial[k]);
        }
    check_that(last >= 0 && last < CALLS - 1, "%s: the trials ran to call %d", what, last);
    for (int k = last + 1; k < CALLS; k++)
        check_that(s->reused[k] == 1 && (s->trial[k] == 0 || confirms(s, k)),
                   "%s: call %d after the trials ran trial %lld (reused %lld), not the kept "
                   "schedule",
                   what, k, (long long)s->trial[k], (long long)s->reused[k]);
}

/* What TACIO_PRINT_CHOICE printed on this rank (in path) for the "same"
 * writes (s): on rank 0 one table, once for the shape (settled or not), of as many timed
 * candidates as the calls ran distinct trials, its header's count, and the
 * star on the fastest measured; on every other rank nothing. */
static void check_printed(const char *path, const struct seq *s, int rank)
{
    FILE *in = fopen(path, "r");
    check_that(in != NULL, "print: cannot read %s", path);
    if (!in)
        return;
    char line[1024];
    int headers = 0, said = -1, listed = 0, stars = 0, others = 0;
    double fastest = 1e300, starred = -1;
    while (fgets(line, sizeof line, in)) {
        int n;
        double secs;
        char mark;
        if (strstr(line, "candidates timed") && sscanf(strrchr(line, ':'), ": %d", &n) == 1)
            headers++, said = n;
        else if (sscanf(line, "tacio:   %c %lf s measured", &mark, &secs) == 2) {
            listed++;
            fastest = secs < fastest ? secs : fastest;
            if (mark == '*')
                stars++, starred = secs;
        } else if (strncmp(line, "tacio:     ", 11)) { /* not a note under the table */
            others += !strncmp(line, "tacio:", 6);
            fputs(line, stderr); /* (a failed check's message, the MPI's) shown as it was */
        }
    }
    fclose(in);
    if (rank != 0) {
        check_that(!headers && !listed && !others, "print: rank %d printed a choice", rank);
        return;
    }
    bool ran[16] = {false};
    int trials = 0;
    for (int k = 1; k < CALLS; k++)
        if (s->trial[k] > 0 && s->trial[k] < 16 && !ran[s->trial[k]])
            ran[s->trial[k]] = true, trials++;
    check_that(headers == 1 && said == listed && listed == trials && !others,
               "print: %d tables saying %d candidates, %d listed (%d other lines); the calls "
               "timed %d",
               headers, said, listed, others, trials);
    check_that(stars == 1 && starred == fastest, "print: %d stars, on %g s; the fastest %g s",
               stars, starred, fastest);
}

/* CALLS writes of a contiguous block a rank (rank r's double j is the
 * file's r * N + j, written as in run), the path left automatic, the
 * model's links at 1 kB/s and its aggregators' writes at 10 kB/s. */
static void run_dominated(const char *dir, struct seq *s)
{
    int rank;
    char path[512];
    int p = case_file(dir, "dominated", path, sizeof path, &rank);
    MPI_Info info = make_info("auto", "romio_cb_write=automatic,tacio_auto_trials=3,"
                                      "tacio_bw_link=1e3,tacio_bw_uplink=1e3,"
                                      "tacio_bw_agg_io=1e4");
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    check_that(rc == MPI_SUCCESS, "dominated: open");
    double *buf = malloc(sizeof(double) * N);
    int last_ok = 0;
    for (int k = 0; k < CALLS && !rc; k++) {
        for (int64_t j = 0; j < N; j++)
            buf[j] = (double)(((int64_t)rank * N + j) * 3 + k);
        rc = tacio_file_write_at_all(fh, (MPI_Offset)8 * N * rank, buf, N, MPI_DOUBLE,
                                     MPI_STATUS_IGNORE);
        check_that(rc == MPI_SUCCESS, "dominated: write %d failed", k);
        record(fh, s, k);
        last_ok = rc ? last_ok : k;
    }
    tacio_file_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_file(path, p, last_ok);
    same_everywhere(s, "dominated");
    free(buf);
    MPI_Info_free(&info);
}

/* CALLS reads of what "same" wrote (its last call, k = CALLS - 1). */
static void run_reads(const char *dir, struct seq *s)
{
    int rank;
    char path[512];
    int p = case_file(dir, "same", path, sizeof path, &rank);
    MPI_Datatype ft = view_of(p);
    MPI_Info info =
        make_info("auto", "cb_buffer_size=1048576,romio_cb_read=automatic,tacio_auto_trials=3");
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    rc =
        rc ? rc
           : tacio_file_set_view(fh, (MPI_Offset)8 * rank, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    check_that(rc == MPI_SUCCESS, "reads: open and view");
    double *buf = malloc(sizeof(double) * N);
    for (int k = 0; k < CALLS && !rc; k++) {
        memset(buf, 0, sizeof(double) * N);
        rc = tacio_file_read_at_all(fh, 0, buf, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
        bool ok = rc == MPI_SUCCESS;
        for (int64_t j = 0; ok && j < N; j++)
            ok = buf[j] == (double)((j * p + rank) * 3 + CALLS - 1);
        check_that(ok, "reads: read %d did not return the file's data", k);
        record(fh, s, k);
    }
    tacio_file_close(&fh);
    same_everywhere(s, "reads");
    free(buf);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    struct seq s;
    memset(&s, 0, sizeof s);
    char printed[512];
    snprintf(printed, sizeof printed, "%s/trials_printed_%d_%d.txt", dir, p, rank);
    setenv("TACIO_PRINT_CHOICE", "1", 1);
    int saved = stderr_to(printed);
    run(dir, "same", -1, -1, &s);
    stderr_back(saved);
    unsetenv("TACIO_PRINT_CHOICE");
    check_printed(printed, &s, rank);
    unlink(printed);
    trials_from(&s, 0, "same");
    settled_on_kept(&s, "same");
    memset(&s, 0, sizeof s);
    run(dir, "skew", p - 1, -1, &s);
    trials_from(&s, 0, "skew");
    settled_on_kept(&s, "skew");
    if (p > 1) { /* at call 2 rank 1 writes less: a new shape, trials again from there */
        memset(&s, 0, sizeof s);
        run(dir, "shape", -1, 2, &s);
        check_that(s.trial[1] == 2 && s.reused[1] && s.trial[2] == 0,
                   "shape: calls 1, 2 ran trials %lld (reused %lld), %lld", (long long)s.trial[1],
                   (long long)s.reused[1], (long long)s.trial[2]);
        trials_from(&s, 3, "shape"); /* the old shape again at call 3: a new one to it */
    }
    /* rank 0 aggregates; its one window a call is one pwrite: the second
     * fails, inside the first trial */
    setenv("TACIO_FAULT", "pwrite:0:2", 1);
    memset(&s, 0, sizeof s);
    run(dir, "fault", -1, -1, &s);
    unsetenv("TACIO_FAULT");
    int failed_everywhere = s.rc[1] != MPI_SUCCESS, all;
    MPI_Allreduce(&failed_everywhere, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check_that(all && s.rc[0] == MPI_SUCCESS, "fault: call 1 failed on %s rank",
               all ? "every" : "not every");
    trials_from(&s, 2, "fault"); /* after the failure, from the first call again */
    memset(&s, 0, sizeof s);
    run_reads(dir, &s);
    trials_from(&s, 0, "reads");
    int indep_at = -1; /* AUTO_TRIAL_INDEPENDENT's call */
    for (int k = 0; k < CALLS; k++)
        indep_at = s.trial[k] == 10 && indep_at < 0 ? k : indep_at;
    check_that((indep_at >= 0) == !s.independent[1] && (indep_at < 0 || s.independent[indep_at]),
               "reads: the default went %s, and independent I/O was tried at call %d",
               s.independent[1] ? "independent" : "collective", indep_at);
    memset(&s, 0, sizeof s);
    setenv("TACIO_FAULT", "pwrite:0:2:-100", 1); /* rank 0's one pwrite of call 1 */
    run_dominated(dir, &s);
    unsetenv("TACIO_FAULT");
    check_that(s.trial[1] == 1 && s.trial[2] == 2 && s.independent[1] && s.independent[2],
               "dominated: calls 1, 2 ran trials %lld, %lld (independent %lld, %lld), not the "
               "default and the pick on the default's path",
               (long long)s.trial[1], (long long)s.trial[2], (long long)s.independent[1],
               (long long)s.independent[2]);
    for (int k = 3; k < CALLS; k++)
        check_that(s.trial[k] == 0 && s.reused[k] && s.independent[k],
                   "dominated: call %d ran trial %lld (reused %lld, independent %lld), not the "
                   "default's kept schedule",
                   k, (long long)s.trial[k], (long long)s.reused[k], (long long)s.independent[k]);
    return finish("test_trials");
}
