/* Patterns kept as per-rank run lists (mesh, extents:, matrix:) and IOR. */
#include "../base/util.h"
#include "../topo/topo.h"
#include "pattern.h"

#include <string.h>

/* ---- run lists ---- */

static void runs_span(const struct tacio_pattern *p, int rank, int64_t *lo, int64_t *hi)
{
    int64_t a = p->run_first[rank], b = p->run_first[rank + 1];
    *lo = a < b ? p->run_off[a] : 0;
    *hi = a < b ? p->run_off[b - 1] + p->run_len[b - 1] : 0;
}

/* The rank's last run starting below x, or -1. */
static int64_t run_below(const struct tacio_pattern *p, int rank, int64_t x)
{
    int64_t a = p->run_first[rank], b = p->run_first[rank + 1];
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        if (p->run_off[m] < x)
            a = m + 1;
        else
            b = m;
    }
    return a == p->run_first[rank] ? -1 : a - 1;
}

static int64_t runs_prefix(const struct tacio_pattern *p, int rank, int64_t x)
{
    int64_t r = run_below(p, rank, x);
    return r < 0 ? 0 : p->run_cum[r] + min64(p->run_len[r], x - p->run_off[r]);
}

static int runs_extents(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx)
{
    for (int64_t r = p->run_first[rank]; r < p->run_first[rank + 1]; r++) {
        int rc = fn(p->run_off[r], p->run_len[r], ctx);
        if (rc)
            return rc;
    }
    return 0;
}

static void runs_regions(const struct tacio_pattern *p, int rank, region_fn fn, void *ctx)
{
    for (int64_t r = p->run_first[rank]; r < p->run_first[rank + 1]; r++) {
        int64_t len = p->run_len[r];
        /* a summary's run holds fewer bytes, spread by prefix()'s rule */
        struct region g =
            p->run_bytes
                ? (struct region){p->run_off[r], p->run_off[r] + len, p->run_bytes[r], 0, 0}
                : (struct region){p->run_off[r], p->run_off[r] + len, len, len, len};
        fn(&g, ctx);
    }
}

const struct pattern_ops runs_ops = {"runs",       runs_span,    runs_prefix,
                                     runs_extents, runs_regions, NULL};

struct run_sort {
    const int *owner;
    const int64_t *off;
};
static _Thread_local struct run_sort sort_ctx;

static int cmp_run(const void *a, const void *b)
{
    int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
    if (sort_ctx.owner[i] != sort_ctx.owner[j])
        return sort_ctx.owner[i] < sort_ctx.owner[j] ? -1 : 1;
    return (sort_ctx.off[i] > sort_ctx.off[j]) - (sort_ctx.off[i] < sort_ctx.off[j]);
}

static int runs_fill(struct tacio_pattern *p, int64_t nruns, const int64_t *order, const int *owner,
                     const int64_t *off, const int64_t *len)
{
    int64_t cum = 0;
    int prev = -1;
    for (int64_t k = 0; k < nruns; k++) {
        int64_t i = order[k];
        int o = owner[i];
        if (o != prev)
            cum = 0;
        else if (off[i] < p->run_off[k - 1] + p->run_len[k - 1])
            return tacio_fail(TACIO_EINVAL,
                              "rank %d's extents overlap at offset %lld; a rank may not access "
                              "a byte twice",
                              o, (long long)off[i]);
        for (int r = prev + 1; r <= o; r++)
            p->run_first[r] = k;
        prev = o;
        p->run_off[k] = off[i];
        p->run_len[k] = len[i];
        p->run_cum[k] = cum;
        cum += len[i];
    }
    for (int r = prev + 1; r <= p->nprocs; r++)
        p->run_first[r] = nruns;
    return 0;
}

