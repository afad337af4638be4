#include "check.h"

#include "tacio_plan.h"

#include <stdio.h>

int check_failures, check_count;
static const char *data_dir = ".";

void check_set_data_dir(const char *dir)
{
    data_dir = dir;
}

const char *data_path(const char *name)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", data_dir, name);
    return buf;
}

int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    if (check_count == 0)
        printf("FAIL: %s: no check ran\n", name);
    return check_failures || check_count == 0 ? 1 : 0;
}

void test_job_init(struct test_job *j, const char *pattern, int procs, const char *topo,
                   const char *place)
{
    *j = (struct test_job){0};
    CHECK_EQ(tacio_topo_parse(topo, &j->t), 0);
    int n = procs ? procs : j->t ? tacio_topo_get_fixed_nprocs(j->t) : 0;
    CHECK_EQ(tacio_pattern_parse(pattern, n, &j->p), 0);
    if (j->t && j->p)
        CHECK_EQ(tacio_topo_place(j->t, place, tacio_pattern_get_nprocs(j->p)), 0);
    CHECK_EQ(tacio_hints_new(&j->h), 0);
}

void test_job_free(struct test_job *j)
{
    tacio_topo_free(j->t);
    tacio_pattern_free(j->p);
    tacio_hints_free(j->h);
    *j = (struct test_job){0};
}
