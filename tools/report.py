#!/usr/bin/env python3
"""tacio report: the papers' figures, drawn from tacio's own numbers.

usage: tacio report INPUT... --out DIR

INPUT is any mix of
  - TACIO_STATS files: one JSON object per collective (op, strategy, procs,
    st1..st5, total, bytes, hop_bytes, max_link_load, naggs, buffer_bytes);
  - plans: `tacio plan --json` or `tacio compare --json` output (a plan or a
    list of plans; the file's name without extension labels the job);
  - bench/smpi results: its `cluster=... strategy=...` lines, or the JSON
    lines it writes with --results.
Lines that are none of these are skipped (and counted).

Writes, each as PNG and SVG, the charts its inputs have numbers for:
  hop_bytes       hop-bytes per strategy and job (TATP fig. 9)
  shuffle         the shuffle's share of the time against rank count (fig. 10)
  stages          each stage's share of the collective's time (fig. 11)
  bandwidth       MiB/s per strategy against rank count (fig. 12)
  aggs_per_host   MiB/s and hop-bytes against aggregators per host (fig. 13)
  memory          bytes staged by the busiest aggregator (memory-conscious
                  collective I/O)
  memory_budget   MiB/s and memory per aggregator against the aggregation
                  budget, ROMIO against mccio (the memory-conscious paper's
                  figs. 6-8; bench/smpi/run memory)
  ordered         lustre's collection (by rank) against tsujita's ordered
                  one (by host), MiB/s per job and aggregators per host
                  (Tsujita et al.)
  link_load-N     the plan's link loads drawn on the tree, one per plan
Every drawn bar, segment, line and edge carries its numbers in its SVG id
("chart|series|x|value"), so a test can check a chart against its inputs.

Depends on matplotlib; the tacio library and command do not.
"""
import argparse
import itertools
import json
import os
import sys

STAGES = ["st1", "st2", "st3", "st4", "st5"]
STAGE_NAMES = ["access", "plan", "route", "shuffle", "I/O"]


