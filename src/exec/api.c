/* tacio_file_*: the file API. Every result inside the engine is 0 or a
 * TACIO_E* code; here, at the boundary, it becomes an MPI error code. */
#include "tacio.h"

#include "../base/warm.h"
#include "agree.h"
#include "backend.h"
#include "coll.h"
#include "fault.h"
#include "hosts.h"
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Automatic independent I/O takes a run of at least this many bytes as
 * long enough to move from its owner. In one page cache (one machine, a
 * local file system) a pread costs about a memcpy, and independent reads
 * beat collective buffering from runs of about 1 KiB (bench/io,
 * docs/architecture.md, "Independent I/O"). A pwrite holds the file's inode lock, so the ranks'
 * small writes queue behind each other, about 0.8 us a run on top of the
 * copy: measured at 4 ranks, Open MPI (bench/io's btio at 2400- and
 * 4000-byte rows and coarse at 9 and 16 KiB runs), collective buffering
 * wrote 1.6-1.8x faster up to 4 KB, the two broke even at 9 KiB and
 * independent writes won 1.5x at 16 KiB. On a file system of many clients
 * collective buffering pays far longer (ROMIO buffers any interleaving). */
#define PAGE_CACHE_MIN_READ (2 << 10)
#define PAGE_CACHE_MIN_WRITE (8 << 10)
#define SHARED_FS_MIN_PIECE (256 << 10)

/* Where the MPI unpacks fast, automatic receives a write's scattered
 * pieces through a datatype when they average this many bytes. Measured
 * with Open MPI 4.1.4 at 4 ranks (bench/io, romio_cb_write=enable):
 * collperf's 256- and 512-byte rows wrote 1.6x faster so, its 128-byte
 * rows broke even, struct's 12-byte pieces 3.5x slower (a datatype costs
 * per piece what a memcpy does not). */
#define RECV_TYPED_PIECE 256

/* Hints must be the same everywhere (a mismatch must not hang, mpich issue
 * 5604): one agreement on their digest, with this rank's result. */
static int agree_hints(MPI_Comm comm, uint64_t digest, int local)
{
    int64_t v[2] = {(int64_t)digest, ~(int64_t)digest};
    int rc = agree_max(comm, local, v, 2);
    if (!rc && v[0] != ~v[1]) /* max(d) == ~max(~d) only when every d is equal */
        rc = tacio_fail(TACIO_EINVAL, "hints differ across ranks (every rank must pass the same "
                                      "cb_*, striping_* and tacio_* values; "
                                      "TACIO_PRINT_HINTS=1 shows rank 0's)");
    return rc;
}

static int open_flags(int amode)
{
    int flags = (amode & MPI_MODE_RDONLY) ? O_RDONLY : O_RDWR; /* writes may read-modify-write */
    if (amode & MPI_MODE_CREATE)
        flags |= O_CREAT;
    if (amode & MPI_MODE_EXCL)
        flags |= O_EXCL;
    return flags;
}

static int check_amode(int amode)
{
    int access =
        !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (access != 1)
        return tacio_fail(TACIO_EAMODE, "amode needs exactly one of RDONLY, WRONLY, RDWR");
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return tacio_fail(TACIO_EAMODE, "RDONLY cannot be combined with CREATE or EXCL");
    if (amode & MPI_MODE_SEQUENTIAL)
        return tacio_fail(TACIO_EUNSUPPORTED, "MPI_MODE_SEQUENTIAL is not supported");
    return 0;
}

/* Rank 0 creates the file, then the others open it. */
static int open_posix(struct tacio_file *f)
{
    int flags = open_flags(f->amode), err = 0, local = 0;
    if (f->rank == 0) {
        f->fd = (err = fault_check("open", 0)) ? -1 : open(f->path, flags, 0644);
        if (f->fd < 0)
            local = fail_errno(err ? err : errno, "open(%s)", f->path);
    }
    int rc = agree(f->comm, local);
    if (rc)
        return rc;
    if (f->rank != 0) {
        f->fd =
            (err = fault_check("open", f->rank)) ? -1 : open(f->path, flags & ~(O_CREAT | O_EXCL));
        if (f->fd < 0)
            local = fail_errno(err ? err : errno, "open(%s)", f->path);
    }
    return agree(f->comm, local);
}

