"""What the runs say: per paper job auto and the best choice against
ROMIO's default, the write goals, how much of the sweep is stored; auto
against every candidate (run --auto); the memory experiment. Times are
simulated write + read; ratios against romio at one aggregator per host on
the same job (ROMIO's default)."""
import collections
import json
import os
import subprocess

from benchlib import geomean, parse_kv

from .jobs import PAPER_JOBS, PAPER_WRITE_GOAL, PER_HOST, planner_pattern
from .platforms import platform
from .records import by_job, times

ROMIO = ("romio", 1)
AUTO = ("auto", 1)


def paper(runs, bounds_of=lambda job: None, strategies=()):
    """One line per job with auto's run, the write goal's per goal job, the
    sweep's coverage (strategies: the registry's), and auto's counts.
    bounds_of(job): link_bounds'."""
    jobs = by_job(r for r in runs if r.finished)
    speedups, never_loses, within = [], 0, 0
    for job in [j for j in PAPER_JOBS if j in jobs]:
        t = times(jobs[job])
        if ROMIO not in t:
            continue
        floor = jobs[job][0]["io_floor_s"]  # one direction; write + read take it twice
        if AUTO in t:
            romio, auto, best = _job_line(job, jobs[job], t, floor)
            never_loses += auto <= 1.02 * romio
            within += auto <= 1.1 * best
            speedups.append(romio / auto)
        if job in PAPER_WRITE_GOAL:
            _write_goal(job, times(jobs[job], ("write",)), floor, bounds_of(job))
    if strategies:
        _coverage(jobs, strategies)
    if speedups:
        print(f"auto_never_loses={never_loses}/{len(speedups)}")
        print(f"auto_within_10pct={within}/{len(speedups)}")
        print(f"auto_geomean_speedup_vs_romio={geomean(speedups):.3f}")


def _job_line(job, runs, t, floor):
    """The job's paper line; (romio's, auto's, the best's) seconds."""
    romio, auto = t[ROMIO], t[AUTO]
    (bs, bk), best = min(t.items(), key=lambda kv: kv[1])
    ok = all(r["buffer_wrong"] == "0" and r["file_wrong"] == "0" for r in runs if r.finished)
    print(f"paper_job={job.name} auto_vs_romio={auto / romio:.3f} "
          f"best_vs_romio={best / romio:.3f} strategy={bs}@{bk} "
          f"bound_vs_romio={2 * floor / romio:.3f} verified={'yes' if ok else 'no'}", flush=True)
    return romio, auto, best


def _write_goal(job, w, floor, bounds):
    """The job's write goal: the best write <= 0.8x romio's; where a bound
    is above that, within 5% of it: the storage's (any plan), or the
    slowest link's over the plans that keep ROMIO's FDs (link_bounds'
    "link"). Beside it, the slowest link's over every contiguous partition
    ("partition"): what choosing the FDs too could reach."""
    (ws, wk), wbest = min(w.items(), key=lambda kv: kv[1])
    romio = w[ROMIO]
    bounds = bounds or {}
    link = bounds.get("link")
    bound = max(floor, link[0] if link else 0)
    goal = 0.8 if bound <= 0.8 * romio else 1.05 * bound / romio
    shown = {name: f"{b[0] / romio:.3f}@{b[1]}" if b else "none"
             for name, b in (("link", link), ("partition", bounds.get("partition")))}
    print(f"paper_write_goal job={job.name} best_write_vs_romio={wbest / romio:.3f} "
          f"strategy={ws}@{wk} bound_vs_romio={floor / romio:.3f} "
          f"link_bound_vs_romio={shown['link']} partition_bound_vs_romio={shown['partition']} "
          f"goal={goal:.3f} met={'yes' if wbest <= goal * romio else 'no'}", flush=True)


def _coverage(jobs, strategies):
    """How much of the sweep (every job, every strategy at each K, auto at
    its own) the finished runs hold; hinted runs are extra choices, outside
    it. Then the runs made another way: at another maxmin/precision than
    SimGrid's, or stored before the papers' runs solved in full (no
    lmm_solver: SimGrid's lazy update, within 5e-05 of the full solver's)."""
    want = {(job, s, k) for job in PAPER_JOBS for s in strategies
            for k in ((1,) if s == "auto" else PER_HOST)}
    have = {(job, r.strategy, r.per_host) for job, rs in jobs.items()
            for r in rs if not r.hints} & want
    incomplete = {job for job, _, _ in want - have}
    tuned = collections.Counter(r["maxmin_precision"] for rs in jobs.values() for r in rs
                                if "maxmin_precision" in r.fields)
    counts = "".join(f" runs_maxmin_precision_{p:g}={n}" for p, n in sorted(tuned.items()))
    lazy = sum("lmm_solver" not in r.fields for rs in jobs.values() for r in rs)
    counts += f" runs_lazy_solver={lazy}" if lazy else ""
    print(f"sweep_runs_stored={len(have)}/{len(want)} "
          f"jobs_complete={len(PAPER_JOBS) - len(incomplete)}/{len(PAPER_JOBS)}{counts}")


