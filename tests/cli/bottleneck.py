#!/usr/bin/env python3
"""The bottleneck strategy against brute force, through the tacio command.

Random communication matrices (matrix: patterns) on a two-rack tree of six
one-core hosts (tree:racks=2,nodes=3,cores=1): every injective assignment of
the FDs to the six aggregator candidates is enumerated here, with the link
loads computed from the matrix alone (holders below a link that does not
lead to the aggregator send up it; the path to the aggregator carries down
what is not already below each link). Checks, per case:
  - the plan's busiest link is the optimum, its hop-bytes the least among
    the optimal assignments (the tie-breaker), and its detail says exact;
  - the lower bound it reports is <= the optimum and ratio = max / bound;
  - it is never worse than romio's or tatp's busiest link.
Then larger jobs (cube on 4 racks, 2 cores per host, the search path):
bound <= result <= romio's and tatp's busiest link.
usage: bottleneck.py TACIO"""
import itertools
import os
import random
import sys
import tempfile

from planner import Checks, plan_json

TACIO = sys.argv[1]
RACKS, NODES = 2, 3
HOSTS = RACKS * NODES
check = Checks()


def plan(args, strategy):
    return plan_json(TACIO, args, strategy)


def loads(c, assign, rates=None):
    """(busiest link, hop-bytes) of FD j -> host assign[j]; with rates (a
    host's link, a rack's uplink), the busiest link's seconds instead."""
    links = {}  # (vertex, direction) -> bytes; vertices: ("h", i), ("s", r)
    hop = 0
    for j, h in enumerate(assign):
        tot = sum(row[j] for row in c)
        rack_in = [sum(c[r * NODES + n][j] for n in range(NODES)) for r in range(RACKS)]
        path = {("h", h), ("s", h // NODES)}
        for v in [("h", i) for i in range(HOSTS)] + [("s", r) for r in range(RACKS)]:
            below = c[v[1]][j] if v[0] == "h" else rack_in[v[1]]
            if v in path:
                key, val = (v, "down"), tot - below
            else:
                key, val = (v, "up"), below
            links[key] = links.get(key, 0) + val
            hop += val
    if rates:
        return max(v / rates[k[0][0] == "s"] for k, v in links.items())
    return max(links.values()), hop


def brute(c, a, rates=None):
    best = None
    for assign in itertools.permutations(range(HOSTS), a):
        s = loads(c, assign, rates)
        best = s if best is None or s < best else best
    return best


def small_cases(work):
    rng = random.Random(7)
    for case in range(40):
        a = rng.randint(2, 5)
        c = [[rng.choice([0, 0, rng.randint(1, 64)]) for _ in range(a)] for _ in range(HOSTS)]
        for j in range(a):  # every FD holds something
            c[rng.randrange(HOSTS)][j] += rng.randint(1, 16)
        path = os.path.join(work, f"c{case}.txt")
        with open(path, "w") as f:
            f.write("\n".join(" ".join(map(str, row)) for row in c) + "\n")
        args = ["--pattern", f"matrix:{path}", "--topology",
                f"tree:racks={RACKS},nodes={NODES},cores=1", "--procs", str(HOSTS)]
        p = plan(args, "bottleneck")
        opt_max, opt_hop = brute(c, a)
        detail = dict(kv.split("=") for kv in p["detail"].split())
        where = f"case {case} ({path}: {p['detail']})"
        check(p["max_link_load"] == opt_max, f"{where}: busiest link {p['max_link_load']}, "
              f"optimum {opt_max}")
        check(p["hop_bytes"] == opt_hop, f"{where}: hop-bytes {p['hop_bytes']}, least among "
              f"optimal {opt_hop}")
        check(detail.get("solver") == "exact", f"{where}: not solved exactly")
        bound = int(detail["lower_bound"])
        check(bound <= opt_max, f"{where}: bound {bound} above the optimum {opt_max}")
        check(abs(float(detail["ratio"]) - opt_max / max(bound, 1)) < 2e-3 or bound == 0,
              f"{where}: ratio")
        for other in ("romio", "tatp"):
            check(p["max_link_load"] <= plan(args, other)["max_link_load"],
                  f"{where}: worse than {other}")
        # the bound in seconds, uplinks at half a host link's rate: no
        # assignment's slowest link is faster; with one rate, bytes / rate
        rated = plan(args + ["--hint", "tacio_bw_link=2", "--hint", "tacio_bw_uplink=1"],
                     "bottleneck")
        secs = float(dict(kv.split("=") for kv in rated["detail"].split())["link_seconds_bound"])
        opt_secs = brute(c, a, (2.0, 1.0))
        check(secs <= opt_secs * (1 + 1e-5), f"{where}: seconds bound {secs} above the "
              f"optimum {opt_secs}")
        check(secs >= bound / 2 * (1 - 1e-5), f"{where}: seconds bound {secs} below bytes/rate")
        check(abs(float(detail["link_seconds_bound"]) - bound / 12.5e9) <= 1e-5 * bound / 12.5e9,
              f"{where}: one rate: {detail['link_seconds_bound']} s, want {bound / 12.5e9}")
        # the brute force's own loads agree with the planner's on romio's assignment
        r = plan(args, "romio")
        check(loads(c, [fd["aggregator"] for fd in r["fds"]])[0] == r["max_link_load"],
              f"{where}: this test's link loads disagree with the planner's")


def large_cases():
    for placement in ("scatter:seed=1", "cyclic", "block"):
        args = ["--pattern", "cube:n=48", "--procs", "64", "--topology",
                "tree:racks=4,nodes=8,cores=2", "--placement", placement]
        p = plan(args, "bottleneck")
        detail = dict(kv.split("=") for kv in p["detail"].split())
        check(int(detail["lower_bound"]) <= p["max_link_load"], f"{placement}: bound above")
        for other in ("romio", "tatp"):
            check(p["max_link_load"] <= plan(args, other)["max_link_load"],
                  f"{placement}: worse than {other}")


with tempfile.TemporaryDirectory() as work:
    small_cases(work)
large_cases()
print(f"bottleneck: {'FAILED' if check.failures else 'ok'} ({check.failures} failures)")
sys.exit(1 if check.failures else 0)