/* Whether every rank reads one page cache: one machine, and a file system
 * local to it (rank 0's view of the file, for all). */
static void find_page_cache(struct tacio_file *f, bool one_machine)
{
    int page_cache = f->rank == 0 && backend_page_cache(f->fd);
    MPI_Bcast(&page_cache, 1, MPI_INT, 0, f->comm);
    f->page_cache = page_cache && one_machine;
}

/* The run lengths automatic independent I/O takes as long enough, per
 * direction: the hint, else by where the file lives. */
static void set_min_piece(struct tacio_file *f)
{
    for (int w = 0; w < 2; w++) {
        int64_t cached = w ? PAGE_CACHE_MIN_WRITE : PAGE_CACHE_MIN_READ;
        f->min_piece[w] = f->hints.ind_min_piece;
        if (!f->min_piece[w])
            f->min_piece[w] = f->page_cache ? cached : SHARED_FS_MIN_PIECE;
    }
}

/* Whether the MPI library unpacks a derived-type receive about as fast as
 * a memcpy. Measured (bench/io, 4 ranks): Open MPI 4.1.4 does, from
 * pieces of 256 bytes; MPICH 4.0.2 took 3.5x longer over a staged copy on
 * btio's 2400-byte rows. */
static bool mpi_unpacks_fast(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    return strstr(version, "Open MPI") != NULL;
}

/* The pieces' average size from which an aggregator receives through a
 * datatype (-1: never), from tacio_recv_datatype. */
static int64_t recv_typed_piece(const struct exec_hints *h)
{
    if (h->recv_datatype == OPT_ENABLE)
        return 0;
    return h->recv_datatype == OPT_AUTOMATIC && mpi_unpacks_fast() ? RECV_TYPED_PIECE : -1;
}

/* A hint tacio could not take as given (hints.h, ignored): said on stderr
 * by rank 0, each different message once a process, as a program may open
 * many files, or set many views, with the same info. */
static void say_ignored(const struct tacio_file *f, const struct exec_hints *h)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char said[sizeof h->ignored];
    if (f->rank != 0 || !h->ignored[0])
        return;
    pthread_mutex_lock(&lock);
    bool again = !strcmp(said, h->ignored);
    snprintf(said, sizeof said, "%s", h->ignored);
    pthread_mutex_unlock(&lock);
    if (!again)
        fprintf(stderr, "tacio: hint %s\n", h->ignored);
}

/* TACIO_PRINT_HINTS=1: the effective hints once per file on rank 0, as
 * ROMIO_PRINT_HINTS does; a clamped cb_nodes is reported, not an error. */
static void print_hints(const struct tacio_file *f)
{
    const char *env = getenv("TACIO_PRINT_HINTS");
    if (f->rank != 0 || !env || !*env || !strcmp(env, "0"))
        return;
    const struct tacio_hints *h = &f->hints.core;
    struct plan_ctx ctx = {.topo = f->topo, .h = h, .threads = 1};
    int *list, offered = ranklist_count(&ctx, 0), naggs = romio_ranklist(&ctx, &list);
    char all[4096];
    hints_text(&f->hints, all, sizeof all);
    printf("tacio: %s: aggregators=%d hosts=%d", f->path, naggs, f->topo->nused_hosts);
    for (int i = 0; i < naggs && i < 16; i++)
        printf("%s%d", i ? "," : " ranks=", list[i]);
    printf("%s", naggs > 16 ? ",..." : "");
    if (naggs >= 0)
        free(list);
    if (h->cb_nodes > offered)
        printf(" (cb_nodes=%lld clamped to the %d ranks cb_config_list offers)",
               (long long)h->cb_nodes, offered);
    if (cb_config_ranklist(f->topo, cb_config_of(h), 0, &list) == 0)
        printf(" (no host answers to cb_config_list=%s: *:1 used)", cb_config_of(h));
    free(list);
    /* a tree the hints named: whether the job's hosts were found in it by
     * name, or (no name matched) taken in its order, which a topology of
     * the real cluster would not want */
    if (f->hints.topology[0] && topo_has_tree(f->topo))
        printf(" placement=%s", f->topo->placed_by_name ? "names" : "order");
    printf(" independent_min_run=%lld/%lld %s\n", (long long)f->min_piece[0],
           (long long)f->min_piece[1], all);
    fflush(stdout);
}

