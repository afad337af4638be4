#include "learned.h"

#include "../base/util.h"
#include "../plan/fit.h"
#include "../topo/topo.h"

#include <mpi.h>

#include <stdio.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* ---- the key's fixed parts ---- */

/* The file system's type by its statfs magic, as /proc/mounts names it. */
static const char *fs_name(int64_t magic)
{
    static const struct {
        int64_t magic;
        const char *name;
    } known[] = {
        {0x01021994, "tmpfs"}, {0xEF53, "ext4"},         {0x58465342, "xfs"},
        {0x9123683E, "btrfs"}, {0x6969, "nfs"},          {0x0BD00BD0, "lustre"},
        {0x47504653, "gpfs"},  {0x794C7630, "overlay"},  {0x65735546, "fuse"},
        {0x00C36400, "ceph"},  {0x2FC12FC1, "zfs"},      {0x19830326, "beegfs"},
        {0x5346414F, "afs"},   {0x73717368, "squashfs"},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (known[i].magic == magic)
            return known[i].name;
    return NULL;
}

static void fs_of(int fd, char *out, size_t cap)
{
    struct statfs st;
    const char *name = fstatfs(fd, &st) ? "unknown" : fs_name((int64_t)st.f_type);
    if (name)
        snprintf(out, cap, "%s", name);
    else
        snprintf(out, cap, "0x%llx", (unsigned long long)st.f_type);
}

/* The machine: rank 0's host name up to its first dot, less its trailing
 * digits, so that every node of a cluster (nid001234, nid005678) names it
 * alike while another cluster does not. */
static void machine_of(char *out, size_t cap)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    host[strcspn(host, ".")] = '\0';
    size_t n = strlen(host);
    while (n > 1 && host[n - 1] >= '0' && host[n - 1] <= '9')
        n--;
    host[n] = '\0';
    wisdom_token(host, out, cap);
}

/* The MPI library: the first line of its version string. */
static void mpi_of(char *out, size_t cap)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n,")] = '\0';
    wisdom_token(version, out, cap);
}

/* The job's hosts and the most ranks one of them runs. */
static void hosts_of(const struct tacio_topo *t, int64_t *hosts, int64_t *per_host)
{
    *hosts = t->nused_hosts, *per_host = topo_busiest_host_ranks(t);
}

static void say(const struct learned *l, const char *what)
{
    fprintf(stderr, "tacio: wisdom file %s %s\n", l->path, what);
}

void learned_open(struct learned *l, const char *path, const struct tacio_topo *topo, int fd)
{
    l->at.ranks = topo->nprocs;
    hosts_of(topo, &l->at.hosts, &l->at.per_host);
    mpi_of(l->at.mpi, sizeof l->at.mpi);
    fs_of(fd, l->at.fs, sizeof l->at.fs);
    machine_of(l->at.machine, sizeof l->at.machine);
    if (!path[0] || !(l->path = strdup(path)))
        return;
    bool missing;
    l->unusable = wisdom_read(l->path, &l->known, &missing) != 0;
    if (l->unusable) {
        char why[600];
        snprintf(why, sizeof why, "ignored: %s", tacio_last_error());
        say(l, why);
    }
}

void learned_close(struct learned *l)
{
    if (!l->path || (!l->found.n && !l->found.np) || l->unusable)
        return;
    if (wisdom_update(l->path, &l->found)) {
        char why[600];
        snprintf(why, sizeof why, "not updated: %s", tacio_last_error());
        say(l, why);
    }
}

void learned_free(struct learned *l)
{
    free(l->path);
    wisdom_free(&l->known);
    wisdom_free(&l->found);
    memset(l, 0, sizeof *l);
}

/* ---- a call's key ---- */

void learned_key(const struct learned *l, bool is_write, uint64_t sig, uint64_t hints,
                 struct wisdom_key *k)
{
    *k = l->at;
    snprintf(k->op, sizeof k->op, "%s", is_write ? "write" : "read");
    k->sig = sig;
    k->hints = hints;
}

const struct wisdom_entry *learned_find(const struct learned *l, const struct wisdom_key *k)
{
    return l->path ? wisdom_find(&l->known, k) : NULL;
}

