#include "wisdom.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_CHARS 1023
#define LOCK_TRIES 200 /* of 50 ms: a lock held 10 s is a job gone wrong; give up */

/* ---- the fields of a line ---- */

enum ftype { F_OP, F_HEX, F_COUNT, F_TOKEN, F_CHOICE, F_TRIED, F_WHEN };

struct field {
    const char *name;
    enum ftype type;
    size_t at; /* offsetof in struct wisdom_entry */
};

#define KEY(f) offsetof(struct wisdom_entry, key.f)
#define VAL(f) offsetof(struct wisdom_entry, f)
static const struct field fields[] = {
    {"op", F_OP, KEY(op)},
    {"sig", F_HEX, KEY(sig)},
    {"ranks", F_COUNT, KEY(ranks)},
    {"hosts", F_COUNT, KEY(hosts)},
    {"per_host", F_COUNT, KEY(per_host)},
    {"mpi", F_TOKEN, KEY(mpi)},
    {"fs", F_TOKEN, KEY(fs)},
    {"machine", F_TOKEN, KEY(machine)},
    {"hints", F_HEX, KEY(hints)},
    {"choice", F_CHOICE, VAL(choice)},
    {"left", F_COUNT, VAL(left)},
    {"tried", F_TRIED, 0},
    {"when", F_WHEN, VAL(when)},
};
#define NFIELDS ((int)(sizeof fields / sizeof *fields))

static bool token_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("._:+-/", c) != NULL;
}

void wisdom_token(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; s && *s && n + 1 < cap; s++)
        out[n++] = token_char(*s) ? *s : '_';
    if (!n && cap > 1) /* a token is never empty */
        out[n++] = '_';
    out[n] = '\0';
}

