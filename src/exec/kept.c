#include "kept.h"

void kept_drop(struct kept_shape *k)
{
    sched_free(k->s);
    sched_free(k->aside);
    k->s = k->aside = NULL;
}

void kept_drop_all(struct kept *k)
{
    for (int i = 0; i < KEPT_SHAPES_MAX; i++) {
        kept_drop(&k->shape[i]);
        trials_reset(&k->shape[i].trials, 0, false);
    }
}

bool kept_any(const struct kept *k)
{
    for (int i = 0; i < KEPT_SHAPES_MAX; i++)
        if (k->shape[i].s)
            return true;
    return false;
}

struct kept_shape *kept_single(struct kept *k)
{
    struct kept_shape *one = NULL;
    for (int i = 0; i < KEPT_SHAPES_MAX; i++) {
        if (!k->shape[i].s)
            continue;
        if (one)
            return NULL;
        one = &k->shape[i];
    }
    return one;
}

struct kept_shape *kept_victim(struct kept *k, int n)
{
    struct kept_shape *v = &k->shape[0];
    for (int i = 0; i < n && v->s; i++)
        if (!k->shape[i].s || k->shape[i].used < v->used)
            v = &k->shape[i];
    return v;
}

void kept_touch(struct kept *k, struct kept_shape *ks)
{
    ks->used = ++k->calls;
}
