#!/usr/bin/env python3
"""The lab against the simulator, drawn: each exchange stage (write and
read) the lab timed against what SMPI simulated for it on the lab's
platform (bench/lab/run --compare-smpi), one point a job, strategy and
direction, one colour a lab configuration; the diagonal is agreement, the
band within 20%. Rows whose plan sends nothing over a link are left out,
as compare.py leaves them out of its count. Needs matplotlib.

usage: figure.py --out FILE.png "LABEL=OUTPUT" ...
  (OUTPUT: what bench/lab/run --compare-smpi printed; its layout= and
  compare lines are read)"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from benchlib import parse_kv  # noqa: E402
from compare import WITHIN  # noqa: E402  (the 20% compare.py counts by)


def points(path):
    """[(lab_s, smpi_s)] of the exchange rows whose plan crosses a link."""
    links, rows = {}, []
    for line in open(path):
        r = parse_kv(line)
        if line.startswith("layout="):
            links[(r["pattern"], r["strategy"])] = int(r["max_link_load"])
        elif line.startswith("compare ") and r.get("stage", "").endswith("_exchange"):
            rows.append(r)
    return [(float(r["lab_s"]), float(r["smpi_s"])) for r in rows
            if links.get((r["pattern"], r["strategy"]), 0) > 0]


def draw(runs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    every = [v for pts in runs.values() for p in pts for v in p]
    lo, hi = min(every) / 1.5, max(every) * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1, label="SMPI = lab")
    ax.fill_between([lo, hi], [lo * (1 - WITHIN), hi * (1 - WITHIN)],
                    [lo * (1 + WITHIN), hi * (1 + WITHIN)], color="0.88", label="within 20%")
    markers = "osD^v"
    for i, (label, pts) in enumerate(runs.items()):
        inside = sum(abs(s / l - 1) <= WITHIN for l, s in pts)
        ax.scatter([l for l, _ in pts], [s for _, s in pts], marker=markers[i % len(markers)],
                   s=28, label=f"{label} ({inside} of {len(pts)} within 20%)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("lab: exchange stage, seconds (median of 3 runs)")
    ax.set_ylabel("SMPI on the lab's platform: exchange stage, seconds")
    ax.set_title("The simulator against a real TCP network (namespace lab)")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    ap = argparse.ArgumentParser(prog="bench/lab/figure.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("runs", nargs="+", metavar="LABEL=OUTPUT")
    a = ap.parse_args()
    runs = {}
    for spec in a.runs:
        label, sep, path = spec.partition("=")
        if not sep:
            sys.exit(f"bench/lab/figure.py: {spec}: expected LABEL=OUTPUT")
        runs[label] = points(path)
    draw(runs, a.out)


if __name__ == "__main__":
    main()
