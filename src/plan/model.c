/* auto's cost model: a plan's seconds from its metrics and the machine's
 * rates (the hints), and the rates of links and messages it is built on. */
#include "plan.h"

#include <math.h>

double collective_hops(int nprocs)
{
    return ceil(log2((double)max64(2, nprocs)));
}

double plan_link_rate(const struct tacio_topo *t, const struct tacio_hints *h, int v)
{
    return t->vert_host[v] >= 0 || h->bw_uplink <= 0 ? h->bw_link : h->bw_uplink;
}

double plan_link_seconds(const struct tacio_topo *t, const struct tacio_hints *h,
                         const struct tacio_plan *plan)
{
    if (!plan->link_up)
        return (double)plan->m.offnode_bytes / h->bw_link;
    double worst = 0;
    for (int v = 0; v < t->nverts; v++) {
        double load = (double)max64(plan->link_up[v], plan->link_down[v]);
        double s = load / plan_link_rate(t, h, v);
        worst = s > worst ? s : worst;
    }
    return worst;
}

double plan_msg_factor(const struct tacio_hints *h, const struct tacio_plan *plan)
{
    const struct metrics *m = &plan->m;
    if (m->offnode_msgs == 0)
        return 1;
    return hints_bw_factor(h, (double)m->offnode_bytes / (double)m->offnode_msgs);
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* The seconds rounds after the first add to the shuffle: one window each
 * over the slowest link a window may cross (model_seconds' "tail"). A plan
 * that crosses no link (one host) has none: the tail was fit on networks,
 * and its copies are bw_copy's business. */
static double round_tails(const struct tacio_hints *h, const struct tacio_plan *plan, double rounds)
{
    if (plan->m.offnode_bytes == 0)
        return 0;
    double slow = h->bw_link;
    if (plan->link_up && h->bw_uplink > 0 && h->bw_uplink < slow)
        slow = h->bw_uplink;
    return (rounds - 1) * (double)plan->m.max_agg_mem / slow; /* the largest window */
}

/* auto's cost model's terms, in seconds at the hints' rates (docs/strategies.md,
 * "auto's cost model"; fit.h weighs them by what the calls measured):
 *   shuffle  the slowest of: the busiest link, the busiest aggregator's NIC
 *            (off-host bytes), both at the share of their rate bw_factors
 *            gives the shuffle's mean crossing message (small messages
 *            move slower: MPI's eager protocol, SMPI's bandwidth factors),
 *            and its copies from ranks of its own host (shared memory,
 *            bw_copy);
 *   io       the slowest of: the busiest aggregator at bw_agg_io, the
 *            busiest host at bw_node_io (its aggregators share its way to
 *            storage), the whole at bw_fs;
 *   tail     each round after the first adds one window over the slowest
 *            link class (uplinks where the tree has slower ones): a round
 *            ends with its slowest flow, and the rounds' busiest links are
 *            not all the same link, so the rounds' maxima add up to more
 *            than the busiest link's total (fit under SMPI, cube 2000^3 at
 *            512 ranks: 5-8 ms of excess a round against 6.7 ms predicted,
 *            docs/strategies.md, "auto's cost model");
 *   both     pipelined rounds (more than one) overlap them: the longer one
 *            plus the shorter's share of one round; one round adds them
 *            (terms_seconds, fit.c);
 *   messages a latency per round (a round's messages fly at once, LogP's
 *            L) and the busiest aggregator's and the busiest sender's
 *            messages one after another at msg_overhead each (LogP's o);
 *   fixed    an agreement (log2 p latencies) per round and two more, and
 *            the plan's broadcast: one message of 56 bytes per FD in
 *            chunks of 64 FDs down log2 p hops;
 *   gather   node aggregation's (pipeline.c, gather_seconds);
 *   pieces   the contiguous pieces the busiest rank packs and the busiest
 *            aggregator's share of all (ctx's counts, where the engine
 *            gave them), in units of PIECE_SECONDS: the built-in model
 *            prices none, the fit learns their cost. */
void model_terms(const struct plan_ctx *ctx, const struct tacio_plan *plan,
                 const struct model_in *in, struct model_terms *out)
{
    const struct tacio_topo *t = ctx->topo;
    const struct tacio_hints *h = ctx->h;
    const struct metrics *m = &plan->m;
    double factor = plan_msg_factor(h, plan); /* of the network's terms */
    double net = plan_link_seconds(t, h, plan) / factor;
    double nic = (double)in->max_nic / h->bw_link / factor;
    double copy = (double)in->max_copy / h->bw_copy;
    double rounds = (double)max64(1, m->rounds);
    double io = (double)m->max_agg_bytes / h->bw_agg_io;
    double host = h->bw_node_io > 0 ? (double)m->max_host_bytes / h->bw_node_io : 0;
    double fs = (double)m->total_bytes / h->bw_fs;
    double hops = collective_hops(t->nprocs);
    double plan_bcast =
        (ceil(plan->part.n / 64.0) * h->latency + 56.0 * plan->part.n / h->bw_link) * hops;
    double pieces = (double)ctx->max_pieces + (double)ctx->total_pieces / max2(1, m->naggs);
    *out = (struct model_terms){.rounds = rounds};
    out->v[TERM_SHUFFLE] = max2(max2(net, nic), copy) + round_tails(h, plan, rounds) / factor;
    out->v[TERM_IO] = max2(max2(io, host), fs);
    out->v[TERM_MESSAGES] = rounds * h->latency + (double)in->max_msgs * h->msg_overhead;
    out->v[TERM_FIXED] = (rounds + 2) * hops * h->latency + plan_bcast;
    out->v[TERM_PIECES] = pieces * PIECE_SECONDS;
}

void model_rate(const struct plan_ctx *ctx, struct tacio_plan *plan)
{
    struct metrics *m = &plan->m;
    m->model_seconds = fit_seconds(ctx->fit, &m->terms);
    m->model_shuffle = fit_term(ctx->fit, &m->terms, TERM_SHUFFLE);
    m->model_io = fit_term(ctx->fit, &m->terms, TERM_IO);
}
