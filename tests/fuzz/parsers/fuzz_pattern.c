/* Access pattern specs (cube:, btio:, ior:, mesh:, ...): "NPROCS\nSPEC",
 * then every rank's closed form walked (bounded). The file kinds
 * (extents:, matrix:) have harnesses of their own. */
#include "harness.h"

#include <tacio_plan.h>

struct walk {
    int64_t n, last_off;
};

/* Stops a walk after enough extents (a pattern may have billions); checks
 * the order the API promises. */
static int count_extent(int64_t off, int64_t len, void *ctx)
{
    struct walk *w = ctx;
    if (len < 0 || off < w->last_off)
        abort(); /* in increasing offset order: tacio_pattern_walk's contract */
    w->last_off = off;
    return ++w->n >= 4096;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[2];
    if (!fuzz_split(data, size, '\n', part, 2))
        return 0;
    int nprocs = atoi(part[0]) % 4096;
    struct tacio_pattern *p = NULL;
    if (strncmp(part[1], "extents", 7) && strncmp(part[1], "matrix", 6) &&
        tacio_pattern_parse(part[1], nprocs, &p) == 0) {
        int np = tacio_pattern_get_nprocs(p);
        for (int r = 0; r < np && r < 8; r++) {
            struct walk w = {0, INT64_MIN};
            (void)tacio_pattern_walk(p, r, count_extent, &w);
        }
        int64_t lo, hi;
        tacio_pattern_get_range(p, &lo, &hi);
        (void)tacio_pattern_get_bytes_below(p, -1, lo + (hi - lo) / 2);
        tacio_pattern_free(p);
    }
    free(part[0]);
    return 0;
}