/* A job on one host whose file lives in that host's page cache: every rank
 * may aggregate unless the hints say which (cb_config_list; cb_nodes still
 * caps them). ROMIO's one a host funnels the whole call through one
 * process's copies and system calls while the others wait: bench/io at 8
 * ranks on one host, 0.54-0.99x MPICH 5's ROMIO with one aggregator and
 * 2.3-5.3x with every rank; on Open MPI 4.1.4 every rank was 1.1-1.5x one.
 * Virtual hosts (tacio_ranks_per_node) keep ROMIO's one each. */
#define DERIVED_AGGREGATORS "*:*"
static void default_aggregators(struct tacio_file *f)
{
    char *list = f->hints.core.cb_config_list;
    if (list[0] || !f->page_cache || f->topo->nused_hosts != 1)
        return;
    snprintf(list, sizeof f->hints.core.cb_config_list, DERIVED_AGGREGATORS);
    f->aggregators_derived = true;
}

/* What the file takes from its hints beyond their values, at open and
 * whenever an info changes them (set_view, set_info). */
static void derive_from_hints(struct tacio_file *f)
{
    set_min_piece(f);
    default_aggregators(f);
    f->recv_typed_piece = recv_typed_piece(&f->hints);
}

/* Everything after the hints: the hosts, the host's communicator, the file,
 * the default view. */
static int open_rest(struct tacio_file *f)
{
    int rc = hosts_discover(f->comm, &f->hints, &f->topo);
    if (!rc) /* intra-node aggregation's communicator: ranks by (virtual) host */
        rc = MPI_Comm_split(f->comm, f->topo->rank_host[f->rank], f->rank, &f->host_comm)
                 ? tacio_fail(TACIO_ECOMM, "cannot split the file's communicator by host")
                 : 0;
    bool one_machine = !rc && hosts_one_machine(f->comm);
    if (!rc)
        rc = open_posix(f);
    if (!rc) {
        find_page_cache(f, one_machine);
        derive_from_hints(f);
    }
    f->digest = hints_digest(&f->hints); /* with what derive_from_hints set */
    if (!rc)
        rc = agree(f->comm, view_install(f, 0, MPI_BYTE, MPI_BYTE));
    return rc;
}

int tacio_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, tacio_file_t *fh)
{
    fault_arm();
    struct tacio_file *f = xcalloc(1, sizeof *f);
    int local = f ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    MPI_Comm dup = MPI_COMM_NULL;
    *fh = NULL;
    MPI_Comm_dup(comm, &dup); /* a rank without f still takes part in every collective below */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (f) {
        f->fd = -1;
        f->host_comm = MPI_COMM_NULL;
        f->comm = dup;
        MPI_Comm_rank(comm, &f->rank);
        MPI_Comm_size(comm, &f->nprocs);
        f->amode = amode;
        f->path = strdup(path ? path : "");
        local = f->path ? check_amode(amode) : tacio_fail(TACIO_ENOMEM, "out of memory");
        local = local ? local : hints_from(NULL, info, &f->hints);
        f->digest = hints_digest(&f->hints);
        const char *stats = getenv("TACIO_STATS");
        f->stats_path = stats && *stats ? strdup(stats) : NULL;
    }
    int rc = agree_hints(dup, f ? f->digest : 0, local);
    rc = rc ? rc : open_rest(f);
    if (rc) {
        if (f)
            ofile_free(f);
        else
            MPI_Comm_free(&dup);
        return api_result(rc);
    }
    print_hints(f);
    say_ignored(f, &f->hints);
    warm_open();
    if (f->rank == 0) { /* the planner's rank */
        learned_open(&f->learned, f->hints.wisdom, f->topo, f->fd);
        profile_lock();
        f->fit = profile_fit(&f->learned.at);
        learned_seed_fits(&f->learned, f->fit);
        profile_unlock();
    }
    *fh = f;
    return MPI_SUCCESS;
}

