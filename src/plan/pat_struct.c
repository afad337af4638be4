/* struct: records of a C struct with a hole, interleaved rank by rank. Slot
 * s = k*p + r of the file (SLOT bytes) holds record k of rank r: bytes
 * [0, 16) and [24, 32) are data (two doubles, then one), [16, 24) is the
 * struct's padding, never written. The shape applications give an hindexed
 * or struct filetype: many short pieces with gaps between them. */
#include "../base/util.h"
#include "pattern.h"

#define SLOT 32
#define RECORD 24 /* data bytes of a slot */

/* Data bytes of one slot below offset x inside it (0 <= x <= SLOT). */
static int64_t slot_below(int64_t x)
{
    return min64(x, 16) + max64(0, x - 24);
}

static void struct_span(const struct tacio_pattern *p, int rank, int64_t *lo, int64_t *hi)
{
    *lo = p->records ? (int64_t)rank * SLOT : 0;
    *hi = p->records ? ((p->records - 1) * p->nprocs + rank + 1) * SLOT : 0;
}

static int64_t struct_prefix(const struct tacio_pattern *p, int rank, int64_t x)
{
    if (x <= 0)
        return 0;
    int64_t j = x / SLOT, rem = x % SLOT; /* slot j holds x */
    int64_t whole = j <= rank ? 0 : min64(p->records, ceil_div(j - rank, p->nprocs));
    bool own = j % p->nprocs == rank && j / p->nprocs < p->records;
    return whole * RECORD + (own ? slot_below(rem) : 0);
}

static int struct_extents(const struct tacio_pattern *p, int rank, extent_fn fn, void *ctx)
{
    for (int64_t k = 0; k < p->records; k++) {
        int64_t base = (k * p->nprocs + rank) * SLOT;
        int rc = fn(base, 16, ctx);
        if (rc || (rc = fn(base + 24, 8, ctx)))
            return rc;
    }
    return 0;
}

/* Every slot of the file holds a record of some rank. */
static int64_t struct_total_below(const struct tacio_pattern *p, int64_t x)
{
    int64_t slots = p->records * p->nprocs, j = max64(0, x) / SLOT;
    return min64(j, slots) * RECORD + (j < slots ? slot_below(max64(0, x) % SLOT) : 0);
}

static const struct pattern_ops struct_ops = {"struct",       struct_span, struct_prefix,
                                              struct_extents, NULL,        struct_total_below};

int pattern_parse_struct(struct tacio_pattern *p, const struct pattern_kind *k, struct spec *s,
                         int nprocs)
{
    int rc;
    if ((rc = spec_get_i64(s, "records", 0, 1, &p->records, k->form)) ||
        (rc = spec_check_unused(s, k->form)))
        return rc;
    if (p->records == 0 || nprocs <= 0)
        return tacio_fail(TACIO_EINVAL, "struct needs records=N and a rank count; expected %s",
                          k->form);
    if (p->records > INT64_MAX / SLOT / nprocs)
        return tacio_fail(TACIO_ERANGE, "struct records=%lld on %d ranks overflows a 64-bit file",
                          (long long)p->records, nprocs);
    p->nprocs = nprocs;
    p->elem = 8;
    p->ops = &struct_ops;
    return 0;
}
