#include "gio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gio_numa_aggregators(int ranks)
{
    int nodes = 0;
    DIR *d = opendir("/sys/devices/system/node");
    for (struct dirent *e; d && (e = readdir(d));)
        nodes += !strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4]);
    if (d)
        closedir(d);
    nodes = nodes < 1 ? 1 : nodes;
    return nodes < ranks ? nodes : ranks;
}

/* The stripes dealt to naggs aggregators and where aggregator `me` keeps
 * its own in its image: stripe s goes to s mod naggs, and an aggregator's
 * stripes from `first` on lie one after the other. */
struct deal {
    int64_t stripe;
    int naggs, me;
    int64_t first;
};

static int owner_of(const struct deal *d, int64_t off)
{
    return (int)((off / d->stripe) % d->naggs);
}

static int64_t image_at(const struct deal *d, int64_t off)
{
    return (off / d->stripe - d->first) / d->naggs * d->stripe + off % d->stripe;
}

/* A part: a piece, or the share of it one stripe holds. */
typedef void (*part_fn)(int agg, int64_t off, int64_t len, int64_t at, void *ctx);

/* fn for every part of the pieces, in their order; at: where it lies in the
 * packed buffer. */
static void each_part(const struct deal *d, int64_t n, const MPI_Offset *off, const MPI_Offset *len,
                      part_fn fn, void *ctx)
{
    int64_t at = 0;
    for (int64_t k = 0; k < n; k++)
        for (int64_t o = off[k], end = off[k] + len[k]; o < end;) {
            int64_t cut = (o / d->stripe + 1) * d->stripe;
            cut = cut < end ? cut : end;
            fn(owner_of(d, o), o, cut - o, at, ctx);
            at += cut - o;
            o = cut;
        }
}

/* This rank's side of the exchange, per aggregator: parts and bytes
 * (counting), then the parts' (offset, length) pairs and bytes laid out
 * aggregator by aggregator (filling; cursors from the displacements). */
enum move { MOVE_NONE, MOVE_IN, MOVE_OUT }; /* bytes into data from buf, out of it */
struct side {
    int64_t *parts, *bytes, *meta;
    int64_t *mcur, *dcur;
    char *data, *buf;
    enum move move;
};

static void count_part(int agg, int64_t off, int64_t len, int64_t at, void *ctx)
{
    struct side *s = ctx;
    (void)off, (void)at;
    s->parts[agg]++;
    s->bytes[agg] += len;
}

static void fill_part(int agg, int64_t off, int64_t len, int64_t at, void *ctx)
{
    struct side *s = ctx;
    int64_t m = s->mcur[agg]++;
    s->meta[2 * m] = off, s->meta[2 * m + 1] = len;
    if (s->move == MOVE_IN)
        memcpy(s->data + s->dcur[agg], s->buf + at, (size_t)len);
    else if (s->move == MOVE_OUT)
        memcpy(s->buf + at, s->data + s->dcur[agg], (size_t)len);
    s->dcur[agg] += len;
}

/* pread or pwrite all of len; a read past the end of the file leaves
 * zeros. 0 or an errno. */
static int full_io(int fd, char *p, int64_t len, int64_t off, int write)
{
    for (int64_t done = 0; done < len;) {
        ssize_t k = write ? pwrite(fd, p + done, (size_t)(len - done), off + done)
                          : pread(fd, p + done, (size_t)(len - done), off + done);
        if (k < 0)
            return errno;
        if (!k && !write) {
            memset(p + done, 0, (size_t)(len - done));
            return 0;
        }
        done += k;
    }
    return 0;
}

/* The aggregator's k-th stripe from `first` clipped to [lo, hi), as
 * [*a, *b); false past hi. */
static bool own_stripe(const struct deal *d, int64_t k, int64_t lo, int64_t hi, int64_t *a,
                       int64_t *b)
{
    int64_t s = d->first + k * d->naggs;
    *a = s * d->stripe > lo ? s * d->stripe : lo;
    *b = (s + 1) * d->stripe < hi ? (s + 1) * d->stripe : hi;
    return s * d->stripe < hi;
}

/* The aggregator's stretches of file in [lo, hi), each moved with one
 * call between the image and the file: one stretch when it holds every
 * stripe, else one a stripe. */
