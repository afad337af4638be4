#!/usr/bin/env python3
"""tacio's LAP solvers against an independent one: scipy's
linear_sum_assignment (Crouse's shortest augmenting path, float64).

Random matrices (ties, small and 1e12-sized costs, square and rectangular,
up to 2000 x 2000) go to tacio's dense solver; hop-bytes-like tree problems go
to the min-cost flow, with scipy solving the W the flow never builds."""
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.optimize import linear_sum_assignment

LAPBENCH = sys.argv[1]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def write_matrix(path, w):
    header = np.array(w.shape, dtype=np.int64)
    np.concatenate([header, w.ravel().astype(np.int64)]).tofile(path)


def read_matrix(path):
    raw = np.fromfile(path, dtype=np.int64)
    return raw[2:].reshape(int(raw[0]), int(raw[1]))


def fields(out):
    return dict(kv.split("=", 1) for kv in out.split())


def tacio_dense(w, tmp):
    path = os.path.join(tmp, "w.bin")
    write_matrix(path, w)
    out = subprocess.run([LAPBENCH, "dense", path], check=True, capture_output=True, text=True)
    f = fields(out.stdout)
    return int(f["cost"]), [int(x) for x in f["assignment"].split(",")]


def scipy_cost(w):
    rows, cols = linear_sum_assignment(w)
    # exact integer sum: float64 holds the entries (< 2^53) exactly
    return int(w[rows, cols].sum())


def random_cases(tmp, rng):
    sizes = [(r, c) for r in range(1, 9) for c in range(r, 9)]
    sizes += [(50, 50), (40, 200), (300, 300), (500, 2000), (2000, 2000)]
    for n, m in sizes:
        for high in (3, 1000, 10**12):
            if n * m > 10**6 and high != 10**12:
                continue
            w = rng.integers(0, high, size=(n, m), dtype=np.int64)
            cost, assign = tacio_dense(w, tmp)
            want = scipy_cost(w)
            check(cost == want, f"random {n}x{m} <{high}: tacio {cost} scipy {want}")
            check(len(set(assign)) == n and sum(w[i, assign[i]] for i in range(n)) == cost,
                  f"random {n}x{m}: assignment is not a matching of that cost")


def tree_cases(tmp):
    for racks, fds, seed in [(1, 64, 1), (2, 128, 2), (4, 512, 3), (2, 1024, 4)]:
        path = os.path.join(tmp, "tree.bin")
        out = subprocess.run([LAPBENCH, "tree", "--racks", str(racks), "--fds", str(fds),
                              "--seed", str(seed), "--w-out", path, "--dense"],
                             check=True, capture_output=True, text=True)
        f = fields(out.stdout)
        want = scipy_cost(read_matrix(path))
        check(int(f["cost"]) == want, f"tree {racks} racks {fds} FDs: flow {f['cost']} scipy {want}")
        check(int(f["dense_cost"]) == want, f"tree {racks} racks: dense {f['dense_cost']}")


def main():
    rng = np.random.default_rng(2026)
    with tempfile.TemporaryDirectory() as tmp:
        random_cases(tmp, rng)
        tree_cases(tmp)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
