/* auto's cost model fitted on the calls (fit.h says what and why). */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The built-in model's multipliers: every rate as the hints give it; no
 * cost a piece (the model it replaces priced none). */
static const double prior[NTERMS] = {1, 1, 1, 1, 1, 0};

/* How many calls' weight the pull towards the calls' median ratio has.
 * It decides only what no call tells apart (any weight above 0 holds a
 * term the calls do not have at the median ratio); everywhere else it
 * biases the fit towards that ratio: at 1 call's weight a machine whose
 * terms were 1.3x to 20x the built-in rates was still off by 2x on its
 * I/O after 40 exact calls (tests/unit/test_fit.c), at 0.05 by 1%. */
#define FIT_PRIOR_WEIGHT 0.05
/* Reweighting passes: each takes the branch of the overlap (terms_seconds)
 * and the calls' weights from the last. */
#define FIT_PASSES 8
/* The least residual scale the weights take: calls within 10% of the fit
 * all count (a fit that matches every call closely must not make a 15%
 * call an outlier). */
#define FIT_SPREAD_MIN 0.1
/* How far below the calls' overall ratio to the built-in model one term's
 * multiplier may go (floors): the widest spread between two terms measured
 * here was 30x (MPICH 4.0.2 at 4 ranks: the exchange 13-37 times the
 * built-in rates, the I/O 1.1-1.9, docs/evaluation.md). */
#define FIT_FLOOR 32.0

static const char *const names[NTERMS] = {"shuffle", "io", "messages", "fixed", "gather", "pieces"};

const char *fit_term_name(enum model_term k)
{
    return k >= 0 && k < NTERMS ? names[k] : "?";
}

void fit_init(struct model_fit *f)
{
    memset(f, 0, sizeof *f);
    memcpy(f->coef, prior, sizeof f->coef);
    memcpy(f->base, prior, sizeof f->base);
}

bool fit_seed(struct model_fit *f, const double *coef, double choosing, int64_t calls)
{
    if (f->seen || f->earlier)
        return false;
    double any = 0;
    for (int k = 0; k < NTERMS; k++) {
        if (!isfinite(coef[k]) || coef[k] < 0)
            return false;
        any += coef[k];
    }
    if (!(any > 0))
        return false;
    memcpy(f->coef, coef, sizeof f->coef);
    memcpy(f->base, coef, sizeof f->base);
    f->earlier = calls > 0 ? calls : 1;
    fit_choosing(f, choosing);
    return true;
}

/* The terms as the multipliers coef weigh them: the model is linear in
 * them but for the overlap of rounds, which counts the longer of the
 * exchange and the I/O whole and the shorter once a round (model.c). */
static void weighed(const struct model_terms *x, const double *coef, double e[NTERMS])
{
    memcpy(e, x->v, sizeof x->v);
    if (x->rounds <= 1)
        return;
    if (coef[TERM_SHUFFLE] * x->v[TERM_SHUFFLE] >= coef[TERM_IO] * x->v[TERM_IO])
        e[TERM_IO] /= x->rounds;
    else
        e[TERM_SHUFFLE] /= x->rounds;
}

double terms_seconds(const struct model_terms *x, const double *coef)
{
    coef = coef ? coef : prior;
    double e[NTERMS], s = 0;
    weighed(x, coef, e);
    for (int k = 0; k < NTERMS; k++)
        s += coef[k] * e[k];
    return s;
}

double fit_seconds(const struct model_fit *f, const struct model_terms *x)
{
    return terms_seconds(x, f ? f->coef : NULL);
}

