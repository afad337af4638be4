/* auto's trials on repeated calls (src/exec/trials.c) with a real clock:
 * every rank runs the same candidate on the same call, whatever its own
 * clock says, each call runs what the trials allow (legal_trials), and the
 * file holds what the calls wrote (POSIX against the closed form). Which
 * candidate runs on which call, and which wins, depends on the times the
 * machine gave: unit.test_trials_state checks those decisions on scripted
 * times; this test asserts nothing that a busy machine could change.
 *   same    ten writes of one shape with auto: the first call (the model's
 *           pick), the pick timed on the schedule the first call kept,
 *           then candidates and the kept schedule;
 *   skew    the same while one rank enters every call 20 ms late;
 *   shape   rank 1 changes its access in the middle of the trials: every
 *           rank starts trials for the new shape on that call, and the
 *           old shape's, on the call after (its kept schedule, in its own
 *           slot: tacio_kept_shapes), go on where they were; with one
 *           shape kept (tacio_kept_shapes=1) they start over there too;
 *   fault   a write fails inside a trial (TACIO_FAULT): the same error on
 *           every rank, and the next call starts the trials over;
 *   reads   ten reads of the file with the path left automatic: every read
 *           returns the data; independent I/O, where tried, is tried only
 *           after the default went collective;
 *   dominated  ten writes of a contiguous block a rank, the path left
 *           automatic (the default goes independent), the model told the
 *           links carry 1 kB/s and its aggregators write 10 kB/s (one
 *           rank has no links), the default's call made 100 ms slow
 *           (TACIO_FAULT) so that the pick's trial is earned at once on an
 *           idle machine: the pick, rated far over twice the default's
 *           call, never runs its own collective plan; every call after the
 *           first goes independent.
 * The "same" case runs with TACIO_PRINT_CHOICE=1: rank 0 alone says what
 * the trials timed, one line a timed candidate, the fastest starred, when
 * they settle or, where the ten calls end first, when the file closes.
 * usage: test_trials DIR */
#include "mpi_check.h"

#include <string.h>
#include <unistd.h>

#define CALLS 10
#define TRIALS 3       /* tacio_auto_trials of every case: the model's candidates timed */
#define INDEPENDENT 10 /* the trial of independent I/O (AUTO_TRIAL_INDEPENDENT, plan.h) */
#define N 8192         /* doubles a rank, every other one of a strided view */

struct seq {
    int64_t trial[CALLS], reused[CALLS], independent[CALLS];
    /* the call planned the model's pick, not the default (a shape's first
     * call plans the default where choosing would not pay: the choosing
     * cost is a real clock's, so either may come) */
    bool picked[CALLS];
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
    s->picked[k] = strcmp(st.planned, "default") != 0;
    /* the strategy whose plan served the call, not the hint's auto */
    check_that(!strcmp(st.strategy, "auto") &&
                   (st.independent ? !st.planned[0] : st.planned[0] && strcmp(st.planned, "auto")),
               "call %d: strategy '%s', planned '%s' (independent %lld)", k, st.strategy,
               st.planned, (long long)st.independent);
}

/* CALLS writes of the same data (value i * 3 + k at double i in call k);
 * late: the rank that enters every call late; shape_at: the call where rank
 * 1 writes one double fewer (-1: never); more: hints beyond the case's own
 * (NULL: none). */
