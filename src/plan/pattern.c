#include "pattern.h"
#include "../base/util.h"

#include <string.h>

#define PATTERN_FORMS                                                                              \
    "cube:n=N, btio:n=N, collperf:n=N, ior:block=B,transfer=T,segments=S, "                        \
    "mesh:elems=E,seed=S, extents:FILE or matrix:FILE"

static int parse_by_kind(struct tacio_pattern *p, struct spec *s, int nprocs)
{
    const char *k = s->name;
    if (!strcmp(k, "cube") || !strcmp(k, "btio") || !strcmp(k, "collperf"))
        return pattern_parse_grid(p, k, s, nprocs);
    if (!strcmp(k, "ior"))
        return pattern_parse_ior(p, s, nprocs);
    if (!strcmp(k, "mesh"))
        return pattern_parse_mesh(p, s, nprocs);
    if (!strcmp(k, "extents") || !strcmp(k, "matrix")) {
        if (!s->arg || s->nkv)
            return tacio_fail(TACIO_EINVAL, "expected %s:FILE", k);
        return k[0] == 'e' ? pattern_parse_extents(p, s->arg, nprocs)
                           : pattern_parse_matrix(p, s->arg, nprocs);
    }
    return tacio_fail(TACIO_EINVAL, "unknown pattern '%s'; expected %s", k, PATTERN_FORMS);
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
