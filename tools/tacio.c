/* The tacio command: plan and compare collective I/O strategies without MPI.
 * It reads plans through the public API only (include/tacio_plan.h). */
#include "tacio_plan.h"

#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HINTS 64
#define MAX_FDS_SHOWN 32
#define MAX_COST_CELLS 20000
#define MAX_COMPARED 16

static const char usage[] =
    "usage: tacio plan     --pattern P [--procs N] --topology T [--placement X]\n"
    "                      [--strategy S] [--hint k=v]... [--memory M] [--json] [--show-cost]\n"
    "                      [--as-engine]   (planned on the ranks' summaries, as the MPI\n"
    "                      engine's rank 0 plans: mccio and cuts can differ)\n"
    "       tacio compare  --pattern P [--procs N] --topology T [--placement X]\n"
    "                      [--strategies S1,S2,...] [--hint k=v]... [--memory M] [--json]\n"
    "       tacio platform --topology T --procs N [--placement X] --out DIR\n"
    "                      [--network tree|native] [--link-bw B1,B2,...] [--latency L]\n"
    "                      [--disk-bw B] [--memory M]   (SimGrid platform.xml and\n"
    "                      hostfile: docs/simulation.md)\n"
    "       tacio report   INPUT... --out DIR   (charts from TACIO_STATS, plans, bench/smpi\n"
    "                      results; needs python3 and matplotlib)\n"
    "       tacio list     strategies|candidates|patterns|topologies [--summary]   (the\n"
    "                      registries, one name or form a line; candidates: the strategies\n"
    "                      auto tries; --summary adds a tab and its meaning)\n"
    "       tacio wisdom   list [FILE] | show N [FILE] | forget N|all [FILE]   (auto's\n"
    "                      learned choices; FILE: TACIO_WISDOM when not given)\n"
    "placement:  block | cyclic | scatter:seed=S\n"
    "memory:     BYTES | normal:mean=M,sd=S,seed=K | file:PATH   (free memory per host)\n";

/* A registry as the library exposes it: entry i's name, form and summary. */
struct registry {
    const char *kind;
    int (*count)(void);
    const char *(*name)(int i);
    const char *(*form)(int i);
    const char *(*summary)(int i);
    int (*keep)(int i); /* NULL: every entry */
};

static const struct registry registries[] = {
    {"strategies", tacio_strategy_get_count, tacio_strategy_get_name, tacio_strategy_get_name,
     tacio_strategy_get_summary, NULL},
    {"candidates", tacio_strategy_get_count, tacio_strategy_get_name, tacio_strategy_get_name,
     tacio_strategy_get_summary, tacio_strategy_is_auto_candidate},
    {"patterns", tacio_pattern_kind_get_count, tacio_pattern_kind_get_name,
     tacio_pattern_kind_get_form, tacio_pattern_kind_get_summary, NULL},
    {"topologies", tacio_topo_kind_get_count, tacio_topo_kind_get_name, tacio_topo_kind_get_form,
     tacio_topo_kind_get_summary, NULL},
};
#define NREGISTRIES ((int)(sizeof registries / sizeof registries[0]))

static bool listed(const struct registry *r, int i)
{
    return !r->keep || r->keep(i);
}

/* The usage, then each registry's forms on one line. */
static void print_usage(void)
{
    fputs(usage, stdout);
    for (int r = 0; r < NREGISTRIES; r++) {
        printf("%s:", registries[r].kind);
        for (int i = 0; i < registries[r].count(); i++)
            if (listed(&registries[r], i))
                printf(" %s", registries[r].form(i));
        putchar('\n');
    }
}

/* tacio list KIND [--summary]: the registry, one entry a line. */
static int cmd_list(int argc, char **argv)
{
    bool summary = argc == 2 && !strcmp(argv[1], "--summary");
    for (int r = 0; argc >= 1 && (argc == 1 || summary) && r < NREGISTRIES; r++) {
        if (strcmp(argv[0], registries[r].kind))
            continue;
        for (int i = 0; i < registries[r].count(); i++) {
            if (!listed(&registries[r], i))
                continue;
            if (summary)
                printf("%s\t%s\n", registries[r].form(i), registries[r].summary(i));
            else
                puts(registries[r].form(i));
        }
        return 0;
    }
    return cli_error("expected tacio list strategies|candidates|patterns|topologies [--summary]");
}

