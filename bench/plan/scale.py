#!/usr/bin/env python3
"""bench/plan scale section: `tacio plan` at a million ranks, per strategy.

The issue's case: a cube of 10100^3 doubles on 101^3 = 1,030,301 ranks,
scattered over a two-level tree of 150 racks x 150 nodes x 48 cores. Each
strategy runs once as its own process; wall time and peak RSS come from
wait4() on that process, plan_s from the plan's own JSON. Prints one line
per strategy:
  case=plan-1m strategy=S plan_s=... wall_s=... peak_mib=... hop_bytes=... messages=...
and `goal_met=yes|no` against <= 5 s and <= 2 GiB. A strategy that does not
finish within the time limit prints plan_s=timeout."""
import json
import os
import subprocess
import sys
import tempfile
import time

ARGS = ["plan", "--pattern", "cube:n=10100", "--procs", "1030301",
        "--topology", "tree:racks=150,nodes=150,cores=48",
        "--placement", "scatter:seed=1", "--json"]
STRATEGIES = ["romio", "latp", "tatp", "mccio", "tsujita"]
LIMIT_S = 600
GOAL_S, GOAL_MIB = 5.0, 2048


def run(tacio, strategy, out_path):
    with open(out_path, "w") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen([tacio] + ARGS + ["--strategy", strategy], stdout=out)
        deadline = t0 + LIMIT_S
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return None
            time.sleep(0.05)
        wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"tacio plan --strategy {strategy} failed ({status})")
    return wall, usage.ru_maxrss / 1024.0


def main():
    tacio = sys.argv[1]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plan.json")
        for s in sys.argv[2:] or STRATEGIES:
            got = run(tacio, s, path)
            if got is None:
                print(f"case=plan-1m strategy={s} plan_s=timeout limit_s={LIMIT_S} goal_met=no")
                ok = False
                continue
            wall, mib = got
            with open(path) as f:
                plan = json.load(f)
            met = wall <= GOAL_S and mib <= GOAL_MIB
            ok = ok and met
            print(f"case=plan-1m strategy={s} plan_s={plan['plan_seconds']:.2f} wall_s={wall:.2f} "
                  f"peak_mib={mib:.0f} hop_bytes={plan['hop_bytes']} messages={plan['messages']} "
                  f"goal_met={'yes' if met else 'no'}", flush=True)
    print(f"plan_1m_all_goals_met={'yes' if ok else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
