/* A Slurm topology.conf (SwitchName=... Switches=... Nodes=..., hostlists)
 * and the job's node list: "FILE TEXT\0HOSTLIST". */
#include "harness.h"

#include "topo/topo.h"

/* Machines up to 100,000 hosts: a valid larger one is only slow here. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    topo_host_limit = 100000;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[2];
    if (!fuzz_split(data, size, '\0', part, 2))
        return 0;
    const char *path = fuzz_file("topology.conf", part[0]);
    char spec[FUZZ_MAX_TEXT + 300];
    if (*part[1])
        snprintf(spec, sizeof spec, "slurm:%s,nodes=%s", path, part[1]);
    else
        snprintf(spec, sizeof spec, "slurm:%s", path);
    struct tacio_topo *t = NULL;
    if (tacio_topo_parse(spec, &t) == 0) {
        (void)tacio_topo_place(t, "block", tacio_topo_get_nhosts(t));
        tacio_topo_free(t);
    }
    free(part[0]);
    return 0;
}
