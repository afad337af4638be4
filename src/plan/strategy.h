/* Strategies and the helpers they share. */
#ifndef TACIO_STRATEGY_H
#define TACIO_STRATEGY_H

#include "plan.h"

#define STRATEGY(name) extern const struct tacio_strategy strategy_##name;
#include "strategies/list.h"
#undef STRATEGY

/* The i-th strategy of the registry, or NULL. */
const struct tacio_strategy *strategy_at(int i);

/* cb_nodes clamped to the cb_config_list's ranks (ROMIO clamps, never fails). */
int plan_naggs(const struct plan_ctx *ctx);
int lustre_naggs(const struct plan_ctx *ctx);
int partition_romio(const struct plan_ctx *ctx, struct partition *out);
int partition_lustre(const struct plan_ctx *ctx, struct partition *out);
/* FD j -> the j-th rank of ROMIO's cb_config_list order. */
int assign_ranklist(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                    struct tacio_plan *plan);
/* LAP over all ranks; the flow solver on trees, dense otherwise (tacio_solver). */
int assign_lap(const struct plan_ctx *ctx, const struct cmatrix *c, bool latp,
               struct tacio_plan *plan);
/* bottleneck's: the cb_config_list ranks, FDs assigned to them so that the
 * busiest link carries least (cuts plans its partitions with it). */
int assign_bottleneck(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                      struct tacio_plan *plan);

#endif
