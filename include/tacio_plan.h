/**
 * @file tacio_plan.h
 * @brief tacio's planning core: no MPI, pure functions from (access pattern,
 * topology, hints, free memory) to a collective I/O plan.
 *
 * Error rule (stated once for every function here): functions return 0 on
 * success or a negative TACIO_E* code; tacio_strerror() names the code and
 * tacio_last_error() gives the one-line detail of the most recent failure on
 * the calling thread. Nothing here calls exit() or abort().
 */
#ifndef TACIO_PLAN_H
#define TACIO_PLAN_H

/* What the libraries export: the public API only (built with hidden
 * visibility, so no internal name can clash with an application's). */
#if defined(__GNUC__)
#define TACIO_API __attribute__((visibility("default")))
#else
#define TACIO_API
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum tacio_error {
    TACIO_OK = 0,
    TACIO_EINVAL = -1,      /**< malformed spec, hint or argument */
    TACIO_ENOMEM = -2,      /**< allocation failed */
    TACIO_EIO = -3,         /**< a file could not be read */
    TACIO_ERANGE = -4,      /**< a value is out of its allowed range */
    TACIO_EUNSUPPORTED = -5 /**< a valid request this combination cannot serve */
};

/** Name of an error code ("invalid argument", ...). */
TACIO_API const char *tacio_strerror(int err);
/** One-line detail of the calling thread's last error ("" if none). */
TACIO_API const char *tacio_last_error(void);

struct tacio_topo;
struct tacio_pattern;
struct tacio_hints;
struct tacio_plan;

/** Parse a topology spec: tree:, fattree:, flat:, slurm:, dist:. */
TACIO_API int tacio_topo_parse(const char *spec, struct tacio_topo **out);
TACIO_API void tacio_topo_free(struct tacio_topo *topo);

/**
 * Place @p nprocs ranks on the topology: "block", "cyclic" or
 * "scatter:seed=S". @p nprocs may be 0 for dist: topologies (they fix it).
 */
TACIO_API int tacio_topo_place(struct tacio_topo *topo, const char *placement, int nprocs);

/** Parse an access pattern spec for @p nprocs ranks (0: the pattern decides). */
TACIO_API int tacio_pattern_parse(const char *spec, int nprocs, struct tacio_pattern **out);
TACIO_API int tacio_pattern_nprocs(const struct tacio_pattern *pat);
TACIO_API void tacio_pattern_free(struct tacio_pattern *pat);

/** Hints, with ROMIO's names and defaults where they exist. */
TACIO_API int tacio_hints_new(struct tacio_hints **out);
TACIO_API int tacio_hints_set(struct tacio_hints *hints, const char *key, const char *value);
TACIO_API void tacio_hints_free(struct tacio_hints *hints);

/**
 * Free memory per host for the memory-conscious strategy: "BYTES",
 * "normal:mean=M,sd=S,seed=K" or "file:PATH" (lines "host-index bytes").
 */
TACIO_API int tacio_topo_set_memory(struct tacio_topo *topo, const char *spec);

/** Compute a plan with the strategy named in the hints (tacio_strategy).
 * The plan refers to the topology's vertex names: free it first. */
TACIO_API int tacio_plan_compute(const struct tacio_pattern *pat, const struct tacio_topo *topo,
                                 const struct tacio_hints *hints, struct tacio_plan **out);
TACIO_API void tacio_plan_free(struct tacio_plan *plan);

/** Write the plan as one JSON object (no trailing newline). */
TACIO_API void tacio_plan_write_json(const struct tacio_plan *plan, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
