/* The planner's hints: ROMIO's names and defaults, plus tacio_ ones, in one
 * table (src/base/options.h) from which defaults, parsing, the cross-rank
 * agreement digest and TACIO_PRINT_HINTS derive. The MPI engine's own hints
 * (independent I/O, pipelining, intra-node aggregation, the run-time
 * topology) are its table (src/exec/hints.c). A value that cannot be parsed
 * is an error; a value that is merely too large for the job (cb_nodes >
 * ranks) is clamped at plan time, as ROMIO does. */
#include "plan.h"

#include "../base/options.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_strategy(const char *key, const char *value)
{
    (void)key;
    if (strategy_find(value))
        return 0;
    return tacio_fail(TACIO_EINVAL, "unknown strategy '%s'; expected one of %s", value,
                      strategy_names());
}

static int check_config_list(const char *key, const char *value)
{
    if (!cb_config_check(value))
        return 0;
    return tacio_fail(TACIO_EINVAL,
                      "hint %s=%s: expected ROMIO's form, a comma-separated list of "
                      "NAME[:COUNT] where NAME is a host or '*' and COUNT an integer or '*'",
                      key, value);
}

/* One "BYTES:FACTOR" entry of bw_factors at s: its values, and where the
 * next begins (past the ';'); NULL when it is not one. */
static const char *factor_entry(const char *s, double *bytes, double *factor)
{
    char *end;
    *bytes = strtod(s, &end);
    if (end == s || *end != ':' || !(*bytes >= 0) || isinf(*bytes))
        return NULL;
    s = end + 1;
    *factor = strtod(s, &end);
    if (end == s || !(*factor > 0) || isinf(*factor) || (*end && *end != ';'))
        return NULL;
    return *end ? end + 1 : end;
}

static int check_bw_factors(const char *key, const char *value)
{
    double b, f;
    for (const char *s = value; s && *s;)
        if (!(s = factor_entry(s, &b, &f)))
            return tacio_fail(TACIO_EINVAL,
                              "hint %s=%s: expected BYTES:FACTOR entries separated by ';' "
                              "(e.g. 65472:0.94;0:0.7), each factor above 0",
                              key, value);
    return 0;
}

double hints_bw_factor(const struct tacio_hints *h, double bytes)
{
    double best = -1, factor = 1, b, f;
    for (const char *s = h->bw_factors; s && *s;)
        if ((s = factor_entry(s, &b, &f)) && b <= bytes && b > best)
            best = b, factor = f;
    return factor;
}

int64_t hints_mem_min(const struct tacio_hints *h)
{
    return h->mem_min > 0 ? h->mem_min : h->cb_buffer_size;
}

const char *const solver_names[] = {"auto", "flow", "dense", NULL};
static const char *const collect_order_names[] = {"strategy", "ranks", "hosts", NULL};

#define FIELD(f) OPT_FIELD(struct tacio_hints, f)
#define SIZE(key, f, min, dflt, help)                                                              \
    {                                                                                              \
        key, OPT_SIZE, FIELD(f), min, dflt, NULL, NULL, help                                       \
    }
#define RATE(key, f, dflt, help)                                                                   \
    {                                                                                              \
        key, OPT_DOUBLE, FIELD(f), 0, dflt, NULL, NULL, help                                       \
    }

