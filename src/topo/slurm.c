/* Slurm topology.conf (topology/tree plugin) and explicit distance files. */
#include "topo.h"

#include "../base/util.h"

#include <ctype.h>
#include <string.h>

#define LINE_MAX_LEN 65536

/* ---- hostlists: "n[01-03,07]", "a,b", "rack[0-1]n[0-3]" ----
 *
 * A name is parsed once into its text and its bracket groups, and the
 * names it stands for are written out odometer-style, each once. (Expanding
 * one group at a time re-wrote the whole name at every level: a name whose
 * last group was empty, "a[0-95]b[0-95]c[0-95]d[]", took 96^3 steps and
 * named no host.) */

#define HOST_NAME_LEN 512

/* A host index: digits only (no sign, no space) between s and stop, below
 * HOST_INDEX_LIMIT, so that counting up to it cannot overflow. */
#define HOST_INDEX_LIMIT 1000000000L
static bool parse_host_index(const char *s, const char *stop, long *out)
{
    long v = 0;
    if (s == stop)
        return false;
    for (; s < stop; s++) {
        if (!isdigit((unsigned char)*s))
            return false;
        v = v * 10 + (*s - '0');
        if (v >= HOST_INDEX_LIMIT)
            return false;
    }
    *out = v;
    return true;
}

struct host_range {
    long lo, hi;
    int width; /* digits of lo as written: "007" pads to three */
};

/* The text before a bracket group and the group's ranges; the last part
 * of a name is its trailing text, with no ranges. */
struct host_part {
    const char *text;
    int len;
    int first, n; /* ranges [first, first + n) of the pattern */
};

struct host_pattern {
    const char *name; /* for messages */
    struct host_part *part;
    int nparts;
    struct host_range *range;
    int nranges;
};

static int bad_range(const char *name, const char *item, const char *end)
{
    return tacio_fail(TACIO_EINVAL, "hostlist '%s': bad range '%.*s'", name, (int)(end - item),
                      item);
}

/* One item of a group, "7" or "01-03", between item and end. */
static int parse_host_range(struct host_pattern *p, const char *item, const char *end)
{
    const char *dash = memchr(item, '-', (size_t)(end - item));
    struct host_range *r = &p->range[p->nranges];
    if (!parse_host_index(item, dash ? dash : end, &r->lo))
        return bad_range(p->name, item, end);
    r->hi = r->lo;
    if (dash && (!parse_host_index(dash + 1, end, &r->hi) || r->hi < r->lo))
        return bad_range(p->name, item, end);
    r->width = (int)((dash ? dash : end) - item);
    p->nranges++;
    return 0;
}

/* The items between '[' and ']' (body to close), comma-separated; empty
 * items are skipped, an empty group is refused. */
static int parse_host_group(struct host_pattern *p, const char *body, const char *close)
{
    struct host_part *part = &p->part[p->nparts - 1];
    part->first = p->nranges;
    for (const char *item = body; item < close;) {
        const char *comma = memchr(item, ',', (size_t)(close - item));
        const char *end = comma ? comma : close;
        if (end > item) {
            int rc = parse_host_range(p, item, end);
            if (rc)
                return rc;
        }
        item = end + 1;
    }
    part->n = p->nranges - part->first;
    if (part->n == 0)
        return tacio_fail(TACIO_EINVAL, "hostlist '%s' has an empty '[]'", p->name);
    return 0;
}

static int parse_host_pattern(struct host_pattern *p, const char *name)
{
    size_t n = strlen(name);
    *p = (struct host_pattern){.name = name};
    /* a group takes three characters at least, a range one and a comma */
    p->part = malloc(sizeof(struct host_part) * (n / 3 + 1));
    p->range = malloc(sizeof(struct host_range) * (n / 2 + 1));
    if (!p->part || !p->range)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (const char *s = name;;) {
        const char *open = strchr(s, '[');
        const char *stop = open ? open : s + strlen(s);
        p->part[p->nparts++] = (struct host_part){s, (int)(stop - s), 0, 0};
        if (!open)
            return 0;
        const char *close = strchr(open, ']');
        if (!close)
            return tacio_fail(TACIO_EINVAL, "hostlist '%s' has an unclosed '['", name);
        int rc = parse_host_group(p, open + 1, close);
        if (rc)
            return rc;
        s = close + 1;
    }
}

