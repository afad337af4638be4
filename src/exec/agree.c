/* Errors agreed across ranks, hints, runtime topology, fault injection. */
#include "exec.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Local results are 0, a negative TACIO_E* code, or a positive MPI class. */
static int class_of(int local)
{
    int cls = local;
    if (local > 0) /* an MPI class, or a code already agreed on */
        return MPI_Error_class(local, &cls) == MPI_SUCCESS ? cls : MPI_ERR_OTHER;
    switch (local) {
    case TACIO_ENOMEM:
        return MPI_ERR_NO_MEM;
    case TACIO_EIO:
        return MPI_ERR_IO;
    case TACIO_EUNSUPPORTED:
        return MPI_ERR_UNSUPPORTED_OPERATION;
    default:
        return MPI_ERR_ARG;
    }
}

int exec_fail_class(int mpi_class, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tacio_fail(TACIO_EIO, "%s", msg);
    return mpi_class;
}

static int class_of_errno(int err)
{
    switch (err) {
    case ENOSPC:
    case EDQUOT:
        return MPI_ERR_NO_SPACE;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case ENOENT:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

int exec_fail_errno(int err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return exec_fail_class(class_of_errno(err), "%s: %s", msg, strerror(err));
}

/* MPICH 4.0.2 gives codes added to a predefined class no "dynamic" mark, so
 * MPI_Error_string shows an unrelated internal message for them. Probe once
 * whether a dynamic code keeps its string; if not, return the class itself. */
static bool dynamic_works;
static pthread_once_t dynamic_once = PTHREAD_ONCE_INIT;

static void probe_dynamic_codes(void)
{
    int code, len;
    char s[MPI_MAX_ERROR_STRING] = "";
    dynamic_works = MPI_Add_error_code(MPI_ERR_OTHER, &code) == MPI_SUCCESS &&
                    MPI_Add_error_string(code, "tacio probe") == MPI_SUCCESS &&
                    MPI_Error_string(code, s, &len) == MPI_SUCCESS && !strcmp(s, "tacio probe");
}

static bool dynamic_codes_work(void)
{
    pthread_once(&dynamic_once, probe_dynamic_codes);
    return dynamic_works;
}

/* The agreed messages of the last codes returned, for tacio_error_string. */
#define RECENT 16
static struct {
    int code;
    char msg[512];
} recent[RECENT];
static int nrecent;
static pthread_mutex_t recent_lock = PTHREAD_MUTEX_INITIALIZER; /* files on several threads */

static int remember(int code, const char *msg)
{
    pthread_mutex_lock(&recent_lock);
    int k = nrecent++ % RECENT;
    recent[k].code = code;
    snprintf(recent[k].msg, sizeof recent[k].msg, "%s", msg);
    pthread_mutex_unlock(&recent_lock);
    return code;
}

/* The message of a code agreed on lately, if code is one. */
static bool recalled(int code, char *out, size_t cap)
{
    bool found = false;
    pthread_mutex_lock(&recent_lock);
    for (int i = 1; i <= RECENT && i <= nrecent && !found; i++) { /* newest first */
        int k = (nrecent - i) % RECENT;
        if ((found = recent[k].code == code))
            snprintf(out, cap, "%s", recent[k].msg);
    }
    pthread_mutex_unlock(&recent_lock);
    return found;
}

int tacio_error_string(int code, char *out, int *len)
{
    if (!recalled(code, out, MPI_MAX_ERROR_STRING))
        return MPI_Error_string(code, out, len);
    *len = (int)strlen(out);
    return MPI_SUCCESS;
}

#define AGREED "tacio: rank " /* how an agreed message begins */

/* Every rank learns the first failing rank's error class and message. */
static int agreed_failure(MPI_Comm comm, int rank, int first, int local)
{
    struct {
        int cls;
        char msg[496];
    } e = {0};
    if (rank == first) {
        e.cls = class_of(local);
        const char *last = tacio_last_error();
        if (!strncmp(last, AGREED, strlen(AGREED))) /* agreed before: keep its message */
            snprintf(e.msg, sizeof e.msg, "%s", last);
        else
            snprintf(e.msg, sizeof e.msg, AGREED "%d: %s", rank, last);
    }
    MPI_Bcast(&e, sizeof e, MPI_BYTE, first, comm);
    tacio_fail(TACIO_EIO, "%s", e.msg); /* a later agreement on this failure keeps it */
    int code;
    if (!dynamic_codes_work() || MPI_Add_error_code(e.cls, &code) != MPI_SUCCESS)
        return remember(e.cls, e.msg);
    char shown[MPI_MAX_ERROR_STRING]; /* Open MPI refuses longer strings (MPI_ERR_ARG) */
    size_t n = strnlen(e.msg, sizeof e.msg < sizeof shown ? sizeof e.msg : sizeof shown - 1);
    memcpy(shown, e.msg, n);
    shown[n] = '\0';
    MPI_Add_error_string(code, shown);
    return remember(code, e.msg);
}

int exec_agree_max(MPI_Comm comm, int local, int64_t *vals, int n)
{
    int rank, nprocs;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    int64_t in[8], out[8]; /* the lowest failing rank has the highest key */
    in[0] = local ? nprocs - rank : 0;
    for (int i = 0; i < n && i < 7; i++)
        in[i + 1] = vals[i];
    MPI_Allreduce(in, out, 1 + (n < 7 ? n : 7), MPI_INT64_T, MPI_MAX, comm);
    for (int i = 0; i < n && i < 7; i++)
        vals[i] = out[i + 1];
    return out[0] ? agreed_failure(comm, rank, nprocs - (int)out[0], local) : MPI_SUCCESS;
}

int exec_agree(MPI_Comm comm, int local)
{
    return exec_agree_max(comm, local, NULL, 0);
}

/* ---- hints ---- */

/* A ROMIO_HINTS-style file: "key value" lines, '#' comments. */
static int apply_hints_file(struct tacio_hints *h, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return tacio_fail(TACIO_EIO, "cannot open the hints file '%s'", path);
    char line[1024];
    int rc = 0, lineno = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        char key[256], val[768];
        strip_comment(line);
        int n = sscanf(line, "%255s %767s", key, val);
        if (n == 1)
            rc = tacio_fail(TACIO_EINVAL, "%s:%d: expected 'key value'", path, lineno);
        else if (n == 2 && hint_is_known(key))
            rc = tacio_hints_set(h, key, val);
    }
    fclose(f);
    return rc;
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
static int apply_env_hints(struct tacio_hints *h)
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
            rc = hint_is_known(kv) ? tacio_hints_set(h, kv, eq + 1) : 0;
        }
        kv = next;
    }
    free(copy);
    return rc;
}