double fit_term(const struct model_fit *f, const struct model_terms *x, enum model_term k)
{
    return (f ? f->coef : prior)[k] * x->v[k];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The calls' median of their seconds over the base model's (the built-in
 * one, or an earlier run's fit): how much slower this machine is than it
 * says, all terms alike. */
static double median_ratio(const struct model_fit *f)
{
    double r[FIT_WINDOW];
    for (int i = 0; i < f->n; i++) {
        double base = terms_seconds(&f->calls[i].x, f->base);
        /* a call only of terms the base prices at 0: the built-in model's */
        base = base > 0 ? base : terms_seconds(&f->calls[i].x, prior);
        r[i] = f->calls[i].seconds / base;
    }
    return median_of(r, f->n);
}

/* Each call's weight (Cauchy) from its relative residual under coef. */
static void weights(const struct model_fit *f, const double *coef, double *w)
{
    double r[FIT_WINDOW], a[FIT_WINDOW];
    for (int i = 0; i < f->n; i++) {
        r[i] = terms_seconds(&f->calls[i].x, coef) / f->calls[i].seconds - 1;
        a[i] = fabs(r[i]);
    }
    double scale = 2 * median_of(a, f->n);
    scale = scale > FIT_SPREAD_MIN ? scale : FIT_SPREAD_MIN;
    for (int i = 0; i < f->n; i++)
        w[i] = 1 / (1 + (r[i] / scale) * (r[i] / scale));
}

/* The normal equations of the weighted relative errors, each term pulled
 * towards its target by FIT_PRIOR_WEIGHT calls' worth. The pull on term j
 * is its mean share of the calls over its target (where the target is 0,
 * over the calls' median ratio to the built-in model, builtin): where the calls do not tell the
 * terms apart (one shape seen), the multipliers then move in proportion to their targets, all
 * alike, and a term with a small share does not swing. (Pulling each by
 * its squared share instead moved every term's contribution by the same
 * amount: one shape's four calls, the first slower, left the exchange's
 * multiplier at 0 and the others at 22.) */
static void normal_equations(const struct model_fit *f, const double *coef, const double *w,
                             const double *target, double builtin, double A[NTERMS][NTERMS],
                             double b[NTERMS])
{
    memset(A, 0, sizeof(double) * NTERMS * NTERMS);
    memset(b, 0, sizeof(double) * NTERMS);
    double share[NTERMS] = {0}, total = 0;
    for (int i = 0; i < f->n; i++) {
        double e[NTERMS];
        weighed(&f->calls[i].x, coef, e);
        for (int j = 0; j < NTERMS; j++)
            e[j] /= f->calls[i].seconds;
        for (int j = 0; j < NTERMS; j++) {
            b[j] += w[i] * e[j];
            share[j] += w[i] * e[j];
            for (int k = 0; k < NTERMS; k++)
                A[j][k] += w[i] * e[j] * e[k];
        }
        total += w[i];
    }
    for (int j = 0; j < NTERMS; j++) {
        /* a term no call has (no gathering) stays at its target */
        double mean = share[j] / total > 1e-12 ? share[j] / total : 1e-12;
        double pull = FIT_PRIOR_WEIGHT * mean / (target[j] > 0 ? target[j] : builtin);
        A[j][j] += pull;
        b[j] += pull * target[j];
    }
}

/* Solves A c = b over the free terms (the others held at 0), by Gaussian
 * elimination with partial pivoting; false where it is singular. */
static bool solve_free(double A[NTERMS][NTERMS], const double b[NTERMS], const bool *is_free,
                       double c[NTERMS])
{
    int idx[NTERMS], n = 0;
    for (int j = 0; j < NTERMS; j++)
        if (is_free[j])
            idx[n++] = j;
    double M[NTERMS][NTERMS + 1];
    for (int r = 0; r < n; r++) {
        for (int k = 0; k < n; k++)
            M[r][k] = A[idx[r]][idx[k]];
        M[r][n] = b[idx[r]];
    }
    for (int p = 0; p < n; p++) {
        int best = p;
        for (int r = p + 1; r < n; r++)
            if (fabs(M[r][p]) > fabs(M[best][p]))
                best = r;
        if (!(fabs(M[best][p]) > 0))
            return false;
        for (int k = 0; k <= n; k++) {
            double t = M[p][k];
            M[p][k] = M[best][k], M[best][k] = t;
        }
        for (int r = p + 1; r < n; r++) {
            double q = M[r][p] / M[p][p];
            for (int k = p; k <= n; k++)
                M[r][k] -= q * M[p][k];
        }
    }
    double x[NTERMS];
    for (int r = n - 1; r >= 0; r--) {
        double s = M[r][n];
        for (int k = r + 1; k < n; k++)
            s -= M[r][k] * x[k];
        x[r] = s / M[r][r];
    }
    memset(c, 0, sizeof(double) * NTERMS);
    for (int r = 0; r < n; r++)
        c[idx[r]] = x[r];
    return true;
}

/* Whether every multiplier is a finite number. */
static bool finite_all(const double *c)
{
    for (int j = 0; j < NTERMS; j++)
        if (!isfinite(c[j]))
            return false;
    return true;
}

/* The least squares with every multiplier at least its floor (least), by
 * active sets: a term that comes out below its floor is held there (its
 * part moved to the right-hand side) and the others solved again; a held
 * term whose gradient says the fit would gain by raising it is let go
 * again. With six terms it ends within a few rounds; false where it does
 * not, or a system is singular. */
static bool solve_bounded(double A[NTERMS][NTERMS], const double b[NTERMS], const double *least,
                          double c[NTERMS])
{
    bool is_free[NTERMS];
    double rhs[NTERMS];
    for (int j = 0; j < NTERMS; j++)
        is_free[j] = true;
    for (int round = 0; round < 4 * NTERMS; round++) {
        for (int i = 0; i < NTERMS; i++) {
            rhs[i] = b[i];
            for (int j = 0; j < NTERMS; j++)
                rhs[i] -= is_free[j] ? 0 : A[i][j] * least[j];
        }
        if (!solve_free(A, rhs, is_free, c))
            return false;
        int worst = -1;
        for (int j = 0; j < NTERMS; j++) {
            c[j] = is_free[j] ? c[j] : least[j];
            if (is_free[j] && c[j] < least[j] &&
                (worst < 0 || c[j] - least[j] < c[worst] - least[worst]))
                worst = j;
        }
        if (worst >= 0) {
            is_free[worst] = false;
            continue;
        }
        int release = -1; /* the held term the objective falls fastest along */
        double most = 0;
        for (int j = 0; j < NTERMS; j++) {
            double g = -b[j];
            for (int k = 0; k < NTERMS; k++)
                g += A[j][k] * c[k];
            if (!is_free[j] && g < most)
                most = g, release = j;
        }
        if (release < 0)
            return finite_all(c);
        is_free[release] = true;
    }
    return false;
}

/* The least each multiplier may be: FIT_FLOOR of the calls' median ratio
 * to the built-in model for every term it prices, 0 for the pieces (it
 * prices none). Terms the shapes seen vary alike (on one host the exchange
 * and the I/O both follow the bytes an aggregator takes) are told apart by
 * noise alone, and without a floor one of them went to 0 (a profile of
 * Open MPI 4.1.4's reads at 4 ranks: exchange, messages and fixed part 0,
 * the I/O 5.95): a model that prices no exchange rates every plan by its
 * I/O alone, on any machine the profile is carried to. Returns that
 * median ratio. */
static double floors(const struct model_fit *f, double least[NTERMS])
{
    double r[FIT_WINDOW];
    for (int i = 0; i < f->n; i++)
        r[i] = f->calls[i].seconds / terms_seconds(&f->calls[i].x, prior);
    double builtin = median_of(r, f->n);
    for (int j = 0; j < NTERMS; j++)
        least[j] = prior[j] > 0 ? builtin / FIT_FLOOR : 0;
    return builtin;
}

static void refit(struct model_fit *f)
{
    double ratio = median_ratio(f), target[NTERMS], coef[NTERMS], least[NTERMS];
    double builtin = floors(f, least);
    for (int j = 0; j < NTERMS; j++) {
        target[j] = ratio * f->base[j];
        target[j] = coef[j] = target[j] > least[j] ? target[j] : least[j];
    }
    for (int pass = 0; pass < FIT_PASSES; pass++) {
        double w[FIT_WINDOW], A[NTERMS][NTERMS], b[NTERMS], next[NTERMS];
        weights(f, coef, w);
        normal_equations(f, coef, w, target, builtin, A, b);
        if (!solve_bounded(A, b, least, next))
            break; /* keep the last pass's (the median ratio's at worst) */
        memcpy(coef, next, sizeof coef);
    }
    memcpy(f->coef, coef, sizeof coef);
}

void fit_observe(struct model_fit *f, const struct model_terms *x, double seconds)
{
    bool usable = seconds > 0 && isfinite(seconds) && isfinite(x->rounds) && x->rounds >= 0;
    for (int k = 0; usable && k < NTERMS; k++)
        usable = isfinite(x->v[k]) && x->v[k] >= 0;
    if (!usable || !(terms_seconds(x, prior) > 0))
        return;
    f->calls[f->next] = (struct fit_call){*x, seconds};
    f->next = (f->next + 1) % FIT_WINDOW;
    f->n += f->n < FIT_WINDOW;
    f->seen++;
    f->stale = true;
}

const struct model_fit *fit_current(struct model_fit *f)
{
    if (f && f->stale) {
        refit(f);
        f->stale = false;
    }
    return f;
}

void fit_choosing(struct model_fit *f, double seconds)
{
    if (seconds > 0 && isfinite(seconds))
        f->choosing = seconds;
}
