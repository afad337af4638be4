/* tacio-lapbench: tacio's assignment solvers on problems shared with scipy.
 *
 *   tacio-lapbench dense FILE
 *       FILE: int64 little-endian rows, cols, then rows*cols costs (row-major).
 *       Prints "cost=C seconds=S assignment=j0,j1,...".
 *   tacio-lapbench tree --racks R --fds A [--nodes 16] [--cores 32] [--seed S]
 *                       [--w-out FILE] [--dense]
 *       A hop-bytes-like problem: R racks x nodes x cores ranks (block
 *       placement); rank r holds 1-3 consecutive FDs starting near r*A/p (a
 *       domain decomposition), one rank in ten somewhere at random (scattered
 *       elements). Solves it with the tree min-cost flow (never building W),
 *       optionally also with the dense LAP, and writes W (A x p, int64) for
 *       scipy. Prints "cost=C seconds=S [dense_cost=C dense_seconds=S]". */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int die(const char *msg)
{
    fprintf(stderr, "tacio-lapbench: %s%s%s\n", msg, *tacio_last_error() ? ": " : "",
            tacio_last_error());
    return 2;
}

static int run_dense(const char *path)
{
    FILE *f = fopen(path, "rb");
    int64_t dims[2];
    if (!f || fread(dims, sizeof dims, 1, f) != 1 || dims[0] < 1 || dims[1] < dims[0])
        return die("cannot read the matrix header");
    int64_t n = dims[0] * dims[1];
    int64_t *cost = malloc(sizeof(int64_t) * (size_t)n);
    int *r2c = malloc(sizeof(int) * (size_t)dims[0]);
    if (!cost || !r2c || fread(cost, sizeof(int64_t), (size_t)n, f) != (size_t)n)
        return die("cannot read the matrix");
    fclose(f);
    int64_t total;
    double t0 = now();
    int rc = lap_dense((int)dims[0], (int)dims[1], cost, r2c, &total);
    double t = now() - t0;
    if (rc)
        return die("lap_dense failed");
    printf("cost=%lld seconds=%.6f assignment=", (long long)total, t);
    for (int64_t i = 0; i < dims[0]; i++)
        printf("%s%d", i ? "," : "", r2c[i]);
    printf("\n");
    free(cost);
    free(r2c);
    return 0;
}

struct tree_opts {
    int racks, nodes, cores, fds;
    uint64_t seed;
    const char *w_out;
    bool dense;
};

static int make_problem(const struct tree_opts *o, struct tacio_topo **t,
                        struct tacio_pattern **pat)
{
    char spec[128];
    snprintf(spec, sizeof spec, "tree:racks=%d,nodes=%d,cores=%d", o->racks, o->nodes, o->cores);
    int p = o->racks * o->nodes * o->cores;
    if (tacio_topo_parse(spec, t) || tacio_topo_place(*t, "block", p))
        return -1;
    int *rank = malloc(sizeof(int) * (size_t)p * 3), *fd = malloc(sizeof(int) * (size_t)p * 3);
    int64_t *bytes = malloc(sizeof(int64_t) * (size_t)p * 3), n = 0;
    uint64_t st = o->seed;
    for (int r = 0; r < p; r++) {
        int len = 1 + (int)(rng_next(&st) % 3);
        int s = rng_next(&st) % 10 == 0 ? (int)(rng_next(&st) % (uint64_t)o->fds)
                                        : (int)((int64_t)r * o->fds / p);
        s = s + len > o->fds ? o->fds - len : s;
        for (int k = 0; k < len; k++, n++) {
            rank[n] = r;
            fd[n] = s + k;
            bytes[n] = 1 + (int64_t)(rng_next(&st) % (1 << 20));
        }
    }
    int rc = pattern_from_triplets(p, o->fds, n, rank, fd, bytes, pat);
    free(rank);
    free(fd);
    free(bytes);
    return rc;
}

/* W (FD x rank) from the tree: each rank's W is delta(root)*T_j minus the
 * per-level savings of the bytes held under its ancestors. */
