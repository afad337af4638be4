#include "access.h"

#include "flatten.h"

void access_clear(struct access *a)
{
    struct flat *mt = a->mt;
    view_access(NULL, 0, 0, NULL, &a->v, &a->s0);
    a->n = a->phase = a->base = 0;
    a->mt = mt;
}

static void set_shape(struct access *a)
{
    int64_t size = a->v.ft->size, tile = a->s0 / size;
    a->phase = a->s0 % size;
    a->base = a->v.disp + tile * a->v.ft->extent;
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
