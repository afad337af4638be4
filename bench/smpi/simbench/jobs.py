"""The simulated clusters and the jobs each mode runs on them."""
import math
import os
import random

from .records import Case, Job

CLUSTERS = {  # name -> (tacio's topology spec, tacio platform's rates)
    # The TATP paper's Inspur cluster: 4 racks x 20 nodes x 12 cores,
    # 40 Gb/s in a rack, 20 Gb/s between racks.
    "inspur": ("tree:racks=4,nodes=20,cores=12", ["--link-bw", "40Gbps,20Gbps"]),
    # The TATP paper's Sunway BlueLight, scaled to what SimGrid's Floyd
    # routing takes: racks of 32 nodes of 16 cores (BlueLight's super nodes
    # hold 256), 16 of them, the same links.
    "bluelight": ("tree:racks=16,nodes=32,cores=16", ["--link-bw", "40Gbps,20Gbps"]),
    "fattree": ("fattree:k=8,cores=16", ["--link-bw", "40Gbps"]),
    "dragonfly": ("dragonfly:groups=4,chassis=2,routers=4,nodes=4,cores=16",
                  ["--link-bw", "40Gbps"]),
}
# One client's share of the parallel file system, bytes/s: each host's
# <disk> on the tree platforms, TACIO_SIM_IO_BW where hosts have none.
IO_BW = 2e9
SIZES = {"cube": 128, "btio": 100, "ior": 32 << 10, "ior1": 256 << 10}  # edge; edge; block
SCATTER = "scatter:seed=1"

# run --auto: auto against every candidate, measured
AUTO_GRID = [Job("inspur", SCATTER, "cube", 64), Job("inspur", SCATTER, "cube", 125),
             Job("inspur", SCATTER, "cube", 512), Job("inspur", SCATTER, "btio", 100),
             Job("inspur", SCATTER, "ior", 64), Job("inspur", SCATTER, "ior1", 64),
             Job("inspur", "cyclic", "cube", 64), Job("inspur", "cyclic", "ior1", 64),
             Job("fattree", SCATTER, "cube", 64), Job("dragonfly", SCATTER, "cube", 64)]

# paper: the TATP paper's cube at 64, 125 and 512 ranks and BTIO at 100,
# 625 and 900 on the Inspur tree, both at 512/625 on the BlueLight-like
# machine, IOR-like segments of the same 64 GB, and cube at 512 under the
# other placements and networks. A 2000^3 array of doubles (the paper's
# "about 60GB"), data-free (TACIO_SIM_NODATA).
PAPER_EDGE = 2000
PAPER_BYTES = 8 * PAPER_EDGE ** 3
PAPER_JOBS = [Job("inspur", SCATTER, "cube", 64), Job("inspur", SCATTER, "cube", 125),
              Job("inspur", SCATTER, "cube", 512), Job("inspur", SCATTER, "btio8", 100),
              Job("inspur", SCATTER, "btio8", 625), Job("inspur", SCATTER, "btio8", 900),
              Job("bluelight", SCATTER, "cube", 512), Job("bluelight", SCATTER, "btio8", 625),
              Job("inspur", SCATTER, "ior", 512), Job("inspur", "block", "cube", 512),
              Job("inspur", "cyclic", "cube", 512), Job("fattree", SCATTER, "cube", 512),
              Job("dragonfly", SCATTER, "cube", 512)]
PAPER_QUICK = PAPER_JOBS[0]
# The jobs with a write goal: the best choice's write <= 0.8x ROMIO's default's.
PAPER_WRITE_GOAL = [Job("inspur", SCATTER, "cube", 512), Job("inspur", SCATTER, "btio8", 625)]
# paper --quick's candidates: the stripe-dealing strategies (lustre,
# tsujita) take minutes a run at the papers' size (1 MiB stripes: many
# more messages to simulate).
PAPER_QUICK_STRATEGIES = ("romio", "tatp", "bottleneck", "auto")
PER_HOST = (1, 2, 4)

# memory: the memory-conscious paper's experiment (its figs. 6-8, coll_perf
# 2048^3 on 120 processes) at the cube's 2000^3 on 120 ranks of the
# scattered Inspur tree: collective I/O under an aggregation budget of M
# bytes per process. The paper draws each process's buffer from a normal
# law, mean M, standard deviation 50% of M, and gives ROMIO M on every
# aggregator. tacio knows free memory per host: a host's is the largest of
# its processes' draws (tacio platform --memory file:PATH). ROMIO (one
# aggregator per host) holds M on each aggregator; mccio, at 1, 2 and 4 per
# host, places each FD on the host with the most, remerges FDs whose best
# host has less than M/2 (tacio_mem_min) and holds up to 4M.
MEMORY_JOB = Job("inspur", SCATTER, "cube", 120)
MEMORY_BUDGETS = (4 << 20, 16 << 20, 64 << 20)  # --quick: 16 MiB only

# the planner's spec of the driver's patterns (bench/common/pattern.h)
PLANNER_SPEC = {"cube": "collperf:n={n},elem={elem}", "btio8": "btio:n={n},elem={elem}",
                "btio": "btio:n={n},elem={elem}"}
PLANNER_ELEM = {"cube": 8, "btio8": 8, "btio": 40}  # bytes a cell


