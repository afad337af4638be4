/* libtacio_mpiio.so: LD_PRELOAD interposition of MPI_File_* (PMPI).
 *
 * MPI_File_open still opens the file through the MPI library, so the handle
 * serves everything tacio leaves alone (non-blocking collectives, split
 * collectives, ordered calls, sizes, ...); tacio opens the same file beside
 * it. The blocking collectives go to tacio when it can serve them (native
 * datarep, atomic mode off), else straight to PMPI, as does everything when
 * TACIO_DISABLE=1.
 *
 * A native view is tacio's alone until a collective the library serves
 * needs it (shim.h, struct pending_view): meanwhile tacio keeps the
 * individual pointer and deferred.c serves the independent calls that read
 * the view. Otherwise the individual pointer lives in the MPI library: a
 * collective reads it, and moves it past the data afterwards. */
#include "shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct shimfile *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER; /* MPI_THREAD_MULTIPLE */
_Thread_local int shim_depth; /* re-entry guard: MPI calling MPI_File_* itself */

/* The MPI family this shim was built for, and words by which the other
 * family's MPI_Get_library_version names itself (none: the standard ABI's
 * build, which serves any MPI of the ABI). A derivative of the shim's own
 * family (Cray MPICH, MVAPICH, a vendor's Open MPI) names neither, or its
 * own, and is taken as the shim's. */
#if defined(TACIO_MPI_ABI_BUILD)
static const char *const built_for = "";
static const char *const other_mpi[] = {NULL};
#elif defined(OPEN_MPI)
static const char *const built_for = "Open MPI";
static const char *const other_mpi[] = {"MPICH", "MVAPICH", "Intel(R) MPI", NULL};
#else
static const char *const built_for = "MPICH";
static const char *const other_mpi[] = {"Open MPI", NULL};
#endif

/* Whether this process's rank is 0 as the launcher numbers it (the MPI's
 * own handles are not to be trusted under another MPI), or unknown. */
static bool launcher_rank0(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                       "SLURM_PROCID", NULL};
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return atoi(v) == 0;
    }
    return true;
}

/* Stops the process where the program runs on an MPI of the other family
 * than the shim was built for. Such a shim hands that MPI its own build's
 * handles (MPI_Datatype, MPI_Comm: pointers in Open MPI, integers in
 * MPICH), even where it only passes a call through, and the MPI crashes deep inside a
 * call or computes with wrong constants; so the first MPI_File_open stops
 * every rank at once, with one message (rank 0's) that says why.
 * MPI_Get_library_version takes no handle, so it is safe under either
 * MPI; its buffer is the largest any MPI fills. */
static void check_same_mpi(void)
{
    static char version[16384];
    int len = 0;
    if (!other_mpi[0] || MPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    version[sizeof version - 1] = 0;
    bool other = false;
    for (int i = 0; other_mpi[i]; i++)
        other |= strstr(version, other_mpi[i]) != NULL;
    if (!other)
        return;
    version[strcspn(version, "\n,")] = 0; /* its name and version: "MPICH Version:\t4.0.2" */
    for (char *t = strchr(version, '\t'); t; t = strchr(t, '\t'))
        *t = ' ';
    if (launcher_rank0())
        fprintf(stderr,
                "tacio: error: libtacio_mpiio.so was built for %s, but this program runs on "
                "%.80s: preload the shim built for that MPI (docs/guide.md, troubleshooting); "
                "stopping\n",
                built_for, version);
    fflush(stderr);
    _exit(1); /* no MPI call: this MPI cannot run this shim's */
}

/* TACIO_DISABLE, read once: a collective asks at every call. */
static int disable_env = -1;

bool shim_disabled(void)
{
    if (disable_env < 0) {
        const char *e = getenv("TACIO_DISABLE");
        disable_env = e && *e && strcmp(e, "0");
    }
    return shim_depth > 0 || disable_env;
}

/* A file's entry stays valid while its handle is open: only MPI_File_close,
 * on the thread that owns the handle, removes it. */
struct shimfile *shim_lookup(MPI_File fh)
{
    pthread_mutex_lock(&files_lock);
    struct shimfile *s = files;
    while (s && s->fh != fh)
        s = s->next;
    pthread_mutex_unlock(&files_lock);
    return s;
}

struct shimfile *shim_deferred(MPI_File fh)
{
    struct shimfile *s = shim_disabled() ? NULL : shim_lookup(fh);
    return s && s->deferred ? s : NULL;
}

/* The file tacio serves this call for, or NULL: pass through. */
static struct shimfile *served(MPI_File fh)
{
    struct shimfile *s = shim_disabled() ? NULL : shim_lookup(fh);
    int atomic = 0;
    if (s && !s->deferred) /* a deferred view is never atomic (can_defer) */
        PMPI_File_get_atomicity(fh, &atomic);
    return s && s->native && !atomic ? s : NULL;
}

static void free_derived(MPI_Datatype t)
{
    int ni, na, nt, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&t);
}

