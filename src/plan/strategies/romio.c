/* romio: ROMIO's default two-phase plan (even split of [min, max], FD j to
 * the j-th rank of the cb_config_list order). */
#include "../strategy.h"

const struct tacio_strategy strategy_romio = {
    .name = "romio",
    .summary = "ROMIO default: even split of [min,max], FD j to the j-th cb_config_list rank",
    .partition = partition_romio,
    .assign = assign_ranklist,
    .assigns_without_cmatrix = true,
    .auto_candidate = true,
};
