/* Hints: ROMIO's names and defaults, plus tacio_ ones. A value that cannot be
 * parsed is an error; a value that is merely too large for the job (cb_nodes >
 * ranks) is clamped at plan time, as ROMIO does. */
#include "plan.h"

#include <string.h>

/* ROMIO hints tacio accepts and leaves to the MPI library. */
static const char *const passthrough[] = {"romio_cb_read",
                                          "romio_cb_write",
                                          "romio_ds_read",
                                          "romio_ds_write",
                                          "ind_rd_buffer_size",
                                          "ind_wr_buffer_size",
                                          "romio_no_indep_rw",
                                          "cb_read",
                                          "cb_write",
                                          "romio_cb_fr_types",
                                          "romio_cb_alltoall",
                                          "romio_cb_pfr",
                                          "romio_cb_ds_threshold",
                                          "direct_read",
                                          "direct_write",
                                          "access_style",
                                          "collective_buffering",
                                          "file_perm",
                                          "io_node_list",
                                          "nb_proc",
                                          "num_io_nodes",
                                          "start_iodevice",
                                          "romio_filesystem_type",
                                          "romio_aggregator_list",
                                          NULL};

int tacio_hints_new(struct tacio_hints **out)
{
    struct tacio_hints *h = xcalloc(1, sizeof *h);
    if (!h)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    h->cb_buffer_size = TACIO_DEFAULT_CB_BUFFER;
    h->cb_per_host = 1;
    strcpy(h->strategy, "romio");
    h->msg_ind = 0; /* 0: cb_buffer_size */
    h->mem_min = 0; /* 0: cb_buffer_size */
    h->aggs_per_host = 1;
    strcpy(h->solver, "auto");
    h->bw_link = 12.5e9; /* 100 Gb/s links */
    h->bw_agg_io = 2e9;  /* what one aggregator's writes reach */
    h->bw_fs = 100e9;    /* the file system's aggregate */
    h->latency = 2e-6;   /* per message */
    *out = h;
    return 0;
}

void tacio_hints_free(struct tacio_hints *h)
{
    free(h);
}

static int set_size(const char *key, const char *value, int64_t min, int64_t *dst)
{
    int64_t v;
    if (parse_size(value, &v))
        return tacio_fail(TACIO_EINVAL,
                          "hint %s=%s is not a size; expected an integer with an "
                          "optional k/m/g suffix",
                          key, value);
    if (v < min)
        return tacio_fail(TACIO_ERANGE, "hint %s=%s must be at least %lld", key, value,
                          (long long)min);
    *dst = v;
    return 0;
}

static int set_double(const char *key, const char *value, double *dst)
{
    char *end;
    double v = strtod(value, &end);
    if (end == value || *end || !(v > 0))
        return tacio_fail(TACIO_EINVAL, "hint %s=%s: expected a positive number", key, value);
    *dst = v;
    return 0;
}

static int set_config_list(struct tacio_hints *h, const char *value)
{
    if (!strcmp(value, "*:*")) {
        h->cb_per_host = 0;
        return 0;
    }
    int64_t n;
    if (strncmp(value, "*:", 2) || parse_i64(value + 2, &n) || n < 1 || n > 1 << 20)
        return tacio_fail(TACIO_EINVAL, "hint cb_config_list=%s: tacio supports '*:N' and '*:*'",
                          value);
    h->cb_per_host = (int)n;
    return 0;
}

static int set_choice(const char *key, const char *value, char *dst, size_t cap,
                      const char *const *allowed, const char *form)
{
    for (int i = 0; allowed[i]; i++)
        if (!strcmp(value, allowed[i])) {
            snprintf(dst, cap, "%s", value);
            return 0;
        }
    return tacio_fail(TACIO_EINVAL, "hint %s=%s is not known; expected one of %s", key, value,
                      form);
}

