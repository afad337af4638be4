/* tacio-calibrate: measures, with MPI on the machine it runs on, what
 * auto's cost model needs, and prints it as the hints that set it (docs/strategies.md,
 * "auto's cost model"):
 *   tacio_bw_link     large messages between two hosts (ping-pong), two
 *                     under one switch where --topology names one such pair
 *   tacio_bw_uplink   the same between hosts under different switches of
 *                     --topology (which must name the hosts); else omitted
 *   tacio_bw_factors  the share of tacio_bw_link messages of 1 KiB to 1 MiB
 *                     get between two hosts, several in flight at once, in
 *                     steps of 4: smaller messages are slower
 *   tacio_latency     a small message's one-way time between two hosts (on a
 *                     one-host job: between two of its ranks, the only kind
 *                     of message it has)
 *   tacio_bw_copy     large messages between two ranks of one host (shared
 *                     memory: what an aggregator's copies from its own host
 *                     cost)
 *   tacio_msg_overhead  a small message's cost at its ends: a burst of
 *                     small messages from one rank to another, per message
 *                     (between hosts when there are two, else on the host)
 *   tacio_bw_agg_io   one rank writing DIR alone (fsync'd)
 *   tacio_bw_node_io  all ranks of one host writing at once
 *   tacio_bw_fs       one rank per host writing at once, in all
 * A job on one host measures its copies, its latency and the I/O.
 *
 * --profile FILE also writes them as a hints file ("key value" lines), the
 * machine's profile: TACIO_HINTS_FILE=FILE gives it to every program.
 * --network measures the network alone (no DIR): where the storage is
 * measured otherwise, or not by POSIX writes at all (under SimGrid SMPI,
 * whose clock a POSIX write does not advance: bench/smpi).
 *
 * usage: mpiexec -n N tacio-calibrate DIR [--topology SPEC] [--mib M] [--profile FILE]
 *        mpiexec -n N tacio-calibrate --network [--topology SPEC] [--profile FILE] */
#include "tacio_plan.h"

#include <fcntl.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (4 << 20)
#define PINGS 20