static void pending_free(struct shimfile *s)
{
    if (s->view.etype != MPI_DATATYPE_NULL)
        free_derived(s->view.etype);
    if (s->view.filetype != MPI_DATATYPE_NULL)
        free_derived(s->view.filetype);
    if (s->view.info != MPI_INFO_NULL)
        MPI_Info_free(&s->view.info);
    s->view = (struct pending_view){0, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_INFO_NULL};
    s->deferred = false;
}

static void shimfile_free(struct shimfile *s)
{
    pending_free(s);
    if (s->comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->comm);
    pthread_mutex_destroy(&s->sfp_lock);
    free(s->sfp_path);
    free(s);
}

/* An id for the shared pointer's file: rank 0's process and clock. */
static int64_t draw_id(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t id = ((uint64_t)getpid() << 32) ^ ((uint64_t)ts.tv_sec << 40) ^ (uint64_t)ts.tv_nsec;
    return (int64_t)(id & INT64_MAX);
}

/* The shim's entry for a file the library opened at path (NULL: one
 * tacio cannot reach), its own communicator, and the shared pointer's
 * file named with an id rank 0 draws. One collective: whether every rank
 * has its entry, with rank 0's id. */
static struct shimfile *shimfile_new(MPI_Comm comm, const char *path)
{
    struct shimfile *s = path ? calloc(1, sizeof *s) : NULL;
    char *name = path ? malloc(strlen(path) + 64) : NULL;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(comm, &dup);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    int64_t mine[2] = {!s || !name || dup == MPI_COMM_NULL, rank == 0 ? draw_id() : 0}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, comm);
    if (all[0]) {
        free(s);
        free(name);
        if (dup != MPI_COMM_NULL)
            MPI_Comm_free(&dup);
        return NULL;
    }
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN); /* committed() asks it */
    s->comm = dup;
    s->rank = rank;
    s->native = true;
    s->esize = 1;
    s->view = (struct pending_view){0, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_INFO_NULL};
    pthread_mutex_init(&s->sfp_lock, NULL);
    sprintf(name, "%s.tacio-sfp-%016llx", path, (unsigned long long)all[1]);
    s->sfp_path = name;
    return s;
}

/* ROMIO's file system prefixes, which a program may put before a file's
 * name to choose ROMIO's driver ("ufs:/scratch/f"): drivers that reach
 * the file through POSIX, and those that do not (user-space file systems,
 * ROMIO's test driver). */
static const char *const posix_prefixes[] = {"ufs:", "nfs:", "xfs:", "lustre:", "gpfs:", "panfs:"};
static const char *const other_prefixes[] = {
    "pvfs2:", "daos:", "quobyte:", "ime:", "zoidfs:", "testfs:"};