int runs_build(struct tacio_pattern *p, int64_t nruns, const int *owner, const int64_t *off,
               const int64_t *len)
{
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(nruns ? nruns : 1));
    p->run_off = malloc(sizeof(int64_t) * (size_t)(nruns ? nruns : 1));
    p->run_len = malloc(sizeof(int64_t) * (size_t)(nruns ? nruns : 1));
    p->run_cum = malloc(sizeof(int64_t) * (size_t)(nruns ? nruns : 1));
    p->run_first = malloc(sizeof(int64_t) * (size_t)(p->nprocs + 1));
    if (!order || !p->run_off || !p->run_len || !p->run_cum || !p->run_first) {
        free(order);
        return tacio_fail(TACIO_ENOMEM, "out of memory building run lists");
    }
    for (int64_t i = 0; i < nruns; i++)
        order[i] = i;
    sort_ctx = (struct run_sort){owner, off};
    qsort(order, (size_t)nruns, sizeof(int64_t), cmp_run);
    int rc = runs_fill(p, nruns, order, owner, off, len);
    free(order);
    p->ops = &runs_ops;
    return rc;
}

/* ---- summaries (the MPI engine's): runs with fewer bytes than length ---- */

static int64_t summary_prefix(const struct tacio_pattern *p, int rank, int64_t x)
{
    int64_t r = run_below(p, rank, x);
    if (r < 0)
        return 0;
    int64_t in = min64(p->run_len[r], x - p->run_off[r]);
    return p->run_cum[r] + (int64_t)((__int128)p->run_bytes[r] * in / p->run_len[r]);
}

static int summary_extents(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx)
{
    (void)p, (void)rank, (void)fn, (void)ctx;
    return tacio_fail(TACIO_EUNSUPPORTED, "a summary pattern has no extents");
}

static const struct pattern_ops summary_ops = {"summary",       runs_span,    summary_prefix,
                                               summary_extents, runs_regions, NULL};

static int64_t *copy64(const int64_t *src, int64_t n)
{
    int64_t *d = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (d && n)
        memcpy(d, src, sizeof(int64_t) * (size_t)n);
    return d;
}

int pattern_from_summary(int nprocs, const int64_t *run_first, const int64_t *off,
                         const int64_t *len, const int64_t *bytes, struct tacio_pattern **out)
{
    int64_t n = run_first[nprocs];
    struct tacio_pattern *p = xcalloc(1, sizeof *p);
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    *p = (struct tacio_pattern){.ops = &summary_ops, .nprocs = nprocs, .elem = 1};
    p->run_first = copy64(run_first, nprocs + 1);
    p->run_off = copy64(off, n);
    p->run_len = copy64(len, n);
    p->run_bytes = copy64(bytes, n);
    p->run_cum = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!p->run_first || !p->run_off || !p->run_len || !p->run_bytes || !p->run_cum) {
        tacio_pattern_free(p);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    for (int r = 0; r < nprocs; r++)
        for (int64_t k = run_first[r], cum = 0; k < run_first[r + 1]; cum += bytes[k++])
            p->run_cum[k] = cum;
    *out = p;
    return 0;
}

/* The file offset of the rank's data byte b (b < its bytes): the least x
 * in its span [lo, hi) with b + 1 bytes of it below x + 1, by bisection. */
static int64_t offset_of_byte(const struct tacio_pattern *p, int rank, int64_t lo, int64_t hi,
                              int64_t b)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (p->ops->prefix(p, rank, mid + 1) > b)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

int pattern_summarize(const struct tacio_pattern *pat, int k, struct tacio_pattern **out)
{
    int p = pat->nprocs;
    int64_t cap = (int64_t)p * k + 1;
    int64_t *first = malloc(sizeof(int64_t) * (size_t)(p + 1));
    int64_t *arr = malloc(sizeof(int64_t) * (size_t)(3 * cap));
    if (!first || !arr) {
        free(first), free(arr);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    int64_t *off = arr, *len = arr + cap, *bytes = arr + 2 * cap, m = 0;
    for (int r = 0; r < p; r++) {
        int64_t lo, hi;
        pat->ops->span(pat, r, &lo, &hi);
        int64_t n = hi > lo ? pattern_bytes_in(pat, r, lo, hi) : 0;
        first[r] = m;
        for (int q = 0; q < k; q++) {
            int64_t b0 = n * q / k, b1 = n * (q + 1) / k;
            if (b1 <= b0)
                continue;
            off[m] = offset_of_byte(pat, r, lo, hi, b0);
            len[m] = offset_of_byte(pat, r, lo, hi, b1 - 1) + 1 - off[m];
            bytes[m++] = b1 - b0;
        }
    }
    first[p] = m;
    int rc = pattern_from_summary(p, first, off, len, bytes, out);
    free(first), free(arr);
    return rc;
}

/* ---- IOR: segment s of rank r at (s*p + r)*B, in transfer-sized pieces ---- */

static void ior_span(const struct tacio_pattern *p, int rank, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)rank * p->block;
    *hi = ((p->segments - 1) * p->nprocs + rank + 1) * p->block;
}

