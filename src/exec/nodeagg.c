#include "nodeagg.h"

#include "fault.h"

#include <limits.h>
#include <string.h>

struct nodeagg {
    MPI_Comm comm; /* the host's ranks (f->host_comm) */
    int hrank, hsize;
    /* the access and buffer the call ran before the swap (swap_in), put
     * back after the collective (swap_out) */
    struct access prior;
    char *buf;
    /* its pieces as (offset, length) pairs, and its stream as one run of
     * memory: in the user's buffer, or in copy */
    int64_t *pairs;
    int64_t npieces, cap;
    char *stream, *copy;
    /* per rank of the host (every rank knows them): pair and byte counts and
     * where they start in the leader's arrays */
    int *npairs, *pair_displs, *nbytes, *byte_displs;
    int64_t total_pieces, total_bytes;
    /* the leader: the host's pieces sorted by offset, its streams in rank
     * order (packed) and in file order (staged: the buffer it brings to the
     * collective), and the view and memory type over them */
    int64_t *all_pairs;
    struct piece *pieces; /* spos: where its bytes sit in the packed streams */
    char *packed, *staged;
    struct flat *view_ft, *mem_ft;
    bool handed_back; /* a read's data, back to its ranks (hand_back) */
};

static int pair_add(int64_t off, int64_t len, int64_t spos, void *ctx)
{
    (void)spos; /* pieces come in stream order: positions follow from lengths */
    struct nodeagg *a = ctx;
    if (a->npieces == a->cap) {
        int64_t cap = a->cap ? 2 * a->cap : 64;
        int64_t *p = realloc(a->pairs, sizeof(int64_t) * 2 * (size_t)cap);
        if (!p)
            return tacio_fail(TACIO_ENOMEM, "out of memory listing the access's pieces");
        a->pairs = p;
        a->cap = cap;
    }
    a->pairs[2 * a->npieces] = off;
    a->pairs[2 * a->npieces + 1] = len;
    a->npieces++;
    return 0;
}

/* This rank's pieces, and its stream as one run of memory. */
static int local_part(struct call *c, struct nodeagg *a)
{
    int rc = access_walk(&c->a, pair_add, a);
    int64_t n = a->prior.n;
    a->stream = flat_run(a->prior.mt, a->buf, 0, n);
    if (!rc && !a->stream && n > 0 && !(a->stream = a->copy = malloc((size_t)n)))
        rc = tacio_fail(TACIO_ENOMEM, "out of memory packing %lld bytes", (long long)n);
    return rc;
}

/* Every rank's (failed, pieces, bytes): the host's counts, on every rank. */
static int share_counts(struct nodeagg *a, bool failed, bool *any_failed)
{
    int64_t mine[3] = {failed, a->npieces, a->prior.n};
    int64_t *all = malloc(sizeof(int64_t) * 3 * (size_t)a->hsize);
    a->npairs = malloc(sizeof(int) * 4 * (size_t)a->hsize);
    int ok = all && a->npairs, all_ok;
    /* agreed first: a rank without room for the counts must not be left
     * out of the allgather the others enter */
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, a->comm);
    if (!all_ok) {
        free(all);
        return tacio_fail(TACIO_ENOMEM, "out of memory sharing the host's counts");
    }
    MPI_Allgather(mine, 3, MPI_INT64_T, all, 3, MPI_INT64_T, a->comm);
    a->pair_displs = a->npairs + a->hsize;
    a->nbytes = a->npairs + 2 * a->hsize;
    a->byte_displs = a->npairs + 3 * a->hsize;
    *any_failed = false;
    int64_t pairs = 0, bytes = 0;
    for (int r = 0; r < a->hsize; r++) {
        *any_failed |= all[3 * r] != 0;
        pairs += 2 * all[3 * r + 1];
        bytes += all[3 * r + 2];
    }
    a->total_pieces = pairs / 2;
    a->total_bytes = bytes;
    if (pairs <= INT_MAX && bytes <= INT_MAX) /* else wanted() says no */
        for (int r = 0; r < a->hsize; r++) {
            a->npairs[r] = (int)(2 * all[3 * r + 1]);
            a->nbytes[r] = (int)all[3 * r + 2];
            a->pair_displs[r] = r ? a->pair_displs[r - 1] + a->npairs[r - 1] : 0;
            a->byte_displs[r] = r ? a->byte_displs[r - 1] + a->nbytes[r - 1] : 0;
        }
    free(all);
    return 0;
}

