/* The engine against an oracle that trusts no MPI-IO layer.
 *
 * For each pattern the filetype is built with MPI's constructors (subarray,
 * struct of subarrays, darray, vector, hindexed); the expected file image
 * comes from the planning core's closed-form pattern of the same spec and is
 * checked with POSIX pread; reads start from a file written with POSIX
 * pwrite. Every strategy, pattern, operation and memory layout; bytes nobody
 * writes must keep their previous values.
 *
 * usage: test_engine DIR [strategies] (ranks and virtual nodes from mpiexec) */
#include "mpi_check.h"

#include "base/util.h"
#include "plan/pattern.h"

#include <string.h>

#define N_CUBE 8

struct pcase {
    const char *spec; /* planning-core pattern */
    int (*make_type)(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp);
    bool (*fits)(int p);
};

static void block(int n, int q, int c, int *lo, int *len)
{
    int b = (n + q - 1) / q;
    *lo = c * b < n ? c * b : n;
    *len = ((c + 1) * b < n ? (c + 1) * b : n) - *lo;
}

static int iroot(int p, int k)
{
    int q = 1;
    while (k == 3 ? (q + 1) * (q + 1) * (q + 1) <= p : (q + 1) * (q + 1) <= p)
        q++;
    return q;
}

static bool is_cube(int p)
{
    int q = iroot(p, 3);
    return q * q * q == p;
}
static bool is_square(int p)
{
    int q = iroot(p, 2);
    return q * q == p;
}
static bool any_p(int p)
{
    (void)p;
    return true;
}

static int cube_type(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp)
{
    int q = iroot(p, 3), sizes[3] = {N_CUBE, N_CUBE, N_CUBE}, sub[3], st[3];
    int c[3] = {rank / (q * q), (rank / q) % q, rank % q};
    for (int d = 0; d < 3; d++)
        block(N_CUBE, q, c[d], &st[d], &sub[d]);
    *disp = 0;
    return MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, ft);
}

/* BTIO: q cells per rank, one subarray per slice, joined by a struct. */
static int btio_type(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp)
{
    int q = iroot(p, 2), n = 12, sizes[3] = {n, n, n}, r = rank / q, col = rank % q;
    MPI_Datatype cells[16] = {0};
    int lens[16] = {0};
    MPI_Aint displs[16] = {0};
    for (int k = 0; k < q; k++) {
        int sub[3], st[3];
        block(n, q, k, &st[0], &sub[0]);
        block(n, q, ((r - k) % q + q) % q, &st[1], &sub[1]);
        block(n, q, (col + k) % q, &st[2], &sub[2]);
        MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, &cells[k]);
        lens[k] = 1;
        displs[k] = 0;
    }
    int rc = MPI_Type_create_struct(q, lens, displs, cells, ft);
    for (int k = 0; k < q; k++)
        MPI_Type_free(&cells[k]);
    *disp = 0;
    return rc;
}

static int collperf_type(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp)
{
    int g[3] = {10, 10, 10}, dims[3] = {0, 0, 0};
    int distrib[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Dims_create(p, 3, dims);
    *disp = 0;
    return MPI_Type_create_darray(p, rank, 3, g, distrib, dargs, dims, MPI_ORDER_C, MPI_INT, ft);
}

static int ior_type(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp)
{
    *disp = (MPI_Offset)rank * 3072;
    MPI_Datatype v;
    int rc = MPI_Type_vector(3, 3072, 3072 * p, MPI_BYTE, &v);
    /* the tile must end after its last block, not at the next segment */
    rc = rc ? rc : MPI_Type_create_resized(v, 0, (MPI_Aint)3072 * p * 3, ft);
    MPI_Type_free(&v);
    return rc;
}

static const char *mesh_spec = "mesh:elems=3000,seed=4";

static int mesh_type(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp)
{
    struct tacio_pattern *pat;
    if (tacio_pattern_parse(mesh_spec, p, &pat))
        return MPI_ERR_OTHER;
    int64_t a = pat->run_first[rank], b = pat->run_first[rank + 1];
    int n = (int)(b - a);
    int *lens = malloc(sizeof(int) * (size_t)(n + 1));
    MPI_Aint *d = malloc(sizeof(MPI_Aint) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        lens[i] = (int)pat->run_len[a + i];
        d[i] = pat->run_off[a + i];
    }
    int rc = MPI_Type_create_hindexed(n, lens, d, MPI_BYTE, ft);
    free(lens);
    free(d);
    tacio_pattern_free(pat);
    *disp = 0;
    return rc;
}

/* Holes: each rank writes 2000 of every 3072 bytes of its IOR blocks, and
 * the tile is one segment row, so reads and writes sieve around gaps. */
static int holes_type(int rank, int p, MPI_Datatype *ft, MPI_Offset *disp)
{
    *disp = (MPI_Offset)rank * 3072 + 100;
    MPI_Datatype v;
    int rc = MPI_Type_vector(3, 2000, 3072 * p, MPI_BYTE, &v);
    rc = rc ? rc : MPI_Type_create_resized(v, 0, (MPI_Aint)3072 * p * 3, ft);
    MPI_Type_free(&v);
    return rc;
}

static const struct pcase cases[] = {
    {"cube:n=8", cube_type, is_cube},
    {"btio:n=12", btio_type, is_square},
    {"collperf:n=10", collperf_type, any_p},
    {"ior:block=3k,transfer=1k,segments=3", ior_type, any_p},
    {NULL, mesh_type, any_p}, /* mesh_spec */
};

/* The same case under other hints (the plain case runs every strategy). */
struct variant {
    const char *strategy, *hints;
    bool independent, unpipelined, node_aggregated, any_path;
};

static const struct variant variants[] = {
    /* independent I/O: collective buffering disabled (ROMIO's
     * romio_cb_write/read), and automatic with every piece "large" */
    {"romio", "romio_cb_write=disable,romio_cb_read=disable", true, false, false, false},
    {"romio", "romio_cb_write=automatic,romio_cb_read=automatic,tacio_ind_min_piece=1", true, false,
     false, false},
    /* the engine's own choice, whichever it makes (test_decide checks it) */
    {"romio", "romio_cb_write=automatic,romio_cb_read=automatic", false, false, false, true},
    {"tatp", "romio_cb_write=automatic,romio_cb_read=automatic", false, false, false, true},
    /* each window's I/O inside its round (rounds are pipelined whenever an
     * FD needs more than one), also with Tsujita's ordered steps */
    {"romio", "tacio_pipeline=disable", false, true, false, false},
    {"tsujita", "tacio_pipeline=disable", false, true, false, false},
    /* intra-node aggregation: each virtual host's leader runs the host's
     * access (also with ordered steps, and as independent I/O) */
    {"romio", "tacio_node_aggregation=enable", false, false, true, false},
    {"tatp", "tacio_node_aggregation=enable", false, false, true, false},
    {"tsujita", "tacio_node_aggregation=enable", false, false, true, false},
    {"romio", "tacio_node_aggregation=enable,romio_cb_write=disable,romio_cb_read=disable", true,
     false, true, false},
    /* mccio's windows sized by its hosts' memory (each host capped at 3000
     * bytes): windows of uneven sizes below cb_buffer_size, some of
     * mem_min on hosts already short of memory */
    {"mccio", "tacio_mem_per_node=3000,tacio_mem_min=1000", false, false, false, false},
};

static void run_variants(const struct engine_case *ec)
{
    struct engine_case v = *ec;
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        v.strategy = variants[i].strategy;
        v.extra_hints = variants[i].hints;
        v.independent = variants[i].independent;
        v.unpipelined = variants[i].unpipelined;
        v.node_aggregated = variants[i].node_aggregated;
        v.any_path = variants[i].any_path;
        run_engine_case(&v);
    }
}

