/* tacio-roundfloor: the bytes each tree link carries in each round of a
 * plan, as the MPI engine runs it (bench/smpi --certify's round floor).
 *
 *   tacio-roundfloor PATTERN PROCS TOPOLOGY PLACEMENT [KEY=VALUE...]
 *
 * The engine ends every round with an agreement no rank leaves before all
 * have entered (src/exec/rounds.c, round_agree), and a rank enters it only
 * when its round's transfers are done: one round's messages never overlap
 * the next's. So a direction takes at least the sum over rounds of each
 * round's busiest link, a floor tighter than the busiest link of the whole
 * exchange. The rounds are the engine's: round r of FD j is its window r
 * (fdom_round_window: the FD's memory, halved when rounds are pipelined,
 * which the engine does when an FD needs more than one).
 *
 * A round carries headers besides data: each rank sends each aggregator it
 * feeds its pieces' (offset, length) pairs, 16 bytes a piece (rounds.c,
 * header_sends), a piece being a maximal run of its data in the window
 * (access_pieces merges touching ones). The write, the file's first call,
 * sends every header; a later call of the same shape (the read) only those
 * of links with more than HDR_CACHE_PIECES pieces, the others being kept.
 *
 * Prints one JSON object: {"rounds": R, "pipelined": 0|1, "pieces": P,
 * "links": [name, ...], "up": [[per link] per round], "down": [...],
 * "hdr_up", "hdr_down" (the write's headers), "read_hdr_up",
 * "read_hdr_down" (the read's)}, "up" being the bytes from the vertex to
 * its parent in a write (a read's data cross the other way, its headers
 * the same way), P the pieces of every rank in every window. It checks that
 * the rounds' data add up to the plan's own link loads, and fails
 * otherwise. */
#include "exec/sched.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const char *msg)
{
    fprintf(stderr, "tacio-roundfloor: %s%s%s\n", msg, *tacio_last_error() ? ": " : "",
            tacio_last_error());
    return 2;
}

/* A piece of the file that lies in one window: FD fd's round round. */
struct piece {
    int64_t lo, hi;
    int fd;
    int64_t round;
};

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Every window's ranges, tagged; *rounds: the most any FD takes. Rounds
 * are pipelined as tacio_pipeline's automatic mode pipelines them
 * (rounds_count): when some FD needs more than one window. */
static struct piece *windows(const struct partition *part, int64_t cb, int64_t *n, int64_t *rounds,
                             bool *pipelined)
{
    *pipelined = partition_rounds(part, cb, false) > 1;
    *rounds = partition_rounds(part, cb, *pipelined);
    int64_t cap = 1024, count = 0;
    struct piece *v = malloc(sizeof *v * (size_t)cap);
    for (int j = 0; v && j < part->n; j++) {
        const struct fdom *fd = &part->fd[j];
        int64_t size = fdom_round_window(fd, cb, *pipelined), nr = fdom_rounds(fd, cb, *pipelined);
        for (int64_t r = 0; v && r < nr; r++) {
            struct fdom_ranges w;
            fdom_window(fd, r * size, (r + 1) * size, &w);
            for (int k = 0; v && k < w.n; k++) {
                if (count == cap) {
                    struct piece *grown = realloc(v, sizeof *v * (size_t)(cap *= 2));
                    if (!grown)
                        free(v);
                    v = grown;
                }
                if (v)
                    v[count++] = (struct piece){w.lo[k], w.hi[k], j, r};
            }
        }
    }
    *n = count;
    return v;
}

/* A contiguous partition whose FDs are the pieces, with the gaps between
 * them as FDs of their own (tagged fd -1): pieces[] is sorted and rewritten
 * to the partition's order. */
static int piece_partition(struct piece **pieces, int64_t *n, struct partition *out)
{
    struct piece *v = *pieces;
    qsort(v, (size_t)*n, sizeof *v, cmp_piece);
    struct piece *all = malloc(sizeof *all * (size_t)(2 * *n + 1));
    if (!all)
        return -1;
    int64_t m = 0;
    for (int64_t i = 0; i < *n; i++) {
        if (m && all[m - 1].hi < v[i].lo) {
            int64_t gap = all[m - 1].hi;
            all[m++] = (struct piece){gap, v[i].lo, -1, 0};
        }
        if (m && all[m - 1].hi > v[i].lo) {
            free(all);
            return -1; /* windows overlap: not the engine's */
        }
        all[m++] = v[i];
    }
    if (m > 2147483647 || partition_alloc(out, (int)m)) {
        free(all);
        return -1;
    }
    for (int64_t i = 0; i < m; i++)
        out->fd[i] = (struct fdom){.start = all[i].lo, .end = all[i].hi};
    free(v);
    *pieces = all;
    *n = m;
    return 0;
}

/* Adds bytes from host hs to host hd to round r's loads, link by link. */
static void route(const struct tacio_topo *t, int hs, int hd, int64_t bytes, int64_t *up,
                  int64_t *down)
{
    int a = t->host_vert[hs], b = t->host_vert[hd];
    while (a != b) {
        if (t->depth[a] >= t->depth[b]) {
            up[a] += bytes;
            a = t->parent[a];
        } else {
            down[b] += bytes;
            b = t->parent[b];
        }
    }
}

