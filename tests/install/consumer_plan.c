/* A program of the planning core alone (tacio::plan, libtacioplan.a; no MPI):
 * a plan computed and read back. Prints "consumer_plan: ok" or why not. */
#include <tacio_plan.h>

#include <stdio.h>

int main(void)
{
    struct tacio_topo *t = NULL;
    struct tacio_pattern *p = NULL;
    struct tacio_hints *h = NULL;
    struct tacio_plan *plan = NULL;
    struct tacio_plan_metrics m;
    int rc = tacio_topo_parse("tree:racks=2,nodes=2,cores=4", &t);
    rc = rc ? rc : tacio_topo_place(t, "cyclic", 16);
    rc = rc ? rc : tacio_pattern_parse("ior:block=4k,transfer=1k,segments=2", 16, &p);
    rc = rc ? rc : tacio_hints_new(&h);
    rc = rc ? rc : tacio_hints_set(h, "tacio_strategy", "tatp");
    rc = rc ? rc : tacio_plan_compute(p, t, h, &plan);
    if (!rc)
        tacio_plan_get_metrics(plan, &m);
    int ok = !rc && tacio_plan_get_nfds(plan) == 4 && m.total_bytes == 16 * 8192;
    if (!ok) {
        char msg[TACIO_MAX_ERROR_STRING];
        int len;
        tacio_error_get_string(rc, msg, &len);
        printf("consumer_plan: failed (%s)\n", rc ? msg : "a wrong plan");
    } else
        printf("consumer_plan: ok\n");
    tacio_plan_free(plan);
    tacio_hints_free(h);
    tacio_pattern_free(p);
    tacio_topo_free(t);
    return ok ? 0 : 1;
}