int tacio_file_close(tacio_file_t *fh)
{
    if (!fh || !*fh)
        return MPI_ERR_FILE;
    struct tacio_file *f = *fh;
    int local = 0;
    if (f->fd >= 0 && close(f->fd) != 0)
        local = fail_errno(errno, "close(%s)", f->path);
    f->fd = -1;
    int rc = agree(f->comm, local);
    if (!rc && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
        unlink(f->path);
    coll_trials_close(f);
    if (f->fit) {
        profile_lock();
        learned_keep_fits(&f->learned, f->fit);
        profile_unlock();
    }
    learned_close(&f->learned); /* rank 0's, while the other ranks wait */
    MPI_Barrier(f->comm);
    ofile_free(f);
    warm_close();
    *fh = NULL;
    return api_result(rc);
}

/* The hints an info gives the file, in *h (the file's own where it sets
 * none), and their digest: the file's own when the info changes nothing,
 * which a loop setting a view per call with MPI_INFO_NULL does. */
static int info_hints(const struct tacio_file *f, MPI_Info info, struct exec_hints *h,
                      uint64_t *digest)
{
    *digest = f->digest;
    if (info == MPI_INFO_NULL)
        return 0;
    int rc = hints_from(&f->hints, info, h);
    if (rc)
        return rc;
    hints_keep_open_only(&f->hints, h);
    if (memcmp(h, &f->hints, sizeof *h))
        *digest = hints_digest(h);
    return 0;
}

/* The view's checks that need no other rank: its displacement (an
 * absolute offset in the file, so never negative: ROMIO refuses one too),
 * its data representation and its info's hints (*h, and their digest: the
 * file's own when the info changes nothing, which a loop setting a view
 * per call with MPI_INFO_NULL does), then the view itself. */
static int view_checked(struct tacio_file *f, MPI_Offset disp, MPI_Datatype etype,
                        MPI_Datatype filetype, const char *datarep, MPI_Info info,
                        struct exec_hints *h, uint64_t *digest)
{
    *digest = f->digest;
    if (disp < 0)
        return tacio_fail(TACIO_EINVAL, "the view's displacement %lld is negative",
                          (long long)disp);
    if (datarep && strcmp(datarep, "native"))
        return tacio_fail(TACIO_EDATAREP, "datarep '%s': tacio supports \"native\" only", datarep);
    int rc = info_hints(f, info, h, digest);
    return rc ? rc : view_install(f, disp, etype, filetype);
}

/* view_checked, timed: the next collective's stats report it (view). */
static int view_local(struct tacio_file *f, MPI_Offset disp, MPI_Datatype etype,
                      MPI_Datatype filetype, const char *datarep, MPI_Info info,
                      struct exec_hints *h, uint64_t *digest)
{
    double t0 = backend_clock();
    int rc = view_checked(f, disp, etype, filetype, datarep, info, h, digest);
    f->view_seconds += backend_clock() - t0;
    return rc;
}

static void take_hints(struct tacio_file *f, MPI_Info info, const struct exec_hints *h,
                       uint64_t digest)
{
    if (info != MPI_INFO_NULL && digest != f->digest) {
        f->hints = *h;
        derive_from_hints(f);
        f->digest = hints_digest(&f->hints); /* digest's, and what derivation set */
    }
}

/* take_hints, where the hints were agreed (or, adopting a view, are the
 * library's): what tacio did not take as given is said first. */
static void say_and_take_hints(struct tacio_file *f, MPI_Info info, const struct exec_hints *h,
                               uint64_t digest)
{
    if (info != MPI_INFO_NULL)
        say_ignored(f, h);
    take_hints(f, info, h, digest);
}

int tacio_file_set_info(tacio_file_t f, MPI_Info info)
{
    if (!f)
        return MPI_ERR_FILE;
    struct exec_hints h FILLED_BEFORE_READ; /* 1.3 KB, read only where info set it */
    uint64_t digest;
    int local = info_hints(f, info, &h, &digest);
    int rc = agree_hints(f->comm, digest, local);
    if (!rc)
        say_and_take_hints(f, info, &h, digest);
    return api_result(rc);
}

/* The info get_info builds, and the file whose hints go in it. */
struct info_out {
    MPI_Info info;
    const struct tacio_file *f;
};

/* One hint in effect, into the info being built (exec_hints_each): not
 * the aggregators tacio chose for the machine (default_aggregators),
 * which another file, elsewhere, must choose for itself; nor a value the
 * MPI's info cannot hold (MPI_Info_set refuses it). */
static void info_put(void *arg, const char *key, const char *value)
{
    struct info_out *out = arg;
    if (!strcmp(key, "cb_config_list") && out->f->aggregators_derived &&
        !strcmp(value, DERIVED_AGGREGATORS))
        return;
    MPI_Info_set(out->info, key, value);
}

int tacio_file_get_info(tacio_file_t f, MPI_Info *info_used)
{
    if (!f || !info_used)
        return f ? MPI_ERR_ARG : MPI_ERR_FILE;
    struct info_out out = {MPI_INFO_NULL, f};
    if (MPI_Info_create(&out.info) != MPI_SUCCESS)
        return api_result(tacio_fail(TACIO_ENOMEM, "cannot create an info object"));
    exec_hints_each(&f->hints, info_put, &out);
    *info_used = out.info;
    return MPI_SUCCESS;
}

int tacio_hints_served(const char *key)
{
    return key && hints_served(key);
}

int tacio_file_set_view(tacio_file_t f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                        const char *datarep, MPI_Info info)
{
    if (!f)
        return MPI_ERR_FILE;
    struct exec_hints h FILLED_BEFORE_READ; /* 1.3 KB, read only where info set it */
    uint64_t digest;
    int local = view_local(f, disp, etype, filetype, datarep, info, &h, &digest);
    int rc = agree_hints(f->comm, digest, local);
    if (!rc)
        say_and_take_hints(f, info, &h, digest);
    return api_result(rc);
}

int tacio_file_adopt_view(tacio_file_t f, MPI_Offset disp, MPI_Datatype etype,
                          MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    if (!f)
        return MPI_ERR_FILE;
    struct exec_hints h FILLED_BEFORE_READ; /* 1.3 KB, read only where info set it */
    uint64_t digest;
    int rc = view_local(f, disp, etype, filetype, datarep, info, &h, &digest);
    f->view.err = rc;
    if (rc) /* every access fails with it, agreed, until the next view */
        snprintf(f->view.errmsg, sizeof f->view.errmsg, "the view set last: %s",
                 tacio_last_error());
    else
        say_and_take_hints(f, info, &h, digest);
    return MPI_SUCCESS;
}

/* The end of the file in etypes of the view: the first etype at or past
 * the file's last byte, as MPI_SEEK_END counts from (a partial etype
 * counts whole, as in ROMIO). */
static int view_end(const struct tacio_file *f, MPI_Offset *end)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return fail_errno(errno, "fstat(%s)", f->path);
    int64_t below = view_bytes_below(&(struct view){f->view.disp, f->view.ft}, st.st_size);
    *end = (below + f->view.etype_size - 1) / f->view.etype_size;
    return 0;
}

