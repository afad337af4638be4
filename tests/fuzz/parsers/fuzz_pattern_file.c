/* The pattern files: extents:FILE ("rank offset length" lines) when the
 * first byte is even, matrix:FILE (a rank-by-FD byte matrix) when odd. */
#include "harness.h"

#include "plan/pattern.h"

/* Jobs up to 100,000 ranks: a valid larger one is only slow here. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    pattern_rank_limit = 100000;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *part[1];
    if (!fuzz_split(data + 1, size - 1, '\0', part, 1))
        return 0;
    const char *kind = data[0] % 2 ? "matrix" : "extents";
    struct tacio_pattern *p = NULL;
    if (tacio_pattern_parse(fuzz_file_spec(kind, part[0]), 0, &p) == 0) {
        int64_t lo, hi;
        tacio_pattern_get_range(p, &lo, &hi);
        (void)tacio_pattern_get_bytes_below(p, 0, hi);
        tacio_pattern_free(p);
    }
    free(part[0]);
    return 0;
}
