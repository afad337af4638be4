/* The ranks' access summaries: each rank's status, hints digest and span
 * (or SUMMARY_RUNS byte quantiles), gathered on rank 0, which decides from
 * them between independent I/O and collective buffering and builds the
 * pattern the planning core plans on. */
#include "cplan_wire.h"
#include "profile.h"

/* The summary's first word: this rank failed; it has a run of touching
 * pieces below the file's min_piece (so collective buffering may pay). */
enum { SUM_FAILED = 1, SUM_SMALL = 2 };

/* ---- the summary and the plan ---- */

static int64_t *summary_of(int64_t *all, int words, int r)
{
    return all + (size_t)words * (size_t)r;
}

static int64_t *summary_run(int64_t *rec, int64_t q)
{
    return rec + SUMMARY_HEAD + 3 * q;
}

/* Whether this rank's access has a run of touching pieces shorter than
 * min: the scan stops at the first one, so it costs a few pieces for the
 * fine-grained accesses collective buffering is for, and reads every piece
 * only of accesses made of few large ones. */
struct run_scan {
    int64_t min, end, run;
    bool small;
};

static int scan_run(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct run_scan *s = ctx;
    (void)spos;
    if (s->run && off == s->end) {
        s->run += len;
        s->end += len;
        return 0;
    }
    if (s->run && s->run < s->min) {
        s->small = true;
        return 1; /* stop the walk */
    }
    s->run = len;
    s->end = off + len;
    return 0;
}

static bool has_small_run(const struct call *c, int64_t min)
{
    struct run_scan s = {min, 0, 0, false};
    access_walk(&c->a, scan_run, &s);
    return s.small || (s.run && s.run < min);
}

/* Collective buffering for this call's direction (ROMIO's romio_cb_write /
 * romio_cb_read): OPT_ENABLE, OPT_DISABLE or OPT_AUTOMATIC. */
static int cb_mode(const struct call *c)
{
    return c->is_write ? c->f->hints.cb_write : c->f->hints.cb_read;
}

/* About how many runs an access has: its bytes over those of one extent of
 * its filetype, or one when the tiles join into a single run. */
static int64_t est_pieces(const struct access *a)
{
    const struct flat *ft = a->v.ft;
    bool joined = ft->off[ft->n - 1] + ft->len[ft->n - 1] == ft->extent + ft->off[0];
    if (!a->n || (joined && ft->n == 1))
        return a->n ? 1 : 0;
    return max64(1, a->n / max64(1, ft->size / ft->n));
}

/* This rank's summary record: its access as k runs of equal bytes. The runs
 * are disjoint because the access is monotonic in the file. */
static void summarize(const struct call *c, int local, int k, int64_t *out)
{
    int m = 0;
    const struct access *a = &c->a;
    for (int q = 0; q < k && !local; q++) {
        int64_t lo = a->s0 + a->n * q / k, hi = a->s0 + a->n * (q + 1) / k;
        if (hi <= lo)
            continue;
        int64_t first = view_offset_of(&a->v, lo), last = view_offset_of(&a->v, hi - 1) + 1;
        int64_t *run = summary_run(out, m++);
        run[0] = first, run[1] = last - first, run[2] = hi - lo;
    }
    out[0] = local ? SUM_FAILED : 0;
    if (!local && cb_mode(c) == OPT_AUTOMATIC && has_small_run(c, c->f->min_piece[c->is_write]))
        out[0] |= SUM_SMALL;
    out[1] = (int64_t)c->f->digest;
    out[2] = m;
    out[3] = local ? 0 : est_pieces(&c->a);
    out[4] = c->io.early;
}

void sum_early_bytes(struct call *c, int64_t *all, int words)
{
    c->s->early_bytes = 0;
    for (int r = 0; r < c->f->nprocs; r++)
        c->s->early_bytes += summary_of(all, words, r)[4];
}

struct span_of {
    int64_t lo, hi;
};

static int cmp_span(const void *x, const void *y)
{
    const struct span_of *a = x, *b = y;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Rank 0: whether some rank's access reaches into another's span. */
static int interleaved(const struct call *c, int64_t *all, int words, bool *out)
{
    int p = c->f->nprocs, n = 0;
    struct span_of *sp = malloc(sizeof *sp * (size_t)(p + 1));
    if (!sp)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int r = 0; r < p; r++) {
        int64_t *rec = summary_of(all, words, r), nr = rec[2];
        if (nr > 0) {
            const int64_t *last = summary_run(rec, nr - 1);
            sp[n++] = (struct span_of){summary_run(rec, 0)[0], last[0] + last[1]};
        }
    }
    qsort(sp, (size_t)n, sizeof *sp, cmp_span);
    *out = false;
    for (int i = 1; i < n && !*out; i++)
        *out = sp[i].lo < sp[i - 1].hi;
    free(sp);
    return 0;
}

