/* Key=value options kept in a struct and described by a table: defaults,
 * parsing, and the canonical "key=value key=value" text (what ranks compare
 * and TACIO_PRINT_HINTS shows) all derive from the table, so an option
 * cannot be left out of one of them. The planning core's hints and the MPI
 * engine's own are two such tables. */
#ifndef TACIO_OPTIONS_H
#define TACIO_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

enum opt_kind {
    OPT_SIZE,   /* int64_t: "123", "4k", "16m" (binary multiples), at least min */
    OPT_DOUBLE, /* double, positive */
    OPT_TEXT,   /* char[cap], checked by check() when set */
    OPT_CHOICE  /* int: the index of one of choices[] */
};

struct opt_def {
    const char *key;
    enum opt_kind kind;
    size_t off, cap; /* the field in the struct, and its size */
    int64_t min;     /* OPT_SIZE: the smallest value */
    const char *dflt;
    const char *const *choices; /* OPT_CHOICE: the words, NULL-terminated */
    /* OPT_TEXT: 0 when the value is acceptable, else a TACIO_E* code with
     * the reason (tacio_fail); NULL accepts any text that fits */
    int (*check)(const char *key, const char *value);
    /* What the option means, for people: docs/hints.md is generated from
     * these texts (scripts/hints_doc.py) */
    const char *help;
};

/* An older spelling of a key, still accepted: {old, key}. */
struct opt_alias {
    const char *old, *key;
};

struct opt_table {
    const struct opt_def *defs;
    size_t n;
    const struct opt_alias *aliases; /* NULL-terminated by old == NULL; or NULL */
};

#define OPT_FIELD(type, f) offsetof(type, f), sizeof(((type *)0)->f)

/* Every option of the table at its default (dflt; NULL: zero). */
int opts_defaults(const struct opt_table *t, void *obj);
/* The option named key, or by one of its older spellings; NULL for none. */
const struct opt_def *opts_find(const struct opt_table *t, const char *key);
/* Parses value into the option's field: 0 or TACIO_EINVAL / TACIO_ERANGE. */
int opts_set(const struct opt_def *d, void *obj, const char *value);
/* The table's options as "key=value key=value ..." appended at buf + *len. */
int opts_format(const struct opt_table *t, const void *obj, char *buf, size_t cap, size_t *len);
/* Each option of the table that holds a value one could set, as text:
 * fn(arg, key, value); an unset one (a size below its minimum, a double
 * not positive, empty text) is left out, so that the pairs set on a new
 * object give it the same options (MPI_File_get_info's info is reused so). */
void opts_each(const struct opt_table *t, const void *obj,
               void (*fn)(void *arg, const char *key, const char *value), void *arg);
/* The keys, comma-separated (for error messages). */
void opts_keys(const struct opt_table *t, const char *prefix, char *buf, size_t cap);

/* Standard choice lists. */
extern const char *const opt_tristate[]; /* enable, disable, automatic */
enum { OPT_ENABLE, OPT_DISABLE, OPT_AUTOMATIC };

#endif
