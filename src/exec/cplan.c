#include "cplan.h"

#include "nodeagg.h"

#include <string.h>

#define ROW_CAP 8    /* row entries that ride in the fixed-size gather */
#define CHUNK_FDS 64 /* FDs per broadcast */

enum {
    CMD_ROWS = 1,
    CMD_ROWS_FULL,
    CMD_SUMMARY, /* the byte quantiles, for a strategy that asked (auto) */
    CMD_DONE,
    CMD_NO_PLAN,
    CMD_FAILED,
    CMD_INDEPENDENT,
    CMD_GATHER /* auto: gather each host's data on its first rank, then plan again */
};

/* The summary's first word: this rank failed; it has a run of touching
 * pieces below the file's min_piece (so collective buffering may pay). */
enum { SUM_FAILED = 1, SUM_SMALL = 2 };

struct plan_head {
    int ordered, mem_shortfall;
    int64_t lap_cost;
    struct metrics m;
    char strategy[32], detail[160];
};

/* A broadcast from rank 0: a command, a partition's (or plan's) shape and
 * its first FDs; FD j as start, end, unit, stride (+ aggregator, senders,
 * memory in a plan: PLAN_WORDS). */
#define PLAN_WORDS 7
struct order {
    int64_t cmd, n, striped, unit;
    struct plan_head head;
    int64_t w[PLAN_WORDS * CHUNK_FDS];
};

int own_row(const struct call *c, const struct partition *part, struct crow *row)
{
    struct tacio_pattern *pat = NULL;
    int rc = pattern_from_views(1, &c->a.v, &c->a.s0, &c->a.n, &pat);
    if (!rc)
        rc = comm_row_build(pat, 0, part, row);
    tacio_pattern_free(pat);
    return rc;
}

/* Keeps this rank's first failure for the agreement that follows. */
static int note_failure(struct call *c, int rc)
{
    if (rc && !c->plan_rc)
        c->plan_rc = rc;
    return rc;
}

/* ---- FDs in chunks ---- */

static void chunk_fill(const struct call *c, struct order *o, const struct partition *part,
                       int64_t j0, int wpf)
{
    for (int64_t j = j0; j < o->n && j < j0 + CHUNK_FDS; j++) {
        const struct fdom *fd = &part->fd[j];
        int64_t *w = o->w + wpf * (j - j0);
        w[0] = fd->start, w[1] = fd->end, w[2] = fd->unit, w[3] = fd->stride;
        if (wpf == PLAN_WORDS)
            w[4] = c->s->plan->agg[j], w[5] = c->s->nsenders[j], w[6] = fd->memory;
    }
}

static void chunk_take(struct call *c, const struct order *o, struct partition *part, int64_t j0,
                       int wpf)
{
    for (int64_t j = j0; j < o->n && j < j0 + CHUNK_FDS; j++) {
        const int64_t *w = o->w + wpf * (j - j0);
        part->fd[j] = (struct fdom){w[0], w[1], w[2], w[3], 0};
        if (wpf == PLAN_WORDS) {
            c->s->plan->agg[j] = (int)w[4], c->s->nsenders[j] = (int)w[5];
            part->fd[j].memory = w[6];
        }
    }
}

/* Rank 0 sends an order (its first chunk filled here); everybody then
 * passes the FDs past the first chunk. A receiver whose part is NULL (it
 * could not allocate) still takes part. */
static void order_bcast(struct call *c, struct order *o, const struct partition *src, int wpf)
{
    if (c->f->rank == 0 && src)
        chunk_fill(c, o, src, 0, wpf);
    MPI_Bcast(o, sizeof *o, MPI_BYTE, 0, c->f->comm);
}

static void chunks_bcast(struct call *c, struct order *o, struct partition *part, int wpf)
{
    bool root = c->f->rank == 0;
    for (int64_t j0 = 0; j0 < o->n; j0 += CHUNK_FDS) {
        if (j0 > 0) {
            if (root)
                chunk_fill(c, o, part, j0, wpf);
            MPI_Bcast(o->w, (int)(wpf * min64(CHUNK_FDS, o->n - j0)), MPI_INT64_T, 0, c->f->comm);
        }
        if (!root && part)
            chunk_take(c, o, part, j0, wpf);
    }
}

/* ---- rows of C, on request ---- */

#define ROW_WORDS (2 + 2 * ROW_CAP)

