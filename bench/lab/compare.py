#!/usr/bin/env python3
"""bench/lab --compare-smpi: the lab's jobs run again under SimGrid SMPI on
the platform the lab built, and the two instruments compared stage by stage.

The platform is the lab's own: its hosts and two switches (`tacio
platform` on the lab's tree spec and rank layout), and two ways of filling
in its rates:

  smpi         the rates the lab set (tc's node and uplink rates), the
               latency it measured, and bench/smpi's configuration as it
               runs the papers' jobs (SMPI's default bandwidth and latency
               factors): how far the simulated figures elsewhere in the
               docs can be from a real stack;
  smpi_fitted  what tacio-calibrate measured in the lab: the links' and
               uplinks' rates, the bandwidth factors of smaller messages
               (SMPI's smpi/bw-factor) and the latency, with no latency
               factor: the simulation made as true as the lab's own
               measurements allow (what issue 74 calls feeding the lab back
               into the simulator).

Both get the storage as the lab's runs meet it: the driver's writes are not
synced, so they go to this machine's page cache, shared by every virtual
host. Each simulated host's disk takes that rate (one writer's, measured
here on the lab's directory: tacio-calibrate's rates are synced, 5-10x
slower), shared out among the hosts beyond the machine's cores. A disk too
slow shows in the exchange as well as in the I/O: a rank's exchange stage
ends with the call's last agreement, so it waits for the aggregators'
writes (tatp's ior1 on a disk at the synced rate: 1.45x the lab).

Prints, per job, strategy and stage (the write's and the read's exchange
and I/O, and each call's whole time):
  compare pattern=P strategy=S stage=write_exchange lab_s=X lab_min_s=A
          lab_max_s=B smpi_s=Y smpi_over_lab=R smpi_fitted_s=Z
          smpi_fitted_over_lab=Q
per job, for each simulation, how it orders the strategies by the write's
exchange against the lab (Kendall's tau over the pairs; the best of each,
and whether the lab's best is clear: its slowest run faster than the
runner-up's fastest; unknown with one run each):
  compare_order pattern=P sim=smpi kendall_tau=T lab_best=S sim_best=S2
          lab_best_clear=yes|no|unknown same_best=yes|no
and for each simulation the share of exchange rows within 20% of the lab:
  compare_goal sim=smpi exchange_rows=N within_20pct=K share=F goal_met=yes|no

Rows whose plan sends nothing over a link (max_link_load=0: each
aggregator's file domain is its own host's data) are shown but not
counted: their exchange is copies between a host's ranks, which on the
lab's two shared cores are CPU work SMPI does not model (its loopback
moves them at memory speed).

usage: compare.py RESULTS --work DIR --build DIR (tacio and tacio-smpibench built there)
                  --topology T --procs N --per-node R --placement cyclic|block
                  --node-rate R --uplink-rate R --model HINTS --hints HINTS
                  --jobs "P N,P N" --strategies S1,S2 [--calls C]"""
import argparse
import concurrent.futures
import itertools
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "smpi"))
from benchlib import cmake_targets, parse_kv  # noqa: E402
from simbench.launch import smpirun  # noqa: E402

# SimGrid 3.32's default smpi/lat-factor for messages under 257 bytes: the
# latency a small message pays is the route's latency times this
SMPI_SMALL_LAT_FACTOR = 2.01467
HOPS_IN_RACK = 2  # host, switch, host: the pair tacio-calibrate times
STAGES = {"exchange": 4, "io": 5}
WITHIN = 0.20


def rate_bps(text):
    """tc's rate ("400mbit", "1gbit", "800kbit", "1000000bit") in bytes/s."""
    m = re.fullmatch(r"([0-9.]+)(k|m|g)?bit", text.lower())
    if not m:
        sys.exit(f"bench/lab: --compare-smpi needs rates in tc's bits (400mbit), not {text}")
    return float(m.group(1)) * {"k": 1e3, "m": 1e6, "g": 1e9, None: 1}[m.group(2)] / 8


def model_of(hints):
    """{key: value} of tacio-calibrate's model= hints."""
    return dict(kv.split("=", 1) for kv in hints.split(",") if "=" in kv)


def page_cache_rate(work, mib=64, chunk=1 << 20):
    """Bytes/s of one writer's unsynced writes to a file in work: the best
    of three (the machine is shared)."""
    path, block, best = os.path.join(work, "storage.probe"), b"\1" * chunk, 0.0
    for _ in range(3):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        t0 = time.perf_counter()
        for i in range(mib):
            os.pwrite(fd, block, i * chunk)
        best = max(best, mib * chunk / (time.perf_counter() - t0))
        os.close(fd)
        os.unlink(path)
    return best