bool wisdom_choice_parse(const char *choice, char *name, size_t cap, int64_t *k, bool *nodes)
{
    *k = 0, *nodes = false;
    if (!strcmp(choice, "default") || !strcmp(choice, "independent")) {
        snprintf(name, cap, "%s", choice);
        return true;
    }
    size_t len = strspn(choice, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (!len || len >= cap || len > 31 || choice[len] != ':')
        return false;
    memcpy(name, choice, len);
    name[len] = '\0';
    char *end;
    errno = 0;
    long long v = strtoll(choice + len + 1, &end, 10);
    if (errno || end == choice + len + 1 || v < 1 || v > 1024 || choice[len + 1] == '+')
        return false;
    *k = v;
    *nodes = !strcmp(end, ":nodes");
    return *nodes || !*end;
}

/* One item of tried: CHOICE@SECS, added to e; a message when it is bad. */
static const char *tried_item(struct wisdom_entry *e, char *item)
{
    char name[32], *end, *sep = strchr(item, '@');
    int64_t k;
    bool nodes;
    if (!sep)
        return "a tried item is CHOICE@SECONDS";
    *sep = '\0';
    errno = 0;
    double x = strtod(sep + 1, &end);
    if (errno || end == sep + 1 || *end || !isfinite(x) || x < 0 || x >= 1e9)
        return "a tried time is seconds, from 0 to 1e9";
    if (strlen(item) >= WISDOM_CHOICE || !wisdom_choice_parse(item, name, sizeof name, &k, &nodes))
        return "a tried choice is default, independent, STRATEGY:K or STRATEGY:K:nodes";
    if (wisdom_tried(e, item) >= 0 || !wisdom_try(e, item, x))
        return "a choice tried twice";
    return NULL;
}

/* tried=CHOICE@SECS,CHOICE@SECS...: the candidates timed. The choice field
 * stays the file's, whichever order the two come in. */
static const char *parse_tried(struct wisdom_entry *e, const char *v)
{
    char item[2 * WISDOM_CHOICE], choice[WISDOM_CHOICE];
    const char *why = NULL;
    memcpy(choice, e->choice, sizeof choice);
    for (const char *at = v; *at && !why; at += *at == ',') {
        size_t n = strcspn(at, ",");
        if (n >= sizeof item || e->ntried == WISDOM_TRIED)
            return "tried holds at most 10 items of CHOICE@SECONDS";
        memcpy(item, at, n);
        item[n] = '\0';
        at += n;
        why = tried_item(e, item);
    }
    memcpy(e->choice, choice, sizeof choice);
    return why ? why : e->ntried ? NULL : "tried is empty";
}

/* One value into e's field d; a message (static text) when it breaks d's rule. */
static const char *set_field(struct wisdom_entry *e, const struct field *d, const char *v)
{
    char *at = (char *)e + d->at, name[32];
    int64_t i64;
    bool nodes;
    errno = 0;
    switch (d->type) {
    case F_OP:
        if (strcmp(v, "write") && strcmp(v, "read"))
            return "op is write or read";
        snprintf(at, sizeof e->key.op, "%s", v);
        return NULL;
    case F_HEX: {
        size_t n = strspn(v, "0123456789abcdef");
        if (!n || n > 16 || v[n])
            return "a digest is 1 to 16 lowercase hexadecimal digits";
        uint64_t x = strtoull(v, NULL, 16);
        memcpy(at, &x, sizeof x);
        return NULL;
    }
    case F_COUNT:
    case F_WHEN:
        if (parse_i64(v, &i64) || v[0] == '+' || v[0] == '-' || i64 > INT64_C(1) << 40 ||
            (d->type == F_COUNT && i64 < 0))
            return "a count is a decimal number below 2^40";
        memcpy(at, &i64, sizeof i64);
        return NULL;
    case F_TOKEN: {
        size_t n = 0;
        while (v[n] && token_char(v[n]))
            n++;
        if (!n || n >= WISDOM_TOKEN || v[n])
            return "a name is 1 to 63 of the characters A-Z a-z 0-9 . _ : + - /";
        memcpy(at, v, n + 1);
        return NULL;
    }
    case F_CHOICE:
        if (strlen(v) >= sizeof e->choice ||
            !wisdom_choice_parse(v, name, sizeof name, &i64, &nodes))
            return "a choice is default, independent, STRATEGY:K or STRATEGY:K:nodes";
        memcpy(at, v, strlen(v) + 1);
        return NULL;
    case F_TRIED:
        return parse_tried(e, v);
    }
    return "internal: a field of no type";
}

/* One entry line (NUL-terminated, modified); a message when it is bad. */
static const char *parse_entry(char *line, struct wisdom_entry *e)
{
    bool seen[NFIELDS] = {false};
    memset(e, 0, sizeof *e);
    for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return "a field is key=value";
        *eq = '\0';
        int i = 0;
        while (i < NFIELDS && strcmp(fields[i].name, tok))
            i++;
        if (i == NFIELDS)
            return "an unknown field";
        if (seen[i])
            return "a field given twice";
        seen[i] = true;
        const char *why = set_field(e, &fields[i], eq + 1);
        if (why)
            return why;
    }
    for (int i = 0; i < NFIELDS; i++)
        if (!seen[i])
            return "a field is missing (every line has op, sig, ranks, hosts, per_host, mpi, fs, "
                   "machine, hints, choice, left, tried and when)";
    if (wisdom_tried(e, e->choice) < 0)
        return "the choice is not among those tried";
    if (e->left > WISDOM_TRIED)
        return "left is at most 10";
    return NULL;
}

/* ---- a profile's line ---- */

