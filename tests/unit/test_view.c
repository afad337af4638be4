/* File views and memory streams against brute force over explicit byte maps. */
#include "base/util.h"
#include "check.h"
#include "plan/pattern.h"
#include "plan/view.h"

#include <string.h>

#define SPAN 4096

static struct flat *random_flat(uint64_t *st, bool monotonic)
{
    struct flat_builder b = {0};
    int n = 1 + (int)(rng_next(st) % 6);
    int64_t pos = (int64_t)(rng_next(st) % 4);
    for (int i = 0; i < n; i++) {
        int64_t len = 1 + (int64_t)(rng_next(st) % 5);
        int64_t off = monotonic ? pos : (int64_t)(rng_next(st) % 40);
        flat_append(&b, off, len);
        pos += len + (int64_t)(rng_next(st) % 4);
    }
    int64_t hi = 0;
    for (int64_t i = 0; i < b.f.n; i++)
        hi = max64(hi, b.f.off[i] + b.f.len[i]);
    struct flat *f;
    flat_finish(&b, 0, hi + (int64_t)(rng_next(st) % 5), &f);
    return f;
}

/* byte map: owner stream position of each file byte, -1 if none */
static void file_map(const struct view *v, int64_t nbytes, int64_t *map)
{
    for (int64_t x = 0; x < SPAN; x++)
        map[x] = -1;
    for (int64_t s = 0; s < nbytes; s++) {
        int64_t off = view_offset_of(v, s);
        if (off < SPAN)
            map[off] = s;
    }
}

struct walk_check {
    const int64_t *map;
    int64_t count;
    int bad;
};

static int check_piece(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct walk_check *w = ctx;
    for (int64_t k = 0; k < len; k++)
        if (off + k >= SPAN || w->map[off + k] != spos + k)
            w->bad++;
    w->count += len;
    return 0;
}

static void test_views(void)
{
    uint64_t st = 11;
    static int64_t map[SPAN];
    for (int trial = 0; trial < 300; trial++) {
        struct flat *ft = random_flat(&st, true);
        struct view v = {(int64_t)(rng_next(&st) % 20), ft};
        int64_t nbytes = 40 * ft->size;
        file_map(&v, nbytes, map);
        int64_t below = 0, mapped = min64(SPAN, view_offset_of(&v, nbytes - 1) + 1);
        for (int64_t x = 0; x <= mapped; x++) {
            CHECK_EQ(view_bytes_below(&v, x), below);
            below += x < mapped && map[x] >= 0;
        }
        int64_t s0 = (int64_t)(rng_next(&st) % 30);
        int64_t s1 = min64(nbytes, s0 + (int64_t)(rng_next(&st) % 200));
        int64_t lo = (int64_t)(rng_next(&st) % 300), hi = lo + (int64_t)(rng_next(&st) % 300);
        struct walk_check w = {map, 0, 0};
        CHECK_EQ(view_walk(&v, s0, s1, lo, hi, check_piece, &w), 0);
        int64_t want = 0;
        for (int64_t x = lo; x < hi; x++)
            want += map[x] >= s0 && map[x] < s1;
        CHECK_EQ(w.bad, 0);
        CHECK_EQ(w.count, want);
        /* the pattern built from it agrees with the walk */
        struct tacio_pattern *p;
        int64_t n = s1 - s0;
        CHECK_EQ(pattern_from_views(1, &v, &s0, &n, &p), 0);
        CHECK_EQ(pattern_bytes_in(p, 0, lo, hi), want);
        tacio_pattern_free(p);
        flat_free(ft);
    }
}

static void test_memory_streams(void)
{
    uint64_t st = 5;
    for (int trial = 0; trial < 200; trial++) {
        struct flat *mt = random_flat(&st, false); /* typemap order, may go backwards */
        char mem[1024], back[1024], packed[512];
        for (int i = 0; i < 1024; i++)
            mem[i] = (char)rng_next(&st);
        memcpy(back, mem, sizeof mem);
        int64_t total = min64(10 * mt->size, 400);
        int64_t s = (int64_t)(rng_next(&st) % (uint64_t)total), len = total - s;
        flat_gather(mt, mem, s, len, packed);
        for (int64_t k = 0; k < len; k++)
            CHECK_EQ(packed[k], mem[flat_offset_of(mt, s + k)]);
        memset(back, 0, sizeof back);
        flat_scatter(mt, back, s, len, packed);
        for (int64_t k = 0; k < len; k++)
            CHECK_EQ(back[flat_offset_of(mt, s + k)], packed[k]);
        flat_free(mt);
    }
}

/* view_access: what an access may do with a filetype (MPI asks only the
 * accessed typemap to be nondecreasing). */