static bool has_prefix(const char *name, const char *const *list, size_t n, size_t *len)
{
    for (size_t i = 0; i < n; i++) {
        *len = strlen(list[i]);
        if (!strncasecmp(name, list[i], *len))
            return true;
    }
    return false;
}

/* The path tacio opens for a file the MPI opened under name: a name
 * without a ROMIO prefix, or one some file has (an MPI without ROMIO's
 * prefixes, OMPIO, takes "nfs:out" as a name), as it is; else the name
 * after a POSIX driver's prefix, or NULL for a driver that does not go
 * through POSIX (tacio stays out of that file). Only a prefixed name
 * costs a stat. */
static const char *posix_path(const char *name)
{
    size_t len = 0;
    struct stat st;
    bool posix =
        has_prefix(name, posix_prefixes, sizeof posix_prefixes / sizeof *posix_prefixes, &len);
    if (!posix &&
        !has_prefix(name, other_prefixes, sizeof other_prefixes / sizeof *other_prefixes, &len))
        return name;
    if (stat(name, &st) == 0)
        return name;
    return posix ? name + len : NULL;
}

TACIO_API int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info,
                            MPI_File *fh)
{
    static pthread_once_t checked = PTHREAD_ONCE_INIT;
    pthread_once(&checked, check_same_mpi); /* before any handle is passed on */
    int rc = PMPI_File_open(comm, filename, amode, info, fh);
    /* a sequential file takes only shared-pointer calls, which the MPI
     * library serves: nothing of it for tacio */
    if (rc != MPI_SUCCESS || shim_disabled() || (amode & MPI_MODE_SEQUENTIAL))
        return rc;
    const char *path = posix_path(filename);
    struct shimfile *s = shimfile_new(comm, path);
    if (!s)
        return rc; /* tacio stays out of this file; MPI serves it */
    /* MPI created (or refused) the file already; tacio only opens it */
    int mode = amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE);
    shim_depth++;
    rc = tacio_file_open(comm, path, mode, info, &s->tf);
    shim_depth--;
    if (rc != MPI_SUCCESS) {
        PMPI_File_close(fh);
        shimfile_free(s);
        return rc;
    }
    s->fh = *fh;
    pthread_mutex_lock(&files_lock);
    s->next = files;
    files = s;
    pthread_mutex_unlock(&files_lock);
    return MPI_SUCCESS;
}

