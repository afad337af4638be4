#include "sched.h"

#include <string.h>

void sched_init(struct sched *s)
{
    *s = (struct sched){.my_fd = -1, .align = 1, .nsteps = 1};
}

struct sched *sched_new(void)
{
    struct sched *s = malloc(sizeof *s);
    if (s)
        sched_init(s);
    return s;
}

static void links_free(struct link *l, int n)
{
    for (int k = 0; k < n; k++)
        free(l[k].np), free(l[k].bytes), free(l[k].hdr), free(l[k].hdr_at);
    free(l);
}

void sched_clear(struct sched *s)
{
    flat_release(s->ft_owner);
    tacio_plan_free(s->plan);
    free(s->nsenders);
    free(s->senders);
    links_free(s->out, s->nout);
    links_free(s->in, s->nin);
    if (s->rounds_state)
        s->rounds_state_free(s->rounds_state);
    sched_init(s);
}

void sched_free(struct sched *s)
{
    if (s) {
        sched_clear(s);
        free(s);
    }
}

bool sched_same_shape(const struct sched *s, const struct flat *ft, int64_t n, int64_t phase,
                      uint64_t hints)
{
    if (s->hints != hints || s->n != n)
        return false;
    return n == 0 || (s->phase == phase && flat_equal(&s->shape, ft));
}

int sched_set_shape(struct sched *s, struct flat *owner, const struct flat *ft, int64_t n,
                    int64_t phase, int64_t base, uint64_t hints)
{
    s->n = n;
    s->phase = phase;
    s->base = base;
    s->hints = hints;
    if (!n)
        return 0;
    if (!flat_shares_arrays(ft, owner)) /* the shape would point into arrays nobody holds */
        return tacio_fail(TACIO_EINVAL, "internal: an access's filetype is not its view's");
    flat_hold(s->ft_owner = owner); /* immutable: the view may go, the arrays stay */
    s->shape = *ft;
    s->shape.refs = 0; /* a value: ft_owner is what is held */
    return 0;
}

void sched_shift(struct sched *s, int64_t delta)
{
    s->base += delta;
    s->shift += delta;
    for (int j = 0; s->plan && j < s->plan->part.n; j++) {
        s->plan->part.dom[j].start += delta;
        s->plan->part.dom[j].end += delta;
    }
}

/* Stripes dealt to FDs (lustre, tsujita) change hands unless the shift is
 * whole cycles of them; striped FDs' windows follow stripe boundaries; and
 * ROMIO's FDs keep their stripe alignment only under whole stripes. */
int64_t sched_align(const struct tacio_plan *plan, int64_t striping_unit)
{
    const struct partition *p = &plan->part;
    if (p->striped)
        return p->unit * p->n;
    for (int j = 0; j < p->n; j++)
        if (p->dom[j].unit)
            return p->dom[j].stride;
    return striping_unit > 0 ? striping_unit : 1;
}

bool link_keeps_headers(const struct link *l)
{
    int64_t pieces = 0;
    for (int64_t r = 0; r < l->nr; r++)
        pieces += l->np[r];
    return pieces <= HDR_CACHE_PIECES;
}

int link_keep_header(struct link *l, int64_t r, const int64_t *hdr, int64_t shift)
{
    if (!l->hdr) {
        int64_t pieces = 0;
        l->hdr_at = malloc(sizeof(int64_t) * (size_t)(l->nr + 1));
        for (int64_t q = 0; l->hdr_at && q < l->nr; q++)
            l->hdr_at[q] = pieces, pieces += l->np[q];
        l->hdr = malloc(sizeof(int64_t) * 2 * (size_t)(pieces + 1));
        if (!l->hdr || !l->hdr_at) {
            free(l->hdr), free(l->hdr_at);
            l->hdr = l->hdr_at = NULL;
            return tacio_fail(TACIO_ENOMEM, "out of memory keeping a round's pieces");
        }
    }
    int64_t *at = l->hdr + 2 * l->hdr_at[r - l->r0];
    for (int64_t q = 0; q < l->np[r - l->r0]; q++) {
        at[2 * q] = hdr[2 * q] - shift;
        at[2 * q + 1] = hdr[2 * q + 1];
    }
    return 0;
}

/* The FD's round window (fdom_round_window: its memory, halved when
 * rounds are pipelined). */
int64_t sched_window_size(const struct sched *s, int j)
{
    return fdom_round_window(&s->plan->part.dom[j], s->cb, s->pipelined);
}

int64_t sched_dom_rounds(const struct sched *s, int j)
{
    return fdom_rounds(&s->plan->part.dom[j], s->cb, s->pipelined);
}

void sched_round_window(const struct sched *s, int j, int64_t r, struct fdom_ranges *w)
{
    int64_t size = sched_window_size(s, j);
    fdom_window(&s->plan->part.dom[j], r * size, (r + 1) * size, w);
}