/* How many names the pattern stands for, refused past the host limit before
 * any is written out. */
static int check_host_count(const struct host_pattern *p)
{
    int64_t total = 1;
    for (int i = 0; i < p->nparts; i++) {
        const struct host_part *part = &p->part[i];
        int64_t size = part->n ? 0 : 1;
        for (int r = part->first; r < part->first + part->n; r++)
            size += p->range[r].hi - p->range[r].lo + 1;
        if (size > topo_host_limit / total)
            return tacio_fail(TACIO_ERANGE, "hostlist '%s' names more than %lld hosts", p->name,
                              (long long)topo_host_limit);
        total *= size;
    }
    return 0;
}

/* The name at the odometer's position (range which[i], index value[i] for
 * part i), refused if longer than a host name may be. */
static int write_host_name(const struct host_pattern *p, const int *which, const long *value,
                           char *out)
{
    size_t len = 0;
    for (int i = 0; i < p->nparts; i++) {
        const struct host_part *part = &p->part[i];
        int w = part->n ? snprintf(out + len, HOST_NAME_LEN - len, "%.*s%0*ld", part->len,
                                   part->text, p->range[which[i]].width, value[i])
                        : snprintf(out + len, HOST_NAME_LEN - len, "%.*s", part->len, part->text);
        if (w < 0 || (size_t)w >= HOST_NAME_LEN - len)
            return tacio_fail(TACIO_EINVAL, "hostlist '%s' makes a name longer than %d characters",
                              p->name, HOST_NAME_LEN - 1);
        len += (size_t)w;
    }
    return 0;
}

/* Moves the odometer to the next name, the last group turning fastest
 * ("r[1-2]c[0-1]": r1c0 r1c1 r2c0 r2c1); false after the last one. */
static bool next_host_name(const struct host_pattern *p, int *which, long *value)
{
    for (int i = p->nparts - 1; i >= 0; i--) {
        const struct host_part *part = &p->part[i];
        if (!part->n)
            continue;
        if (value[i] < p->range[which[i]].hi) {
            value[i]++;
            return true;
        }
        if (which[i] + 1 < part->first + part->n) {
            value[i] = p->range[++which[i]].lo;
            return true;
        }
        which[i] = part->first;
        value[i] = p->range[which[i]].lo;
    }
    return false;
}

static int each_host_name(const struct host_pattern *p, int (*fn)(const char *, void *), void *ctx)
{
    int *which = malloc(sizeof(int) * (size_t)p->nparts);
    long *value = malloc(sizeof(long) * (size_t)p->nparts);
    int rc = which && value ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int i = 0; i < p->nparts && !rc; i++) {
        which[i] = p->part[i].first;
        value[i] = p->part[i].n ? p->range[which[i]].lo : 0;
    }
    char name[HOST_NAME_LEN];
    bool more = true;
    while (!rc && more) {
        rc = write_host_name(p, which, value, name);
        if (!rc)
            rc = fn(name, ctx);
        more = next_host_name(p, which, value);
    }
    free(which);
    free(value);
    return rc;
}

static int expand_one(const char *name, int (*fn)(const char *, void *), void *ctx)
{
    struct host_pattern p;
    int rc = parse_host_pattern(&p, name);
    if (!rc)
        rc = check_host_count(&p);
    if (!rc)
        rc = each_host_name(&p, fn, ctx);
    free(p.part);
    free(p.range);
    return rc;
}

