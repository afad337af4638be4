/* auto's wisdom file (src/base/wisdom.h, src/exec/learned.h): what one
 * run's trials chose, the next run starts at, on every rank alike.
 *   learn     writes then reads of one shape with auto and tacio_wisdom:
 *             trials on both, and the file holds a choice for each;
 *   rerun     the same job again (the file named by TACIO_WISDOM): the
 *             first call of each runs the remembered choice (stats
 *             learned=1), no trials, every later call on its schedule, and
 *             the file's choices are left as they were (its machine
 *             profiles count the run's calls);
 *   machine   the file's entries moved to another machine's name: not
 *             used (trials run), and kept beside the new ones;
 *   checkpoint  a job that writes and reads its shape once a run: each run
 *             times one candidate more (the model's pick, the default,
 *             the runner-up: the file's left= counts them down, or ends
 *             them when the model's ran far behind), and the run after the
 *             last starts at the fastest;
 *   closed    a shape made three times and the file closed while its
 *             trials wait or go on (the pick and the default timed, the
 *             runner-up not): the file holds it settled (left=0) on what
 *             was timed, and the next run starts there;
 *   broken    garbage, another version's file, a field the format lacks, a
 *             file too long, a FIFO and a directory in its place: each
 *             ignored with one warning on rank 0, trials run, nothing hangs
 *             and the file (or whatever stands there) is left as it was.
 * Data are checked each time against the closed form, read back with POSIX
 * and through the reads. usage: test_wisdom DIR */
#include "mpi_check.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CALLS 7
#define N 4096 /* doubles a rank, in blocks of BLOCK */
#define BLOCK 4

struct seq {
    int64_t trial[2][CALLS], reused[2][CALLS], learned[2][CALLS]; /* [is_write] */
    /* the call planned the model's pick, not the default (a shape's first
     * call plans the default where choosing would not pay, which a real
     * clock decides) */
    bool picked[2][CALLS];
};

static int rank_, nprocs_;
static char wisdom_[600];

/* Rank r's view: blocks of BLOCK doubles, every nprocs-th block from r. */
static MPI_Datatype view_of(void)
{
    MPI_Datatype v, t;
    MPI_Type_vector(N / BLOCK, BLOCK, BLOCK * nprocs_, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)8 * N * nprocs_, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&v);
    return t;
}

static double value_at(int64_t i)
{
    return (double)(i * 7 + 1);
}

/* The file's value at double j of rank's access. */
static int64_t file_index(int64_t j)
{
    return (j / BLOCK * nprocs_ + rank_) * BLOCK + j % BLOCK;
}

static double value_of_slot(int64_t i, const void *arg)
{
    (void)arg;
    return value_at(i);
}

static void check_file(const char *path)
{
    check_that(file_holds_doubles(path, (int64_t)N * nprocs_, value_of_slot, NULL),
               "%s does not hold what the writes wrote", path);
}

/* `calls` writes then `calls` reads of the whole view, with auto and the
 * wisdom file (as the hint, or TACIO_WISDOM when by_env). */
static void run(const char *dir, const char *what, bool by_env, int calls, struct seq *s)
{
    char path[512], hints[800];
    snprintf(path, sizeof path, "%s/wisdom_%s_%d.dat", dir, what, nprocs_);
    snprintf(hints, sizeof hints,
             "cb_buffer_size=1048576,romio_cb_write=enable,"
             "romio_cb_read=enable,tacio_auto_trials=2%s%s",
             by_env ? "" : ",tacio_wisdom=", by_env ? "" : wisdom_);
    if (by_env)
        setenv("TACIO_WISDOM", wisdom_, 1);
    MPI_Info info = make_info("auto", hints);
    MPI_Datatype ft = view_of();
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    rc = rc ? rc
            : tacio_file_set_view(fh, (MPI_Offset)8 * BLOCK * rank_, MPI_DOUBLE, ft, "native",
                                  MPI_INFO_NULL);
    check_that(rc == MPI_SUCCESS, "%s: open and view", what);
    double *buf = malloc(sizeof(double) * N);
    for (int w = 1; w >= 0 && !rc; w--)
        for (int k = 0; k < calls && !rc; k++) {
            for (int64_t j = 0; j < N; j++)
                buf[j] = w ? value_at(file_index(j)) : -1;
            rc = w ? tacio_file_write_at_all(fh, 0, buf, N, MPI_DOUBLE, MPI_STATUS_IGNORE)
                   : tacio_file_read_at_all(fh, 0, buf, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
            check_that(rc == MPI_SUCCESS, "%s: call %d of the %s failed", what, k,
                       w ? "writes" : "reads");
            bool ok = true;
            for (int64_t j = 0; !w && j < N; j++)
                ok = ok && buf[j] == value_at(file_index(j));
            check_that(ok, "%s: read %d did not return what was written", what, k);
            struct tacio_stats st = TACIO_STATS_INIT;
            tacio_file_get_stats(fh, &st);
            s->trial[w][k] = st.trial, s->reused[w][k] = st.reused, s->learned[w][k] = st.learned;
            s->picked[w][k] = strcmp(st.planned, "default") != 0;
        }
    tacio_file_close(&fh);
    unsetenv("TACIO_WISDOM");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0)
        check_file(path);
    struct seq first = *s; /* every rank ran what rank 0 ran */
    MPI_Bcast(&first, sizeof first, MPI_BYTE, 0, MPI_COMM_WORLD);
    int differ = memcmp(&first, s, sizeof first) != 0, any;
    MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    check_that(!any, "%s: the ranks ran different candidates or paths", what);
    free(buf);
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
}