struct options {
    const char *cmd, *pattern, *topology, *placement, *strategy, *strategies, *memory;
    int procs;
    bool json, show_cost, as_engine;
    int nhints;
    const char *hint_key[MAX_HINTS];
    char *hint_val[MAX_HINTS];
};

static int fail(int rc)
{
    return cli_fail(rc);
}

static int add_hint(struct options *o, char *kv)
{
    char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return cli_error("--hint %s: expected key=value", kv);
    if (o->nhints == MAX_HINTS)
        return cli_error("more than %d hints", MAX_HINTS);
    *eq = '\0';
    o->hint_key[o->nhints] = kv;
    o->hint_val[o->nhints++] = eq + 1;
    return 0;
}

static bool is_value_opt(const char *name)
{
    static const char *const names[] = {"--pattern",    "--topology", "--placement", "--strategy",
                                        "--strategies", "--memory",   "--hint",      "--procs"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i]))
            return true;
    return false;
}

static int parse_value_opt(struct options *o, const char *name, char *val)
{
    if (!strcmp(name, "--pattern"))
        o->pattern = val;
    else if (!strcmp(name, "--topology"))
        o->topology = val;
    else if (!strcmp(name, "--placement"))
        o->placement = val;
    else if (!strcmp(name, "--strategy"))
        o->strategy = val;
    else if (!strcmp(name, "--strategies"))
        o->strategies = val;
    else if (!strcmp(name, "--memory"))
        o->memory = val;
    else if (!strcmp(name, "--hint"))
        return add_hint(o, val);
    else if (!strcmp(name, "--procs")) {
        char *end;
        long long n = strtoll(val, &end, 10);
        if (end == val || *end || n < 1 || n > 100000000)
            return cli_error("--procs %s: expected a rank count from 1 to 1e8", val);
        o->procs = (int)n;
    } else
        return cli_error("unknown option '%s'; expected --pattern, --procs, --topology, "
                         "--placement, --strategy, --strategies, --hint, --memory, --json, "
                         "--show-cost or --as-engine (tacio --help)",
                         name);
    return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    if (argc < 2 || (strcmp(argv[1], "plan") && strcmp(argv[1], "compare")))
        return cli_error("expected a command: tacio plan|compare|platform|report|list|wisdom ... "
                         "(tacio --help)");
    o->cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            o->json = true;
        else if (!strcmp(argv[i], "--show-cost"))
            o->show_cost = true;
        else if (!strcmp(argv[i], "--as-engine"))
            o->as_engine = true;
        else if (i + 1 >= argc && is_value_opt(argv[i]))
            return cli_error("%s needs a value (tacio --help)", argv[i]);
        else {
            int rc = parse_value_opt(o, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
            if (rc)
                return rc;
            i++;
        }
    }
    if (!o->pattern || !o->topology)
        return cli_error("--pattern and --topology are required (tacio --help)");
    if (o->as_engine && strcmp(o->cmd, "plan"))
        return cli_error("--as-engine goes with tacio plan");
    return 0;
}

struct job {
    struct tacio_topo *topo;
    struct tacio_pattern *pat;
    struct tacio_hints *hints;
};

static void job_free(struct job *j)
{
    tacio_topo_free(j->topo);
    tacio_pattern_free(j->pat);
    tacio_hints_free(j->hints);
}

static int apply_hints(const struct options *o, struct tacio_hints *h)
{
    int rc = 0;
    for (int i = 0; !rc && i < o->nhints; i++)
        rc = tacio_hints_set(h, o->hint_key[i], o->hint_val[i]);
    if (!rc && o->strategy)
        rc = tacio_hints_set(h, "tacio_strategy", o->strategy);
    return rc;
}

static int setup_job(const struct options *o, struct job *j)
{
    int rc = tacio_topo_parse(o->topology, &j->topo);
    if (rc)
        return rc;
    int procs = o->procs ? o->procs : tacio_topo_get_fixed_nprocs(j->topo);
    if ((rc = tacio_pattern_parse(o->pattern, procs, &j->pat)))
        return rc;
    if ((rc = tacio_topo_place(j->topo, o->placement, tacio_pattern_get_nprocs(j->pat))))
        return rc;
    if (o->memory && (rc = tacio_topo_set_memory(j->topo, o->memory)))
        return rc;
    if ((rc = tacio_hints_new(&j->hints)))
        return rc;
    return apply_hints(o, j->hints);
}

