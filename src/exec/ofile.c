#include "ofile.h"

#include "backend.h"
#include "flatten.h"

#include <unistd.h>

void view_release(struct fview *v)
{
    flat_release(v->ft);
    v->ft = NULL;
}

/* MPI's rules for a filetype, checked when the view is set, as ROMIO and
 * OMPIO check them (MPI_ERR_TYPE), not at the first access: displacements
 * nondecreasing, and in a file open for writing no two blocks overlapping
 * (a read-only file may read a byte twice, which MPICH's ROMIO accepts
 * here; tacio's accesses still refuse it). What crosses tiles is the
 * access's business (view_access): a filetype whose extent is below its
 * data span is legal for one tile (HDF5, PnetCDF). A negative displacement
 * never comes here: api.c's view_checked refuses it. */
static int filetype_valid(const struct tacio_file *f, const struct flat *ft)
{
    if (!ft->ordered)
        return tacio_fail(TACIO_ETYPE, "the filetype's displacements go backwards: MPI requires "
                                       "them nondecreasing");
    if (!ft->monotonic && (f->amode & (MPI_MODE_WRONLY | MPI_MODE_RDWR)))
        return tacio_fail(TACIO_ETYPE, "the filetype's blocks overlap, which MPI forbids in a "
                                       "file open for writing");
    return 0;
}

int view_install(struct tacio_file *f, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype)
{
    struct fview v = {disp, 0, NULL, 0, ""};
    int esize = 0, rc = flatten_type(filetype, &v.ft);
    if (!rc)
        rc = filetype_valid(f, v.ft);
    if (!rc && MPI_Type_size(etype, &esize) != MPI_SUCCESS)
        rc = tacio_fail(TACIO_ETYPE, "the view's etype is not a valid datatype");
    if (!rc && (esize <= 0 || v.ft->size % esize))
        rc =
            tacio_fail(TACIO_EINVAL, "the filetype's size %lld is not a multiple of the etype's %d",
                       (long long)v.ft->size, esize);
    if (rc)
        return rc;
    flat_hold(v.ft);
    view_release(&f->view);
    v.etype_size = esize;
    f->view = v;
    f->fp = 0;
    return 0;
}

char *slot_window(struct tacio_file *f, int k, int64_t n)
{
    if (!backend_moves_data()) /* a data-free simulation: no window holds data */
        return backend_data_scratch(n);
    struct slot_mem *s = &f->slot[k];
    if (n > s->win_cap) {
        free(s->win);
        s->win_cap = 0;
        if (!(s->win = malloc((size_t)n)))
            return NULL;
        s->win_cap = n;
    }
    return s->win;
}

void ofile_free(struct tacio_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    view_release(&f->view);
    tacio_topo_free(f->topo);
    if (f->host_comm != MPI_COMM_NULL)
        MPI_Comm_free(&f->host_comm);
    if (f->comm != MPI_COMM_NULL)
        MPI_Comm_free(&f->comm);
    kept_drop_all(&f->kept[0]);
    kept_drop_all(&f->kept[1]);
    for (int k = 0; k < 2; k++) {
        arena_release(&f->slot[k].msgs);
        free(f->slot[k].win);
    }
    free(f->path);
    free(f->stats_path);
    learned_free(&f->learned);
    free(f);
}
