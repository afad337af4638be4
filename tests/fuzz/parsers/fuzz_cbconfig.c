/* ROMIO's cb_config_list ("host:n,*:m", "*:*") on a named machine: the
 * check the hints run, then the aggregator list it resolves to. */
#include "harness.h"

#include "plan/plan.h"

static struct tacio_topo *machine(void)
{
    static struct tacio_topo *t;
    if (!t &&
        (tacio_topo_parse("tree:racks=2,nodes=3,cores=2", &t) || tacio_topo_place(t, "cyclic", 10)))
        abort();
    return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[2];
    if (!fuzz_split(data, size, '\0', part, 2))
        return 0;
    int *ranks = NULL;
    int cap = 1 + (int)strlen(part[1]) % 16;
    if (cb_config_check(part[0]) == 0)
        (void)cb_config_ranklist(machine(), part[0], cap, &ranks);
    free(ranks); /* the list, even an empty one; NULL after an error */
    free(part[0]);
    return 0;
}
