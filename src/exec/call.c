#include "call.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int64_t call_readable(struct call *c)
{
    struct stat st;
    if (c->readable < 0)
        c->readable =
            access_bytes_below(&c->a, fstat(c->f->fd, &st) == 0 ? (int64_t)st.st_size : INT64_MAX);
    return c->readable;
}

/* The stats table (tacio.h) as rows: the JSON line and the reductions walk it. */
struct stat_row {
    const char *key;
    size_t off;
    bool is_double;
    enum tacio_stat_scope scope;
};

#define STAT_ROW(type, field, key, scope)                                                          \
    {key, offsetof(struct tacio_stats, field),                                                     \
     _Generic(((struct tacio_stats *)0)->field, double                                             \
              : true, default                                                                      \
              : false),                                                                            \
     scope},
static const struct stat_row rows[] = {TACIO_STATS_FIELDS(STAT_ROW)};
#undef STAT_ROW
#define NROWS (sizeof rows / sizeof *rows)

static int64_t *row_i64(struct tacio_stats *s, const struct stat_row *r)
{
    return (int64_t *)((char *)s + r->off);
}

/* What the call counts that the stats report as maxima over ranks. */
static void peaks_to_stats(const struct call *c, struct tacio_stats *s)
{
    s->meta_bytes = c->use.meta_peak;
    s->peak_buffer_bytes = c->use.staged_peak;
    s->node_aggregated = c->use.node_aggregated;
    if (c->use.agreed) {
        s->call_us = c->use.call_us;
        s->move_us = c->use.move_us;
        return;
    }
    s->call_us = (int64_t)((backend_clock() - c->t0) * 1e6);
    /* what a call of it on a kept schedule pays; one that gathered the
     * hosts first on auto's choice is planned every call, and pays all but
     * the choosing */
    double skipped = c->planning.on_nodes ? c->choosing_pass : c->t[ST_PLAN] + c->route_setup;
    s->move_us = s->call_us - (int64_t)(skipped * 1e6);
    s->move_us = s->move_us > 0 ? s->move_us : 0;
}

/* The max-scope rows, in table order, found once: every call agrees on
 * them, and walking the whole table twice a call cost a small call's
 * engine an eighth of its instructions (callgrind, bench/io/latency.c). */
static const struct stat_row *peak_row[NPEAKS];
static pthread_once_t peak_once = PTHREAD_ONCE_INIT;

static void peak_rows_find(void)
{
    int k = 0;
    for (size_t i = 0; i < NROWS && k < NPEAKS; i++)
        if (rows[i].scope == TACIO_STAT_MAX)
            peak_row[k++] = &rows[i];
}

void peaks_get(const struct call *c, int64_t v[NPEAKS])
{
    struct tacio_stats s FILLED_BEFORE_READ; /* its peaks, which alone are read */
    peaks_to_stats(c, &s);
    pthread_once(&peak_once, peak_rows_find);
    for (int k = 0; k < NPEAKS; k++)
        v[k] = *row_i64(&s, peak_row[k]);
}

void peaks_set(struct call *c, const int64_t v[NPEAKS])
{
    struct tacio_stats s FILLED_BEFORE_READ; /* its peaks, which alone are read */
    pthread_once(&peak_once, peak_rows_find);
    for (int k = 0; k < NPEAKS; k++)
        *row_i64(&s, peak_row[k]) = v[k];
    c->use.meta_peak = s.meta_bytes;
    c->use.staged_peak = s.peak_buffer_bytes;
    c->use.node_aggregated = s.node_aggregated;
    c->use.call_us = s.call_us;
    c->use.move_us = s.move_us;
}