int hostlist_expand(const char *list, int (*fn)(const char *name, void *ctx), void *ctx)
{
    size_t n = strlen(list);
    char *buf = malloc(n + 1);
    if (!buf)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    int depth = 0, rc = 0;
    size_t start = 0;
    for (size_t i = 0; i <= n && !rc; i++) {
        char c = list[i];
        depth += (c == '[') - (c == ']');
        if ((c == ',' && depth == 0) || c == '\0') {
            memcpy(buf, list + start, i - start);
            buf[i - start] = '\0';
            if (*buf)
                rc = expand_one(buf, fn, ctx);
            start = i + 1;
        }
    }
    free(buf);
    return rc;
}

/* ---- topology.conf ---- */

struct sw {
    char *name, *nodes, *switches;
};

/* Vertices by name: an open-addressing table of vertex ids (-1: empty),
 * at most half full. A machine's topology.conf names every node, and a
 * scan per name made 100,000 nodes cost 5e9 comparisons. */
struct names {
    int *slot;
    int64_t cap; /* a power of two */
    int n;
};

struct conf {
    struct sw *sw;
    int n;
    struct tacio_topo *t;
    int parent; /* vertex for the callbacks */
    const char *path;
    struct names names;
};

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The slot holding `name`, or the empty one where it would go. */
static int64_t name_slot(const struct conf *c, const char *name)
{
    int64_t i = (int64_t)(name_hash(name) & (uint64_t)(c->names.cap - 1));
    while (c->names.slot[i] >= 0 && strcmp(c->t->vname[c->names.slot[i]], name))
        i = (i + 1) & (c->names.cap - 1);
    return i;
}

static int find_vertex(const struct conf *c, const char *name)
{
    return c->names.cap ? c->names.slot[name_slot(c, name)] : -1;
}

/* Indexes vertex v (its name not yet in the table). */
static int index_vertex(struct conf *c, int v)
{
    struct names *nm = &c->names;
    if (2 * (int64_t)(nm->n + 1) > nm->cap) {
        struct names old = *nm;
        nm->cap = old.cap ? 2 * old.cap : 64;
        nm->slot = malloc(sizeof(int) * (size_t)nm->cap);
        if (!nm->slot) {
            *nm = old;
            return tacio_fail(TACIO_ENOMEM, "out of memory");
        }
        memset(nm->slot, 0xff, sizeof(int) * (size_t)nm->cap);
        for (int64_t i = 0; i < old.cap; i++)
            if (old.slot[i] >= 0)
                nm->slot[name_slot(c, c->t->vname[old.slot[i]])] = old.slot[i];
        free(old.slot);
    }
    nm->slot[name_slot(c, c->t->vname[v])] = v;
    nm->n++;
    return 0;
}

static char *field(char *line, const char *key)
{
    size_t k = strlen(key);
    for (char *p = line; (p = strstr(p, key)); p++)
        if ((p == line || isspace((unsigned char)p[-1])) && p[k] == '=') {
            char *v = p + k + 1, *e = v;
            while (*e && !isspace((unsigned char)*e))
                e++;
            return strndup(v, (size_t)(e - v));
        }
    return NULL;
}

static int read_conf(struct conf *c, FILE *f)
{
    char *line = malloc(LINE_MAX_LEN);
    int lineno = 0, rc = 0;
    while (!rc && line && fgets(line, LINE_MAX_LEN, f)) {
        lineno++;
        strip_comment(line);
        char *name = field(line, "SwitchName");
        if (!name) {
            for (char *p = line; *p && !rc; p++)
                if (!isspace((unsigned char)*p))
                    rc = tacio_fail(TACIO_EINVAL,
                                    "%s:%d: expected 'SwitchName=S Nodes=HOSTLIST' "
                                    "or 'SwitchName=S Switches=HOSTLIST'",
                                    c->path, lineno);
            continue;
        }
        struct sw *grown = realloc(c->sw, sizeof(struct sw) * (size_t)(c->n + 1));
        if (!grown) {
            free(name);
            rc = tacio_fail(TACIO_ENOMEM, "out of memory");
            break;
        }
        c->sw = grown;
        c->sw[c->n++] = (struct sw){name, field(line, "Nodes"), field(line, "Switches")};
    }
    free(line);
    return line ? rc : tacio_fail(TACIO_ENOMEM, "out of memory");
}