static int stretches_io(const struct deal *d, int fd, char *image, int64_t lo, int64_t hi,
                        int write)
{
    if (d->naggs == 1)
        return full_io(fd, image + image_at(d, lo), hi - lo, lo, write);
    int rc = 0;
    for (int64_t k = 0, a, b; !rc && own_stripe(d, k, lo, hi, &a, &b); k++)
        rc = full_io(fd, image + image_at(d, a), b - a, a, write);
    return rc;
}

/* The bytes of the aggregator's stripes in [lo, hi). */
static int64_t own_bytes(const struct deal *d, int64_t lo, int64_t hi)
{
    int64_t sum = 0;
    for (int64_t k = 0, a, b; own_stripe(d, k, lo, hi, &a, &b); k++)
        sum += b - a;
    return sum;
}

/* An aggregator's part of the transfer: its received parts (meta, m of
 * them; data, their bytes in that order) between the image of its stripes
 * and the file. A write whose parts leave holes reads the stretches first. */
static int aggregate(struct deal *d, int fd, const int64_t *meta, int64_t m, char *data, int write)
{
    if (!m)
        return 0;
    int64_t lo = INT64_MAX, hi = 0, got = 0;
    for (int64_t k = 0; k < m; k++) {
        lo = meta[2 * k] < lo ? meta[2 * k] : lo;
        hi = meta[2 * k] + meta[2 * k + 1] > hi ? meta[2 * k] + meta[2 * k + 1] : hi;
        got += meta[2 * k + 1];
    }
    d->first = lo / d->stripe + ((d->me - lo / d->stripe % d->naggs) + d->naggs) % d->naggs;
    char *image = malloc((size_t)(image_at(d, hi - 1) + 1));
    if (!image)
        return ENOMEM;
    int rc = !write || got < own_bytes(d, lo, hi) ? stretches_io(d, fd, image, lo, hi, 0) : 0;
    for (int64_t k = 0, at = 0; !rc && k < m; at += meta[2 * k + 1], k++) {
        char *img = image + image_at(d, meta[2 * k]);
        memcpy(write ? img : data + at, write ? data + at : img, (size_t)meta[2 * k + 1]);
    }
    rc = rc || !write ? rc : stretches_io(d, fd, image, lo, hi, 1);
    free(image);
    return rc;
}

/* Displacements from counts; 0 when every one fits MPI's int. */
static int displs(int np, const int64_t *count, int64_t unit, int *c, int *at)
{
    int64_t sum = 0;
    for (int r = 0; r < np; r++) {
        if (count[r] * unit > INT32_MAX || sum > INT32_MAX)
            return EOVERFLOW;
        c[r] = (int)(count[r] * unit), at[r] = (int)sum;
        sum += count[r] * unit;
    }
    return sum > INT32_MAX ? EOVERFLOW : 0;
}

/* The exchange's shape, by rank: parts and bytes sent (sp, sb) and
 * received (rp, rb), and MPI's int counts and displacements of the
 * (offset, length) pairs (meta: c, at) and of the bytes (data). */
struct shape {
    int64_t *sp, *sb, *rp, *rb;
    int *mc, *mat, *rmc, *rmat, *dc, *dat, *rdc, *rdat;
    int64_t parts, bytes, rparts, rbytes; /* sent and received, in all */
};

/* Aggregator j of naggs among np ranks, spread evenly: one on each NUMA
 * node where the launcher places the ranks in order across the nodes. */
static int agg_rank(int j, int np, int naggs)
{
    return (int)((int64_t)j * np / naggs);
}

static void shape_free(struct shape *x)
{
    free(x->sp);
    free(x->mc);
}

/* The shape from this rank's parts and bytes by aggregator (from and to
 * every rank: one MPI_Alltoall); 0, or EOVERFLOW when a count passes
 * MPI's int (every rank the same). */