class Inputs:
    """Everything read: runs (one per collective: strategy, job, op...) and plans."""

    def __init__(self):
        self.runs, self.plans, self.skipped = [], [], 0
        self.trials = []  # auto's trial calls: the model's time and the measured one
        self.experiments = []  # bench/smpi runs of an experiment of their own (--memory)

    def read(self, path):
        label = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            text = f.read()
        try:  # a whole-file JSON document: a plan or compare's list of plans
            doc = json.loads(text)
            for obj in doc if isinstance(doc, list) else [doc]:
                self.add_json(obj, label)
            return
        except json.JSONDecodeError:
            pass
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("{"):
                try:
                    self.add_json(json.loads(line), label)
                    continue
                except json.JSONDecodeError:
                    pass
            kv = dict(t.split("=", 1) for t in line.split() if "=" in t)
            if "strategy" in kv and "write_s" in kv and "hop_bytes" in kv:
                self.add_bench(kv)
            else:
                self.skipped += bool(line)

    def add_json(self, obj, label):
        if not isinstance(obj, dict):
            self.skipped += 1
        elif "links" in obj and "fds" in obj:
            self.add_plan(obj, label)
        elif "op" in obj and "st4" in obj:
            self.add_stats(obj)
        elif "write_s" in obj and "strategy" in obj:
            self.add_bench(obj)
        else:
            self.skipped += 1

    def add_plan(self, p, label):
        job = f"{label} ({p['procs']} ranks)"
        self.plans.append(dict(p, job=job))
        self.runs.append(dict(strategy=p["strategy"], job=job, op="plan", procs=p["procs"],
                              hop_bytes=p["hop_bytes"], max_link_load=p["max_link_load"],
                              naggs=p["naggs"], buffer_bytes=p["max_agg_mem"]))

    def add_stats(self, s):
        run = dict(strategy=s["strategy"], job=f"{s['procs']} ranks", op=s["op"],
                   procs=int(s["procs"]), seconds=float(s["total"]), bytes=int(s["bytes"]),
                   stages=[float(s[k]) for k in STAGES])
        for k in ("hop_bytes", "max_link_load", "naggs", "buffer_bytes"):
            if k in s:
                run[k] = int(s[k])
        self.runs.append(run)
        if int(s.get("trial", 0)) > 0 and int(s.get("predicted_us", 0)) > 0:
            self.trials.append(dict(trial=int(s["trial"]), op=s["op"], procs=run["procs"],
                                    predicted=int(s["predicted_us"]) * 1e-6,
                                    measured=int(s.get("move_us", s["call_us"])) * 1e-6))

    def add_bench(self, b):
        """One bench/smpi run: a write and a read of the same job."""
        machine = "".join(f" {b[key]}" for key, default in
                          (("cluster", "inspur"), ("placement", "scatter:seed=1"))
                          if b.get(key, default) != default)
        job = f"{b.get('pattern', '?')} {b.get('ranks', '?')}{machine}"
        # a run with hints (bench/smpi --hint) is a choice of its own
        strategy = b["strategy"] + "".join(f"+{h}" for h in b.get("hints", []))
        for op in ("write", "read"):
            # a line against rank count is one pattern on one machine
            run = dict(strategy=strategy, job=job, op=op, procs=int(b["ranks"]),
                       pattern=f"{b.get('pattern')}{machine}", machine=machine.strip(),
                       seconds=float(b[f"{op}_s"]), hop_bytes=int(b["hop_bytes"]),
                       max_link_load=int(b["max_link_load"]),
                       aggs_per_host=int(b.get("aggs_per_host", 1)))
            for k in ("bytes", "naggs", "buffer_bytes"):
                if k in b:
                    run[k] = int(b[k])
            if all(f"{op}_{k}" in b for k in STAGES):
                run["stages"] = [float(b[f"{op}_{k}"]) for k in STAGES]
            if b.get("experiment"):
                run.update(experiment=b["experiment"], base=b["strategy"],
                           budget=int(b.get("budget", 0)))
                self.experiments.append(run)
            else:
                self.runs.append(run)


def ordered(values):
    """Distinct values in first-seen order."""
    return list(dict.fromkeys(values))


def collected(r):
    """Whether the run's data went through aggregators. Where every rank went
    independent (naggs=0: IOR's contiguous segments, whatever the strategy)
    nothing was collected, so the run says nothing of hop-bytes, aggregators
    per host or collection order, and every strategy's run is the same."""
    return r.get("naggs", 1) > 0


def tag(artist, *fields):
    """The SVG id that carries an artist's numbers."""
    artist.set_gid("|".join(str(f) for f in fields))


def save(fig, out, name, written):
    for ext in ("png", "svg"):
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, dpi=110 if ext == "png" else None, bbox_inches="tight")
        written.append(path)
    import matplotlib.pyplot as plt
    plt.close(fig)


def grouped_bars(ax, chart, table, jobs, strategies, scale=1.0, rotation=15):
    """Bars per job (groups) and strategy (colours); table[(job, s)] = value."""
    width = 0.8 / max(1, len(strategies))
    for i, s in enumerate(strategies):
        label = s  # on the strategy's first bar only: one legend entry each
        for g, job in enumerate(jobs):
            if (job, s) not in table:
                continue
            v = table[(job, s)]
            (bar,) = ax.bar(g + i * width, v / scale, width, color=f"C{i}", label=label)
            label = None
            tag(bar, chart, s, job, v)
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(jobs))], jobs, rotation=rotation,
                  ha="right")
    legend = ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))  # clear of the bars
    for text in legend.get_texts():
        text.set_gid(f"legend|{chart}|{text.get_text()}")


def first_by(runs, key, pick):
    """One value per key: the first run's (plans and write runs carry the same
    planned metrics; a job's later runs repeat them)."""
    table = {}
    for r in runs:
        if pick(r) is not None:
            table.setdefault(key(r), pick(r))
    return table