TACIO_API int MPI_File_close(MPI_File *fh)
{
    pthread_mutex_lock(&files_lock);
    struct shimfile **link = &files, *s;
    while (*link && (*link)->fh != *fh)
        link = &(*link)->next;
    if ((s = *link))
        *link = s->next;
    pthread_mutex_unlock(&files_lock);
    int rc = MPI_SUCCESS;
    if (s) {
        shim_depth++;
        rc = tacio_file_close(&s->tf); /* ends with a barrier: no rank uses the pointer file */
        shim_depth--;
        sfp_remove(s);
        shimfile_free(s);
    }
    int rc2 = PMPI_File_close(fh);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* tacio takes the view the library holds: collectives (tacio's) and
 * independent calls (the library's) then see one view. */
static int adopt(struct shimfile *s, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                 const char *datarep, MPI_Info info)
{
    s->native = !datarep || !strcmp(datarep, "native");
    if (!s->native)
        return MPI_SUCCESS; /* MPI serves this view's data conversion */
    MPI_Type_size(etype, &s->esize);
    shim_depth++;
    int rc = tacio_file_adopt_view(s->tf, disp, etype, filetype, "native", info);
    shim_depth--;
    return rc;
}

/* After a set_view the library refused, its view may still have changed
 * (OMPIO keeps the displacement of a view whose filetype it then rejects):
 * tacio follows what the library reports. */
static void follow_library(struct shimfile *s)
{
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char rep[MPI_MAX_DATAREP_STRING];
    if (PMPI_File_get_view(s->fh, &disp, &etype, &filetype, rep) != MPI_SUCCESS)
        return;
    adopt(s, disp, etype, filetype, rep, MPI_INFO_NULL);
    free_derived(etype);
    free_derived(filetype);
}

/* A handle that outlives the program's own: the named types are forever,
 * a derived one is duplicated. */
static MPI_Datatype kept_type(MPI_Datatype t)
{
    int ni, na, nt, combiner;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    MPI_Datatype dup = MPI_DATATYPE_NULL;
    if (combiner == MPI_COMBINER_NAMED)
        return t;
    MPI_Type_dup(t, &dup);
    return dup;
}

/* TACIO_DEFER_VIEWS, read once: views are deferred unless it is 0 (the
 * library then gets every view as the program sets it, and pays its
 * synchronisation beside tacio's). */
static int defer_env = -1;

static bool defer_asked(void)
{
    if (defer_env < 0) {
        const char *e = getenv("TACIO_DEFER_VIEWS");
        defer_env = !e || strcmp(e, "0");
    }
    return defer_env;
}

/* Whether tacio can hold the view alone. The answer is the same on every
 * rank, as the call is collective: datarep must match (MPI's rule), and
 * atomicity and the access mode are the file's. A Fortran program's view
 * is never deferred: Open MPI's Fortran bindings call PMPI_File_* (shim.c
 * cannot see their independent calls), and its views all come alike. */
static bool can_defer(struct shimfile *s, const char *datarep, bool fortran)
{
    int atomic = 1;
    if (!defer_asked() || fortran || (datarep && strcmp(datarep, "native")))
        return false;
    PMPI_File_get_atomicity(s->fh, &atomic);
    return !atomic;
}

/* Whether a type is committed: MPI_Pack of none of it fails if not (both
 * MPIs check, for a few nanoseconds), as the libraries' set_view would. */
static bool committed(struct shimfile *s, MPI_Datatype t)
{
    char byte;
    int pos = 0;
    return MPI_Pack(&byte, 0, t, &byte, 1, &pos, s->comm) == MPI_SUCCESS;
}

/* The view becomes tacio's; the library gets it later, if ever. It is
 * checked on this rank as ROMIO would, in ROMIO's order (a negative
 * displacement, which tacio_file_set_view_local refuses, then committed
 * types, then tacio's own rules); a view that fails leaves the file's as
 * it was, and costs no other rank anything, as no collective was begun. */
static int defer_view(struct shimfile *s, MPI_Offset disp, MPI_Datatype etype,
                      MPI_Datatype filetype, MPI_Info info)
{
    if (disp >= 0 && (!committed(s, etype) || !committed(s, filetype)))
        return MPI_ERR_TYPE;
    shim_depth++;
    int rc = tacio_file_set_view_local(s->tf, disp, etype, filetype, "native", info);
    shim_depth--;
    if (rc != MPI_SUCCESS)
        return rc;
    pending_free(s);
    s->view.disp = disp;
    s->view.etype = kept_type(etype);
    s->view.filetype = kept_type(filetype);
    if (info != MPI_INFO_NULL)
        MPI_Info_dup(info, &s->view.info);
    s->deferred = true;
    s->native = true;
    MPI_Type_size(etype, &s->esize);
    s->epoch++;
    return MPI_SUCCESS;
}

int shim_library_view(struct shimfile *s)
{
    if (!s->deferred)
        return MPI_SUCCESS;
    MPI_Offset fp = 0, sp = 0;
    tacio_file_get_position(s->tf, &fp);
    int rc = sfp_agreed(s, &sp);
    struct pending_view v = s->view;
    rc = rc ? rc : PMPI_File_set_view(s->fh, v.disp, v.etype, v.filetype, "native", v.info);
    if (rc == MPI_SUCCESS)
        rc = PMPI_File_seek(s->fh, fp, MPI_SEEK_SET);
    if (rc == MPI_SUCCESS && sp)
        rc = PMPI_File_seek_shared(s->fh, sp, MPI_SEEK_SET);
    pending_free(s);
    if (rc != MPI_SUCCESS)
        follow_library(s);
    return rc;
}

/* The view, from C (may defer it) or from Fortran (never). Every view
 * resets both pointers (MPI's rule), which a new epoch does for the
 * deferred shared pointer. A view that is not deferred goes to the MPI
 * library first, which agrees on it as it does; tacio then takes the same
 * view (tacio_file_adopt_view), never refusing one the library took: what
 * tacio cannot serve fails the next collective on every rank instead. So
 * the two never hold different views. If the library refuses it, a
 * deferred view stays the file's, as the program set it last (the
 * library's own is older); else tacio follows what the library kept. */
int shim_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                  const char *datarep, MPI_Info info, bool fortran)
{
    struct shimfile *s = shim_disabled() ? NULL : shim_lookup(fh);
    if (s && can_defer(s, datarep, fortran))
        return defer_view(s, disp, etype, filetype, info);
    int rc = PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
    if (!s)
        return rc;
    if (rc != MPI_SUCCESS) {
        if (!s->deferred)
            follow_library(s);
        return rc;
    }
    pending_free(s);
    s->epoch++;
    return adopt(s, disp, etype, filetype, datarep, info);
}

TACIO_API int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                                MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    return shim_set_view(fh, disp, etype, filetype, datarep, info, false);
}

/* Copies every key of from into to, over to's own. */
static void info_merge(MPI_Info to, MPI_Info from)
{
    int n = 0;
    MPI_Info_get_nkeys(from, &n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get_nthkey(from, i, key);
        MPI_Info_get(from, key, MPI_MAX_INFO_VAL, value, &flag);
        if (flag)
            MPI_Info_set(to, key, value);
    }
}

/* Hints set after open: tacio takes them first (hints that differ across
 * ranks, or a tacio_ hint it cannot take, fail on every rank and reach
 * the library not at all), then the library, which serves what tacio
 * leaves to it. A view kept from the library (deferred) takes them too,
 * for the library gets that view's info when it gets the view, which
 * must not undo them. */
TACIO_API int MPI_File_set_info(MPI_File fh, MPI_Info info)
{
    struct shimfile *s = shim_disabled() ? NULL : shim_lookup(fh);
    int rc = MPI_SUCCESS;
    if (s) {
        shim_depth++;
        rc = tacio_file_set_info(s->tf, info);
        shim_depth--;
    }
    if (rc == MPI_SUCCESS && s && s->deferred && info != MPI_INFO_NULL) {
        if (s->view.info == MPI_INFO_NULL)
            MPI_Info_dup(info, &s->view.info);
        else
            info_merge(s->view.info, info);
    }
    return rc != MPI_SUCCESS ? rc : PMPI_File_set_info(fh, info);
}

/* The library's keys for hints tacio serves taken out of info: tacio's
 * values, not the library's, are those in effect. */
static void drop_served(MPI_Info info)
{
    int n = 0;
    MPI_Info_get_nkeys(info, &n);
    for (int i = n - 1; i >= 0; i--) { /* deleting shifts the keys after i */
        char key[MPI_MAX_INFO_KEY + 1];
        MPI_Info_get_nthkey(info, i, key);
        if (tacio_hints_served(key))
            MPI_Info_delete(info, key);
    }
}

/* The hints in effect: the library's info (its own keys, and those of
 * the layers above it, which it keeps) with, for every hint tacio serves,
 * tacio's value where it has one and none where it leaves it unset. */
TACIO_API int MPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    int rc = PMPI_File_get_info(fh, info_used);
    struct shimfile *s = shim_disabled() ? NULL : shim_lookup(fh);
    if (rc != MPI_SUCCESS || !s)
        return rc;
    MPI_Info ours = MPI_INFO_NULL;
    shim_depth++;
    rc = tacio_file_get_info(s->tf, &ours);
    shim_depth--;
    if (rc == MPI_SUCCESS) {
        drop_served(*info_used);
        info_merge(*info_used, ours);
        MPI_Info_free(&ours);
    } else
        MPI_Info_free(info_used);
    return rc;
}

