#include "cplan.h"
#include "cplan_wire.h"

#include "learned.h"
#include "nodeagg.h"
#include "profile.h"

#include <string.h>

/* Rank 0, auto with a wisdom file: the call's key (kept for the trials),
 * and what the file remembers for it (NULL: nothing). The key's hints
 * leave out those that name or bound the learning. */
static const struct wisdom_entry *remembered(struct call *c, const int64_t *all, int words)
{
    const struct tacio_file *f = c->f;
    c->planning.keyed = f->learned.path && !strcmp(f->hints.core.strategy, "auto");
    if (!c->planning.keyed || c->planning.on_nodes)
        return NULL;
    struct exec_hints h = f->hints;
    h.wisdom[0] = '\0';
    h.auto_trials = 0;
    learned_key(&f->learned, c->is_write, summary_signature(all, words, f->nprocs),
                hints_digest(&h), &c->planning.key);
    return learned_find(&f->learned, &c->planning.key);
}

/* Whether the call runs the settled choice e remembers. */
static bool runs_settled(const struct wisdom_entry *e, const char *choice)
{
    return wisdom_settled(e) && !strcmp(choice, e->choice);
}

/* The path auto's trial or remembered choice e takes (call_planning.path):
 * the model's candidates are collective plans, the independent trial and
 * choice independent I/O, the default and the model's first call follow
 * the hints' rule. Only for auto, and where the hints leave it automatic. */
static enum call_path path_of(const struct call *c, const struct wisdom_entry *e)
{
    int mode = c->is_write ? c->f->hints.cb_write : c->f->hints.cb_read, t = c->planning.trial;
    if (mode != OPT_AUTOMATIC || strcmp(c->f->hints.core.strategy, "auto") || c->planning.on_nodes)
        return PATH_RULE;
    if (t == AUTO_TRIAL_INDEPENDENT)
        return PATH_INDEPENDENT;
    if (t >= 2)
        return PATH_COLLECTIVE;
    if (t == 1 || !e)
        return PATH_RULE;
    if (e->left) /* the default first (its rule), then the model's candidates */
        return wisdom_tried(e, "default") >= 0 ? PATH_COLLECTIVE : PATH_RULE;
    return !strcmp(e->choice, "independent") ? PATH_INDEPENDENT
           : !strcmp(e->choice, "default")   ? PATH_RULE
                                             : PATH_COLLECTIVE;
}

/* An independent call's choice, as the trials and the wisdom file name it. */
static void independent_choice(struct call *c, const struct wisdom_entry *e)
{
    const char *choice = c->planning.path == PATH_INDEPENDENT ? "independent" : "default";
    snprintf(c->planning.choice, sizeof c->planning.choice, "%s", choice);
    c->planning.learned = runs_settled(e, choice);
}

/* Rank 0: the model's pick, planned for its trial, rated far behind the
 * default's timed independent call (trials_pick_dominated): the call
 * takes the default's path instead, where the hints' rule still sends the
 * shape to independent I/O, and the trials settle on the default. */
static int default_for_dominated_pick(struct call *c, int64_t *all, int words,
                                      const struct wisdom_entry *e)
{
    struct sched *s = c->s;
    if (!s->plan || c->planning.on_nodes || c->planning.trial != 2 ||
        !trials_pick_dominated(&c->ks->trials, s->plan->m.model_seconds))
        return 0;
    enum call_path path = c->planning.path;
    c->planning.path = PATH_RULE;
    int rc = decide_independent(c, all, words);
    if (rc || !s->independent) { /* the rule changed its mind: the pick runs */
        c->planning.path = path;
        return rc;
    }
    tacio_plan_free(s->plan);
    s->plan = NULL;
    c->planning.pick_dominated = true;
    independent_choice(c, e);
    return 0;
}