int tacio_file_set_view_local(tacio_file_t f, MPI_Offset disp, MPI_Datatype etype,
                              MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    if (!f)
        return MPI_ERR_FILE;
    struct exec_hints h FILLED_BEFORE_READ; /* 1.3 KB, read only where info set it */
    uint64_t digest;
    int rc = view_local(f, disp, etype, filetype, datarep, info, &h, &digest);
    if (!rc)
        take_hints(f, info, &h, digest);
    return api_result(rc);
}

int tacio_file_seek(tacio_file_t f, MPI_Offset offset, int whence)
{
    if (!f)
        return MPI_ERR_FILE;
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        return api_result(tacio_fail(TACIO_EINVAL, "seek with whence %d", whence));
    if (f->view.err)
        return api_result(tacio_fail(f->view.err, "%s", f->view.errmsg));
    MPI_Offset base = whence == MPI_SEEK_SET ? 0 : f->fp;
    int rc = whence == MPI_SEEK_END ? view_end(f, &base) : 0;
    if (rc)
        return api_result(rc);
    if (offset < -base || offset > INT64_MAX - base) /* compared before adding: no overflow */
        return api_result(tacio_fail(TACIO_EINVAL,
                                     "seek by %lld from %lld: the position would "
                                     "be negative or beyond 2^63",
                                     (long long)offset, (long long)base));
    f->fp = base + offset;
    return MPI_SUCCESS;
}

int tacio_file_get_position(tacio_file_t f, MPI_Offset *offset)
{
    if (!f)
        return MPI_ERR_FILE;
    *offset = f->fp;
    return MPI_SUCCESS;
}

int tacio_file_get_size(tacio_file_t f, MPI_Offset *size)
{
    if (!f)
        return MPI_ERR_FILE;
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return api_result(fail_errno(errno, "fstat(%s)", f->path));
    *size = st.st_size;
    return MPI_SUCCESS;
}

