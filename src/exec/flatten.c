#include "flatten.h"

#include "../base/warm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static int flatten(MPI_Datatype t, struct flat **out);
static int flatten_named(MPI_Datatype t, struct flat **out);
static struct flat *named_known(MPI_Datatype t);

static int cache_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT; /* threads flatten at once */

static int delete_cached(MPI_Datatype t, int keyval, void *attr, void *extra)
{
    (void)t;
    (void)keyval;
    (void)extra;
    flat_release(attr); /* a view may still hold it */
    return MPI_SUCCESS;
}

static int named_flat(MPI_Datatype t, struct flat **out)
{
    int size;
    MPI_Aint lb, extent;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    struct flat_builder b = {0};
    int rc;
    if (t == MPI_SHORT_INT) { /* the one pair type with a hole after its first member */
        rc = flat_append(&b, 0, sizeof(short));
        if (!rc)
            rc = flat_append(&b, extent - (MPI_Aint)sizeof(int), sizeof(int));
    } else
        rc = flat_append(&b, 0, size);
    return rc ? rc : flat_finish(&b, lb, extent, out);
}

/* A type's contents, and its member types flattened. Most types are small
 * (the members of HDF5's struct of chunks: a contiguous run each), and
 * theirs fit in the struct itself: no allocation a member. */
#define CONTENTS_INLINE 8
struct contents {
    int ni, na, nd, combiner;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
    struct flat **sub; /* flattened types[], held; for a struct's member built in place
                        * NULL, or built_in_place once found derived */
    int ints_in[3 * CONTENTS_INLINE];
    MPI_Aint aints_in[CONTENTS_INLINE];
    MPI_Datatype types_in[CONTENTS_INLINE];
    struct flat *sub_in[CONTENTS_INLINE];
};

/* A struct's member built in place (append_type) that was a derived type:
 * contents_free frees its handle without asking MPI what it is. */
static struct flat built_in_place;

/* Member i's handle freed where it is a derived type's. A member flattened
 * or built in place was found derived then (a named one is in tacio's
 * table by now): MPI is asked only about a member never looked at, which
 * saves HDF5's struct of chunks one MPI call a chunk (MPICH takes a lock
 * in each). */
static void member_free(struct contents *c, int i)
{
    if (named_known(c->types[i])) /* the process's own flat; a handle never freed */
        return;
    bool derived = c->sub[i] != NULL;
    if (c->sub[i] != &built_in_place)
        flat_release(c->sub[i]);
    if (!derived) {
        int ni, na, nd, comb;
        MPI_Type_get_envelope(c->types[i], &ni, &na, &nd, &comb);
        derived = comb != MPI_COMBINER_NAMED;
    }
    if (derived)
        MPI_Type_free(&c->types[i]);
}

static void contents_free(struct contents *c)
{
    for (int i = 0; i < c->nd; i++)
        member_free(c, i);
    if (c->ints != c->ints_in)
        warm_free(c->ints);
    if (c->aints != c->aints_in)
        warm_free(c->aints);
    if (c->types != c->types_in)
        warm_free(c->types);
    if (c->sub != c->sub_in)
        warm_free(c->sub);
}

/* Room for n elements of `size` bytes: the inline array when they fit
 * (a million-block type's, warm: warm.h). */
static void *room(void *in, int fits, int n, size_t size)
{
    return n <= fits ? in : warm_alloc(size * (size_t)n);
}