/* ---- plan ---- */

static void print_fds(const struct job *j, const struct tacio_plan *p)
{
    int n = tacio_plan_get_nfds(p);
    struct tacio_fd_info fd = {0};
    if (n)
        tacio_plan_get_fd(p, 0, &fd);
    printf("file domains: %d\n  %5s %16s %16s %10s %6s %5s\n", n, "fd", "start", "end",
           fd.unit ? "stride" : "size", "agg", "host");
    for (int k = 0; k < n && k < MAX_FDS_SHOWN; k++) {
        tacio_plan_get_fd(p, k, &fd);
        printf("  %5d %16lld %16lld %10lld %6d %5d\n", k, (long long)fd.start, (long long)fd.end,
               (long long)(fd.unit ? fd.stride : fd.end - fd.start), fd.aggregator,
               tacio_topo_get_rank_host(j->topo, fd.aggregator));
    }
    if (n > MAX_FDS_SHOWN)
        printf("  ... %d more\n", n - MAX_FDS_SHOWN);
}

static void print_metrics(const struct tacio_plan *p)
{
    struct tacio_plan_metrics mm, *m = &mm;
    tacio_plan_get_metrics(p, m);
    printf("aggregators:    %d\n", m->naggs);
    printf("total bytes:    %lld\n", (long long)m->total_bytes);
    printf("shuffle bytes:  %lld\n", (long long)m->shuffle_bytes);
    printf("off-node bytes: %lld\n", (long long)m->offnode_bytes);
    printf("hop-bytes:      %lld\n", (long long)m->hop_bytes);
    if (m->max_link_load >= 0)
        printf("max link load:  %lld\n", (long long)m->max_link_load);
    else
        printf("max link load:  n/a (distance matrix, no links)\n");
    printf("max agg bytes:  %lld\n", (long long)m->max_agg_bytes);
    printf("max agg memory: %lld\n", (long long)m->max_agg_mem);
    printf("messages:       %lld in up to %lld rounds\n", (long long)m->messages,
           (long long)m->rounds);
    printf("max step fanin: %d\n", m->max_step_fanin);
    if (m->mem_shortfall)
        printf("mem shortfall:  %d FDs on hosts below tacio_mem_min\n", m->mem_shortfall);
    printf("model seconds:  %.4g\n", m->model_seconds);
    printf("plan seconds:   %.4f\n", m->plan_seconds);
}

/* W = D*C for small jobs, from the plan's own C. */
static void show_cost(const struct job *j, const struct tacio_plan *p)
{
    int a = tacio_plan_get_nfds(p), np = tacio_plan_get_nprocs(p);
    printf("W = D*C (hop-bytes if rank i serves FD j)\n%6s", "");
    for (int k = 0; k < a; k++)
        printf(" %10s%d", "FD", k);
    for (int i = 0; i < np; i++) {
        printf("\nP%-5d", i);
        for (int k = 0; k < a; k++)
            printf(" %12lld", (long long)tacio_plan_get_hop_bytes(p, j->topo, i, k));
    }
    printf("\n");
}

static int cmd_plan(const struct options *o, struct job *j)
{
    struct tacio_plan *p;
    int rc = o->as_engine ? tacio_plan_compute_as_engine(j->pat, j->topo, j->hints, &p)
                          : tacio_plan_compute(j->pat, j->topo, j->hints, &p);
    if (rc)
        return fail(rc);
    int np = tacio_plan_get_nprocs(p), nfds = tacio_plan_get_nfds(p);
    if (o->show_cost && (int64_t)np * nfds > MAX_COST_CELLS) {
        rc = cli_error("--show-cost prints W only up to %d cells (%d x %d asked)", MAX_COST_CELLS,
                       np, nfds);
        tacio_plan_free(p);
        return rc;
    }
    if (o->json) {
        rc = tacio_plan_write_json(p, stdout);
        putchar('\n');
        if (rc) {
            tacio_plan_free(p);
            return fail(rc);
        }
    } else {
        const char *detail = tacio_plan_get_detail(p);
        printf("strategy:       %s%s%s%s\n", tacio_plan_get_strategy(p), *detail ? " (" : "",
               detail, *detail ? ")" : "");
        printf("procs:          %d on %d hosts\n", np, tacio_topo_get_nused_hosts(j->topo));
        print_fds(j, p);
        print_metrics(p);
    }
    if (o->show_cost)
        show_cost(j, p);
    tacio_plan_free(p);
    return rc;
}