/* Rank 0: C from the fixed-size gather (every row fits). */
static int rows_from_fixed(struct call *c, const int64_t *all, int nfd, struct comm *out)
{
    int p = c->f->nprocs;
    int64_t nnz = 0;
    for (int r = 0; r < p; r++)
        nnz += all[ROW_WORDS * r + 1];
    int64_t *row_ptr = malloc(sizeof(int64_t) * (size_t)(p + 1));
    int64_t *val = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
    int *col = malloc(sizeof(int) * (size_t)(nnz + 1));
    if (!row_ptr || !val || !col) {
        free(row_ptr), free(val), free(col);
        return tacio_fail(TACIO_ENOMEM, "out of memory building C");
    }
    for (int r = 0, k = 0; r < p; r++) {
        row_ptr[r] = k;
        for (int64_t q = 0; q < all[ROW_WORDS * r + 1]; q++, k++) {
            col[k] = (int)all[ROW_WORDS * r + 2 + 2 * q];
            val[k] = all[ROW_WORDS * r + 3 + 2 * q];
        }
    }
    row_ptr[p] = nnz;
    meta_add(c, nnz * 24 + 16 * (int64_t)(p + nfd));
    return comm_from_rows(p, nfd, row_ptr, col, val, out);
}

/* Every rank's entries (col, val) onto rank 0, where counts[r] (NULL on
 * the others) says how many rank r sends; the rank's entries land at
 * displs[r] in *all_col and *all_val. Rank 0 first says whether it could
 * make room, so that no rank sends what rank 0 cannot take. */
static int gather_entries(struct call *c, int n, const int *col, const int64_t *val,
                          const int *counts, int *displs, int **all_col, int64_t **all_val)
{
    int p = c->f->nprocs, ok = 1;
    bool root = c->f->rank == 0;
    if (root) {
        int64_t total = 0;
        for (int r = 0; r < p; r++) {
            displs[r] = (int)min64(total, INT32_MAX);
            total += counts[r];
        }
        *all_col = total < INT32_MAX ? malloc(sizeof(int) * (size_t)(total + 1)) : NULL;
        *all_val = total < INT32_MAX ? malloc(sizeof(int64_t) * (size_t)(total + 1)) : NULL;
        ok = *all_col && *all_val;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, c->f->comm);
    if (ok) {
        MPI_Gatherv(col, n, MPI_INT, root ? *all_col : NULL, counts, displs, MPI_INT, 0,
                    c->f->comm);
        MPI_Gatherv(val, n, MPI_INT64_T, root ? *all_val : NULL, counts, displs, MPI_INT64_T, 0,
                    c->f->comm);
    } else if (root) {
        free(*all_col), free(*all_val);
        *all_col = NULL, *all_val = NULL;
    }
    return ok ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory gathering C");
}

/* Every rank: its whole row, gathered on rank 0 (some rows were long),
 * which brings counts and displs (p each; NULL on the others). */
static int rows_full(struct call *c, int nfd, int *counts, int *displs, struct comm *out)
{
    int p = c->f->nprocs, root = c->f->rank == 0, n = (int)c->row.nnz, *col = NULL;
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, c->f->comm);
    int64_t *val = NULL, *row_ptr = NULL;
    int rc = gather_entries(c, n, c->row.col, c->row.val, counts, displs, &col, &val);
    if (root && !rc) {
        row_ptr = malloc(sizeof(int64_t) * (size_t)(p + 1));
        rc = row_ptr ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
        for (int r = 0; !rc && r <= p; r++)
            row_ptr[r] = r < p ? displs[r] : (int64_t)displs[p - 1] + counts[p - 1];
    }
    if (root && !rc) {
        meta_add(c, row_ptr[p] * 24 + 16 * (int64_t)(p + nfd));
        rc = comm_from_rows(p, nfd, row_ptr, col, val, out);
        row_ptr = NULL, col = NULL, val = NULL;
    }
    free(col), free(val), free(row_ptr);
    return rc;
}

/* Every rank: its row of C for part (NULL: it could not receive it),
 * gathered on rank 0 into *out. */