static int shape_make(struct shape *x, MPI_Comm comm, int np, int naggs, const struct side *counted)
{
    x->sp = calloc(6 * (size_t)np, sizeof(int64_t));
    x->sb = x->sp + np, x->rp = x->sp + 2 * np, x->rb = x->sp + 3 * np;
    int64_t *pair = x->sp + 4 * np; /* parts and bytes to each rank */
    for (int j = 0; j < naggs; j++) {
        int r = agg_rank(j, np, naggs);
        pair[2 * r] = x->sp[r] = counted->parts[j];
        pair[2 * r + 1] = x->sb[r] = counted->bytes[j];
    }
    int64_t *got = malloc(2 * sizeof(int64_t) * (size_t)np);
    MPI_Alltoall(pair, 2, MPI_INT64_T, got, 2, MPI_INT64_T, comm);
    x->parts = x->bytes = x->rparts = x->rbytes = 0;
    for (int r = 0; r < np; r++) {
        x->rp[r] = got[2 * r], x->rb[r] = got[2 * r + 1];
        x->parts += x->sp[r], x->bytes += x->sb[r];
        x->rparts += x->rp[r], x->rbytes += x->rb[r];
    }
    free(got);
    x->mc = malloc(8 * sizeof(int) * (size_t)np);
    x->mat = x->mc + np, x->rmc = x->mc + 2 * np, x->rmat = x->mc + 3 * np;
    x->dc = x->mc + 4 * np, x->dat = x->mc + 5 * np, x->rdc = x->mc + 6 * np;
    x->rdat = x->mc + 7 * np;
    int rc = displs(np, x->sp, 2, x->mc, x->mat);
    rc = rc ? rc : displs(np, x->rp, 2, x->rmc, x->rmat);
    rc = rc ? rc : displs(np, x->sb, 1, x->dc, x->dat);
    rc = rc ? rc : displs(np, x->rb, 1, x->rdc, x->rdat);
    int any;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, comm);
    return any;
}

/* Each aggregator's first part and first byte in this rank's send buffers. */
static void cursors(struct side *s, int np, int naggs, const struct shape *x)
{
    for (int j = 0, at = 0, dat = 0; j < naggs; j++) {
        int r = agg_rank(j, np, naggs);
        s->mcur[j] = at, s->dcur[j] = dat;
        at += (int)x->sp[r], dat += (int)x->sb[r];
    }
}

int gio_transfer(MPI_Comm comm, int fd, int naggs, int64_t stripe, int64_t n, const MPI_Offset *off,
                 const MPI_Offset *len, char *buf, int write)
{
    int np, rank;
    MPI_Comm_size(comm, &np);
    MPI_Comm_rank(comm, &rank);
    struct deal d = {.stripe = stripe, .naggs = naggs, .me = -1};
    for (int j = 0; j < naggs; j++)
        d.me = agg_rank(j, np, naggs) == rank ? j : d.me;
    int64_t *by_agg = calloc(4 * (size_t)naggs, sizeof(int64_t));
    struct side s = {.parts = by_agg, .bytes = by_agg + naggs, .buf = buf};
    each_part(&d, n, off, len, count_part, &s);
    struct shape x;
    int rc = shape_make(&x, comm, np, naggs, &s);
    if (rc) {
        shape_free(&x);
        free(by_agg);
        return rc;
    }
    s.mcur = by_agg + 2 * naggs, s.dcur = by_agg + 3 * naggs;
    s.meta = malloc(2 * sizeof(int64_t) * (size_t)(x.parts + 1));
    /* one aggregator: the packed buffer is already in its order */
    s.data = naggs > 1 ? malloc((size_t)x.bytes + 1) : NULL;
    s.move = s.data && write ? MOVE_IN : MOVE_NONE;
    cursors(&s, np, naggs, &x);
    each_part(&d, n, off, len, fill_part, &s);
    char *mine = s.data ? s.data : buf;
    int64_t *rmeta = malloc(2 * sizeof(int64_t) * (size_t)(x.rparts + 1));
    char *rdata = malloc((size_t)x.rbytes + 1);
    MPI_Alltoallv(s.meta, x.mc, x.mat, MPI_INT64_T, rmeta, x.rmc, x.rmat, MPI_INT64_T, comm);
    if (write)
        MPI_Alltoallv(mine, x.dc, x.dat, MPI_BYTE, rdata, x.rdc, x.rdat, MPI_BYTE, comm);
    rc = d.me >= 0 ? aggregate(&d, fd, rmeta, x.rparts, rdata, write) : 0;
    if (!write) { /* the bytes back, each part where its rank packs it */
        MPI_Alltoallv(rdata, x.rdc, x.rdat, MPI_BYTE, mine, x.dc, x.dat, MPI_BYTE, comm);
        s.move = MOVE_OUT;
        cursors(&s, np, naggs, &x);
        if (s.data)
            each_part(&d, n, off, len, fill_part, &s);
    }
    int any;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, comm);
    shape_free(&x);
    free(by_agg), free(s.meta), free(s.data), free(rmeta), free(rdata);
    return any;
}