static int64_t *build_w(const struct tacio_topo *t, const struct cmatrix *c)
{
    int V = t->nverts, p = t->nprocs;
    int64_t *w = malloc(sizeof(int64_t) * (size_t)c->a * (size_t)p);
    int64_t *bsum = calloc((size_t)V, sizeof(int64_t)), *rsum = calloc((size_t)p, sizeof(int64_t));
    int root = 0;
    while (t->parent[root] >= 0)
        root = t->parent[root];
    for (int j = 0; w && j < c->a; j++) {
        for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++) {
            rsum[c->row[k]] += c->cval[k];
            for (int v = t->host_vert[t->rank_host[c->row[k]]]; v >= 0; v = t->parent[v])
                bsum[v] += c->cval[k];
        }
        for (int i = 0; i < p; i++) {
            int64_t save = rsum[i]; /* rank level: delta(host) - 0 = 1 */
            for (int v = t->host_vert[t->rank_host[i]]; v != root; v = t->parent[v])
                save += (topo_vertex_delta(t, t->parent[v]) - topo_vertex_delta(t, v)) * bsum[v];
            w[(int64_t)j * p + i] = topo_vertex_delta(t, root) * c->fd_bytes[j] - save;
        }
        for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++) {
            rsum[c->row[k]] = 0;
            for (int v = t->host_vert[t->rank_host[c->row[k]]]; v >= 0; v = t->parent[v])
                bsum[v] = 0;
        }
    }
    free(bsum);
    free(rsum);
    return w;
}

static int write_w(const char *path, const int64_t *w, int64_t rows, int64_t cols)
{
    FILE *f = fopen(path, "wb");
    int64_t dims[2] = {rows, cols};
    if (!f || fwrite(dims, sizeof dims, 1, f) != 1 ||
        fwrite(w, sizeof(int64_t), (size_t)(rows * cols), f) != (size_t)(rows * cols))
        return die("cannot write W");
    return fclose(f) ? die("cannot write W") : 0;
}

static int run_tree(const struct tree_opts *o)
{
    struct tacio_topo *t = NULL;
    struct tacio_pattern *pat = NULL;
    if (make_problem(o, &t, &pat))
        return die("cannot build the problem");
    struct plan_ctx ctx = {.pat = pat, .topo = t, .h = NULL, .lo = 0, .hi = 0};
    struct partition part;
    struct cmatrix c;
    if (partition_fixed(&ctx, &part) || cmatrix_build(pat, &part, 0, &c))
        return die("cannot build C");
    int *agg = malloc(sizeof(int) * (size_t)o->fds);
    int64_t cost;
    double t0 = now();
    if (assign_tree_flow(t, &c, false, agg, &cost))
        return die("flow failed");
    printf("cost=%lld seconds=%.6f", (long long)cost, now() - t0);
    int64_t *w = o->w_out || o->dense ? build_w(t, &c) : NULL;
    if (o->dense) {
        int64_t dcost;
        t0 = now();
        if (lap_dense(c.a, c.p, w, agg, &dcost))
            return die("dense failed");
        printf(" dense_cost=%lld dense_seconds=%.6f", (long long)dcost, now() - t0);
    }
    printf("\n");
    int rc = o->w_out ? write_w(o->w_out, w, c.a, c.p) : 0;
    free(w);
    free(agg);
    cmatrix_free(&c);
    partition_free(&part);
    tacio_pattern_free(pat);
    tacio_topo_free(t);
    return rc;
}

static int parse_tree(int argc, char **argv, struct tree_opts *o)
{
    *o = (struct tree_opts){.racks = 1, .nodes = 16, .cores = 32, .fds = 64, .seed = 1};
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--dense")) {
            o->dense = true;
            continue;
        }
        if (!v)
            return die("option needs a value");
        i++;
        if (!strcmp(a, "--racks"))
            o->racks = atoi(v);
        else if (!strcmp(a, "--nodes"))
            o->nodes = atoi(v);
        else if (!strcmp(a, "--cores"))
            o->cores = atoi(v);
        else if (!strcmp(a, "--fds"))
            o->fds = atoi(v);
        else if (!strcmp(a, "--seed"))
            o->seed = (uint64_t)atoll(v);
        else if (!strcmp(a, "--w-out"))
            o->w_out = v;
        else
            return die("unknown option");
    }
    if (o->racks < 1 || o->nodes < 1 || o->cores < 1 || o->fds < 3 ||
        o->fds > o->racks * o->nodes * o->cores)
        return die("bad sizes");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "dense"))
        return run_dense(argv[2]);
    struct tree_opts o;
    if (argc >= 2 && !strcmp(argv[1], "tree"))
        return parse_tree(argc, argv, &o) ? 2 : run_tree(&o);
    fprintf(stderr, "usage: tacio-lapbench dense FILE | tree --racks R --fds A [...]\n");
    return 2;
}
