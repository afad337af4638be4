/* Property test: seeded random nested datatypes (every constructor tacio
 * flattens, zero-length blocks, resized extents) as file views and memory
 * types. Expected file image: MPI_Unpack of each rank's stream into its
 * filetype (no MPI-IO), checked with POSIX; expected memory after a read:
 * MPI_Unpack into the memory type. Prints the seed of any failing case.
 * PROPERTY_UNPACK_WRONG=S,S,...: seeds whose oracle this MPI's MPI_Unpack
 * gets wrong (Intel MPI 2021.19: docs/field-notes.md says how that was
 * shown); each is said and not run, never counted as passed.
 *
 * usage: test_property DIR [cases] [first_seed] */
#include "mpi_check.h"

#include <string.h>

static uint64_t st;

static int rnd(int n) /* uniform in [0, n) */
{
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((st >> 33) % (uint64_t)n);
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

/* Disjoint blocks laid out in increasing order (a filetype needs that);
 * for memory types they are then shuffled. */
static void blocks(int n, int maxlen, MPI_Aint unit, bool shuffle, int *lens, MPI_Aint *displs)
{
    MPI_Aint pos = rnd(3) * unit;
    for (int k = 0; k < n; k++) {
        lens[k] = rnd(4) == 0 ? 0 : 1 + rnd(maxlen); /* some zero-length blocks */
        displs[k] = pos;
        pos += (lens[k] + rnd(3)) * unit;
    }
    for (int k = n - 1; shuffle && k > 0; k--) {
        int j = rnd(k + 1);
        int tl = lens[k];
        MPI_Aint td = displs[k];
        lens[k] = lens[j];
        displs[k] = displs[j];
        lens[j] = tl;
        displs[j] = td;
    }
}

static MPI_Datatype gen(int depth, bool file);

static MPI_Datatype gen_grid(MPI_Datatype old, bool darray)
{
    int nd = 1 + rnd(3), sizes[3], sub[3], starts[3],
        order = rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    MPI_Datatype t;
    for (int d = 0; d < nd; d++) {
        sizes[d] = 1 + rnd(4);
        sub[d] = 1 + rnd(sizes[d]);
        starts[d] = rnd(sizes[d] - sub[d] + 1);
    }
    if (!darray) {
        MPI_Type_create_subarray(nd, sizes, sub, starts, order, old, &t);
        return t;
    }
    int psizes[3], distrib[3], dargs[3], nprocs = 1;
    for (int d = 0; d < nd; d++) {
        int kind = rnd(3);
        psizes[d] = kind == 2 ? 1 : 1 + rnd(2);
        distrib[d] = kind == 0   ? MPI_DISTRIBUTE_BLOCK
                     : kind == 1 ? MPI_DISTRIBUTE_CYCLIC
                                 : MPI_DISTRIBUTE_NONE;
        dargs[d] = MPI_DISTRIBUTE_DFLT_DARG;
        if (kind == 1 && rnd(2))
            dargs[d] = 1 + rnd(2); /* cyclic(k) */
        if (kind == 0 && rnd(2))
            dargs[d] = (sizes[d] + psizes[d] - 1) / psizes[d] + rnd(2); /* explicit block */
        nprocs *= psizes[d];
    }
    MPI_Type_create_darray(nprocs, rnd(nprocs), nd, sizes, distrib, dargs, psizes, order, old, &t);
    return t;
}

static MPI_Datatype gen_blocks(int kind, MPI_Datatype old, bool file)
{
    int n = 1 + rnd(4), lens[4];
    MPI_Aint ext = extent_of(old), displs[4];
    int idispl[4];
    MPI_Datatype t;
    blocks(n, 3, kind == 0 || kind == 2 ? ext : ext + rnd(5), !file, lens, displs);
    for (int k = 0; k < n; k++)
        idispl[k] = (int)(displs[k] / ext);
    switch (kind) {
    case 0: /* displacements in extents of old */
        MPI_Type_indexed(n, lens, idispl, old, &t);
        break;
    case 1:
        MPI_Type_create_hindexed(n, lens, displs, old, &t);
        break;
    case 2: {
        int len = 1 + rnd(2);
        for (int k = 0; k < n; k++) /* fixed-length blocks, increasing */
            idispl[k] = k ? idispl[k - 1] + len + rnd(2) : rnd(2);
        if (!file)
            for (int k = 0; k < n; k++)
                idispl[k] = (n - 1 - k) * (len + 1);
        MPI_Type_create_indexed_block(n, len, idispl, old, &t);
        break;
    }
    default: {
        int len = 1 + rnd(2);
        for (int k = 0; k < n; k++)
            displs[k] = k ? displs[k - 1] + len * ext + rnd(4) : rnd(4);
        for (int k = 0; !file && k < n / 2; k++) { /* memory: reversed */
            MPI_Aint d = displs[k];
            displs[k] = displs[n - 1 - k];
            displs[n - 1 - k] = d;
        }
        MPI_Type_create_hindexed_block(n, len, displs, old, &t);
        break;
    }
    }
    return t;
}

static MPI_Datatype gen_struct(int depth, bool file)
{
    int n = 1 + rnd(3), lens[3];
    MPI_Datatype types[3], t;
    MPI_Aint displs[3], pos = rnd(4);
    for (int k = 0; k < n; k++) {
        types[k] = gen(depth - 1, file);
        lens[k] = rnd(5) == 0 ? 0 : 1 + rnd(2);
        displs[k] = pos;
        pos += lens[k] * extent_of(types[k]) + rnd(4);
    }
    if (!file && n > 1) { /* memory: blocks in reverse order */
        MPI_Aint d0 = displs[0];
        displs[0] = displs[n - 1];
        displs[n - 1] = d0;
        MPI_Datatype t0 = types[0];
        int l0 = lens[0];
        types[0] = types[n - 1];
        lens[0] = lens[n - 1];
        types[n - 1] = t0;
        lens[n - 1] = l0;
        if (displs[n - 1] < displs[0] + lens[0] * extent_of(types[0]))
            displs[n - 1] = displs[0] + lens[0] * extent_of(types[0]); /* keep them disjoint */
    }
    MPI_Type_create_struct(n, lens, displs, types, &t);
    for (int k = 0; k < n; k++)
        MPI_Type_free(&types[k]);
    return t;
}

static MPI_Datatype gen_raw(int depth, bool file);

/* A type whose data starts past its lb would spill past lb + extent into the
 * next block of its parent: make every type's lb 0 (extent grows by the lb). */
static MPI_Datatype gen(int depth, bool file)
{
    MPI_Datatype t = gen_raw(depth, file), r;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    if (lb == 0)
        return t;
    MPI_Type_create_resized(t, 0, lb + ext, &r);
    MPI_Type_free(&t);
    return r;
}

static MPI_Datatype gen_raw(int depth, bool file)
{
    static MPI_Datatype const named[] = {MPI_BYTE, MPI_INT, MPI_DOUBLE, MPI_SHORT};
    MPI_Datatype t;
    if (depth == 0 || rnd(4) == 0) {
        MPI_Type_dup(named[rnd(4)], &t);
        return t;
    }
    int kind = rnd(11);
    if (kind == 9)
        return gen_struct(depth, file);
    MPI_Datatype old = gen(depth - 1, file);
    MPI_Aint ext = extent_of(old);
    if (ext <= 0) { /* all blocks empty: nothing to build on */
        MPI_Type_free(&old);
        MPI_Type_dup(named[rnd(4)], &old);
        ext = extent_of(old);
    }
    switch (kind) {
    case 0:
        MPI_Type_contiguous(1 + rnd(3), old, &t);
        break;
    case 1: {
        int bl = 1 + rnd(2);
        MPI_Type_vector(1 + rnd(3), bl, bl + rnd(3), old, &t);
        break;
    }
    case 2: {
        int bl = 1 + rnd(2);
        MPI_Type_create_hvector(1 + rnd(3), bl, bl * ext + rnd(9), old, &t);
        break;
    }
    case 3:
    case 4:
    case 5:
    case 6:
        t = gen_blocks(kind - 3, old, file);
        break;
    case 7:
        t = gen_grid(old, false);
        break;
    case 8:
        t = gen_grid(old, true);
        break;
    default: {
        MPI_Aint lb, e;
        MPI_Type_get_extent(old, &lb, &e);
        MPI_Type_create_resized(old, 0, lb + e + rnd(16), &t); /* bigger extent: gaps */
        break;
    }
    }
    MPI_Type_free(&old);
    return t;
}

/* MPI's own typemap, byte by byte: pack buffers holding each byte's address
 * (three bytes of it) and read the addresses back in stream order. A view's
 * filetype must place two tiles at strictly increasing addresses; a memory
 * type at distinct ones. MPI decides what is valid, not this generator. */
static bool typemap_ok(MPI_Datatype t, bool file)
{
    int size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    if (tlb < 0)
        return false;
    int64_t span = ext + tlb + text + 64, n = 2 * (int64_t)size;
    unsigned char *addr[3], *packed[3];
    bool ok = span < (1 << 24);
    for (int b = 0; b < 3; b++) {
        addr[b] = malloc((size_t)span);
        packed[b] = malloc((size_t)n);
        for (int64_t x = 0; x < span; x++)
            addr[b][x] = (unsigned char)(x >> (8 * b));
        int pos = 0;
        MPI_Pack(addr[b], 2, t, packed[b], (int)n, &pos, MPI_COMM_SELF);
    }
    char *seen = calloc((size_t)span, 1);
    int64_t prev = -1;
    for (int64_t k = 0; ok && k < n; k++) {
        int64_t a = packed[0][k] | (int64_t)packed[1][k] << 8 | (int64_t)packed[2][k] << 16;
        ok = a < span && (file ? a > prev : !seen[a]);
        if (!ok)
            break;
        seen[a] = 1;
        prev = a;
    }
    for (int b = 0; b < 3; b++) {
        free(addr[b]);
        free(packed[b]);
    }
    free(seen);
    return ok;
}

/* A committed type of size in [1, limit]. */
static MPI_Datatype gen_type(bool file, int limit)
{
    for (;;) {
        MPI_Datatype t = gen(3, file);
        int size;
        MPI_Aint lb, ext;
        MPI_Type_size(t, &size);
        MPI_Type_get_extent(t, &lb, &ext);
        if (size > 0 && size <= limit && lb >= 0 && ext <= 65536) {
            MPI_Type_commit(&t);
            if (typemap_ok(t, file))
                return t;
        }
        MPI_Type_free(&t);
    }
}

static int64_t gcd(int64_t a, int64_t b)
{
    return b ? gcd(b, a % b) : a;
}

struct pcase {
    MPI_Datatype ft, mt;
    int tiles, count; /* filetype tiles and memory count: same bytes */
    int64_t n, disp, region, file_size;
};

static void make_case(uint64_t seed, int rank, struct pcase *c)
{
    st = seed * 1000003 + (uint64_t)rank;
    c->ft = gen_type(true, 600);
    c->mt = gen_type(false, 600);
    int fs, ms;
    MPI_Type_size(c->ft, &fs);
    MPI_Type_size(c->mt, &ms);
    int64_t g = gcd(fs, ms);
    c->tiles = (int)(ms / g);
    c->count = (int)(fs / g);
    c->n = (int64_t)fs * c->tiles;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(c->ft, &lb, &ext);
    int64_t need = ext * c->tiles + 64;
    MPI_Allreduce(&need, &c->region, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    c->disp = (int64_t)rank * c->region + 8;
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    c->file_size = (int64_t)p * c->region + 1000;
}

/* Expected file: MPI_Unpack into the filetypes; memory as MPI_Unpack puts it. */
static unsigned char *expected_file(const struct pcase *c, int rank)
{
    unsigned char *val = calloc((size_t)c->file_size, 1), *mask = calloc((size_t)c->file_size, 1);
    unsigned char *s = malloc((size_t)c->n), *ones = malloc((size_t)c->n);
    for (int64_t k = 0; k < c->n; k++) {
        s[k] = value_of(rank, k);
        ones[k] = 1;
    }
    int pos = 0;
    MPI_Unpack(s, (int)c->n, &pos, val + c->disp, c->tiles, c->ft, MPI_COMM_WORLD);
    pos = 0;
    MPI_Unpack(ones, (int)c->n, &pos, mask + c->disp, c->tiles, c->ft, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, val, (int)c->file_size, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, mask, (int)c->file_size, MPI_UNSIGNED_CHAR, MPI_MAX,
                  MPI_COMM_WORLD);
    for (int64_t x = 0; x < c->file_size; x++)
        val[x] = mask[x] ? val[x] : prefill_of(x);
    free(mask);
    free(s);
    free(ones);
    return val;
}

static int64_t footprint(const struct pcase *c)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(c->mt, &lb, &ext);
    return lb + ext * c->count + 64;
}

static unsigned char *memory_image(const struct pcase *c, int rank)
{
    int64_t fp = footprint(c);
    unsigned char *m = malloc((size_t)fp), *s = malloc((size_t)c->n);
    memset(m, 0xEE, (size_t)fp);
    for (int64_t k = 0; k < c->n; k++)
        s[k] = value_of(rank, k);
    int pos = 0;
    MPI_Unpack(s, (int)c->n, &pos, m, c->count, c->mt, MPI_COMM_WORLD);
    free(s);
    return m;
}

static void run_case(const char *dir, uint64_t seed)
{
    static const char *const buffers[] = {"cb_buffer_size=977", "cb_buffer_size=4096",
                                          "cb_buffer_size=65536"};
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    struct pcase c;
    make_case(seed, rank, &c);
    char path[512];
    snprintf(path, sizeof path, "%s/property_%d.dat", dir, p);
    unsigned char *want = expected_file(&c, rank), *mem = memory_image(&c, rank);
    if (rank == 0) {
        unsigned char *pre = malloc((size_t)c.file_size);
        for (int64_t x = 0; x < c.file_size; x++)
            pre[x] = prefill_of(x);
        posix_write_file(path, pre, c.file_size);
        free(pre);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* half the cases with intra-node aggregation, whatever the strategy and
     * buffer (virtual hosts of 2) */
    char hints[96];
    snprintf(hints, sizeof hints, "%s%s", buffers[seed % 3],
             (seed / 3) % 2 ? ",tacio_node_aggregation=enable" : "");
    MPI_Info info = make_info(
        tacio_strategy_get_name((int)(seed % (uint64_t)tacio_strategy_get_count())), hints);
    tacio_file_t fh;
    int rc = tacio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
    rc = rc ? rc : tacio_file_set_view(fh, c.disp, MPI_BYTE, c.ft, "native", MPI_INFO_NULL);
    rc = rc ? rc : tacio_file_write_at_all(fh, 0, mem, c.count, c.mt, MPI_STATUS_IGNORE);
    unsigned char *back = malloc((size_t)footprint(&c));
    memset(back, 0xEE, (size_t)footprint(&c));
    rc = rc ? rc : tacio_file_read_at_all(fh, 0, back, c.count, c.mt, MPI_STATUS_IGNORE);
    if (fh)
        tacio_file_close(&fh);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len;
    if (rc)
        MPI_Error_string(rc, msg, &len);
    check_that(rc == MPI_SUCCESS, "seed %llu: tacio call failed: %s", (unsigned long long)seed,
               msg);
    check_that(memcmp(back, mem, (size_t)footprint(&c)) == 0,
               "seed %llu: read back differs from the written memory", (unsigned long long)seed);
    if (rank == 0) {
        unsigned char *got = malloc((size_t)c.file_size);
        posix_read_file(path, got, c.file_size);
        int64_t bad = -1;
        for (int64_t x = 0; x < c.file_size && bad < 0; x++)
            bad = got[x] != want[x] ? x : -1;
        check_that(bad < 0, "seed %llu: file differs from the MPI_Unpack oracle at %lld",
                   (unsigned long long)seed, (long long)bad);
        free(got);
    }
    MPI_Info_free(&info);
    MPI_Type_free(&c.ft);
    MPI_Type_free(&c.mt);
    free(want);
    free(mem);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Whether seed is listed in PROPERTY_UNPACK_WRONG (said on rank 0). */
static bool unpack_wrong(uint64_t seed)
{
    const char *list = getenv("PROPERTY_UNPACK_WRONG");
    for (const char *s = list; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : "") {
        if (strtoull(s, NULL, 10) != seed)
            continue;
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            printf("seed %llu: not run: this MPI's MPI_Unpack, the oracle, is wrong there\n",
                   (unsigned long long)seed);
        return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int cases = argc > 2 ? atoi(argv[2]) : 200;
    uint64_t first = argc > 3 ? strtoull(argv[3], NULL, 10) : 1;
    for (int k = 0; k < cases; k++)
        if (!unpack_wrong(first + (uint64_t)k))
            run_case(dir, first + (uint64_t)k);
    return finish("test_property");
}
