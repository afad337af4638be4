/* The tacio command's error lines, shared by its parts (tacio.c, platform.c,
 * report.c): one place, so no part calls back into another. */
#include "tacio_plan.h"

#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("tacio: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_BAD_INPUT;
}

int cli_fail(int rc)
{
    char msg[TACIO_MAX_ERROR_STRING];
    int len;
    tacio_error_get_string(rc, msg, &len);
    return cli_error("%s", msg);
}