/* A collective through tacio, at `at` or at the individual pointer (MPI's,
 * or tacio's while the view is deferred), which then moves past the bytes
 * transferred (a read stops at the end of the file, and so does the
 * pointer, as in ROMIO). */
static int via_tacio(struct shimfile *s, const MPI_Offset *at, void *buf, MPI_Count count,
                     MPI_Datatype dt, MPI_Status *st, bool write)
{
    MPI_Offset pos;
    bool library_fp = !at && !s->deferred; /* else tacio's pointer is the file's */
    int rc = library_fp ? PMPI_File_get_position(s->fh, &pos) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Status mine;
    MPI_Status *use = st == MPI_STATUS_IGNORE ? &mine : st;
    shim_depth++;
    if (!library_fp && !at)
        rc = write ? tacio_file_write_all(s->tf, buf, count, dt, use)
                   : tacio_file_read_all(s->tf, buf, count, dt, use);
    else
        rc = write ? tacio_file_write_at_all(s->tf, at ? *at : pos, buf, count, dt, use)
                   : tacio_file_read_at_all(s->tf, at ? *at : pos, buf, count, dt, use);
    shim_depth--;
    if (rc != MPI_SUCCESS || !library_fp)
        return rc;
    MPI_Count bytes = 0;
    MPI_Get_elements_x(use, MPI_BYTE, &bytes);
    return PMPI_File_seek(s->fh, pos + (MPI_Offset)bytes / s->esize, MPI_SEEK_SET);
}

