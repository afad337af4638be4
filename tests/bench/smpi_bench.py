#!/usr/bin/env python3
"""bench/smpi without simulating (no SimGrid needed), on stored runs made up
here:
  - summary paper: each job's line (write + read against romio at one per
    host), the write goal (best write <= 0.8x romio's, or within 5% of a
    bound above that: the planner's link bound), the sweep's coverage and
    auto's counts; a later run replacing an earlier one, a stopped run
    never replacing a finished one and never a job's run, a hinted run a
    choice of its own, a broken line named;
  - summary auto: auto against the fastest choice;
  - summary model: the cost model's seconds for each stored run's plan
    (tacio plan --as-engine) beside its simulated write, and per job how
    the model orders the candidates and what choosing by it would cost;
  - floors: the engine's plan (tacio plan --as-engine) of cube 2000^3 at
    64 ranks, its busiest-link and disk floors; a stored run under its
    floor fails, a run whose plan the planner does not make is counted and
    not floored;
  - the reasons said for a simulation that died, SimGrid's cfg, --auto's
    grid (auto's candidates with node aggregation too), the planner's
    pattern at a run's own size, the shuffle ratios (none for romio run
    alone), the measured network's hints in place of the platform's, and
    bad arguments refused.

usage: smpi_bench.py SOURCE_DIR BUILD_DIR
"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cluster, ranks, strategy, k, write, read, floor, hints=None, **more):
    r = {"cluster": cluster, "placement": "scatter:seed=1", "pattern": "cube",
         "ranks": str(ranks), "strategy": strategy, "aggs_per_host": k,
         "write_s": str(write), "read_s": str(read), "io_floor_s": floor,
         "buffer_wrong": "0", "file_wrong": "0", **more}
    if hints:  # bench/smpi/run paper --hint
        r["hints"] = hints
    return r


def stored(work, name, *runs):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in runs)
    return path


class Bench:
    def __init__(self, src, build):
        self.exe, self.build = os.path.join(src, "bench/smpi/run"), build

    def __call__(self, *args):  # the stored runs here are made up: the platform's model
        p = subprocess.run([self.exe, *args, "--build", self.build, "--model", "platform"],
                           capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


def lines_of(out, prefix):
    return [dict(kv.split("=", 1) for kv in l.split() if "=" in kv) for l in out.splitlines()
            if l.startswith(prefix)]


def by(out, prefix, key):
    return {l[key]: l for l in lines_of(out, prefix)}


def check_paper_summary(bench, work, names):
    first = stored(work, "a.jsonl",
                   run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4),
                   run("inspur", 512, "bottleneck", 4, 1.5, 1.5, 0.4),
                   run("inspur", 512, "auto", 1, 2.2, 2.2, 0.4),  # loses: replaced below
                   run("inspur", 64, "romio", 1, 5.0, 5.0, 4.9),  # bound above 0.8
                   run("inspur", 64, "auto", 1, 5.1, 5.1, 4.9))
    second = stored(work, "b.jsonl", run("inspur", 512, "auto", 1, 1.6, 1.6, 0.4))
    rc, out, err = bench("summary", "paper", first)
    check(rc == 0, f"summary of one file: rc {rc} {err}")
    jobs = by(out, "paper_job=", "paper_job")
    check(set(jobs) == {"inspur-scatter-cube-512", "inspur-scatter-cube-64"},
          f"the jobs: {sorted(jobs)}")
    per_job = 3 * (len(names) - 1) + 1  # every strategy at 1, 2 and 4 per host, and auto
    check(f"sweep_runs_stored=5/{13 * per_job} jobs_complete=0/13" in out,
          f"the sweep's coverage: {out}")
    c512 = jobs.get("inspur-scatter-cube-512", {})
    check(c512.get("auto_vs_romio") == "1.100" and c512.get("best_vs_romio") == "0.750"
          and c512.get("strategy") == "bottleneck@4" and c512.get("bound_vs_romio") == "0.200",
          f"cube 512's line: {c512}")
    check("auto_never_loses=1/2" in out and "auto_within_10pct=1/2" in out,
          f"a losing auto counted: {out}")
    g = by(out, "paper_write_goal ", "job").get("inspur-scatter-cube-512", {})
    check(g.get("best_write_vs_romio") == "0.750" and g.get("goal") == "0.800"
          and g.get("met") == "yes", f"cube 512's write goal: {g}")
    link = g.get("link_bound_vs_romio", "none").split("@")
    check(len(link) == 2 and 0.4 < float(link[0]) < 0.75, f"the link bound: {g}")
    part = g.get("partition_bound_vs_romio", "none").split("@")
    check(len(part) == 2 and 0.3 < float(part[0]) < 0.75 and part[1] in ("1", "2", "4"),
          f"the partition bound: {g}")
    # a romio write of 1.3 s: the link bound (about 1.2 s at 4 per host)
    # is above 0.8x it, and the goal 5% above the bound
    fast = stored(work, "fast.jsonl", run("inspur", 512, "romio", 1, 1.3, 1.3, 0.4),
                  run("inspur", 512, "bottleneck", 4, 1.25, 1.25, 0.4),
                  run("inspur", 512, "auto", 1, 1.25, 1.25, 0.4))
    rc, out, err = bench("summary", "paper", fast)
    g = by(out, "paper_write_goal ", "job").get("inspur-scatter-cube-512", {})
    bound = float(g.get("link_bound_vs_romio", "0@0").split("@")[0])
    check(bound > 0.8 and abs(float(g.get("goal", 0)) - 1.05 * bound) < 2e-3
          and g.get("met") == "yes", f"the goal above the link bound: {g} {err}")
    rc, out, err = bench("summary", "paper", first, second)
    c512 = by(out, "paper_job=", "paper_job").get("inspur-scatter-cube-512", {})
    check(c512.get("auto_vs_romio") == "0.800" and "auto_never_loses=2/2" in out,
          f"the later auto run replaces the earlier: {c512} {out}")
    check_stopped_runs(bench, work, names, per_job)
    # one job with every run, and a hinted one: a choice of its own, outside the count
    whole = [run("inspur", 64, s, k, 5.0, 5.0, 4.9) for s in names
             for k in ((1,) if s == "auto" else (1, 2, 4))]
    whole.append(run("inspur", 64, "romio", 1, 4.0, 4.0, 4.9, ["a=b"]))
    rc, out, err = bench("summary", "paper", stored(work, "whole.jsonl", *whole))
    c64 = by(out, "paper_job=", "paper_job").get("inspur-scatter-cube-64", {})
    check(f"sweep_runs_stored={per_job}/{13 * per_job} jobs_complete=1/13" in out
          and c64.get("strategy") == "romio+a=b@1" and c64.get("auto_vs_romio") == "1.000",
          f"a whole job, and a hinted run as a choice of its own: {out} {err}")
    # a goal job without auto's run still gets its write goal
    hinted = stored(work, "hinted.jsonl", run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4),
                    run("inspur", 512, "romio", 1, 1.4, 1.4, 0.4,
                        ["tacio_node_aggregation=enable"]))
    rc, out, err = bench("summary", "paper", hinted)
    g = by(out, "paper_write_goal ", "job").get("inspur-scatter-cube-512", {})
    check(not lines_of(out, "paper_job=") and g.get("best_write_vs_romio") == "0.700"
          and g.get("strategy") == "romio+tacio_node_aggregation=enable@1"
          and g.get("met") == "yes", f"a hinted run, no auto: {out} {err}")
    # how the runs were solved: another maxmin/precision, the lazy solver
    tuned = stored(work, "tuned.jsonl",
                   dict(run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4), lmm_solver="full"),
                   dict(run("inspur", 512, "lustre", 4, 3.0, 3.0, 0.4), maxmin_precision=1e-4))
    rc, out, err = bench("summary", "paper", tuned)
    check(rc == 0 and "jobs_complete=0/13 runs_maxmin_precision_0.0001=1 runs_lazy_solver=1\n"
          in out, f"the summary counts the tuned run and the lazily solved one: {out} {err}")
    with open(second, "a") as f:
        f.write("{}\n")
    rc, out, err = bench("summary", "paper", second)
    check(rc != 0 and "b.jsonl:2" in err, f"a broken line is named: rc {rc} {err}")


def check_stopped_runs(bench, work, names, per_job):
    """A run its CPU limit stopped: no job's run, outside the coverage; it
    never replaces the finished run of its choice, stored before or after."""
    stopped = dict(run("inspur", 512, "bottleneck", 4, 0, 0, 0), status="unfinished",
                   cpu_s=3700, cpu_limit_s=3660)
    for k in ("write_s", "read_s", "io_floor_s"):
        del stopped[k]
    some = stored(work, "stopped.jsonl", run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4),
                  run("inspur", 512, "auto", 1, 1.6, 1.6, 0.4), stopped)
    rc, out, err = bench("summary", "paper", some)
    c512 = by(out, "paper_job=", "paper_job").get("inspur-scatter-cube-512", {})
    check(rc == 0 and c512.get("best_vs_romio") == "0.800" and c512.get("strategy") == "auto@1"
          and f"sweep_runs_stored=2/{13 * per_job}" in out,
          f"a stopped run is no job's run: {out} {err}")
    done = stored(work, "done.jsonl", run("inspur", 512, "bottleneck", 4, 1.5, 1.5, 0.4))
    for files, what in (((done, some), "after"), ((some, done), "before")):
        rc, out, err = bench("summary", "paper", *files)
        c512 = by(out, "paper_job=", "paper_job").get("inspur-scatter-cube-512", {})
        check(c512.get("strategy") == "bottleneck@4" and c512.get("best_vs_romio") == "0.750",
              f"a stopped run stored {what} the finished one: {c512} {err}")


def check_auto_summary(bench, work):
    grid = stored(work, "grid.jsonl", run("inspur", 64, "romio", 1, 1.0, 1.0, 0.1, naggs="20"),
                  run("inspur", 64, "tatp", 2, 0.8, 0.8, 0.1, naggs="40"),
                  run("inspur", 64, "auto", 1, 0.85, 0.85, 0.1, naggs="40"),
                  run("inspur", 125, "romio", 1, 1.0, 1.0, 0.1, naggs="20"),
                  run("inspur", 125, "auto", 1, 1.2, 1.2, 0.1, naggs="20"))
    rc, out, err = bench("summary", "auto", grid)
    lines = {l["ranks"]: l for l in lines_of(out, "auto_check ")}
    check(rc == 0 and lines.get("64", {}).get("best") == "tatp@2"
          and lines["64"].get("ratio") == "1.062" and lines["64"].get("within_10pct") == "yes"
          and lines.get("125", {}).get("within_10pct") == "no"
          and "auto_within_10pct=1/2" in out and "auto_within_5pct_of_romio=1/2" in out,
          f"auto against the fastest choice: {out} {err}")


def check_model_summary(bench, work, build):
    """Two stored runs of cube 2000^3 at 64 ranks, their simulated writes
    in the reverse of the model's order: the model's fastest costs the
    other's write over its own, and the rank correlation is -1."""
    model = {k: engine_plan(build, work, s, k)[0]["model_seconds"]
             for s, k in (("romio", 1), ("tatp", 2))}
    fast, slow = sorted(model, key=model.get)  # K per host: 1 is romio's, 2 tatp's
    sim = {fast: 3.0, slow: 2.0}
    runs = stored(work, "model.jsonl", run("inspur", 64, "romio", 1, sim[1], 9.0, 0.1),
                  run("inspur", 64, "tatp", 2, sim[2], 9.0, 0.1),
                  run("inspur", 64, "auto", 1, 1.0, 1.0, 0.1))
    rc, out, err = bench("summary", "model", runs)
    each = by(out, "model ", "choice")
    job = lines_of(out, "model_job ")
    name = {1: "romio@1", 2: "tatp@2"}
    check(rc == 0 and set(each) == {"romio@1", "tatp@2"}
          and float(each["romio@1"]["predicted_s"]) == float(f"{model[1]:.6g}")
          and each["tatp@2"]["ratio"] == f"{model[2] / sim[2]:.3f}"
          and len(job) == 1 and job[0].get("rank_correlation") == "-1.000"
          and job[0].get("model_fastest") == name[fast]
          and job[0].get("simulated_fastest") == name[slow]
          and job[0].get("model_fastest_vs_best") == "1.500",
          f"the model against the simulated runs: {out} {err}")