static int gather_rows(struct call *c, const struct partition *part, struct comm *out)
{
    crow_free(&c->row);
    int local = part ? own_row(c, part, &c->row) : c->plan_rc;
    note_failure(c, local);
    int64_t mine[ROW_WORDS] = {local != 0, local ? 0 : min64(c->row.nnz, ROW_CAP + 1)};
    for (int64_t k = 0; !local && k < c->row.nnz && k < ROW_CAP; k++)
        mine[2 + 2 * k] = c->row.col[k], mine[3 + 2 * k] = c->row.val[k];
    bool root = c->f->rank == 0;
    int64_t *all = root ? malloc(sizeof(int64_t) * ROW_WORDS * (size_t)c->f->nprocs) : NULL;
    int rc = !root || all ? 0 : note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    static int64_t sink[ROW_WORDS]; /* a root that failed still takes part */
    if (root && !all)
        MPI_Gather(mine, ROW_WORDS, MPI_INT64_T, sink, 0, MPI_INT64_T, 0, c->f->comm);
    else
        MPI_Gather(mine, ROW_WORDS, MPI_INT64_T, all, ROW_WORDS, MPI_INT64_T, 0, c->f->comm);
    if (!root || rc) {
        free(all);
        return rc ? rc : local;
    }
    bool long_rows = false;
    rc = local;
    for (int r = 1; r < c->f->nprocs && !rc; r++) { /* rank 0 knows its own */
        if (all[ROW_WORDS * r])
            rc = c->peer_failed = tacio_fail(TACIO_EIO, "rank %d failed", r);
        long_rows |= all[ROW_WORDS * r + 1] > ROW_CAP;
    }
    int *counts = NULL, *displs = NULL; /* made before the others are asked */
    if (!rc && long_rows) {
        counts = malloc(sizeof(int) * (size_t)c->f->nprocs);
        displs = malloc(sizeof(int) * (size_t)c->f->nprocs);
        rc = counts && displs ? 0 : note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    }
    if (!rc && long_rows) {
        struct order o = {.cmd = CMD_ROWS_FULL};
        order_bcast(c, &o, NULL, 4);
        rc = note_failure(c, rows_full(c, part->n, counts, displs, out));
    } else if (!rc)
        rc = note_failure(c, rows_from_fixed(c, all, part->n, out));
    free(all), free(counts), free(displs);
    return rc;
}

/* Rank 0's comm_of: ask every rank for its row. */
static int rows_from_ranks(const struct plan_ctx *ctx, const struct partition *part,
                           struct comm *out)
{
    struct call *c = ctx->comm_arg;
    struct order o = {.cmd = CMD_ROWS, .n = part->n, .striped = part->striped, .unit = part->unit};
    order_bcast(c, &o, part, 4);
    chunks_bcast(c, &o, (struct partition *)part, 4);
    return gather_rows(c, part, out);
}

static int64_t *gather_summary(struct call *c, int local, int k);

/* The other ranks: answer rank 0's requests until it sends anything else. */
static void serve_rows(struct call *c, struct order *o)
{
    for (;;) {
        order_bcast(c, o, NULL, 4);
        if (o->cmd == CMD_ROWS_FULL) {
            rows_full(c, 0, NULL, NULL, NULL);
            continue;
        }
        if (o->cmd == CMD_SUMMARY) {
            gather_summary(c, c->plan_rc, SUMMARY_RUNS);
            continue;
        }
        if (o->cmd != CMD_ROWS)
            return;
        struct partition part = {0};
        int rc = note_failure(c, partition_alloc(&part, (int)o->n));
        part.striped = o->striped;
        part.unit = o->unit;
        chunks_bcast(c, o, rc ? NULL : &part, 4);
        gather_rows(c, rc ? NULL : &part, NULL);
        partition_free(&part);
    }
}

/* ---- the summary and the plan ---- */

/* A rank's summary record: [flags, hints digest, nruns, pieces, then per
 * run (off, len, bytes)]; records are `words` long in the gathered array.
 * The digest is how ranks agree on their hints: a set_view's info changes
 * them without a collective of its own. pieces: about how many runs the
 * access has (from its filetype, not a walk). */