/* In one page cache, a read may be served by every rank reading its own
 * span whole and taking its pieces from it (reads never write back, so
 * interleaved spans are safe): it copies the spans (A times the bytes read)
 * and does a little per piece, where collective buffering copies every byte
 * about three times (read, send, receive) and does about four times the
 * per-piece work (headers, ordering, placing, unpacking), each piece
 * costing about READ_PIECE_BYTES of copying. So reads sieve while A <= 3 +
 * 3 * READ_PIECE_BYTES / (bytes per piece). Measured (bench/io): the struct
 * pattern's 8- and 16-byte pieces read 2x faster that way at 2, 4 and 8
 * ranks (A up to 11), btio's 1.2 KB rows 20% slower at 9 ranks (A 9). */
#define READ_PIECE_BYTES 64

/* Rank 0: whether a read does better sieving each rank's span. */
static bool read_sieve_pays(int64_t *all, int words, int p)
{
    int64_t spans = 0, bytes = 0, pieces = 0;
    for (int r = 0; r < p; r++) {
        int64_t *rec = summary_of(all, words, r), nr = rec[2];
        if (nr > 0) {
            const int64_t *last = summary_run(rec, nr - 1);
            spans += last[0] + last[1] - summary_run(rec, 0)[0];
        }
        for (int64_t q = 0; q < nr; q++)
            bytes += summary_run(rec, q)[2];
        pieces += rec[3];
    }
    if (!bytes || !pieces)
        return false;
    double amplification = (double)spans / (double)bytes, per_piece = (double)bytes / pieces;
    return amplification <= 3 + 3.0 * READ_PIECE_BYTES / per_piece;
}

/* Rank 0: independent I/O when collective buffering is disabled, or
 * automatic and either no rank has a run short enough for it to pay, or no
 * rank's access reaches into another's span (nothing to gather: ROMIO's
 * rule too), or a read in one page cache whose spans are few times its
 * bytes. A read may sieve its whole span whatever the others do (it never
 * writes back); a write only when no one else's access lies inside. */
int decide_independent(struct call *c, int64_t *all, int words)
{
    static const int forced[] = {[PATH_COLLECTIVE] = OPT_ENABLE, [PATH_INDEPENDENT] = OPT_DISABLE};
    int mode = c->planning.path == PATH_RULE ? cb_mode(c) : forced[c->planning.path];
    bool small = false, mixed = true;
    for (int r = 0; r < c->f->nprocs; r++)
        small |= (summary_of(all, words, r)[0] & SUM_SMALL) != 0;
    int rc = mode == OPT_ENABLE ? 0 : interleaved(c, all, words, &mixed);
    bool read_sieve = !c->is_write && c->f->page_cache && read_sieve_pays(all, words, c->f->nprocs);
    struct sched *s = c->s;
    s->independent =
        !rc && (mode == OPT_DISABLE || (mode == OPT_AUTOMATIC && (!small || !mixed || read_sieve)));
    s->sieve = s->independent && (!mixed || !c->is_write);
    for (int r = 0; s->independent && r < c->f->nprocs; r++) { /* for the stats */
        int64_t *rec = summary_of(all, words, r);
        for (int64_t q = 0; q < rec[2]; q++)
            s->indep_bytes += summary_run(rec, q)[2];
    }
    return rc;
}

/* Rank 0: the summary pattern from the gathered runs. */
int summary_pattern(const struct call *c, int64_t *all, int words, struct tacio_pattern **out)
{
    int p = c->f->nprocs;
    int64_t n = 0;
    for (int r = 0; r < p; r++)
        n += summary_of(all, words, r)[2];
    int64_t *first = malloc(sizeof(int64_t) * (size_t)(p + 1));
    int64_t *arr = malloc(sizeof(int64_t) * (size_t)(3 * n + 1));
    int rc = first && arr ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int r = 0, k = 0; !rc && r < p; r++) {
        first[r] = k;
        int64_t *rec = summary_of(all, words, r);
        for (int q = 0; q < rec[2]; q++, k++) {
            const int64_t *run = summary_run(rec, q);
            arr[k] = run[0], arr[n + k] = run[1], arr[2 * n + k] = run[2];
        }
    }
    if (!rc) {
        first[p] = n;
        rc = pattern_from_summary(p, first, arr, arr + n, arr + 2 * n, out);
    }
    free(first);
    free(arr);
    return rc;
}

/* Every rank's summary of k runs, gathered on rank 0 (returned there;
 * NULL elsewhere, or when rank 0 is out of memory, noted). */
