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

/* auto's cost model, in seconds (docs/strategies.md, "auto's cost model"):
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
 *            plus the shorter's share of one round; one round adds them;
 *   fixed    a latency per round (a round's messages fly at once, LogP's
 *            L) and the busiest aggregator's and the busiest sender's
 *            messages one after another at msg_overhead each (LogP's o);
 *            an agreement (log2 p latencies) per round, and the plan's
 *            gather and broadcast, the latter one message of 56 bytes per
 *            FD in chunks of 64 FDs down log2 p hops. */
double model_seconds(const struct tacio_topo *t, const struct tacio_hints *h,
                     const struct tacio_plan *plan, const struct model_in *in, double *shuffle_out,
                     double *io_out)
{
    const struct metrics *m = &plan->m;
    double factor = plan_msg_factor(h, plan); /* of the network's terms */
    double net = plan_link_seconds(t, h, plan) / factor;
    double nic = (double)in->max_nic / h->bw_link / factor;
    double copy = (double)in->max_copy / h->bw_copy;
    double rounds = (double)max64(1, m->rounds);
    double shuffle = max2(max2(net, nic), copy) + round_tails(h, plan, rounds) / factor;
    double io = (double)m->max_agg_bytes / h->bw_agg_io;
    double host = h->bw_node_io > 0 ? (double)m->max_host_bytes / h->bw_node_io : 0;
    double fs = (double)m->total_bytes / h->bw_fs;
    io = max2(max2(io, host), fs);
    *shuffle_out = shuffle, *io_out = io;
    double lo = shuffle < io ? shuffle : io;
    double data = rounds > 1 ? max2(shuffle, io) + lo / rounds : shuffle + io;
    double hops = collective_hops(t->nprocs);
    double agreements = (rounds + 2) * hops * h->latency;
    double plan_bcast =
        (ceil(plan->part.n / 64.0) * h->latency + 56.0 * plan->part.n / h->bw_link) * hops;
    double messages = rounds * h->latency + (double)in->max_msgs * h->msg_overhead;
    return data + messages + agreements + plan_bcast;
}
