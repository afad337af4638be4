#include "pattern.h"
#include "../base/util.h"

#include <string.h>

/* The registry, in the order users meet the kinds. */
static const struct pattern_kind kinds[] = {
    {"cube", "cube:n=N[,elem=8]",
     "N^3 elements, row-major, block-decomposed over a q x q x q grid (p = q^3): TATP's cube",
     pattern_parse_grid},
    {"coarse", "coarse:n=N[,elem=8]",
     "the cube's array over the 2-D grid MPI_Dims_create(p, 2) gives, rows whole: long runs",
     pattern_parse_grid},
    {"btio", "btio:n=N[,elem=8]",
     "NPB BTIO, p = q^2: the rank with cell (r,c) in slice 0 holds ((r-k) mod q, (c+k) mod q) "
     "in slice k",
     pattern_parse_grid},
    {"collperf", "collperf:n=N[,elem=4]",
     "ROMIO coll_perf: N^3 elements over the 3-D grid MPI_Dims_create gives", pattern_parse_grid},
    {"ior", "ior:block=B,transfer=T,segments=S",
     "IOR shared file: segment s of rank r at (s*p + r)*B, T-sized pieces", pattern_parse_ior},
    {"struct", "struct:records=N",
     "N records per rank of 24 bytes in 32-byte slots, slot k*p + r: a struct with a hole "
     "(bytes 16-23), written through an hindexed type",
     pattern_parse_struct},
    {"mesh", "mesh:elems=E[,seed=S][,elem=8]",
     "unstructured-mesh-like (BISP3D in LATP): contiguous runs per rank plus scattered elements",
     pattern_parse_mesh},
    {"extents", "extents:FILE", "lines `rank offset length`", pattern_parse_extents},
    {"matrix", "matrix:FILE",
     "an explicit p x a C (bytes rank i holds for FD j), `#` comments; fixes the FDs",
     pattern_parse_matrix},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

REGISTRY_ACCESSORS(tacio_pattern_kind, NKINDS, kinds[i])
REGISTRY_FORM(tacio_pattern_kind, NKINDS, kinds[i])

static int parse_by_kind(struct tacio_pattern *p, struct spec *s, int nprocs)
{
    char forms[1024] = "";
    for (int i = 0; i < NKINDS; i++) {
        if (!strcmp(s->name, kinds[i].name))
            return kinds[i].parse(p, &kinds[i], s, nprocs);
        forms_join(forms, sizeof forms, kinds[i].form, i == NKINDS - 1);
    }
    return tacio_fail(TACIO_EINVAL, "unknown pattern '%s'; expected %s", s->name, forms);
}

int tacio_pattern_parse(const char *text, int nprocs, struct tacio_pattern **out)
{
    struct spec s;
    *out = NULL;
    int rc = spec_parse(text, &s);
    if (rc)
        return rc;
    struct tacio_pattern *p = xcalloc(1, sizeof *p);
    if (!p) {
        spec_free(&s);
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    rc = parse_by_kind(p, &s, nprocs);
    spec_free(&s);
    if (rc) {
        tacio_pattern_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int tacio_pattern_get_nprocs(const struct tacio_pattern *p)
{
    return p->nprocs;
}

int tacio_pattern_walk(const struct tacio_pattern *p, int rank, tacio_extent_fn fn, void *ctx)
{
    if (!p || !fn || rank < 0 || rank >= p->nprocs)
        return tacio_fail(TACIO_EINVAL, "tacio_pattern_walk: rank %d of %d, or no pattern", rank,
                          p ? p->nprocs : 0);
    return p->ops->extents(p, rank, fn, ctx);
}

int64_t tacio_pattern_get_bytes_below(const struct tacio_pattern *p, int rank, int64_t x)
{
    if (!p || rank < -1 || rank >= p->nprocs)
        return tacio_fail(TACIO_EINVAL, "tacio_pattern_get_bytes_below: rank %d of %d", rank,
                          p ? p->nprocs : 0);
    return rank < 0 ? pattern_total_in(p, 0, max64(0, x)) : p->ops->prefix(p, rank, x);
}

void tacio_pattern_get_range(const struct tacio_pattern *p, int64_t *lo, int64_t *hi)
{
    pattern_range(p, lo, hi);
}

void tacio_pattern_free(struct tacio_pattern *p)
{
    if (!p)
        return;
    free(p->run_off);
    free(p->run_len);
    free(p->run_cum);
    free(p->run_first);
    free(p->run_bytes);
    free(p->fixed_start);
    free(p->slice_cum);
    free(p->span_lo);
    free(p->views);
    free(p->view_s0);
    free(p->view_n);
    free(p->span_hi);
    free(p);
}

void pattern_range(const struct tacio_pattern *p, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int r = 0; r < p->nprocs; r++) {
        int64_t a, b;
        p->ops->span(p, r, &a, &b);
        if (a < b) {
            *lo = min64(*lo, a);
            *hi = max64(*hi, b);
        }
    }
    if (*lo > *hi)
        *lo = *hi = 0;
}

void pattern_regions(const struct tacio_pattern *p, int rank, region_fn fn, void *ctx)
{
    if (p->ops->regions) {
        p->ops->regions(p, rank, fn, ctx);
        return;
    }
    int64_t a, b;
    p->ops->span(p, rank, &a, &b);
    if (a < b)
        fn(&(struct region){a, b, p->ops->prefix(p, rank, b), 0, 0}, ctx);
}

int64_t pattern_total_in(const struct tacio_pattern *p, int64_t lo, int64_t hi)
{
    if (p->ops->total_below)
        return p->ops->total_below(p, hi) - p->ops->total_below(p, lo);
    int64_t sum = 0;
    for (int r = 0; r < p->nprocs; r++) {
        int64_t a, b;
        p->ops->span(p, r, &a, &b);
        if (a < hi && lo < b)
            sum += pattern_bytes_in(p, r, max64(lo, a), min64(hi, b));
    }
    return sum;
}