struct job {
    int rank, nprocs;
    int nhosts, host; /* this rank's host, numbered by its leader's order */
    int *leader;      /* per host: its lowest rank */
    char (*name)[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm node; /* the ranks of this host */
    const char *dir;
    int64_t bytes; /* per writer */
};

/* Every rank calls it at the same point (the arguments are the same
 * everywhere; write failures are agreed first), so the job ends cleanly. */
static void die(const struct job *j, const char *msg)
{
    if (j->rank == 0)
        fprintf(stderr, "tacio-calibrate: %s\n", msg);
    MPI_Finalize();
    exit(2);
}

/* Hosts: the ranks sharing memory, each named by its processor name. */
static void find_hosts(struct job *j)
{
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j->rank, MPI_INFO_NULL, &j->node);
    int local;
    MPI_Comm_rank(j->node, &local);
    int *is_leader = malloc(sizeof(int) * (size_t)j->nprocs);
    int me = local == 0;
    MPI_Allgather(&me, 1, MPI_INT, is_leader, 1, MPI_INT, MPI_COMM_WORLD);
    j->leader = malloc(sizeof(int) * (size_t)j->nprocs);
    j->nhosts = 0;
    for (int r = 0; r < j->nprocs; r++)
        if (is_leader[r])
            j->leader[j->nhosts++] = r;
    int first = j->rank; /* the host's number: its leader's position */
    MPI_Bcast(&first, 1, MPI_INT, 0, j->node);
    for (int h = 0; h < j->nhosts; h++)
        if (j->leader[h] == first)
            j->host = h;
    char mine[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(mine, &len);
    j->name = malloc(sizeof *j->name * (size_t)j->nprocs);
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, j->name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    free(is_leader);
}

/* One-way seconds for `bytes` between ranks a and b: half the best of
 * PINGS round trips (the others are the machine's noise, not the link's). */
static double one_way(const struct job *j, int a, int b, int bytes)
{
    bool pinging = j->rank == a || j->rank == b;
    char *buf = pinging ? calloc((size_t)bytes + 1, 1) : NULL;
    if (pinging && !buf) { /* one rank alone: no agreement to be had */
        fprintf(stderr, "tacio-calibrate: rank %d: out of memory\n", j->rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double best = 1e30;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < PINGS && pinging; i++) {
        double t0 = MPI_Wtime();
        if (j->rank == a) {
            MPI_Send(buf, bytes, MPI_BYTE, b, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, b, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, a, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, a, 0, MPI_COMM_WORLD);
        }
        double t = (MPI_Wtime() - t0) / 2;
        best = t < best ? t : best;
    }
    free(buf);
    MPI_Bcast(&best, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
    return best;
}

/* Seconds for `flight` messages of `bytes` from b to a, all in flight at
 * once: the best of PINGS bursts. */
static double burst(const struct job *j, int a, int b, int bytes, int flight)
{
    bool pinging = j->rank == a || j->rank == b;
    char *buf = pinging ? calloc((size_t)bytes * (size_t)flight, 1) : NULL;
    MPI_Request *req = pinging ? malloc(sizeof *req * (size_t)flight) : NULL;
    MPI_Status *st = pinging ? malloc(sizeof *st * (size_t)flight) : NULL;
    if (pinging && (!buf || !req || !st)) { /* one rank alone: no agreement to be had */
        fprintf(stderr, "tacio-calibrate: rank %d: out of memory\n", j->rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double best = 1e30;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < PINGS && pinging; i++) {
        int go = 0;
        if (j->rank == a) /* the burst starts once a is ready: its time is the burst's */
            MPI_Send(&go, 1, MPI_INT, b, 1, MPI_COMM_WORLD);
        else
            MPI_Recv(&go, 1, MPI_INT, a, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t0 = MPI_Wtime();
        for (int k = 0; k < flight; k++) {
            char *at = buf + (size_t)k * (size_t)bytes;
            if (j->rank == a)
                MPI_Irecv(at, bytes, MPI_BYTE, b, 2, MPI_COMM_WORLD, &req[k]);
            else
                MPI_Isend(at, bytes, MPI_BYTE, a, 2, MPI_COMM_WORLD, &req[k]);
        }
        MPI_Waitall(flight, req, st); /* st, not MPI_STATUSES_IGNORE: GCC 12 misreads MPICH's */
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    free(buf);
    free(req);
    free(st);
    MPI_Bcast(&best, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
    return best;
}

/* Seconds per message of a burst of BURST one-byte messages from b to a:
 * what a message costs its ends when the flights overlap (LogP's o or g). */
#define BURST 64
static double per_message(const struct job *j, int a, int b)
{
    return burst(j, a, b, 1, BURST) / BURST;
}

/* tacio_bw_factors between ranks a and b: for messages of 1 MiB down to
 * 1 KiB by 4, the rate each gets over `link` when FLIGHT of them share the
 * way (what a burst of FLIGHT takes beyond one message's time, which holds
 * the latency: in a shuffle many messages fly at once, so a message's
 * latency, however it grows with its size, overlaps the others', and what
 * the model's factor must give is the rate they share; a lone message's
 * ping-pong time would count that latency as a slower rate). At most 1,
 * and never more than a larger message's (the noise would otherwise show
 * as small messages moving faster). The smallest's applies below it too
 * ("0:"). */
#define FLIGHT 8
static void bw_factors(const struct job *j, int a, int b, double link, char *out, size_t cap)
{
    size_t at = 0;
    double most = 1;
    for (int bytes = 1 << 20; bytes >= 1 << 10; bytes >>= 2) {
        double t = burst(j, a, b, bytes, FLIGHT) - burst(j, a, b, bytes, 1);
        double f = t > 0 ? (double)(FLIGHT - 1) * bytes / t / link : most;
        most = f < most ? f : most;
        at += (size_t)snprintf(out + at, cap - at, "%s%d:%.3g", at ? ";" : "",
                               bytes > 1 << 10 ? bytes : 0, most);
    }
}

/* Two hosts' leaders, a and b, whose switches in the topology are the same
 * (same_switch) or differ; -1 where the topology names no such pair (or
 * none is given). A link is measured under one switch, where the path is
 * the two hosts' own links: across switches it would be the uplinks'. */
static int host_pair(const struct job *j, const char *spec, bool same_switch, int *a, int *b)
{
    struct tacio_topo *t = NULL;
    if (!spec || tacio_topo_parse(spec, &t)) {
        tacio_topo_free(t);
        return -1;
    }
    int *parent = malloc(sizeof(int) * (size_t)j->nhosts), found = -1;
    for (int h = 0; h < j->nhosts; h++) { /* each job host's switch, by name */
        parent[h] = -2;
        struct tacio_vertex_info v;
        for (int x = 0; x < tacio_topo_get_nverts(t); x++)
            if (!tacio_topo_get_vertex(t, x, &v) && v.is_host &&
                !strcmp(v.name, j->name[j->leader[h]]))
                parent[h] = v.parent;
    }
    for (int g = 0; g < j->nhosts && found < 0; g++)
        for (int h = g + 1; h < j->nhosts && found < 0; h++)
            if (parent[g] >= 0 && parent[h] >= 0 && (parent[h] == parent[g]) == same_switch) {
                *a = j->leader[g], *b = j->leader[h];
                found = 0;
            }
    free(parent);
    tacio_topo_free(t);
    return found;
}

/* Seconds for this rank to write j->bytes to its own file and fsync it
 * (0 when it does not write); the slowest writer's time is returned. */
static double write_time(const struct job *j, int writes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tacio-calibrate.%d.tmp", j->dir, j->rank);
    char *buf = writes ? malloc(CHUNK) : NULL; /* only the writers need one */
    int bad = writes && !buf ? 2 : 0;          /* 1: the write failed; 2: no memory */
    if (buf)
        memset(buf, 'c', CHUNK);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), t = 0;
    if (buf) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
        for (int64_t off = 0; fd >= 0 && off < j->bytes && !bad; off += CHUNK) {
            size_t n = (size_t)(j->bytes - off < CHUNK ? j->bytes - off : CHUNK);
            bad = pwrite(fd, buf, n, (off_t)off) != (ssize_t)n;
        }
        bad |= fd < 0 || fsync(fd) != 0;
        if (fd >= 0)
            close(fd);
        t = MPI_Wtime() - t0;
        unlink(path);
    }
    free(buf);
    double slowest;
    int any_bad;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad == 2)
        die(j, "out of memory for the write buffer");
    if (any_bad)
        die(j, "cannot write DIR (a writable directory on the file system to measure)");
    return slowest;
}

#define USAGE                                                                                      \
    "usage: mpiexec -n N tacio-calibrate DIR|--network [--topology SPEC] [--mib M] [--profile "    \
    "FILE]"

static void parse_args(int argc, char **argv, struct job *j, const char **topology,
                       const char **profile, bool *network)
{
    j->dir = NULL;
    j->bytes = 64 << 20;
    *topology = *profile = NULL;
    *network = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--network"))
            *network = true;
        else if (!strcmp(argv[i], "--topology") && i + 1 < argc)
            *topology = argv[++i];
        else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
            *profile = argv[++i];
        else if (!strcmp(argv[i], "--mib") && i + 1 < argc && atoll(argv[i + 1]) > 0)
            j->bytes = atoll(argv[++i]) << 20;
        else if (argv[i][0] != '-' && !j->dir)
            j->dir = argv[i];
        else
            die(j, USAGE);
    }
    if (!j->dir == !*network) /* a directory to write, or the network alone */
        die(j, USAGE);
}

/* The model as a hints file: one "key value" line per hint. */
static int write_profile(const char *path, const char *model)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# the machine's model for tacio's auto, measured by tacio-calibrate\n");
    for (const char *kv = model; *kv;) {
        size_t n = strcspn(kv, ","), eq = strcspn(kv, "=");
        fprintf(f, "%.*s %.*s\n", (int)eq, kv, (int)(n - eq - 1), kv + eq + 1);
        kv += n + (kv[n] == ',');
    }
    return fclose(f);
}

/* Appends "key=value," to the model at *at. */
static void add(char *model, size_t cap, size_t *at, const char *key, const char *fmt, double v)
{
    *at += (size_t)snprintf(model + *at, cap - *at, "%s=", key);
    *at += (size_t)snprintf(model + *at, cap - *at, fmt, v);
    *at += (size_t)snprintf(model + *at, cap - *at, ",");
}

/* Between hosts: the latency, a message's cost at its ends, the link, the
 * factors of smaller messages and, given a topology, the uplinks. */
static void measure_hosts(const struct job *j, const char *topology, char *model, size_t cap,
                          size_t *at)
{
    int a = j->leader[0], b = j->leader[1], c, d;
    if (host_pair(j, topology, true, &c, &d) == 0)
        a = c, b = d;
    double lat = one_way(j, a, b, 8);
    add(model, cap, at, "tacio_msg_overhead", "%.4g", per_message(j, a, b));
    double link = (double)CHUNK / one_way(j, a, b, CHUNK);
    add(model, cap, at, "tacio_bw_link", "%.4g", link);
    char factors[256];
    bw_factors(j, a, b, link, factors, sizeof factors);
    *at += (size_t)snprintf(model + *at, cap - *at, "tacio_bw_factors=%s,", factors);
    if (host_pair(j, topology, false, &c, &d) == 0)
        add(model, cap, at, "tacio_bw_uplink", "%.4g", (double)CHUNK / one_way(j, c, d, CHUNK));
    add(model, cap, at, "tacio_latency", "%.4g", lat);
}

/* Within host 0, where it has two ranks: the copies' rate, and on a
 * one-host job the latency and a message's cost too (its only messages). */
static void measure_host(const struct job *j, char *model, size_t cap, size_t *at)
{
    int mate = j->leader[0] + 1; /* host 0's second rank, when it has one */
    while (mate < j->nprocs && strcmp(j->name[mate], j->name[j->leader[0]]))
        mate++; /* ranks dealt to hosts in turn: the next is on another host */
    if (mate == j->nprocs)
        return;
    add(model, cap, at, "tacio_bw_copy", "%.4g",
        (double)CHUNK / one_way(j, j->leader[0], mate, CHUNK));
    if (j->nhosts == 1) {
        add(model, cap, at, "tacio_latency", "%.4g", one_way(j, j->leader[0], mate, 8));
        add(model, cap, at, "tacio_msg_overhead", "%.4g", per_message(j, j->leader[0], mate));
    }
}

/* The storage: one rank, host 0's ranks, one rank per host writing DIR. */
static void measure_storage(const struct job *j, char *model, size_t cap, size_t *at)
{
    double one = write_time(j, j->rank == 0);
    double host = write_time(j, j->host == 0);
    double all = write_time(j, j->rank == j->leader[j->host]);
    int mine = j->host == 0, on_host0;
    MPI_Allreduce(&mine, &on_host0, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    add(model, cap, at, "tacio_bw_agg_io", "%.4g", (double)j->bytes / one);
    add(model, cap, at, "tacio_bw_node_io", "%.4g", (double)j->bytes * on_host0 / host);
    add(model, cap, at, "tacio_bw_fs", "%.4g", (double)j->bytes * j->nhosts / all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct job j = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.nprocs);
    const char *topology, *profile;
    bool network;
    parse_args(argc, argv, &j, &topology, &profile, &network);
    find_hosts(&j);
    char model[1024] = "";
    size_t at = 0;
    if (j.nhosts > 1)
        measure_hosts(&j, topology, model, sizeof model, &at);
    measure_host(&j, model, sizeof model, &at);
    if (!network)
        measure_storage(&j, model, sizeof model, &at);
    if (at)
        model[at - 1] = '\0'; /* the last comma */
    int bad = j.rank == 0 && profile && write_profile(profile, model) != 0;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad)
        die(&j, "cannot write the profile file");
    if (j.rank == 0)
        printf("hosts=%d ranks=%d dir=%s mib_per_writer=%lld model=%s\n", j.nhosts, j.nprocs,
               network ? "-" : j.dir, network ? 0LL : (long long)(j.bytes >> 20), model);
    MPI_Finalize();
    return 0;
}