def bars_per_job(plt, inputs, out, written, name, key, ylabel, title):
    """One metric of the runs with one aggregator per host, per job and
    strategy, as grouped bars in MiB."""
    runs = [r for r in inputs.runs if r.get(key) is not None and r.get("aggs_per_host", 1) == 1
            and collected(r)]
    if not runs:
        return
    table = first_by(runs, lambda r: (r["job"], r["strategy"]), lambda r: r[key])
    fig, ax = plt.subplots(figsize=(8, 4))
    grouped_bars(ax, name, table, ordered(r["job"] for r in runs),
                 ordered(r["strategy"] for r in runs), scale=2**20)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    save(fig, out, name, written)


def chart_hop_bytes(plt, inputs, out, written):
    bars_per_job(plt, inputs, out, written, "hop_bytes", "hop_bytes", "hop-bytes (MiB x hops)",
                 "Hop-bytes per strategy (TATP fig. 9)")


def chart_memory(plt, inputs, out, written):
    bars_per_job(plt, inputs, out, written, "memory", "buffer_bytes",
                 "MiB staged by the busiest aggregator",
                 "Memory per aggregator (memory-conscious collective I/O)")


def chart_stages(plt, inputs, out, written):
    runs = [r for r in inputs.runs if r.get("stages") and sum(r["stages"]) > 0
            and r.get("aggs_per_host", 1) == 1]  # the label does not name K
    if not runs:
        return
    def row_of(r):  # every strategy's independent run is the same run
        return f"{r['job']} {r['op']} {r['strategy'] if collected(r) else 'independent'}"
    labels = ordered(row_of(r) for r in runs)
    share = {}
    for r in runs:  # the first run of each label (a file may repeat a job)
        total = sum(r["stages"])
        share.setdefault(row_of(r), [t / total for t in r["stages"]])
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.3 * len(labels)))
    for y, label in enumerate(labels):
        left = 0.0
        for k, part in enumerate(share[label]):
            (seg,) = ax.barh(y, part, left=left, color=f"C{k}",
                             label=STAGE_NAMES[k] if y == 0 else None)
            tag(seg, "stages", label, STAGE_NAMES[k], f"{part:.6f}")
            left += part
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the collective's time (slowest rank per stage)")
    ax.set_title("Where the time goes (TATP fig. 11)")
    ax.legend(fontsize=7, ncol=5, loc="lower center", bbox_to_anchor=(0.5, 1.06))
    save(fig, out, "stages", written)


def mib_per_s(r):
    return r["bytes"] / r["seconds"] / 2**20 if r.get("bytes") and r.get("seconds") else None


def shuffle_share(r):
    """The shuffle stage's share of the collective's time (the slowest rank's
    exchange over the call's seconds)."""
    if r.get("stages") and r.get("seconds"):
        return r["stages"][3] / r["seconds"]
    return None


def lines_vs_ranks(plt, inputs, name, pick, ylabel, title, markers="o"):
    """pick(run) against rank count, one aggregator per host: a line per
    strategy, direction (writes solid, reads dashed) and pattern on one
    machine, where it has two rank counts or more. The figure and its axes,
    or None when no line has."""
    runs = [r for r in inputs.runs if pick(r) is not None and r.get("aggs_per_host", 1) == 1]
    lines = []
    patterns = ordered(r.get("pattern") for r in runs)
    for i, s in enumerate(ordered(r["strategy"] for r in runs)):
        for (op, style), (m, pattern) in itertools.product(
                (("write", "-"), ("read", "--")), enumerate(patterns)):
            pts = first_by([r for r in runs if r["strategy"] == s and r["op"] == op
                            and r.get("pattern") == pattern], lambda r: r["procs"], pick)
            if len(pts) >= 2:
                label = f"{s} {op}" + (f" {pattern}" if pattern else "")
                lines.append((label, pts, style, markers[m % len(markers)], f"C{i}"))
    if not lines:
        return None
    fig, ax = plt.subplots(figsize=(9, 4))
    for label, pts, style, marker, color in lines:
        xs = sorted(pts)
        (line,) = ax.plot(xs, [pts[x] for x in xs], style, marker=marker, color=color,
                          label=label)
        tag(line, name, label, ",".join(map(str, xs)), ",".join(f"{pts[x]:.6f}" for x in xs))
    ax.set_xlabel("ranks")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=6, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig, ax