/* Trials ran on both directions: call 1 timed the model's pick (trial 2,
 * on the schedule the first call kept), and call 2 the default (1) or,
 * where the pick plans as the default does, the runner-up (3) or none.
 * Where the first call planned the default (choosing would not pay), call
 * 1 timed the default (1) and call 2 the pick (2), or none. */
static bool ran_trials(const struct seq *s, int w)
{
    if (!s->picked[w][0])
        return s->trial[w][1] == 1 && (s->trial[w][2] == 2 || s->trial[w][2] == 0);
    return s->trial[w][1] == 2 &&
           (s->trial[w][2] == 1 || s->trial[w][2] == 3 || s->trial[w][2] == 0);
}

static void trials_ran(const struct seq *s, const char *what)
{
    for (int w = 0; w < 2; w++)
        check_that(!s->learned[w][0] && ran_trials(s, w),
                   "%s: the %s did not run trials (learned %lld, trials %lld, %lld)", what,
                   w ? "writes" : "reads", (long long)s->learned[w][0], (long long)s->trial[w][1],
                   (long long)s->trial[w][2]);
}

/* ---- the wisdom file, on rank 0 ---- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = f ? calloc(1, 4 << 20) : NULL;
    *len = text ? fread(text, 1, (4 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    return text;
}

static int lines_starting(const char *text, const char *start)
{
    int n = 0;
    for (const char *at = text; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
        n += !strncmp(at, start, strlen(start));
    return n;
}

/* The file's choices (lines of op=...), and its machine profiles. */
static int entries_in(const char *text)
{
    return lines_starting(text, "op=");
}

static int profiles_in(const char *text)
{
    return lines_starting(text, "profile ");
}

/* text without its profile lines (free it): what a run that only uses the
 * file's choices leaves as it was (its calls feed the profiles). */
static char *choices_of(const char *text)
{
    char *out = calloc(1, text ? strlen(text) + 1 : 1), *o = out;
    for (const char *at = text; at && *at;) {
        const char *nl = strchr(at, '\n');
        size_t n = nl ? (size_t)(nl - at) + 1 : strlen(at);
        if (strncmp(at, "profile ", 8))
            memcpy(o, at, n), o += n;
        at += n;
    }
    return out;
}

/* calls= of the file's profile of op (-1: none). */
static long long profile_calls(const char *text, const char *op)
{
    char key[32];
    snprintf(key, sizeof key, "\nprofile op=%s ", op);
    const char *line = text ? strstr(text, key) : NULL;
    const char *c = line ? strstr(line, " calls=") : NULL;
    return c ? atoll(c + 7) : -1;
}

static int count_of(const char *text, const char *word)
{
    int n = 0;
    for (const char *at = text; text && (at = strstr(at, word)); at++)
        n++;
    return n;
}

/* A broken file (or FIFO, or directory) where the wisdom file should be:
 * one warning, trials as without wisdom, and it is left as it was. */