int tacio_file_get_byte_offset(tacio_file_t f, MPI_Offset offset, MPI_Offset *disp)
{
    if (!f)
        return MPI_ERR_FILE;
    if (f->view.err)
        return api_result(tacio_fail(f->view.err, "%s", f->view.errmsg));
    if (offset < 0 || offset > (INT64_MAX / 2) / f->view.etype_size)
        return api_result(
            tacio_fail(TACIO_EINVAL, "offset %lld is outside any file", (long long)offset));
    *disp = view_offset_of(&(struct view){f->view.disp, f->view.ft}, offset * f->view.etype_size);
    return MPI_SUCCESS;
}

int tacio_file_get_stats(tacio_file_t f, struct tacio_stats *out)
{
    if (!f)
        return MPI_ERR_FILE;
    if (!out || out->size < sizeof out->size)
        return api_result(tacio_fail(TACIO_EINVAL, "struct tacio_stats: size is not set "
                                                   "(TACIO_STATS_INIT sets it)"));
    size_t size = out->size < sizeof *out ? out->size : sizeof *out;
    memcpy((char *)out + sizeof out->size, (const char *)&f->last + sizeof out->size,
           size - sizeof out->size);
    return MPI_SUCCESS;
}

/* The engine's runners of a transfer: coll_run (collective) or solo_run
 * (this rank alone); they share one signature. */
typedef int (*transfer_fn)(struct tacio_file *f, bool at, int64_t offset, void *buf, int64_t count,
                           MPI_Datatype dt, bool is_write, int64_t *bytes);

static int transfer(transfer_fn run, tacio_file_t f, bool at, MPI_Offset off, void *buf,
                    MPI_Count count, MPI_Datatype dt, MPI_Status *st, bool write)
{
    if (!f)
        return MPI_ERR_FILE;
    int64_t bytes = 0;
    int rc = run(f, at, off, buf, count, dt, write, &bytes);
    if (!rc && st != MPI_STATUS_IGNORE)
        MPI_Status_set_elements_x(st, MPI_BYTE, bytes);
    return api_result(rc);
}

static int collective(tacio_file_t f, bool at, MPI_Offset off, void *buf, MPI_Count count,
                      MPI_Datatype dt, MPI_Status *st, bool write)
{
    return transfer(coll_run, f, at, off, buf, count, dt, st, write);
}

int tacio_file_write_all(tacio_file_t f, const void *buf, MPI_Count count, MPI_Datatype dt,
                         MPI_Status *st)
{
    return collective(f, false, 0, (void *)buf, count, dt, st, true);
}

int tacio_file_read_all(tacio_file_t f, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *st)
{
    return collective(f, false, 0, buf, count, dt, st, false);
}

int tacio_file_write_at_all(tacio_file_t f, MPI_Offset off, const void *buf, MPI_Count count,
                            MPI_Datatype dt, MPI_Status *st)
{
    return collective(f, true, off, (void *)buf, count, dt, st, true);
}

int tacio_file_read_at_all(tacio_file_t f, MPI_Offset off, void *buf, MPI_Count count,
                           MPI_Datatype dt, MPI_Status *st)
{
    return collective(f, true, off, buf, count, dt, st, false);
}

/* Piece i of a list, checked against the end of the one before: the
 * reason it cannot be a view's (tacio_fail), or 0. */
static int list_piece_check(MPI_Count i, MPI_Offset off, MPI_Offset len, int64_t end)
{
    if (off < 0 || len < 0)
        return tacio_fail(TACIO_EINVAL, "piece %lld: offset %lld, length %lld", (long long)i,
                          (long long)off, (long long)len);
    if (off < end)
        return tacio_fail(TACIO_EINVAL,
                          "piece %lld at %lld overlaps or precedes the one "
                          "before (ending at %lld): pieces must be sorted and disjoint",
                          (long long)i, (long long)off, (long long)end);
    if (len > INT64_MAX - off)
        return tacio_fail(TACIO_EINVAL, "piece %lld: offset %lld and length %lld pass 2^63",
                          (long long)i, (long long)off, (long long)len);
    return 0;
}

/* The list's extents as a flat (a filetype of one tile); *total its bytes.
 * TACIO_EINVAL with the reason for a list MPI-IO could not take as a view.
 * One pass checks and builds (a million pieces are read once). */