/* Each round's bytes on each tree vertex's link, both ways: round r's
 * vertex v at [r * nverts + v]. */
enum { DATA, HDR, READ_HDR, NLOADS };
static const char *const load_names[NLOADS][2] = {
    {"up", "down"}, {"hdr_up", "hdr_down"}, {"read_hdr_up", "read_hdr_down"}};

struct job {
    const struct tacio_topo *t;
    const struct tacio_plan *plan;
    const struct piece *w; /* the windows' partition, gaps tagged fd -1 */
    int64_t nw, rounds;
    bool pipelined;
    int64_t *up[NLOADS], *down[NLOADS];
    int64_t pieces; /* every rank's in every window */
};

/* Adds bytes from rank to the aggregator of window range k, in its round. */
static void route_to(struct job *f, int which, int rank, int64_t k, int64_t bytes)
{
    const struct tacio_topo *t = f->t;
    int hs = t->rank_host[rank], hd = t->rank_host[f->plan->agg[f->w[k].fd]];
    int64_t at = f->w[k].round * t->nverts;
    if (hs != hd)
        route(t, hs, hd, bytes, f->up[which] + at, f->down[which] + at);
}

/* One rank's walk over its extents: the maximal run being merged, a cursor
 * into the windows, and its pieces per window range (those it touched). */
struct rank_walk {
    struct job *f;
    int64_t lo, hi, at;
    int64_t *cnt, *touched, ntouched;
    bool unordered;
};

/* The run [lo, hi) is one piece in each stretch of a window it covers:
 * ranges of one window that touch are one stretch (piece_push merges
 * across them); ranges apart, with another window's between, are not. */
static void count_run(struct rank_walk *rw)
{
    const struct piece *w = rw->f->w;
    while (rw->at < rw->f->nw && w[rw->at].hi <= rw->lo)
        rw->at++;
    for (int64_t k = rw->at; k < rw->f->nw && w[k].lo < rw->hi; k++) {
        bool same = k > rw->at && w[k - 1].fd == w[k].fd && w[k - 1].round == w[k].round;
        if (w[k].fd < 0 || same)
            continue;
        if (rw->cnt[k]++ == 0)
            rw->touched[rw->ntouched++] = k;
    }
}

static int on_extent(int64_t off, int64_t len, void *ctx)
{
    struct rank_walk *rw = ctx;
    if (len <= 0)
        return 0;
    if (rw->hi > rw->lo && off == rw->hi) { /* touching: one run (piece_push) */
        rw->hi += len;
        return 0;
    }
    if (rw->hi > rw->lo) {
        rw->unordered |= off < rw->hi;
        count_run(rw);
    }
    rw->lo = off, rw->hi = off + len;
    return 0;
}

/* A rank's headers: 16 bytes a piece in the write; in the read only on
 * links (rank, FD) whose pieces over all rounds are too many to keep. */
static int rank_headers(struct job *f, const struct tacio_pattern *pat, int rank,
                        struct rank_walk *rw, int64_t *link_pieces)
{
    rw->lo = rw->hi = rw->at = rw->ntouched = 0;
    int rc = tacio_pattern_walk(pat, rank, on_extent, rw);
    if (rc || rw->unordered)
        return rc ? rc : -1;
    if (rw->hi > rw->lo)
        count_run(rw);
    for (int64_t i = 0; i < rw->ntouched; i++)
        link_pieces[f->w[rw->touched[i]].fd] += rw->cnt[rw->touched[i]];
    for (int64_t i = 0; i < rw->ntouched; i++) {
        int64_t k = rw->touched[i], n = rw->cnt[k];
        f->pieces += n;
        route_to(f, HDR, rank, k, 16 * n);
        if (link_pieces[f->w[k].fd] > HDR_CACHE_PIECES)
            route_to(f, READ_HDR, rank, k, 16 * n);
    }
    for (int64_t i = 0; i < rw->ntouched; i++) {
        link_pieces[f->w[rw->touched[i]].fd] = 0;
        rw->cnt[rw->touched[i]] = 0;
    }
    return 0;
}

static int headers(struct job *f, const struct tacio_pattern *pat)
{
    struct rank_walk rw = {.f = f};
    rw.cnt = calloc((size_t)f->nw, sizeof *rw.cnt);
    rw.touched = malloc(sizeof *rw.touched * (size_t)f->nw);
    int64_t *link_pieces = calloc((size_t)f->plan->part.n, sizeof *link_pieces);
    int rc = rw.cnt && rw.touched && link_pieces ? 0 : -1;
    for (int rank = 0; !rc && rank < tacio_pattern_get_nprocs(pat); rank++)
        rc = rank_headers(f, pat, rank, &rw, link_pieces);
    free(rw.cnt), free(rw.touched), free(link_pieces);
    return rc;
}

/* The data's rounds: each window range's bytes from each rank (C over the
 * windows' partition). */