/* k's entry in what the run found (a copy of the file's, or a new one). */
static struct wisdom_entry *found_entry(struct learned *l, const struct wisdom_key *k)
{
    const struct wisdom_entry *known = wisdom_find(&l->known, k);
    struct wisdom_entry e = {.key = *k};
    if (!wisdom_find(&l->found, k) && wisdom_put(&l->found, known ? known : &e))
        return NULL;
    return (struct wisdom_entry *)wisdom_find(&l->found, k);
}

/* e, changed: when, and the run's later shapes of its key see it. */
static void found_changed(struct learned *l, struct wisdom_entry *e)
{
    e->when = (int64_t)time(NULL);
    wisdom_put(&l->known, e);
}

void learned_settled(struct learned *l, const struct wisdom_key *k, int n,
                     const char (*choice)[WISDOM_CHOICE], const double *secs)
{
    struct wisdom_entry *e = l->path ? found_entry(l, k) : NULL;
    if (!e)
        return;
    e->ntried = 0, e->left = 0;
    for (int i = 0; i < n; i++)
        wisdom_try(e, choice[i], secs[i]);
    if (e->ntried)
        found_changed(l, e);
    else /* no candidate auto named (plans of no candidate) */
        wisdom_remove(&l->found, (int)(e - l->found.e));
}

/* Whether the model's candidates timed so far all ran far (LEARNED_FAR)
 * behind the default: its other candidates, which it rates slower, are not
 * tried (as the trials within a run stop, src/exec/trials.c). */
#define LEARNED_FAR 1.5
static bool model_far_behind(const struct wisdom_entry *e)
{
    int d = wisdom_tried(e, "default");
    double best = 0;
    for (int i = 0; d >= 0 && i < e->ntried; i++)
        if (i != d && strcmp(e->tried[i], "independent") && (!best || e->secs[i] < best))
            best = e->secs[i];
    return d >= 0 && best > LEARNED_FAR * e->secs[d];
}

void learned_first_call(struct learned *l, const struct wisdom_key *k, const char *choice,
                        double secs, int want)
{
    const struct wisdom_entry *known = l->path ? wisdom_find(&l->known, k) : NULL;
    char name[32];
    int64_t per_host;
    bool nodes;
    if (!l->path || wisdom_settled(known) ||
        !wisdom_choice_parse(choice, name, sizeof name, &per_host, &nodes))
        return;
    struct wisdom_entry *e = found_entry(l, k);
    if (!e)
        return;
    bool again = wisdom_tried(e, choice) >= 0;
    if (!wisdom_try(e, choice, secs))
        again = true; /* no room: as many as an entry holds */
    e->left = again || e->ntried >= want || model_far_behind(e) ? 0 : want - e->ntried;
    found_changed(l, e);
}

/* ---- the machine's profile: auto's fitted model across runs ---- */

_Static_assert(WISDOM_TERMS == NTERMS, "a profile holds every term of the model");

/* The profile's key for the file's machine and a direction. */
static struct wisdom_key machine_key(const struct learned *l, int is_write)
{
    struct wisdom_key k = l->at;
    snprintf(k.op, sizeof k.op, "%s", is_write ? "write" : "read");
    k.sig = k.hints = 0;
    return k;
}

void learned_seed_fits(const struct learned *l, struct model_fit *fit)
{
    for (int w = 0; fit && l->path && !l->unusable && w < 2; w++) {
        struct wisdom_key k = machine_key(l, w);
        const struct wisdom_profile *p = wisdom_find_profile(&l->known, &k);
        if (p)
            fit_seed(&fit[w], p->fit, p->choosing, p->calls);
    }
}

void learned_keep_fits(struct learned *l, struct model_fit *fit)
{
    for (int w = 0; l->path && l->observed && w < 2; w++) {
        if (!fit[w].seen)
            continue; /* nothing measured in this run: the file's stays */
        struct wisdom_profile p = {.key = machine_key(l, w),
                                   .choosing = fit[w].choosing,
                                   .calls = fit[w].earlier + fit[w].seen,
                                   .when = (int64_t)time(NULL)};
        memcpy(p.fit, fit_current(&fit[w])->coef, sizeof p.fit);
        wisdom_put_profile(&l->found, &p); /* refused if not valid: the file's stays */
    }
}