static int list_flat(MPI_Count n, const MPI_Offset *off, const MPI_Offset *len, struct flat **out,
                     int64_t *total)
{
    struct flat_builder b = {0};
    int64_t end = 0;
    *total = 0;
    if (n < 0 || (n > 0 && (!off || !len)))
        return tacio_fail(TACIO_EINVAL, "a list of %lld pieces without its arrays", (long long)n);
    int rc = flat_reserve(&b, n);
    /* the flat's arrays filled here, not by flat_append, with the count,
     * the end and the bytes in locals: the stores to the arrays would
     * otherwise make the compiler reload them from memory every piece */
    int64_t *o = b.f.off, *l = b.f.len, m = 0, bytes = 0;
    for (MPI_Count i = 0; !rc && i < n; i++) {
        rc = list_piece_check(i, off[i], len[i], end);
        if (rc || !len[i])
            continue; /* a bad piece ends the loop before its end is taken */
        if (m && off[i] == end)
            l[m - 1] += len[i];
        else
            o[m] = off[i], l[m++] = len[i];
        end = off[i] + len[i];
        bytes += len[i];
    }
    b.f.n = m;
    *total = bytes;
    if (!rc && b.f.n == 0) /* nothing: a one-byte tile this rank never touches */
        rc = flat_append(&b, 0, 1);
    if (rc) {
        free(b.f.off), free(b.f.len);
        return rc;
    }
    return flat_finish(&b, 0, end > 0 ? end : 1, out);
}

/* A list call: the list as the view of one collective at offset 0, the
 * file's own view and pointer put back after. A bad list fails the call on
 * every rank, as a view that failed does (the agreement carries it). */
static int list_call(tacio_file_t f, MPI_Count n, const MPI_Offset *off, const MPI_Offset *len,
                     void *buf, MPI_Status *st, bool write)
{
    if (!f)
        return MPI_ERR_FILE;
    struct fview saved = f->view;
    MPI_Offset fp = f->fp;
    double t0 = backend_clock();
    struct flat *ft = NULL;
    int64_t total = 0;
    int bad = list_flat(n, off, len, &ft, &total);
    f->view = (struct fview){0, 1, ft ? ft : saved.ft, saved.err ? saved.err : bad, ""};
    if (f->view.err)
        snprintf(f->view.errmsg, sizeof f->view.errmsg, "%s",
                 saved.err ? saved.errmsg : tacio_last_error());
    f->view_seconds += backend_clock() - t0;
    int rc = transfer(coll_run, f, true, 0, buf, f->view.err ? 0 : total, MPI_BYTE, st, write);
    f->view = saved;
    f->fp = fp;
    flat_release(ft);
    return rc;
}

int tacio_file_write_list_all(tacio_file_t f, MPI_Count n, const MPI_Offset offsets[],
                              const MPI_Offset lengths[], const void *buf, MPI_Status *st)
{
    return list_call(f, n, offsets, lengths, (void *)buf, st, true);
}

int tacio_file_read_list_all(tacio_file_t f, MPI_Count n, const MPI_Offset offsets[],
                             const MPI_Offset lengths[], void *buf, MPI_Status *st)
{
    return list_call(f, n, offsets, lengths, buf, st, false);
}

static int solo(tacio_file_t f, bool at, MPI_Offset off, void *buf, MPI_Count count,
                MPI_Datatype dt, MPI_Status *st, bool write)
{
    return transfer(solo_run, f, at, off, buf, count, dt, st, write);
}

int tacio_file_write(tacio_file_t f, const void *buf, MPI_Count count, MPI_Datatype dt,
                     MPI_Status *st)
{
    return solo(f, false, 0, (void *)buf, count, dt, st, true);
}

int tacio_file_read(tacio_file_t f, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *st)
{
    return solo(f, false, 0, buf, count, dt, st, false);
}

int tacio_file_write_at(tacio_file_t f, MPI_Offset off, const void *buf, MPI_Count count,
                        MPI_Datatype dt, MPI_Status *st)
{
    return solo(f, true, off, (void *)buf, count, dt, st, true);
}

int tacio_file_read_at(tacio_file_t f, MPI_Offset off, void *buf, MPI_Count count, MPI_Datatype dt,
                       MPI_Status *st)
{
    return solo(f, true, off, buf, count, dt, st, false);
}