/* The entry field named name among a profile's key fields, or NULL. */
static const struct field *key_field(const char *name)
{
    static const char *const keys[] = {"op",  "ranks", "hosts",   "per_host",
                                       "mpi", "fs",    "machine", "when"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        if (!strcmp(name, keys[k]))
            for (int i = 0; i < NFIELDS; i++)
                if (!strcmp(fields[i].name, name))
                    return &fields[i];
    return NULL;
}

static bool profile_number_ok(double x, double below)
{
    return isfinite(x) && x >= 0 && x < below;
}

/* A multiplier or a time in a profile: finite, from 0 to below 1e9. */
static bool profile_number(const char *v, const char **end, double *out)
{
    char *e;
    errno = 0;
    *out = strtod(v, &e);
    *end = e;
    return !errno && e != v && profile_number_ok(*out, 1e9);
}

bool wisdom_profile_valid(const struct wisdom_profile *p)
{
    for (int k = 0; k < WISDOM_TERMS; k++)
        if (!profile_number_ok(p->fit[k], 1e9))
            return false;
    return profile_number_ok(p->choosing, 1e3) && p->calls >= 0 && p->calls <= INT64_C(1) << 40;
}

/* fit=M,M,...: the WISDOM_TERMS multipliers. */
static const char *parse_fit(struct wisdom_profile *p, const char *v)
{
    const char *at = v;
    for (int k = 0; k < WISDOM_TERMS; k++) {
        if (!profile_number(at, &at, &p->fit[k]) || *at != (k + 1 < WISDOM_TERMS ? ',' : '\0'))
            return "fit is 6 numbers from 0 to 1e9, comma-separated";
        at += *at == ',';
    }
    return NULL;
}

/* One of a profile's own fields (fit, choosing, calls); a message when it
 * is bad or not one of them. */
static const char *profile_value(struct wisdom_profile *p, const char *name, const char *v)
{
    const char *end;
    int64_t n;
    if (!strcmp(name, "fit"))
        return parse_fit(p, v);
    if (!strcmp(name, "choosing"))
        return profile_number(v, &end, &p->choosing) && !*end && p->choosing < 1e3
                   ? NULL
                   : "choosing is seconds, from 0 to 1000";
    if (!strcmp(name, "calls")) {
        if (parse_i64(v, &n) || v[0] == '+' || v[0] == '-' || n < 0 || n > INT64_C(1) << 40)
            return "a count is a decimal number below 2^40";
        p->calls = n;
        return NULL;
    }
    return "an unknown field";
}

/* A profile line after its first word (NUL-terminated, modified); a
 * message when it is bad. Every field once, none missing. */
static const char *parse_profile(char *line, struct wisdom_profile *p)
{
    static const char *const own[] = {"fit", "choosing", "calls"};
    struct wisdom_entry e;
    memset(&e, 0, sizeof e);
    memset(p, 0, sizeof *p);
    int seen = 0, nown = 0;
    unsigned seen_own = 0;
    for (char *tok = strtok(line, " \t"); tok; tok = strtok(NULL, " \t")) {
        char *eq = strchr(tok, '=');
        if (!eq)
            return "a field is key=value";
        *eq = '\0';
        const struct field *d = key_field(tok);
        const char *why = d ? set_field(&e, d, eq + 1) : profile_value(p, tok, eq + 1);
        if (why)
            return why;
        unsigned bit = 0;
        for (int k = 0; !d && k < 3; k++)
            bit |= !strcmp(tok, own[k]) ? 1u << k : 0;
        if ((bit & seen_own) || (d && (seen & (1 << (d - fields)))))
            return "a field given twice";
        seen_own |= bit, nown += bit != 0;
        seen |= d ? 1 << (d - fields) : 0;
    }
    if (nown != 3 || __builtin_popcount((unsigned)seen) != 8)
        return "a field is missing (every profile has op, ranks, hosts, per_host, mpi, fs, "
               "machine, fit, choosing, calls and when)";
    p->key = e.key;
    p->when = e.when;
    return NULL;
}

void wisdom_profile_line(const struct wisdom_profile *p, char *buf, size_t cap)
{
    const struct wisdom_key *k = &p->key;
    int n = snprintf(
        buf, cap,
        "profile op=%s ranks=%lld hosts=%lld per_host=%lld mpi=%s fs=%s machine=%s fit=", k->op,
        (long long)k->ranks, (long long)k->hosts, (long long)k->per_host, k->mpi, k->fs,
        k->machine);
    for (int i = 0; i < WISDOM_TERMS && n >= 0 && (size_t)n < cap; i++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%.6g", i ? "," : "", p->fit[i]);
    if (n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " choosing=%.6g calls=%lld when=%lld", p->choosing,
                 (long long)p->calls, (long long)p->when);
}

/* Whether line is a profile's: its first word; *rest, what follows it. */
static bool is_profile(char *line, char **rest)
{
    char *at = line + strspn(line, " \t");
    if (strncmp(at, "profile", 7) || (at[7] != ' ' && at[7] != '\t'))
        return false;
    *rest = at + 7;
    return true;
}

/* The header's version, or a message. */
static const char *parse_header(const char *line, int64_t *version)
{
    if (strncmp(line, "tacio-wisdom ", 13) || parse_i64(line + 13, version) || line[13] == '+' ||
        line[13] == '-')
        return "the first line is not 'tacio-wisdom VERSION': not a wisdom file";
    /* version 1 has no profiles: read as it is, written as 2 */
    return *version >= 1 && *version <= WISDOM_VERSION ? NULL
                                                       : "written by another version of tacio";
}

static bool blank_or_comment(const char *line)
{
    line += strspn(line, " \t");
    return !*line || *line == '#';
}

int wisdom_parse(const char *text, size_t len, struct wisdom *w)
{
    memset(w, 0, sizeof *w);
    if (len > WISDOM_MAX_BYTES)
        return tacio_fail(TACIO_EINVAL, "longer than %d bytes", WISDOM_MAX_BYTES);
    if (memchr(text, '\0', len))
        return tacio_fail(TACIO_EINVAL, "a NUL byte: not a text file");
    char line[LINE_MAX_CHARS + 2];
    bool header = false;
    int lineno = 0;
    int64_t version = 0;
    for (size_t at = 0; at < len; lineno++) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = (nl ? (size_t)(nl - text) : len) - at;
        if (n > LINE_MAX_CHARS) {
            wisdom_free(w);
            return tacio_fail(TACIO_EINVAL, "line %d: longer than %d characters", lineno + 1,
                              LINE_MAX_CHARS);
        }
        memcpy(line, text + at, n);
        line[n] = '\0';
        at += n + 1;
        if (blank_or_comment(line))
            continue;
        const char *why = NULL;
        struct wisdom_entry e;
        struct wisdom_profile p;
        char *rest;
        if (!header)
            why = parse_header(line, &version), header = true;
        else if (version < 2 && is_profile(line, &rest))
            why = "a profile in a version 1 file";
        else if (is_profile(line, &rest)) {
            if (!(why = parse_profile(rest, &p)) && wisdom_put_profile(w, &p))
                why = w->np >= WISDOM_MAX_ENTRIES ? "too many profiles" : "out of memory";
        } else if (!(why = parse_entry(line, &e)) && wisdom_put(w, &e))
            why = w->n >= WISDOM_MAX_ENTRIES ? "too many entries" : "out of memory";
        if (why) {
            wisdom_free(w);
            return tacio_fail(TACIO_EINVAL, "line %d: %s", lineno + 1, why);
        }
    }
    return 0;
}

/* ---- entries ---- */

static bool same_key(const struct wisdom_key *a, const struct wisdom_key *b)
{
    return !strcmp(a->op, b->op) && a->sig == b->sig && a->hints == b->hints &&
           a->ranks == b->ranks && a->hosts == b->hosts && a->per_host == b->per_host &&
           !strcmp(a->mpi, b->mpi) && !strcmp(a->fs, b->fs) && !strcmp(a->machine, b->machine);
}

const struct wisdom_entry *wisdom_find(const struct wisdom *w, const struct wisdom_key *k)
{
    for (int i = 0; i < w->n; i++)
        if (same_key(&w->e[i].key, k))
            return &w->e[i];
    return NULL;
}

int wisdom_put(struct wisdom *w, const struct wisdom_entry *e)
{
    for (int i = 0; i < w->n; i++)
        if (same_key(&w->e[i].key, &e->key)) {
            w->e[i] = *e;
            return 0;
        }
    if (w->n >= WISDOM_MAX_ENTRIES)
        return TACIO_ERANGE;
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 16;
        struct wisdom_entry *more = realloc(w->e, sizeof *more * (size_t)cap);
        if (!more)
            return TACIO_ENOMEM;
        w->e = more, w->cap = cap;
    }
    w->e[w->n++] = *e;
    return 0;
}