def each_strategy(jobs, strategies, per_host=PER_HOST):
    """Every strategy at each K per host on each job; auto once (it picks
    its own K)."""
    return [Case(job, k, s) for job in jobs for s in strategies
            for k in ((1,) if s == "auto" else per_host)]


# auto's candidates are rated with node aggregation first too: in --auto's
# grid each runs so as a fixed choice of its own (issue 50: auto is judged
# against the best of its own candidate set, node aggregation on and off).
NODE_AGGREGATION = "tacio_node_aggregation=enable"


def small_cases(mode, ranks, strategies, candidates=()):
    """run's cases: cube, btio and ior at one aggregator per host (quick:
    cube at 64 ranks only), with sweep the TATP paper's axes too; with
    auto, every strategy at 1, 2 and 4 per host on AUTO_GRID, and each of
    auto's candidates (`tacio list candidates`) with node aggregation."""
    if mode == "auto":
        return each_strategy(AUTO_GRID, strategies) + [
            Case(job, k, s, (NODE_AGGREGATION,)) for job in AUTO_GRID
            for s in strategies if s in candidates for k in PER_HOST]
    if mode == "quick":
        return [Case(Job("inspur", SCATTER, "cube", 64), 1, s) for s in strategies]
    jobs = [Job("inspur", SCATTER, "cube", ranks), Job("inspur", SCATTER, "btio", 625),
            Job("inspur", SCATTER, "ior", ranks)]
    cases = [Case(j, 1, s) for j in jobs for s in strategies]
    if mode != "sweep":
        return cases
    for s in strategies:
        cases += [Case(Job("inspur", pl, "cube", ranks), 1, s) for pl in ("block", "cyclic")]
        cases += [Case(Job("inspur", SCATTER, "cube", ranks), k, s) for k in (2, 4)]
        cases += [Case(Job("inspur", SCATTER, "cube", n), 1, s) for n in (64, 125)]
        cases += [Case(Job("inspur", SCATTER, "btio", n), 1, s) for n in (100, 400)]
        cases += [Case(Job(c, SCATTER, "cube", ranks), 1, s) for c in ("fattree", "dragonfly")]
    return cases


def paper_cases(job_names, strategies, per_host, hints):
    """paper's cases: the named jobs' every strategy at each K, and auto."""
    jobs = [j for j in PAPER_JOBS if j.name in job_names]
    return [Case(c.job, c.per_host, c.strategy, tuple(hints))
            for c in each_strategy(jobs, strategies, per_host)]


def memory_draws(work, budget, seed=1):
    """Per host of the cluster, its processes' buffers (one draw per core),
    and the file:PATH spec of the hosts' free memory (the largest draw)."""
    shape = dict(kv.split("=") for kv in CLUSTERS[MEMORY_JOB.cluster][0].split(":")[1].split(","))
    hosts, cores = int(shape["racks"]) * int(shape["nodes"]), int(shape["cores"])
    rng = random.Random(seed)
    draws = [[max(0, int(rng.gauss(budget, budget / 2))) for _ in range(cores)]
             for _ in range(hosts)]
    path = os.path.join(work, f"memory-{budget}")
    with open(path, "w") as f:
        f.writelines(f"{h} {max(d)}\n" for h, d in enumerate(draws))
    return draws, f"file:{path}"


def memory_cases(work, quick):
    """The experiment's runs, and each budget's draws."""
    budgets = MEMORY_BUDGETS[1:2] if quick else MEMORY_BUDGETS
    cases, draws = [], {}
    for m in budgets:
        draws[m], spec = memory_draws(work, m)
        fields = (("experiment", "memory"), ("budget", m))
        cases.append(Case(MEMORY_JOB, 1, "romio", (f"cb_buffer_size={m}",), None, fields))
        cases += [Case(MEMORY_JOB, k, "mccio", (f"cb_buffer_size={4 * m}",
                                                f"tacio_mem_min={m // 2}"), spec, fields)
                  for k in PER_HOST]
    return cases, draws


def driver_size(pattern, ranks, paper):
    """The driver's size argument: the bench's own, or the papers' (2000^3
    doubles; ior: 8 segments a rank of the same 64 GB in all)."""
    if not paper:
        return SIZES[pattern]
    if pattern == "ior":
        return PAPER_BYTES // (8 * ranks) // 8 * 8
    return PAPER_EDGE


def planner_pattern(job, nbytes=None):
    """The planner's spec of a job's pattern at the size the driver ran it:
    the edge a run's bytes give (nbytes, its stored "bytes": the bench's
    own sizes, 128^3 cubes, a BTIO of 100^3 cells), else the papers'
    (BTIO's edge cut to a multiple of its grid's side, as pattern_shape
    cuts it: 1980 at 900 ranks); None for one it does not name."""
    if job.pattern not in PLANNER_SPEC:
        return None
    if nbytes:
        n = round((int(nbytes) / PLANNER_ELEM[job.pattern]) ** (1 / 3))
    else:
        n = PAPER_EDGE
        if job.pattern.startswith("btio"):
            q = math.isqrt(job.ranks)
            n = n // q * q
    return PLANNER_SPEC[job.pattern].format(n=n, elem=PLANNER_ELEM[job.pattern])