def chart_bandwidth(plt, inputs, out, written):
    drawn = lines_vs_ranks(plt, inputs, "bandwidth", mib_per_s, "MiB/s",
                           "Bandwidth per strategy and rank count (TATP fig. 12)", "osd^v<>")
    if drawn:
        save(drawn[0], out, "bandwidth", written)


def chart_shuffle(plt, inputs, out, written):
    """TATP fig. 10: the shuffle's share of the time against rank count."""
    drawn = lines_vs_ranks(plt, inputs, "shuffle", shuffle_share,
                           "shuffle's share of the collective's time",
                           "The shuffle's share against rank count (TATP fig. 10)")
    if drawn:
        drawn[1].set_ylim(0, 1)
        save(drawn[0], out, "shuffle", written)


def chart_aggs_per_host(plt, inputs, out, written):
    """TATP fig. 13: write MiB/s and hop-bytes against aggregators per host, a
    row per job that varies them, on the machine of the first such job (the
    paper's rank counts on one cluster; other machines' jobs are not its
    figure)."""
    # auto picks its own K: a point at 1 would misplace it
    runs = [r for r in inputs.runs if "aggs_per_host" in r and r["op"] == "write"
            and not r["strategy"].startswith("auto") and collected(r)]
    varied = [r for r in runs if r["aggs_per_host"] != 1]
    if not varied:
        return
    machine = varied[0].get("machine", "")
    jobs = ordered(r["job"] for r in varied if r.get("machine", "") == machine)
    fig, axes = plt.subplots(len(jobs), 2, figsize=(10, 3.2 * len(jobs)), squeeze=False)
    for (left, right), job in zip(axes, jobs):
        mine = [r for r in runs if r["job"] == job]
        for i, s in enumerate(ordered(r["strategy"] for r in runs)):
            for ax, name, pick in ((left, "MiB/s", mib_per_s),
                                   (right, "hop_bytes", lambda r: r["hop_bytes"])):
                pts = first_by([r for r in mine if r["strategy"] == s],
                               lambda r: r["aggs_per_host"], pick)
                pts = {k: v for k, v in pts.items() if v is not None}
                if not pts:
                    continue
                xs = sorted(pts)
                (line,) = ax.plot(xs, [pts[x] for x in xs], marker="o", color=f"C{i}", label=s)
                tag(line, f"aggs_per_host {name}", s, ",".join(map(str, xs)),
                    ",".join(f"{pts[x]:.3f}" for x in xs), job)
        left.set_ylabel(f"{job}: write MiB/s")
        right.set_ylabel("hop-bytes")
        for ax in (left, right):
            ax.set_xlabel("aggregators per host")
            ax.set_xticks(ordered(sorted(r["aggs_per_host"] for r in mine)))
            ax.legend(fontsize=7)
    fig.suptitle("Aggregators per host (TATP fig. 13)")
    fig.tight_layout()
    save(fig, out, "aggs_per_host", written)


