#include "check.h"

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
    return check_failures ? 1 : 0;
}