static int plan_on_root(struct call *c, int64_t *all, int words)
{
    struct tacio_file *f = c->f;
    int rc = c->planning.rc ? c->planning.rc : check_summaries(c, all, words);
    if (!c->planning.on_nodes) /* a second pass's leaders moved nothing early of their own */
        sum_early_bytes(c, all, words);
    const struct wisdom_entry *recalled = remembered(c, all, words);
    c->planning.path = path_of(c, recalled);
    if (!rc)
        rc = decide_independent(c, all, words);
    if (!rc && c->s->independent)
        independent_choice(c, recalled);
    if (rc || c->s->independent)
        return note_failure(c, rc);
    struct tacio_pattern *pat = NULL;
    rc = note_failure(c, summary_pattern(c, all, words, &pat));
    if (!rc)
        rc = note_failure(c, ask_distribution(c, &pat, recalled, all, words));
    bool may_aggregate_nodes = !c->planning.on_nodes && nodeagg_left_to_plan(f);
    struct model_fit fit; /* the plan's copy of the machine's (profile_snapshot) */
    struct plan_ctx ctx = {.pat = pat,
                           .topo = f->topo,
                           .h = &f->hints.core,
                           .cmatrix_of = rows_from_ranks,
                           .cmatrix_arg = c,
                           .threads = 1,
                           .may_aggregate_nodes = may_aggregate_nodes,
                           .trial = c->planning.trial,
                           .nodes_choice = call_nodes_choice(c),
                           .fit = profile_snapshot(call_fit(c), &fit)};
    summary_pieces(all, words, f->nprocs, &ctx.max_pieces, &ctx.total_pieces);
    if (!rc)
        pattern_range(pat, &ctx.lo, &ctx.hi);
    ctx.recalled = recalled;
    double planning = backend_clock();
    if (!rc && ctx.lo < ctx.hi)
        rc = plan_run(&ctx, strategy_find(f->hints.core.strategy), &c->s->plan);
    /* what auto's choosing cost, on the engine's clock (the simulated one
     * under SMPI, where computing is free and only its messages count):
     * the planner's, the same for reads and writes */
    double choosing = backend_clock() - planning;
    if (!rc && c->s->plan && c->s->plan->ranked && f->fit) {
        profile_lock();
        fit_choosing(&f->fit[0], choosing);
        fit_choosing(&f->fit[1], choosing);
        profile_unlock();
    }
    if (!rc)
        rc = note_failure(c, default_for_dominated_pick(c, all, words, recalled));
    struct tacio_plan *plan = c->s->plan;
    if (!rc && plan && !c->planning.on_nodes) {
        memcpy(c->planning.choice, plan->choice, sizeof c->planning.choice);
        c->planning.learned = runs_settled(recalled, plan->choice);
        c->planning.last_candidate = plan->last_candidate;
        c->planning.model_pick = plan->model_pick;
        c->planning.pick_is_default = plan->pick_is_default;
        c->planning.default_us = (int64_t)(plan->default_seconds * 1e6);
    }
    if (!rc && plan && plan->node_aggregated) { /* planned again once the hosts gathered */
        tacio_plan_free(plan);
        plan = c->s->plan = NULL;
        c->planning.aggregate_nodes = true;
    }
    if (!rc && plan) {
        c->s->nsenders = malloc(sizeof(int) * (size_t)(plan->part.n + 1));
        rc = c->s->nsenders ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
        for (int j = 0; !rc && j < plan->part.n; j++)
            c->s->nsenders[j] = (int)(plan->cmat.col_ptr[j + 1] - plan->cmat.col_ptr[j]);
    }
    tacio_pattern_free(pat);
    return note_failure(c, rc);
}

static void head_of(const struct tacio_plan *p, struct plan_head *h)
{
    h->ordered = p->order_rule != ORDER_RANKS;
    h->mem_shortfall = p->mem_shortfall;
    h->lap_cost = p->lap_cost;
    h->m = p->m;
    memcpy(h->strategy, p->strategy, sizeof h->strategy);
    memcpy(h->detail, p->detail, sizeof h->detail);
    memcpy(h->choice, p->choice, sizeof h->choice);
}

/* A rank other than 0: the plan from rank 0's CMD_DONE. */
static int plan_from_head(struct call *c, const struct order *o)
{
    const struct plan_head *h = &o->head;
    struct tacio_plan *p = xcalloc(1, sizeof *p);
    if (!p)
        return tacio_fail(TACIO_ENOMEM, "out of memory");
    c->s->plan = p;
    p->nprocs = c->f->nprocs;
    p->m = h->m;
    p->lap_cost = h->lap_cost;
    p->mem_shortfall = h->mem_shortfall;
    memcpy(p->strategy, h->strategy, sizeof p->strategy);
    memcpy(p->detail, h->detail, sizeof p->detail);
    memcpy(p->choice, h->choice, sizeof p->choice);
    int rc = partition_alloc(&p->part, (int)o->n);
    p->part.striped = o->striped;
    p->part.unit = o->unit;
    p->agg = malloc(sizeof(int) * (size_t)(o->n + 1));
    c->s->nsenders = malloc(sizeof(int) * (size_t)(o->n + 1));
    return rc ? rc : p->agg && c->s->nsenders ? 0 : tacio_fail(TACIO_ENOMEM, "out of memory");
}

static int outcome_cmd(const struct call *c, int rc)
{
    if (rc)
        return CMD_FAILED;
    if (c->s->independent)
        return CMD_INDEPENDENT;
    if (c->s->plan)
        return CMD_DONE;
    return c->planning.aggregate_nodes ? CMD_AGGREGATE_NODES : CMD_NO_PLAN;
}

/* Rank 0: the outcome, to everybody; returns its command. */
static int send_outcome(struct call *c, int rc)
{
    struct order o;
    struct sched *s = c->s;
    memset(&o, 0, sizeof o); /* padding travels too */
    o.cmd = outcome_cmd(c, rc);
    o.learned = c->planning.learned;
    o.last_candidate = c->planning.last_candidate;
    o.model_pick = c->planning.model_pick;
    o.pick_is_default = c->planning.pick_is_default;
    o.default_us = c->planning.default_us;
    o.pick_dominated = c->planning.pick_dominated;
    o.early = s->early_bytes;
    if (o.cmd == CMD_INDEPENDENT)
        o.n = s->indep_bytes, o.striped = s->sieve;
    if (o.cmd == CMD_DONE) {
        o.n = s->plan->part.n;
        o.striped = s->plan->part.striped;
        o.unit = s->plan->part.unit;
        head_of(s->plan, &o.head);
        s->ordered = o.head.ordered;
    }
    order_bcast(c, &o, s->plan ? &s->plan->part : NULL, PLAN_WORDS);
    if (o.cmd == CMD_DONE)
        chunks_bcast(c, &o, &s->plan->part, PLAN_WORDS);
    return (int)o.cmd;
}

