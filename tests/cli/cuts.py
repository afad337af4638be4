#!/usr/bin/env python3
"""The cuts strategy and its bound against brute force, through the tacio command.

Random extents (extents: patterns, pieces of 1-3 bytes, each byte of a
12-byte file held by one of four ranks or by none) on a two-rack tree of
four one-core hosts (tree:racks=2,nodes=2,cores=1), uplinks at half a host
link's rate. Here every partition of the file into at most four contiguous
FDs (a cut at any byte) and every placement of them on distinct hosts is
enumerated, with the link loads computed from the extents alone. Checks,
per case:
  - partition_seconds_bound (the lower bound over all partitions) is at
    most the brute-force optimum's slowest link;
  - cuts' plan has a slowest link no faster than the bound, its detail's
    link_seconds is the plan's own (recomputed here from its FDs and
    aggregators), and ratio = link_seconds / bound;
  - cuts' model time is never above bottleneck's (ROMIO's FDs are its
    first candidate, assigned the same way).
Then a case where moving a boundary to where the holders change pays: two
aggregators (cb_nodes=2, on hosts 0 and 1), host 0 holding the file's
first third and host 1 the rest; ROMIO's even FDs send host 1's bytes of
the first half to host 0, the moved boundary nothing; with a striping
unit, every boundary on a stripe's edge.
usage: cuts.py TACIO"""
import itertools
import os
import random
import sys
import tempfile

from planner import Checks, plan_json

TACIO = sys.argv[1]
RACKS, NODES, L = 2, 2, 12
HOSTS = RACKS * NODES
RATES = {"h": 2.0, "s": 1.0}  # bytes/s: a host's link, a rack's uplink
HINTS = ["--hint", "tacio_bw_link=2", "--hint", "tacio_bw_uplink=1"]
check = Checks()


def plan(args, strategy):
    return plan_json(TACIO, args + HINTS, strategy)


def link_seconds(owner, fds):
    """The slowest link's seconds when FD [a, b) is on host h for (a, b, h)
    in fds; owner[x]: the host holding byte x, or None."""
    load = {}
    for a, b, h in fds:
        for x in range(a, b):
            o = owner[x]
            if o is None or o == h:
                continue
            for v, src, dst in ((("h", o), True, False), (("h", h), False, True),
                                (("s", o // NODES), True, False), (("s", h // NODES), False, True)):
                if v[0] == "s" and o // NODES == h // NODES:
                    continue  # within a rack: no uplink
                key = (v, "up" if src else "down")
                load[key] = load.get(key, 0) + 1
    return max([n / RATES[k[0][0]] for k, n in load.items()] + [0.0])


def brute(owner):
    """The least slowest-link time over every partition into at most HOSTS
    contiguous FDs, each on a distinct host."""
    best = None
    for k in range(1, HOSTS + 1):
        for cuts in itertools.combinations_with_replacement(range(L + 1), k - 1):
            edges = [0] + list(cuts) + [L]
            spans = [(edges[i], edges[i + 1]) for i in range(k)]
            for hosts in itertools.permutations(range(HOSTS), k):
                s = link_seconds(owner, [(a, b, h) for (a, b), h in zip(spans, hosts)])
                best = s if best is None or s < best else best
    return best


def write_extents(path, owner):
    """One line per run of bytes of one rank."""
    lines, x = [], 0
    while x < L:
        if owner[x] is None:
            x += 1
            continue
        y = x
        while y < L and owner[y] == owner[x]:
            y += 1
        lines.append(f"{owner[x]} {x} {y - x}")
        x = y
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def check_case(work, name, owner):
    path = os.path.join(work, f"{name}.txt")
    write_extents(path, owner)
    args = ["--pattern", f"extents:{path}", "--procs", str(HOSTS),
            "--topology", f"tree:racks={RACKS},nodes={NODES},cores=1"]
    p = plan(args, "cuts")
    detail = dict(kv.split("=") for kv in p["detail"].split())
    where = f"{name} ({path}: {p['detail']})"
    own = link_seconds(owner, [(fd["start"], fd["end"], fd["aggregator"]) for fd in p["fds"]])
    check(abs(float(detail["link_seconds"]) - own) <= 1e-5 * max(own, 1),
          f"{where}: link_seconds, this test computes {own}")
    bound, opt = float(detail["partition_seconds_bound"]), brute(owner)
    check(bound <= opt * (1 + 1e-5), f"{where}: bound {bound} above the optimum {opt}")
    check(own >= bound * (1 - 1e-5), f"{where}: the plan {own} beats the bound {bound}")
    check(bound == 0 or abs(float(detail["ratio"]) - own / bound) < 2e-3, f"{where}: ratio")
    check(p["model_seconds"] <= plan(args, "bottleneck")["model_seconds"] * (1 + 1e-9),
          f"{where}: rated slower than bottleneck")
    return p, detail, bound, opt


def main():
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as work:
        tight = 0
        for case in range(30):
            owner, x = [None] * L, 0
            while x < L:
                n, o = rng.randint(1, 3), rng.choice([None] + list(range(HOSTS)) * 3)
                owner[x:x + n] = [o] * len(owner[x:x + n])
                x += n
            if all(o is None for o in owner):
                owner[0] = 0
            _, _, bound, opt = check_case(work, f"c{case}", owner)
            tight += bound >= 0.5 * opt
        # the bound says something: within 2x of the optimum on most cases
        check(tight >= 20, f"the bound is within 2x of the optimum on only {tight}/30 cases")
        path = os.path.join(work, "skewed.txt")
        write_extents(path, [0] * 4 + [1] * 8)
        args = ["--pattern", f"extents:{path}", "--procs", str(HOSTS), "--topology",
                f"tree:racks={RACKS},nodes={NODES},cores=1", "--hint", "cb_nodes=2"]
        p, even = plan(args, "cuts"), plan(args, "bottleneck")
        check([(fd["start"], fd["end"]) for fd in p["fds"]] == [(0, 4), (4, 12)],
              f"skewed: FDs {p['fds']}, want [0, 4) and [4, 12)")
        check(p["max_link_load"] == 0 and even["max_link_load"] > 0,
              f"skewed: busiest link {p['max_link_load']}, bottleneck's {even['max_link_load']}")
        # with a striping unit every inner boundary lies on a stripe's edge
        for unit in (3, 5):
            fds = plan(args + ["--hint", f"striping_unit={unit}"], "cuts")["fds"]
            check(all(fd["end"] % unit == 0 for fd in fds[:-1]) and fds[-1]["end"] == L,
                  f"skewed, striping_unit={unit}: FDs {fds}")
    if check.failures:
        sys.exit(f"{check.failures} check(s) failed")
    print("cuts: ok")


main()
