/* tacio wisdom list|show N|forget N|all [FILE]: auto's learned choices
 * (docs/usage.md, "Wisdom"), through the public API. FILE defaults to
 * TACIO_WISDOM, as the engine's does. */
#include "tacio_plan.h"

#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char wisdom_usage[] =
    "expected tacio wisdom list [FILE] | show N [FILE] | forget N|all [FILE] "
    "(FILE: TACIO_WISDOM when not given)";

/* An entry's number: a decimal index, or "all" (-1) where allowed. */
static int index_of(const char *text, bool all_ok, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (all_ok && !strcmp(text, "all")) {
        *out = -1;
        return 0;
    }
    if (end == text || *end || v < 0 || v > 1 << 30)
        return cli_error("'%s' is not an entry's number%s", text, all_ok ? " or all" : "");
    *out = (int)v;
    return 0;
}

int cmd_wisdom(int argc, char **argv)
{
    bool list = argc >= 1 && !strcmp(argv[0], "list");
    bool show = argc >= 2 && !strcmp(argv[0], "show");
    bool forget = argc >= 2 && !strcmp(argv[0], "forget");
    int took = list ? 1 : 2;
    if ((!list && !show && !forget) || argc > took + 1)
        return cli_error("%s", wisdom_usage);
    const char *path = argc > took ? argv[took] : getenv("TACIO_WISDOM");
    if (!path || !*path)
        return cli_error("no wisdom file: give one, or set TACIO_WISDOM");
    int index = -1;
    if (!list && index_of(argv[1], forget, &index))
        return EXIT_BAD_INPUT;
    int rc = forget ? tacio_wisdom_forget(path, index) : tacio_wisdom_print(path, index, stdout);
    return rc ? cli_fail(rc) : 0;
}
