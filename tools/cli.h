/* What the tacio command's parts share. */
#ifndef TACIO_CLI_H
#define TACIO_CLI_H

#define EXIT_BAD_INPUT 2

/* "tacio: error: ..." on stderr; returns EXIT_BAD_INPUT (cli.c). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The library's message for a failure it returned (tacio_error_get_string),
 * as cli_error prints it. */
int cli_fail(int rc);

/* tacio platform OPTIONS (tools/platform.c); argv holds the options only. */
int cmd_platform(int argc, char **argv);

/* tacio report INPUT... --out DIR (tools/report.c runs tools/report.py). */
int cmd_report(int argc, char **argv);

/* tacio wisdom list|show|forget (tools/wisdom.c). */
int cmd_wisdom(int argc, char **argv);

#endif
