/* cplan's wire: orders from rank 0 and the FDs in chunks. */
#include "cplan_wire.h"

/* Keeps this rank's first failure for the agreement that follows. */
int note_failure(struct call *c, int rc)
{
    if (rc && !c->planning.rc)
        c->planning.rc = rc;
    return rc;
}

/* ---- FDs in chunks ---- */

static void chunk_fill(const struct call *c, struct order *o, const struct partition *part,
                       int64_t j0, int wpf)
{
    for (int64_t j = j0; j < o->n && j < j0 + CHUNK_FDS; j++) {
        const struct fdom *dom = &part->dom[j];
        int64_t *w = o->w + wpf * (j - j0);
        w[0] = dom->start, w[1] = dom->end, w[2] = dom->unit, w[3] = dom->stride;
        if (wpf == PLAN_WORDS)
            w[4] = c->s->plan->agg[j], w[5] = c->s->nsenders[j], w[6] = dom->memory;
    }
}

static void chunk_take(struct call *c, const struct order *o, struct partition *part, int64_t j0,
                       int wpf)
{
    for (int64_t j = j0; j < o->n && j < j0 + CHUNK_FDS; j++) {
        const int64_t *w = o->w + wpf * (j - j0);
        part->dom[j] = (struct fdom){w[0], w[1], w[2], w[3], 0};
        if (wpf == PLAN_WORDS) {
            c->s->plan->agg[j] = (int)w[4], c->s->nsenders[j] = (int)w[5];
            part->dom[j].memory = w[6];
        }
    }
}

/* Rank 0 sends an order (its first chunk filled here); everybody then
 * passes the FDs past the first chunk. A receiver whose part is NULL (it
 * could not allocate) still takes part. */
void order_bcast(struct call *c, struct order *o, const struct partition *src, int wpf)
{
    if (c->f->rank == 0 && src)
        chunk_fill(c, o, src, 0, wpf);
    if (MPI_Bcast(o, sizeof *o, MPI_BYTE, 0, c->f->comm) == MPI_SUCCESS || c->f->rank == 0)
        return;
    /* the order never came: this rank fails rather than act on what the
     * buffer held before. The communicator is broken then: ranks that got
     * the order go on with it, and their next collective is the MPI's to
     * fail, as no agreement over a broken communicator can be had. */
    memset(o, 0, sizeof *o);
    o->cmd = CMD_FAILED;
    note_failure(c, tacio_fail(TACIO_ECOMM, "the plan's broadcast from rank 0 failed"));
}

void chunks_bcast(struct call *c, struct order *o, struct partition *part, int wpf)
{
    bool root = c->f->rank == 0;
    for (int64_t j0 = 0; j0 < o->n; j0 += CHUNK_FDS) {
        if (j0 > 0) {
            if (root)
                chunk_fill(c, o, part, j0, wpf);
            MPI_Bcast(o->w, (int)(wpf * min64(CHUNK_FDS, o->n - j0)), MPI_INT64_T, 0, c->f->comm);
        }
        if (!root && part)
            chunk_take(c, o, part, j0, wpf);
    }
}
