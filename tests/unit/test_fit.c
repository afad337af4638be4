/* auto's fitted cost model (src/plan/fit.c), on scripted calls: a machine
 * whose true cost is known (its terms' multipliers), calls drawn from it,
 * and what the fit predicts for shapes it has not seen. No clock is read. */
#include "../../src/plan/fit.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A machine as this machine measured one (docs/evaluation.md, the model
 * against the calls: the exchange 3-37x the built-in rates, the I/O about
 * them), with a cost a piece the built-in model does not have. */
static const double machine[NTERMS] = {9, 1.3, 20, 3, 2, 0.8};

static uint64_t seed;

/* Each test draws its own calls: none depends on the ones before it. */
static void reseed(void)
{
    seed = 88172645463325252ull;
}

static double uniform(void)
{
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return (double)(seed >> 11) / (double)(1ull << 53);
}

/* A plan's terms as a new shape gives them: each term over two decades,
 * rounds 1-8, gathering on some. */
static struct model_terms shape(void)
{
    struct model_terms x = {.rounds = 1 + floor(8 * uniform())};
    for (int k = 0; k < NTERMS; k++)
        x.v[k] = 1e-5 * pow(100, uniform());
    if (uniform() < 0.5)
        x.v[TERM_GATHER] = 0;
    return x;
}

/* A call observed, and the fit brought up to date as a plan would ask. */
static void see(struct model_fit *f, const struct model_terms *x, double seconds)
{
    fit_observe(f, x, seconds);
    fit_current(f);
}

