#include "hints.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ROMIO's system-wide hints file, read where ROMIO_HINTS names none it can
 * read (ROMIO's adio/common/system_hints.c) */
#define ROMIO_SYSTEM_HINTS "/etc/romio-hints"
/* the largest window tacio takes (counts of bytes in a round are int) */
#define CB_BUFFER_MAX ((int64_t)1 << 30)

#define FIELD(f) OPT_FIELD(struct exec_hints, f)
#define SIZE(key, f, min, dflt, help)                                                              \
    {                                                                                              \
        key, OPT_SIZE, FIELD(f), min, dflt, NULL, NULL, help                                       \
    }
#define TRISTATE(key, f, help)                                                                     \
    {                                                                                              \
        key, OPT_CHOICE, FIELD(f), 0, "automatic", opt_tristate, NULL, help                        \
    }

static const struct opt_def defs[] = {
    TRISTATE("romio_cb_write", cb_write,
             "ROMIO's: collective buffering of writes; automatic: only where it pays "
             "(docs/architecture.md, independent I/O)"),
    TRISTATE("romio_cb_read", cb_read, "ROMIO's: the same for reads"),
    SIZE("tacio_ind_min_piece", ind_min_piece, 1, NULL,
         "automatic collective buffering: a rank with a run shorter than this needs it; "
         "unset: 2 KiB (read) or 8 KiB (write) in one page cache, else 256 KiB"),
    TRISTATE("tacio_pipeline", pipeline,
             "overlap a round's file I/O with the next round's exchange (two half windows); "
             "automatic: when a file domain needs more than one window"),
    TRISTATE("tacio_recv_datatype", recv_datatype,
             "a write's aggregator receives scattered pieces into its window through a "
             "datatype; automatic: under Open MPI for pieces of 256 bytes on average"),
    TRISTATE("tacio_node_aggregation", node_aggregation,
             "gather each node's data on its first rank before the shuffle; automatic: on "
             "real nodes whose pieces average under tacio_node_agg_piece, or auto's choice"),
    /* 0: automatic never gathers; nothing measured here paid (docs/architecture.md) */
    SIZE("tacio_node_agg_piece", node_agg_piece, 0, "0",
         "automatic node aggregation: the average piece size under which a node gathers; "
         "0: never"),
    SIZE("tacio_ranks_per_node", ranks_per_node, 1, NULL,
         "virtual nodes of this many consecutive ranks; unset: the real nodes "
         "(MPI_COMM_TYPE_SHARED)"),
    {"tacio_topology", OPT_TEXT, FIELD(topology), 0, NULL, NULL, NULL,
     "the network, as a tacio --topology spec (docs/cli.md); unset: one switch"},
    SIZE("tacio_mem_per_node", mem_per_node, 1, NULL,
         "a cap on each node's free memory, bytes, for mccio; unset: MemAvailable"),
    SIZE("tacio_auto_trials", auto_trials, 0, "3",
         "auto: on calls that repeat a shape, time the default (romio) and this many of the "
         "model's candidates, one call each (one within 10% of the fastest a second call, on "
         "its kept schedule), then keep the fastest; 0: the model's pick only"),
    SIZE("tacio_kept_shapes", kept_shapes, 1, "4",
         "the schedules of this many access shapes are kept per direction (at most 8), so that "
         "calls alternating shapes on a file (A, B, A, B) each run their shape's again without "
         "planning; 1: the last call's only"),
    {"tacio_wisdom", OPT_TEXT, FIELD(wisdom), 0, NULL, NULL, NULL,
     "auto: a file of learned choices, read at open and updated at close, so that a later "
     "run starts at what the trials chose (docs/usage.md, wisdom); unset: TACIO_WISDOM, "
     "else none"},
};
static const struct opt_table table = {defs, sizeof defs / sizeof *defs, NULL};

/* One key: the engine's, the planner's, ROMIO's that tacio leaves to the MPI
 * library (ignored), or an unknown tacio_ key (an error: a typo must not go
 * unnoticed). Other keys belong to the MPI library or to libraries above it
 * (PnetCDF's nc_*), as in ROMIO. */
static int set_strict(struct exec_hints *h, const char *key, const char *value)
{
    const struct opt_def *d = opts_find(&table, key);
    if (d)
        return opts_set(d, h, value);
    if (hints_find(key) || hints_is_passthrough(key))
        return tacio_hints_set(&h->core, key, value);
    if (strncmp(key, "tacio_", 6))
        return 0;
    char names[1000] = "";
    hints_keys("tacio_", names, sizeof names);
    opts_keys(&table, "tacio_", names, sizeof names);
    return tacio_fail(TACIO_EINVAL, "unknown hint '%s'; tacio's are %s", key, names);
}

/* set_strict, except that a ROMIO hint (any key but tacio_'s) whose value
 * does not parse or is out of range is ignored, as ROMIO ignores it: the
 * hints stay as they were, and h->ignored names it. */
static int set_one(struct exec_hints *h, const char *key, const char *value)
{
    struct exec_hints before = *h;
    int rc = set_strict(h, key, value);
    if (!(rc == TACIO_EINVAL || rc == TACIO_ERANGE) || !strncmp(key, "tacio_", 6))
        return rc; /* (set_strict fails other keys only where it knows them) */
    *h = before;
    snprintf(h->ignored, sizeof h->ignored, "%s=%s is not valid: ignored, as ROMIO ignores it", key,
             value);
    return 0;
}

/* A hints file: "key value" lines, '#' comments. ROMIO's (romio true)
 * skips a malformed line, as ROMIO does (a key alone, or more than two
 * words), unless it names a tacio_ key (a typo must not go unnoticed);
 * TACIO_HINTS_FILE's refuses it. */
static int apply_file(struct exec_hints *h, const char *path, bool romio)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tacio_fail(TACIO_EIO, "cannot open the hints file '%s'", path);
    char line[1024];
    int rc = 0, lineno = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        char key[256], val[768], more[2];
        strip_comment(line);
        int n = sscanf(line, "%255s %767s %1s", key, val, more);
        if (n == 2)
            rc = set_one(h, key, val);
        else if (n != EOF && (!romio || !strncmp(key, "tacio_", 6)))
            rc = tacio_fail(TACIO_EINVAL, "%s:%d: the line of '%s': expected 'key value'", path,
                            lineno, key);
    }
    fclose(f);
    return rc;
}