static void run(const char *dir, const char *what, int late, int shape_at, const char *more,
                struct seq *s)
{
    int rank;
    char path[512];
    int p = case_file(dir, what, path, sizeof path, &rank);
    MPI_Datatype ft = view_of(p);
    /* collective buffering always; one window a file domain (one pwrite) */
    char hints[200];
    snprintf(hints, sizeof hints,
             "cb_buffer_size=1048576,romio_cb_write=enable,"
             "tacio_auto_trials=3%s%s",
             more ? "," : "", more ? more : "");
    MPI_Info info = make_info("auto", hints);
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
    if (rank == 0)
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

/* Whether call k planned trial 0: a shape's first call (the model's
 * pick), which starts the trials over. */
static bool planned_first(const struct seq *s, int k)
{
    return s->trial[k] == 0 && !s->reused[k];
}

/* Whether call k, after a shape's first call, runs the trial that call
 * leads to: the pick timed on the schedule the first call kept, the one
 * trial that never waits for the budget; or, where the first call planned
 * the default (choosing would not pay), the default's trial, planned. */
static bool follows_first(const struct seq *s, int k)
{
    if (s->picked[k - 1])
        return s->trial[k] == 2 && s->reused[k];
    return s->trial[k] == 1 && !s->reused[k];
}

/* A shape's first call (call k, planned): where it was collective, the
 * next call follows it (follows_first). */
static void starts_trials(const struct seq *s, int k, const char *what)
{
    check_that(planned_first(s, k),
               "%s: call %d ran trial %lld (reused %lld), not the model's pick", what, k,
               (long long)s->trial[k], (long long)s->reused[k]);
    if (k + 1 < CALLS && !s->independent[k])
        check_that(follows_first(s, k + 1),
                   "%s: call %d ran trial %lld (reused %lld) after a first call that planned "
                   "%s",
                   what, k + 1, (long long)s->trial[k + 1], (long long)s->reused[k + 1],
                   s->picked[k] ? "the pick" : "the default");
}

/* Whether call k, a candidate's planned call, may begin a new round of
 * trials: drift (trials.c's watch_drift) starts them over after DRIFT_CALLS
 * (3) slow calls of the kept schedule, and the default, planned, comes
 * next. A budget's wait looks the same and is let through too. */
static bool after_kept_calls(const struct seq *s, int first, int k)
{
    bool kept = k >= first + 4;
    for (int j = k - 3; kept && j < k; j++)
        kept = s->reused[j] && !s->trial[j];
    return kept && !s->reused[k];
}

/* Whether trial t is one of the test's candidates: the default (1), the
 * model's pick and its runners-up (2 to TRIALS + 1) or independent I/O. */
static bool candidate_trial(int64_t t)
{
    return (t >= 1 && t <= TRIALS + 1) || t == INDEPENDENT;
}

/* What holds whatever the real clock favoured: from call first, a shape's
 * first call (starts_trials); every later call runs the kept schedule, a
 * candidate's trial or a confirmation of the trial before, each candidate
 * once a round; the choice the trials settle on, where its schedule was
 * not the one kept, is planned once more, and the kept schedule serves
 * every call after, until drift starts a new round (after_kept_calls).
 * Which candidate runs when, and which wins, is a matter of times: that is
 * unit.test_trials_state's, on scripted times, not this test's. */
static void legal_trials_to(const struct seq *s, int first, int end, const char *what)
{
    starts_trials(s, first, what);
    bool ran[INDEPENDENT + 1] = {false}, replanned = false;
    for (int k = first + 1; k < end; k++) {
        int64_t t = s->trial[k];
        check_that(!planned_first(s, k), "%s: call %d planned the model's pick again", what, k);
        if (t == 0 || confirms(s, k)) /* the kept schedule */
            continue;
        bool candidate = candidate_trial(t);
        if (candidate && after_kept_calls(s, first, k))
            memset(ran, 0, sizeof ran), replanned = false;
        bool again = candidate && ran[t];
        check_that(candidate && !replanned && (!again || !s->reused[k]),
                   "%s: call %d ran trial %lld (reused %lld)%s", what, k, (long long)t,
                   (long long)s->reused[k],
                   !candidate  ? ", no candidate's"
                   : replanned ? " after the settled choice was planned again"
                               : " a second time on a kept schedule");
        replanned = again;
        ran[candidate ? t : 0] = true;
    }
}

static void legal_trials(const struct seq *s, int first, const char *what)
{
    legal_trials_to(s, first, CALLS, what);
}

/* The calls of s but call k, in order: one shape's, where call k was
 * another's. */
static struct seq without_call(const struct seq *s, int k)
{
    struct seq o = *s;
    for (int j = k; j + 1 < CALLS; j++) {
        o.trial[j] = s->trial[j + 1], o.reused[j] = s->reused[j + 1];
        o.independent[j] = s->independent[j + 1], o.picked[j] = s->picked[j + 1];
        o.rc[j] = s->rc[j + 1];
    }
    return o;
}

/* One table TACIO_PRINT_CHOICE printed: its header's count, the lines it
 * listed, its stars, the starred and the fastest time. */
struct table {
    int said, listed, stars;
    double starred, fastest;
};

/* Every table rank 0 printed says as many candidates as it lists and stars
 * the fastest, once. */
static void check_table(const struct table *t)
{
    check_that(t->said == t->listed && t->listed > 0,
               "print: a table saying %d candidates lists %d", t->said, t->listed);
    check_that(t->stars == 1 && t->starred == t->fastest,
               "print: %d stars, on %g s; the fastest %g s", t->stars, t->starred, t->fastest);
}

/* What TACIO_PRINT_CHOICE printed on this rank (in path) for the "same"
 * writes: on rank 0 one table for the shape (settled or, where the calls
 * ended first, at close; one more for each time drift started the trials
 * over), of as many timed candidates as the calls ran distinct trials;
 * on every other rank nothing. */
static void check_printed(const char *path, const struct seq *s, int rank)
{
    FILE *in = fopen(path, "r");
    check_that(in != NULL, "print: cannot read %s", path);
    if (!in)
        return;
    char line[1024];
    int tables = 0, listed = 0, others = 0;
    struct table t = {0};
    while (fgets(line, sizeof line, in)) {
        int n;
        double secs;
        char mark;
        if (strstr(line, "candidates timed") && sscanf(strrchr(line, ':'), ": %d", &n) == 1) {
            if (tables++)
                check_table(&t);
            t = (struct table){.said = n, .starred = -1, .fastest = 1e300};
        } else if (sscanf(line, "tacio:   %c %lf s measured", &mark, &secs) == 2) {
            listed++, t.listed++;
            t.fastest = secs < t.fastest ? secs : t.fastest;
            if (mark == '*')
                t.stars++, t.starred = secs;
        } else if (strncmp(line, "tacio:     ", 11)) { /* not a note under the table */
            others += !strncmp(line, "tacio:", 6);
            fputs(line, stderr); /* (a failed check's message, the MPI's) shown as it was */
        }
    }
    fclose(in);
    if (rank != 0) {
        check_that(!tables && !listed && !others, "print: rank %d printed a choice", rank);
        return;
    }
    if (tables)
        check_table(&t);
    /* each round's table lists the candidates it timed, once each: at
     * least every candidate the calls timed, at most one line a
     * candidate's call (a round that drift cut short has its own table) */
    int distinct = 0, calls = 0, rounds = 1;
    bool ran[INDEPENDENT + 1] = {false};
    for (int k = 1; k < CALLS; k++) {
        int64_t tr = s->trial[k];
        if (!candidate_trial(tr) || confirms(s, k))
            continue;
        calls++;
        rounds += after_kept_calls(s, 0, k);
        distinct += !ran[tr];
        ran[tr] = true;
    }
    check_that(tables >= 1 && tables <= rounds && listed >= distinct && listed <= calls && !others,
               "print: %d tables listing %d candidates (%d other lines); the calls timed %d "
               "distinct in %d calls, %d rounds at most",
               tables, listed, others, distinct, calls, rounds);
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

/* The reads: independent I/O, where tried, went independent, and not
 * after the default's own call went independent (auto then drops it);
 * where the default was not tried at all (it plans as the pick, or the
 * model rates it dominated), independent I/O may follow the others. */
static void independent_tried(const struct seq *s)
{
    int default_at = -1;
    for (int k = 1; k < CALLS; k++) {
        if (s->trial[k] == 1 && !s->reused[k] && default_at < 0)
            default_at = k;
        if (s->trial[k] != INDEPENDENT)
            continue;
        check_that(s->independent[k] && (default_at < 0 || !s->independent[default_at]),
                   "reads: independent I/O tried at call %d (it went %s), after the default's "
                   "call %d (independent %lld)",
                   k, s->independent[k] ? "independent" : "collective", default_at,
                   default_at < 0 ? -1LL : (long long)s->independent[default_at]);
    }
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
    run(dir, "same", -1, -1, NULL, &s);
    stderr_back(saved);
    unsetenv("TACIO_PRINT_CHOICE");
    check_printed(printed, &s, rank);
    unlink(printed);
    legal_trials(&s, 0, "same");
    memset(&s, 0, sizeof s);
    run(dir, "skew", p - 1, -1, NULL, &s);
    legal_trials(&s, 0, "skew");
    if (p > 1) { /* at call 2 rank 1 writes less: a new shape, trials again from there */
        memset(&s, 0, sizeof s);
        run(dir, "shape", -1, 2, NULL, &s);
        check_that(follows_first(&s, 1) && planned_first(&s, 2),
                   "shape: calls 1, 2 ran trials %lld (reused %lld), %lld", (long long)s.trial[1],
                   (long long)s.reused[1], (long long)s.trial[2]);
        struct seq old = without_call(&s, 2); /* the old shape again from call 3 */
        legal_trials_to(&old, 0, CALLS - 1, "shape, the old shape's calls");
        memset(&s, 0, sizeof s);
        run(dir, "shape1", -1, 2, "tacio_kept_shapes=1", &s);
        check_that(follows_first(&s, 1) && planned_first(&s, 2),
                   "shape1: calls 1, 2 ran trials %lld (reused %lld), %lld", (long long)s.trial[1],
                   (long long)s.reused[1], (long long)s.trial[2]);
        legal_trials(&s, 3, "shape1"); /* one shape kept: the old one is new again */
    }
    /* rank 0 aggregates; its one window a call is one pwrite: the second
     * fails, inside the first trial */
    setenv("TACIO_FAULT", "pwrite:0:2", 1);
    memset(&s, 0, sizeof s);
    run(dir, "fault", -1, -1, NULL, &s);
    unsetenv("TACIO_FAULT");
    int failed_everywhere = s.rc[1] != MPI_SUCCESS, all;
    MPI_Allreduce(&failed_everywhere, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check_that(all && s.rc[0] == MPI_SUCCESS, "fault: call 1 failed on %s rank",
               all ? "every" : "not every");
    legal_trials(&s, 2, "fault"); /* after the failure, from the first call again */
    memset(&s, 0, sizeof s);
    run_reads(dir, &s);
    legal_trials(&s, 0, "reads");
    independent_tried(&s);
    memset(&s, 0, sizeof s);
    setenv("TACIO_FAULT", "pwrite:0:2:-100", 1); /* rank 0's one pwrite of call 1 */
    run_dominated(dir, &s);
    unsetenv("TACIO_FAULT");
    legal_trials(&s, 0, "dominated");
    for (int k = 1; k < CALLS; k++) /* the default's trial, the pick's and the kept schedule */
        check_that(s.independent[k], "dominated: call %d ran trial %lld (reused %lld) collective",
                   k, (long long)s.trial[k], (long long)s.reused[k]);
    return finish("test_trials");
}