def link_bounds(work, tacio, job):
    """The least time the write's slowest link takes, from the planner's
    bounds on the platform's rates, each the least over K per host:
    {"link": (seconds, K)} over every plan that keeps ROMIO's FDs, in any
    assignment (bottleneck's link_seconds_bound), {"partition": (seconds,
    K)} over every partition into contiguous FDs (cuts'
    partition_seconds_bound). None for a pattern the planner does not name."""
    if planner_pattern(job) is None:
        return None
    best = {}
    for strategy, field, name in (("bottleneck", "link_seconds_bound", "link"),
                                  ("cuts", "partition_seconds_bound", "partition")):
        for k in PER_HOST:
            detail = parse_kv(plan(work, tacio, job, strategy, k, rates=True)["detail"])
            if field in detail and (name not in best or float(detail[field]) < best[name][0]):
                best[name] = (float(detail[field]), k)
    return best


def plan(work, tacio, job, strategy, k, as_engine=False, rates=False, nbytes=None):
    """`tacio plan --json` of the job's strategy at k per host, with the
    hints the bench runs it with (K both ways, auto's model); with
    as_engine, planned as the engine plans (on the ranks' summaries); with
    rates, on the platform's own rates (a bound's, not auto's measure, and
    what runs stored without model=measured were given); at the size a
    run's nbytes give (planner_pattern), else the papers'."""
    plat = platform(work, tacio, job)
    model = plat.handed if rates else plat.model
    hints = model.split(",") + [f"cb_config_list=*:{k}", f"tacio_aggs_per_node={k}"]
    p = subprocess.run([tacio, "plan", "--json", "--pattern", planner_pattern(job, nbytes),
                        "--procs", str(job.ranks), "--topology", plat.spec,
                        "--placement", job.placement, "--strategy", strategy]
                       + [a for h in hints for a in ("--hint", h)]
                       + (["--as-engine"] if as_engine else []),
                       check=True, capture_output=True, text=True)
    return json.loads(p.stdout)


def model_check(runs, predict):
    """auto's cost model against the simulation, candidate by candidate
    (issue 50's "at paper scale, the model's predicted against simulated
    time per candidate"): per stored run of a job whose pattern the planner
    names (auto's and hinted runs left out), predict(job, strategy, K,
    bytes) is the model's seconds for the write of that plan at the run's
    size, beside the simulated
    write. Per job: the median and worst of predicted over simulated, the
    rank correlation of the two over the candidates (1: the model orders
    them as the simulation does), and what choosing by the model alone
    would cost: the simulated write of the model's fastest candidate over
    the simulated fastest's. Every stored strategy is a candidate here,
    cuts and lustre too, which auto does not rate."""
    all_ratios, losses = [], []
    for job, rs in by_job(r for r in runs if r.finished).items():
        pairs = []
        for r in rs:
            if r.strategy == "auto" or r.hints or planner_pattern(job) is None:
                continue
            predicted = predict(job, r.strategy, r.per_host, r.get("bytes"))
            simulated = float(r["write_s"])
            pairs.append((f"{r.strategy}@{r.per_host}", predicted, simulated))
            print(f"model job={job.name} choice={r.strategy}@{r.per_host} "
                  f"predicted_s={predicted:.6g} simulated_s={simulated:.6g} "
                  f"ratio={predicted / simulated:.3f}")
        if len(pairs) < 2:
            continue
        ratios = sorted(p / s for _, p, s in pairs)
        by_model = min(pairs, key=lambda c: c[1])
        best = min(pairs, key=lambda c: c[2])
        loss = by_model[2] / best[2]
        all_ratios += ratios
        losses.append(loss)
        worst = max(ratios, key=lambda x: abs(x - 1))
        print(f"model_job job={job.name} candidates={len(pairs)} "
              f"median_ratio={ratios[len(ratios) // 2]:.3f} worst_ratio={worst:.3f} "
              f"rank_correlation={_rank_correlation(pairs):.3f} model_fastest={by_model[0]} "
              f"simulated_fastest={best[0]} model_fastest_vs_best={loss:.3f}", flush=True)
    if losses:
        all_ratios.sort()
        print(f"model_median_ratio={all_ratios[len(all_ratios) // 2]:.3f} "
              f"model_fastest_vs_best_worst={max(losses):.3f} "
              f"model_fastest_vs_best_geomean={geomean(losses):.3f} jobs={len(losses)}")


def _rank_correlation(pairs):
    """Spearman's rank correlation of predicted and simulated seconds
    (ties take their mean rank)."""
    def ranks(values):
        order = sorted(range(len(values)), key=lambda i: values[i])
        r = [0.0] * len(values)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r
    a, b = ranks([p for _, p, _ in pairs]), ranks([s for _, _, s in pairs])
    n = len(pairs)
    ma, mb = sum(a) / n, sum(b) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    var = (sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b)) ** 0.5
    return cov / var if var else 0.0


