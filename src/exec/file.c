/* tacio_file_*: open, views, file pointers, and the collective entry points. */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Hints must be the same everywhere (a mismatch must not hang, mpich issue
 * 5604): compare a digest of every hint's effective value. */
static uint32_t hints_digest(const struct tacio_hints *h)
{
    char buf[4096];
    hints_format(h, buf, sizeof buf);
    uint32_t d = 2166136261u; /* FNV-1a */
    for (const char *c = buf; *c; c++)
        d = (d ^ (uint8_t)*c) * 16777619u;
    return d;
}

static int check_hints_agree(MPI_Comm comm, const struct tacio_hints *h, int local)
{
    unsigned v[2] = {0, 0}, m[2];
    if (!local) {
        uint32_t d = hints_digest(h);
        v[0] = d;
        v[1] = UINT32_MAX - d;
    }
    MPI_Allreduce(v, m, 2, MPI_UNSIGNED, MPI_MAX, comm);
    if (local)
        return local;
    /* max(d) == UINT32_MAX - max(UINT32_MAX - d) only when every d is equal */
    if (m[0] != UINT32_MAX - m[1])
        return tacio_fail(TACIO_EINVAL, "hints differ across ranks (every rank must pass the "
                                        "same cb_*, striping_* and tacio_* values; "
                                        "TACIO_PRINT_HINTS=1 shows rank 0's)");
    return 0;
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
        return exec_fail_class(MPI_ERR_AMODE, "amode needs exactly one of RDONLY, WRONLY, RDWR");
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return exec_fail_class(MPI_ERR_AMODE, "RDONLY cannot be combined with CREATE or EXCL");
    if (amode & MPI_MODE_SEQUENTIAL)
        return exec_fail_class(MPI_ERR_UNSUPPORTED_OPERATION, "MPI_MODE_SEQUENTIAL is not "
                                                              "supported");
    return 0;
}

/* Rank 0 creates the file, then the others open it. */
static int open_posix(struct tacio_file *f, int local)
{
    int flags = open_flags(f->amode), err = 0;
    if (!local && f->rank == 0) {
        f->fd = (err = exec_fault("open", 0)) ? -1 : open(f->path, flags, 0644);
        if (f->fd < 0)
            local = exec_fail_errno(err ? err : errno, "open(%s)", f->path);
    }
    int rc = exec_agree(f->comm, local);
    if (rc)
        return rc;
    if (f->rank != 0) {
        f->fd =
            (err = exec_fault("open", f->rank)) ? -1 : open(f->path, flags & ~(O_CREAT | O_EXCL));
        if (f->fd < 0)
            local = exec_fail_errno(err ? err : errno, "open(%s)", f->path);
    }
    return exec_agree(f->comm, local);
}

static void file_free(struct tacio_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->etype != MPI_DATATYPE_NULL)
        MPI_Type_free(&f->etype);
    if (f->filetype != MPI_DATATYPE_NULL)
        MPI_Type_free(&f->filetype);
    flat_free(f->ft_owned);
    tacio_hints_free(f->hints);
    tacio_topo_free(f->topo);
    if (f->host_comm != MPI_COMM_NULL)
        MPI_Comm_free(&f->host_comm);
    if (f->comm != MPI_COMM_NULL)
        MPI_Comm_free(&f->comm);
    free(f->path);
    free(f);
}

/* Validate and install a view. The types are duplicated so the user may free
 * theirs; the flattened filetype is cached on our duplicate. */
static int set_view_local(struct tacio_file *f, MPI_Offset disp, MPI_Datatype etype,
                          MPI_Datatype filetype)
{
    MPI_Datatype et, ftype;
    MPI_Type_dup(etype, &et);
    MPI_Type_dup(filetype, &ftype);
    const struct flat *ft;
    struct flat *owned = NULL;
    /* any filetype is accepted here: what an access may do with it is
     * checked by each access (view_access), as MPI's rules are about the
     * accessed typemap */
    int esize, rc = exec_flatten(ftype, &ft, &owned);
    MPI_Type_size(etype, &esize);
    if (!rc && (esize <= 0 || ft->size % esize))
        rc = tacio_fail(TACIO_EINVAL,
                        "the filetype's size %lld is not a multiple of the etype's "
                        "%d",
                        (long long)ft->size, esize);
    if (!rc && disp < 0)
        rc = tacio_fail(TACIO_EINVAL, "negative view displacement %lld", (long long)disp);
    if (rc) {
        flat_free(owned);
        MPI_Type_free(&et);
        MPI_Type_free(&ftype);
        return rc;
    }
    flat_free(f->ft_owned);
    if (f->etype != MPI_DATATYPE_NULL)
        MPI_Type_free(&f->etype);
    if (f->filetype != MPI_DATATYPE_NULL)
        MPI_Type_free(&f->filetype);
    f->etype = et;
    f->filetype = ftype;
    f->ft = ft;
    f->ft_owned = owned;
    f->disp = disp;
    f->etype_size = esize;
    f->fp = 0;
    return 0;
}

/* TACIO_PRINT_HINTS=1: the effective hints once per file on rank 0, as
 * ROMIO_PRINT_HINTS does; a clamped cb_nodes is reported, not an error. */
