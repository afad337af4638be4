#!/usr/bin/env python3
"""tacio report, tested by content: every chart's drawn bars, segments, lines
and edges are read back from its SVG and checked against the numbers of the
inputs they were drawn from (recomputed here), geometry included: a bar's
height, a segment's width, a point's height and an edge's width must be
proportional (affine for points) to its value.

Inputs: a real `tacio compare --json` (plans with link loads), TACIO_STATS
lines at two rank counts (bandwidth needs two) and bench/smpi result lines
at 1 and 2 aggregators per host (fig. 13).

usage: report.py TACIO_EXE
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def svg_items(path):
    """{id: (path d's points, stroke width)} for every artist report tagged."""
    text = open(path).read()
    items = {}
    for m in re.finditer(r'<g id="([^"]*\|[^"]*)">\s*<path d="([^"]*)"([^>]*)>', text):
        gid = m.group(1).replace("&amp;", "&")
        nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", m.group(2))]
        pts = list(zip(nums[0::2], nums[1::2]))
        sw = re.search(r"stroke-width: ([\d.]+)", m.group(3))
        items[gid] = (pts, float(sw.group(1)) if sw else None)
    return items


def proportional(pairs, what):
    """Every (value, drawn size) pair has the same size/value ratio."""
    pairs = [(v, s) for v, s in pairs if v]
    check(pairs, f"{what}: nothing drawn")
    if pairs:
        k = pairs[0][1] / pairs[0][0]
        for v, s in pairs:
            check(abs(s - k * v) <= 1e-3 * max(1.0, abs(k * v)),
                  f"{what}: drawn {s} for {v}, expected {k * v}")


def png_ok(path):
    head = open(path, "rb").read(24)
    w, h = struct.unpack(">II", head[16:24]) if len(head) == 24 else (0, 0)
    return head[:8] == b"\x89PNG\r\n\x1a\n" and w > 100 and h > 100


def write_inputs(work, tacio):
    plans = os.path.join(work, "cube.json")
    with open(plans, "w") as f:
        subprocess.run([tacio, "compare", "--pattern", "cube:n=32", "--procs", "8",
                        "--topology", "tree:racks=2,nodes=2,cores=2", "--placement", "cyclic",
                        "--strategies", "romio,tatp,bottleneck", "--json"], stdout=f, check=True)
    stats = os.path.join(work, "stats.jsonl")
    runs = [  # strategy, procs, op, stage seconds, bytes, hop-bytes
        ("romio", 8, "write", [0.001, 0.002, 0.001, 0.010, 0.020], 1 << 20, 900),
        ("tatp", 8, "write", [0.001, 0.003, 0.001, 0.006, 0.020], 1 << 20, 700),
        ("romio", 16, "write", [0.001, 0.002, 0.002, 0.020, 0.030], 2 << 20, 2000),
        ("tatp", 16, "write", [0.001, 0.004, 0.002, 0.012, 0.030], 2 << 20, 1500),
    ]
    with open(stats, "w") as f:
        for s, n, op, st, b, hop in runs:
            rec = {"op": op, "strategy": s, "procs": n, "total": sum(st), "bytes": b,
                   "hop_bytes": hop, "max_link_load": hop // 3, "naggs": 2,
                   "buffer_bytes": b // 2}
            rec.update({f"st{k + 1}": t for k, t in enumerate(st)})
            f.write(json.dumps(rec) + "\n")
        f.write("not a record\n")
    bench = os.path.join(work, "bench.txt")
    with open(bench, "w") as f:
        for s, k, ws, hop in (("romio", 1, 0.004, 5000), ("romio", 2, 0.003, 5200),
                              ("tatp", 1, 0.005, 4000), ("tatp", 2, 0.002, 4100)):
            f.write(f"cluster=inspur placement=scatter:seed=1 pattern=cube ranks=64 "
                    f"aggs_per_host={k} strategy={s} naggs={6 * k} write_s={ws} "
                    f"read_s={ws * 1.5} hop_bytes={hop} max_link_load={hop // 4} "
                    f"bytes=4194304 buffer_bytes={699051 // k} verified=yes\n")
        # a larger job varying only K: fig. 13 draws it as a row of its own
        for k, ws in ((2, 0.0025), (4, 0.002)):
            f.write(f"cluster=inspur placement=scatter:seed=1 pattern=cube ranks=128 "
                    f"aggs_per_host={k} strategy=romio naggs={8 * k} write_s={ws} "
                    f"read_s={ws} hop_bytes={6000 - k} max_link_load=1500 bytes=4194304 "
                    f"buffer_bytes=524288 verified=yes\n")
        # another machine at another rank count: no line joins it to inspur's cube
        f.write("cluster=fattree placement=scatter:seed=1 pattern=cube ranks=128 aggs_per_host=1 "
                "strategy=romio naggs=8 write_s=0.002 read_s=0.003 hop_bytes=3000 "
                "max_link_load=750 bytes=4194304 buffer_bytes=524288 verified=yes\n")
        f.write("cluster=fattree placement=scatter:seed=1 pattern=cube ranks=128 aggs_per_host=2 "
                "strategy=romio naggs=16 write_s=0.001 read_s=0.002 hop_bytes=2900 "
                "max_link_load=700 bytes=4194304 buffer_bytes=262144 verified=yes\n")
        # a strategy the first jobs lack, in two later ones: one legend entry
        for cluster, ranks, hop in (("inspur", 64, 3500), ("fattree", 128, 2500)):
            f.write(f"cluster={cluster} placement=scatter:seed=1 pattern=cube ranks={ranks} "
                    f"aggs_per_host=1 strategy=mccio naggs=8 write_s=0.002 read_s=0.003 "
                    f"hop_bytes={hop} max_link_load=700 bytes=4194304 buffer_bytes=524288 "
                    f"verified=yes\n")
    return plans, stats, runs, bench


# auto's trials: (trial, op, predicted us, measured us)
TRIALS = [(1, "write_at_all", 80, 1033), (2, "write_at_all", 60, 1123),
          (3, "write_at_all", 61, 2612), (1, "read_at_all", 500, 103)]


def test_auto_model(tacio, work):
    """auto's trials (TACIO_STATS with trial >= 1), a tick a trial at
    (predicted, measured) on log axes, measured being what the trials
    compare (move_us, not the whole call's call_us): its numbers in its id,
    its x and its middle y affine in their logarithms; calls that were no
    trial are not drawn."""
    import math
    stats, out = os.path.join(work, "trials.jsonl"), os.path.join(work, "trials")
    with open(stats, "w") as f:
        for trial, op, pred, meas in TRIALS + [(0, "write_at_all", 70, 900)]:
            f.write(json.dumps({"op": op, "strategy": "auto", "procs": 4, "total": meas * 1e-6,
                                "bytes": 1 << 20, "naggs": 2, "st1": 0, "st2": 0, "st3": 0,
                                "st4": meas * 1e-6, "st5": 0, "trial": trial,
                                "predicted_us": pred, "move_us": meas,
                                "call_us": 3 * meas}) + "\n")
    r = subprocess.run([tacio, "report", stats, "--out", out], capture_output=True, text=True)
    check(r.returncode == 0, f"tacio report (trials) failed: {r.stderr}")
    items = svg_items(os.path.join(out, "auto_model.svg")) if r.returncode == 0 else {}
    ticks = {g: pts for g, (pts, _) in items.items() if g.startswith("auto_model|")}
    want = {f"auto_model|{op}|{trial}|{p * 1e-6:.6g}|{m * 1e-6:.6g}" for trial, op, p, m in TRIALS}
    check(set(ticks) == want, f"auto_model ticks {sorted(ticks)} != {sorted(want)}")
    xs = [(math.log(float(g.split("|")[3])), pts[0][0]) for g, pts in ticks.items()]
    ys = [(math.log(float(g.split("|")[4])), (pts[0][1] + pts[1][1]) / 2) for g, pts in ticks.items()]
    for what, pairs in (("x", xs), ("y", ys)):
        pairs.sort()
        (v0, d0), (v1, d1) = pairs[0], pairs[-1]
        k = (d1 - d0) / (v1 - v0) if v1 != v0 else 0
        check(k != 0 and all(abs(d - (d0 + k * (v - v0))) < 0.05 for v, d in pairs),
              f"auto_model {what}: not affine in the log of its values: {pairs}")


def test_hop_bytes(out, plans, runs):
    items = svg_items(os.path.join(out, "hop_bytes.svg"))
    bars = {k: v for k, v in items.items() if k.startswith("hop_bytes|")}
    want = {(p["strategy"], f"cube ({p['procs']} ranks)"): p["hop_bytes"] for p in plans}
    want.update({(s, f"{n} ranks"): hop for s, n, op, st, b, hop in runs})
    want.update({("romio", "cube 64"): 5000, ("tatp", "cube 64"): 4000})  # 1 agg/host only
    want[("romio", "cube 128 fattree")] = 3000
    want.update({("mccio", "cube 64"): 3500, ("mccio", "cube 128 fattree"): 2500})
    legend = re.findall(r'id="legend\|hop_bytes\|([^"]*)"', open(os.path.join(out, "hop_bytes.svg")).read())
    check(sorted(legend) == sorted({s for s, _ in want}),
          f"hop_bytes legend {legend}: want each strategy once")
    got = {}
    for gid, (pts, _) in bars.items():
        _, s, job, v = gid.split("|")
        got[(s, job)] = int(v)
        check(want.get((s, job)) == int(v), f"hop_bytes bar {gid}: input says {want.get((s, job))}")
    check(set(got) == set(want), f"hop_bytes bars {sorted(got)} != inputs {sorted(want)}")
    ys = {gid: pts for gid, (pts, _) in bars.items()}
    proportional([(int(g.split("|")[3]), max(y for _, y in p) - min(y for _, y in p))
                  for g, p in ys.items()], "hop_bytes bar heights")


def test_stages(out, runs):
    items = svg_items(os.path.join(out, "stages.svg"))
    names = ["access", "plan", "route", "shuffle", "I/O"]
    pairs = []
    for s, n, op, st, b, hop in runs:
        for k, t in enumerate(st):
            gid = [g for g in items if g.startswith(f"stages|{n} ranks {op} {s}|{names[k]}|")]
            check(len(gid) == 1, f"stages: segment {n} {op} {s} {names[k]} drawn {len(gid)}x")
            if gid:
                share = float(gid[0].split("|")[3])
                check(abs(share - t / sum(st)) < 1e-6, f"stages {gid[0]}: want {t / sum(st)}")
                pts = items[gid[0]][0]
                pairs.append((t / sum(st), max(x for x, _ in pts) - min(x for x, _ in pts)))
    proportional(pairs, "stage segment widths")


def check_lines(items, chart, want_of, tol):
    """Each of romio's and tatp's write lines in chart: its ranks and values
    against want_of(strategy) ({ranks: value}); the drawn points returned
    as (value, height) pairs."""
    pts = []
    for s in ("romio", "tatp"):
        gid = [g for g in items if g.startswith(f"{chart}|{s} write|")]  # the stats'
        check(len(gid) == 1, f"{chart}: line for {s} write drawn {len(gid)}x")
        if not gid:
            continue
        want = want_of(s)
        xs = [int(x) for x in gid[0].split("|")[2].split(",")]
        ys = [float(y) for y in gid[0].split("|")[3].split(",")]
        check(xs == sorted(want), f"{chart} {s}: ranks {xs}")
        for x, y in zip(xs, ys):
            check(abs(y - want[x]) < tol, f"{chart} {s} at {x}: {y}, want {want[x]}")
        pts += [(want[x], py) for x, (_, py) in zip(xs, items[gid[0]][0])]
    # bench/smpi's cube has one rank count per machine: no line
    check(not [g for g in items if "cube" in g.split("|")[1]],
          f"{chart}: bench/smpi's cube at one rank count is no line")
    return pts


def check_affine(pts, chart):
    """One axis: drawn height is affine in the value (one scale, one offset)."""
    (v0, y0), (v1, y1) = pts[0], max(pts, key=lambda p: abs(p[0] - pts[0][0]))
    for v, y in pts:
        check(abs(y0 + (v - v0) * (y1 - y0) / (v1 - v0) - y) < 0.01,
              f"{chart} point {v} drawn at {y}")


def test_bandwidth(out, runs):
    items = svg_items(os.path.join(out, "bandwidth.svg"))
    pts = check_lines(items, "bandwidth", lambda s: {
        n: b / sum(st) / 2**20 for s2, n, op, st, b, hop in runs if s2 == s}, 1e-3)
    check_affine(pts, "bandwidth")


def test_shuffle(out, runs):
    # fig. 10: each strategy's write, the shuffle stage over the call's
    # seconds, at 8 and 16 ranks
    items = svg_items(os.path.join(out, "shuffle.svg"))
    pts = check_lines(items, "shuffle", lambda s: {
        n: st[3] / sum(st) for s2, n, op, st, b, hop in runs if s2 == s}, 1e-6)
    check_affine(pts, "shuffle")


def test_aggs_per_host(out):
    """A row per inspur job that varies K (fattree's is another machine's),
    each line its job's runs only."""
    items = svg_items(os.path.join(out, "aggs_per_host.svg"))
    mibs = {("cube 64", "romio"): {1: 4 / 0.004, 2: 4 / 0.003},
            ("cube 64", "tatp"): {1: 4 / 0.005, 2: 4 / 0.002},
            ("cube 64", "mccio"): {1: 4 / 0.002},
            ("cube 128", "romio"): {2: 4 / 0.0025, 4: 4 / 0.002}}
    lines = [g.split("|") for g in items if g.startswith("aggs_per_host MiB/s|")]
    drawn = {(job, s): (xs, ys) for _, s, xs, ys, job in lines}
    check(len(lines) == len(drawn) == len(mibs) and set(drawn) == set(mibs),
          f"aggs_per_host: MiB/s lines {sorted(drawn)}")
    for key, want in mibs.items():
        xs, ys = drawn.get(key, ("", ""))
        got = dict(zip((int(x) for x in xs.split(",") if x), (float(y) for y in ys.split(",") if y)))
        check(got.keys() == want.keys() and all(abs(got[k] - want[k]) < 1e-3 for k in want),
              f"aggs_per_host {key}: {got} want {want}")
    hops = [g.split("|") for g in items if g.startswith("aggs_per_host hop_bytes|")
            and g.endswith("|cube 128")]
    check(len(hops) == 1 and hops[0][3] == "5998.000,5996.000",
          f"aggs_per_host hop-bytes of cube 128: {hops}")


def test_link_load(out, plans):
    for n, p in enumerate(plans):
        path = os.path.join(out, f"link_load-{n}-{p['strategy']}.svg")
        check(os.path.exists(path), f"{path} missing")
        if not os.path.exists(path):
            continue
        edges = {g: v for g, v in svg_items(path).items() if g.startswith("link_load|")}
        want = {f"link_load|{l['below']}|{l['above']}|{l['up']},{l['down']}": max(l["up"], l["down"])
                for l in p["links"] if l["above"]}
        check(set(edges) == set(want), f"{path}: edges {sorted(edges)} != links {sorted(want)}")
        busiest = max(want.values())
        proportional([(0.5 + 5 * want[g] / busiest, edges[g][1]) for g in want if g in edges],
                     f"{path}: edge widths")


def write_experiments(work):
    """bench/smpi/run memory's runs (two budgets, romio and mccio) and
    a job run with lustre and tsujita (Tsujita et al.)."""
    path = os.path.join(work, "experiments.jsonl")
    with open(path, "w") as f:
        for budget, s, k, ws, mem in ((4, "romio", 1, 2.0, 4), (4, "mccio", 1, 2.5, 7),
                                      (4, "mccio", 2, 3.5, 5),  # slower: not drawn
                                      (16, "romio", 1, 1.6, 16), (16, "mccio", 1, 1.2, 30)):
            f.write(json.dumps({
                "cluster": "inspur", "placement": "scatter:seed=1", "pattern": "cube",
                "ranks": "120", "strategy": s, "aggs_per_host": k, "naggs": "10",
                "bytes": str(64 << 30), "write_s": str(ws), "read_s": str(ws * 2),
                "hop_bytes": "100", "max_link_load": "10", "buffer_bytes": str(mem << 20),
                "hints": [f"cb_buffer_size={budget << 20}"], "experiment": "memory",
                "budget": budget << 20}) + "\n")
    ordered = os.path.join(work, "ordered.txt")
    with open(ordered, "w") as f:
        for s, k, ws in (("lustre", 1, 16.0), ("tsujita", 1, 18.0), ("lustre", 4, 15.0)):
            f.write(f"cluster=inspur placement=scatter:seed=1 pattern=cube ranks=64 "
                    f"aggs_per_host={k} strategy={s} naggs=6 write_s={ws} read_s={ws} "
                    f"hop_bytes=100 max_link_load=10 bytes={64 << 30} buffer_bytes=1 "
                    f"verified=yes\n")
        # a job every strategy ran independent (no aggregator): collected nothing
        stages = " ".join(f"{op}_st{k}={1.0 if k == 5 else 0}"
                          for op in ("write", "read") for k in range(1, 6))
        for s, k in (("lustre", 1), ("tsujita", 1), ("lustre", 2), ("tsujita", 2)):
            f.write(f"cluster=inspur placement=scatter:seed=1 pattern=ior ranks=64 "
                    f"aggs_per_host={k} strategy={s} naggs=0 write_s=1.0 read_s=1.0 "
                    f"hop_bytes=0 max_link_load=0 bytes={64 << 30} buffer_bytes=0 {stages} "
                    f"verified=yes\n")
    return path, ordered


def test_experiments(tacio, work):
    """memory_budget: MiB/s and memory against the budget (each budget's
    fastest run of a strategy); ordered: lustre
    and tsujita side by side where both ran; the experiment's runs stay out
    of the other charts."""
    memory, ordered = write_experiments(work)
    out = os.path.join(work, "experiments")
    r = subprocess.run([tacio, "report", memory, ordered, "--out", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"tacio report (experiments) failed: {r.stderr}")
    items = svg_items(os.path.join(out, "memory_budget.svg")) if r.returncode == 0 else {}
    want = {"MiB/s|romio write": [64 * 1024 / 2.0, 64 * 1024 / 1.6],
            "MiB/s|mccio read": [64 * 1024 / 5.0, 64 * 1024 / 2.4],
            "memory|mccio": [7, 30], "memory|romio": [4, 16]}
    for key, ys in want.items():
        gid = [g for g in items if g.startswith(f"memory_budget {key}|4,16|")]
        check(len(gid) == 1 and all(abs(float(y) - w) < 1e-3 for y, w in
                                    zip(gid[0].split("|")[3].split(","), ys)) if gid else False,
              f"memory_budget {key}: {gid}, want {ys}")
    bars = svg_items(os.path.join(out, "ordered.svg")) if r.returncode == 0 else {}
    got = {g for g in bars if g.startswith("ordered|")}
    want = {f"ordered|{s}|cube 64 {op} K=1|{64 * 1024 / ws}"
            for s, ws in (("lustre", 16.0), ("tsujita", 18.0)) for op in ("write", "read")}
    check(got == want, f"ordered bars (K=4 has lustre alone): {sorted(got)} != {sorted(want)}")
    hop = svg_items(os.path.join(out, "hop_bytes.svg")) if r.returncode == 0 else {}
    check(hop and not [g for g in hop if "cube 120" in g],
          f"the memory experiment kept out of hop_bytes: {sorted(hop)}")
    test_independent(out if r.returncode == 0 else None)


def test_independent(out):
    """A job whose runs collected nothing (naggs=0) is in no chart about
    collection, and in stages once, as independent, whatever the strategy."""
    drawn = {c: svg_items(os.path.join(out, f"{c}.svg")) if out else {}
             for c in ("ordered", "hop_bytes", "aggs_per_host", "stages")}
    for c in ("ordered", "hop_bytes", "aggs_per_host"):
        check(drawn[c] and not [g for g in drawn[c] if "ior 64" in g],
              f"{c}: the independent job drawn: {sorted(g for g in drawn[c] if 'ior 64' in g)}")
    ior = {g.split("|")[1] for g in drawn["stages"] if "ior 64" in g}
    check(ior == {"ior 64 write independent", "ior 64 read independent"},
          f"stages: the independent job's rows {sorted(ior)}")


def test_errors(tacio, work):
    r = subprocess.run([tacio, "report", os.path.join(work, "nope"), "--out", work],
                       capture_output=True, text=True)
    check(r.returncode != 0 and "nope" in r.stderr, f"missing input: {r.returncode} {r.stderr}")
    empty = os.path.join(work, "empty.txt")
    open(empty, "w").write("hello\n")
    r = subprocess.run([tacio, "report", empty, "--out", work], capture_output=True, text=True)
    check(r.returncode != 0 and "no TACIO_STATS" in r.stderr, f"empty input: {r.stderr}")
    bad = os.path.join(work, "bad.jsonl")
    open(bad, "w").write('{"op":"write","st4":1,"strategy":"romio"}\n')
    r = subprocess.run([tacio, "report", bad, "--out", work], capture_output=True, text=True)
    check(r.returncode != 0 and "lacks" in r.stderr and "Traceback" not in r.stderr,
          f"garbled record: {r.stderr}")


def main():
    tacio = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        plan_path, stats, runs, bench = write_inputs(work, tacio)
        plans = json.load(open(plan_path))
        out = os.path.join(work, "charts")
        r = subprocess.run([tacio, "report", plan_path, stats, bench, "--out", out],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"tacio report failed: {r.stderr}")
        check("skipped_lines=1" in r.stdout, f"the stray line is counted: {r.stdout}")
        charts = ["hop_bytes", "shuffle", "stages", "bandwidth", "aggs_per_host", "memory"] + \
            [f"link_load-{n}-{p['strategy']}" for n, p in enumerate(plans)]
        for c in charts:
            for ext in ("png", "svg"):
                path = os.path.join(out, f"{c}.{ext}")
                check(os.path.exists(path) and (ext == "svg" or png_ok(path)), f"{path}")
        if not failures:
            test_hop_bytes(out, plans, runs)
            test_stages(out, runs)
            test_bandwidth(out, runs)
            test_shuffle(out, runs)
            test_aggs_per_host(out)
            test_link_load(out, plans)
        test_auto_model(tacio, work)
        test_experiments(tacio, work)
        test_errors(tacio, work)
    print(f"report: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