static int64_t ior_prefix(const struct tacio_pattern *p, int rank, int64_t x)
{
    int64_t stride = (int64_t)p->nprocs * p->block;
    int64_t s = x / stride, within = x % stride;
    if (s >= p->segments)
        return p->segments * p->block;
    return s * p->block + max64(0, min64(within - rank * p->block, p->block));
}

static int ior_extents(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx)
{
    for (int64_t s = 0; s < p->segments; s++)
        for (int64_t t = 0; t < p->block; t += p->transfer) {
            int rc = fn((s * p->nprocs + rank) * p->block + t, p->transfer, ctx);
            if (rc)
                return rc;
        }
    return 0;
}

static void ior_regions(const struct tacio_pattern *p, int rank, region_fn fn, void *ctx)
{
    for (int64_t s = 0; s < p->segments; s++) {
        int64_t off = (s * p->nprocs + rank) * p->block;
        fn(&(struct region){off, off + p->block, p->block, p->block, p->block}, ctx);
    }
}

/* The ranks' blocks tile the file, segment after segment. */
static int64_t ior_total_below(const struct tacio_pattern *p, int64_t x)
{
    return max64(0, min64(x, p->segments * p->nprocs * p->block));
}

static const struct pattern_ops ior_ops = {"ior",       ior_span,    ior_prefix,
                                           ior_extents, ior_regions, ior_total_below};

int pattern_parse_ior(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                      int nprocs)
{
    const char *form = k->form;
    int rc;
    if ((rc = spec_get_size(s, "block", 1 << 20, 1, &p->block, form)) ||
        (rc = spec_get_size(s, "transfer", 256 << 10, 1, &p->transfer, form)) ||
        (rc = spec_get_i64(s, "segments", 1, 1, &p->segments, form)) ||
        (rc = spec_check_unused(s, form)))
        return rc;
    if (p->block % p->transfer)
        return tacio_fail(TACIO_EINVAL,
                          "ior block=%lld is not a multiple of transfer=%lld; "
                          "expected %s",
                          (long long)p->block, (long long)p->transfer, form);
    if (nprocs <= 0)
        return tacio_fail(TACIO_EINVAL, "ior needs a rank count; expected %s", form);
    if (p->block > INT64_MAX / p->segments / nprocs)
        return tacio_fail(TACIO_ERANGE, "ior file size overflows 64 bits");
    p->nprocs = nprocs;
    p->elem = 1;
    p->ops = &ior_ops;
    return 0;
}

/* ---- mesh: an unstructured-mesh-like layout (BISP3D in the LATP paper) ----
 * Element e's home is rank e*p/E (a METIS-like contiguous sub-domain); the
 * home region is cut into runs of random length, and one step in five gives a
 * single element to a random rank (the scattered boundary elements). */

struct run_buf {
    int *owner;
    int64_t *off, *len, n, cap;
};

static int run_push(struct run_buf *b, int owner, int64_t off, int64_t len)
{
    if (b->n && b->owner[b->n - 1] == owner && b->off[b->n - 1] + b->len[b->n - 1] == off) {
        b->len[b->n - 1] += len;
        return 0;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        int *o = realloc(b->owner, sizeof(int) * (size_t)b->cap);
        if (o)
            b->owner = o;
        int64_t *f = realloc(b->off, sizeof(int64_t) * (size_t)b->cap);
        if (f)
            b->off = f;
        int64_t *l = realloc(b->len, sizeof(int64_t) * (size_t)b->cap);
        if (l)
            b->len = l;
        if (!o || !f || !l)
            return tacio_fail(TACIO_ENOMEM, "out of memory building the mesh");
    }
    b->owner[b->n] = owner;
    b->off[b->n] = off;
    b->len[b->n] = len;
    b->n++;
    return 0;
}

