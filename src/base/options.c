#include "options.h"

#include "util.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *const opt_tristate[] = {"enable", "disable", "automatic", NULL};

static int set_size(const struct opt_def *d, const char *value, int64_t *dst)
{
    int64_t v;
    if (parse_size(value, &v))
        return tacio_fail(TACIO_EINVAL,
                          "hint %s=%s is not a size; expected an integer with an "
                          "optional k/m/g suffix",
                          d->key, value);
    if (v < d->min)
        return tacio_fail(TACIO_ERANGE, "hint %s=%s must be at least %lld", d->key, value,
                          (long long)d->min);
    *dst = v;
    return 0;
}

static int set_double(const struct opt_def *d, const char *value, double *dst)
{
    char *end;
    double v = strtod(value, &end);
    if (end == value || *end || !(v > 0) || v > 1e300)
        return tacio_fail(TACIO_EINVAL, "hint %s=%s: expected a positive number", d->key, value);
    *dst = v;
    return 0;
}

static int set_text(const struct opt_def *d, const char *value, char *dst)
{
    if (strlen(value) >= d->cap)
        return tacio_fail(TACIO_EINVAL, "hint %s is longer than %zu bytes", d->key, d->cap - 1);
    int rc = d->check ? d->check(d->key, value) : 0;
    if (!rc)
        snprintf(dst, d->cap, "%s", value);
    return rc;
}

static int set_choice(const struct opt_def *d, const char *value, int *dst)
{
    char list[128] = "";
    for (size_t i = 0, n = 0; d->choices[i]; i++) {
        if (!strcasecmp(value, d->choices[i])) { /* ROMIO takes ENABLE too */
            *dst = (int)i;
            return 0;
        }
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", d->choices[i]);
    }
    return tacio_fail(TACIO_EINVAL, "hint %s=%s is not known; expected one of %s", d->key, value,
                      list);
}

int opts_set(const struct opt_def *d, void *obj, const char *value)
{
    void *field = (char *)obj + d->off;
    switch (d->kind) {
    case OPT_SIZE:
        return set_size(d, value, field);
    case OPT_DOUBLE:
        return set_double(d, value, field);
    case OPT_TEXT:
        return set_text(d, value, field);
    case OPT_CHOICE:
        return set_choice(d, value, field);
    }
    return tacio_fail(TACIO_EINVAL, "internal: hint %s has no kind", d->key);
}

int opts_defaults(const struct opt_table *t, void *obj)
{
    for (size_t i = 0; i < t->n; i++) {
        int rc = t->defs[i].dflt ? opts_set(&t->defs[i], obj, t->defs[i].dflt) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

const struct opt_def *opts_find(const struct opt_table *t, const char *key)
{
    for (const struct opt_alias *a = t->aliases; a && a->old; a++)
        if (!strcmp(a->old, key)) {
            key = a->key;
            break;
        }
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->defs[i].key, key))
            return &t->defs[i];
    return NULL;
}

/* Option d's value in obj as text, in buf; false where it is unset. */
static bool opt_value(const struct opt_def *d, const void *obj, char *buf, size_t cap)
{
    const void *field = (const char *)obj + d->off;
    switch (d->kind) {
    case OPT_SIZE:
        snprintf(buf, cap, "%lld", (long long)*(const int64_t *)field);
        return *(const int64_t *)field >= d->min;
    case OPT_DOUBLE:
        snprintf(buf, cap, "%.17g", *(const double *)field);
        return *(const double *)field > 0;
    case OPT_CHOICE:
        snprintf(buf, cap, "%s", d->choices[*(const int *)field]);
        return true;
    case OPT_TEXT:
        snprintf(buf, cap, "%s", (const char *)field);
        return *buf != '\0';
    }
    return false;
}

int opts_format(const struct opt_table *t, const void *obj, char *buf, size_t cap, size_t *len)
{
    size_t n = *len;
    char value[1024];
    for (size_t i = 0; i < t->n && n < cap; i++) {
        opt_value(&t->defs[i], obj, value, sizeof value);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s=%s", n ? " " : "", t->defs[i].key, value);
    }
    *len = n;
    return n < cap ? 0 : tacio_fail(TACIO_EINVAL, "internal: hints longer than %zu bytes", cap);
}

void opts_each(const struct opt_table *t, const void *obj,
               void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    char value[1024];
    for (size_t i = 0; i < t->n; i++)
        if (opt_value(&t->defs[i], obj, value, sizeof value))
            fn(arg, t->defs[i].key, value);
}

void opts_keys(const struct opt_table *t, const char *prefix, char *buf, size_t cap)
{
    size_t n = strlen(buf);
    for (size_t i = 0; i < t->n && n < cap; i++)
        if (!prefix || !strncmp(t->defs[i].key, prefix, strlen(prefix)))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", t->defs[i].key);
}
