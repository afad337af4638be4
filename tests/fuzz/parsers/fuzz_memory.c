/* A memory file (tacio_topo_set_memory "file:PATH": "HOST_INDEX BYTES"
 * lines) on a small topology. */
#include "harness.h"

#include <tacio_plan.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[1];
    if (!fuzz_split(data, size, '\0', part, 1))
        return 0;
    struct tacio_topo *t = NULL;
    if (tacio_topo_parse("tree:racks=2,nodes=3,cores=2", &t) == 0) {
        (void)tacio_topo_set_memory(t, fuzz_file_spec("file", part[0]));
        tacio_topo_free(t);
    }
    free(part[0]);
    return 0;
}