def chart_memory_budget(plt, inputs, out, written):
    """The memory-conscious paper's figs. 6-8: per strategy and direction,
    MiB/s and the memory its busiest aggregator held, against the budget;
    at each budget the strategy's fastest run (of its aggregators per host)."""
    runs = [r for r in inputs.experiments if r["experiment"] == "memory" and mib_per_s(r)]
    if len(ordered(r["budget"] for r in runs)) < 2:
        return
    best = {}
    for r in runs:
        key = (r["base"], r["op"], r["budget"])
        if key not in best or mib_per_s(r) > mib_per_s(best[key]):
            best[key] = r
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for i, s in enumerate(ordered(r["base"] for r in runs)):
        for op, style in (("write", "-"), ("read", "--")):
            pts = {b / 2**20: r for (s2, o, b), r in best.items() if s2 == s and o == op}
            xs = sorted(pts)
            panels = [(left, "MiB/s", f"{s} {op}", [mib_per_s(pts[x]) for x in xs])]
            if op == "write":  # the write's plan: its busiest aggregator's window
                panels.append((right, "memory", s, [pts[x]["buffer_bytes"] / 2**20 for x in xs]))
            for ax, name, label, ys in panels:
                (line,) = ax.plot(xs, ys, style, marker="o", color=f"C{i}", label=label)
                tag(line, f"memory_budget {name}", label, ",".join(f"{x:g}" for x in xs),
                    ",".join(f"{y:.3f}" for y in ys))
    left.set_ylabel("MiB/s")
    right.set_ylabel("MiB held by the busiest aggregator")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("aggregation budget per process (MiB)")
        ax.legend(fontsize=7)
    fig.suptitle("Collective I/O under a memory budget (memory-conscious collective I/O)")
    save(fig, out, "memory_budget", written)


def chart_ordered(plt, inputs, out, written):
    """Tsujita et al.: the same stripe FDs collected in rank order (lustre)
    and in host order (tsujita), MiB/s per job, direction and aggregators
    per host, where both ran."""
    runs = [r for r in inputs.runs
            if r["strategy"] in ("lustre", "tsujita") and mib_per_s(r) and collected(r)]
    key = lambda r: f"{r['job']} {r['op']} K={r.get('aggs_per_host', 1)}"
    # bars by machine, rank count, aggregators per host, write before read
    rank = lambda r: (r["machine"], r["procs"], r.get("aggs_per_host", 1), r["op"] == "read")
    both = [k for k in ordered(key(r) for r in sorted(runs, key=rank))
            if {r["strategy"] for r in runs if key(r) == k} == {"lustre", "tsujita"}]
    if not both:
        return
    table = first_by([r for r in runs if key(r) in both], lambda r: (key(r), r["strategy"]),
                     mib_per_s)
    # a bar pair per job, direction and K: wider as they grow, labels
    # steep enough not to run into each other
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(both)), 4))
    grouped_bars(ax, "ordered", table, both, ["lustre", "tsujita"],
                 rotation=45 if len(both) > 8 else 15)
    ax.set_ylabel("MiB/s")
    ax.set_title("Collection in rank order (lustre) against host order (tsujita)")
    save(fig, out, "ordered", written)


def tree_layout(links):
    """Positions for the loaded part of the tree: leaves spread in depth-first
    order, each switch above the middle of its children, the root on top."""
    children, parent = {}, {}
    for ln in links:
        parent[ln["below"]] = ln["above"]
        children.setdefault(ln["above"], []).append(ln["below"])
    roots = [v for v in children if v not in parent]
    pos, next_x = {}, [0]

    def place(v, depth):
        kids = children.get(v, [])
        for k in kids:
            place(k, depth + 1)
        if kids:
            x = sum(pos[k][0] for k in kids) / len(kids)
        else:
            x, next_x[0] = next_x[0], next_x[0] + 1
        pos[v] = (x, -depth)

    for r in roots:
        place(r, 0)
    return pos


