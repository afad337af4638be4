#include "window.h"

#include "agree.h"
#include "backend.h"
#include "fault.h"

int64_t wpos(const struct fdom_ranges *w, int64_t off)
{
    if (w->n == 1) /* an FD of one range: every window but a striped FD's */
        return off - w->lo[0];
    int64_t base = 0;
    for (int k = 0; k < w->n; k++) {
        if (off < w->hi[k])
            return base + off - w->lo[k];
        base += w->hi[k] - w->lo[k];
    }
    return base;
}

int64_t window_bytes(const struct fdom_ranges *w)
{
    int64_t b = 0;
    for (int k = 0; k < w->n; k++)
        b += w->hi[k] - w->lo[k];
    return b;
}

/* A system call costs about as much as moving this many bytes through the
 * page cache: sieve when the holes are cheaper to move than the calls. */
#define CALL_BYTES 16384

void window_spans(const struct fdom_ranges *w, const struct piece_list *all, bool may_sieve,
                  struct span *out)
{
    int64_t i = 0;
    for (int k = 0; k < w->n; k++) {
        int64_t first = -1, end = -1, covered = 0, i0 = i, runs = 0;
        for (; i < all->n && all->p[i].off < w->hi[k]; i++) {
            const struct piece *p = &all->p[i];
            first = first < 0 ? p->off : first;
            runs += p->off > end;
            covered += max64(0, p->off + p->len - max64(p->off, end));
            end = max64(end, p->off + p->len);
        }
        bool holes = first >= 0 && covered < end - first;
        bool sieve = may_sieve && holes && runs * CALL_BYTES > 2 * (end - first - covered);
        out[k] = (struct span){first, end, i0, i, holes, sieve};
    }
}

int io_call(const struct tacio_file *f, char *at, int64_t len, int64_t off, bool write,
            int64_t *eof)
{
    int err = fault_check(write ? "pwrite" : "pread", f->rank);
    int64_t got = 0;
    if (!err && write)
        err = -backend_pwrite(f->fd, at, len, off);
    else if (!err)
        err = (got = backend_pread(f->fd, at, len, off)) < 0 ? (int)-got : 0;
    if (!err && !write && got < len && eof)
        *eof = min64(*eof, off + got);
    else if (!err && !write && got < len) /* a window: past the end reads as zeros */
        memset(at + got, 0, (size_t)(len - got));
    if (err)
        return fail_errno(err, "%s of %lld bytes at offset %lld of %s", write ? "pwrite" : "pread",
                          (long long)len, (long long)off, f->path);
    return 0;
}

/* One call per run of touching pieces of a span, to or from the window. */
static int runs_io(const struct tacio_file *f, const struct fdom_ranges *w, const struct span *sp,
                   const struct piece_list *all, char *wbuf, bool write, int64_t *eof)
{
    for (int64_t i = sp->i0; i < sp->i1;) {
        int64_t a = all->p[i].off, b = a + all->p[i].len;
        for (i++; i < sp->i1 && all->p[i].off <= b; i++)
            b = max64(b, all->p[i].off + all->p[i].len);
        int rc = io_call(f, wbuf + wpos(w, a), b - a, a, write, eof);
        if (rc)
            return rc;
    }
    return 0;
}

int span_io(const struct tacio_file *f, const struct fdom_ranges *w, const struct span *sp,
            const struct piece_list *all, char *wbuf, bool write, bool holes_only, int64_t *eof)
{
    for (int k = 0; k < w->n; k++) {
        int rc = 0;
        if (sp[k].first < 0 || (holes_only && !sp[k].sieve))
            continue;
        if (sp[k].holes && !sp[k].sieve)
            rc = runs_io(f, w, &sp[k], all, wbuf, write, eof);
        else
            rc = io_call(f, wbuf + wpos(w, sp[k].first), sp[k].last - sp[k].first, sp[k].first,
                         write, eof);
        if (rc)
            return rc;
    }
    return 0;
}
