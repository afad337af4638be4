/* The collective data path's entry point: st1 this rank's access, then st2
 * the plan (cplan.c) and st3-st5 the rounds (rounds.c), the call's stats
 * and its status. */
#include "coll.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---- st1: this rank's access ---- */

static int access_local(struct call *c, int64_t offset, int64_t count, MPI_Datatype dt)
{
    struct tacio_file *f = c->f;
    int size;
    view_access(NULL, 0, 0, NULL, &c->v, &c->s0); /* what an access that fails sends */
    int rc = exec_flatten(dt, &c->mt, &c->mt_owned);
    MPI_Type_size(dt, &size);
    if (rc)
        return rc;
    if (count < 0)
        return exec_fail_class(MPI_ERR_COUNT, "negative count %lld", (long long)count);
    c->n = count * size;
    if (c->n % f->etype_size)
        return exec_fail_class(MPI_ERR_ARG, "%lld bytes is not a whole number of %lld-byte etypes",
                               (long long)c->n, (long long)f->etype_size);
    if ((f->amode & MPI_MODE_RDONLY) && c->is_write)
        return exec_fail_class(MPI_ERR_READ_ONLY, "write to a file opened MPI_MODE_RDONLY");
    if ((f->amode & MPI_MODE_WRONLY) && !c->is_write)
        return exec_fail_class(MPI_ERR_ACCESS, "read from a file opened MPI_MODE_WRONLY");
    int64_t pos = offset >= 0 ? offset : f->fp;
    return view_access(&(struct view){f->disp, f->ft}, pos * f->etype_size, c->n, &c->shell, &c->v,
                       &c->s0);
}

int coll_walk_access(const struct call *c, piece_fn fn, void *ctx)
{
    if (c->n <= 0)
        return 0;
    return view_walk(&c->v, c->s0, c->s0 + c->n, view_offset_of(&c->v, c->s0),
                     view_offset_of(&c->v, c->s0 + c->n - 1) + 1, fn, ctx);
}

/* ---- the entry point ---- */

static void call_free(struct call *c)
{
    flat_free(c->mt_owned);
    coll_links_free(c);
    coll_plan_free(c);
}

static void record_stats(struct call *c, int64_t offset)
{
    struct tacio_stats *s = &c->f->last;
    memset(s, 0, sizeof *s);
    snprintf(s->op, sizeof s->op, "%s%s", c->is_write ? "write" : "read",
             offset >= 0 ? "_at_all" : "_all");
    snprintf(s->strategy, sizeof s->strategy, "%s", c->f->hints->strategy);
    s->st1_access = c->t[1];
    s->st2_plan = c->t[2];
    s->st3_route = c->t[3];
    s->st4_shuffle = c->t[4];
    s->st5_io = c->t[5];
    s->total = c->t[0];
    s->rounds = c->rounds;
    s->steps = c->nsteps;
    s->meta_bytes = c->meta_peak;
    s->peak_buffer_bytes = c->staged_peak;
    s->independent = c->independent;
    s->pipelined = c->pipelined;
    s->node_aggregated = (int)c->node_aggregated;
    s->bytes = c->independent ? c->indep_bytes : 0;
    if (c->plan) {
        const struct metrics *m = &c->plan->m;
        s->bytes = m->total_bytes;
        s->shuffle_bytes = m->shuffle_bytes;
        s->offnode_bytes = m->offnode_bytes;
        s->hop_bytes = m->hop_bytes;
        s->max_link_load = m->max_link_load;
        s->naggs = m->naggs;
        s->buffer_bytes = m->max_agg_mem;
    }
    const char *path = getenv("TACIO_STATS");
    FILE *out = path && c->f->rank == 0 ? fopen(path, "a") : NULL;
    if (out) {
        fprintf(out,
                "{\"op\":\"%s\",\"strategy\":\"%s\",\"procs\":%d,\"st1\":%.6f,\"st2\":%.6f,"
                "\"st3\":%.6f,\"st4\":%.6f,\"st5\":%.6f,\"total\":%.6f,\"bytes\":%lld,"
                "\"shuffle_bytes\":%lld,\"offnode_bytes\":%lld,\"hop_bytes\":%lld,"
                "\"max_link_load\":%lld,\"naggs\":%d,\"rounds\":%lld,\"steps\":%d,\"buffer_bytes\":"
                "%lld,\"meta_bytes\":%lld,\"peak_buffer_bytes\":%lld,\"independent\":%d,"
                "\"pipelined\":%d,\"node_aggregated\":%d}\n",
                s->op, s->strategy, c->f->nprocs, s->st1_access, s->st2_plan, s->st3_route,
                s->st4_shuffle, s->st5_io, s->total, (long long)s->bytes,
                (long long)s->shuffle_bytes, (long long)s->offnode_bytes, (long long)s->hop_bytes,
                (long long)s->max_link_load, s->naggs, (long long)s->rounds, s->steps,
                (long long)s->buffer_bytes, (long long)s->meta_bytes,
                (long long)s->peak_buffer_bytes, s->independent, s->pipelined, s->node_aggregated);
        fclose(out);
    }
}

/* Bytes the call moved for this rank, for its status: all of a write; of a
 * read, the stream up to the end of the file, as an independent read
 * reports it (PnetCDF moves data by that count). Counted in bytes because
 * MPI_Status_set_elements_x counts basic elements of its type, not units. */
static int64_t transferred(const struct call *c)
{
    struct stat st;
    if (c->is_write || c->n == 0 || fstat(c->f->fd, &st) != 0)
        return c->n;
    int64_t below = view_bytes_below(&c->v, (int64_t)st.st_size) - c->s0;
    return max64(0, min64(below, c->n));
}

static int64_t flat_bytes(const struct flat *f)
{
    return f ? 24 * f->n + 8 : 0;
}

/* The most metadata and staged data any rank held (stats). */
static void reduce_peaks(struct call *c)
{
    int64_t mine[NPEAKS], most[NPEAKS];
    peaks_get(c, mine);
    MPI_Allreduce(mine, most, NPEAKS, MPI_INT64_T, MPI_MAX, c->f->comm);
    peaks_set(c, most);
}

int exec_collective(struct tacio_file *f, int64_t offset, void *buf, int64_t count,
                    MPI_Datatype datatype, bool is_write, MPI_Status *status)
{
    struct call c = {.f = f, .is_write = is_write, .buf = buf, .my_fd = -1};
    double t0 = clock_seconds();
    int local = access_local(&c, offset, count, datatype);
    meta_add(&c, flat_bytes(c.v.ft) + flat_bytes(c.mt));
    c.t[1] = clock_seconds() - t0;
    double t1 = clock_seconds();
    local = coll_node_begin(&c, local);
    c.t[4] += clock_seconds() - t1; /* handing data to the host's leader is shuffle */
    t1 = clock_seconds();
    int rc = coll_plan(&c, local);
    c.t[2] = clock_seconds() - t1;
    if (!rc && c.has_rounds)
        rc = coll_rounds(&c);
    else if (!rc && c.independent)
        rc = coll_independent(&c);
    double t2 = clock_seconds();
    rc = coll_node_end(&c, rc);
    c.t[4] += clock_seconds() - t2;
    c.t[0] = clock_seconds() - t0;
    if (!rc) {
        if (!c.peaks_agreed)
            reduce_peaks(&c);
        if (offset < 0)
            f->fp += c.n / f->etype_size;
        if (status != MPI_STATUS_IGNORE)
            MPI_Status_set_elements_x(status, MPI_BYTE, transferred(&c));
        record_stats(&c, offset);
    }
    call_free(&c);
    return rc;
}
