/* File-domain geometry, in one place: where an FD's bytes lie (its extent,
 * the file ranges of a window of it, how big a window may be) and which FD
 * of a partition holds an offset. The planner's metrics, C's construction
 * and the engine's rounds all ask here. */
#include "plan.h"

int64_t fdom_extent(const struct fdom *dom)
{
    if (dom->unit == 0 || dom->end <= dom->start)
        return dom->end - dom->start;
    int64_t span = dom->end - dom->start, full = span / dom->stride;
    return full * dom->unit + min64(span % dom->stride, dom->unit);
}

void fdom_window(const struct fdom *dom, int64_t lo, int64_t hi, struct fdom_ranges *out)
{
    out->n = 0;
    if (!dom->unit) {
        out->lo[0] = dom->start + lo;
        out->hi[0] = min64(dom->end, dom->start + hi);
        out->n = out->lo[0] < out->hi[0];
        return;
    }
    int64_t head = min64(dom->end, (dom->start / dom->unit + 1) * dom->unit) - dom->start;
    for (int64_t b = lo; b < hi && out->n < FDOM_MAX_RANGES;) {
        int64_t off, room;
        if (b < head) {
            off = dom->start + b;
            room = head - b;
        } else {
            int64_t m = 1 + (b - head) / dom->unit, within = (b - head) % dom->unit;
            off = (dom->start / dom->unit) * dom->unit + m * dom->stride + within;
            room = dom->unit - within;
        }
        if (off >= dom->end)
            break;
        room = min64(min64(room, hi - b), dom->end - off);
        out->lo[out->n] = off;
        out->hi[out->n++] = off + room;
        b += room;
    }
}

int64_t fdom_memory(const struct fdom *dom, int64_t cb)
{
    return dom->memory > 0 && dom->memory < cb ? dom->memory : cb;
}

int64_t fdom_window_size(const struct fdom *dom, int64_t cb)
{
    return dom->unit && cb > (FDOM_MAX_RANGES - 1) * dom->unit ? (FDOM_MAX_RANGES - 1) * dom->unit
                                                               : cb;
}

int64_t fdom_round_window(const struct fdom *dom, int64_t cb, bool pipelined)
{
    int64_t mem = fdom_memory(dom, cb);
    return fdom_window_size(dom, pipelined ? max64(1, mem / 2) : mem);
}

int64_t fdom_rounds(const struct fdom *dom, int64_t cb, bool pipelined)
{
    return ceil_div(fdom_extent(dom), fdom_round_window(dom, cb, pipelined));
}

int64_t partition_rounds(const struct partition *p, int64_t cb, bool pipelined)
{
    int64_t n = 0;
    for (int j = 0; j < p->n; j++)
        n = max64(n, fdom_rounds(&p->dom[j], cb, pipelined));
    return n;
}

int partition_locate(const struct partition *p, int64_t x, int64_t *piece_end)
{
    if (p->striped) {
        /* called per region of every rank: a power-of-two stripe shifts, and
         * a stripe index that fits 32 bits takes the cheaper division */
        int64_t k =
            (p->unit & (p->unit - 1)) ? x / p->unit : x >> __builtin_ctzll((uint64_t)p->unit);
        *piece_end = (k + 1) * p->unit;
        return k <= UINT32_MAX ? (int)((uint32_t)k % (uint32_t)p->n) : (int)(k % p->n);
    }
    int a = 0, b = p->n - 1;
    while (a < b) { /* last FD starting at or below x */
        int m = a + (b - a + 1) / 2;
        if (p->dom[m].start <= x)
            a = m;
        else
            b = m - 1;
    }
    while (a > 0 && p->dom[a].end <= x) /* step back over empty FDs */
        a--;
    *piece_end = p->dom[a].end;
    return a;
}