def chart_link_load(plt, inputs, out, written):
    from matplotlib import cm, colors
    for n, p in enumerate(inputs.plans):
        links = [ln for ln in p["links"] if ln.get("above")]
        if not links:
            continue
        pos = tree_layout(links)
        busiest = max(max(ln["up"], ln["down"]) for ln in links)
        norm = colors.Normalize(0, busiest)
        width = max(6, 0.12 * (len(pos) - len({ln["above"] for ln in links})))
        fig, ax = plt.subplots(figsize=(min(width, 40), 5))
        for ln in links:
            load = max(ln["up"], ln["down"])
            (x0, y0), (x1, y1) = pos[ln["below"]], pos[ln["above"]]
            (edge,) = ax.plot([x0, x1], [y0, y1], color=cm.viridis_r(norm(load)),
                              linewidth=0.5 + 5 * load / busiest)
            tag(edge, "link_load", ln["below"], ln["above"], f"{ln['up']},{ln['down']}")
            if len(links) <= 40:
                ax.annotate(f"{load / 2**20:.2f}", ((x0 + x1) / 2, (y0 + y1) / 2), fontsize=6)
        switches = {ln["above"] for ln in links}
        for v, (x, y) in pos.items():
            ax.plot([x], [y], "o", color="black", markersize=2)
            if v in switches or len(pos) - len(switches) <= 24:  # hosts when legible
                ax.annotate(v, (x, y), fontsize=6, textcoords="offset points", xytext=(2, 2))
        ax.set_axis_off()
        fig.colorbar(cm.ScalarMappable(norm=colors.Normalize(0, busiest / 2**20),
                                       cmap="viridis_r"), ax=ax,
                     label="MiB on the link (busier direction)")
        ax.set_title(f"Link load, {p['strategy']}, {p['job']}: busiest "
                     f"{busiest / 2**20:.2f} MiB")
        save(fig, out, f"link_load-{n}-{p['strategy']}", written)


def chart_auto_model(plt, inputs, out, written):
    """auto's cost model against what its trials measured (TACIO_STATS of
    calls with trial >= 1 and a plan): a point a trial, on log axes, with
    the line where the model would be right; above it, the model was
    optimistic. Each point is a short vertical tick at (predicted,
    measured), so its numbers ride in its SVG id."""
    if not inputs.trials:
        return
    fig, ax = plt.subplots(figsize=(6, 5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    xs = [t["predicted"] for t in inputs.trials]
    ys = [t["measured"] for t in inputs.trials]
    lo, hi = min(xs + ys) / 2, max(xs + ys) * 2
    ax.plot([lo, hi], [lo, hi], color="0.6", lw=1, ls="--", label="model = measured")
    for op, color in (("write", "tab:blue"), ("read", "tab:orange")):
        for t in (t for t in inputs.trials if t["op"].startswith(op)):
            line, = ax.plot([t["predicted"]] * 2, [t["measured"] / 1.03, t["measured"] * 1.03],
                            color=color, lw=3)
            tag(line, "auto_model", t["op"], t["trial"], f"{t['predicted']:.6g}",
                f"{t['measured']:.6g}")
        ax.plot([], [], color=color, lw=3, label=op)
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("predicted by auto's model (s)")
    ax.set_ylabel("measured, slowest rank (s)")
    ax.set_title("auto's trials: the model against the machine")
    ax.legend()
    save(fig, out, "auto_model", written)


CHARTS = [chart_hop_bytes, chart_shuffle, chart_stages, chart_bandwidth, chart_aggs_per_host,
          chart_memory, chart_memory_budget, chart_ordered, chart_link_load, chart_auto_model]


def main():
    ap = argparse.ArgumentParser(prog="tacio report", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", metavar="INPUT")
    ap.add_argument("--out", required=True, metavar="DIR")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        matplotlib.rcParams["svg.hashsalt"] = "tacio"  # the same input draws the same SVG
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("tacio report: needs matplotlib (python3 -m pip install matplotlib)")
    inputs = Inputs()
    for path in args.inputs:
        try:
            inputs.read(path)
        except (OSError, UnicodeDecodeError) as e:
            sys.exit(f"tacio report: {path}: {e}")
        except (KeyError, ValueError) as e:
            sys.exit(f"tacio report: {path}: a record lacks or garbles {e}")
    if not inputs.runs and not inputs.experiments:
        sys.exit("tacio report: no TACIO_STATS lines, plans or bench results in the input")
    os.makedirs(args.out, exist_ok=True)
    written = []
    for chart in CHARTS:
        chart(plt, inputs, args.out, written)
    for path in written:
        print(path)
    print(f"runs={len(inputs.runs)} plans={len(inputs.plans)} skipped_lines={inputs.skipped} "
          f"charts={len(written) // 2}")


if __name__ == "__main__":
    main()