/* The collectives tacio serves (a file it does not serve goes to the
 * library), in each count type: int, and MPI-4's MPI_Count. AT is the
 * offset argument's address, NULL for the individual pointer. */
#define SERVED(name, AT, write, ...)                                                               \
    struct shimfile *s = served(fh);                                                               \
    return s ? via_tacio(s, AT, (void *)buf, count, dt, st, write) : PMPI_##name(__VA_ARGS__)
#define COLLECTIVES(COUNT, SUFFIX)                                                                 \
    TACIO_API int MPI_File_write_all##SUFFIX(MPI_File fh, const void *buf, COUNT count,            \
                                             MPI_Datatype dt, MPI_Status *st)                      \
    {                                                                                              \
        SERVED(File_write_all##SUFFIX, NULL, true, fh, buf, count, dt, st);                        \
    }                                                                                              \
    TACIO_API int MPI_File_read_all##SUFFIX(MPI_File fh, void *buf, COUNT count, MPI_Datatype dt,  \
                                            MPI_Status *st)                                        \
    {                                                                                              \
        SERVED(File_read_all##SUFFIX, NULL, false, fh, buf, count, dt, st);                        \
    }                                                                                              \
    TACIO_API int MPI_File_write_at_all##SUFFIX(MPI_File fh, MPI_Offset off, const void *buf,      \
                                                COUNT count, MPI_Datatype dt, MPI_Status *st)      \
    {                                                                                              \
        SERVED(File_write_at_all##SUFFIX, &off, true, fh, off, buf, count, dt, st);                \
    }                                                                                              \
    TACIO_API int MPI_File_read_at_all##SUFFIX(MPI_File fh, MPI_Offset off, void *buf,             \
                                               COUNT count, MPI_Datatype dt, MPI_Status *st)       \
    {                                                                                              \
        SERVED(File_read_at_all##SUFFIX, &off, false, fh, off, buf, count, dt, st);                \
    }

COLLECTIVES(int, )
#if MPI_VERSION >= 4
/* MPI-4 large-count names: MPICH 4 programs (IOR among them) call these. */
COLLECTIVES(MPI_Count, _c)
#endif
