#include "view.h"

#include "../base/util.h"
#include "../base/warm.h"
#include "pattern.h"

#include <string.h>

/* An array of cap extents in place of a (NULL: a new one, warm if a freed
 * one fits: warm.h). */
static int64_t *extents_array(int64_t *a, int64_t cap)
{
    size_t bytes = sizeof(int64_t) * (size_t)cap;
    return a ? realloc(a, bytes) : warm_alloc(bytes);
}

/* The builder's arrays, with room for cap extents (cap unchanged when
 * either cannot grow). */
static int flat_resize(struct flat_builder *b, int64_t cap)
{
    int64_t *o = extents_array(b->f.off, cap);
    if (o)
        b->f.off = o;
    int64_t *l = extents_array(b->f.len, cap);
    if (l)
        b->f.len = l;
    if (!o || !l)
        return tacio_fail(TACIO_ENOMEM, "out of memory flattening a datatype");
    b->cap = cap;
    return 0;
}

int flat_reserve(struct flat_builder *b, int64_t more)
{
    int64_t want = b->f.n + more;
    return more <= 0 || want <= b->cap ? 0 : flat_resize(b, want);
}

int flat_grow(struct flat_builder *b)
{
    return flat_resize(b, b->cap ? 2 * b->cap : 16);
}

int flat_append_repeat(struct flat_builder *b, const struct flat *t, int64_t base, int64_t count,
                       int64_t stride)
{
    if (t->n == 1 && t->len[0] == stride) /* back-to-back copies: one run */
        return flat_append(b, base + t->off[0], count * stride);
    for (int64_t k = 0; k < count; k++)
        for (int64_t i = 0; i < t->n; i++) {
            int rc = flat_append(b, base + k * stride + t->off[i], t->len[i]);
            if (rc)
                return rc;
        }
    return 0;
}

