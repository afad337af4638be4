#!/usr/bin/env python3
"""bench/lab's summary: the median of each run's numbers per pattern and
strategy, then the write shuffle ratios against romio, and where the runs
repeated their calls (--calls N), auto's total write and read time against
the fastest fixed strategy's (the goal: within 3%).

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
        # auto's total needs no romio run: it is judged against any fixed one
        repeated(pattern, {s: rs for (p, s), rs in runs.items() if p == pattern})
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


def repeated(pattern, runs):
    """auto's total (write and read, every call) against the fastest fixed
    strategy's, medians over the reps, where the runs repeated their calls."""
    if "auto" not in runs or "calls" not in runs["auto"][0]:
        return
    total = {s: statistics.median(float(r["write_total_s"]) + float(r["read_total_s"])
                                  for r in rs) for s, rs in runs.items()}
    auto = total.pop("auto")
    best = min(total, key=total.get, default=None)
    if not best:
        return
    # every strategy's total: where several make one plan (the same
    # aggregators and bytes), the fastest of them is the luckiest of equal
    # runs, and their spread is how close auto can be expected to come
    print(f"totals pattern={pattern} " + " ".join(f"{s}={t:.4f}" for s, t in
                                                  sorted(total.items(), key=lambda kv: kv[1])))
    ratio = total[best] / auto
    print(f"auto_total_vs_best_fixed={ratio:.3f} pattern={pattern} best={best} "
          f"calls={runs['auto'][0]['calls']} auto_total_s={auto:.4f} best_total_s={total[best]:.4f} "
          f"goal_met={'yes' if ratio >= 0.97 else 'no'}")


if __name__ == "__main__":
    main()