static int data(struct job *f, const struct tacio_pattern *pat, const struct partition *part)
{
    struct comm c = {0};
    int rc = comm_build(pat, part, 0, &c);
    for (int64_t k = 0; !rc && k < f->nw; k++)
        for (int64_t e = c.col_ptr[k]; f->w[k].fd >= 0 && e < c.col_ptr[k + 1]; e++)
            route_to(f, DATA, c.row[e], k, c.cval[e]);
    comm_free(&c);
    return rc;
}

/* The rounds' data must add up to the plan's own link loads. */
static int check_sums(const struct job *f)
{
    const struct tacio_topo *t = f->t;
    for (int v = 0; v < t->nverts && v < f->plan->nlinks; v++) {
        int64_t su = 0, sd = 0;
        for (int64_t r = 0; r < f->rounds; r++)
            su += f->up[DATA][r * t->nverts + v], sd += f->down[DATA][r * t->nverts + v];
        if (su != f->plan->link_up[v] || sd != f->plan->link_down[v]) {
            fprintf(stderr,
                    "tacio-roundfloor: link %s: rounds carry %lld/%lld, the plan %lld/%lld\n",
                    t->vname[v], (long long)su, (long long)sd, (long long)f->plan->link_up[v],
                    (long long)f->plan->link_down[v]);
            return 2;
        }
    }
    return 0;
}

static void print_rounds(const struct job *f, const char *name, const int64_t *loads)
{
    printf(", \"%s\": [", name);
    for (int64_t r = 0; r < f->rounds; r++) {
        printf("%s[", r ? ", " : "");
        for (int v = 0; v < f->t->nverts; v++)
            printf("%s%lld", v ? ", " : "", (long long)loads[r * f->t->nverts + v]);
        printf("]");
    }
    printf("]");
}

static void print_job(const struct job *f)
{
    printf(", \"rounds\": %lld, \"pipelined\": %d, \"pieces\": %lld, \"links\": [",
           (long long)f->rounds, f->pipelined, (long long)f->pieces);
    for (int v = 0; v < f->t->nverts; v++)
        printf("%s\"%s\"", v ? ", " : "", f->t->vname[v]);
    printf("]");
    for (int i = 0; i < NLOADS; i++) {
        print_rounds(f, load_names[i][0], f->up[i]);
        print_rounds(f, load_names[i][1], f->down[i]);
    }
    printf("}\n");
}

static int round_loads(const struct tacio_pattern *pat, const struct tacio_topo *t,
                       const struct tacio_hints *h, const struct tacio_plan *plan)
{
    struct job f = {.t = t, .plan = plan};
    struct piece *pieces = windows(&plan->part, h->cb_buffer_size, &f.nw, &f.rounds, &f.pipelined);
    struct partition part = {0};
    if (!pieces || piece_partition(&pieces, &f.nw, &part))
        return free(pieces), die("cannot lay out the windows");
    f.w = pieces;
    int rc = 0;
    for (int i = 0; i < NLOADS; i++) {
        f.up[i] = calloc((size_t)(f.rounds * t->nverts), sizeof *f.up[i]);
        f.down[i] = calloc((size_t)(f.rounds * t->nverts), sizeof *f.down[i]);
        rc = rc || !f.up[i] || !f.down[i];
    }
    if (rc || data(&f, pat, &part))
        rc = die("cannot route the windows");
    else if (headers(&f, pat))
        rc = die("cannot count the pieces (out of memory, or extents out of order)");
    rc = rc ? rc : check_sums(&f);
    if (!rc)
        print_job(&f);
    for (int i = 0; i < NLOADS; i++)
        free(f.up[i]), free(f.down[i]);
    free(pieces);
    partition_free(&part);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr,
                "usage: tacio-roundfloor PATTERN PROCS TOPOLOGY PLACEMENT [KEY=VALUE...]\n");
        return 2;
    }
    struct tacio_topo *topo = NULL;
    struct tacio_pattern *pat = NULL;
    struct tacio_hints *h = NULL;
    struct tacio_plan *plan = NULL;
    int rc = tacio_topo_parse(argv[3], &topo);
    rc = rc ? rc : tacio_pattern_parse(argv[1], atoi(argv[2]), &pat);
    rc = rc ? rc : tacio_topo_place(topo, argv[4], tacio_pattern_get_nprocs(pat));
    rc = rc ? rc : tacio_hints_new(&h);
    for (int i = 5; !rc && i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq)
            return die("a hint is KEY=VALUE");
        *eq = '\0';
        rc = tacio_hints_set(h, argv[i], eq + 1);
    }
    rc = rc ? rc : tacio_plan_compute_as_engine(pat, topo, h, &plan);
    if (rc)
        return die("cannot plan the job");
    printf("{\"plan\": ");
    if (tacio_plan_write_json(plan, stdout))
        rc = die("cannot write the plan");
    else if (plan->nlinks && !plan->gather_hosts)
        rc = round_loads(pat, topo, h, plan);
    else
        printf("}\n"); /* no tree, or hosts gathered first: no rounds */
    tacio_plan_free(plan);
    tacio_hints_free(h);
    tacio_pattern_free(pat);
    tacio_topo_free(topo);
    return rc;
}