/* The others: rank 0's outcome. */
static int take_outcome(struct call *c, struct order *o)
{
    struct sched *s = c->s;
    c->planning.learned |= o->learned != 0; /* not undone by the nodes' second plan */
    c->planning.last_candidate |= o->last_candidate != 0;
    c->planning.model_pick |= o->model_pick != 0;
    c->planning.pick_is_default |= o->pick_is_default != 0;
    c->planning.pick_dominated |= o->pick_dominated != 0;
    if (o->default_us)
        c->planning.default_us = o->default_us;
    s->early_bytes = o->early;
    if (o->cmd == CMD_INDEPENDENT)
        s->indep_bytes = o->n, s->sieve = o->striped;
    if (o->cmd != CMD_DONE)
        return (int)o->cmd;
    int rc = note_failure(c, plan_from_head(c, o));
    s->ordered = o->head.ordered;
    chunks_bcast(c, o, rc ? NULL : &s->plan->part, PLAN_WORDS);
    if (rc) { /* no plan to run on: the links' agreement fails the call */
        tacio_plan_free(s->plan);
        s->plan = NULL;
    }
    meta_add(c, 8 * PLAN_WORDS * o->n + (int64_t)sizeof *o);
    return CMD_DONE;
}

/* Each aggregator learns its FD (my_fd) and which ranks feed it: its column
 * of C, which only rank 0 holds. One scatter; O(nnz(C)) in all. */
static void scatter_senders(struct call *c)
{
    struct sched *s = c->s;
    int p = c->f->nprocs, mine = 0, *counts = NULL, *displs = NULL, *rows = NULL;
    for (int j = 0; s->plan && j < s->plan->part.n; j++)
        if (s->plan->agg[j] == c->f->rank)
            s->my_fd = j, mine = s->nsenders[j];
    s->senders = malloc(sizeof(int) * (size_t)(mine + 1));
    if (!s->senders) /* the links then agree on failing before anyone sends */
        mine = 0, note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    if (c->f->rank == 0) {
        const struct cmatrix *C = &s->plan->cmat;
        counts = xcalloc((size_t)p, sizeof(int));
        displs = xcalloc((size_t)p, sizeof(int));
        rows = malloc(sizeof(int) * (size_t)(C->nnz + 1));
        for (int j = 0; counts && j < s->plan->part.n; j++)
            counts[s->plan->agg[j]] = s->nsenders[j];
        for (int a = 1; displs && counts && a < p; a++)
            displs[a] = displs[a - 1] + counts[a - 1];
        for (int j = 0; counts && displs && rows && j < s->plan->part.n; j++)
            memcpy(rows + displs[s->plan->agg[j]], C->row + C->col_ptr[j],
                   sizeof(int) * (size_t)s->nsenders[j]);
        if (!counts || !displs || !rows) /* nothing to send: the receivers' counts fail */
            note_failure(c, tacio_fail(TACIO_ENOMEM, "out of memory"));
    }
    static int none;
    MPI_Scatterv(rows, counts, displs, MPI_INT, s->senders ? s->senders : &none, mine, MPI_INT, 0,
                 c->f->comm);
    s->nfeeding = mine;
    meta_add(c, 4 * (int64_t)mine);
    free(counts), free(displs), free(rows);
}

int plan_call(struct call *c, int local)
{
    const struct tacio_strategy *st = strategy_find(c->f->hints.core.strategy);
    int k = st && st->reads_distribution ? SUMMARY_RUNS : 1, words = SUMMARY_HEAD + 3 * k;
    note_failure(c, local);
    int64_t *all = gather_summary(c, local, k);
    bool root = c->f->rank == 0;
    int cmd;
    if (root) {
        int rc = all ? plan_on_root(c, all, words) : c->planning.rc;
        cmd = send_outcome(c, rc);
    } else {
        struct order o;
        serve_rows(c, &o);
        cmd = take_outcome(c, &o);
    }
    free(all);
    crow_free(&c->planning.row);
    c->s->independent = cmd == CMD_INDEPENDENT;
    if (cmd == CMD_DONE)
        scatter_senders(c);
    if (cmd == CMD_FAILED) /* whoever failed first says why */
        return agree(c->f->comm, c->planning.peer_failed ? 0 : c->planning.rc);
    if (cmd == CMD_AGGREGATE_NODES)
        return PLAN_NODE_AGGREGATION;
    return cmd == CMD_DONE ? PLAN_ROUNDS : c->s->independent ? PLAN_INDEPENDENT : PLAN_NOTHING;
}