static uint64_t mix(uint64_t h, int64_t v)
{
    h ^= (uint64_t)v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

/* Lanes of the hash: one chain of multiplies through every extent waits on
 * each multiply in turn; four extents at a time go to four lanes, mixed at
 * the end. */
#define HASH_LANES 4

/* What sealing a flat carries from one extent to the next. */
struct seal {
    int64_t sum, end, off;
    bool monotonic, ordered;
};

/* Extent i of f into the seal and the hash lane h. */
static inline void seal_extent(struct flat *f, int64_t i, struct seal *s, uint64_t *h)
{
    int64_t off = f->off[i], len = f->len[i];
    f->cum[i] = s->sum;
    s->sum += len;
    s->monotonic &= off >= s->end;
    s->ordered &= off >= s->off;
    s->end = off + len;
    s->off = off;
    *h = mix(mix(*h, off), len);
}

/* f's prefix sums, whether it is monotonic, and its hash, in one pass. */
static void flat_seal(struct flat *f)
{
    uint64_t h0 = mix(mix(mix(0, f->n), f->lb), f->extent), h1 = 1, h2 = 2, h3 = 3;
    struct seal s = {0, INT64_MIN, INT64_MIN, true, true};
    int64_t i = 0;
    for (; i + HASH_LANES <= f->n; i += HASH_LANES) {
        seal_extent(f, i, &s, &h0);
        seal_extent(f, i + 1, &s, &h1);
        seal_extent(f, i + 2, &s, &h2);
        seal_extent(f, i + 3, &s, &h3);
    }
    for (; i < f->n; i++)
        seal_extent(f, i, &s, &h0);
    f->cum[f->n] = s.sum;
    f->size = s.sum;
    f->monotonic = s.monotonic;
    f->ordered = s.ordered;
    f->hash = mix(mix(mix(h0, (int64_t)h1), (int64_t)h2), (int64_t)h3);
}

int flat_finish(struct flat_builder *b, int64_t lb, int64_t extent, struct flat **out)
{
    struct flat *f = malloc(sizeof *f);
    int64_t *cum = warm_alloc(sizeof(int64_t) * (size_t)(b->f.n + 1));
    if (!f || !cum) {
        free(f);
        free(cum);
        free(b->f.off);
        free(b->f.len);
        return tacio_fail(TACIO_ENOMEM, "out of memory flattening a datatype");
    }
    *f = b->f;
    f->cum = cum;
    f->lb = lb;
    f->extent = extent;
    flat_seal(f);
    /* Reserved for blocks that merged: given back when most of it is, and
     * kept when a few merged, as for sorted irregular pieces, so that the
     * next flattening of such a type finds the arrays warm (warm.h). */
    if (b->cap - f->n > 4096 && f->n < b->cap / 2) {
        int64_t *o = realloc(f->off, sizeof(int64_t) * (size_t)(f->n + 1));
        int64_t *l = realloc(f->len, sizeof(int64_t) * (size_t)(f->n + 1));
        f->off = o ? o : f->off;
        f->len = l ? l : f->len;
    }
    f->refs = 1;
    memset(b, 0, sizeof *b);
    *out = f;
    return 0;
}

bool flat_equal(const struct flat *a, const struct flat *b)
{
    if (a == b)
        return true;
    if (!a || !b || a->hash != b->hash || a->n != b->n || a->lb != b->lb || a->extent != b->extent)
        return false;
    if (flat_shares_arrays(a, b)) /* a shell, a kept shape */
        return true;
    size_t bytes = sizeof(int64_t) * (size_t)a->n;
    return !memcmp(a->off, b->off, bytes) && !memcmp(a->len, b->len, bytes);
}

void flat_free(struct flat *f)
{
    if (!f)
        return;
    warm_free(f->off);
    warm_free(f->len);
    warm_free(f->cum);
    free(f);
}

void flat_hold(struct flat *f)
{
    __atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

void flat_release(struct flat *f)
{
    if (f && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0)
        flat_free(f);
}

/* Index of the extent holding stream byte r of one instance (0 <= r < size). */
static int64_t extent_at(const struct flat *f, int64_t r)
{
    int64_t a = 0, b = f->n - 1;
    while (a < b) {
        int64_t m = a + (b - a + 1) / 2;
        if (f->cum[m] <= r)
            a = m;
        else
            b = m - 1;
    }
    return a;
}

int64_t flat_offset_of(const struct flat *f, int64_t s)
{
    int64_t tile = s / f->size, r = s % f->size, i = extent_at(f, r);
    return tile * f->extent + f->off[i] + (r - f->cum[i]);
}

int64_t flat_run_start(const struct flat *f, int64_t r, int64_t n)
{
    if (flat_dense(f))
        return 0;
    int64_t i = extent_at(f, r);
    return r + n <= f->cum[i] + f->len[i] ? f->cum[i] : -1;
}

/* One byte, tiled: the view of a rank that accesses nothing, so the
 * pattern's per-rank queries never look into an empty filetype. */
static int64_t byte_zero = 0, byte_one = 1, byte_cum[2] = {0, 1};
static const struct flat byte_flat = {.n = 1,
                                      .off = &byte_zero,
                                      .len = &byte_one,
                                      .cum = byte_cum,
                                      .size = 1,
                                      .lb = 0,
                                      .extent = 1,
                                      .monotonic = true,
                                      .ordered = true,
                                      .refs = 1};

static int64_t flat_span(const struct flat *ft)
{
    return ft->off[ft->n - 1] + ft->len[ft->n - 1] - ft->off[0];
}

int view_access(const struct view *v, int64_t s0, int64_t n, struct flat *shell, struct view *out,
                int64_t *s0_out)
{
    if (n == 0) {
        *out = (struct view){0, &byte_flat};
        *s0_out = 0;
        return 0;
    }
    const struct flat *ft = v->ft;
    if (ft->size == 0)
        return tacio_fail(TACIO_EINVAL,
                          "an access of %lld bytes through a filetype that holds "
                          "no data",
                          (long long)n);
    if (!ft->monotonic)
        return tacio_fail(TACIO_EINVAL, "the filetype's displacements must be nondecreasing and "
                                        "its blocks disjoint (MPI file view rule)");
    int64_t tile = s0 / ft->size, last = (s0 + n - 1) / ft->size, span = flat_span(ft);
    if (tile != last && span > ft->extent)
        return tacio_fail(TACIO_EINVAL,
                          "the access crosses filetype tiles that overlap (extent %lld, data "
                          "span %lld): the accessed typemap would not be nondecreasing",
                          (long long)ft->extent, (long long)span);
    /* the last tile's end must be a file offset: below 2^62, as the stream
     * position is (a sparse filetype multiplies it; ROMIO crashes there) */
    int64_t reach = max64(span, ft->extent);
    if (v->disp > INT64_MAX / 2 || last >= (INT64_MAX / 2 - v->disp) / reach)
        return tacio_fail(TACIO_EINVAL,
                          "the access reaches beyond any file: tile %lld of a %lld-byte "
                          "filetype extent",
                          (long long)last, (long long)ft->extent);
    *out = *v;
    *s0_out = s0;
    if (tile == last && span > ft->extent) {
        /* one tile of a type whose tiles would overlap (HDF5, PnetCDF): serve
         * that tile alone, tiled at its span so no other tile is ever met */
        *shell = *ft;
        shell->extent = span;
        *out = (struct view){v->disp + tile * ft->extent, shell};
        *s0_out = s0 - tile * ft->size;
    }
    if (view_offset_of(out, *s0_out) < 0)
        return tacio_fail(TACIO_EINVAL,
                          "the access starts at file offset %lld, below the "
                          "file's start",
                          (long long)view_offset_of(out, *s0_out));
    return 0;
}

int64_t view_bytes_below(const struct view *v, int64_t x)
{
    const struct flat *f = v->ft;
    int64_t y = x - v->disp, off0 = f->off[0];
    if (y <= off0)
        return 0;
    int64_t k = (y - off0) / f->extent, r = y - k * f->extent;
    int64_t a = 0, b = f->n - 1; /* last extent starting below r */
    while (a < b) {
        int64_t m = a + (b - a + 1) / 2;
        if (f->off[m] < r)
            a = m;
        else
            b = m - 1;
    }
    return k * f->size + f->cum[a] + min64(f->len[a], r - f->off[a]);
}

int view_walk(const struct view *v, int64_t s0, int64_t s1, int64_t lo, int64_t hi, piece_fn fn,
              void *ctx)
{
    const struct flat *f = v->ft;
    if (flat_dense(f)) {
        int64_t a = max64(s0, view_bytes_below(v, lo)), b = min64(s1, view_bytes_below(v, hi));
        return a < b ? fn(view_offset_of(v, a), b - a, a, ctx) : 0;
    }
    int64_t s = max64(s0, view_bytes_below(v, lo));
    if (s >= s1)
        return 0;
    int64_t tile = s / f->size, r = s % f->size, i = extent_at(f, r);
    int64_t into = r - f->cum[i];
    while (s < s1) {
        int64_t off = v->disp + tile * f->extent + f->off[i] + into;
        if (off >= hi)
            break;
        int64_t len = min64(min64(f->len[i] - into, s1 - s), hi - off);
        int rc = fn(off, len, s, ctx);
        if (rc)
            return rc;
        s += len;
        into = 0;
        if (++i == f->n) {
            i = 0;
            tile++;
        }
    }
    return 0;
}

/* Extent instances (tile t's extent e is instance t * n + e, in stream and
 * file order alike) of the filetype, relative to the view's displacement. */

/* Extents of one tile whose position pos[e] (ends or starts, increasing) is
 * below y (strictly when strict), y taken inside the tile. */
static int64_t extents_below(const struct flat *f, int64_t y, bool ends, bool strict)
{
    int64_t a = 0, b = f->n; /* the first e whose position is not below y */
    while (a < b) {
        int64_t m = a + (b - a) / 2, pos = f->off[m] + (ends ? f->len[m] : 0);
        if (strict ? pos < y : pos <= y)
            a = m + 1;
        else
            b = m;
    }
    return a;
}

/* Instances whose end is <= y (ends) or whose start is < y (starts). Tile
 * t's are all below when t * extent + its last position is; the next
 * tile's are counted in it (the tiles never overlap: view_access). */
static int64_t instances_below(const struct flat *f, int64_t y, bool ends)
{
    int64_t last = f->off[f->n - 1] + (ends ? f->len[f->n - 1] : 0);
    int64_t room = ends ? y - last : y - last - 1;
    int64_t full = room >= 0 ? room / f->extent + 1 : 0;
    return full * f->n + extents_below(f, y - full * f->extent, ends, !ends);
}

/* Instances whose stream bytes end at or below s (ends), or begin below s. */
static int64_t instances_in_stream(const struct flat *f, int64_t s, bool ends)
{
    int64_t t = s / f->size, r = s % f->size, a = 0, b = f->n;
    while (a < b) { /* extents with cum[e + 1] <= r (ends) or cum[e] < r */
        int64_t m = a + (b - a) / 2;
        if (ends ? f->cum[m + 1] <= r : f->cum[m] < r)
            a = m + 1;
        else
            b = m;
    }
    return t * f->n + a;
}

void view_count(const struct view *v, int64_t s0, int64_t s1, int64_t lo, int64_t hi,
                int64_t *pieces, int64_t *bytes)
{
    const struct flat *f = v->ft;
    *pieces = *bytes = 0;
    if (s0 >= s1 || lo >= hi)
        return;
    int64_t below_lo = max64(s0, min64(s1, view_bytes_below(v, lo)));
    int64_t below_hi = max64(s0, min64(s1, view_bytes_below(v, hi)));
    *bytes = below_hi - below_lo;
    if (*bytes <= 0)
        return;
    int64_t first = max64(instances_below(f, lo - v->disp, true), instances_in_stream(f, s0, true));
    int64_t end = min64(instances_below(f, hi - v->disp, false), instances_in_stream(f, s1, false));
    *pieces = max64(0, end - first);
    bool joined = f->off[f->n - 1] + f->len[f->n - 1] == f->extent + f->off[0];
    if (joined && *pieces > 1) /* each tile's first instance in range after `first` continues */
        *pieces -= (end - 1) / f->n - first / f->n;
}

static void flat_copy_bytes(const struct flat *mt, char *base, int64_t s, int64_t len, char *buf,
                            bool to_mem)
{
    if (len <= 0)
        return;
    if (flat_dense(mt)) {
        char *p = base + flat_offset_of(mt, s);
        copy_bytes(to_mem ? p : buf, to_mem ? buf : p, (size_t)len);
        return;
    }
    int64_t tile = s / mt->size, r = s % mt->size, i = extent_at(mt, r);
    int64_t into = r - mt->cum[i];
    while (len > 0) {
        char *p = base + tile * mt->extent + mt->off[i] + into;
        int64_t n = min64(mt->len[i] - into, len);
        if (to_mem)
            copy_bytes(p, buf, (size_t)n);
        else
            copy_bytes(buf, p, (size_t)n);
        buf += n;
        len -= n;
        into = 0;
        if (++i == mt->n) {
            i = 0;
            tile++;
        }
    }
}

char *flat_run(const struct flat *mt, char *base, int64_t s, int64_t len)
{
    if (len <= 0)
        return NULL;
    if (flat_dense(mt))
        return base + flat_offset_of(mt, s);
    int64_t r = s % mt->size, i = extent_at(mt, r), into = r - mt->cum[i];
    return into + len <= mt->len[i] ? base + (s / mt->size) * mt->extent + mt->off[i] + into : NULL;
}

void flat_gather(const struct flat *mt, const char *base, int64_t s, int64_t len, char *dst)
{
    flat_copy_bytes(mt, (char *)base, s, len, dst, false);
}

void flat_scatter(const struct flat *mt, char *base, int64_t s, int64_t len, const char *src)
{
    flat_copy_bytes(mt, base, s, len, (char *)src, true);
}

/* ---- the views pattern ---- */

static void views_span(const struct tacio_pattern *p, int rank, int64_t *lo, int64_t *hi)
{
    const struct view *v = &p->views[rank];
    int64_t s0 = p->view_s0[rank], n = p->view_n[rank];
    *lo = n ? view_offset_of(v, s0) : 0;
    *hi = n ? view_offset_of(v, s0 + n - 1) + 1 : 0;
}

static int64_t views_prefix(const struct tacio_pattern *p, int rank, int64_t x)
{
    int64_t below = view_bytes_below(&p->views[rank], x) - p->view_s0[rank];
    return max64(0, min64(below, p->view_n[rank]));
}

struct extent_adapter {
    extent_fn fn;
    void *ctx;
};

static int adapt_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    (void)spos;
    struct extent_adapter *a = ctx;
    return a->fn(off, len, a->ctx);
}

static int views_extents(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx)
{
    struct extent_adapter a = {fn, ctx};
    int64_t s0 = p->view_s0[rank];
    return view_walk(&p->views[rank], s0, s0 + p->view_n[rank], INT64_MIN / 4, INT64_MAX / 4,
                     adapt_piece, &a);
}

static const struct pattern_ops views_ops = {
    .name = "views", .span = views_span, .prefix = views_prefix, .extents = views_extents};

int pattern_from_views(int nprocs, const struct view *views, const int64_t *s0, const int64_t *n,
                       struct tacio_pattern **out)
{
    struct tacio_pattern *p = xcalloc(1, sizeof *p);
    struct view *v = malloc(sizeof *v * (size_t)nprocs);
    int64_t *a = malloc(sizeof(int64_t) * (size_t)nprocs);
    int64_t *b = malloc(sizeof(int64_t) * (size_t)nprocs);
    if (!p || !v || !a || !b) {
        free(p);
        free(v);
        free(a);
        free(b);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    memcpy(v, views, sizeof *v * (size_t)nprocs);
    memcpy(a, s0, sizeof(int64_t) * (size_t)nprocs);
    memcpy(b, n, sizeof(int64_t) * (size_t)nprocs);
    p->ops = &views_ops;
    p->nprocs = nprocs;
    p->elem = 1;
    p->views = v;
    p->view_s0 = a;
    p->view_n = b;
    *out = p;
    return 0;
}