/* Whether a and b are one machine and direction (a profile's key). */
static bool same_machine(const struct wisdom_key *a, const struct wisdom_key *b)
{
    return !strcmp(a->op, b->op) && a->ranks == b->ranks && a->hosts == b->hosts &&
           a->per_host == b->per_host && !strcmp(a->mpi, b->mpi) && !strcmp(a->fs, b->fs) &&
           !strcmp(a->machine, b->machine);
}

const struct wisdom_profile *wisdom_find_profile(const struct wisdom *w, const struct wisdom_key *k)
{
    for (int i = 0; i < w->np; i++)
        if (same_machine(&w->p[i].key, k))
            return &w->p[i];
    return NULL;
}

int wisdom_put_profile(struct wisdom *w, const struct wisdom_profile *p)
{
    if (!wisdom_profile_valid(p))
        return TACIO_EINVAL; /* a line the file's reader would refuse, and the file with it */
    for (int i = 0; i < w->np; i++)
        if (same_machine(&w->p[i].key, &p->key)) {
            w->p[i] = *p;
            w->p[i].key.sig = w->p[i].key.hints = 0;
            return 0;
        }
    if (w->np >= WISDOM_MAX_ENTRIES)
        return TACIO_ERANGE;
    if (w->np == w->pcap) {
        int cap = w->pcap ? 2 * w->pcap : 4;
        struct wisdom_profile *more = realloc(w->p, sizeof *more * (size_t)cap);
        if (!more)
            return TACIO_ENOMEM;
        w->p = more, w->pcap = cap;
    }
    w->p[w->np] = *p;
    w->p[w->np].key.sig = w->p[w->np].key.hints = 0;
    w->np++;
    return 0;
}