static void run_buf_free(struct run_buf *b)
{
    free(b->owner);
    free(b->off);
    free(b->len);
}

static int mesh_generate(struct tacio_pattern *p, int64_t elems, uint64_t seed, struct run_buf *b)
{
    uint64_t st = seed;
    int64_t avg = max64(1, elems / ((int64_t)p->nprocs * 4));
    int rc = 0;
    for (int64_t e = 0; e < elems && !rc;) {
        int home = (int)((__int128)e * p->nprocs / elems);
        int64_t len = 1;
        int owner = home;
        if (rng_next(&st) % 5 == 0)
            owner = (int)(rng_next(&st) % (uint64_t)p->nprocs);
        else
            len = min64(elems - e, 1 + (int64_t)(rng_next(&st) % (uint64_t)(2 * avg)));
        rc = run_push(b, owner, e * p->elem, len * p->elem);
        e += len;
    }
    return rc;
}

int pattern_parse_mesh(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                       int nprocs)
{
    const char *form = k->form;
    int64_t elems, seed;
    int rc;
    if ((rc = spec_get_i64(s, "elems", 0, 1, &elems, form)) ||
        (rc = spec_get_i64(s, "seed", 1, 0, &seed, form)) ||
        (rc = spec_get_size(s, "elem", 8, 1, &p->elem, form)) || (rc = spec_check_unused(s, form)))
        return rc;
    if (elems == 0 || nprocs <= 0)
        return tacio_fail(TACIO_EINVAL, "mesh needs elems=E and a rank count; expected %s", form);
    if (elems > 2000000000LL)
        return tacio_fail(TACIO_ERANGE, "mesh elems=%lld is above 2e9", (long long)elems);
    if (p->elem > 1 << 20) /* as the grids': 2e9 such elements fit a 64-bit file */
        return tacio_fail(TACIO_ERANGE, "mesh elem=%lld is above 1 MiB", (long long)p->elem);
    p->nprocs = nprocs;
    struct run_buf b = {0};
    rc = mesh_generate(p, elems, (uint64_t)seed, &b);
    if (!rc)
        rc = runs_build(p, b.n, b.owner, b.off, b.len);
    run_buf_free(&b);
    return rc;
}

/* ---- extents:FILE ---- */

int64_t pattern_rank_limit = 100000000;

static int read_extent_line(char *line, struct run_buf *b, int *maxrank)
{
    strip_comment(line);
    long long r, off, len;
    char extra;
    int n = sscanf(line, "%lld %lld %lld %c", &r, &off, &len, &extra);
    if (n <= 0)
        return 0;
    if (n != 3 || r < 0 || r >= pattern_rank_limit || off < 0 || len < 0 || off > INT64_MAX - len)
        return TACIO_EINVAL;
    if (r > *maxrank)
        *maxrank = (int)r;
    return len ? run_push(b, (int)r, off, len) : 0;
}

/* A file kind's path: its spec is KIND:FILE and nothing else. */
static int file_arg(const struct pattern_kind *k, struct spec *s, const char **path)
{
    *path = s->arg;
    return s->arg && !s->nkv ? 0 : tacio_fail(TACIO_EINVAL, "expected %s", k->form);
}

int pattern_parse_extents(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                          int nprocs)
{
    const char *path;
    int rc = file_arg(k, s, &path);
    if (rc)
        return rc;
    FILE *f = fopen(path, "r");
    if (!f)
        return tacio_fail(TACIO_EIO, "cannot open extents file '%s'", path);
    struct run_buf b = {0};
    char line[512];
    int lineno = 0, maxrank = -1;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if ((rc = read_extent_line(line, &b, &maxrank)) == TACIO_EINVAL)
            rc =
                tacio_fail(rc, "%s:%d: expected 'rank offset length' (non-negative)", path, lineno);
    }
    fclose(f);
    if (!rc && maxrank < 0)
        rc =
            tacio_fail(TACIO_EINVAL, "%s: no extents; expected %s (%s)", path, k->form, k->summary);
    if (!rc && nprocs > 0 && maxrank >= nprocs)
        rc = tacio_fail(TACIO_EINVAL, "%s names rank %d but the job has %d ranks", path, maxrank,
                        nprocs);
    p->nprocs = nprocs > 0 ? nprocs : maxrank + 1;
    p->elem = 1;
    if (!rc)
        rc = runs_build(p, b.n, b.owner, b.off, b.len);
    run_buf_free(&b);
    return rc;
}

