#include "mctree.h"

#include "../base/util.h"

int mc_add(struct mc_tree *t, int parent, int64_t lo, int64_t hi)
{
    int rc = grow_array((void **)&t->v, sizeof *t->v, t->n + 1, &t->cap);
    if (rc)
        return rc;
    t->v[t->n] = (struct mc_vertex){lo, hi, parent, -1, -1, -1, 0};
    return t->n++;
}

int mc_split(struct mc_tree *t, int x, int64_t mid)
{
    int l = mc_add(t, x, t->v[x].lo, mid);
    if (l < 0)
        return l;
    int r = mc_add(t, x, mid, t->v[x].hi);
    if (r < 0)
        return r;
    t->v[x].left = l;
    t->v[x].right = r;
    return l;
}

void mc_free(struct mc_tree *t)
{
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

/* Put y where x was under x's parent. */
static void replace_child(struct mc_tree *t, int x, int y)
{
    int p = t->v[x].parent;
    t->v[y].parent = p;
    if (p >= 0) {
        if (t->v[p].left == x)
            t->v[p].left = y;
        else
            t->v[p].right = y;
    }
}

int mc_remerge(struct mc_tree *t, int x)
{
    int p = t->v[x].parent;
    if (p < 0)
        return -1;
    bool x_left = t->v[p].left == x;
    int sib = x_left ? t->v[p].right : t->v[p].left;
    /* The sibling takes the parent's place and region; the leaf of its
     * subtree nearest to x (leftmost when x was on the left) grows by x's
     * region, and so does every vertex on the way down to it. */
    int64_t lo = t->v[p].lo, hi = t->v[p].hi;
    t->v[sib].lo = lo;
    t->v[sib].hi = hi;
    int c = sib;
    while (!mc_is_leaf(t, c)) {
        c = x_left ? t->v[c].left : t->v[c].right;
        if (x_left)
            t->v[c].lo = lo;
        else
            t->v[c].hi = hi;
    }
    replace_child(t, p, sib);
    t->v[x].parent = t->v[p].parent = -2; /* departed */
    return c;
}
