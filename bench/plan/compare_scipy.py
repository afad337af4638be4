#!/usr/bin/env python3
"""bench/plan: tacio's tree min-cost flow against scipy's
linear_sum_assignment on the same hop-bytes problems, in the same run.

Each case: R racks x 16 nodes x 32 cores (ranks), A file domains; each rank
holds data for 1-3 consecutive FDs (see lapbench.c). tacio solves from C and
the tree and never builds W; scipy gets the dense W (A x p, built by tacio's
tool outside both timings). Prints one line per case and fails if the optimal
costs differ."""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.optimize import linear_sum_assignment

# (name, racks, FDs, scipy repeats): the last is the 65,536 ranks x
# 4,096 FDs, whose dense W alone is 2 GiB; scipy still runs it here (24 GiB).
CASES = [("4096x512", 8, 512, 3), ("16384x1024", 32, 1024, 3), ("65536x4096", 128, 4096, 1)]
REPEATS = 3


def run_tacio(lapbench, racks, fds, w_path):
    best, cost = None, None
    for i in range(REPEATS):
        args = [lapbench, "tree", "--racks", str(racks), "--fds", str(fds)]
        if i == 0:
            args += ["--w-out", w_path]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        f = dict(kv.split("=", 1) for kv in out.split())
        secs = float(f["seconds"])
        best = secs if best is None else min(best, secs)
        cost = int(f["cost"])
    return best, cost


def run_scipy(w_path, repeats):
    raw = np.fromfile(w_path, dtype=np.int64)
    w = raw[2:].reshape(int(raw[0]), int(raw[1]))
    best = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        rows, cols = linear_sum_assignment(w)
        secs = time.perf_counter() - t0
        best = secs if best is None else min(best, secs)
    return best, int(w[rows, cols].sum())


def main():
    lapbench = sys.argv[1]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, racks, fds, repeats in CASES:
            w_path = os.path.join(tmp, "w.bin")
            t_s, t_cost = run_tacio(lapbench, racks, fds, w_path)
            s_s, s_cost = run_scipy(w_path, repeats)
            os.remove(w_path)
            same = t_cost == s_cost
            ok = ok and same
            print(f"case={name} tacio_s={t_s:.6f} scipy_s={s_s:.6f} "
                  f"speedup_vs_scipy={s_s / t_s:.1f} same_cost={'yes' if same else 'no'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