/* ---- matrix:FILE and in-memory C: FD j is laid out as the ranks' pieces in
 * rank order, so every generic pipeline stage works on it unchanged ---- */

struct trip_sort {
    const int *rank, *fd;
};
static _Thread_local struct trip_sort tsort;

static int cmp_trip(const void *a, const void *b)
{
    int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
    if (tsort.fd[i] != tsort.fd[j])
        return tsort.fd[i] < tsort.fd[j] ? -1 : 1;
    return (tsort.rank[i] > tsort.rank[j]) - (tsort.rank[i] < tsort.rank[j]);
}

static int layout_triplets(struct tacio_pattern *p, int nfds, int64_t n, const int *rank,
                           const int *fd, const int64_t *bytes)
{
    int64_t *order = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    p->fixed_start = malloc(sizeof(int64_t) * (size_t)(nfds + 1));
    if (!order || !p->fixed_start) {
        free(order);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    for (int64_t k = 0; k < n; k++)
        order[k] = k;
    tsort = (struct trip_sort){rank, fd};
    qsort(order, (size_t)n, sizeof(int64_t), cmp_trip);
    struct run_buf b = {0};
    int64_t pos = 0, k = 0;
    int rc = 0;
    for (int j = 0; j < nfds && !rc; j++) {
        p->fixed_start[j] = pos;
        for (; k < n && fd[order[k]] == j && !rc; k++) {
            int64_t t = order[k];
            if (bytes[t] > 0)
                rc = run_push(&b, rank[t], pos, bytes[t]);
            pos += bytes[t];
        }
    }
    p->fixed_start[nfds] = pos;
    p->nfixed = nfds;
    free(order);
    if (!rc)
        rc = runs_build(p, b.n, b.owner, b.off, b.len);
    run_buf_free(&b);
    return rc;
}

int pattern_from_triplets(int nprocs, int nfds, int64_t n, const int *rank, const int *fd,
                          const int64_t *bytes, struct tacio_pattern **out)
{
    *out = NULL;
    for (int64_t k = 0; k < n; k++)
        if (rank[k] < 0 || rank[k] >= nprocs || fd[k] < 0 || fd[k] >= nfds || bytes[k] < 0)
            return tacio_fail(TACIO_EINVAL, "entry %lld: rank %d, FD %d, bytes %lld out of range",
                              (long long)k, rank[k], fd[k], (long long)bytes[k]);
    struct tacio_pattern *p = xcalloc(1, sizeof *p);
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    p->nprocs = nprocs;
    p->elem = 1;
    int rc = layout_triplets(p, nfds, n, rank, fd, bytes);
    if (rc) {
        tacio_pattern_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

static int matrix_layout(struct tacio_pattern *p, const int64_t *c, int rows, int cols)
{
    int64_t n = (int64_t)rows * cols;
    int *rank = malloc(sizeof(int) * (size_t)(n ? n : 1)),
        *fd = malloc(sizeof(int) * (size_t)(n ? n : 1));
    int rc = rank && fd ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int64_t k = 0; !rc && k < n; k++) {
        rank[k] = (int)(k / cols);
        fd[k] = (int)(k % cols);
    }
    if (!rc)
        rc = layout_triplets(p, cols, n, rank, fd, c);
    free(rank);
    free(fd);
    return rc;
}

int pattern_parse_matrix(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                         int nprocs)
{
    const char *path;
    int64_t *c;
    int rows, cols;
    int rc = file_arg(k, s, &path);
    if (rc || (rc = read_int_matrix(path, &c, &rows, &cols)))
        return rc;
    if (nprocs > 0 && rows != nprocs)
        rc = tacio_fail(TACIO_EINVAL, "%s has %d rows but the job has %d ranks; expected %s", path,
                        rows, nprocs, k->form);
    p->nprocs = rows;
    p->elem = 1;
    if (!rc)
        rc = matrix_layout(p, c, rows, cols);
    free(c);
    return rc;
}
