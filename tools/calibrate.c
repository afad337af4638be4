/* tacio-calibrate: measures, with MPI on the machine it runs on, what
 * auto's cost model needs, and prints it as the hints that set it (docs/strategies.md,
 * "auto's cost model"):
 *   tacio_bw_link     large messages between two hosts (ping-pong)
 *   tacio_bw_uplink   the same between hosts under different switches of
 *                     --topology (which must name the hosts); else omitted
 *   tacio_bw_factors  the share of tacio_bw_link a message of 1 KiB to 1 MiB
 *                     gets between two hosts (its one-way time less the
 *                     latency), in steps of 4: smaller messages are slower
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
 *
 * usage: mpiexec -n N tacio-calibrate DIR [--topology SPEC] [--mib M] [--profile FILE] */
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

/* Seconds per message of a burst of BURST small messages from b to a: what
 * a message costs its ends when the flights overlap (LogP's o or g). The
 * best of PINGS bursts. */
#define BURST 64
static double per_message(const struct job *j, int a, int b)
{
    double best = 1e30;
    char byte[BURST] = {0};
    MPI_Request req[BURST];
    MPI_Status st[BURST]; /* not MPI_STATUSES_IGNORE: GCC 12 misreads MPICH's */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < PINGS && (j->rank == a || j->rank == b); i++) {
        int go = 0;
        if (j->rank == a) /* the burst starts once a is ready: its time is the burst's */
            MPI_Send(&go, 1, MPI_INT, b, 1, MPI_COMM_WORLD);
        else
            MPI_Recv(&go, 1, MPI_INT, a, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t0 = MPI_Wtime();
        for (int k = 0; k < BURST; k++) {
            if (j->rank == a)
                MPI_Irecv(&byte[k], 1, MPI_BYTE, b, 2, MPI_COMM_WORLD, &req[k]);
            else
                MPI_Isend(&byte[k], 1, MPI_BYTE, a, 2, MPI_COMM_WORLD, &req[k]);
        }
        MPI_Waitall(BURST, req, st);
        double t = (MPI_Wtime() - t0) / BURST;
        best = t < best ? t : best;
    }
    MPI_Bcast(&best, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
    return best;
}

/* tacio_bw_factors between ranks a and b: for messages of 1 MiB down to
 * 1 KiB by 4, the rate each gets besides the latency, over `link`; at most
 * 1, and never more than a larger message's (a message's latency is not
 * measured exactly, and a smaller one's rate cannot exceed a larger's: the
 * noise would otherwise show as small messages moving faster). The
 * smallest's applies below it too ("0:"). */
static void bw_factors(const struct job *j, int a, int b, double link, double lat, char *out,
                       size_t cap)
{
    size_t at = 0;
    double most = 1;
    for (int bytes = 1 << 20; bytes >= 1 << 10; bytes >>= 2) {
        double t = one_way(j, a, b, bytes) - lat;
        double f = t > 0 ? (double)bytes / t / link : most;
        most = f < most ? f : most;
        at += (size_t)snprintf(out + at, cap - at, "%s%d:%.3g", at ? ";" : "",
                               bytes > 1 << 10 ? bytes : 0, most);
    }
}

/* Two hosts under different switches of the topology, or -1. */
static int cross_switch_pair(const struct job *j, const char *spec, int *a, int *b)
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
    for (int h = 1; h < j->nhosts && found < 0; h++)
        if (parent[0] >= 0 && parent[h] >= 0 && parent[h] != parent[0]) {
            *a = j->leader[0], *b = j->leader[h];
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

#define USAGE "usage: mpiexec -n N tacio-calibrate DIR [--topology SPEC] [--mib M] [--profile FILE]"

static void parse_args(int argc, char **argv, struct job *j, const char **topology,
                       const char **profile)
{
    j->dir = NULL;
    j->bytes = 64 << 20;
    *topology = *profile = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--topology") && i + 1 < argc)
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
    if (!j->dir)
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

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct job j = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &j.nprocs);
    const char *topology, *profile;
    parse_args(argc, argv, &j, &topology, &profile);
    find_hosts(&j);
    char model[1024] = "", factors[256];
    size_t at = 0;
    if (j.nhosts > 1) {
        double lat = one_way(&j, j.leader[0], j.leader[1], 8);
        double o = per_message(&j, j.leader[0], j.leader[1]);
        at += (size_t)snprintf(model + at, sizeof model - at, "tacio_msg_overhead=%.4g,", o);
        double link = (double)CHUNK / one_way(&j, j.leader[0], j.leader[1], CHUNK);
        at += (size_t)snprintf(model + at, sizeof model - at, "tacio_bw_link=%.4g,", link);
        bw_factors(&j, j.leader[0], j.leader[1], link, lat, factors, sizeof factors);
        at += (size_t)snprintf(model + at, sizeof model - at, "tacio_bw_factors=%s,", factors);
        int a, b;
        if (!cross_switch_pair(&j, topology, &a, &b))
            at += (size_t)snprintf(model + at, sizeof model - at, "tacio_bw_uplink=%.4g,",
                                   (double)CHUNK / one_way(&j, a, b, CHUNK));
        at += (size_t)snprintf(model + at, sizeof model - at, "tacio_latency=%.4g,", lat);
    }
    int mate = j.leader[0] + 1; /* host 0's second rank, when it has one */
    int two = mate < j.nprocs && !strcmp(j.name[mate], j.name[j.leader[0]]);
    if (two) {
        double copy = (double)CHUNK / one_way(&j, j.leader[0], mate, CHUNK);
        at += (size_t)snprintf(model + at, sizeof model - at, "tacio_bw_copy=%.4g,", copy);
        if (j.nhosts == 1) {
            at += (size_t)snprintf(model + at, sizeof model - at, "tacio_latency=%.4g,",
                                   one_way(&j, j.leader[0], mate, 8));
            at += (size_t)snprintf(model + at, sizeof model - at, "tacio_msg_overhead=%.4g,",
                                   per_message(&j, j.leader[0], mate));
        }
    }
    double one = write_time(&j, j.rank == 0);
    double host = write_time(&j, j.host == 0);
    double all = write_time(&j, j.rank == j.leader[j.host]);
    int mine = j.host == 0, on_host0;
    MPI_Allreduce(&mine, &on_host0, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    snprintf(model + at, sizeof model - at,
             "tacio_bw_agg_io=%.4g,tacio_bw_node_io=%.4g,tacio_bw_fs=%.4g", j.bytes / one,
             (double)j.bytes * on_host0 / host, (double)j.bytes * j.nhosts / all);
    int bad = j.rank == 0 && profile && write_profile(profile, model) != 0;
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad)
        die(&j, "cannot write the profile file");
    if (j.rank == 0)
        printf("hosts=%d ranks=%d dir=%s mib_per_writer=%lld model=%s\n", j.nhosts, j.nprocs, j.dir,
               (long long)(j.bytes >> 20), model);
    MPI_Finalize();
    return 0;
}
