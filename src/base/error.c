#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[512];
static _Thread_local int last_code;
static error_resolver resolver;

static const char *const names[] = {
    [0] = "success",
    [-TACIO_EINVAL] = "invalid argument",
    [-TACIO_ENOMEM] = "out of memory",
    [-TACIO_EIO] = "I/O error",
    [-TACIO_ERANGE] = "value out of range",
    [-TACIO_EUNSUPPORTED] = "unsupported combination",
    [-TACIO_ENOSPC] = "no space left",
    [-TACIO_EREADONLY] = "read-only file or file system",
    [-TACIO_EACCESS] = "permission denied",
    [-TACIO_ENOENT] = "no such file",
    [-TACIO_EEXIST] = "file exists",
    [-TACIO_EAMODE] = "invalid access mode",
    [-TACIO_ECOUNT] = "invalid count",
    [-TACIO_EDATAREP] = "unsupported data representation",
    [-TACIO_ETYPE] = "invalid datatype",
    [-TACIO_ECOMM] = "message exchange failed",
};

const char *error_name(int code)
{
    if (code > 0 || -code >= (int)(sizeof names / sizeof *names) || !names[-code])
        return "unknown error";
    return names[-code];
}

const char *tacio_last_error(void)
{
    return last_error;
}

int tacio_last_code(void)
{
    return last_code;
}

int tacio_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    last_code = code;
    return code;
}

void error_set_resolver(error_resolver fn)
{
    resolver = fn;
}

int tacio_error_get_string(int code, char *out, int *len)
{
    if (code > 0 && resolver && resolver(code, out, len) == 0)
        return 0;
    const char *name = error_name(code);
    int room = TACIO_MAX_ERROR_STRING - (int)strlen(name) - 3; /* ": " and the NUL */
    if (code < 0 && code == last_code && last_error[0])
        snprintf(out, TACIO_MAX_ERROR_STRING, "%s: %.*s", name, room, last_error);
    else
        snprintf(out, TACIO_MAX_ERROR_STRING, "%s", error_name(code));
    *len = (int)strlen(out);
    return code > 0 && !resolver ? TACIO_EINVAL : 0;
}