int call_agree_last(struct call *c, int local)
{
    if (c->before_last_agreement)
        c->before_last_agreement(c);
    int64_t v[NPEAKS + NKEPT] FILLED_BEFORE_READ;
    peaks_get(c, v);
    memcpy(v + NPEAKS, c->kept_check, sizeof c->kept_check);
    int rc = agree_max(c->f->comm, local, v, NPEAKS + (c->check_deferred ? NKEPT : 0));
    peaks_set(c, v);
    memcpy(c->kept_check, v + NPEAKS, sizeof c->kept_check);
    c->use.agreed = true;
    return rc;
}

/* The plan's figures, or the independent call's. */
static void plan_stats(const struct sched *s, struct tacio_stats *st)
{
    st->independent = s->independent;
    st->bytes = s->indep_bytes;
    if (!s->plan)
        return;
    const struct metrics *m = &s->plan->m;
    st->bytes = m->total_bytes;
    st->shuffle_bytes = m->shuffle_bytes;
    st->offnode_bytes = m->offnode_bytes;
    st->hop_bytes = m->hop_bytes;
    st->max_link_load = m->max_link_load;
    st->naggs = m->naggs;
    st->buffer_bytes = m->max_agg_mem;
    st->rounds = s->rounds;
    st->steps = s->nsteps;
    st->pipelined = s->pipelined;
    const struct tacio_plan *p = s->plan;
    /* auto's choice, or the strategy's own plan */
    snprintf(st->planned, sizeof st->planned, "%s", p->choice[0] ? p->choice : p->strategy);
    st->predicted_us = (int64_t)(p->m.model_seconds * 1e6 + 0.5);
    st->model_shuffle_us = (int64_t)(p->m.model_shuffle * 1e6 + 0.5);
    st->model_io_us = (int64_t)(p->m.model_io * 1e6 + 0.5);
}

static void stats_json(const struct tacio_stats *s, int nprocs, FILE *out)
{
    fprintf(out, "{\"op\":\"%s\",\"strategy\":\"%s\",\"planned\":\"%s\",\"procs\":%d", s->op,
            s->strategy, s->planned, nprocs);
    for (size_t i = 0; i < NROWS; i++) {
        const void *v = (const char *)s + rows[i].off;
        if (rows[i].is_double)
            fprintf(out, ",\"%s\":%.6f", rows[i].key, *(const double *)v);
        else
            fprintf(out, ",\"%s\":%lld", rows[i].key, (long long)*(const int64_t *)v);
    }
    fprintf(out, "}\n");
}

void stats_record(struct call *c)
{
    static const char *const ops[2][2] = {{"read_all", "read_at_all"},
                                          {"write_all", "write_at_all"}};
    struct tacio_stats *s = &c->f->last;
    memset(s, 0, sizeof *s);
    s->size = sizeof *s;
    strcpy(s->op, ops[c->is_write][c->at]);
    memcpy(s->strategy, c->f->hints.core.strategy, sizeof s->strategy);
    s->st1_access = c->t[ST_ACCESS];
    s->st2_plan = c->t[ST_PLAN];
    s->st3_route = c->t[ST_ROUTE];
    s->st4_shuffle = c->t[ST_SHUFFLE];
    s->st5_io = c->t[ST_IO];
    s->total = backend_clock() - c->t0;
    s->unaccounted =
        s->total - (s->st1_access + s->st2_plan + s->st3_route + s->st4_shuffle + s->st5_io);
    s->unaccounted = s->unaccounted > 0 ? s->unaccounted : 0;
    s->view = c->f->view_seconds;
    c->f->view_seconds = 0;
    if (c->s)
        plan_stats(c->s, s);
    if (c->s && !c->reused) /* what ran early on a kept schedule, this call's only */
        s->bytes += c->s->early_bytes;
    s->reused = c->reused;
    s->trial = c->planning.trial;
    s->learned = c->planning.learned;
    peaks_to_stats(c, s);
    const char *path = c->f->stats_path;
    FILE *out = path && c->f->rank == 0 ? fopen(path, "a") : NULL;
    if (out) {
        stats_json(s, c->f->nprocs, out);
        fclose(out);
    }
}