/* ROMIO's hints file: ROMIO_HINTS where it can be read, else the system's
 * where it can (ROMIO's order); NULL: none. */
static const char *romio_file(void)
{
    const char *env = getenv("ROMIO_HINTS");
    if (env && *env && access(env, R_OK) == 0)
        return env;
    return access(ROMIO_SYSTEM_HINTS, R_OK) == 0 ? ROMIO_SYSTEM_HINTS : NULL;
}

/* Whether the text at s starts a new TACIO_HINTS item: "key=" with a key
 * that has an underscore, as every MPI-IO hint does (tacio_*, cb_*,
 * romio_*, striping_*). A comma followed by anything else belongs to the
 * value before it: "tacio_topology=tree:racks=2,nodes=3,cores=2" is one
 * item, whose spec has commas of its own. */
static bool starts_item(const char *s)
{
    size_t key = strcspn(s, "=,");
    return s[key] == '=' && memchr(s, '_', key) != NULL;
}

/* TACIO_HINTS=key=value,key=value: hints that are not the MPI library's. */
static int apply_env(struct exec_hints *h)
{
    const char *env = getenv("TACIO_HINTS");
    if (!env || !*env)
        return 0;
    char *copy = strdup(env);
    int rc = copy ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (char *kv = copy; kv && *kv && !rc;) {
        char *end = kv + strcspn(kv, ",");
        while (*end && !starts_item(end + 1)) /* a comma inside the value */
            end += 1 + strcspn(end + 1, ",");
        char *next = *end ? end + 1 : NULL, *eq = strchr(kv, '=');
        *end = '\0';
        if (!eq)
            rc = *kv ? tacio_fail(TACIO_EINVAL, "TACIO_HINTS item '%s' is not key=value", kv) : 0;
        else {
            *eq = '\0';
            rc = set_one(h, kv, eq + 1);
        }
        kv = next;
    }
    free(copy);
    return rc;
}

