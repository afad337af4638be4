/* A distance-matrix topology file (dist:FILE, the TATP paper's D). */
#include "harness.h"

#include <tacio_plan.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[1];
    if (!fuzz_split(data, size, '\0', part, 1))
        return 0;
    struct tacio_topo *t = NULL;
    if (tacio_topo_parse(fuzz_file_spec("dist", part[0]), &t) == 0) {
        (void)tacio_topo_place(t, "block", 0);
        tacio_topo_free(t);
    }
    free(part[0]);
    return 0;
}