def engine_plan(build, work, strategy, k):
    """The engine's plan of cube 2000^3 at 64 ranks on the scattered Inspur
    tree, with the bench's hints, and the platform's directory (in work,
    the test's own temporary directory: nothing is left behind)."""
    from simbench import jobs, platforms, summary
    tacio = os.path.join(build, "bin", "tacio")
    return (summary.plan(work, tacio, jobs.PAPER_QUICK, strategy, k, as_engine=True),
            platforms.platform(work, tacio, jobs.PAPER_QUICK).dir)


def check_floors(bench, work, build):
    """tatp at 2 per host stacks a quarter of the file (16e9 bytes) on one
    host's disk at 2e9 B/s: 8 s each way, 16 s in all. A run of it stored
    at 10 s a call holds; at 7.9 s it is under its floor and fails the
    check; with another plan's hop-bytes, it is counted as a disagreement
    and not floored."""
    plan, plat = engine_plan(build, work, "tatp", 2)
    from simbench import floors, platforms
    write, read = floors.call_floors(plan, platforms.rates(plat))
    check(abs(write - 8.0) < 1e-6 and abs(read - 8.0) < 1e-6,
          f"tatp@2's floors: {write}, {read} (want 8 s each way)")
    planned = dict(max_link_load=str(plan["max_link_load"]), hop_bytes=str(plan["hop_bytes"]))
    romio, _ = engine_plan(build, work, "romio", 1)
    ok = stored(work, "floors.jsonl",
                run("inspur", 64, "tatp", 2, 10.0, 10.0, 4.9, **planned),
                run("inspur", 64, "romio", 1, 5.5, 5.5, 4.9,
                    max_link_load=str(romio["max_link_load"]), hop_bytes=str(romio["hop_bytes"])),
                run("inspur", 64, "auto", 1, 1.0, 1.0, 4.9))
    rc, out, err = bench("floors", ok)
    check(rc == 0 and "paper_floor_check runs=2 under_floor=0 "
          "planner_agrees=romio:1/1,tatp:1/1" in out, f"the floor check: rc {rc} {out} {err}")
    under = stored(work, "under.jsonl", run("inspur", 64, "tatp", 2, 7.9, 7.9, 4.9, **planned))
    rc, out, err = bench("floors", under)
    check(rc != 0 and "paper_floor_under inspur-scatter-cube-64:tatp@2 time_s=15.800000 "
          "floor_s=16.000000" in out, f"a run under its floor fails: rc {rc} {out} {err}")
    other = stored(work, "other.jsonl",
                   run("inspur", 64, "tatp", 2, 7.9, 7.9, 4.9, max_link_load="1", hop_bytes="1"))
    rc, out, err = bench("floors", other)
    check(rc == 0 and "under_floor=0 planner_agrees=tatp:0/1" in out,
          f"another plan's run is not floored: rc {rc} {out} {err}")