/* ---- compare ---- */

static double ratio(int64_t x, int64_t base)
{
    return base > 0 ? (double)x / (double)base : 0.0;
}

static void print_row(const struct tacio_plan *p, const struct tacio_plan *base)
{
    struct tacio_plan_metrics mm, bm, *m = &mm, *b = &bm;
    tacio_plan_get_metrics(p, m);
    tacio_plan_get_metrics(base, b);
    printf("%-10s %6d %16lld %6.3f %16lld %6.3f %16lld %6.3f", tacio_plan_get_strategy(p), m->naggs,
           (long long)m->hop_bytes, ratio(m->hop_bytes, b->hop_bytes), (long long)m->offnode_bytes,
           ratio(m->offnode_bytes, b->offnode_bytes), (long long)m->max_link_load,
           ratio(m->max_link_load, b->max_link_load));
    printf(" %12lld %6d %10.4g %8.3f\n", (long long)m->max_agg_mem, m->max_step_fanin,
           m->model_seconds, m->plan_seconds);
}

static int plan_one(struct job *j, const char *name, struct tacio_plan **out)
{
    int rc = tacio_hints_set(j->hints, "tacio_strategy", name);
    return rc ? rc : tacio_plan_compute(j->pat, j->topo, j->hints, out);
}

/* Plans for --strategies (default: every strategy of the registry).
 * Returns 0 or the exit code of an error it printed. */
static int compare_list(const struct options *o, struct job *j, struct tacio_plan **plans, int *n)
{
    *n = 0;
    if (!o->strategies) {
        for (int i = 0; i < tacio_strategy_get_count() && *n < MAX_COMPARED; i++, (*n)++) {
            int rc = plan_one(j, tacio_strategy_get_name(i), &plans[*n]);
            if (rc)
                return fail(rc);
        }
        return 0;
    }
    char *list = strdup(o->strategies);
    if (!list)
        return cli_error("out of memory");
    int rc = 0;
    for (char *save = NULL, *s = strtok_r(list, ",", &save); s && !rc;
         s = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_COMPARED)
            rc = cli_error("at most %d strategies to compare", MAX_COMPARED);
        else if ((rc = plan_one(j, s, &plans[*n])))
            rc = fail(rc);
        else
            (*n)++;
    }
    free(list);
    return rc;
}

static int cmd_compare(const struct options *o, struct job *j)
{
    struct tacio_plan *plans[MAX_COMPARED], *base = NULL;
    int n, rc = compare_list(o, j, plans, &n);
    for (int i = 0; !rc && i < n; i++)
        if (!strcmp(tacio_plan_get_strategy(plans[i]), "romio"))
            base = plans[i];
    struct tacio_plan *own_base = NULL;
    if (!rc && !base && (rc = plan_one(j, "romio", &own_base)))
        rc = fail(rc);
    else if (!rc && !base)
        base = own_base;
    if (!rc && o->json) {
        putchar('[');
        for (int i = 0; i < n && !rc; i++) {
            if (i)
                putchar(',');
            rc = tacio_plan_write_json(plans[i], stdout);
        }
        puts("]");
        if (rc)
            rc = fail(rc);
    } else if (!rc) {
        printf("%-10s %6s %16s %6s %16s %6s %16s %6s %12s %6s %10s %8s\n", "strategy", "aggs",
               "hop_bytes", "ratio", "offnode_bytes", "ratio", "max_link_load", "ratio",
               "max_agg_mem", "fanin", "model_s", "plan_s");
        for (int i = 0; i < n; i++)
            print_row(plans[i], base);
    }
    for (int i = 0; i < n; i++)
        tacio_plan_free(plans[i]);
    tacio_plan_free(own_base);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        print_usage();
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "platform"))
        return cmd_platform(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "report"))
        return cmd_report(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "list"))
        return cmd_list(argc - 2, argv + 2);
    if (argc >= 2 && !strcmp(argv[1], "wisdom"))
        return cmd_wisdom(argc - 2, argv + 2);
    struct options o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc;
    struct job j = {0};
    rc = setup_job(&o, &j);
    if (rc) {
        job_free(&j);
        return fail(rc);
    }
    rc = !strcmp(o.cmd, "plan") ? cmd_plan(&o, &j) : cmd_compare(&o, &j);
    job_free(&j);
    return rc;
}