static void test_view_access(void)
{
    struct flat_builder b = {0};
    struct flat *f, shell;
    struct view out;
    int64_t s0;
    flat_append(&b, 8, 4);
    flat_append(&b, 0, 4); /* goes backwards */
    flat_finish(&b, 0, 16, &f);
    CHECK_EQ(view_access(&(struct view){0, f}, 0, 8, &shell, &out, &s0), TACIO_EINVAL);
    CHECK_EQ(view_access(&(struct view){0, f}, 0, 0, &shell, &out, &s0), 0); /* no access */
    flat_free(f);
    /* HDF5's form: extent 4 below the span 30; one tile at a time is fine */
    memset(&b, 0, sizeof b);
    flat_append(&b, 0, 8);
    flat_append(&b, 20, 10);
    flat_finish(&b, 0, 4, &f);
    struct view v = {100, f};
    CHECK_EQ(view_access(&v, 18, 18, &shell, &out, &s0), 0); /* all of tile 1 */
    CHECK_EQ(s0, 0);
    CHECK_EQ(out.disp, 104);
    CHECK_EQ(view_offset_of(&out, s0), 104);
    CHECK_EQ(view_offset_of(&out, s0 + 17), 104 + 29);
    CHECK_EQ(view_bytes_below(&out, 134), 18);
    CHECK_EQ(view_bytes_below(&out, 126), 10);
    CHECK_EQ(view_access(&v, 10, 10, &shell, &out, &s0), TACIO_EINVAL); /* tiles 0 and 1 */
    CHECK_EQ(view_access(&(struct view){-2, f}, 0, 4, &shell, &out, &s0), TACIO_EINVAL);
    flat_free(f);
    /* an empty filetype: only empty accesses */
    memset(&b, 0, sizeof b);
    flat_finish(&b, 0, 0, &f);
    CHECK_EQ(view_access(&(struct view){0, f}, 0, 0, &shell, &out, &s0), 0);
    CHECK_EQ(s0, 0);
    CHECK_EQ(view_access(&(struct view){0, f}, 0, 1, &shell, &out, &s0), TACIO_EINVAL);
    flat_free(f);
    /* a sparse filetype (48 bytes of data in a 192-byte extent) turns a
     * stream position of 2^61 into a file offset of 2^63: refused (both
     * MPIs' ROMIO crash on it; the differential fuzzer met it) */
    memset(&b, 0, sizeof b);
    flat_append(&b, 0, 48);
    flat_finish(&b, 0, 192, &f);
    int64_t far = (int64_t)1 << 61;
    CHECK_EQ(view_access(&(struct view){8, f}, far, 368, &shell, &out, &s0), TACIO_EINVAL);
    CHECK(strstr(tacio_last_error(), "beyond any file") != NULL);
    CHECK_EQ(view_access(&(struct view){8, f}, (int64_t)1 << 40, 368, &shell, &out, &s0), 0);
    flat_free(f);
}

/* Pieces as the engine's walk yields them: touching ones (in the file and
 * the stream) merged. */
struct merged {
    int64_t pieces, bytes, end, send;
};

static int count_merged(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct merged *m = ctx;
    if (!m->pieces || off != m->end || spos != m->send)
        m->pieces++;
    m->bytes += len;
    m->end = off + len;
    m->send = spos + len;
    return 0;
}

/* view_count against the walk, on random views (some whose tiles join into
 * one run, some with the extent at its least), streams and file ranges. */
static void test_view_count(void)
{
    uint64_t st = 23;
    for (int iter = 0; iter < 20000; iter++) {
        struct flat *f = random_flat(&st, true);
        int64_t span = f->off[f->n - 1] + f->len[f->n - 1] - f->off[0];
        int kind = (int)(rng_next(&st) % 3);
        if (kind == 0) /* tiles that join: the next tile's first extent continues */
            f->extent = span;
        else if (kind == 1)
            f->extent = span + (int64_t)(rng_next(&st) % 7);
        struct view v = {(int64_t)(rng_next(&st) % 50), f};
        int64_t s0 = (int64_t)(rng_next(&st) % (4 * f->size));
        int64_t s1 = s0 + (int64_t)(rng_next(&st) % (6 * f->size + 1));
        int64_t lo = (int64_t)(rng_next(&st) % (8 * f->extent + 60)) - 5;
        int64_t hi = lo + (int64_t)(rng_next(&st) % (6 * f->extent + 10));
        struct merged m = {0};
        view_walk(&v, s0, s1, lo, hi, count_merged, &m);
        int64_t pieces, bytes;
        view_count(&v, s0, s1, lo, hi, &pieces, &bytes);
        CHECK_EQ(bytes, m.bytes);
        CHECK_EQ(pieces, m.pieces);
        flat_free(f);
    }
}

/* flat_run_start: where it names a run's start k for stream bytes
 * [r, r + n), the bytes from k lie as those from r do, moved by one
 * offset (an access's shape taken from k is the access's, shifted); and
 * every access inside one piece, or of a filetype without gaps, has one. */
static void test_run_start(void)
{
    uint64_t st = 23;
    for (int t = 0; t < 400; t++) {
        struct flat *f = random_flat(&st, true);
        bool dense = flat_dense(f);
        for (int q = 0; q < 20; q++) {
            int64_t i = (int64_t)(rng_next(&st) % (uint64_t)f->n);
            int64_t r = f->cum[i] + (int64_t)(rng_next(&st) % (uint64_t)f->len[i]);
            bool inside = rng_next(&st) % 2;
            int64_t room = f->cum[i] + f->len[i] - r;
            int64_t n = inside ? 1 + (int64_t)(rng_next(&st) % (uint64_t)room)
                               : 1 + (int64_t)(rng_next(&st) % (uint64_t)(3 * f->size));
            int64_t k = flat_run_start(f, r, n);
            CHECK(k >= 0 || (!inside && !dense));
            CHECK(k < 0 || k == (dense ? 0 : f->cum[i]));
            int64_t moved = k < 0 ? 0 : flat_offset_of(f, r) - flat_offset_of(f, k);
            for (int64_t j = 0; k >= 0 && j < n; j++)
                CHECK_EQ(flat_offset_of(f, r + j), flat_offset_of(f, k + j) + moved);
        }
        flat_free(f);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        check_set_data_dir(argv[1]);
    test_views();
    test_view_count();
    test_memory_streams();
    test_view_access();
    test_run_start();
    return check_report("test_view");
}
