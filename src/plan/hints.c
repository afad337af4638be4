/* Hints: ROMIO's names and defaults, plus tacio_ ones, all in one table from
 * which defaults, parsing, the cross-rank agreement digest and
 * TACIO_PRINT_HINTS are derived, so a new hint cannot be left out of one of
 * them. A value that cannot be parsed is an error; a value that is merely too
 * large for the job (cb_nodes > ranks) is clamped at plan time, as ROMIO does. */
#include "plan.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

enum hint_kind { H_SIZE, H_DOUBLE, H_STRATEGY, H_SOLVER, H_CB, H_AUTO, H_TEXT, H_CONFIG_LIST };

struct hint_def {
    const char *key;
    enum hint_kind kind;
    size_t off, cap;  /* the field in struct tacio_hints, and its size */
    int64_t min;      /* H_SIZE: the smallest value */
    const char *dflt; /* parsed like a user's value; NULL: 0 or "" (unset) */
};

#define FIELD(f) offsetof(struct tacio_hints, f), sizeof(((struct tacio_hints *)0)->f)

static const struct hint_def table[] = {
    {"cb_nodes", H_SIZE, FIELD(cb_nodes), 1, NULL},
    {"cb_buffer_size", H_SIZE, FIELD(cb_buffer_size), 1, "16m"},
    {"cb_config_list", H_CONFIG_LIST, FIELD(cb_config_list), 0, "*:1"},
    {"romio_cb_write", H_CB, FIELD(cb_write), 0, "automatic"},
    {"romio_cb_read", H_CB, FIELD(cb_read), 0, "automatic"},
    {"striping_unit", H_SIZE, FIELD(striping_unit), 1, NULL},
    {"striping_factor", H_SIZE, FIELD(striping_factor), 1, NULL},
    {"tacio_strategy", H_STRATEGY, FIELD(strategy), 0, "romio"},
    {"tacio_msg_ind", H_SIZE, FIELD(msg_ind), 1, NULL},
    {"tacio_mem_min", H_SIZE, FIELD(mem_min), 0, NULL},
    {"tacio_aggs_per_host", H_SIZE, FIELD(aggs_per_host), 1, "1"},
    {"tacio_msg_group", H_SIZE, FIELD(msg_group), 0, NULL},
    {"tacio_solver", H_SOLVER, FIELD(solver), 0, "auto"},
    {"tacio_bw_link", H_DOUBLE, FIELD(bw_link), 0, "12.5e9"}, /* 100 Gb/s links */
    {"tacio_bw_uplink", H_DOUBLE, FIELD(bw_uplink), 0, NULL}, /* between switches; unset: bw_link */
    {"tacio_bw_agg_io", H_DOUBLE, FIELD(bw_agg_io), 0, "2e9"},  /* one aggregator's writes */
    {"tacio_bw_host_io", H_DOUBLE, FIELD(bw_host_io), 0, NULL}, /* a host's; unset: not charged */
    {"tacio_bw_fs", H_DOUBLE, FIELD(bw_fs), 0, "100e9"},        /* the file system's aggregate */
    {"tacio_latency", H_DOUBLE, FIELD(latency), 0, "2e-6"},     /* per message */
    {"tacio_ranks_per_node", H_SIZE, FIELD(ranks_per_node), 1, NULL},
    {"tacio_topology", H_TEXT, FIELD(topology), 0, NULL},
    {"tacio_mem_per_node", H_SIZE, FIELD(mem_per_node), 1, NULL},
    {"tacio_ind_min_piece", H_SIZE, FIELD(ind_min_piece), 1, "256k"},
    {"tacio_pipeline", H_CB, FIELD(pipeline), 0, "automatic"},
    {"tacio_node_aggregation", H_AUTO, FIELD(node_aggregation), 0, "auto"},
    /* 0: auto never gathers; nothing measured here paid (README) */
    {"tacio_node_agg_piece", H_SIZE, FIELD(node_agg_piece), 0, "0"},
};
#define NHINTS (sizeof table / sizeof *table)

/* ROMIO hints tacio leaves to the MPI library (any other key that is not
 * tacio_ is ignored too, as ROMIO ignores keys it does not know). */
static const char *const passthrough[] = {"romio_ds_read",
                                          "romio_ds_write",
                                          "cb_read",
                                          "cb_write",
                                          "ind_rd_buffer_size",
                                          "ind_wr_buffer_size",
                                          "direct_read",
                                          "direct_write",
                                          "romio_no_indep_rw",
                                          "romio_cb_fr_types",
                                          "romio_cb_pfr",
                                          "romio_cb_alltoall",
                                          "romio_cb_ds_threshold",
                                          "access_style",
                                          "file_perm",
                                          "io_node_list",
                                          "nb_proc",
                                          "num_io_nodes",
                                          "start_iodevice",
                                          "collective_buffering",
                                          "romio_filesystem_type",
                                          "romio_aggregator_list",
                                          NULL};

static const struct hint_def *hint_def(const char *key)
{
    for (size_t i = 0; i < NHINTS; i++)
        if (!strcmp(table[i].key, key))
            return &table[i];
    return NULL;
}