static int apply_info(struct tacio_hints *h, MPI_Info info)
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
        if (flag && hint_is_known(key)) /* others belong to the MPI library */
            rc = tacio_hints_set(h, key, val);
    }
    return rc;
}

/* Lowest to highest precedence: hints files (ROMIO_HINTS, TACIO_HINTS_FILE),
 * TACIO_HINTS, the program's info; with a base (a file's hints), only the
 * info goes over it. */
int exec_hints(const struct tacio_hints *base, MPI_Info info, struct tacio_hints **out)
{
    int rc = base ? hints_copy(base, out) : tacio_hints_new(out);
    const char *files[] = {getenv("ROMIO_HINTS"), getenv("TACIO_HINTS_FILE")};
    for (int i = 0; i < 2 && !rc && !base; i++)
        if (files[i] && *files[i])
            rc = apply_hints_file(*out, files[i]);
    if (!rc && !base)
        rc = apply_env_hints(*out);
    if (!rc)
        rc = apply_info(*out, info);
    if (!rc && (*out)->cb_buffer_size > (1 << 30))
        rc = tacio_fail(TACIO_ERANGE, "cb_buffer_size above 1 GiB is not supported");
    return rc;
}

/* ---- runtime topology ---- */

/* Each rank's host leader (its host's lowest rank). */
static int host_leader(MPI_Comm comm, const struct tacio_hints *h)
{
    int rank, leader;
    MPI_Comm_rank(comm, &rank);
    if (h->ranks_per_node > 0)
        return (int)(rank / h->ranks_per_node * h->ranks_per_node);
    MPI_Comm shm;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, shm);
    MPI_Comm_free(&shm);
    return leader;
}