static double relerr(double predicted, double measured)
{
    return fabs(predicted / measured - 1);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The fit's median error on n shapes it has not seen. */
static double median_error(const struct model_fit *f, int n)
{
    double e[64];
    for (int i = 0; i < n; i++) {
        struct model_terms x = shape();
        e[i] = relerr(fit_seconds(f, &x), terms_seconds(&x, machine));
    }
    qsort(e, (size_t)n, sizeof *e, cmp);
    return e[n / 2];
}

static void observe_machine(struct model_fit *f, int calls, const double *coef)
{
    for (int i = 0; i < calls; i++) {
        struct model_terms x = shape();
        see(f, &x, terms_seconds(&x, coef));
    }
}

/* Before any call the fit is the built-in model, pieces priced at 0. */
static void unfitted_is_builtin(void)
{
    struct model_fit f;
    fit_init(&f);
    struct model_terms x = shape();
    double sum = 0;
    for (int k = 0; k < NTERMS; k++)
        if (k != TERM_PIECES)
            sum += x.v[k];
    x.rounds = 1;
    CHECK(fabs(fit_seconds(&f, &x) - sum) < 1e-15);
    CHECK(fit_seconds(&f, &x) == fit_seconds(NULL, &x));
    /* rounds overlap the exchange and the I/O: the shorter once a round */
    x.rounds = 4;
    double hi = fmax(x.v[TERM_SHUFFLE], x.v[TERM_IO]), lo = fmin(x.v[TERM_SHUFFLE], x.v[TERM_IO]);
    CHECK(fabs(fit_seconds(&f, &x) - (sum - lo + lo / 4)) < 1e-15 * (1 + hi));
    CHECK(f.n == 0 && f.seen == 0);
}

/* The goal of issue 71: within 25% after 5 calls of new shapes, and the
 * terms themselves found once enough shapes were seen. */
static void learns_the_machine(void)
{
    struct model_fit f;
    fit_init(&f);
    double before = median_error(&f, 41);
    observe_machine(&f, 1, machine);
    double after1 = median_error(&f, 41);
    observe_machine(&f, 4, machine);
    double after5 = median_error(&f, 41);
    observe_machine(&f, 15, machine);
    double after20 = median_error(&f, 41);
    printf("median error: built-in %.3f, after 1 call %.3f, 5 %.3f, 20 %.3f\n", before, after1,
           after5, after20);
    CHECK(before > 0.5);
    (void)after1; /* one shape says how much slower, not which term: one_shape_scales */
    CHECK(after5 < 0.25);
    CHECK(after20 < 0.02);
    for (int k = 0; k < NTERMS; k++)
        CHECK(fabs(f.coef[k] / machine[k] - 1) < 0.05);
    CHECK_EQ(f.n, FIT_WINDOW);
    CHECK_EQ(f.seen, 20);
}

/* One call of one shape: the machine is that much slower, every term
 * alike, and that shape's next call is predicted exactly. */
static void one_shape_scales(void)
{
    struct model_fit f;
    fit_init(&f);
    struct model_terms x = shape();
    double t = 7 * fit_seconds(NULL, &x);
    for (int i = 0; i < 3; i++)
        see(&f, &x, t);
    CHECK(relerr(fit_seconds(&f, &x), t) < 0.02);
    for (int k = 0; k < NTERMS; k++)
        if (k != TERM_PIECES)
            CHECK(f.coef[k] > 3 && f.coef[k] < 10);
    /* its first call slower (the buffers' first touch), as a run of
     * mpi.profile left them: the multipliers still move all alike, none
     * to 0 (a term's share of the call decides none of them) */
    struct model_fit g;
    fit_init(&g);
    see(&g, &x, 1.5 * t);
    for (int i = 0; i < 3; i++)
        see(&g, &x, t);
    for (int k = 0; k < NTERMS; k++)
        if (k != TERM_PIECES)
            CHECK(fabs(g.coef[k] / g.coef[TERM_FIXED] - 1) < 0.05);
}

/* Calls as a shared machine times them: each 0.8-1.25x its true time.
 * The fit still finds the machine's costs to well within the noise. */
static void noisy_calls(void)
{
    struct model_fit f;
    fit_init(&f);
    for (int i = 0; i < 40; i++) {
        struct model_terms x = shape();
        see(&f, &x, terms_seconds(&x, machine) * pow(1.25, 2 * uniform() - 1));
    }
    double e = median_error(&f, 41);
    printf("median error after 40 calls with 25%% noise: %.3f\n", e);
    CHECK(e < 0.15); /* well inside the calls' own 25% */
}

/* A rank whose clock runs fast (1.5x) makes every call it is the slowest
 * of look 1.5x longer (the engine takes the slowest rank's time): the fit
 * predicts 1.5x and orders plans as it would have. */
static void skewed_clock_keeps_order(void)
{
    struct model_fit f, skewed;
    fit_init(&f);
    fit_init(&skewed);
    for (int i = 0; i < 12; i++) {
        struct model_terms x = shape();
        see(&f, &x, terms_seconds(&x, machine));
        see(&skewed, &x, 1.5 * terms_seconds(&x, machine));
    }
    int same = 0;
    for (int i = 0; i < 20; i++) {
        struct model_terms a = shape(), b = shape();
        same += (fit_seconds(&f, &a) < fit_seconds(&f, &b)) ==
                (fit_seconds(&skewed, &a) < fit_seconds(&skewed, &b));
        CHECK(relerr(fit_seconds(&skewed, &a), 1.5 * fit_seconds(&f, &a)) < 0.01);
    }
    CHECK_EQ(same, 20);
}

/* Two terms the shapes always vary alike (on one host the exchange and the
 * I/O both follow an aggregator's bytes), timed with noise: neither
 * multiplier falls below FIT_FLOOR (32) of the calls' overall ratio to the
 * built-in model, where the noise alone would tell them apart. */
static void collinear_terms_keep_a_floor(void)
{
    struct model_fit f;
    fit_init(&f);
    for (int i = 0; i < 40; i++) {
        double bytes = 1e-4 * pow(100, uniform());
        struct model_terms x = {.rounds = 1};
        x.v[TERM_SHUFFLE] = bytes, x.v[TERM_IO] = 2 * bytes, x.v[TERM_FIXED] = 1e-5;
        see(&f, &x, terms_seconds(&x, machine) * pow(1.3, 2 * uniform() - 1));
    }
    double overall = 0; /* the calls' ratio is about the machine's on these terms */
    struct model_terms x = {.rounds = 1};
    x.v[TERM_SHUFFLE] = 1e-3, x.v[TERM_IO] = 2e-3, x.v[TERM_FIXED] = 1e-5;
    overall = terms_seconds(&x, machine) / terms_seconds(&x, NULL);
    for (int k = 0; k < NTERMS; k++)
        if (k != TERM_PIECES)
            CHECK(f.coef[k] >= overall / 32 / 1.5);
    CHECK(relerr(fit_seconds(&f, &x), terms_seconds(&x, machine)) < 0.15);
}

/* A slow outlier (the machine busy for one call: 10x) moves the fit by
 * little; every multiplier stays finite and at least 0. */
static void outlier_resisted(void)
{
    struct model_fit f;
    fit_init(&f);
    observe_machine(&f, 12, machine);
    double before = median_error(&f, 41);
    struct model_terms x = shape();
    see(&f, &x, 10 * terms_seconds(&x, machine));
    double after = median_error(&f, 41);
    CHECK(after < 0.05);
    CHECK(after < before + 0.03);
    for (int k = 0; k < NTERMS; k++)
        CHECK(isfinite(f.coef[k]) && f.coef[k] >= 0);
}

/* The file system three times slower from some call on (its cache full):
 * the fit follows within its window (16 calls: by then no call of the
 * old speed is left). */
static void follows_a_change(void)
{
    struct model_fit f;
    fit_init(&f);
    observe_machine(&f, FIT_WINDOW, machine);
    double slower[NTERMS];
    memcpy(slower, machine, sizeof slower);
    slower[TERM_IO] *= 3;
    int calls = 0;
    struct model_terms probe = {.rounds = 1};
    probe.v[TERM_IO] = 1e-3, probe.v[TERM_FIXED] = 1e-5;
    while (calls < FIT_WINDOW &&
           relerr(fit_seconds(&f, &probe), terms_seconds(&probe, slower)) > 0.25) {
        observe_machine(&f, 1, slower);
        calls++;
    }
    printf("an I/O three times slower followed after %d calls\n", calls);
    CHECK(calls >= 1);
    CHECK(calls <= FIT_WINDOW);
}

/* Ranking, what auto reads the model for: two plans the built-in rates
 * order one way and the machine the other (more aggregators: less I/O a
 * rank, more messages). After a few calls the fit orders them as the
 * machine does. */
static void ranks_as_the_machine(void)
{
    struct model_terms few = {.rounds = 1}, many = {.rounds = 1};
    few.v[TERM_IO] = 4e-3, few.v[TERM_SHUFFLE] = 1e-3, few.v[TERM_MESSAGES] = 1e-5;
    many.v[TERM_IO] = 1e-3, many.v[TERM_SHUFFLE] = 2e-3, many.v[TERM_MESSAGES] = 2e-4;
    few.v[TERM_FIXED] = many.v[TERM_FIXED] = 1e-5;
    CHECK(fit_seconds(NULL, &many) < fit_seconds(NULL, &few));
    CHECK(terms_seconds(&many, machine) > terms_seconds(&few, machine));
    struct model_fit f;
    fit_init(&f);
    observe_machine(&f, 6, machine);
    CHECK(fit_seconds(&f, &many) > fit_seconds(&f, &few));
}

/* A fit seeded from an earlier run's multipliers (a wisdom file's
 * profile) predicts with them before any call, and from its first call
 * moves as a fit from the built-in model would; a fit that has seen calls
 * is not seeded, nor is one from multipliers that are not usable. */
static void seeded_from_an_earlier_run(void)
{
    struct model_fit f, g;
    fit_init(&f);
    observe_machine(&f, 20, machine);
    fit_init(&g);
    CHECK(fit_seed(&g, f.coef, 3e-4, f.seen));
    CHECK(g.earlier == 20 && g.choosing == 3e-4 && g.seen == 0);
    double seeded = median_error(&g, 41);
    printf("median error of a seeded fit before its first call: %.3f\n", seeded);
    CHECK(seeded < 0.02);
    CHECK(!fit_seed(&g, machine, 0, 5)); /* seeded already */
    see(&g, &(struct model_terms){.v = {1e-3, 1e-3, 1e-5, 1e-5, 0, 1e-4}, .rounds = 1},
        terms_seconds(&(struct model_terms){.v = {1e-3, 1e-3, 1e-5, 1e-5, 0, 1e-4}, .rounds = 1},
                      machine));
    CHECK(median_error(&g, 41) < 0.05); /* a call that agrees leaves it where it was */
    struct model_fit h;
    fit_init(&h);
    double bad[NTERMS] = {1, 1, NAN, 1, 1, 1}, zero[NTERMS] = {0};
    CHECK(!fit_seed(&h, bad, 0, 1));
    CHECK(!fit_seed(&h, zero, 0, 1));
    bad[2] = -1;
    CHECK(!fit_seed(&h, bad, 0, 1));
    CHECK(h.earlier == 0 && h.coef[0] == 1);
    see(&h, &(struct model_terms){.v = {1e-3}, .rounds = 1}, 2e-3);
    CHECK(!fit_seed(&h, machine, 0, 1)); /* it has seen a call */
}

/* Calls the fit cannot use are not taken; the same call many times and
 * terms that are all 0 but one leave it solvable. */
static void degenerate_calls(void)
{
    struct model_fit f;
    fit_init(&f);
    struct model_terms x = shape(), none = {.rounds = 1};
    see(&f, &x, 0);
    see(&f, &x, -1);
    see(&f, &x, NAN);
    see(&f, &none, 1e-3);
    CHECK_EQ(f.n, 0);
    struct model_terms inf = x; /* a term no plan can have: not taken */
    inf.v[TERM_IO] = INFINITY;
    see(&f, &inf, 1e-3);
    inf.v[TERM_IO] = -1e-3;
    see(&f, &inf, 1e-3);
    CHECK_EQ(f.n, 0);
    struct model_terms only = {.rounds = 1};
    only.v[TERM_FIXED] = 1e-5;
    for (int i = 0; i < 2 * FIT_WINDOW; i++)
        see(&f, &only, 5e-5);
    CHECK_EQ(f.n, FIT_WINDOW);
    CHECK(relerr(fit_seconds(&f, &only), 5e-5) < 0.01);
    for (int k = 0; k < NTERMS; k++)
        CHECK(isfinite(f.coef[k]) && f.coef[k] >= 0);
    CHECK(!strcmp(fit_term_name(TERM_IO), "io"));
}

int main(void)
{
    void (*const tests[])(void) = {
        unfitted_is_builtin,      learns_the_machine,           one_shape_scales, noisy_calls,
        skewed_clock_keeps_order, collinear_terms_keep_a_floor, outlier_resisted, follows_a_change,
        ranks_as_the_machine,     seeded_from_an_earlier_run,   degenerate_calls};
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        reseed(); /* each its own calls */
        tests[i]();
    }
    return check_report("test_fit");
}