def platforms(a, model):
    """{sim: (platform dir, extra smpirun cfg)} for both simulations."""
    nhosts = len(set(hosts_of_layout(a)))
    disk = page_cache_rate(a.work) * min(1.0, (os.cpu_count() or 1) / nhosts)
    print(f"compare_platform hosts={nhosts} disk_Bps={disk:.3g} "
          f"latency_s={float(model['tacio_latency']):.3g}", flush=True)
    lat = float(model["tacio_latency"]) / HOPS_IN_RACK
    rates = {
        "smpi": ([rate_bps(a.node_rate), rate_bps(a.uplink_rate)], lat / SMPI_SMALL_LAT_FACTOR,
                 []),
        "smpi_fitted": ([float(model["tacio_bw_link"]),
                         float(model.get("tacio_bw_uplink", model["tacio_bw_link"]))], lat,
                        [f"--cfg=smpi/bw-factor:{model['tacio_bw_factors']}",
                         "--cfg=smpi/lat-factor:0:1"]),
    }
    out = {}
    for sim, (links, latency, cfg) in rates.items():
        d = os.path.join(a.work, f"platform-{sim}")
        subprocess.run([a.tacio, "platform", "--topology", a.topology, "--procs", str(a.procs),
                        "--placement", a.placement, "--network", "tree", "--out", d,
                        "--link-bw", ",".join(f"{b:.0f}Bps" for b in links),
                        "--latency", f"{latency * 1e6:.3f}us", "--disk-bw", f"{disk:.0f}Bps"],
                       check=True, stdout=subprocess.DEVNULL)
        out[sim] = (d, cfg)
    return out


def hosts_of_layout(a):
    """The hosts ranks sit on: rank r on host r mod K (cyclic) or r // per (block)."""
    nodes = a.procs // a.per_node
    if a.placement == "cyclic":
        return [f"n{r % nodes}" for r in range(a.procs)]
    return [f"n{r // a.per_node}" for r in range(a.procs)]


def check_hostfile(a, plat_dir):
    """The simulated ranks sit where the lab's did (mpirun --map-by node or
    slot): the comparison is void otherwise."""
    with open(os.path.join(plat_dir, "hostfile")) as f:
        got = [line.strip() for line in f if line.strip()]
    if got != hosts_of_layout(a):
        sys.exit(f"bench/lab: tacio platform placed the ranks {got}, the lab {hosts_of_layout(a)}")


def simulate(a, plat, job, strategy, n):
    """The driver's line under smpirun on plat = (dir, cfg)."""
    plat_dir, cfg = plat
    pattern, size = job.split()
    data = os.path.join(a.work, f"smpi-data.{n}")
    cmd = [*smpirun(plat_dir, a.procs), *cfg, a.smpibench, data, pattern, size, strategy, *([str(a.calls)] if a.calls > 1 else [])]
    env = dict(os.environ, TACIO_HINTS=a.hints)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if os.path.exists(data):
        os.unlink(data)
    lines = [line for line in p.stdout.splitlines() if line.startswith("pattern=")]
    if p.returncode or not lines:
        sys.exit(f"bench/lab: smpirun {pattern} {strategy} failed (exit {p.returncode}): "
                 f"{p.stderr.strip()[-400:]}")
    r = parse_kv(lines[-1])
    if r["buffer_wrong"] != "0" or r["file_wrong"] != "0":
        sys.exit(f"bench/lab: wrong data under SMPI: {lines[-1]}")
    return r


def stage_seconds(r, direction, stage):
    if stage == "call":
        return float(r[f"{direction}_s"])
    return float(r[f"{direction}_st{STAGES[stage]}"])


def kendall_tau(xs, ys):
    """Kendall's tau-a of two orderings of the same items (ties count 0)."""
    pairs = list(itertools.combinations(range(len(xs)), 2))
    if not pairs:
        return 1.0
    s = sum(_sign(xs[i] - xs[j]) * _sign(ys[i] - ys[j]) for i, j in pairs)
    return s / len(pairs)


def _sign(x):
    return (x > 0) - (x < 0)


def lab_runs(path):
    runs = {}
    for line in open(path):
        r = parse_kv(line)
        runs.setdefault((r["pattern"], r["strategy"]), []).append(r)
    return runs