/* t's contents, its envelope (ni, na, nd, combiner) known. */
static int contents_of(MPI_Datatype t, int ni, int na, int nd, int combiner, struct contents *c)
{
    c->ni = ni, c->na = na, c->nd = nd, c->combiner = combiner;
    c->ints = room(c->ints_in, 3 * CONTENTS_INLINE, c->ni, sizeof(int));
    c->aints = room(c->aints_in, CONTENTS_INLINE, c->na, sizeof(MPI_Aint));
    c->types = room(c->types_in, CONTENTS_INLINE, c->nd, sizeof(MPI_Datatype));
    c->sub = room(c->sub_in, CONTENTS_INLINE, c->nd, sizeof(struct flat *));
    if (!c->ints || !c->aints || !c->types || !c->sub) {
        int nd = c->nd;
        c->nd = 0; /* no member types to free */
        return tacio_fail(TACIO_ENOMEM, "out of memory decoding a datatype of %d members", nd);
    }
    memset(c->sub, 0, sizeof(struct flat *) * (size_t)c->nd);
    MPI_Type_get_contents(t, c->ni, c->na, c->nd, c->ints, c->aints, c->types);
    for (int i = 0; i < c->nd; i++) {
        if (c->combiner == MPI_COMBINER_STRUCT && c->ints[1 + i] == 1)
            continue; /* one copy: flat_struct builds it in place */
        int rc = flatten(c->types[i], &c->sub[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int contents_get(MPI_Datatype t, struct contents *c)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
    return contents_of(t, ni, na, nd, combiner, c);
}

/* blocks k: count_k copies of old at byte displacement disp_k; a block of
 * a dense old type (a named one, most often) is one extent, appended
 * inline (PnetCDF's varn builds types of a million such blocks) */
static int append_blocks(struct flat_builder *b, const struct flat *old, int n, const int *counts,
                         int count_all, const MPI_Aint *bdisp, const int *edisp, int64_t stride)
{
    bool dense = flat_dense(old);
    for (int k = 0; k < n; k++) {
        int64_t d = bdisp   ? (int64_t)bdisp[k]
                    : edisp ? (int64_t)edisp[k] * old->extent
                            : k * stride;
        int64_t count = counts ? counts[k] : count_all;
        int rc = dense ? flat_append(b, d + old->off[0], count * old->extent)
                       : flat_append_repeat(b, old, d, count, old->extent);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- subarray and darray: index lists per dimension ---- */

struct dim_list {
    int64_t *idx; /* global indices owned, increasing */
    int64_t n, cap;
};

static int dim_push(struct dim_list *d, int64_t v)
{
    int rc = grow_array((void **)&d->idx, sizeof *d->idx, d->n + 1, &d->cap);
    if (!rc)
        d->idx[d->n++] = v;
    return rc;
}

/* Odometer over every dimension but the fastest; the fastest dimension's
 * indices are appended as runs of old. */
static int append_grid(struct flat_builder *b, const struct flat *old, int nd, const int64_t *gsize,
                       struct dim_list *dims, bool c_order)
{
    int64_t pos[32] = {0};
    int fast = c_order ? nd - 1 : 0;
    for (int d = 0; d < nd; d++)
        if (dims[d].n == 0)
            return 0;
    for (;;) {
        int64_t base = 0; /* linear index of the row start */
        for (int k = 0; k < nd; k++) {
            int d = c_order ? k : nd - 1 - k;
            base = base * gsize[d] + (d == fast ? 0 : dims[d].idx[pos[d]]);
        }
        const struct dim_list *f = &dims[fast];
        for (int64_t i = 0; i < f->n;) {
            int64_t j = i + 1;
            while (j < f->n && f->idx[j] == f->idx[j - 1] + 1)
                j++;
            int rc =
                flat_append_repeat(b, old, (base + f->idx[i]) * old->extent, j - i, old->extent);
            if (rc)
                return rc;
            i = j;
        }
        int k = c_order ? nd - 2 : 1; /* advance the odometer */
        while (k >= 0 && k < nd && ++pos[k] == dims[k].n) {
            pos[k] = 0;
            k += c_order ? -1 : 1;
        }
        if (k < 0 || k >= nd)
            return 0;
    }
}

static int flat_subarray(const struct contents *c, struct flat_builder *b)
{
    int nd = c->ints[0];
    const int *sizes = c->ints + 1, *sub = c->ints + 1 + nd, *starts = c->ints + 1 + 2 * nd;
    bool c_order = c->ints[1 + 3 * nd] == MPI_ORDER_C;
    struct dim_list dims[32] = {{0}};
    int64_t g[32];
    int rc = nd > 32 ? tacio_fail(TACIO_EUNSUPPORTED, "subarray of %d dimensions", nd) : 0;
    for (int d = 0; !rc && d < nd; d++) {
        g[d] = sizes[d];
        for (int64_t i = starts[d]; !rc && i < starts[d] + sub[d]; i++)
            rc = dim_push(&dims[d], i);
    }
    if (!rc)
        rc = append_grid(b, c->sub[0], nd, g, dims, c_order);
    for (int d = 0; d < nd && d < 32; d++)
        free(dims[d].idx);
    return rc;
}

/* Indices one process owns along one darray dimension. */
static int darray_dim(int64_t gsize, int distrib, int darg, int nprocs, int coord,
                      struct dim_list *out)
{
    int rc = 0;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (int64_t i = 0; !rc && i < gsize; i++)
            rc = dim_push(out, i);
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + nprocs - 1) / nprocs : darg;
        for (int64_t i = coord * blk; !rc && i < min64(gsize, (coord + 1) * blk); i++)
            rc = dim_push(out, i);
    } else {
        int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (int64_t s = coord * blk; !rc && s < gsize; s += nprocs * blk)
            for (int64_t i = s; !rc && i < min64(gsize, s + blk); i++)
                rc = dim_push(out, i);
    }
    return rc;
}

static int flat_darray(const struct contents *c, struct flat_builder *b)
{
    int size = c->ints[0], rank = c->ints[1], nd = c->ints[2];
    const int *gs = c->ints + 3, *distrib = c->ints + 3 + nd, *darg = c->ints + 3 + 2 * nd;
    const int *psize = c->ints + 3 + 3 * nd;
    bool c_order = c->ints[3 + 4 * nd] == MPI_ORDER_C;
    struct dim_list dims[32] = {{0}};
    int64_t g[32];
    int rc = nd > 32 ? tacio_fail(TACIO_EUNSUPPORTED, "darray of %d dimensions", nd) : 0;
    (void)size;
    /* the process grid is row-major whatever the array order */
    for (int d = nd - 1, r = rank; !rc && d >= 0; d--) {
        g[d] = gs[d];
        rc = darray_dim(gs[d], distrib[d], darg[d], psize[d], r % psize[d], &dims[d]);
        r /= psize[d];
    }
    if (!rc)
        rc = append_grid(b, c->sub[0], nd, g, dims, c_order);
    for (int d = 0; d < nd && d < 32; d++)
        free(dims[d].idx);
    return rc;
}

static int build_by_combiner(struct contents *c, struct flat_builder *b);

/* t's extents appended at base, built in place rather than flattened into a
 * flat of its own first: HDF5's linked-chunk I/O hands over a struct of one
 * derived type a chunk, tens of thousands of them, and a flat each cost
 * 1.6 us a member (bench/io/flatbench's chunks case). Each MPI call here
 * runs once a chunk (MPICH takes a lock in each): the envelope is asked
 * once, and a named member is found in tacio's own table. */
static int append_type(struct flat_builder *b, MPI_Datatype t, int64_t base, bool *derived)
{
    *derived = false;
    struct flat *f = named_known(t);
    if (f)
        return flat_append_repeat(b, f, base, 1, f->extent);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        int rc = flatten_named(t, &f);
        return rc ? rc : flat_append_repeat(b, f, base, 1, f->extent);
    }
    *derived = true;
    struct contents c;
    int rc = contents_of(t, ni, na, nd, comb, &c);
    b->shift += base;
    if (!rc)
        rc = build_by_combiner(&c, b);
    b->shift -= base;
    contents_free(&c);
    return rc;
}

static int flat_struct(struct contents *c, struct flat_builder *b)
{
    for (int k = 0; k < c->ints[0]; k++) {
        const struct flat *old = c->sub[k];
        bool derived = false;
        int rc = old ? flat_append_repeat(b, old, c->aints[k], c->ints[1 + k], old->extent)
                     : append_type(b, c->types[k], c->aints[k], &derived);
        if (derived)
            c->sub[k] = &built_in_place;
        if (rc)
            return rc;
    }
    return 0;
}

/* About how many extents the blocks of an indexed or struct type append:
 * a block of a dense old type is one, else its count times old's; capped,
 * since this only sizes the builder's first allocation. */
static int64_t extents_estimate(const struct contents *c)
{
    const int *I = c->ints;
    int64_t n = 0, cap = (int64_t)1 << 26;
    bool is_struct = c->combiner == MPI_COMBINER_STRUCT;
    bool per_block =
        is_struct || c->combiner == MPI_COMBINER_INDEXED || c->combiner == MPI_COMBINER_HINDEXED;
    for (int k = 0; k < I[0] && n < cap; k++) {
        const struct flat *old = c->sub[is_struct ? k : 0];
        int64_t count = per_block ? I[1 + k] : I[1];
        n += !old || flat_dense(old) ? 1 : count * old->n; /* !old: a member built in place */
    }
    return min64(n, cap);
}

static int build_by_combiner(struct contents *c, struct flat_builder *b)
{
    const int *I = c->ints;
    const struct flat *old = c->nd ? c->sub[0] : NULL;
    switch (c->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        return flat_append_repeat(b, old, 0, 1, old->extent);
    case MPI_COMBINER_CONTIGUOUS:
        return flat_append_repeat(b, old, 0, I[0], old->extent);
    case MPI_COMBINER_VECTOR:
        return append_blocks(b, old, I[0], NULL, I[1], NULL, NULL, (int64_t)I[2] * old->extent);
    case MPI_COMBINER_HVECTOR:
        return append_blocks(b, old, I[0], NULL, I[1], NULL, NULL, c->aints[0]);
    case MPI_COMBINER_INDEXED:
        return append_blocks(b, old, I[0], I + 1, 0, NULL, I + 1 + I[0], 0);
    case MPI_COMBINER_HINDEXED:
        return append_blocks(b, old, I[0], I + 1, 0, c->aints, NULL, 0);
    case MPI_COMBINER_INDEXED_BLOCK:
        return append_blocks(b, old, I[0], NULL, I[1], NULL, I + 2, 0);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return append_blocks(b, old, I[0], NULL, I[1], c->aints, NULL, 0);
    case MPI_COMBINER_STRUCT:
        return flat_struct(c, b);
    case MPI_COMBINER_SUBARRAY:
        return flat_subarray(c, b);
    case MPI_COMBINER_DARRAY:
        return flat_darray(c, b);
    default:
        return tacio_fail(TACIO_EUNSUPPORTED, "datatype combiner %d is not supported", c->combiner);
    }
}

static int flatten_derived(MPI_Datatype t, struct flat **out)
{
    struct contents c;
    struct flat_builder b = {0};
    int rc = contents_get(t, &c);
    bool blocks = c.combiner == MPI_COMBINER_INDEXED || c.combiner == MPI_COMBINER_HINDEXED ||
                  c.combiner == MPI_COMBINER_INDEXED_BLOCK ||
                  c.combiner == MPI_COMBINER_HINDEXED_BLOCK || c.combiner == MPI_COMBINER_STRUCT;
    if (!rc && blocks)
        rc = flat_reserve(&b, extents_estimate(&c));
    if (!rc)
        rc = build_by_combiner(&c, &b);
    contents_free(&c);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    if (rc) {
        free(b.f.off);
        free(b.f.len);
        return rc;
    }
    rc = flat_finish(&b, lb, extent, out);
    int size;
    MPI_Type_size(t, &size);
    if (!rc && (*out)->size != size) {
        flat_free(*out);
        return tacio_fail(TACIO_EINVAL, "internal: flattened %lld bytes of a %d-byte datatype",
                          (long long)(*out)->size, size);
    }
    return rc;
}

/* A derived type's flat, held (flat_release it), or a named type's, the
 * process's own (never released: no atomic a member, which HDF5's struct
 * of chunks has one of a chunk). */
static int flatten(MPI_Datatype t, struct flat **out)
{
    if ((*out = named_known(t)))
        return 0;
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED ? flatten_named(t, out) : flatten_derived(t, out);
}

static void create_keyval(void)
{
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_cached, &cache_keyval, NULL);
}

/* Named types, flattened once for the life of the process (they were built
 * at every call, a malloc and a free in each collective). Entries are only
 * appended, each published by the release store of nnamed, so a lookup
 * reads them without the lock: a handle found there is that named type
 * (named types are never freed), and the call skips asking MPI for its
 * envelope, with the lock an eighth of a small collective's engine
 * instructions (callgrind, bench/io/instructions). MPI defines fewer named types than NAMED_MAX. */
#define NAMED_MAX 256
struct named_flat {
    MPI_Datatype t;
    struct flat *f;
};
static struct named_flat named[NAMED_MAX];
static atomic_int nnamed;
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;

static struct flat *named_lookup(MPI_Datatype t, int n)
{
    for (int i = 0; i < n; i++)
        if (named[i].t == t)
            return named[i].f;
    return NULL;
}

static int flatten_named(MPI_Datatype t, struct flat **out)
{
    pthread_mutex_lock(&named_lock);
    int rc = 0, n = atomic_load_explicit(&nnamed, memory_order_relaxed);
    struct flat *f = named_lookup(t, n);
    if (!f && n == NAMED_MAX)
        rc = tacio_fail(TACIO_EINVAL, "more than %d named datatypes", NAMED_MAX);
    else if (!f && !(rc = named_flat(t, &f))) {
        named[n] = (struct named_flat){t, f};
        atomic_store_explicit(&nnamed, n + 1, memory_order_release);
    }
    *out = rc ? NULL : f;
    pthread_mutex_unlock(&named_lock);
    return rc;
}

/* A named type flattened before (NULL: not one), without a lock. */
static struct flat *named_known(MPI_Datatype t)
{
    return named_lookup(t, atomic_load_explicit(&nnamed, memory_order_acquire));
}

int flatten_type(MPI_Datatype t, struct flat **out)
{
    if ((*out = named_known(t)))
        return 0;
    /* a derived type flattened before carries it (a named one never does) */
    int ni, na, nd, comb, found = 0;
    pthread_once(&keyval_once, create_keyval);
    struct flat *cached;
    MPI_Type_get_attr(t, cache_keyval, &cached, &found);
    if (found) {
        *out = cached;
        return 0;
    }
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED)
        return flatten_named(t, out);
    struct flat *f;
    int rc = flatten_derived(t, &f);
    if (rc)
        return rc;
    MPI_Type_set_attr(t, cache_keyval, f);
    *out = f;
    return 0;
}
