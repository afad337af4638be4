/* What a data-free simulation (backend/simgrid.c, TACIO_SIM_NODATA=1)
 * tells its bench: the file extents the calling rank's writes covered, in
 * the order written (an extent continuing the previous one is merged into
 * it). The bench checks that the ranks' extents together cover the file
 * exactly once: with no data to compare, that is what a plan must get
 * right. */
#ifndef TACIO_EXEC_BACKEND_SIM_H
#define TACIO_EXEC_BACKEND_SIM_H

#include <stdint.h>

struct sim_extent {
    int64_t off, len;
};

struct sim_extents {
    struct sim_extent *e;
    int64_t n, cap;
};

const struct sim_extents *sim_written(void);

#endif