static int set_size(const struct hint_def *d, const char *value, int64_t *dst)
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

static int set_double(const struct hint_def *d, const char *value, double *dst)
{
    char *end;
    double v = strtod(value, &end);
    if (end == value || *end || !(v > 0))
        return tacio_fail(TACIO_EINVAL, "hint %s=%s: expected a positive number", d->key, value);
    *dst = v;
    return 0;
}

static int set_text(const struct hint_def *d, const char *value, char *dst)
{
    if (strlen(value) >= d->cap)
        return tacio_fail(TACIO_EINVAL, "hint %s is longer than %zu bytes", d->key, d->cap - 1);
    snprintf(dst, d->cap, "%s", value);
    return 0;
}

/* One of a few words (choices, NULL-terminated). */
static int set_choice(const struct hint_def *d, const char *value, char *dst,
                      const char *const *choices)
{
    char list[128] = "";
    for (size_t i = 0, n = 0; choices[i]; i++) {
        if (!strcmp(value, choices[i]))
            return set_text(d, value, dst);
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", choices[i]);
    }
    return tacio_fail(TACIO_EINVAL, "hint %s=%s is not known; expected one of %s", d->key, value,
                      list);
}

static int set_value(const struct hint_def *d, const char *value, struct tacio_hints *h)
{
    void *field = (char *)h + d->off;
    switch (d->kind) {
    case H_SIZE:
        return set_size(d, value, field);
    case H_DOUBLE:
        return set_double(d, value, field);
    case H_STRATEGY:
        if (!strategy_find(value))
            return tacio_fail(TACIO_EINVAL, "unknown strategy '%s'; expected one of %s", value,
                              strategy_names());
        return set_text(d, value, field);
    case H_CB:
        return set_choice(d, value, field,
                          (const char *const[]){"enable", "disable", "automatic", NULL});
    case H_AUTO:
        return set_choice(d, value, field,
                          (const char *const[]){"enable", "disable", "auto", NULL});
    case H_SOLVER:
        return set_choice(d, value, field, (const char *const[]){"auto", "flow", "dense", NULL});
    case H_CONFIG_LIST:
        if (cb_config_check(value))
            return tacio_fail(TACIO_EINVAL,
                              "hint cb_config_list=%s: expected ROMIO's form, a comma-separated "
                              "list of NAME[:COUNT] where NAME is a host or '*' and COUNT an "
                              "integer or '*'",
                              value);
        return set_text(d, value, field);
    case H_TEXT:
        return set_text(d, value, field);
    }
    return 0;
}

int tacio_hints_new(struct tacio_hints **out)
{
    struct tacio_hints *h = xcalloc(1, sizeof *h);
    if (!h)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (size_t i = 0; i < NHINTS; i++)
        if (table[i].dflt)
            set_value(&table[i], table[i].dflt, h);
    *out = h;
    return 0;
}

void tacio_hints_free(struct tacio_hints *h)
{
    free(h);
}

int hints_copy(const struct tacio_hints *h, struct tacio_hints **out)
{
    *out = malloc(sizeof **out);
    if (!*out)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    **out = *h;
    return 0;
}

bool hint_is_known(const char *key)
{
    if (!strncmp(key, "tacio_", 6) || hint_def(key))
        return true;
    for (int i = 0; passthrough[i]; i++)
        if (!strcmp(key, passthrough[i]))
            return true;
    return false;
}

int tacio_hints_set(struct tacio_hints *h, const char *key, const char *value)
{
    const struct hint_def *d = hint_def(key);
    if (d)
        return set_value(d, value, h);
    if (!strncmp(key, "tacio_", 6)) {
        char names[600] = "";
        for (size_t i = 0, n = 0; i < NHINTS; i++)
            if (!strncmp(table[i].key, "tacio_", 6))
                n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                                      table[i].key);
        return tacio_fail(TACIO_EINVAL, "unknown hint '%s'; tacio's are %s", key, names);
    }
    for (int i = 0; passthrough[i]; i++)
        if (!strcmp(key, passthrough[i]))
            return 0;
    return tacio_fail(TACIO_EINVAL,
                      "unknown hint '%s'; expected a ROMIO hint (cb_nodes, "
                      "cb_buffer_size, cb_config_list, striping_unit, striping_factor, ...) or "
                      "a tacio_ hint",
                      key);
}

int hints_format(const struct tacio_hints *h, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NHINTS && n < cap; i++) {
        const void *field = (const char *)h + table[i].off;
        const char *sep = i ? " " : "";
        if (table[i].kind == H_SIZE)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s=%lld", sep, table[i].key,
                                  (long long)*(const int64_t *)field);
        else if (table[i].kind == H_DOUBLE)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s=%.17g", sep, table[i].key,
                                  *(const double *)field);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%s=%s", sep, table[i].key,
                                  (const char *)field);
    }
    return n < cap ? 0 : tacio_fail(TACIO_EINVAL, "internal: hints longer than %zu bytes", cap);
}