static const struct opt_def defs[] = {
    SIZE("cb_nodes", cb_nodes, 1, NULL,
         "ROMIO's: the number of aggregators (file domains); unset: every rank "
         "cb_config_list offers; clamped to those, not an error"),
    SIZE("cb_buffer_size", cb_buffer_size, 1, "16m",
         "ROMIO's: an aggregator's window per round, in bytes (above 1 GiB: 1 GiB)"),
    {"cb_config_list", OPT_TEXT, FIELD(cb_config_list), 0, NULL, NULL, check_config_list,
     "ROMIO's: which ranks may aggregate, NAME[:N|:*],... with host names or *; a list "
     "no host matches falls back to *:1; unset: *:1 (ROMIO's), but every rank (*:*) where "
     "the engine finds the job on one host and the file in its page cache"},
    SIZE("striping_unit", striping_unit, 1, NULL,
         "ROMIO's: the file system's stripe size; file domains are aligned to it"),
    SIZE("striping_factor", striping_factor, 1, NULL,
         "ROMIO's: the stripe count; lustre and tsujita make the aggregator count a multiple "
         "or divisor of it"),
    {"tacio_strategy", OPT_TEXT, FIELD(strategy), 0, "romio", NULL, check_strategy,
     "how file domains are cut and assigned to aggregators (docs/strategies.md)"},
    SIZE("tacio_msg_ind", msg_ind, 1, NULL,
         "mccio: the smallest file domain its partition tree bisects to (the paper's "
         "Msg_ind); unset: one leaf per aggregator slot"),
    SIZE("tacio_mem_min", mem_min, 0, NULL,
         "mccio: the free memory a node needs to aggregate (the paper's Mem_min); unset: "
         "cb_buffer_size"),
    SIZE("tacio_aggs_per_node", aggs_per_node, 1, "1",
         "mccio: the most aggregators on one node (the paper's N_ah)"),
    SIZE("tacio_msg_group", msg_group, 0, NULL,
         "mccio: the bytes of one aggregation group (the paper's Msg_group); 0: one group"),
    {"tacio_solver", OPT_CHOICE, FIELD(solver), 0, "auto", solver_names, NULL,
     "latp and tatp's assignment solver: the min-cost flow on trees, the dense LAP, or "
     "whichever fits the topology"},
    {"tacio_collect_order", OPT_CHOICE, FIELD(collect_order), 0, "strategy", collect_order_names,
     NULL,
     "the order an aggregator takes its senders' data in: the strategy's own (tsujita's by "
     "host, starting after the aggregator's own host; the others' by rank), by rank, or by "
     "host so, whatever the strategy (Tsujita et al.'s ordered collection on its own)"},
    RATE("tacio_bw_link", bw_link, "12.5e9",
         "auto's model: a node's network link, bytes/s (default: 100 Gb/s)"),
    RATE("tacio_bw_uplink", bw_uplink, NULL,
         "auto's model: a link between switches, bytes/s; unset: tacio_bw_link"),
    RATE("tacio_bw_copy", bw_copy, "4e9",
         "auto's model: a copy between ranks of one node (shared memory), bytes/s"),
    RATE("tacio_bw_agg_io", bw_agg_io, "2e9", "auto's model: one aggregator's file I/O, bytes/s"),
    RATE("tacio_bw_node_io", bw_node_io, NULL,
         "auto's model: one node's file I/O, bytes/s; unset: not charged"),
    RATE("tacio_bw_fs", bw_fs, "100e9", "auto's model: the file system's aggregate, bytes/s"),
    RATE("tacio_latency", latency, "2e-6", "auto's model: a message's flight time, s"),
    RATE("tacio_msg_overhead", msg_overhead, "1e-6",
         "auto's model: a message's cost at either end, s"),
    {"tacio_bw_factors", OPT_TEXT, FIELD(bw_factors), 0, "", NULL, check_bw_factors,
     "auto's model: the share of the link rate a message of a size gets, BYTES:FACTOR;... "
     "(SimGrid's smpi/bw-factor form); empty: 1 at every size"},
};
/* Hints say "node" for a machine of the job (a host, in the code); these
 * two said "host" once, and their old names keep working (docs/hints.md). */
static const struct opt_alias aliases[] = {{"tacio_aggs_per_host", "tacio_aggs_per_node"},
                                           {"tacio_bw_host_io", "tacio_bw_node_io"},
                                           {NULL, NULL}};
static const struct opt_table table = {defs, sizeof defs / sizeof *defs, aliases};

/* ROMIO hints the planner leaves to the MPI engine (romio_cb_*) or to the
 * MPI library. */
static const char *const passthrough[] = {"romio_cb_write",
                                          "romio_cb_read",
                                          "romio_ds_read",
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

int hints_defaults(struct tacio_hints *h)
{
    memset(h, 0, sizeof *h);
    return opts_defaults(&table, h);
}

int tacio_hints_new(struct tacio_hints **out)
{
    struct tacio_hints *h = xcalloc(1, sizeof *h);
    if (!h)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    int rc = hints_defaults(h);
    if (rc) {
        free(h);
        return rc;
    }
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

bool hints_is_passthrough(const char *key)
{
    for (int i = 0; passthrough[i]; i++)
        if (!strcmp(key, passthrough[i]))
            return true;
    return false;
}

const struct opt_def *hints_find(const char *key)
{
    return opts_find(&table, key);
}

void hints_keys(const char *prefix, char *buf, size_t cap)
{
    opts_keys(&table, prefix, buf, cap);
}

int tacio_hints_set(struct tacio_hints *h, const char *key, const char *value)
{
    const struct opt_def *d = opts_find(&table, key);
    if (d)
        return opts_set(d, h, value);
    if (!strncmp(key, "tacio_", 6)) {
        char names[600] = "";
        opts_keys(&table, "tacio_", names, sizeof names);
        return tacio_fail(TACIO_EINVAL, "unknown hint '%s'; the planner's are %s", key, names);
    }
    if (hints_is_passthrough(key))
        return 0;
    return tacio_fail(TACIO_EINVAL,
                      "unknown hint '%s'; expected a ROMIO hint (cb_nodes, "
                      "cb_buffer_size, cb_config_list, striping_unit, striping_factor, ...) or "
                      "a tacio_ hint",
                      key);
}

int hints_format(const struct tacio_hints *h, char *buf, size_t cap, size_t *len)
{
    return opts_format(&table, h, buf, cap, len);
}

void hints_each(const struct tacio_hints *h,
                void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    opts_each(&table, h, fn, arg);
}