bool nodeagg_left_to_plan(const struct tacio_file *f)
{
    const struct exec_hints *h = &f->hints;
    return h->node_aggregation == OPT_AUTOMATIC && h->node_agg_piece == 0 &&
           h->ranks_per_node == 0 && f->topo->nused_hosts > 1;
}

/* Whether the hint lets this call try at all (the host's counts cost two
 * collectives per call). auto leaves alone what cannot gain: no threshold
 * (tacio_node_agg_piece 0, the default), one host (no network to spare), or
 * virtual hosts (tacio_ranks_per_node), whose "network" is the same shared
 * memory the gathering would copy through. */
static bool may_try(const struct tacio_file *f)
{
    const struct exec_hints *h = &f->hints;
    if (h->node_aggregation == OPT_DISABLE)
        return false;
    return h->node_aggregation == OPT_ENABLE ||
           (h->node_agg_piece > 0 && h->ranks_per_node == 0 && f->topo->nused_hosts > 1);
}

/* enable, or auto and the host's pieces average under node_agg_piece bytes,
 * so a host's ranks would send many small messages to the aggregators
 * (docs/architecture.md, "Intra-node aggregation"); never past what an MPI count carries. */
static bool wanted(const struct call *c, const struct nodeagg *a, bool chosen)
{
    if (a->hsize == 1 || a->total_pieces == 0 || a->total_bytes > INT_MAX ||
        2 * a->total_pieces > INT_MAX)
        return false;
    if (chosen || c->f->hints.node_aggregation == OPT_ENABLE)
        return true;
    return a->total_bytes / a->total_pieces < c->f->hints.node_agg_piece;
}

/* The leader's buffers, sized from the counts; 0 or a failure (the fault
 * tests inject one here: TACIO_FAULT=nodeagg:RANK:NTH). */
static int leader_alloc(struct nodeagg *a, int rank)
{
    size_t np = (size_t)a->total_pieces, nb = (size_t)a->total_bytes;
    int err = fault_check("nodeagg", rank);
    if (err)
        return fail_errno(err, "the host's leader, allocating for %lld bytes", (long long)nb);
    a->all_pairs = malloc(sizeof(int64_t) * 2 * np);
    a->pieces = malloc(sizeof *a->pieces * np);
    if (backend_moves_data()) {
        a->packed = malloc(nb);
        a->staged = malloc(nb);
    } else /* a data-free simulation: the host's gigabytes hold nothing */
        a->packed = a->staged = backend_data_scratch((int64_t)nb);
    if (!a->all_pairs || !a->pieces || !a->packed || !a->staged)
        return tacio_fail(TACIO_ENOMEM, "out of memory for the host's %lld pieces, %lld bytes",
                          (long long)np, (long long)nb);
    return 0;
}

/* The leader: everybody's pieces sorted by offset (each rank's come in file
 * order: a merge of the host's runs); 1 when two overlap, 0, or a failure
 * (negative). */
static int leader_sort(struct nodeagg *a)
{
    int64_t k = 0, *runs = malloc(sizeof(int64_t) * (size_t)(a->hsize + 1));
    if (!runs)
        return tacio_fail(TACIO_ENOMEM, "out of memory ordering the host's pieces");
    for (int r = 0; r < a->hsize; r++) {
        int64_t pos = a->byte_displs[r];
        runs[r] = k;
        for (int i = 0; i < a->npairs[r]; i += 2, k++) {
            const int64_t *pr = a->all_pairs + a->pair_displs[r] + i;
            a->pieces[k] = (struct piece){pr[0], pr[1], pos};
            pos += pr[1];
        }
    }
    runs[a->hsize] = k;
    int rc = pieces_merge_runs(a->pieces, k, runs, a->hsize);
    free(runs);
    for (int64_t i = 1; !rc && i < k; i++)
        if (a->pieces[i].off < a->pieces[i - 1].off + a->pieces[i - 1].len)
            return 1;
    return rc;
}