/* Host index of every rank from the (leader, memory) records: hosts
 * numbered in order of their lowest rank. */
static int hosts_of(const int64_t *rec, int nprocs, int *host_of)
{
    int nhosts = 0;
    for (int r = 0; r < nprocs; r++) /* a leader is its host's lowest rank */
        host_of[r] = rec[2 * r] == r ? nhosts++ : host_of[rec[2 * r]];
    return nhosts;
}

static int64_t mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb < 0 ? INT64_MAX / 4 : (int64_t)kb * 1024;
}

/* Free memory per host: the host's lowest rank speaks for it. */
static int runtime_memory(const int64_t *rec, struct tacio_topo *t)
{
    if (!t->mem_free && !(t->mem_free = xcalloc((size_t)t->nhosts, sizeof(int64_t))))
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    for (int r = t->nprocs - 1; r >= 0; r--)
        t->mem_free[t->rank_host[r]] = rec[2 * r + 1];
    return 0;
}

/* Each host's MPI_Get_processor_name, from its lowest rank, in host order:
 * host k's name at names + k * MPI_MAX_PROCESSOR_NAME. */
static int gather_names(MPI_Comm comm, const int64_t *rec, int nprocs, int nhosts, char **out)
{
    int rank, len, *counts = malloc(sizeof(int) * (size_t)nprocs);
    int *displs = malloc(sizeof(int) * (size_t)nprocs);
    char mine[MPI_MAX_PROCESSOR_NAME] = "";
    char *names = xcalloc((size_t)nhosts, sizeof mine);
    int rc = counts && displs && names ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    MPI_Comm_rank(comm, &rank);
    MPI_Get_processor_name(mine, &len);
    rc = exec_agree(comm, rc); /* nobody enters the Allgatherv alone */
    for (int r = 0, at = 0; !rc && r < nprocs; r++) {
        counts[r] = rec[2 * r] == r ? (int)sizeof mine : 0; /* leaders, in host order */
        displs[r] = at;
        at += counts[r];
    }
    if (!rc)
        MPI_Allgatherv(mine, counts[rank], MPI_CHAR, names, counts, displs, MPI_CHAR, comm);
    free(counts);
    free(displs);
    if (rc)
        free(names);
    *out = rc ? NULL : names;
    return rc;
}

/* Hosts placed in order keep the machine's names, as in ROMIO's
 * cb_config_list (virtual hosts share their machine's). */
static int rename_hosts(struct tacio_topo *t, const char *names)
{
    for (int k = 0; k < t->nused_hosts; k++) {
        char **v = &t->vname[t->host_vert[t->used_hosts[k]]];
        char *copy = strdup(names + (size_t)k * MPI_MAX_PROCESSOR_NAME);
        if (!copy)
            return tacio_fail(TACIO_ENOMEM, "out of memory");
        free(*v);
        *v = copy;
    }
    return 0;
}

/* The job's hosts on the topology's tree: by name when every host's
 * processor name is a distinct host of the tree (a topology describing the
 * real machine, or SimGrid's platform: a scattered allocation lands where
 * it is), else the i-th host in order on the i-th candidate host. */
static int place_runtime(MPI_Comm comm, const int64_t *rec, int nprocs, const int *host_of,
                         int nhosts, struct tacio_topo *t)
{
    char *names = NULL;
    int rc = gather_names(comm, rec, nprocs, nhosts, &names);
    int placed =
        rc ? rc : topo_place_named(t, nprocs, host_of, nhosts, names, MPI_MAX_PROCESSOR_NAME);
    if (placed == 0 && !(rc = topo_place_hosts(t, nprocs, host_of, nhosts)))
        rc = rename_hosts(t, names);
    free(names);
    return placed < 0 ? placed : rc;
}

/* One allgather of (host leader, free memory) per rank; host names follow,
 * from host leaders only, when the topology is a tree. Local failures are
 * agreed on before each collective, so a rank out of memory never leaves
 * the others waiting in one. */