static void print_hints(const struct tacio_file *f)
{
    const char *env = getenv("TACIO_PRINT_HINTS");
    if (f->rank != 0 || !env || !*env || !strcmp(env, "0"))
        return;
    const struct tacio_hints *h = f->hints;
    struct plan_ctx ctx = {NULL, f->topo, h, 0, 0, NULL, NULL, 1};
    int *list, offered = ranklist_count(&ctx, 0), naggs = romio_ranklist(&ctx, &list);
    char all[4096];
    hints_format(h, all, sizeof all);
    printf("tacio: %s: aggregators=%d hosts=%d", f->path, naggs, f->topo->nused_hosts);
    for (int i = 0; i < naggs && i < 16; i++)
        printf("%s%d", i ? "," : " ranks=", list[i]);
    printf("%s", naggs > 16 ? ",..." : "");
    if (naggs >= 0)
        free(list);
    if (h->cb_nodes > offered)
        printf(" (cb_nodes=%lld clamped to the %d ranks cb_config_list offers)",
               (long long)h->cb_nodes, offered);
    if (cb_config_ranklist(f->topo, h->cb_config_list, 0, &list) == 0)
        printf(" (no host answers to cb_config_list=%s: *:1 used)", h->cb_config_list);
    free(list);
    printf(" %s\n", all);
    fflush(stdout);
}

int tacio_file_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, tacio_file_t *fh)
{
    struct tacio_file *f = xcalloc(1, sizeof *f);
    int local = f ? 0 : exec_fail_class(MPI_ERR_NO_MEM, "out of memory");
    *fh = NULL;
    if (f) {
        f->fd = -1;
        f->etype = f->filetype = MPI_DATATYPE_NULL;
        f->host_comm = MPI_COMM_NULL;
        MPI_Comm_dup(comm, &f->comm);
        MPI_Comm_set_errhandler(f->comm, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm, &f->rank);
        MPI_Comm_size(comm, &f->nprocs);
        f->amode = amode;
        f->path = strdup(path ? path : "");
        local = check_amode(amode);
        if (!local)
            local = exec_hints(NULL, info, &f->hints);
    } else {
        MPI_Comm_dup(comm, &comm); /* still take part in every collective below */
    }
    MPI_Comm c = f ? f->comm : comm;
    local = check_hints_agree(c, f ? f->hints : NULL, local);
    int rc = exec_agree(c, local);
    if (!rc)
        rc = exec_agree(c, exec_topology(c, f->hints, &f->topo));
    if (!rc) /* intra-node aggregation's communicator: ranks by (virtual) host */
        rc = MPI_Comm_split(c, f->topo->rank_host[f->rank], f->rank, &f->host_comm);
    if (!rc)
        rc = open_posix(f, 0);
    if (!rc)
        rc = exec_agree(c, set_view_local(f, 0, MPI_BYTE, MPI_BYTE));
    if (!rc)
        print_hints(f);
    if (rc) {
        if (f)
            file_free(f);
        else
            MPI_Comm_free(&comm);
        return rc;
    }
    *fh = f;
    return MPI_SUCCESS;
}

int tacio_file_close(tacio_file_t *fh)
{
    struct tacio_file *f = *fh;
    int local = 0;
    if (f->fd >= 0 && close(f->fd) != 0)
        local = exec_fail_errno(errno, "close(%s)", f->path);
    f->fd = -1;
    int rc = exec_agree(f->comm, local);
    if (!rc && (f->amode & MPI_MODE_DELETE_ON_CLOSE) && f->rank == 0)
        unlink(f->path);
    MPI_Barrier(f->comm);
    file_free(f);
    *fh = NULL;
    return rc;
}

int tacio_file_set_view(tacio_file_t f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                        const char *datarep, MPI_Info info)
{
    int local = 0;
    if (datarep && strcmp(datarep, "native"))
        local = exec_fail_class(MPI_ERR_UNSUPPORTED_DATAREP,
                                "datarep '%s': tacio supports "
                                "\"native\" only",
                                datarep);
    struct tacio_hints *h = NULL;
    if (!local && info != MPI_INFO_NULL) { /* the view's info goes over the file's hints */
        local = exec_hints(f->hints, info, &h);
        local = check_hints_agree(f->comm, h, local);
    } else
        local = check_hints_agree(f->comm, f->hints, local);
    if (!local)
        local = set_view_local(f, disp, etype, filetype);
    int rc = exec_agree(f->comm, local);
    if (!rc && h) {
        tacio_hints_free(f->hints);
        f->hints = h;
    } else
        tacio_hints_free(h);
    return rc;
}

int tacio_file_seek(tacio_file_t f, MPI_Offset offset, int whence)
{
    MPI_Offset base = whence == MPI_SEEK_SET ? 0 : whence == MPI_SEEK_CUR ? f->fp : -1;
    if (base < 0 || base + offset < 0) {
        exec_fail_class(MPI_ERR_ARG, "seek to a negative position or with whence %d", whence);
        return MPI_ERR_ARG;
    }
    f->fp = base + offset;
    return MPI_SUCCESS;
}

int tacio_file_get_position(tacio_file_t f, MPI_Offset *offset)
{
    *offset = f->fp;
    return MPI_SUCCESS;
}

int tacio_file_get_stats(tacio_file_t f, struct tacio_stats *out)
{
    *out = f->last;
    return MPI_SUCCESS;
}

int tacio_file_write_all(tacio_file_t f, const void *buf, MPI_Count count, MPI_Datatype dt,
                         MPI_Status *st)
{
    return exec_collective(f, -1, (void *)buf, count, dt, true, st);
}

int tacio_file_read_all(tacio_file_t f, void *buf, MPI_Count count, MPI_Datatype dt, MPI_Status *st)
{
    return exec_collective(f, -1, buf, count, dt, false, st);
}

int tacio_file_write_at_all(tacio_file_t f, MPI_Offset off, const void *buf, MPI_Count count,
                            MPI_Datatype dt, MPI_Status *st)
{
    return exec_collective(f, off, (void *)buf, count, dt, true, st);
}

int tacio_file_read_at_all(tacio_file_t f, MPI_Offset off, void *buf, MPI_Count count,
                           MPI_Datatype dt, MPI_Status *st)
{
    return exec_collective(f, off, buf, count, dt, false, st);
}
