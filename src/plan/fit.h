/* auto's cost model fitted on the calls a program makes.
 *
 * The model (model.c) prices a plan as a few terms, each in seconds at the
 * machine rates the hints give (built-in defaults unless tacio-calibrate
 * or the user set them): the exchange, the file I/O, the messages, the
 * per-call agreements, a host's gathering and the pieces the ranks pack.
 * A real machine is 1.5-40x off those rates, by a different factor for
 * each term (docs/evaluation.md, "auto's cost model against the calls").
 * The fit learns one multiplier per term from the calls themselves: each
 * call's terms, as its plan was rated, against the seconds it took. The
 * fitted model is the built-in one until a call is seen, so nothing a
 * program does before its first collective call changes.
 *
 * How: least squares on the calls' relative errors (a 1 ms call weighs as
 * much as a 1 s one), over the last FIT_WINDOW calls (bounded memory and
 * time; a machine whose speed changes is followed within a window),
 * with each call weighted down by how far it is from the fit (Cauchy
 * weights: one slow call cannot swing it), every multiplier at least
 * 1/32 of the calls' ratio to the built-in model (the pieces' at least 0),
 * and pulled towards the calls' median ratio to the built-in model (a
 * term no call has told apart keeps its place relative to the others:
 * one shape seen tells how much slower the machine is, not which term). */
#ifndef TACIO_PLAN_FIT_H
#define TACIO_PLAN_FIT_H

#include <stdbool.h>
#include <stdint.h>

/* The model's terms (model.c's comment says what each prices). */
enum model_term {
    TERM_SHUFFLE,  /* the exchange's data: links, NICs, a host's copies */
    TERM_IO,       /* the file I/O: the busiest aggregator, host, file system */
    TERM_MESSAGES, /* a latency a round and the busiest rank's messages */
    TERM_FIXED,    /* the agreements and the plan's broadcast */
    TERM_GATHER,   /* node aggregation's gathering of a host's data */
    TERM_PIECES,   /* the contiguous pieces the busiest rank and aggregator copy */
    NTERMS
};

/* A plan's terms, in seconds at the hints' rates; with more than one round
 * the exchange and the I/O overlap (terms_seconds). */
struct model_terms {
    double v[NTERMS];
    double rounds;
};

/* What one piece costs before the fit has seen any: nothing (the built-in
 * model prices no pieces), and PIECE_SECONDS is only the unit the pieces
 * term is counted in, so that its multiplier reads like the others'. */
#define PIECE_SECONDS 1e-7

/* The calls the fit keeps: the newest replaces the oldest. */
#define FIT_WINDOW 16

struct fit_call {
    struct model_terms x;
    double seconds; /* what the call took (the slowest rank's, less its planning) */
};

struct model_fit {
    int n, next;  /* calls held; where the next one goes */
    int64_t seen; /* calls observed in all */
    /* the multipliers the fit starts from and, with each fit, is pulled
     * towards (scaled by the calls' median ratio to them): the built-in
     * model's, or those an earlier run left in a wisdom file (fit_seed) */
    double base[NTERMS];
    int64_t earlier; /* calls behind that earlier run's multipliers (0: none) */
    struct fit_call calls[FIT_WINDOW];
    double coef[NTERMS]; /* each term's multiplier of the built-in rates */
    bool stale;          /* calls observed since coef was fitted */
    /* what auto's last rating of its candidates on a shape's first call
     * took on this machine, seconds (0: none yet): auto chooses only where
     * the least gain it acts on would pay for it (src/plan/strategies/auto.c) */
    double choosing;
};

/* The built-in model: 1 each, but pieces (0). */
void fit_init(struct model_fit *f);
/* A fit that has seen no call starts from an earlier run's multipliers
 * (coef, each finite and at least 0), what choosing took then and how many
 * calls they were fitted on: false (f unchanged) where f has seen calls
 * or coef is not usable. */
bool fit_seed(struct model_fit *f, const double *coef, double choosing, int64_t calls);
/* The terms' seconds with multipliers coef (NULL: the built-in model's). */
double terms_seconds(const struct model_terms *x, const double *coef);
/* The same with a fit's multipliers; f NULL: the built-in model. */
double fit_seconds(const struct model_fit *f, const struct model_terms *x);
/* One term's seconds with a fit's multiplier (f NULL: built-in), before the
 * rounds overlap the exchange and the I/O. */
double fit_term(const struct model_fit *f, const struct model_terms *x, enum model_term k);
/* A call that ran a plan rated x took seconds (> 0): kept for the next
 * fit (constant time: a call on a kept schedule plans nothing and pays
 * for no fit). Calls with no time or no terms are not taken. */
void fit_observe(struct model_fit *f, const struct model_terms *x, double seconds);
/* f fitted on the calls it holds (again only where calls came since),
 * before a plan is rated with it; f may be NULL (the built-in model). */
const struct model_fit *fit_current(struct model_fit *f);
/* Auto rated its candidates on a shape's first call in seconds. */
void fit_choosing(struct model_fit *f, double seconds);
/* The terms' names, as the profile and the docs print them. */
const char *fit_term_name(enum model_term k);

#endif