static int set_tacio_hint(struct tacio_hints *h, const char *key, const char *value)
{
    static const char *const solvers[] = {"auto", "flow", "dense", NULL};
    if (!strcmp(key, "tacio_strategy")) {
        if (!strategy_find(value))
            return tacio_fail(TACIO_EINVAL, "unknown strategy '%s'; expected one of %s", value,
                              strategy_names());
        snprintf(h->strategy, sizeof h->strategy, "%s", value);
        return 0;
    }
    if (!strcmp(key, "tacio_msg_ind"))
        return set_size(key, value, 1, &h->msg_ind);
    if (!strcmp(key, "tacio_mem_min"))
        return set_size(key, value, 0, &h->mem_min);
    if (!strcmp(key, "tacio_aggs_per_host"))
        return set_size(key, value, 1, &h->aggs_per_host);
    if (!strcmp(key, "tacio_msg_group"))
        return set_size(key, value, 0, &h->msg_group);
    if (!strcmp(key, "tacio_solver"))
        return set_choice(key, value, h->solver, sizeof h->solver, solvers, "auto, flow, dense");
    if (!strcmp(key, "tacio_ranks_per_node"))
        return set_size(key, value, 1, &h->ranks_per_node);
    if (!strcmp(key, "tacio_mem_per_node"))
        return set_size(key, value, 1, &h->mem_per_node);
    if (!strcmp(key, "tacio_topology")) {
        if (strlen(value) >= sizeof h->topology)
            return tacio_fail(TACIO_EINVAL, "hint tacio_topology is longer than %zu bytes",
                              sizeof h->topology - 1);
        snprintf(h->topology, sizeof h->topology, "%s", value);
        return 0;
    }
    if (!strcmp(key, "tacio_bw_link"))
        return set_double(key, value, &h->bw_link);
    if (!strcmp(key, "tacio_bw_agg_io"))
        return set_double(key, value, &h->bw_agg_io);
    if (!strcmp(key, "tacio_bw_fs"))
        return set_double(key, value, &h->bw_fs);
    if (!strcmp(key, "tacio_latency"))
        return set_double(key, value, &h->latency);
    return tacio_fail(TACIO_EINVAL,
                      "unknown hint '%s'; tacio's are tacio_strategy, tacio_msg_ind, "
                      "tacio_mem_min, tacio_aggs_per_host, tacio_msg_group, tacio_solver, "
                      "tacio_ranks_per_node, tacio_topology, tacio_mem_per_node, "
                      "tacio_bw_link, tacio_bw_agg_io, tacio_bw_fs, tacio_latency",
                      key);
}

bool hint_is_known(const char *key)
{
    static const char *const romio[] = {"cb_nodes",      "cb_buffer_size",  "cb_config_list",
                                        "striping_unit", "striping_factor", NULL};
    if (!strncmp(key, "tacio_", 6))
        return true;
    for (int i = 0; romio[i]; i++)
        if (!strcmp(key, romio[i]))
            return true;
    for (int i = 0; passthrough[i]; i++)
        if (!strcmp(key, passthrough[i]))
            return true;
    return false;
}

int tacio_hints_set(struct tacio_hints *h, const char *key, const char *value)
{
    if (!strcmp(key, "cb_nodes")) {
        return set_size(key, value, 1, &h->cb_nodes);
    }
    if (!strcmp(key, "cb_buffer_size"))
        return set_size(key, value, 1, &h->cb_buffer_size);
    if (!strcmp(key, "cb_config_list"))
        return set_config_list(h, value);
    if (!strcmp(key, "striping_unit"))
        return set_size(key, value, 1, &h->striping_unit);
    if (!strcmp(key, "striping_factor"))
        return set_size(key, value, 1, &h->striping_factor);
    if (!strncmp(key, "tacio_", 6))
        return set_tacio_hint(h, key, value);
    for (int i = 0; passthrough[i]; i++)
        if (!strcmp(key, passthrough[i]))
            return 0;
    return tacio_fail(TACIO_EINVAL,
                      "unknown hint '%s'; expected a ROMIO hint (cb_nodes, "
                      "cb_buffer_size, cb_config_list, striping_unit, striping_factor, ...) or "
                      "a tacio_ hint",
                      key);
}