static int add_host_cb(const char *name, void *ctx)
{
    struct conf *c = ctx;
    if (find_vertex(c, name) >= 0)
        return tacio_fail(TACIO_EINVAL, "%s: node '%s' appears under two switches", c->path, name);
    int v = topo_add_host(c->t, c->parent, name);
    return v < 0 ? v : index_vertex(c, v);
}

static int link_switch_cb(const char *name, void *ctx)
{
    struct conf *c = ctx;
    int v = find_vertex(c, name);
    if (v < 0)
        return tacio_fail(TACIO_EINVAL, "%s: switch '%s' is used but never defined", c->path, name);
    if (c->t->parent[v] >= 0)
        return tacio_fail(TACIO_EINVAL, "%s: switch '%s' has two parents", c->path, name);
    c->t->parent[v] = c->parent;
    return 0;
}

static int build_conf(struct conf *c)
{
    int rc = 0;
    for (int i = 0; i < c->n && !rc; i++) {
        if (find_vertex(c, c->sw[i].name) >= 0)
            return tacio_fail(TACIO_EINVAL, "%s: switch '%s' defined twice", c->path,
                              c->sw[i].name);
        int v = topo_add_vertex(c->t, -1, c->sw[i].name);
        rc = v < 0 ? v : index_vertex(c, v);
    }
    for (int i = 0; i < c->n && !rc; i++) {
        c->parent = i;
        if (c->sw[i].nodes)
            rc = hostlist_expand(c->sw[i].nodes, add_host_cb, c);
        if (!rc && c->sw[i].switches)
            rc = hostlist_expand(c->sw[i].switches, link_switch_cb, c);
    }
    return rc;
}

struct jobsel {
    const struct conf *c;
    int *vert_host; /* vertex -> host index, -1 for a switch */
    int *list, n;
};

static int job_host_cb(const char *name, void *ctx)
{
    struct jobsel *j = ctx;
    int v = find_vertex(j->c, name);
    int h = v < 0 ? -1 : j->vert_host[v];
    if (h < 0)
        return tacio_fail(TACIO_EINVAL, "nodes=: '%s' is not a node of the topology", name);
    int *grown = realloc(j->list, sizeof(int) * (size_t)(j->n + 1));
    if (!grown)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    j->list = grown;
    j->list[j->n++] = h;
    return 0;
}

/* nodes=HOSTLIST: the hosts the job may use, in the list's order. */
static int select_job_hosts(const struct conf *c, const char *nodes)
{
    struct tacio_topo *t = c->t;
    struct jobsel j = {c, malloc(sizeof(int) * (size_t)t->nverts), NULL, 0};
    if (!j.vert_host)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    memset(j.vert_host, 0xff, sizeof(int) * (size_t)t->nverts);
    for (int h = 0; h < t->nhosts; h++)
        j.vert_host[t->host_vert[h]] = h;
    int rc = hostlist_expand(nodes, job_host_cb, &j);
    free(j.vert_host);
    t->job_hosts = j.list;
    t->njob_hosts = j.n;
    return rc;
}

