/* The memory-conscious partition tree (mccio paper, section 3.2): a binary
 * tree per aggregation group whose leaves are the file domains. */
#ifndef TACIO_MCTREE_H
#define TACIO_MCTREE_H

#include <stdbool.h>
#include <stdint.h>

struct mc_vertex {
    int64_t lo, hi;
    int parent, left, right; /* -1 when absent */
    int agg;                 /* leaves: aggregator rank, -1 while unplaced */
    int64_t memory;          /* placed leaves: the aggregator's window (fdom.memory) */
};

struct mc_tree {
    struct mc_vertex *v;
    int n;
    int64_t cap;
};

static inline bool mc_is_leaf(const struct mc_tree *t, int x)
{
    return t->v[x].left < 0;
}

/* Add a vertex covering [lo, hi) under parent (-1: a group root). */
int mc_add(struct mc_tree *t, int parent, int64_t lo, int64_t hi);
/* Split leaf x at mid into two children; returns the left child. */
int mc_split(struct mc_tree *t, int x, int64_t mid);
/* Leaf x leaves the tree; its region goes to the neighbouring leaf found by
 * the paper's rule (the sibling if it is a leaf, else the depth-first leaf of
 * the sibling's subtree nearest to x). Returns that leaf, or -1 when x is its
 * group's only leaf. */
int mc_remerge(struct mc_tree *t, int x);
void mc_free(struct mc_tree *t);

#endif