#define SUMMARY_HEAD 4
#define SUMMARY_WORDS (SUMMARY_HEAD + 3 * SUMMARY_RUNS)

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
static int decide_independent(struct call *c, int64_t *all, int words)
{
    int mode = cb_mode(c);
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
static int summary_pattern(const struct call *c, int64_t *all, int words,
                           struct tacio_pattern **out)
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
static int64_t *gather_summary(struct call *c, int local, int k)
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
static int check_summaries(struct call *c, int64_t *all, int words)
{
    for (int r = 1; r < c->f->nprocs; r++) {
        int64_t *rec = summary_of(all, words, r);
        if (rec[0] & SUM_FAILED)
            return c->peer_failed = tacio_fail(TACIO_EIO, "rank %d failed", r);
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
static int ask_distribution(struct call *c, struct tacio_pattern **pat)
{
    const struct tacio_strategy *st = strategy_find(c->f->hints.core.strategy);
    if (!st || !st->wants_distribution)
        return 0;
    struct plan_ctx ctx = {*pat, c->f->topo, &c->f->hints.core, 0, 0, NULL, NULL, 1, false};
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
        return c->plan_rc;
    tacio_pattern_free(*pat);
    *pat = NULL;
    rc = summary_pattern(c, quantiles, SUMMARY_WORDS, pat);
    free(quantiles);
    return rc;
}

static int plan_on_root(struct call *c, int64_t *all, int words)
{
    struct tacio_file *f = c->f;
    int rc = c->plan_rc ? c->plan_rc : check_summaries(c, all, words);
    if (!rc)
        rc = decide_independent(c, all, words);
    if (rc || c->s->independent)
        return note_failure(c, rc);
    struct tacio_pattern *pat = NULL;
    rc = note_failure(c, summary_pattern(c, all, words, &pat));
    if (!rc)
        rc = note_failure(c, ask_distribution(c, &pat));
    bool may_gather = !c->hosts_gathered && nodeagg_left_to_plan(f);
    struct plan_ctx ctx = {pat, f->topo, &f->hints.core, 0, 0, rows_from_ranks, c, 1, may_gather};
    if (!rc)
        pattern_range(pat, &ctx.lo, &ctx.hi);
    if (!rc && ctx.lo < ctx.hi)
        rc = plan_run(&ctx, strategy_find(f->hints.core.strategy), &c->s->plan);
    struct tacio_plan *plan = c->s->plan;
    if (!rc && plan && plan->gather_hosts) { /* planned again once the hosts gathered */
        tacio_plan_free(plan);
        plan = c->s->plan = NULL;
        c->gather_hosts = true;
    }
    if (!rc && plan) {
        c->s->nsenders = malloc(sizeof(int) * (size_t)(plan->part.n + 1));
        rc = c->s->nsenders ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
        for (int j = 0; !rc && j < plan->part.n; j++)
            c->s->nsenders[j] = (int)(plan->comm.col_ptr[j + 1] - plan->comm.col_ptr[j]);
    }
    tacio_pattern_free(pat);
    return note_failure(c, rc);
}

static void head_of(const struct tacio_plan *p, struct plan_head *h)
{
    h->ordered = p->order_rule != ORDER_RANKS;
    h->mem_shortfall = p->mem_shortfall;
    h->lap_cost = p->lap_cost;
    h->m = p->m;
    memcpy(h->strategy, p->strategy, sizeof h->strategy);
    memcpy(h->detail, p->detail, sizeof h->detail);
}

/* A rank other than 0: the plan from rank 0's CMD_DONE. */
static int plan_from_head(struct call *c, const struct order *o)
{
    const struct plan_head *h = &o->head;
    struct tacio_plan *p = xcalloc(1, sizeof *p);
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    c->s->plan = p;
    p->nprocs = c->f->nprocs;
    p->m = h->m;
    p->lap_cost = h->lap_cost;
    p->mem_shortfall = h->mem_shortfall;
    memcpy(p->strategy, h->strategy, sizeof p->strategy);
    memcpy(p->detail, h->detail, sizeof p->detail);
    int rc = partition_alloc(&p->part, (int)o->n);
    p->part.striped = o->striped;
    p->part.unit = o->unit;
    p->agg = malloc(sizeof(int) * (size_t)(o->n + 1));
    c->s->nsenders = malloc(sizeof(int) * (size_t)(o->n + 1));
    return rc ? rc : p->agg && c->s->nsenders ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
}

static int outcome_cmd(const struct call *c, int rc)
{
    if (rc)
        return CMD_FAILED;
    if (c->s->independent)
        return CMD_INDEPENDENT;
    if (c->s->plan)
        return CMD_DONE;
    return c->gather_hosts ? CMD_GATHER : CMD_NO_PLAN;
}

/* Rank 0: the outcome, to everybody; returns its command. */
static int send_outcome(struct call *c, int rc)
{
    struct order o;
    struct sched *s = c->s;
    memset(&o, 0, sizeof o); /* padding travels too */
    o.cmd = outcome_cmd(c, rc);
    if (o.cmd == CMD_INDEPENDENT)
        o.n = s->indep_bytes, o.striped = s->sieve;
    if (o.cmd == CMD_DONE) {
        o.n = s->plan->part.n;
        o.striped = s->plan->part.striped;
        o.unit = s->plan->part.unit;
        head_of(s->plan, &o.head);
        s->ordered = o.head.ordered;
    }
    order_bcast(c, &o, s->plan ? &s->plan->part : NULL, PLAN_WORDS);
    if (o.cmd == CMD_DONE)
        chunks_bcast(c, &o, &s->plan->part, PLAN_WORDS);
    return (int)o.cmd;
}

/* The others: rank 0's outcome. */
static int take_outcome(struct call *c, struct order *o)
{
    struct sched *s = c->s;
    if (o->cmd == CMD_INDEPENDENT)
        s->indep_bytes = o->n, s->sieve = o->striped;
    if (o->cmd != CMD_DONE)
        return (int)o->cmd;
    int rc = note_failure(c, plan_from_head(c, o));
    s->ordered = o->head.ordered;
    chunks_bcast(c, o, rc ? NULL : &s->plan->part, PLAN_WORDS);
    if (rc) { /* no plan to run on: the links' agreement fails the call */
        tacio_plan_free(s->plan);
        s->plan = NULL;
    }
    meta_add(c, 8 * PLAN_WORDS * o->n + (int64_t)sizeof *o);
    return CMD_DONE;
}

/* Each aggregator learns its FD (my_fd) and which ranks feed it: its column
 * of C, which only rank 0 holds. One scatter; O(nnz(C)) in all. */
static void scatter_senders(struct call *c)
{
    struct sched *s = c->s;
    int p = c->f->nprocs, mine = 0, *counts = NULL, *displs = NULL, *rows = NULL;
    for (int j = 0; s->plan && j < s->plan->part.n; j++)
        if (s->plan->agg[j] == c->f->rank)
            s->my_fd = j, mine = s->nsenders[j];
    s->senders = malloc(sizeof(int) * (size_t)(mine + 1));
    if (!s->senders) /* the links then agree on failing before anyone sends */
        mine = 0, note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    if (c->f->rank == 0) {
        const struct comm *C = &s->plan->comm;
        counts = xcalloc((size_t)p, sizeof(int));
        displs = xcalloc((size_t)p, sizeof(int));
        rows = malloc(sizeof(int) * (size_t)(C->nnz + 1));
        for (int j = 0; counts && j < s->plan->part.n; j++)
            counts[s->plan->agg[j]] = s->nsenders[j];
        for (int a = 1; displs && counts && a < p; a++)
            displs[a] = displs[a - 1] + counts[a - 1];
        for (int j = 0; counts && displs && rows && j < s->plan->part.n; j++)
            memcpy(rows + displs[s->plan->agg[j]], C->row + C->col_ptr[j],
                   sizeof(int) * (size_t)s->nsenders[j]);
        if (!counts || !displs || !rows) /* nothing to send: the receivers' counts fail */
            note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    }
    static int none;
    MPI_Scatterv(rows, counts, displs, MPI_INT, s->senders ? s->senders : &none, mine, MPI_INT, 0,
                 c->f->comm);
    s->nfeeding = mine;
    meta_add(c, 4 * (int64_t)mine);
    free(counts), free(displs), free(rows);
}

int plan_call(struct call *c, int local)
{
    const struct tacio_strategy *st = strategy_find(c->f->hints.core.strategy);
    int k = st && st->reads_distribution ? SUMMARY_RUNS : 1, words = SUMMARY_HEAD + 3 * k;
    note_failure(c, local);
    int64_t *all = gather_summary(c, local, k);
    bool root = c->f->rank == 0;
    int cmd;
    if (root) {
        int rc = all ? plan_on_root(c, all, words) : c->plan_rc;
        cmd = send_outcome(c, rc);
    } else {
        struct order o;
        serve_rows(c, &o);
        cmd = take_outcome(c, &o);
    }
    free(all);
    crow_free(&c->row);
    c->s->independent = cmd == CMD_INDEPENDENT;
    if (cmd == CMD_DONE)
        scatter_senders(c);
    if (cmd == CMD_FAILED) /* whoever failed first says why */
        return agree(c->f->comm, c->peer_failed ? 0 : c->plan_rc);
    if (cmd == CMD_GATHER)
        return PLAN_GATHER_HOSTS;
    return cmd == CMD_DONE ? PLAN_ROUNDS : c->s->independent ? PLAN_INDEPENDENT : PLAN_NOTHING;
}