def compare(a, lab, sims):
    """The rows, the orders and the goals (module docstring)."""
    counted = {sim: [0, 0] for sim in sims}
    for job in a.jobs:
        pattern = job.split()[0]
        strategies = [s for s in a.strategies if (pattern, s) in lab]
        for s in strategies:
            for direction, stage in itertools.product(("write", "read"),
                                                      ("exchange", "io", "call")):
                ts = [stage_seconds(r, direction, stage) for r in lab[(pattern, s)]]
                med = statistics.median(ts)
                row = (f"compare pattern={pattern} strategy={s} stage={direction}_{stage} "
                       f"lab_s={med:.4f} lab_min_s={min(ts):.4f} lab_max_s={max(ts):.4f}")
                for sim, runs in sims.items():
                    t = stage_seconds(runs[(pattern, s)], direction, stage)
                    ratio = t / med if med > 0 else float("inf")
                    row += f" {sim}_s={t:.4f} {sim}_over_lab={ratio:.3f}"
                    if stage == "exchange" and over_links(lab[(pattern, s)]):
                        counted[sim][0] += 1
                        counted[sim][1] += abs(ratio - 1) <= WITHIN
                print(row, flush=True)
        order(pattern, strategies, lab, sims)
    for sim, (n, k) in counted.items():
        share = k / n if n else 0.0
        print(f"compare_goal sim={sim} exchange_rows={n} within_20pct={k} share={share:.2f} "
              f"goal_met={'yes' if n and share >= 0.8 else 'no'}")


def over_links(runs):
    """Whether the plan sends bytes over a link (the same in every run)."""
    return int(runs[0]["max_link_load"]) > 0


def order(pattern, strategies, lab, sims):
    """compare_order: the strategies by the write's exchange, lab against each sim."""
    if len(strategies) < 2:
        return
    runs = {s: [stage_seconds(r, "write", "exchange") for r in lab[(pattern, s)]]
            for s in strategies}
    med = {s: statistics.median(ts) for s, ts in runs.items()}
    ranked = sorted(strategies, key=med.get)
    best, second = ranked[0], ranked[1]
    # clear: the runs do not overlap; one run each cannot say
    clear = "yes" if max(runs[best]) < min(runs[second]) else "no"
    if min(len(runs[best]), len(runs[second])) < 2:
        clear = "unknown"
    for sim, sruns in sims.items():
        t = {s: stage_seconds(sruns[(pattern, s)], "write", "exchange") for s in strategies}
        tau = kendall_tau([med[s] for s in strategies], [t[s] for s in strategies])
        sim_best = min(strategies, key=t.get)
        print(f"compare_order pattern={pattern} sim={sim} kendall_tau={tau:.2f} lab_best={best} "
              f"sim_best={sim_best} lab_best_clear={clear} "
              f"same_best={'yes' if sim_best == best else 'no'}", flush=True)


def parse():
    ap = argparse.ArgumentParser(prog="bench/lab/compare.py")
    ap.add_argument("results")
    for flag in ("--work", "--build", "--topology", "--node-rate",
                 "--uplink-rate", "--model", "--hints", "--jobs", "--strategies"):
        ap.add_argument(flag, required=True)
    ap.add_argument("--procs", type=int, required=True)
    ap.add_argument("--per-node", type=int, required=True)
    ap.add_argument("--placement", choices=("cyclic", "block"), required=True)
    ap.add_argument("--calls", type=int, default=1)
    a = ap.parse_args()
    a.jobs = a.jobs.split(",")
    a.strategies = a.strategies.split(",")
    return a


def main():
    a = parse()
    cmake_targets(a.build, ["tacio", "tacio-smpi"], "bench/lab")
    a.tacio = os.path.join(a.build, "bin", "tacio")
    a.smpibench = os.path.join(a.build, "bin", "tacio-smpibench")
    model = model_of(a.model)
    plats = platforms(a, model)
    for plat in plats.values():
        check_hostfile(a, plat[0])
    lab = lab_runs(a.results)
    cases = [(sim, job, s) for sim in plats for job in a.jobs for s in a.strategies
             if (job.split()[0], s) in lab]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        done = list(pool.map(lambda c: simulate(a, plats[c[0]], c[1], c[2], cases.index(c)),
                             cases))
    sims = {sim: {} for sim in plats}
    for (sim, job, s), r in zip(cases, done):
        sims[sim][(job.split()[0], s)] = r
    compare(a, lab, sims)


if __name__ == "__main__":
    main()