def check_simulate_helpers():
    from simbench import simulate
    info = ["[n97:449:(450) 0.006931] [smpi_colls/INFO] MPI_allreduce_lr: small"] * 50
    abort = ["[0.010575] ./src/kernel/lmm/maxmin.cpp:217: [root/CRITICAL] Cannot saturate",
             "\tFor the record, the usage of this constraint is 1.02603e-05",
             "Backtrace (displayed in actor maestro):", "  ->  0# main", "", "Aborted"]
    words = simulate.last_words("\n".join(info + abort))
    check(words == abort[:2], f"last_words of an LMM abort: {words}")
    tail = [f"line {i}" for i in range(8)] + ["tacio: an error of the engine's"]
    words = simulate.last_words("\n".join(tail) + "\n")
    check(words == tail[-5:], f"last_words without a CRITICAL line: {words}")
    for code in (137, -9):  # through smpirun, directly
        check("out of memory?" in " ".join(simulate.killed_why(code)),
              f"a SIGKILL ({code}) names the OOM killer: {simulate.killed_why(code)}")
    check(simulate.killed_why(1) == [], "an error's exit is no kill")
    from simbench import launch
    flag = "--cfg=maxmin/precision:0.0001"
    check(launch.simgrid_cfg(True, 1e-4)[-1] == flag, "a precision's cfg")
    check(not any("maxmin/precision" in c for c in launch.simgrid_cfg(True)
                  + launch.simgrid_cfg(False)), "no precision, no cfg")
    full = ["--cfg=network/optim:Full", "--cfg=network/maxmin-selective-update:no"]
    check(all(c in launch.simgrid_cfg(True) for c in full)
          and not any(c in launch.simgrid_cfg(False) for c in full),
          "the papers' runs, and only they, solve in full")
    from simbench import jobs
    cases = jobs.small_cases("auto", 512, ["romio", "cuts", "auto"], ["romio", "tatp"])
    hinted = {(c.strategy, c.per_host) for c in cases if c.hints == (jobs.NODE_AGGREGATION,)}
    check(hinted == {("romio", 1), ("romio", 2), ("romio", 4)}
          and len(cases) == len(jobs.AUTO_GRID) * (3 + 3 + 1 + 3),
          f"--auto's grid: every strategy, and the candidates with node aggregation: {hinted}")
    from simbench.records import Job, Run
    sizes = {jobs.planner_pattern(Job("inspur", "cyclic", "cube", 64), 8 * 128 ** 3),
             jobs.planner_pattern(Job("inspur", "cyclic", "btio", 100), "40000000"),
             jobs.planner_pattern(Job("inspur", "cyclic", "btio8", 900))}
    check(sizes == {"collperf:n=128,elem=8", "btio:n=100,elem=40", "btio:n=1980,elem=8"},
          f"the planner's pattern at a run's own size, else the papers': {sizes}")
    from simbench import summary
    alone = [Run.from_json(run("inspur", 64, "romio", 1, 1.0, 1.0, 0.1, write_shuffle_s="0.5"))]
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        summary.shuffle_ratios(alone, 64)
        summary.shuffle_ratios(alone + [Run.from_json(run("inspur", 64, "tatp", 1, 1.0, 1.0, 0.1,
                                                          write_shuffle_s="0.25"))], 64)
    check(said.getvalue() == "shuffle_ratio_tatp_vs_romio=0.500\n"
          "shuffle_ratio_best_vs_romio=0.500 strategy=tatp\n",
          f"the shuffle ratios, of romio run alone none: {said.getvalue()!r}")
    from simbench import platforms
    merged = platforms.with_network(
        "tacio_bw_link=5e+09,tacio_bw_uplink=2.5e+09,tacio_bw_agg_io=2e+09,tacio_latency=1e-05",
        "tacio_bw_link=4.5e+09,tacio_bw_factors=0:0.5,tacio_latency=4e-06")
    check(merged == "tacio_bw_agg_io=2e+09,tacio_bw_link=4.5e+09,tacio_bw_factors=0:0.5,"
          "tacio_latency=4e-06", f"the measured network replaces the platform's: {merged}")


def check_refused(bench):
    for args, says in ((["paper", "--maxmin-precision", "2"], "is not in (0, 1)"),
                       (["paper", "--cpu-limit", "0"], "is not > 0"),
                       (["paper", "--job", "nowhere"], "invalid choice"),
                       (["run", "--quick", "--sweep"], "not allowed with"),
                       (["summary", "paper"], "required")):
        rc, out, err = bench(*args)
        check(rc == 2 and says in err, f"{args} refused: rc {rc} {err}")


def main():
    src, build = sys.argv[1], os.path.abspath(sys.argv[2])
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(src, "bench", "smpi"))
    bench = Bench(src, build)
    names = subprocess.run([os.path.join(build, "bin", "tacio"), "list", "strategies"],
                           capture_output=True, text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as work:
        check_paper_summary(bench, work, names)
        check_auto_summary(bench, work)
        check_model_summary(bench, work, build)
        check_floors(bench, work, build)
    check_simulate_helpers()
    check_refused(bench)
    print(f"smpi_bench: {checks} checks, {len(failures)} failure(s)")
    sys.exit(1 if failures or not checks else 0)


if __name__ == "__main__":
    main()