void wisdom_remove(struct wisdom *w, int i)
{
    if (i < 0 || i >= w->n)
        return;
    memmove(w->e + i, w->e + i + 1, sizeof *w->e * (size_t)(w->n - i - 1));
    w->n--;
}

void wisdom_free(struct wisdom *w)
{
    free(w->e);
    free(w->p);
    memset(w, 0, sizeof *w);
}

int wisdom_tried(const struct wisdom_entry *e, const char *choice)
{
    for (int i = 0; i < e->ntried; i++)
        if (!strcmp(e->tried[i], choice))
            return i;
    return -1;
}

bool wisdom_try(struct wisdom_entry *e, const char *choice, double secs)
{
    int i = 0;
    while (i < e->ntried && strcmp(e->tried[i], choice))
        i++;
    if (i == WISDOM_TRIED || strlen(choice) >= WISDOM_CHOICE)
        return false;
    snprintf(e->tried[i], WISDOM_CHOICE, "%s", choice);
    e->secs[i] = secs;
    e->ntried += i == e->ntried;
    int best = 0;
    for (int j = 1; j < e->ntried; j++)
        best = e->secs[j] < e->secs[best] ? j : best;
    memcpy(e->choice, e->tried[best], WISDOM_CHOICE);
    return true;
}

void wisdom_line(const struct wisdom_entry *e, char *buf, size_t cap)
{
    const struct wisdom_key *k = &e->key;
    int n = snprintf(buf, cap,
                     "op=%s sig=%016llx ranks=%lld hosts=%lld per_host=%lld mpi=%s fs=%s "
                     "machine=%s hints=%016llx choice=%s left=%lld tried=",
                     k->op, (unsigned long long)k->sig, (long long)k->ranks, (long long)k->hosts,
                     (long long)k->per_host, k->mpi, k->fs, k->machine,
                     (unsigned long long)k->hints, e->choice, (long long)e->left);
    for (int i = 0; i < e->ntried && n >= 0 && (size_t)n < cap; i++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%s@%.9g", i ? "," : "", e->tried[i], e->secs[i]);
    if (n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " when=%lld", (long long)e->when);
}

/* ---- the file ---- */

int wisdom_read(const char *path, struct wisdom *w, bool *missing)
{
    memset(w, 0, sizeof *w);
    *missing = false;
    /* O_NONBLOCK: a FIFO put in the file's place must not hang the open */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        *missing = true;
        return 0;
    }
    if (fd < 0)
        return tacio_fail(TACIO_EIO, "cannot open it: %s", strerror(errno));
    struct stat st;
    int rc = fstat(fd, &st)         ? tacio_fail(TACIO_EIO, "cannot stat it: %s", strerror(errno))
             : !S_ISREG(st.st_mode) ? tacio_fail(TACIO_EINVAL, "not a regular file")
             : st.st_size > WISDOM_MAX_BYTES
                 ? tacio_fail(TACIO_EINVAL, "longer than %d bytes", WISDOM_MAX_BYTES)
                 : 0;
    char *text = rc ? NULL : malloc((size_t)st.st_size + 1);
    size_t got = 0;
    if (!rc && !text)
        rc = tacio_fail(TACIO_ENOMEM, "out of memory");
    while (!rc && got < (size_t)st.st_size) { /* a file may shrink while read: stop at its end */
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
        if (n < 0 && errno != EINTR)
            rc = tacio_fail(TACIO_EIO, "cannot read it: %s", strerror(errno));
        if (n == 0)
            break;
        got += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    if (!rc)
        rc = wisdom_parse(text, got, w);
    free(text);
    return rc;
}

static int write_all(int fd, const char *buf, size_t n)
{
    while (n) {
        ssize_t k = write(fd, buf, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        buf += k, n -= (size_t)k;
    }
    return 0;
}

/* The mode a new file gets (0666 less the umask), or the file's own. */
static mode_t file_mode(const char *path)
{
    struct stat st;
    if (!stat(path, &st))
        return st.st_mode & 07777;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

int wisdom_write(const char *path, const struct wisdom *w)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 8);
    if (!tmp)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    snprintf(tmp, plen + 8, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int rc = tacio_fail(TACIO_EIO, "cannot create a file beside it: %s", strerror(errno));
        free(tmp);
        return rc;
    }
    char line[LINE_MAX_CHARS + 2];
    /* version 1 where it holds no profile: older tacio reads it still */
    snprintf(line, sizeof line,
             "tacio-wisdom %d\n# auto's learned choices (docs/usage.md, \"Wisdom\"); "
             "`tacio wisdom list` shows them\n",
             w->np ? WISDOM_VERSION : 1);
    int bad = fchmod(fd, file_mode(path)) || write_all(fd, line, strlen(line));
    for (int i = 0; !bad && i < w->n; i++) {
        wisdom_line(&w->e[i], line, sizeof line - 1);
        strcat(line, "\n");
        bad = write_all(fd, line, strlen(line));
    }
    for (int i = 0; !bad && i < w->np; i++) {
        wisdom_profile_line(&w->p[i], line, sizeof line - 1);
        strcat(line, "\n");
        bad = write_all(fd, line, strlen(line));
    }
    bad = bad || fsync(fd);
    bad = close(fd) || bad;
    bad = bad || rename(tmp, path);
    int rc = bad ? tacio_fail(TACIO_EIO, "cannot write it: %s", strerror(errno)) : 0;
    if (bad)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* An exclusive lock on path.lock: its descriptor, or -1 (error set). */
static int lock_file(const char *path)
{
    size_t plen = strlen(path);
    char *name = malloc(plen + 6);
    if (!name)
        return tacio_fail(TACIO_ENOMEM, "out of memory"), -1;
    snprintf(name, plen + 6, "%s.lock", path);
    int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    free(name);
    if (fd < 0)
        return tacio_fail(TACIO_EIO, "cannot open its lock file: %s", strerror(errno)), -1;
    for (int i = 0; i < LOCK_TRIES; i++) {
        if (!flock(fd, LOCK_EX | LOCK_NB))
            return fd;
        if (errno != EWOULDBLOCK && errno != EINTR)
            break;
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    tacio_fail(TACIO_EIO, "cannot lock it (another job holds %s.lock)", path);
    close(fd);
    return -1;
}

/* e into a file's entries; when they are as many as a file may hold, the
 * oldest goes: a file shared for years keeps what jobs learned lately. */
static int put_evicting(struct wisdom *w, const struct wisdom_entry *e)
{
    if (!wisdom_put(w, e))
        return 0;
    int oldest = 0;
    for (int i = 1; i < w->n; i++)
        oldest = w->e[i].when < w->e[oldest].when ? i : oldest;
    wisdom_remove(w, oldest);
    return wisdom_put(w, e) ? tacio_fail(TACIO_ENOMEM, "out of memory") : 0;
}

/* p into a file's profiles, the oldest going where they are as many as a
 * file may hold. */
static int put_profile_evicting(struct wisdom *w, const struct wisdom_profile *p)
{
    int rc = wisdom_put_profile(w, p);
    if (rc != TACIO_ERANGE) /* done, or not valid (left out), or no memory */
        return rc == TACIO_ENOMEM ? tacio_fail(TACIO_ENOMEM, "out of memory") : 0;
    int oldest = 0;
    for (int i = 1; i < w->np; i++)
        oldest = w->p[i].when < w->p[oldest].when ? i : oldest;
    w->p[oldest] = w->p[--w->np];
    return wisdom_put_profile(w, p) ? tacio_fail(TACIO_ENOMEM, "out of memory") : 0;
}

/* An edit of a file's entries, made under its lock. */
typedef int (*wisdom_edit)(struct wisdom *w, const void *arg);

/* Locks path, reads it, edits its entries and writes them back. A file
 * that does not parse fails, unless `reset` (the edit starts from none);
 * a missing one is edited from none, and left missing when that leaves
 * nothing. */
static int edit_locked(const char *path, bool reset, wisdom_edit edit, const void *arg)
{
    int lock = lock_file(path);
    if (lock < 0)
        return TACIO_EIO;
    struct wisdom w;
    bool missing = false;
    int rc = wisdom_read(path, &w, &missing);
    rc = rc && reset ? 0 : rc;
    rc = rc ? rc : edit(&w, arg);
    if (!rc && !(missing && !w.n && !w.np))
        rc = wisdom_write(path, &w);
    wisdom_free(&w);
    close(lock); /* releases the lock */
    return rc;
}

static int merge(struct wisdom *w, const void *arg)
{
    const struct wisdom *learned = arg;
    int rc = 0;
    for (int i = 0; !rc && i < learned->n; i++)
        rc = put_evicting(w, &learned->e[i]);
    for (int i = 0; !rc && i < learned->np; i++)
        rc = put_profile_evicting(w, &learned->p[i]);
    return rc;
}

int wisdom_update(const char *path, const struct wisdom *learned)
{
    return edit_locked(path, false, merge, learned);
}

/* ---- the public API: tacio wisdom ---- */

static int no_entry(const struct wisdom *w, int index)
{
    return tacio_fail(TACIO_EINVAL, "no entry %d: the file holds %d (0 to %d)", index, w->n,
                      w->n - 1);
}

static int drop(struct wisdom *w, const void *arg)
{
    int index = *(const int *)arg;
    if (index < 0) {
        w->n = w->np = 0;
        return 0;
    }
    if (index >= w->n)
        return no_entry(w, index);
    wisdom_remove(w, index);
    return 0;
}

int tacio_wisdom_forget(const char *path, int index)
{
    return edit_locked(path, index < 0, drop, &index);
}

static void when_text(int64_t when, char *out, size_t cap)
{
    time_t t = (time_t)when;
    struct tm tm;
    if (!localtime_r(&t, &tm) || !strftime(out, cap, "%Y-%m-%d %H:%M", &tm))
        snprintf(out, cap, "%lld", (long long)when);
}

/* The choice's seconds, and the default's over them (how much the choice
 * gained; 0 when the default was not tried). */
static double secs_of(const struct wisdom_entry *e)
{
    return e->secs[wisdom_tried(e, e->choice)];
}

static double gain(const struct wisdom_entry *e)
{
    int d = wisdom_tried(e, "default");
    return d >= 0 && secs_of(e) > 0 ? e->secs[d] / secs_of(e) : 0;
}

static void print_entry(const struct wisdom_entry *e, FILE *out)
{
    const struct wisdom_key *k = &e->key;
    char when[64], line[LINE_MAX_CHARS + 1];
    when_text(e->when, when, sizeof when);
    fprintf(out,
            "op:           %s\nshape:        %016llx (signature of every rank's access)\n"
            "ranks:        %lld on %lld host(s), at most %lld a host\nmpi:          %s\n"
            "file system:  %s\nmachine:      %s\nhints:        %016llx (digest)\n"
            "choice:       %s%s\n",
            k->op, (unsigned long long)k->sig, (long long)k->ranks, (long long)k->hosts,
            (long long)k->per_host, k->mpi, k->fs, k->machine, (unsigned long long)k->hints,
            e->choice, e->left ? " (so far: trials go on in the next runs)" : "");
    for (int i = 0; i < e->ntried; i++)
        fprintf(out, "tried:        %-22s %.6g s%s\n", e->tried[i], e->secs[i],
                strcmp(e->tried[i], e->choice) ? "" : "  *");
    fprintf(out, "left:         %lld candidate(s) to time\nlearned:      %s\n", (long long)e->left,
            when);
    wisdom_line(e, line, sizeof line);
    fprintf(out, "line:         %s\n", line);
}

/* The terms of a profile's fit, as fit.h names them. */
static const char *const term_names[WISDOM_TERMS] = {"shuffle", "io",     "messages",
                                                     "fixed",   "gather", "pieces"};

/* The profile of e's machine and direction, where the file has one. */
static void print_profile(const struct wisdom_profile *p, FILE *out)
{
    char when[64], line[LINE_MAX_CHARS + 1];
    when_text(p->when, when, sizeof when);
    fprintf(out,
            "profile:      auto's cost model fitted on %lld call(s) of this machine, "
            "the built-in rates times:\n",
            (long long)p->calls);
    for (int k = 0; k < WISDOM_TERMS; k++)
        fprintf(out, "  %-10s  %.4g\n", term_names[k], p->fit[k]);
    fprintf(out, "choosing:     %.3g s (what rating auto's candidates took)\nfitted:       %s\n",
            p->choosing, when);
    wisdom_profile_line(p, line, sizeof line);
    fprintf(out, "line:         %s\n", line);
}

/* `tacio wisdom list`'s table of profiles. */
static void list_profiles(const struct wisdom *w, FILE *out)
{
    fprintf(out, "\n%-5s  %6s  %-8s  %-8s  %-22s  %s\n", "op", "ranks", "hosts", "fs", "mpi",
            "profile: the built-in rates times (shuffle io messages fixed gather pieces), calls");
    for (int i = 0; i < w->np; i++) {
        const struct wisdom_profile *p = &w->p[i];
        char hosts[48];
        snprintf(hosts, sizeof hosts, "%lldx%lld", (long long)p->key.hosts,
                 (long long)p->key.per_host);
        fprintf(out, "%-5s  %6lld  %-8s  %-8s  %-22.22s ", p->key.op, (long long)p->key.ranks,
                hosts, p->key.fs, p->key.mpi);
        for (int k = 0; k < WISDOM_TERMS; k++)
            fprintf(out, " %.3g", p->fit[k]);
        fprintf(out, ", %lld\n", (long long)p->calls);
    }
}

int tacio_wisdom_print(const char *path, int index, FILE *out)
{
    struct wisdom w;
    bool missing;
    int rc = wisdom_read(path, &w, &missing);
    if (!rc && missing)
        rc = tacio_fail(TACIO_ENOENT, "no wisdom file %s", path);
    if (!rc && index >= w.n)
        rc = no_entry(&w, index);
    if (!rc && index >= 0) {
        print_entry(&w.e[index], out);
        const struct wisdom_profile *p = wisdom_find_profile(&w, &w.e[index].key);
        if (p)
            print_profile(p, out);
    }
    if (!rc && index < 0)
        fprintf(out, "%3s  %-5s  %6s  %-8s  %-8s  %-22s  %-20s  %10s  %8s  %s\n", "#", "op",
                "ranks", "hosts", "fs", "mpi", "choice", "secs", "vs dflt", "learned");
    for (int i = 0; !rc && index < 0 && i < w.n; i++) {
        const struct wisdom_entry *e = &w.e[i];
        char hosts[48], when[64];
        snprintf(hosts, sizeof hosts, "%lldx%lld", (long long)e->key.hosts,
                 (long long)e->key.per_host);
        when_text(e->when, when, sizeof when);
        fprintf(out, "%3d  %-5s  %6lld  %-8s  %-8s  %-22.22s  %-20s  %10.4g  %7.2fx  %s%s\n", i,
                e->key.op, (long long)e->key.ranks, hosts, e->key.fs, e->key.mpi, e->choice,
                secs_of(e), gain(e), when, e->left ? " (trials go on)" : "");
    }
    if (!rc && index < 0 && w.np)
        list_profiles(&w, out);
    wisdom_free(&w);
    return rc;
}