int exec_topology(MPI_Comm comm, const struct tacio_hints *h, struct tacio_topo **out)
{
    int nprocs;
    MPI_Comm_size(comm, &nprocs);
    int *host_of = malloc(sizeof(int) * (size_t)nprocs);
    int *count = xcalloc((size_t)nprocs, sizeof(int));
    int64_t mine[2] = {host_leader(comm, h), mem_available()};
    int64_t *rec = malloc(sizeof(int64_t) * 2 * (size_t)nprocs);
    if (h->mem_per_node > 0)
        mine[1] = min64(mine[1], h->mem_per_node);
    int rc = host_of && count && rec ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    int nhosts = 0;
    if (!(rc = exec_agree(comm, rc))) {
        MPI_Allgather(mine, 2, MPI_INT64_T, rec, 2, MPI_INT64_T, comm);
        nhosts = hosts_of(rec, nprocs, host_of);
        int64_t max_ppn = 0;
        for (int r = 0; r < nprocs; r++)
            max_ppn = max64(max_ppn, ++count[host_of[r]]);
        char spec[300];
        if (h->topology[0])
            snprintf(spec, sizeof spec, "%s", h->topology);
        else
            snprintf(spec, sizeof spec, "flat:nodes=%d,cores=%lld", nhosts, (long long)max_ppn);
        rc = tacio_topo_parse(spec, out);
        if (!rc && !topo_has_tree(*out)) /* dist: placed now; trees once names are known */
            rc = topo_place_hosts(*out, nprocs, host_of, nhosts);
    }
    rc = exec_agree(comm, rc);
    if (!rc && topo_has_tree(*out))
        rc = exec_agree(comm, place_runtime(comm, rec, nprocs, host_of, nhosts, *out));
    if (!rc)
        rc = runtime_memory(rec, *out);
    free(host_of);
    free(count);
    free(rec);
    return rc;
}

/* ---- fault injection for tests: TACIO_FAULT=op:rank:nth[:errno] ---- */

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;

static int fault_locked(const char *op, int rank);

int exec_fault(const char *op, int rank)
{
    if (!getenv("TACIO_FAULT"))
        return 0;
    pthread_mutex_lock(&fault_lock);
    int err = fault_locked(op, rank);
    pthread_mutex_unlock(&fault_lock);
    return err;
}

static int fault_locked(const char *op, int rank)
{
    static int calls[8];
    static char armed[64]; /* the spec the counts belong to: a new one restarts them */
    static const char *const ops[] = {"pwrite", "pread", "open", "nodeagg", NULL};
    const char *env = getenv("TACIO_FAULT");
    if (!env)
        return 0;
    if (strncmp(env, armed, sizeof armed)) {
        snprintf(armed, sizeof armed, "%s", env);
        memset(calls, 0, sizeof calls);
    }
    char name[16];
    int r, nth, err = EIO;
    if (sscanf(env, "%15[a-z]:%d:%d:%d", name, &r, &nth, &err) < 3 || strcmp(name, op) || r != rank)
        return 0;
    for (int i = 0; ops[i]; i++)
        if (!strcmp(ops[i], op))
            return ++calls[i] == nth ? err : 0;
    return 0;
}

int exec_pwrite_all(int fd, const char *buf, int64_t len, int64_t off)
{
    exec_sim_io(len, true);
    while (len > 0) {
        size_t chunk = (size_t)min64(len, 1 << 30); /* what every kernel accepts at once */
        ssize_t n = pwrite(fd, buf, chunk, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -ENOSPC;
        buf += n;
        off += n;
        len -= n;
    }
    return 0;
}

int exec_pread_all(int fd, char *buf, int64_t len, int64_t off)
{
    exec_sim_io(len, false);
    while (len > 0) {
        size_t chunk = (size_t)min64(len, 1 << 30);
        ssize_t n = pread(fd, buf, chunk, off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0) { /* past the end of the file: reads as zeros */
            memset(buf, 0, (size_t)len);
            return 0;
        }
        buf += n;
        off += n;
        len -= n;
    }
    return 0;
}
