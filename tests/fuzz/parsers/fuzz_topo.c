/* Topology specs (tacio_topology, --topology), placements and memory specs:
 * "SPEC\nPLACEMENT\nNPROCS\nMEMORY". The file kinds (slurm:, dist:, a
 * memory file:) have harnesses of their own. */
#include "harness.h"

#include "topo/topo.h"

/* Machines up to 100,000 hosts: a valid larger one is only slow here. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    topo_host_limit = 100000;
    return 0;
}

static int names_a_file(const char *spec)
{
    return !strncmp(spec, "slurm", 5) || !strncmp(spec, "dist", 4) || !strncmp(spec, "file", 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[4];
    if (!fuzz_split(data, size, '\n', part, 4))
        return 0;
    struct tacio_topo *t = NULL;
    if (!names_a_file(part[0]) && tacio_topo_parse(part[0], &t) == 0) {
        int nprocs = atoi(part[2]) % 100000; /* a planner run's size, not a million */
        if (tacio_topo_place(t, part[1], nprocs) == 0 && tacio_topo_get_nused_hosts(t) > 0)
            (void)tacio_topo_get_rank_host(t, nprocs - 1);
        if (!names_a_file(part[3]))
            (void)tacio_topo_set_memory(t, part[3]);
        tacio_topo_free(t);
    }
    free(part[0]);
    return 0;
}
