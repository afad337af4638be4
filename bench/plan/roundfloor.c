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
 * (sched_window_size and sched_round_window in src/exec/sched.c: the FD's
 * memory, halved when rounds are pipelined, which the engine does when an
 * FD needs more than one).
 *
 * Prints one JSON object: {"rounds": R, "links": [name, ...], "up": [[per
 * link] per round], "down": [...]}, "up" being the bytes from the vertex
 * to its parent in a write. It checks that the rounds' loads add up to the
 * plan's own link loads, and fails otherwise. */
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

/* The engine's window size for FD j (sched_window_size). */
static int64_t window_size(const struct fdom *fd, int64_t cb, bool pipelined)
{
    int64_t mem = fdom_memory(fd, cb);
    return fdom_window_size(fd, pipelined ? (mem / 2 > 1 ? mem / 2 : 1) : mem);
}

static int64_t fd_rounds(const struct fdom *fd, int64_t cb, bool pipelined)
{
    int64_t size = window_size(fd, cb, pipelined);
    return (fdom_extent(fd) + size - 1) / size;
}

/* Every window's ranges, tagged; *rounds: the most any FD takes. */
static struct piece *windows(const struct partition *part, int64_t cb, int64_t *n, int64_t *rounds)
{
    int64_t most = 0;
    for (int j = 0; j < part->n; j++) {
        int64_t r = fd_rounds(&part->fd[j], cb, false);
        most = r > most ? r : most;
    }
    bool pipelined = most > 1; /* tacio_pipeline's automatic (rounds_count) */
    int64_t cap = 1024, count = 0;
    struct piece *v = malloc(sizeof *v * (size_t)cap);
    *rounds = 0;
    for (int j = 0; v && j < part->n; j++) {
        const struct fdom *fd = &part->fd[j];
        int64_t size = window_size(fd, cb, pipelined), nr = fd_rounds(fd, cb, pipelined);
        *rounds = nr > *rounds ? nr : *rounds;
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

static int print_loads(const struct tacio_plan *plan, const struct tacio_topo *t, int64_t rounds,
                       const int64_t *up, const int64_t *down)
{
    for (int v = 0; v < t->nverts; v++) { /* the rounds add up to the plan */
        int64_t su = 0, sd = 0;
        for (int64_t r = 0; r < rounds; r++)
            su += up[r * t->nverts + v], sd += down[r * t->nverts + v];
        if (v < plan->nlinks && (su != plan->link_up[v] || sd != plan->link_down[v])) {
            fprintf(stderr,
                    "tacio-roundfloor: link %s: rounds carry %lld/%lld, the plan %lld/%lld\n",
                    t->vname[v], (long long)su, (long long)sd, (long long)plan->link_up[v],
                    (long long)plan->link_down[v]);
            return 2;
        }
    }
    printf("{\"rounds\": %lld, \"links\": [", (long long)rounds);
    for (int v = 0; v < t->nverts; v++)
        printf("%s\"%s\"", v ? ", " : "", t->vname[v]);
    const char *names[2] = {"up", "down"};
    const int64_t *loads[2] = {up, down};
    for (int d = 0; d < 2; d++) {
        printf("], \"%s\": [", names[d]);
        for (int64_t r = 0; r < rounds; r++) {
            printf("%s[", r ? ", " : "");
            for (int v = 0; v < t->nverts; v++)
                printf("%s%lld", v ? ", " : "", (long long)loads[d][r * t->nverts + v]);
            printf("]");
        }
    }
    printf("]}\n");
    return 0;
}

static int round_loads(const struct tacio_pattern *pat, const struct tacio_topo *t,
                       const struct tacio_hints *h, const struct tacio_plan *plan)
{
    int64_t n, rounds;
    struct piece *pieces = windows(&plan->part, h->cb_buffer_size, &n, &rounds);
    struct partition part = {0};
    struct comm c = {0};
    if (!pieces || piece_partition(&pieces, &n, &part))
        return free(pieces), die("cannot lay out the windows");
    int rc = comm_build(pat, &part, 0, &c);
    int64_t *up = calloc((size_t)(rounds * t->nverts), sizeof *up);
    int64_t *down = calloc((size_t)(rounds * t->nverts), sizeof *down);
    if (rc || !up || !down)
        rc = die("cannot route the windows");
    for (int64_t k = 0; !rc && k < n; k++) {
        if (pieces[k].fd < 0)
            continue;
        int hd = t->rank_host[plan->agg[pieces[k].fd]];
        int64_t at = pieces[k].round * t->nverts;
        for (int64_t e = c.col_ptr[k]; e < c.col_ptr[k + 1]; e++)
            if (t->rank_host[c.row[e]] != hd)
                route(t, t->rank_host[c.row[e]], hd, c.cval[e], up + at, down + at);
    }
    rc = rc ? rc : print_loads(plan, t, rounds, up, down);
    free(up), free(down), free(pieces);
    comm_free(&c);
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
    rc = rc ? rc : tacio_plan_compute(pat, topo, h, &plan);
    if (rc)
        return die("cannot plan the job");
    if (!plan->nlinks || plan->gather_hosts)
        return die("the round floor needs a tree and no gathered hosts");
    rc = round_loads(pat, topo, h, plan);
    tacio_plan_free(plan);
    tacio_hints_free(h);
    tacio_pattern_free(pat);
    tacio_topo_free(topo);
    return rc;
}