int64_t *gather_summary(struct call *c, int local, int k)
{
    int words = SUMMARY_HEAD + 3 * k;
    int64_t mine[SUMMARY_WORDS];
    summarize(c, local, k, mine);
    bool root = c->f->rank == 0;
    int64_t *all = root ? malloc(sizeof(int64_t) * (size_t)words * (size_t)c->f->nprocs) : NULL;
    if (root && !all)
        note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory for the plan input"));
    static int64_t sink[SUMMARY_WORDS];
    MPI_Gather(mine, words, MPI_INT64_T, all ? all : sink, all ? words : 0, MPI_INT64_T, 0,
               c->f->comm);
    if (all)
        meta_add(c, 8 * (int64_t)words * c->f->nprocs);
    return all;
}

/* Rank 0: every rank's summary is sound and their hints agree. */
int check_summaries(struct call *c, int64_t *all, int words)
{
    for (int r = 1; r < c->f->nprocs; r++) {
        int64_t *rec = summary_of(all, words, r);
        if (rec[0] & SUM_FAILED)
            return c->planning.peer_failed = tacio_fail(TACIO_EIO, "rank %d failed", r);
        if (rec[1] != all[1])
            return tacio_fail(TACIO_EINVAL,
                              "hints differ between rank 0 and rank %d (every rank must pass "
                              "the same cb_*, striping_* and tacio_* values; "
                              "TACIO_PRINT_HINTS=1 shows rank 0's)",
                              r);
    }
    return 0;
}

/* Rank 0, for a strategy that reads the byte distribution only when it
 * pays (auto): asks it whether, on *pat (built from the spans), and if so
 * gathers every rank's quantiles (CMD_SUMMARY), whose pattern replaces
 * *pat. */
int ask_distribution(struct call *c, struct tacio_pattern **pat,
                     const struct wisdom_entry *recalled, const int64_t *all, int words)
{
    const struct tacio_strategy *st = strategy_find(c->f->hints.core.strategy);
    if (!st || !st->wants_distribution)
        return 0;
    struct model_fit fit; /* the rating's copy of the machine's (profile_snapshot) */
    struct plan_ctx ctx = {.pat = *pat,
                           .topo = c->f->topo,
                           .h = &c->f->hints.core,
                           .threads = 1,
                           .trial = c->planning.trial,
                           .recalled = recalled,
                           .nodes_choice = call_nodes_choice(c),
                           .fit = profile_snapshot(call_fit(c), &fit)};
    summary_pieces(all, words, c->f->nprocs, &ctx.max_pieces, &ctx.total_pieces);
    pattern_range(*pat, &ctx.lo, &ctx.hi);
    bool want = false;
    int64_t gather = 8 * (int64_t)SUMMARY_WORDS * c->f->nprocs;
    int rc =
        ctx.lo < ctx.hi ? st->wants_distribution(&ctx, sizeof(struct order), gather, &want) : 0;
    if (rc || !want)
        return rc;
    struct order o = {.cmd = CMD_SUMMARY};
    order_bcast(c, &o, NULL, 4);
    int64_t *quantiles = gather_summary(c, 0, SUMMARY_RUNS);
    if (!quantiles)
        return c->planning.rc;
    tacio_pattern_free(*pat);
    *pat = NULL;
    rc = summary_pattern(c, quantiles, SUMMARY_WORDS, pat);
    free(quantiles);
    return rc;
}

/* ---- the shape's signature ---- */

static uint64_t mix(uint64_t h, int64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8) /* FNV-1a, a byte at a time */
        h = (h ^ (uint64_t)(v & 0xff)) * 1099511628211ull;
    return h;
}

void summary_pieces(const int64_t *all, int words, int p, int64_t *most, int64_t *total)
{
    *most = *total = 0;
    for (int r = 0; r < p; r++) {
        int64_t n = summary_of((int64_t *)all, words, r)[3];
        *most = max64(*most, n);
        *total += n;
    }
}

uint64_t summary_signature(const int64_t *all, int words, int p)
{
    int64_t lo = INT64_MAX;
    for (int r = 0; r < p; r++) {
        int64_t *rec = summary_of((int64_t *)all, words, r);
        for (int64_t q = 0; q < rec[2] && SUMMARY_HEAD + 3 * q < words; q++)
            lo = min64(lo, summary_run(rec, q)[0]);
    }
    uint64_t h = 1469598103934665603ull;
    for (int r = 0; r < p; r++) {
        int64_t *rec = summary_of((int64_t *)all, words, r);
        h = mix(mix(mix(h, rec[0]), rec[2]), rec[3]); /* flags, runs, pieces */
        for (int64_t q = 0; q < rec[2] && SUMMARY_HEAD + 3 * q < words; q++) {
            const int64_t *run = summary_run(rec, q);
            h = mix(mix(mix(h, run[0] - lo), run[1]), run[2]);
        }
    }
    return h;
}
