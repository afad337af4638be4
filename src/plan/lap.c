/* Dense rectangular linear assignment: shortest augmenting paths (the
 * augmentation phase of Jonker & Volgenant, in the rectangular form Crouse
 * describes). Costs are int64 and no "large" constant stands in for infinity:
 * every column distance is a real path length, so costs up to ~1e15 are
 * exact. */
#include "plan.h"

#include <string.h>

struct lap_work {
    int64_t *v, *d;
    int *c2r, *pred, *cols;
};

/* Pick the unscanned column of least distance, a free one on ties (it ends
 * the search sooner). Moves it to position nscan. */
static int next_column(struct lap_work *w, int nscan, int nc)
{
    int best = nscan;
    for (int k = nscan + 1; k < nc; k++) {
        int j = w->cols[k], b = w->cols[best];
        if (w->d[j] < w->d[b] || (w->d[j] == w->d[b] && w->c2r[j] < 0 && w->c2r[b] >= 0))
            best = k;
    }
    int j = w->cols[best];
    w->cols[best] = w->cols[nscan];
    w->cols[nscan] = j;
    return j;
}

/* One Dijkstra from free row f; returns the free column reached. */
static int shortest_path(const int64_t *cost, int nc, int f, struct lap_work *w, int *nscan_out)
{
    const int64_t *row = cost + (int64_t)f * nc;
    for (int j = 0; j < nc; j++) {
        w->d[j] = row[j] - w->v[j];
        w->pred[j] = f;
        w->cols[j] = j;
    }
    for (int nscan = 0;;) {
        int j = next_column(w, nscan, nc);
        nscan++;
        if (w->c2r[j] < 0) {
            *nscan_out = nscan;
            return j;
        }
        int i = w->c2r[j];
        const int64_t *ri = cost + (int64_t)i * nc;
        int64_t h = ri[j] - w->v[j] - w->d[j];
        for (int k = nscan; k < nc; k++) {
            int c = w->cols[k];
            int64_t nd = ri[c] - w->v[c] - h;
            if (nd < w->d[c]) {
                w->d[c] = nd;
                w->pred[c] = i;
            }
        }
    }
}

static void augment(struct lap_work *w, int *r2c, int f, int sink, int nscan)
{
    int64_t mind = w->d[sink];
    for (int k = 0; k < nscan; k++) {
        int j = w->cols[k];
        w->v[j] += w->d[j] - mind;
    }
    for (int j = sink;;) {
        int i = w->pred[j];
        w->c2r[j] = i;
        int prev = r2c[i];
        r2c[i] = j;
        if (i == f)
            break;
        j = prev;
    }
}

int lap_dense(int nr, int nc, const int64_t *cost, int *r2c, int64_t *total)
{
    if (nr > nc)
        return tacio_fail(TACIO_EINVAL,
                          "assignment needs at least as many candidates (%d) as "
                          "file domains (%d)",
                          nc, nr);
    struct lap_work w = {xcalloc((size_t)nc, sizeof(int64_t)), malloc(sizeof(int64_t) * (size_t)nc),
                         malloc(sizeof(int) * (size_t)nc), malloc(sizeof(int) * (size_t)nc),
                         malloc(sizeof(int) * (size_t)nc)};
    int rc =
        w.v && w.d && w.c2r && w.pred && w.cols ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
    if (!rc) {
        memset(w.c2r, 0xff, sizeof(int) * (size_t)nc);
        for (int f = 0; f < nr; f++) {
            r2c[f] = -1;
            int nscan, sink = shortest_path(cost, nc, f, &w, &nscan);
            augment(&w, r2c, f, sink, nscan);
        }
        *total = 0;
        for (int i = 0; i < nr; i++)
            *total += cost[(int64_t)i * nc + r2c[i]];
    }
    free(w.v);
    free(w.d);
    free(w.c2r);
    free(w.pred);
    free(w.cols);
    return rc;
}

int64_t hop_bytes_of(const struct tacio_topo *t, const struct cmatrix *c, int j, int rank)
{
    int64_t sum = 0;
    for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++)
        sum += topo_rank_dist(t, c->row[k], rank) * c->cval[k];
    return sum;
}

/* W as a dense FD x rank matrix (moved bytes T_j - C[i][j] for latp). */
static int build_cost(const struct tacio_topo *t, const struct cmatrix *c, bool latp, int64_t **out)
{
    int64_t n = (int64_t)c->a * c->p;
    if (n > (int64_t)1 << 31)
        return tacio_fail(TACIO_ERANGE,
                          "a dense %d x %d cost matrix is too large; use a tree "
                          "topology (tacio_solver=flow)",
                          c->p, c->a);
    int64_t *w = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!w)
        return tacio_fail(TACIO_ENOMEM, "out of memory for the cost matrix");
    for (int j = 0; j < c->a; j++) {
        int64_t *row = w + (int64_t)j * c->p;
        if (latp) {
            for (int i = 0; i < c->p; i++)
                row[i] = c->fd_bytes[j];
            for (int64_t k = c->col_ptr[j]; k < c->col_ptr[j + 1]; k++)
                row[c->row[k]] -= c->cval[k];
        } else {
            for (int i = 0; i < c->p; i++)
                row[i] = hop_bytes_of(t, c, j, i);
        }
    }
    *out = w;
    return 0;
}

int assign_dense(const struct tacio_topo *t, const struct cmatrix *c, bool latp, int *agg,
                 int64_t *total)
{
    int64_t *w = NULL;
    int rc = build_cost(t, c, latp, &w);
    if (rc)
        return rc;
    rc = lap_dense(c->a, c->p, w, agg, total);
    free(w);
    return rc;
}