static int apply_info(struct exec_hints *h, MPI_Info info)
{
    int nkeys = 0, rc = 0;
    if (info == MPI_INFO_NULL)
        return 0;
    MPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys && !rc; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get_nthkey(info, i, key);
        MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
        if (flag)
            rc = set_one(h, key, val);
    }
    return rc;
}

static int defaults(struct exec_hints *h)
{
    memset(h, 0, sizeof *h);
    int rc = hints_defaults(&h->core);
    rc = rc ? rc : opts_defaults(&table, h);
    const char *wisdom = getenv("TACIO_WISDOM"); /* the hint's default */
    if (!rc && wisdom && *wisdom)
        rc = set_one(h, "tacio_wisdom", wisdom);
    return rc;
}

int hints_from(const struct exec_hints *base, MPI_Info info, struct exec_hints *out)
{
    int rc = 0;
    if (base)
        *out = *base;
    else
        rc = defaults(out);
    out->ignored[0] = '\0';
    const char *files[] = {base ? NULL : romio_file(), base ? NULL : getenv("TACIO_HINTS_FILE")};
    for (int i = 0; i < 2 && !rc; i++)
        if (files[i] && *files[i])
            rc = apply_file(out, files[i], i == 0);
    if (!rc && !base)
        rc = apply_env(out);
    if (!rc)
        rc = apply_info(out, info);
    if (!rc && out->core.cb_buffer_size > CB_BUFFER_MAX) { /* ROMIO takes it: a window's size */
        snprintf(out->ignored, sizeof out->ignored,
                 "cb_buffer_size=%lld is above 1 GiB: 1 GiB used",
                 (long long)out->core.cb_buffer_size);
        out->core.cb_buffer_size = CB_BUFFER_MAX;
    }
    return rc;
}

int hints_text(const struct exec_hints *h, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    int rc = hints_format(&h->core, buf, cap, &len);
    return rc ? rc : opts_format(&table, h, buf, cap, &len);
}

void exec_hints_each(const struct exec_hints *h,
                     void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    hints_each(&h->core, fn, arg);
    opts_each(&table, h, fn, arg);
}

bool hints_served(const char *key)
{
    return opts_find(&table, key) || hints_find(key);
}

/* One open-only hint: back to open's value, said where it changed (after
 * what h->ignored says already). */
static void keep_one(struct exec_hints *h, const char *key, bool changed)
{
    size_t n = strlen(h->ignored);
    if (changed)
        snprintf(h->ignored + n, sizeof h->ignored - n,
                 "%s%s is read when the file opens only: a new value is ignored", n ? "; " : "",
                 key);
}

void hints_keep_open_only(const struct exec_hints *open, struct exec_hints *h)
{
    keep_one(h, "tacio_topology", strcmp(open->topology, h->topology));
    keep_one(h, "tacio_ranks_per_node", open->ranks_per_node != h->ranks_per_node);
    keep_one(h, "tacio_mem_per_node", open->mem_per_node != h->mem_per_node);
    keep_one(h, "tacio_wisdom", strcmp(open->wisdom, h->wisdom));
    memcpy(h->topology, open->topology, sizeof h->topology);
    h->ranks_per_node = open->ranks_per_node;
    h->mem_per_node = open->mem_per_node;
    memcpy(h->wisdom, open->wisdom, sizeof h->wisdom);
}

uint64_t hints_digest(const struct exec_hints *h)
{
    char buf[4096];
    hints_text(h, buf, sizeof buf);
    uint64_t d = 1469598103934665603ull; /* FNV-1a */
    for (const char *c = buf; *c; c++)
        d = (d ^ (uint8_t)*c) * 1099511628211ull;
    return d;
}