/* The leader's access: the sorted pieces as a one-tile view, its memory one
 * contiguous run. */
static int leader_access(struct nodeagg *a)
{
    struct flat_builder fb = {0}, mb = {0};
    int rc = 0;
    for (int64_t i = 0; !rc && i < a->total_pieces; i++)
        rc = flat_append(&fb, a->pieces[i].off, a->pieces[i].len);
    const struct piece *last = &a->pieces[a->total_pieces - 1];
    if (!rc)
        rc = flat_finish(&fb, 0, last->off + last->len, &a->view_ft);
    if (!rc)
        rc = flat_append(&mb, 0, a->total_bytes);
    if (!rc)
        rc = flat_finish(&mb, 0, a->total_bytes, &a->mem_ft);
    if (rc) { /* a builder that failed still holds its arrays */
        free(fb.f.off), free(fb.f.len), free(mb.f.off), free(mb.f.len);
        return tacio_fail(TACIO_ENOMEM, "out of memory building the host's view");
    }
    return 0;
}

/* packed (rank order) <-> staged (file order), piece by piece. */
static void restage(struct nodeagg *a, bool to_file_order)
{
    if (!backend_moves_data()) /* one scratch region, meaningless content */
        return;
    int64_t pos = 0;
    for (int64_t i = 0; i < a->total_pieces; i++) {
        const struct piece *p = &a->pieces[i];
        if (to_file_order)
            memcpy(a->staged + pos, a->packed + p->spos, (size_t)p->len);
        else
            memcpy(a->packed + p->spos, a->staged + pos, (size_t)p->len);
        pos += p->len;
    }
}

enum verdict { GO, KEEP_OWN, LEADER_FAILED };

/* The leader allocates (and says whether it could), gathers the pieces and
 * decides; every rank of the host learns the verdict. */
static enum verdict gather_pieces(struct nodeagg *a, int rank, int *rc)
{
    int v = GO;
    if (a->hrank == 0 && (*rc = leader_alloc(a, rank)))
        v = LEADER_FAILED;
    MPI_Bcast(&v, 1, MPI_INT, 0, a->comm);
    if (v != GO)
        return (enum verdict)v;
    static int64_t none;
    MPI_Gatherv(a->pairs ? a->pairs : &none, (int)(2 * a->npieces), MPI_INT64_T, a->all_pairs,
                a->npairs, a->pair_displs, MPI_INT64_T, 0, a->comm);
    if (a->hrank == 0) {
        int overlap = leader_sort(a);
        v = overlap > 0 ? KEEP_OWN : GO;
        if (overlap < 0)
            *rc = overlap, v = LEADER_FAILED;
        else if (v == GO && (*rc = leader_access(a)))
            v = LEADER_FAILED;
    }
    MPI_Bcast(&v, 1, MPI_INT, 0, a->comm);
    return (enum verdict)v;
}

/* The call now runs the host's access on the leader, nothing elsewhere. */
static void swap_in(struct call *c, struct nodeagg *a)
{
    if (a->hrank == 0) {
        c->a.v = (struct view){0, a->view_ft};
        c->a.s0 = 0;
        c->a.n = a->total_bytes;
        c->a.mt = a->mem_ft;
        c->buf = a->staged;
    } else
        access_clear(&c->a);
    c->readable = -1; /* of the access the call runs now */
}

static void swap_out(struct call *c, struct nodeagg *a)
{
    c->a = a->prior;
    c->buf = a->buf;
    c->readable = -1;
}