int topo_parse_slurm(struct tacio_topo *t, const char *path, const char *nodes)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tacio_fail(TACIO_EIO, "cannot open Slurm topology file '%s'", path);
    struct conf c = {.t = t, .path = path};
    int rc = read_conf(&c, f);
    fclose(f);
    if (!rc && c.n == 0)
        rc = tacio_fail(TACIO_EINVAL, "%s: no SwitchName lines", path);
    if (!rc)
        rc = build_conf(&c);
    for (int i = 0; i < c.n; i++) {
        free(c.sw[i].name);
        free(c.sw[i].nodes);
        free(c.sw[i].switches);
    }
    free(c.sw);
    if (!rc && nodes) /* the tree must be complete before names resolve to hosts */
        rc = select_job_hosts(&c, nodes);
    free(c.names.slot);
    return rc;
}

/* ---- dist: explicit rank distances; ranks at distance <= 1 share a host ---- */

static int read_matrix_row(char *line, int64_t **vals, int *n)
{
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\n", &save); tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        int64_t v;
        if (parse_i64(tok, &v) || v < 0)
            return TACIO_EINVAL;
        if ((*n & (*n - 1)) == 0) {
            int64_t *g = realloc(*vals, sizeof(int64_t) * (size_t)(*n ? 2 * *n : 1));
            if (!g)
                return TACIO_ENOMEM;
            *vals = g;
        }
        (*vals)[(*n)++] = v;
    }
    return 0;
}

/* Read whitespace-separated rows of non-negative integers, '#' comments. */
int read_int_matrix(const char *path, int64_t **out, int *rows, int *cols)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tacio_fail(TACIO_EIO, "cannot open matrix file '%s'", path);
    char *line = malloc(LINE_MAX_LEN);
    int64_t *vals = NULL;
    int n = 0, r = 0, c = -1, lineno = 0, rc = line ? 0 : TACIO_ENOMEM;
    while (!rc && fgets(line, LINE_MAX_LEN, f)) {
        lineno++;
        strip_comment(line);
        int before = n;
        if ((rc = read_matrix_row(line, &vals, &n)))
            rc = tacio_fail(rc, "%s:%d: expected non-negative integers", path, lineno);
        else if (n > before && c >= 0 && n - before != c)
            rc = tacio_fail(TACIO_EINVAL, "%s:%d: row has %d values, earlier rows %d", path, lineno,
                            n - before, c);
        else if (n > before) {
            c = n - before;
            r++;
        }
    }
    fclose(f);
    free(line);
    if (!rc && r == 0)
        rc = tacio_fail(TACIO_EINVAL, "%s: no matrix rows", path);
    if (rc) {
        free(vals);
        return rc;
    }
    *out = vals;
    *rows = r;
    *cols = c;
    return 0;
}

static int group_hosts(struct tacio_topo *t)
{
    int n = t->dist_n;
    t->rank_host = malloc(sizeof(int) * (size_t)n);
    if (!t->rank_host)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    t->nhosts = 0;
    for (int i = 0; i < n; i++) {
        t->rank_host[i] = -1;
        for (int j = 0; j < i && t->rank_host[i] < 0; j++)
            if (t->dist[(int64_t)i * n + j] <= 1)
                t->rank_host[i] = t->rank_host[j];
        if (t->rank_host[i] < 0)
            t->rank_host[i] = t->nhosts++;
    }
    t->cores = n;
    return 0;
}

int topo_parse_dist(struct tacio_topo *t, const char *path)
{
    int rows, cols;
    int rc = read_int_matrix(path, &t->dist, &rows, &cols);
    if (rc)
        return rc;
    if (rows != cols)
        return tacio_fail(TACIO_EINVAL, "%s: distance matrix is %d x %d; expected square", path,
                          rows, cols);
    t->dist_n = rows;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < rows; j++)
            if (t->dist[(int64_t)i * rows + j] != t->dist[(int64_t)j * rows + i] ||
                (i == j && t->dist[(int64_t)i * rows + j] != 0))
                return tacio_fail(TACIO_EINVAL,
                                  "%s: D[%d][%d] breaks symmetry or a zero diagonal; expected "
                                  "a symmetric matrix with zero diagonal",
                                  path, i, j);
    return group_hosts(t);
}
