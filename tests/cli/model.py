#!/usr/bin/env python3
"""auto's cost model, term by term, through `tacio plan --json`: changing one
bandwidth hint must change model_seconds by exactly that term's bytes over
the difference of the two rates, with the bytes taken from the plan itself
(README "auto's cost model"):
  - tacio_bw_uplink: the busiest link between switches (below a switch);
  - tacio_bw_link: with the uplinks slow, a host's own links do not count;
  - tacio_bw_host_io: the bytes of the busiest host's aggregators;
  - unset tacio_bw_host_io: not charged at all.
The other terms are held constant (or made negligible) by the hints.

usage: model.py TACIO_EXE
"""
import json
import subprocess
import sys

failures = []
JOB = ["--pattern", "cube:n=32", "--procs", "8", "--topology", "tree:racks=2,nodes=2,cores=2"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def plan(tacio, placement, strategy, **hints):
    cmd = [tacio, "plan"] + JOB + ["--placement", placement, "--strategy", strategy, "--json"]
    for k, v in hints.items():
        cmd += ["--hint", f"tacio_{k}={v}"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-12)


def test_uplink(tacio):
    # fast disks and file system, fast hosts' links: the uplinks decide
    fast = dict(bw_agg_io=1e15, bw_fs=1e15, bw_link=1e15, latency=1e-15)
    for s in ("romio", "tatp"):
        a = plan(tacio, "cyclic", s, bw_uplink=1e6, **fast)
        b = plan(tacio, "cyclic", s, bw_uplink=2e6, **fast)
        up = max(max(l["up"], l["down"]) for l in a["links"] if l["below"].startswith("s"))
        check(up > 0, f"{s}: the cyclic job crosses the uplinks")
        want = up * (1 / 1e6 - 1 / 2e6)
        got = a["model_seconds"] - b["model_seconds"]
        check(close(got, want), f"{s}: uplink term {got} s, want {want} s ({up} B)")
        # a host's own link, 10x faster than before, changes nothing: the
        # uplinks stay the bottleneck
        c = plan(tacio, "cyclic", s, bw_uplink=1e6, **dict(fast, bw_link=1e14))
        check(close(a["model_seconds"], c["model_seconds"]),
              f"{s}: hosts' links counted while the uplinks are slower")


def test_host_io(tacio):
    fast = dict(bw_agg_io=1e15, bw_fs=1e15, bw_link=1e15, latency=1e-15)
    for s in ("romio", "auto"):
        per_host = dict(aggs_per_host=2)
        a = plan(tacio, "block", s, bw_host_io=1e3, **fast, **per_host)
        b = plan(tacio, "block", s, bw_host_io=2e3, **fast, **per_host)
        host_bytes = {}
        for fd in a["fds"]:  # block placement, 2 cores: rank r on host r // 2
            h = fd["aggregator"] // 2
            host_bytes[h] = host_bytes.get(h, 0) + fd["bytes"]
        busiest = max(host_bytes.values())
        want = busiest * (1 / 1e3 - 1 / 2e3)
        got = a["model_seconds"] - b["model_seconds"]
        check(close(got, want), f"{s}: host I/O term {got} s, want {want} s ({busiest} B)")
        unset = plan(tacio, "block", s, **fast, **per_host)
        check(unset["model_seconds"] < b["model_seconds"] / 10,
              f"{s}: unset tacio_bw_host_io still charged ({unset['model_seconds']} s)")


def main():
    tacio = sys.argv[1]
    test_uplink(tacio)
    test_host_io(tacio)
    print(f"model: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
