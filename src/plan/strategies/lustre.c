/* lustre: ROMIO's Lustre driver (Liao & Choudhary): stripes dealt
 * round-robin to the cb_config_list ranks. */
#include "../strategy.h"

const struct tacio_strategy strategy_lustre = {
    .name = "lustre",
    .summary = "Liao & Choudhary: stripes dealt round-robin to the cb_config_list ranks",
    .partition = partition_lustre,
    .assign = assign_ranklist,
    .assigns_without_cmatrix = true,
};
