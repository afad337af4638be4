/* tacio report: hands its arguments to tools/report.py, which draws with
 * matplotlib. The charts are Python's business so that neither the library
 * nor this command depends on a plotting stack. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The script next to this executable (the build tree: bin/tacio-report) or
 * where make install puts it (bin/../libexec/tacio/tacio-report). */
static int find_script(char *path, size_t size)
{
    const char *env = getenv("TACIO_REPORT_SCRIPT");
    if (env && *env) {
        snprintf(path, size, "%s", env);
        return access(path, R_OK);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    static const char *const where[] = {"%s/tacio-report", "%s/../libexec/tacio/tacio-report"};
    for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
        snprintf(path, size, where[i], exe);
        if (access(path, R_OK) == 0)
            return 0;
    }
    return -1;
}

int cmd_report(int argc, char **argv)
{
    char script[PATH_MAX + 64];
    const char *env = getenv("TACIO_REPORT_SCRIPT");
    int missing = find_script(script, sizeof script);
    if (missing && env && *env)
        return cli_error("tacio report: TACIO_REPORT_SCRIPT=%s: cannot read it", env);
    if (missing)
        return cli_error("tacio report: its script (tacio-report) is neither next to this "
                         "executable nor in ../libexec/tacio; set TACIO_REPORT_SCRIPT");
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args)
        return cli_error("out of memory");
    args[0] = "python3";
    args[1] = script;
    memcpy(args + 2, argv, sizeof *args * (size_t)argc);
    execvp(args[0], args);
    free(args);
    return cli_error("tacio report: cannot run python3 (%s): install python3 and matplotlib",
                     strerror(errno));
}
