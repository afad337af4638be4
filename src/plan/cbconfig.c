/* ROMIO's cb_config_list, with ROMIO's meaning: which ranks may aggregate,
 * in the order FDs are dealt to them.
 *
 * The list is NAME[:COUNT],... where NAME is a host name or '*' and COUNT an
 * integer or '*' (as many as cb_nodes allows; absent: 1). Entries are taken
 * in order, each from the ranks no earlier entry used up:
 *   NAME:N  the first N ranks (in rank order) of the hosts called NAME; the
 *           host's other ranks are then used up;
 *   *:N     for each host in order of its lowest unused rank, that rank and
 *           its next N-1 unused ranks; the host's others are then used up;
 *   *:0     uses up every rank;
 *   *:*     (the whole list) ranks 0 .. cb_nodes-1.
 * Names that match no host are ignored, and parsing stops at cb_nodes
 * ranks. Hosts are matched by name, so virtual hosts that share a machine's
 * name all answer to it, while '*' counts each virtual host on its own. */
#include "plan.h"

#include <string.h>

struct cb_entry {
    const char *name; /* not terminated: len bytes */
    size_t len;
    bool wildcard;
    int64_t count; /* -1: '*' */
};

/* Next entry of *p; 1 when one was read, 0 at the end, -1 on bad syntax. */
static int next_entry(const char **p, struct cb_entry *e)
{
    const char *s = *p;
    if (!*s)
        return 0;
    size_t n = strcspn(s, ":,");
    if (n == 0)
        return -1;
    *e = (struct cb_entry){s, n, n == 1 && *s == '*', 1};
    if (!e->wildcard && memchr(s, '*', n))
        return -1; /* no patterns inside names, as in ROMIO */
    s += n;
    if (*s == ':') {
        size_t m = strcspn(++s, ":,");
        if (m == 1 && *s == '*')
            e->count = -1;
        else {
            char digits[24];
            if (m == 0 || m >= sizeof digits || strspn(s, "0123456789") != m)
                return -1;
            memcpy(digits, s, m);
            digits[m] = '\0';
            e->count = atoll(digits);
        }
        s += m;
    }
    if (*s == ',' && !s[1])
        return -1; /* a trailing comma */
    if (*s && *s != ',')
        return -1;
    *p = *s ? s + 1 : s;
    return 1;
}

int cb_config_check(const char *list)
{
    struct cb_entry e;
    int rc, n = 0;
    while ((rc = next_entry(&list, &e)) == 1)
        n++;
    return rc < 0 || n == 0 ? -1 : 0;
}

static const char *host_name(const struct tacio_topo *t, int h)
{
    return t->host_vert && t->vname ? t->vname[t->host_vert[h]] : NULL;
}

/* NAME:N — every rank of the matching hosts is used up; the first N taken. */
static int take_named(const struct tacio_topo *t, const struct cb_entry *e, int64_t count,
                      char *used, int cap, int *out, int n)
{
    bool *match = xcalloc((size_t)t->nhosts, sizeof(bool));
    if (!match)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int h = 0; h < t->nhosts; h++) {
        const char *name = host_name(t, h);
        match[h] = name && strlen(name) == e->len && !memcmp(name, e->name, e->len);
    }
    int64_t taken = 0;
    for (int r = 0; r < t->nprocs; r++)
        if (match[t->rank_host[r]] && !used[r]) {
            if (taken < count && n < cap) {
                out[n++] = r;
                taken++;
            }
            used[r] = 1;
        }
    free(match);
    return n;
}

/* *:N — host by host in order of their lowest unused rank. */
static int take_wildcard(const struct tacio_topo *t, int64_t count, char *used, int cap,
                         const int *ptr, const int *ranks, int *out, int n)
{
    for (int r = 0; r < t->nprocs && n < cap; r++) {
        if (used[r])
            continue;
        int h = t->rank_host[r];
        int64_t taken = 0;
        for (int k = ptr[h]; k < ptr[h + 1]; k++) {
            int q = ranks[k];
            if (q >= r && !used[q] && taken < count && n < cap) {
                out[n++] = q;
                taken++;
            }
            used[q] = 1;
        }
    }
    return n;
}

static int resolve(const struct tacio_topo *t, const char *list, int cap, char *used,
                   const int *ptr, const int *ranks, int *out)
{
    struct cb_entry e;
    int n = 0, rc;
    while (n < cap && (rc = next_entry(&list, &e)) == 1) {
        int64_t count = e.count < 0 ? cap : e.count;
        if (e.wildcard && count == 0)
            memset(used, 1, (size_t)t->nprocs);
        else if (e.wildcard)
            n = take_wildcard(t, count, used, cap, ptr, ranks, out, n);
        else
            n = take_named(t, &e, count, used, cap, out, n);
        if (n < 0)
            return n;
    }
    return n;
}

int cb_config_ranklist(const struct tacio_topo *t, const char *list, int64_t cap, int **out)
{
    int p = t->nprocs;
    cap = cap <= 0 || cap > p ? p : cap;
    *out = malloc(sizeof(int) * (size_t)(p ? p : 1));
    if (!*out)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    if (!strcmp(list, "*:*")) {
        for (int r = 0; r < cap; r++)
            (*out)[r] = r;
        return (int)cap;
    }
    int *ptr = NULL, *ranks = NULL;
    char *used = xcalloc((size_t)(p ? p : 1), 1);
    int n = used ? topo_host_ranks(t, &ptr, &ranks) : tacio_fail(TACIO_ENOMEM, "out of memory");
    if (!n)
        n = resolve(t, list, (int)cap, used, ptr, ranks, *out);
    free(used);
    free(ptr);
    free(ranks);
    if (n < 0) {
        free(*out);
        *out = NULL;
    }
    return n;
}