static void broken(const char *dir, const char *what, const char *text, size_t len, int kind)
{
    char log[600];
    snprintf(log, sizeof log, "%s/wisdom_%s.log", dir, what);
    if (rank_ == 0) {
        unlink(wisdom_), rmdir(wisdom_);
        if (kind == S_IFIFO)
            check_that(mkfifo(wisdom_, 0644) == 0, "mkfifo");
        else if (kind == S_IFDIR)
            check_that(mkdir(wisdom_, 0755) == 0, "mkdir");
        else
            check_that(posix_write_file(wisdom_, (const unsigned char *)text, (int64_t)len) == 0,
                       "write %s", wisdom_);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int saved = rank_ == 0 ? stderr_to(log) : -1;
    struct seq s;
    memset(&s, 0, sizeof s);
    run(dir, what, false, CALLS, &s);
    if (rank_ != 0)
        return;
    stderr_back(saved);
    trials_ran(&s, what);
    size_t n;
    char *said = slurp(log, &n);
    check_that(said && count_of(said, "tacio: wisdom file") == 1 && strstr(said, "ignored"),
               "%s: rank 0 said %s", what, said ? said : "(nothing)");
    struct stat st;
    check_that(stat(wisdom_, &st) == 0 &&
                   (st.st_mode & S_IFMT) == (unsigned)(kind ? kind : S_IFREG),
               "%s: the wisdom file's place changed", what);
    char *now = kind ? NULL : slurp(wisdom_, &n);
    check_that(kind || (now && n == len && !memcmp(now, text, len)),
               "%s: the wisdom file was changed", what);
    free(said), free(now);
}

static void broken_files(const char *dir)
{
    static const char garbage[] = "\x7f"
                                  "ELF\x01\x02 not wisdom\n";
    static const char future[] = "tacio-wisdom 99\nop=write whatever=1\n";
    static const char unknown[] = "tacio-wisdom 1\nop=write sig=1 ranks=1 hosts=1 per_host=1 "
                                  "mpi=m fs=f machine=x hints=2 choice=romio:1 left=0 "
                                  "tried=romio:1@1 when=0 colour=blue\n";
    size_t big = (2 << 20) + 1;
    char *huge = malloc(big);
    memset(huge, '#', big);
    broken(dir, "garbage", garbage, sizeof garbage - 1, 0);
    broken(dir, "future", future, sizeof future - 1, 0);
    broken(dir, "unknown", unknown, sizeof unknown - 1, 0);
    broken(dir, "huge", huge, big, 0);
    broken(dir, "fifo", NULL, 0, S_IFIFO);
    broken(dir, "directory", NULL, 0, S_IFDIR);
    free(huge);
    if (rank_ == 0)
        unlink(wisdom_), rmdir(wisdom_);
}

/* Every entry's machine= renamed: the same job elsewhere. */
static void move_machine(void)
{
    size_t n;
    char *text = slurp(wisdom_, &n), *out = calloc(1, 2 * n + 64), *o = out;
    for (const char *at = text; at && *at;) {
        const char *m = strstr(at, "machine=");
        if (!m) {
            o = stpcpy(o, at);
            break;
        }
        memcpy(o, at, (size_t)(m - at));
        o = stpcpy(o + (m - at), "machine=elsewhere");
        at = m + strcspn(m, " \n");
    }
    check_that(posix_write_file(wisdom_, (unsigned char *)out, (int64_t)strlen(out)) == 0,
               "rewrite %s", wisdom_);
    free(text), free(out);
}

/* left= of the file's op line (-1: none), read on rank 0. */
static int left_of(const char *text, const char *op)
{
    char key[16];
    snprintf(key, sizeof key, "\nop=%s ", op); /* an entry's line, not a profile's */
    const char *line = text ? strstr(text, key) : NULL,
               *left = line ? strstr(line, " left=") : NULL;
    return left ? atoi(left + 6) : -1;
}

/* The wisdom file's left= of the read and the write on every rank (rank
 * 0 reads it); the file's text on rank 0 (free it), NULL elsewhere. */
static char *file_left(int left[2])
{
    size_t n;
    char *text = rank_ == 0 ? slurp(wisdom_, &n) : NULL;
    left[0] = left_of(text, "read"), left[1] = left_of(text, "write");
    MPI_Bcast(left, 2, MPI_INT, 0, MPI_COMM_WORLD);
    return text;
}

/* A fresh wisdom file: none on disk, on every rank's return. */
static void wisdom_none(void)
{
    if (rank_ == 0)
        unlink(wisdom_);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* One write and one read a run: trials spread over runs. Run 1 times the
 * model's pick (left=2 of 3), each later run one candidate more until none
 * is left (or the model's ran far behind the default: the rest are not
 * tried), and the run after that starts at the fastest. */
static void checkpoint(const char *dir)
{
    static const char *const ops[2] = {"read", "write"};
    wisdom_none();
    int left[2] = {3, 3}; /* before run 1: all three */
    for (int r = 1; r <= 5; r++) {
        struct seq s;
        memset(&s, 0, sizeof s);
        run(dir, "checkpoint", false, 1, &s);
        int now[2];
        char *text = file_left(now);
        for (int w = 0; w < 2; w++) {
            bool settled = left[w] == 0;
            check_that(s.learned[w][0] == settled && !s.reused[w][0],
                       "checkpoint: run %d's %s: learned %lld with %d left before it", r, ops[w],
                       (long long)s.learned[w][0], left[w]);
            check_that(settled ? now[w] == 0
                               : now[w] >= 0 && now[w] < left[w] && (r > 1 || now[w] == 2),
                       "checkpoint: run %d's %s left %d to time, %d before it: %s", r, ops[w],
                       now[w], left[w], text ? text : "");
            left[w] = now[w];
        }
        free(text);
    }
    check_that(!left[0] && !left[1], "checkpoint: five runs did not settle it");
}

/* Three calls of a shape (the first, the pick, the default), then close:
 * settled in the file, and the next run's first call runs it. */
static void closed_early(const char *dir)
{
    wisdom_none();
    struct seq s;
    memset(&s, 0, sizeof s);
    run(dir, "closed", false, 3, &s);
    int left[2];
    char *text = file_left(left);
    check_that(left[0] == 0 && left[1] == 0, "closed: not settled at close: %s", text ? text : "");
    free(text);
    memset(&s, 0, sizeof s);
    run(dir, "closed", false, 2, &s);
    for (int w = 0; w < 2; w++)
        check_that(s.learned[w][0] == 1 && s.reused[w][1] == 1,
                   "closed: the next run's %s: learned %lld, then reused %lld",
                   w ? "write" : "read", (long long)s.learned[w][0], (long long)s.reused[w][1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs_);
    snprintf(wisdom_, sizeof wisdom_, "%s/wisdom_%d.txt", dir, nprocs_);
    wisdom_none();
    struct seq s;
    memset(&s, 0, sizeof s);
    run(dir, "learn", false, CALLS, &s);
    trials_ran(&s, "learn");
    size_t n = 0;
    char *learned = rank_ == 0 ? slurp(wisdom_, &n) : NULL;
    check_that(rank_ || (learned && !strncmp(learned, "tacio-wisdom 2\n", 15) &&
                         strstr(learned, "\nop=write") && strstr(learned, "\nop=read") &&
                         entries_in(learned) == 2 && profiles_in(learned) == 2 &&
                         profile_calls(learned, "write") > 0 && profile_calls(learned, "read") > 0),
               "learn: the wisdom file holds %s", learned ? learned : "nothing");

    memset(&s, 0, sizeof s);
    run(dir, "rerun", true, CALLS, &s);
    for (int w = 0; w < 2; w++)
        for (int k = 0; k < CALLS; k++)
            check_that(
                s.learned[w][k] == (k == 0) && s.trial[w][k] == 0 && s.reused[w][k] == (k > 0),
                "rerun: %s call %d: learned %lld, trial %lld, reused %lld", w ? "write" : "read", k,
                (long long)s.learned[w][k], (long long)s.trial[w][k], (long long)s.reused[w][k]);
    char *again = rank_ == 0 ? slurp(wisdom_, &n) : NULL;
    char *kept = choices_of(again), *were = choices_of(learned);
    check_that(rank_ || (again && !strcmp(kept, were)), "rerun: the wisdom file's choices changed");
    /* the calls it made fed the profiles, which count them */
    for (int w = 0; w < 2 && rank_ == 0; w++) {
        const char *op = w ? "write" : "read";
        check_that(profile_calls(again, op) > profile_calls(learned, op),
                   "rerun: the %s profile counts %lld calls, the first run's %lld", op,
                   profile_calls(again, op), profile_calls(learned, op));
    }
    free(kept), free(were);

    if (rank_ == 0)
        move_machine();
    MPI_Barrier(MPI_COMM_WORLD);
    memset(&s, 0, sizeof s);
    run(dir, "machine", false, CALLS, &s);
    trials_ran(&s, "machine");
    free(again);
    again = rank_ == 0 ? slurp(wisdom_, &n) : NULL;
    check_that(rank_ || (again && entries_in(again) == 4 && strstr(again, "machine=elsewhere")),
               "machine: the wisdom file holds %s", again ? again : "nothing");
    free(learned), free(again);

    checkpoint(dir);
    closed_early(dir);
    broken_files(dir);
    return finish("test_wisdom");
}