/* Every rank reads the same header (ranks' pieces overlap) with intra-node
 * aggregation asked for: a host keeps its ranks' own accesses then, and
 * each rank gets the header; a disjoint tail per rank still gathers. */
static void shared_header_read(const char *dir, int p)
{
    enum { HEADER = 1000, TAIL = 300 };
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[512];
    snprintf(path, sizeof path, "%s/engine_header_%d.dat", dir, p);
    int64_t size = HEADER + (int64_t)TAIL * p;
    unsigned char *img = malloc((size_t)size), *got = malloc(HEADER + TAIL);
    for (int64_t x = 0; x < size; x++)
        img[x] = prefill_of(x);
    if (rank == 0)
        check_that(posix_write_file(path, img, size) == 0, "cannot prepare %s", path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = make_info("romio", "tacio_node_aggregation=enable");
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
    for (int tail = 0; tail < 2 && rc == MPI_SUCCESS; tail++) {
        MPI_Offset off = tail ? HEADER + (MPI_Offset)TAIL * rank : 0;
        int n = tail ? TAIL : HEADER;
        memset(got, 0, HEADER + TAIL);
        rc = tacio_file_read_at_all(fh, off, got, n, MPI_BYTE, MPI_STATUS_IGNORE);
        struct tacio_stats st = TACIO_STATS_INIT;
        tacio_file_get_stats(fh, &st);
        check_that(rc == MPI_SUCCESS && !memcmp(got, img + off, (size_t)n),
                   "p=%d shared header: the %s read returned wrong bytes", p,
                   tail ? "tail" : "header");
        int gathered = tail && p > 1; /* the header's pieces overlap */
        check_that(st.node_aggregated == gathered,
                   "p=%d %s read: node_aggregated=%lld, expected %d", p, tail ? "tail" : "header",
                   (long long)st.node_aggregated, gathered);
    }
    check_that(rc == MPI_SUCCESS, "p=%d shared header: open or read failed (%d)", p, rc);
    if (rc == MPI_SUCCESS)
        tacio_file_close(&fh);
    MPI_Info_free(&info);
    free(img);
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    char all_strategies[512] = ""; /* the registry's, unless the command line names some */
    for (int i = 0; i < tacio_strategy_get_count(); i++)
        snprintf(all_strategies + strlen(all_strategies),
                 sizeof all_strategies - strlen(all_strategies), "%s%s", i ? "," : "",
                 tacio_strategy_get_name(i));
    char *list = argc > 2 ? argv[2] : all_strategies;
    struct engine_case ec = {.dir = dir};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *spec = cases[k].spec ? cases[k].spec : mesh_spec;
        if (!cases[k].fits(p))
            continue; /* this pattern has no layout for this rank count */
        ec.spec = spec;
        ec.make_type = cases[k].make_type;
        char *copy = strdup(list);
        for (char *save = NULL, *s = strtok_r(copy, ",", &save); s;
             s = strtok_r(NULL, ",", &save)) {
            ec.strategy = s;
            run_engine_case(&ec);
        }
        free(copy);
        run_variants(&ec);
    }
    /* views with holes and an empty last rank, against the MPI_Unpack oracle */
    struct engine_case holes = {
        .dir = dir, .make_type = holes_type, .tiles = 2, .last_rank_empty = true};
    char *copy = strdup(list);
    for (char *save = NULL, *s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        holes.strategy = s;
        run_engine_case(&holes);
    }
    free(copy);
    run_variants(&holes);
    shared_header_read(dir, p);
    return finish("test_engine");
}