/* Writes: the data, to the leader, then into file order. */
static void ship_data(struct nodeagg *a)
{
    if (a->copy)
        flat_gather(a->prior.mt, a->buf, 0, a->prior.n, a->copy);
    static char none;
    MPI_Gatherv(a->stream ? a->stream : &none, (int)a->prior.n, MPI_BYTE, a->packed, a->nbytes,
                a->byte_displs, MPI_BYTE, 0, a->comm);
    if (a->hrank == 0)
        restage(a, true);
}

static void nodeagg_free(struct nodeagg *a)
{
    free(a->pairs);
    free(a->copy);
    free(a->npairs);
    free(a->all_pairs);
    free(a->pieces);
    if (backend_moves_data()) { /* else the backend's scratch */
        free(a->packed);
        free(a->staged);
    }
    flat_free(a->view_ft);
    flat_free(a->mem_ft);
    free(a);
}

/* Reads: the leader's data back to the ranks of its host, into their
 * buffers or their copies. Where the collective comes to its last
 * agreement this runs just before it (call.before_last_agreement), so the
 * time the agreement carries, which auto's trials compare, includes it
 * (under SMPI, ior at 64 ranks: 30 us of a 2.35 ms read had been left out).
 * Every rank of the host comes here together: an earlier failure was
 * agreed and never reaches the last agreement. A failure at it leaves the
 * buffers' content undefined, as MPI does. */
static void hand_back(struct call *c)
{
    struct nodeagg *a = c->node;
    if (!a || c->is_write || a->handed_back)
        return;
    a->handed_back = true;
    swap_out(c, a);
    if (a->hrank == 0)
        restage(a, false);
    int64_t keep = call_readable(c);
    if (keep < a->prior.n && a->stream && !a->copy && (a->copy = malloc((size_t)a->prior.n)))
        a->stream = a->copy; /* past the end of the file: not into the buffer */
    static char none;
    MPI_Scatterv(a->packed, a->nbytes, a->byte_displs, MPI_BYTE, a->stream ? a->stream : &none,
                 (int)a->prior.n, MPI_BYTE, 0, a->comm);
}

int nodeagg_begin(struct call *c, int local, bool chosen)
{
    if (!chosen && !may_try(c->f))
        return local;
    struct nodeagg *a = xcalloc(1, sizeof *a);
    if (!a) { /* share_counts' first agreement, saying no: the host fails together */
        int ok = 0, all_ok;
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c->f->host_comm);
        return local ? local : tacio_fail(TACIO_ENOMEM, "out of memory");
    }
    *a = (struct nodeagg){.comm = c->f->host_comm, .prior = c->a, .buf = c->buf};
    MPI_Comm_rank(a->comm, &a->hrank);
    MPI_Comm_size(a->comm, &a->hsize);
    int rc = local ? local : local_part(c, a);
    bool any_failed = true;
    int shared = share_counts(a, rc != 0, &any_failed);
    rc = rc ? rc : shared;
    if (rc || any_failed || !wanted(c, a, chosen)) { /* a failure is agreed in the plan */
        nodeagg_free(a);
        return rc;
    }
    enum verdict v = gather_pieces(a, c->f->rank, &rc);
    if (v == LEADER_FAILED && !rc)
        rc = tacio_fail(TACIO_EIO, "the host's leader failed to gather its pieces");
    if (v != GO) {
        nodeagg_free(a);
        return rc;
    }
    if (c->is_write)
        ship_data(a);
    c->node = a;
    swap_in(c, a);
    if (!c->is_write)
        c->before_last_agreement = hand_back;
    if (a->hrank == 0) {
        c->use.node_aggregated = 1;
        staged_add(c, 2 * a->total_bytes);
    }
    return 0;
}

int nodeagg_end(struct call *c, int rc)
{
    struct nodeagg *a = c->node;
    if (!a)
        return rc;
    if (!rc) /* agreed: all go on or none */
        hand_back(c);
    c->before_last_agreement = NULL;
    if (!a->handed_back) /* a read handed back has swapped out and sized its access */
        swap_out(c, a);
    if (!rc && a->copy && !c->is_write)
        flat_scatter(a->prior.mt, a->buf, 0, call_readable(c), a->copy);
    nodeagg_free(a);
    c->node = NULL;
    return rc;
}