def model_seconds(work, tacio, job, strategy, k, nbytes=None):
    """The model's seconds for the engine's plan of job's write (what the
    simulated run planned), at the size nbytes give (planner_pattern)."""
    return plan(work, tacio, job, strategy, k, as_engine=True, nbytes=nbytes)["model_seconds"]


def repeat_goal(calls):
    """auto's total over repeated calls against the best fixed choice's
    (issue 50's goal): 0.97 at 20 calls, 0.99 from 200."""
    return 0.99 if calls >= 200 else 0.97


def auto_check(runs):
    """Per job with auto's run: the fastest choice and auto's time; then
    how often auto is within 10% of it and within 5% of romio's. Runs that
    repeated their calls (run --calls N) are compared by their totals, and
    the line says auto_total_vs_best_fixed (the best's total over auto's)
    against its goal."""
    within = n = holds = met = repeats = 0
    for job, rs in by_job(r for r in runs if r.finished).items():
        t = times(rs)
        if AUTO not in t:
            continue
        auto = t.pop(AUTO)
        if ROMIO not in t:  # auto's run alone (--strategies auto)
            continue
        (bs, bk), best = min(t.items(), key=lambda kv: kv[1])
        romio = t[ROMIO]
        ok = auto <= 1.1 * best
        within, n, holds = within + ok, n + 1, holds + (auto <= 1.05 * romio)
        auto_run = next(r for r in rs if r.strategy == "auto")
        calls = int(auto_run.get("calls", 1))
        repeated = ""
        if calls > 1:
            goal_met = best / auto >= repeat_goal(calls)
            met, repeats = met + goal_met, repeats + 1
            repeated = (f" calls={calls} auto_total_vs_best_fixed={best / auto:.3f} "
                        f"auto_total_vs_romio={romio / auto:.3f} "
                        f"goal_met={'yes' if goal_met else 'no'}")
        print(f"auto_check cluster={job.cluster} placement={job.placement} "
              f"pattern={job.pattern} ranks={job.ranks} best={bs}@{bk} best_s={best:.6f} "
              f"auto_s={auto:.6f} auto_naggs={auto_run['naggs']} ratio={auto / best:.3f} "
              f"within_10pct={'yes' if ok else 'no'} auto_vs_romio={auto / romio:.3f}{repeated}")
    if n:
        print(f"auto_within_10pct={within}/{n}")
        print(f"auto_within_5pct_of_romio={holds}/{n}")
    if repeats:
        print(f"auto_total_vs_best_fixed_met={met}/{repeats}")


def shuffle_ratios(runs, ranks):
    """run's lines: the write shuffle of tatp and of the best strategy
    against romio's, cube at ranks on the scattered Inspur tree."""
    cube = {r.strategy: float(r["write_shuffle_s"]) for r in runs
            if r.finished and r.job.cluster == "inspur" and r.job.placement.startswith("scatter")
            and r.job.pattern == "cube" and r.job.ranks == ranks and r.per_host == 1}
    if cube.get("romio", 0) <= 0:
        return
    if "tatp" in cube:
        print(f"shuffle_ratio_tatp_vs_romio={cube['tatp'] / cube['romio']:.3f}")
    others = [s for s in cube if s != "romio"]
    if not others:  # romio alone run: nothing to set beside it
        return
    best = min(others, key=lambda s: cube[s])
    print(f"shuffle_ratio_best_vs_romio={cube[best] / cube['romio']:.3f} strategy={best}")


def memory(runs, draws, job_hosts):
    """Per budget: romio's and mccio's fastest runs, mccio's against
    romio's, the memory each held per aggregator, and how many of ROMIO's
    aggregators (each host's lowest rank) hold more than their process has."""
    for m in sorted({r["budget"] for r in runs}):
        ro = [r for r in runs if r["budget"] == m and r.strategy == "romio" and r.finished]
        mcs = [r for r in runs if r["budget"] == m and r.strategy == "mccio" and r.finished]
        if not ro or not mcs:
            continue
        ro, mc = ro[0], min(mcs, key=lambda r: r.seconds())
        over = sum(draws[m][h][0] < m for h in job_hosts)
        print(f"paper_memory budget_mib={m >> 20} romio_write_s={ro['write_s']} "
              f"mccio_write_s={mc['write_s']} romio_read_s={ro['read_s']} "
              f"mccio_read_s={mc['read_s']} mccio_vs_romio={mc.seconds() / ro.seconds():.3f} "
              f"mccio_per_host={mc.per_host} "
              f"romio_agg_mem={ro['buffer_bytes']} mccio_agg_mem={mc['buffer_bytes']} "
              f"romio_naggs={ro['naggs']} mccio_naggs={mc['naggs']} "
              f"romio_over_budget={over}/{len(job_hosts)}", flush=True)


def host_indices(work, tacio, job):
    """The job's hosts' indices (tree hosts are named n<index>)."""
    with open(os.path.join(platform(work, tacio, job).dir, "hostfile")) as f:
        return sorted({int(line.strip()[1:]) for line in f if line.strip()})
