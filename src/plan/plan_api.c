/* The public accessors of a plan, a placed topology and the strategy
 * registry (include/tacio_plan.h): what a program needs to read a plan
 * without the planning core's structures. */
#include "strategy.h"

unsigned tacio_api_get_version(void)
{
    return TACIO_API_VERSION;
}

int tacio_topo_get_nused_hosts(const struct tacio_topo *topo)
{
    return topo->nused_hosts;
}

int tacio_topo_get_rank_host(const struct tacio_topo *topo, int rank)
{
    return topo->rank_host && rank >= 0 && rank < topo->nprocs ? topo->rank_host[rank] : -1;
}

int tacio_topo_get_fixed_nprocs(const struct tacio_topo *topo)
{
    return topo->dist ? topo->dist_n : 0;
}

const char *tacio_topo_get_kind(const struct tacio_topo *topo)
{
    return topo->kind;
}

int tacio_topo_get_cores(const struct tacio_topo *topo)
{
    return topo->cores;
}

int tacio_topo_get_nverts(const struct tacio_topo *topo)
{
    return topo->dist ? 0 : topo->nverts;
}

int tacio_topo_get_nhosts(const struct tacio_topo *topo)
{
    return topo->dist ? 0 : topo->nhosts;
}

int tacio_topo_get_host_vertex(const struct tacio_topo *topo, int host)
{
    return !topo->dist && host >= 0 && host < topo->nhosts ? topo->host_vert[host] : -1;
}

int64_t tacio_topo_get_host_memory(const struct tacio_topo *topo, int host)
{
    return topo->mem_free && host >= 0 && host < topo->nhosts ? topo->mem_free[host] : -1;
}

int tacio_topo_get_vertex(const struct tacio_topo *topo, int v, struct tacio_vertex_info *out)
{
    if (topo->dist || v < 0 || v >= topo->nverts)
        return tacio_fail(TACIO_EINVAL, "vertex %d out of range (the tree has %d)", v,
                          tacio_topo_get_nverts(topo));
    out->name = topo->vname[v];
    out->parent = topo->parent[v];
    out->depth = topo->depth[v];
    out->is_host = topo->vert_host[v] >= 0;
    return 0;
}

const char *tacio_plan_get_strategy(const struct tacio_plan *plan)
{
    return plan->strategy;
}

const char *tacio_plan_get_detail(const struct tacio_plan *plan)
{
    return plan->detail;
}

int tacio_plan_get_nprocs(const struct tacio_plan *plan)
{
    return plan->nprocs;
}

int tacio_plan_get_nfds(const struct tacio_plan *plan)
{
    return plan->part.n;
}

int tacio_plan_get_fd(const struct tacio_plan *plan, int fd, struct tacio_fd_info *out)
{
    if (fd < 0 || fd >= plan->part.n)
        return tacio_fail(TACIO_EINVAL, "FD %d of a plan with %d", fd, plan->part.n);
    const struct fdom *d = &plan->part.dom[fd];
    *out = (struct tacio_fd_info){d->start,
                                  d->end,
                                  d->unit,
                                  d->stride,
                                  plan->fd_bytes ? plan->fd_bytes[fd] : 0,
                                  plan->fd_mem ? plan->fd_mem[fd] : 0,
                                  plan->agg[fd]};
    return 0;
}

void tacio_plan_get_metrics(const struct tacio_plan *plan, struct tacio_plan_metrics *out)
{
    const struct metrics *m = &plan->m;
    *out = (struct tacio_plan_metrics){.total_bytes = m->total_bytes,
                                       .shuffle_bytes = m->shuffle_bytes,
                                       .offnode_bytes = m->offnode_bytes,
                                       .hop_bytes = m->hop_bytes,
                                       .max_link_load = m->max_link_load,
                                       .max_agg_bytes = m->max_agg_bytes,
                                       .max_agg_mem = m->max_agg_mem,
                                       .messages = m->messages,
                                       .rounds = m->rounds,
                                       .naggs = m->naggs,
                                       .max_step_fanin = m->max_step_fanin,
                                       .mem_shortfall = plan->mem_shortfall,
                                       .lap_cost = plan->lap_cost,
                                       .model_seconds = m->model_seconds,
                                       .plan_seconds = plan->plan_seconds};
}

int tacio_plan_get_nlinks(const struct tacio_plan *plan)
{
    return plan->nlinks;
}

int tacio_plan_get_link(const struct tacio_plan *plan, int link, struct tacio_link_info *out)
{
    if (link < 0 || link >= plan->nlinks)
        return tacio_fail(TACIO_EINVAL, "link %d of a plan with %d", link, plan->nlinks);
    int up = plan->link_parent[link];
    const char *above = up >= 0 ? plan->link_name[up] : NULL;
    *out = (struct tacio_link_info){plan->link_name[link], above, plan->link_up[link],
                                    plan->link_down[link]};
    return 0;
}

int64_t tacio_plan_get_order(const struct tacio_plan *plan, int fd, const int **senders)
{
    *senders = NULL;
    if (plan->order_rule == ORDER_RANKS || fd < 0 || fd >= plan->part.n)
        return 0;
    if (!plan->order)
        return -1; /* too large to keep (plan_keep_c_max) */
    *senders = plan->order + plan->order_ptr[fd];
    return plan->order_ptr[fd + 1] - plan->order_ptr[fd];
}

int64_t tacio_plan_get_hop_bytes(const struct tacio_plan *plan, const struct tacio_topo *topo,
                                 int rank, int fd)
{
    if (!plan->cmat.row)
        return -1; /* too large to keep (plan_keep_c_max) */
    if (fd < 0 || fd >= plan->cmat.a || rank < 0 || rank >= plan->cmat.p)
        return 0;
    return hop_bytes_of(topo, &plan->cmat, fd, rank);
}
