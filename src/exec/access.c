#include "access.h"

#include "flatten.h"

#include <stdlib.h>
#include <string.h>

void access_clear(struct access *a)
{
    struct flat *mt = a->mt;
    view_access(NULL, 0, 0, NULL, &a->v, &a->s0);
    a->n = a->phase = a->base = 0;
    a->mt = mt;
}

/* The access's shape: where it starts in its filetype's tile, and where
 * that tile lies. An access that is one contiguous run of the file has the
 * same shape wherever in that run it starts, its start only a shift, so
 * that a program stepping through a block in small calls (IOR with a file
 * view: -t 4k in a block of -b) repeats one shape, and its calls run on
 * the kept schedule instead of planning each anew. */
static void set_shape(struct access *a)
{
    const struct flat *ft = a->v.ft;
    int64_t tile = a->s0 / ft->size;
    a->phase = a->s0 % ft->size;
    a->base = a->v.disp + tile * ft->extent;
    int64_t run = flat_run_start(ft, a->phase, a->n);
    if (run >= 0) {
        a->base += a->phase - run;
        a->phase = run;
    }
}

/* The checks MPI makes of the call's own arguments, before its data. */
static int check_call(const struct tacio_file *f, bool at, int64_t offset, int64_t count, int64_t n,
                      bool write)
{
    if (f->view.err)
        return tacio_fail(f->view.err, "%s", f->view.errmsg);
    if (at && offset < 0)
        return tacio_fail(TACIO_EINVAL, "negative offset %lld", (long long)offset);
    if (count < 0)
        return tacio_fail(TACIO_ECOUNT, "negative count %lld", (long long)count);
    if (n % f->view.etype_size)
        return tacio_fail(TACIO_EINVAL, "%lld bytes is not a whole number of %lld-byte etypes",
                          (long long)n, (long long)f->view.etype_size);
    if ((f->amode & MPI_MODE_RDONLY) && write)
        return tacio_fail(TACIO_EREADONLY, "write to a file opened MPI_MODE_RDONLY");
    if ((f->amode & MPI_MODE_WRONLY) && !write)
        return tacio_fail(TACIO_EACCESS, "read from a file opened MPI_MODE_WRONLY");
    return 0;
}

int access_of(const struct tacio_file *f, bool at, int64_t offset, int64_t count, MPI_Datatype dt,
              bool write, struct access *a)
{
    a->mt = NULL;
    access_clear(a);
    int rc = flatten_type(dt, &a->mt);
    if (rc)
        return rc;
    /* the flat's bytes are MPI_Type_size's (flatten checks it once) */
    int64_t n = count * a->mt->size, pos = at ? offset : f->fp;
    rc = check_call(f, at, offset, count, n, write);
    if (!rc && n > 0 && pos > (INT64_MAX / 2) / f->view.etype_size)
        rc = tacio_fail(TACIO_EINVAL, "offset %lld is beyond any file", (long long)pos);
    if (!rc)
        rc = view_access(&(struct view){f->view.disp, f->view.ft}, pos * f->view.etype_size, n,
                         &a->shell, &a->v, &a->s0);
    if (rc) {
        access_clear(a);
        return rc;
    }
    a->n = n;
    if (n)
        set_shape(a);
    return 0;
}

int access_walk(const struct access *a, piece_fn fn, void *ctx)
{
    if (a->n <= 0)
        return 0;
    return view_walk(&a->v, a->s0, a->s0 + a->n, view_offset_of(&a->v, a->s0),
                     view_offset_of(&a->v, a->s0 + a->n - 1) + 1, fn, ctx);
}

int64_t access_bytes_below(const struct access *a, int64_t eof)
{
    if (eof == INT64_MAX || a->n == 0)
        return a->n;
    return max64(0, min64(a->n, view_bytes_below(&a->v, eof) - a->s0));
}

void access_span(const struct access *a, int64_t *lo, int64_t *hi)
{
    *lo = a->n ? view_offset_of(&a->v, a->s0) : 0;
    *hi = a->n ? view_offset_of(&a->v, a->s0 + a->n - 1) + 1 : 0;
}

int piece_push(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    struct piece_list *l = ctx;
    l->bytes += len;
    struct piece *last = l->n ? &l->p[l->n - 1] : NULL;
    if (last && last->off + last->len == off && last->spos + last->len == spos) {
        last->len += len;
        return 0;
    }
    int rc = grow_array((void **)&l->p, sizeof *l->p, l->n + 1, &l->cap);
    if (rc)
        return rc;
    l->p[l->n++] = (struct piece){off, len, spos};
    return 0;
}

int access_pieces(const struct access *a, const struct fdom_ranges *w, struct piece_list *out)
{
    out->n = out->bytes = 0;
    int rc = 0;
    for (int k = 0; k < w->n && !rc && a->n > 0; k++)
        rc = view_walk(&a->v, a->s0, a->s0 + a->n, w->lo[k], w->hi[k], piece_push, out);
    return rc;
}

static int cmp_piece(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    return (x->off > y->off) - (x->off < y->off);
}

/* Merges sorted runs src[a, m) and src[m, b) into dst[a, b). */
static void merge_two(const struct piece *src, int64_t a, int64_t m, int64_t b, struct piece *dst)
{
    int64_t i = a, j = m, o = a;
    while (i < m && j < b)
        dst[o++] = src[j].off < src[i].off ? src[j++] : src[i++];
    while (i < m)
        dst[o++] = src[i++];
    while (j < b)
        dst[o++] = src[j++];
}

/* Pairwise merging, n log(runs) instead of a sort (qsort was the largest
 * cost of an aggregator on btio's small records, and of a node leader on
 * the varn kernel's half a million pieces a rank). */
int pieces_merge_runs(struct piece *p, int64_t n, int64_t *runs, int nruns)
{
    for (int k = 0; k < nruns; k++)
        for (int64_t i = runs[k] + 1; i < runs[k + 1]; i++)
            if (p[i].off < p[i - 1].off) { /* not a run: sort it all */
                qsort(p, (size_t)n, sizeof *p, cmp_piece);
                return 0;
            }
    if (nruns < 2)
        return 0;
    struct piece *tmp = malloc(sizeof *tmp * (size_t)n), *src = p, *dst = tmp;
    if (!tmp)
        return tacio_fail(TACIO_ENOMEM, "out of memory ordering %lld pieces", (long long)n);
    while (nruns > 1) {
        int out = 0;
        for (int k = 0; k < nruns; k += 2) {
            int64_t a = runs[k], m = runs[k + 1], b = k + 1 < nruns ? runs[k + 2] : m;
            merge_two(src, a, m, b, dst);
            runs[out++] = a; /* out <= k: no run start still to be read is overwritten */
        }
        runs[out] = n;
        nruns = out;
        struct piece *t = src;
        src = dst;
        dst = t;
    }
    if (src != p)
        memcpy(p, src, sizeof *src * (size_t)n);
    free(tmp);
    return 0;
}
