#!/usr/bin/env python3
"""bench/lab's summary: the median of each run's numbers per pattern and
strategy, then the write shuffle ratios against romio.

usage: summarise.py RESULTS LABEL   (RESULTS: the driver's result lines)"""
import statistics
import sys

KEYS = ["write_s", "read_s", "write_st4", "write_st5", "read_st4", "read_st5"]


def main():
    runs = {}
    for line in open(sys.argv[1]):
        r = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        runs.setdefault((r["pattern"], r["strategy"]), []).append(r)
    for pattern in dict.fromkeys(p for p, _ in runs):
        med = {}
        for (p, s), rs in runs.items():
            if p != pattern:
                continue
            med[s] = {k: statistics.median(float(r[k]) for r in rs) for k in KEYS}
            r = rs[0]
            print(f"{sys.argv[2]} pattern={p} ranks={r['ranks']} strategy={s} naggs={r['naggs']} "
                  f"reps={len(rs)} write_s={med[s]['write_s']:.4f} read_s={med[s]['read_s']:.4f} "
                  f"write_shuffle_s={med[s]['write_st4']:.4f} write_io_s={med[s]['write_st5']:.4f} "
                  f"hop_bytes={r['hop_bytes']} max_link_load={r['max_link_load']} "
                  f"node_aggregated={r['node_aggregated']} verified=yes")
        base = med.get("romio", {}).get("write_st4")
        if not base:
            continue
        if "tatp" in med:
            print(f"shuffle_ratio_tatp_vs_romio={med['tatp']['write_st4'] / base:.3f} "
                  f"pattern={pattern}")
        best = min((s for s in med if s != "romio"), key=lambda s: med[s]["write_st4"],
                   default=None)
        if best:
            print(f"shuffle_ratio_best_vs_romio={med[best]['write_st4'] / base:.3f} "
                  f"pattern={pattern} strategy={best}")


if __name__ == "__main__":
    main()
