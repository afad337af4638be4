/* The strategy registry (strategies/list.h) and the helpers strategies share. */
#include "strategy.h"
#include "../base/util.h"

#include <stdio.h>
#include <string.h>

#define STRATEGY(name) &strategy_##name,
static const struct tacio_strategy *const registry[] = {
#include "strategies/list.h"
    NULL};
#undef STRATEGY
#define NSTRATEGIES ((int)(sizeof registry / sizeof registry[0]) - 1)

const struct tacio_strategy *strategy_find(const char *name)
{
    for (int i = 0; registry[i]; i++)
        if (!strcmp(registry[i]->name, name))
            return registry[i];
    return NULL;
}

/* "romio, lustre, ...": for messages, from the registry. */
const char *strategy_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0, n = 0; registry[i] && n < sizeof names; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                                  registry[i]->name);
    return names;
}

REGISTRY_ACCESSORS(tacio_strategy, NSTRATEGIES, *registry[i])

int tacio_strategy_is_auto_candidate(int i)
{
    return i >= 0 && i < NSTRATEGIES && registry[i]->auto_candidate;
}

const struct tacio_strategy *strategy_at(int i)
{
    return i >= 0 && i < NSTRATEGIES ? registry[i] : NULL;
}

int plan_naggs(const struct plan_ctx *ctx)
{
    return ranklist_count(ctx, ctx->h->cb_nodes);
}

int assign_ranklist(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                    struct tacio_plan *plan)
{
    (void)c;
    int *list;
    int n = romio_ranklist(ctx, &list);
    if (n < 0)
        return n;
    for (int j = 0; j < part->n; j++)
        plan->agg[j] = list[j % n];
    free(list);
    return 0;
}

int partition_romio(const struct plan_ctx *ctx, struct partition *out)
{
    int n = plan_naggs(ctx);
    return n < 0 ? n : partition_even(ctx, n, out);
}

/* Liao & Choudhary: the aggregator count becomes a multiple of the stripe
 * count when it is larger, a divisor when smaller, so each aggregator keeps
 * to a fixed set of storage targets. */
int lustre_naggs(const struct plan_ctx *ctx)
{
    int n = plan_naggs(ctx);
    int64_t sc = ctx->h->striping_factor;
    if (n <= 0 || sc <= 0)
        return n;
    if (n >= sc)
        return (int)(n - n % sc);
    while (sc % n)
        n--;
    return n;
}

int partition_lustre(const struct plan_ctx *ctx, struct partition *out)
{
    int n = lustre_naggs(ctx);
    return n < 0 ? n : partition_stripes(ctx, n, out);
}
