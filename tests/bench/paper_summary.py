#!/usr/bin/env python3
"""bench/smpi/run --paper --summary, on stored runs made up here: the paper
lines' ratios (write + read against romio at one per host), the write goal
(best write <= 0.8x romio's, or within 5% of the storage's bound where that
is above 0.8), the summary's counts, a later run of a job's strategy at K
per host replacing an earlier one, and a run with --hint counted as a
choice of its own, the sweep's wall time from runs that carry it, and
from their CPU time whether the sweep can finish in an hour (a run
--cpu-limit stopped counting there only, as does a stopped attempt of a
finished run), and the reason the bench prints for a simulation that
died (SimGrid's CRITICAL line, or the OOM killer for a SIGKILL), and
--maxmin-precision's cfg, line and count, and the papers' runs' full
solver, and the count of runs stored before it (solved lazily), and
--certify's floors of unrun runs (settled, or why not: the floor, a
planner that disagrees with a stored run's plan), a stored run under its
floor failing the bench, and a certified job; what a stopped run proves
(its time from below) settling its unrun run, and a stored run under
what its stopped attempt proved failing the bench. No simulation: it
needs no SimGrid.

The write goal's link bound is the tacio command's (bottleneck's
link_seconds_bound for cube 2000^3 at 512 ranks on the scattered Inspur
tree, about 1.2 s at 4 per host): a romio write of 1.3 s puts it above 0.8,
and the goal becomes 5% above it.

usage: paper_summary.py SOURCE_DIR TACIO
"""
import contextlib
import importlib.machinery
import io
import json
import os
import subprocess
import sys
import tempfile
import types

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cluster, ranks, strategy, k, write, read, floor, hints=None):
    r = {"cluster": cluster, "placement": "scatter:seed=1", "pattern": "cube",
         "ranks": str(ranks), "strategy": strategy, "aggs_per_host": k,
         "write_s": str(write), "read_s": str(read), "io_floor_s": floor,
         "buffer_wrong": "0", "file_wrong": "0"}
    if hints:  # bench/smpi/run --hint
        r["hints"] = hints
    return r


def summary(src, tacio, *files):
    p = subprocess.run([os.path.join(src, "bench/smpi/run"), "--paper", "--tacio", tacio,
                        "--summary", *files], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def lines_of(out, prefix):
    return [dict(kv.split("=", 1) for kv in l.split() if "=" in kv) for l in out.splitlines()
            if l.startswith(prefix)]


def load_bench(src):
    """bench/smpi/run as a module, for its functions."""
    sys.dont_write_bytecode = True  # no __pycache__ beside the bench
    path = os.path.join(src, "bench", "smpi", "run")
    loader = importlib.machinery.SourceFileLoader("smpi_bench", path)
    bench = types.ModuleType(loader.name)
    bench.__file__ = path
    loader.exec_module(bench)
    return bench


def check_last_words(bench):
    """A failed simulation's reason: SimGrid's CRITICAL line and its
    detail, not the INFO lines before it or the backtrace after (an LMM
    precision abort on the fat tree printed 60 lines, the reason 4 from
    the end); with no such line, the tail."""
    info = ["[n97:449:(450) 0.006931] [smpi_colls/INFO] MPI_allreduce_lr: small"] * 50
    abort = ["[0.010575] ./src/kernel/lmm/maxmin.cpp:217: [root/CRITICAL] Cannot saturate",
             "\tFor the record, the usage of this constraint is 1.02603e-05",
             "Backtrace (displayed in actor maestro):", "  ->  0# main", "", "Aborted"]
    words = bench.last_words("\n".join(info + abort))
    check(words == abort[:2], f"last_words of an LMM abort: {words}")
    tail = [f"line {i}" for i in range(8)] + ["tacio: an error of the engine's"]
    words = bench.last_words("\n".join(tail) + "\n")
    check(words == tail[-5:], f"last_words without a CRITICAL line: {words}")
    for code in (137, -9):  # through smpirun, directly
        check("out of memory?" in " ".join(bench.killed_why(code)),
              f"a SIGKILL ({code}) names the OOM killer: {bench.killed_why(code)}")
    check(bench.killed_why(1) == [], f"an error's exit is no kill: {bench.killed_why(1)}")


def check_stopped_times(bench):
    """What a stopped simulation proves (stopped_times, from smpibench's
    progress lines and the clock its SIGXCPU handler says): a call done
    counts its slowest rank, one rank 0 ended its own time, one it was
    still in the clock minus its start; without the clock line, nothing."""
    stop = "[0.1] some INFO\nsmpibench: stopped at simulated t=8.500000000\n"
    done_write = ("progress call=write start=0.500000000\nprogress call=write end=5.000000000\n"
                  "progress call=write slowest=5.200000000\n")
    cases = (
        ("progress call=write start=0.500000000\n", stop, 8.0),  # in the write
        (done_write + "progress call=read start=6.000000000\n", stop, 7.7),  # in the read
        (done_write + "progress call=read start=6.000000000\n"
         "progress call=read end=7.000000000\n", stop, 6.2),  # rank 0 left the read
        ("", stop, 0.0),  # stopped before the write
    )
    for out, err, want in cases:
        got = bench.stopped_times("pattern=cube\n" + out, err)
        check(got.get("stopped_at_s") == 8.5 and abs(got.get("at_least_s", -1) - want) < 1e-6
              and got["at_least_s"] <= want, f"stopped_times({out!r}): {got}, want {want}")
    got = bench.stopped_times(done_write, "Killed\n")
    check(got == {}, f"a stop without the clock proves nothing: {got}")
    # rank 0's steps: the last one it entered, in the call it was in
    steps = ("progress call=write step=0 steps=10 entered=1.000000000\n"
             "progress call=write step=1 steps=10 entered=1.500000000\n")
    for out, want in (("progress call=write start=0.500000000\n" + steps,
                       dict(at_least_write_s=8.0, steps_done_write=2, steps_write=10,
                            step_entered_write_s=1.0)),
                      (done_write + "progress call=read start=6.000000000\n"
                       + steps.replace("write", "read").replace("=1.", "=7."),
                       dict(at_least_write_s=5.2, at_least_read_s=2.5, steps_done_read=2,
                            steps_read=10, step_entered_read_s=1.5)),
                      ("progress call=write start=0.500000000\n" + steps
                       + "progress call=write end=2.000000000\n", dict(at_least_write_s=1.5))):
        got = bench.stopped_times(out, stop)
        del got["stopped_at_s"], got["at_least_s"]
        check(got == want, f"stopped_times' steps ({out!r}): {got}, want {want}")


def check_stopped_bound(bench):
    """What a stopped run proves with its plan's floors (stopped_bound):
    floors of 4 s a call in 8 steps of 0.5 s. Rank 0 entered the 4th step's
    agreement of the write 3 s in: the write takes at least 3 + 4 x 0.5,
    the read its floor; with the write done (5.5 s) and 2 steps of the read
    1.5 s in, 5.5 + 1.5 + 6 x 0.5; steps counted otherwise than the plan's,
    or no steps said (a run stored before they were), the floors and the
    times seen only. Stopped 3.9 s into the write with 4 steps done, the
    step it was in had not ended: 3.9 + 3 x 0.5 then."""
    floors, steps = (4.0, 4.0), ([0.5] * 8, [0.5] * 8)
    cases = ((dict(at_least_write_s=3.2, steps_done_write=4, steps_write=8,
                   step_entered_write_s=3.0), 9.0),
             (dict(at_least_write_s=5.5, at_least_read_s=1.6, steps_done_read=2, steps_read=8,
                   step_entered_read_s=1.5), 10.0),
             (dict(at_least_write_s=3.2, steps_done_write=4, steps_write=9,
                   step_entered_write_s=3.0), 8.0),
             (dict(at_least_write_s=5.5, at_least_read_s=4.5), 10.0),
             (dict(at_least_s=3.2), 8.0),
             (dict(at_least_write_s=3.9, steps_done_write=4, steps_write=8,
                   step_entered_write_s=3.0), 9.4))
    for r, want in cases:
        got = bench.stopped_bound(r, floors, steps)
        check(abs(got - want) < 1e-9, f"stopped_bound({r}): {got}, want {want}")
    check(bench.stopped_bound(cases[0][0], floors, None) == 8.0,
          "no step floors (a routed platform): the call floors only")


def check_precision(src, tacio, bench, work):
    """--maxmin-precision: smpirun gets SimGrid's cfg for it (and nothing
    without it), each run's line shows it, the summary counts the runs
    made with it, and a value outside (0, 1) or without --paper is refused
    before anything is built."""
    flag = "--cfg=maxmin/precision:0.0001"
    check(bench.simgrid_cfg(True, 1e-4)[-1] == flag
          and "--cfg=smpi/shared-malloc-blocksize:1073741824" in bench.simgrid_cfg(True, 1e-4),
          f"the paper's cfg with a precision: {bench.simgrid_cfg(True, 1e-4)}")
    check(not any("maxmin/precision" in c
                  for c in bench.simgrid_cfg(True) + bench.simgrid_cfg(False)),
          f"no precision, no cfg: {bench.simgrid_cfg(True)}")
    full = ["--cfg=network/optim:Full", "--cfg=network/maxmin-selective-update:no"]
    check(all(c in bench.simgrid_cfg(True) for c in full)
          and not any(c in bench.simgrid_cfg(False) for c in full),
          f"the papers' runs, and only they, solve in full: {bench.simgrid_cfg(True)}")
    tuned = dict(run("inspur", 512, "lustre", 4, 3.0, 3.0, 0.4), maxmin_precision=1e-4,
                 lmm_solver="full",
                 naggs="128", write_shuffle_s="1", write_io_s="1", hop_bytes="1",
                 max_link_load="1", buffer_bytes="1", bytes="1")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        bench.show(tuned)
    shown = shown.getvalue()
    check("strategy=lustre maxmin_precision=0.0001 naggs=128" in shown,
          f"a run's line shows its precision: {shown}")
    path = os.path.join(work, "tuned.jsonl")
    with open(path, "w") as f:
        for r in (run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4), tuned):
            f.write(json.dumps(r) + "\n")
    rc, out, err = summary(src, tacio, path)
    check(rc == 0 and "jobs_complete=0/13 runs_maxmin_precision_0.0001=1 runs_lazy_solver=1\n"
          in out, f"the summary counts the tuned run and the lazily solved one: rc {rc} {out} {err}")
    rc, out, err = summary(src, tacio, os.path.join(work, "a.jsonl"))
    check("runs_maxmin_precision" not in out, f"no tuned run, no count: {out}")
    for bad in (["--paper", "--maxmin-precision", "2"], ["--maxmin-precision", "1e-4"]):
        p = subprocess.run([os.path.join(src, "bench/smpi/run"), *bad],
                           capture_output=True, text=True)
        check(p.returncode != 0 and "--maxmin-precision takes 0 < P < 1" in p.stderr,
              f"{bad} refused: rc {p.returncode} {p.stderr}")
    for bad in (["--paper", "--stop-proving", "0"], ["--stop-proving", "10"]):
        p = subprocess.run([os.path.join(src, "bench/smpi/run"), *bad],
                           capture_output=True, text=True)
        check(p.returncode != 0 and "--stop-proving takes simulated seconds > 0" in p.stderr,
              f"{bad} refused: rc {p.returncode} {p.stderr}")


def certify(src, tacio, *files):
    p = subprocess.run([os.path.join(src, "bench/smpi/run"), "--paper", "--tacio", tacio,
                        "--summary", *files, "--certify"], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def planned_run(bench, work, tacio, strategy, k, seconds_each_way):
    """A stored run of cube at 64 ranks (the quick job) carrying the plan's
    hop-bytes and busiest link as the engine makes them (engine_plan)."""
    plan = bench.engine_plan(work, tacio, bench.PAPER_QUICK[0], strategy, k)[0]["plan"]
    return dict(run("inspur", 64, strategy, k, seconds_each_way, seconds_each_way, 4.9),
                max_link_load=str(plan["max_link_load"]), hop_bytes=str(plan["hop_bytes"]))


def check_certify(src, tacio, bench, work):
    """--certify on cube 2000^3 at 64 ranks on the scattered Inspur tree:
    each unrun run's floor (tatp at 2 per host stacks a quarter of the file
    on one host: 16e9 bytes at its disk's 2e9 B/s, 8 s each way), settled
    only for a strategy whose stored plans the planner makes; a stored run
    under its floor fails the bench; with every run but one stored and
    that one settled, the job is certified."""
    names = subprocess.run([tacio, "list", "strategies"], capture_output=True,
                           text=True).stdout.split()
    path = os.path.join(work, "certify.jsonl")
    some = [planned_run(bench, work, tacio, "romio", 1, 5.5),
            planned_run(bench, work, tacio, "tatp", 1, 10.7),
            run("inspur", 64, "auto", 1, 5.5, 5.5, 4.9)]
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in some)
    rc, out, err = certify(src, tacio, path)
    unrun = {l["run"]: l for l in lines_of(out, "paper_unrun ")}
    check(rc == 0 and "paper_floor_check runs=2 under_floor=0 planner_agrees=romio:1/1,tatp:1/1"
          in out, f"the floor check: rc {rc} {out} {err}")
    check(unrun.get("tatp@2", {}).get("floor_s") == "16.000"
          and unrun["tatp@2"].get("settled") == "yes", f"tatp@2's floor: {unrun.get('tatp@2')}")
    check(unrun.get("latp@1", {}).get("why") == "planner",
          f"a strategy never checked is not settled: {unrun.get('latp@1')}")
    check(len(unrun) == 3 * (len(names) - 1) - 2 and "auto_within_10pct_certified=0/1 "
          "open=inspur-scatter-cube-64" in out, f"the job stays open: {out}")
    # auto slower than romio@2's floor by more than 10%: that run could beat it
    slow = [some[0], some[1], run("inspur", 64, "auto", 1, 10.0, 10.0, 4.9)]
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in slow)
    rc, out, err = certify(src, tacio, path)
    unrun = {l["run"]: l for l in lines_of(out, "paper_unrun ")}
    check(unrun.get("romio@2", {}).get("why") == "floor"
          and unrun["romio@2"].get("needs_s") == "18.182",  # auto's 20 s over 1.1, up
          f"romio@2 unsettled: {unrun.get('romio@2')}")
    # a stopped attempt of romio@2: settled by what it proved (auto's 20 s
    # within 10% of 19), whatever the floor; 18 s would not do
    for proved, settled in ((19.0, "yes"), (18.0, "no")):
        attempt = dict(run("inspur", 64, "romio", 2, 0, 0, 0), status="unfinished",
                       cpu_s=60, cpu_limit_s=60, stopped_at_s=proved + 0.1, at_least_s=proved)
        for f in ("write_s", "read_s", "io_floor_s"):
            del attempt[f]
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in slow + [attempt])
        rc, out, err = certify(src, tacio, path)
        got = {l["run"]: l for l in lines_of(out, "paper_unrun ")}.get("romio@2", {})
        check(rc == 0 and got.get("stopped_at_least_s") == f"{proved:.3f}"
              and got.get("settled") == settled
              and f"settled_by_stopped_run={1 if settled == 'yes' else 0}" in out,
              f"romio@2 stopped at {proved}: {got} {out} {err}")
    check_certify_steps(src, tacio, bench, work, slow, path)
    # a stored run under what a stopped attempt of it proved fails the bench
    proved = dict(attempt, strategy="tatp", aggs_per_host=1, at_least_s=30.0)
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in (some[0], proved, some[1], some[2]))
    rc, out, err = certify(src, tacio, path)
    check(rc != 0 and "paper_floor_under inspur-scatter-cube-64:tatp@1 time_s=21.400000 "
          "stopped_at_least_s=30.000000" in out, f"a run under its stop's bound: rc {rc} {out}")
    # a plan the engine did not make (its busiest link off by a byte)
    other = dict(some[1], max_link_load=str(int(some[1]["max_link_load"]) + 1))
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in (some[0], other, some[2]))
    rc, out, err = certify(src, tacio, path)
    unrun = {l["run"]: l for l in lines_of(out, "paper_unrun ")}
    check("planner_agrees=romio:1/1,tatp:0/1" in out
          and unrun.get("tatp@2", {}).get("why") == "planner", f"tatp disagrees: {out}")
    # a stored time under its floor: the floor would be wrong, the bench fails
    under = dict(some[1], write_s="5.0", read_s="5.0")
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in (some[0], under, some[2]))
    rc, out, err = certify(src, tacio, path)
    check(rc != 0 and "under_floor=1" in out
          and "paper_floor_under inspur-scatter-cube-64:tatp@1 time_s=10.000000" in out,
          f"a run under its floor: rc {rc} {out} {err}")
    # every run stored but tatp@2 (settled): certified
    with open(path, "w") as f:
        for name in names:
            for k in ((1,) if name == "auto" else (1, 2, 4)):
                if name == "auto":
                    f.write(json.dumps(run("inspur", 64, "auto", 1, 6.0, 6.0, 4.9)) + "\n")
                elif (name, k) != ("tatp", 2):
                    f.write(json.dumps(planned_run(bench, work, tacio, name, k, 20.0)) + "\n")
    rc, out, err = certify(src, tacio, path)
    check(rc == 0 and "unrun_runs=1 settled_by_floor=1" in out
          and "auto_within_10pct_certified=1/1\n" in out, f"a certified job: rc {rc} {out} {err}")


def check_certify_steps(src, tacio, bench, work, slow, path):
    """A stopped attempt of romio@2 (auto's 20 s; 18.19 s settles it) that
    finished its write and was stopped halfway through its read's steps:
    with its plan's floors (the write's time, then the read's time to its
    last step's agreement and the floors of the steps after) it proves
    19 s where its own times prove under 18; a stop proving 18 s does not
    settle it; nor does 19 s when the planner's plans of romio are not the
    engine's (the floors are then not its plan's); and a shorter attempt
    stored after it does not replace it."""
    key = bench.PAPER_QUICK[0]
    loads, plat = bench.engine_plan(work, tacio, key, "romio", 2)
    rates = bench.platform_rates(plat)
    floors, steps = bench.plan_floors(key, loads, rates)
    write, done = floors[0] + 0.1, len(steps[1]) // 2
    after = sum(steps[1][done:])

    def attempt(proves, went=10.0):
        entered = proves - write - after
        r = dict(run("inspur", 64, "romio", 2, 0, 0, 0), status="unfinished", cpu_s=60,
                 cpu_limit_s=60, stopped_at_s=went, at_least_write_s=write,
                 at_least_read_s=entered + 0.001, steps_done_read=done,
                 steps_read=len(steps[1]), step_entered_read_s=entered,
                 at_least_s=write + entered + 0.001)
        for f in ("write_s", "read_s", "io_floor_s"):
            del r[f]
        return r
    own = attempt(19.0)["at_least_s"]
    check(own < 18 and floors[1] < 19.0 - write, f"romio@2's own times prove {own}: {floors}")
    shorter = dict(run("inspur", 64, "romio", 2, 0, 0, 0), status="unfinished", cpu_s=30,
                   cpu_limit_s=60, stopped_at_s=5.0, at_least_s=4.9)
    for f in ("write_s", "read_s", "io_floor_s"):
        del shorter[f]
    off = [dict(slow[0], max_link_load=str(int(slow[0]["max_link_load"]) + 1))] + slow[1:]
    for runs, proved, settled in ((slow + [attempt(19.0)], "19.000", "yes"),
                                  (slow + [attempt(19.0), shorter], "19.000", "yes"),
                                  (slow + [attempt(18.0)], "18.000", "no"),
                                  (off + [attempt(19.0)], f"{own:.3f}", "no")):
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in runs)
        rc, out, err = certify(src, tacio, path)
        got = {l["run"]: l for l in lines_of(out, "paper_unrun ")}.get("romio@2", {})
        check(rc == 0 and got.get("stopped_at_least_s") == proved
              and got.get("settled") == settled,
              f"romio@2 stopped in its read's steps, proving {proved}: {got} {out} {err}")


def staged(r, st2, shift=0.0):
    """A stored run with its stages (the slowest rank's, each call): plan
    stage st2, each call's time moved by shift."""
    for call in ("write", "read"):
        r[f"{call}_s"] = f"{float(r[call + '_s']) + shift:.6f}"
        r.update({f"{call}_st1": "0.000000", f"{call}_st2": f"{st2:.6f}",
                  f"{call}_st3": "0.006000", f"{call}_st4": "1.000000",
                  f"{call}_st5": "0.800000"})
    return r


def check_twins(src, tacio, bench, work):
    """--certify's twins on cube 2000^3 at 64 ranks: cuts makes bottleneck's
    plan at 1 per host and at one more K. A stored pair at 1 whose calls
    differ by their plan stages only makes the pair trusted, and cuts at
    the other K is then settled by bottleneck's run there (its time less
    its plan stages), where its floor could not settle it; a pair whose
    times differ by more than their plan stages is not trusted, and
    settles nothing."""
    key = ("inspur", "scatter:seed=1", "cube", 64)
    def identity(s, k):
        return bench.plan_identity(bench.engine_plan(work, tacio, key, s, k)[0]["plan"])
    same = [k for k in (2, 4) if identity("bottleneck", k) == identity("cuts", k)]
    check(same, "cuts makes bottleneck's plan on cube 64 at 2 or 4 per host")
    if not same:
        return
    k = same[0]
    path = os.path.join(work, "twins.jsonl")
    for cuts_st2, held in ((0.003, "1/1"), (0.013, "0/1")):
        runs = [planned_run(bench, work, tacio, "romio", 1, 20.0),
                staged(planned_run(bench, work, tacio, "bottleneck", 1, 20.0), 0.001),
                staged(planned_run(bench, work, tacio, "cuts", 1, 20.0), cuts_st2, 0.002),
                staged(planned_run(bench, work, tacio, "bottleneck", k, 20.0), 0.004),
                run("inspur", 64, "auto", 1, 20.0, 20.0, 4.9)]
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in runs)
        rc, out, err = certify(src, tacio, path)
        got = {l["run"]: l for l in lines_of(out, "paper_unrun ")}.get(f"cuts@{k}", {})
        if held == "1/1":
            check(rc == 0 and f"strategies=bottleneck~cuts:1/1" in out
                  and got.get("twin") == f"bottleneck@{k}"
                  and got.get("twin_at_least_s") == "39.992" and got.get("settled") == "yes"
                  and float(got.get("floor_s", 99)) * 1.1 < 40 and "settled_by_twin=1" in out,
                  f"cuts@{k} settled by its twin: rc {rc} {got} {out} {err}")
        else:
            check(rc == 0 and "strategies=bottleneck~cuts:0/1" in out and "twin" not in got
                  and got.get("settled") == "no" and "settled_by_twin=0" in out,
                  f"an untrusted pair settles nothing: rc {rc} {got} {out} {err}")


def check_round_floor(bench, work, tacio):
    """The rounds' floor (bench's engine_plan and round_step_seconds,
    tacio-roundfloor): the engine's plan (romio's on cube 64 is the tacio
    command's); the engine's rounds (8 MiB windows: pipelined rounds halve
    the 16 MiB cb_buffer_size), their data adding up to the plan's link by
    link; each rank's pieces (cube 2000^3 at 64 ranks: 500 x 500 rows of
    500 doubles a rank, none touching, plus at most one split at each
    window's start); the read sending the headers the write kept on links
    of few pieces only; and a floor above the whole exchange's busiest link
    where rounds load different links (lustre's stripes on BTIO 625 on
    BlueLight)."""
    key = ("inspur", "scatter:seed=1", "cube", 64)
    plan, _ = bench.run_plan(work, tacio, key, "romio", 1)
    try:
        loads, _ = bench.engine_plan(work, tacio, key, "romio", 1)
    except subprocess.CalledProcessError as e:
        check(False, f"tacio-roundfloor: rc {e.returncode} {e.stderr}")
        loads = {"rounds": 0, "links": [], "plan": {}, "pieces": 0}
    check(all(loads["plan"].get(f) == plan[f] for f in ("fds", "hop_bytes", "max_link_load")),
          f"romio's plan: tacio-roundfloor's {loads['plan'].get('hop_bytes')}, "
          f"the command's {plan['hop_bytes']}")
    window = 8 << 20
    windows = [-(-(fd["end"] - fd["start"]) // window) for fd in plan["fds"]]
    check(loads["rounds"] == max(windows), f"rounds {loads['rounds']} against {max(windows)}")
    at = {name: v for v, name in enumerate(loads["links"])}
    for link in plan["links"]:
        v = at.get(link["below"])
        sums = [sum(r[v] for r in loads.get(d, [])) if v is not None else None
                for d in ("up", "down")]
        check(sums == [link["up"], link["down"]], f"link {link['below']}: {sums} {link}")
    rows = 64 * 500 * 500
    check(rows <= loads["pieces"] <= rows + sum(windows),
          f"pieces {loads['pieces']}: {rows} rows, {sum(windows)} windows")
    headers = [sum(map(sum, loads.get(d, []))) for d in ("hdr_up", "read_hdr_up")]
    check(headers[0] > 0 and headers == [headers[1]] * 2,
          f"cube 64's headers (thousands of pieces a link, sent both ways): {headers}")
    spec, _, hints = bench.planner_job(work, tacio, key, 1)
    p = subprocess.run([tacio + "-roundfloor", "collperf:n=128,elem=8", "64", spec,
                        "scatter:seed=1"] + hints + ["tacio_strategy=romio"],
                       capture_output=True, text=True)
    small = json.loads(p.stdout) if p.returncode == 0 else {}
    headers = [sum(map(sum, small.get(d, []))) for d in ("hdr_up", "read_hdr_up")]
    check(0 < headers[1] < headers[0],
          f"cube 128's headers (some links of at most 512 pieces, kept): {headers} {p.stderr}")
    key = ("bluelight", "scatter:seed=1", "btio8", 625)
    loads, plat = bench.engine_plan(work, tacio, key, "lustre", 1)
    rates = bench.platform_rates(plat)
    whole = sum(bench.call_floors(loads["plan"], rates)) / 2
    write, read = map(sum, bench.round_step_seconds(key, loads, rates))
    check(min(write, read) > 1.05 * whole
          and sum(bench.call_floors(loads["plan"], rates, (write, read))) == write + read,
          f"lustre's rounds' floor {write}, {read} against the exchange's {whole}")


def main():
    src, tacio = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        first, second = os.path.join(work, "a.jsonl"), os.path.join(work, "b.jsonl")
        with open(first, "w") as f:
            for r in (run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4),
                      run("inspur", 512, "bottleneck", 4, 1.5, 1.5, 0.4),
                      run("inspur", 512, "auto", 1, 2.2, 2.2, 0.4),     # loses: replaced below
                      run("inspur", 64, "romio", 1, 5.0, 5.0, 4.9),     # bound above 0.8
                      run("inspur", 64, "auto", 1, 5.1, 5.1, 4.9)):
                f.write(json.dumps(r) + "\n")
        with open(second, "w") as f:
            f.write(json.dumps(run("inspur", 512, "auto", 1, 1.6, 1.6, 0.4)) + "\n")
        rc, out, err = summary(src, tacio, first)
        check(rc == 0, f"summary of one file: rc {rc} {err}")
        jobs = {l["paper_job"]: l for l in lines_of(out, "paper_job=")}
        check(set(jobs) == {"inspur-scatter-cube-512", "inspur-scatter-cube-64"},
              f"the jobs: {sorted(jobs)}")
        # the sweep: 13 jobs, each every strategy at 1, 2 and 4 per host and auto
        names = subprocess.run([tacio, "list", "strategies"], capture_output=True,
                               text=True).stdout.split()
        per_job = 3 * (len(names) - 1) + 1
        check(f"sweep_runs_stored=5/{13 * per_job} jobs_complete=0/13" in out,
              f"the sweep's coverage: {out}")
        c512 = jobs.get("inspur-scatter-cube-512", {})
        check(c512.get("auto_vs_romio") == "1.100" and c512.get("best_vs_romio") == "0.750"
              and c512.get("strategy") == "bottleneck@4" and c512.get("bound_vs_romio") == "0.200",
              f"cube 512's line: {c512}")
        check("auto_never_loses=1/2" in out and "auto_within_10pct=1/2" in out,
              f"a losing auto counted: {out}")
        goal = {l["job"]: l for l in lines_of(out, "paper_write_goal ")}
        g = goal.get("inspur-scatter-cube-512", {})
        check(g.get("best_write_vs_romio") == "0.750" and g.get("goal") == "0.800"
              and g.get("met") == "yes", f"cube 512's write goal: {g}")
        link = g.get("link_bound_vs_romio", "none").split("@")
        check(len(link) == 2 and 0.4 < float(link[0]) < 0.75, f"the link bound: {g}")
        part = g.get("partition_bound_vs_romio", "none").split("@")
        check(len(part) == 2 and 0.3 < float(part[0]) < 0.75 and part[1] in ("1", "2", "4"),
              f"the partition bound: {g}")
        # a romio write of 1.3 s: the link bound is above 0.8, the goal 5% above it
        fast = os.path.join(work, "fast.jsonl")
        with open(fast, "w") as f:
            for r in (run("inspur", 512, "romio", 1, 1.3, 1.3, 0.4),
                      run("inspur", 512, "bottleneck", 4, 1.25, 1.25, 0.4),
                      run("inspur", 512, "auto", 1, 1.25, 1.25, 0.4)):
                f.write(json.dumps(r) + "\n")
        rc, out, err = summary(src, tacio, fast)
        g = {l["job"]: l for l in lines_of(out, "paper_write_goal ")}.get(
            "inspur-scatter-cube-512", {})
        bound = float(g.get("link_bound_vs_romio", "0@0").split("@")[0])
        check(bound > 0.8 and abs(float(g.get("goal", 0)) - 1.05 * bound) < 2e-3
              and g.get("met") == "yes", f"the goal above the link bound: {g} {err}")
        check("sweep_wall_hours=" not in out, f"wall time without timed runs: {out}")
        # runs that carry their wall time: the sweep's cost is printed
        timed = os.path.join(work, "timed.jsonl")
        with open(timed, "w") as f:
            for r, wall in ((run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4), 1800),
                            (run("inspur", 512, "auto", 1, 1.6, 1.6, 0.4), 5400)):
                f.write(json.dumps(dict(r, wall_s=wall)) + "\n")
        rc, out, err = summary(src, tacio, timed)
        wall = lines_of(out, "sweep_wall_hours=")
        check(wall == [{"sweep_wall_hours": "2.00", "runs_timed": "2",
                        "slowest_run_minutes": "90.0"}], f"the sweep's wall time: {out} {err}")
        check("sweep_cpu_hours=" not in out, f"CPU time without runs that carry it: {out}")
        # runs that carry their CPU time: one run above an hour rules the
        # hour out, however many run at once; below, it is not ruled out
        for cpu, verdict in ((3700, "impossible"), (3500, "not ruled out")):
            with open(timed, "w") as f:
                for r, c in ((run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4), cpu),
                             (run("inspur", 512, "auto", 1, 1.6, 1.6, 0.4), 100)):
                    f.write(json.dumps(dict(r, cpu_s=c)) + "\n")
            rc, out, err = summary(src, tacio, timed)
            got = [l for l in out.splitlines() if l.startswith("sweep_cpu_hours=")]
            want = (f"sweep_cpu_hours={(cpu + 100) / 3600:.2f} runs_cpu_timed=2 "
                    f"slowest_run_cpu_minutes={cpu / 60:.1f} "
                    f"slowest_run=inspur-scatter-cube-512:romio@1 sweep_under_an_hour={verdict}")
            check(got == [want], f"the sweep's bound at {cpu} s: {got} {err}")
        # a run --cpu-limit stopped after more than an hour: no job line, not
        # in the coverage, but it rules the hour out; it never replaces the
        # finished run of its job's strategy, a finished one replaces it
        stopped = dict(run("inspur", 512, "bottleneck", 4, 0, 0, 0), status="unfinished",
                       cpu_s=3700, cpu_limit_s=3660)
        for k in ("write_s", "read_s", "io_floor_s"):
            del stopped[k]
        with open(timed, "w") as f:
            for r in (dict(run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4), cpu_s=100),
                      dict(run("inspur", 512, "auto", 1, 1.6, 1.6, 0.4), cpu_s=100), stopped):
                f.write(json.dumps(r) + "\n")
        rc, out, err = summary(src, tacio, timed)
        got = [l for l in out.splitlines() if l.startswith("sweep_cpu_hours=")]
        check(got == ["sweep_cpu_hours=1.08 runs_cpu_timed=3 runs_unfinished=1 "
                      "slowest_run_cpu_minutes=61.7 "
                      "slowest_run=inspur-scatter-cube-512:bottleneck@4:unfinished "
                      "sweep_under_an_hour=impossible"], f"an unfinished run's bound: {got} {err}")
        c512 = {l["paper_job"]: l for l in lines_of(out, "paper_job=")}.get(
            "inspur-scatter-cube-512", {})
        check(c512.get("best_vs_romio") == "0.800" and c512.get("strategy") == "auto@1"
              and f"sweep_runs_stored=2/{13 * per_job}" in out,
              f"an unfinished run is no job's run: {out} {err}")
        done = os.path.join(work, "done.jsonl")
        with open(done, "w") as f:
            f.write(json.dumps(run("inspur", 512, "bottleneck", 4, 1.5, 1.5, 0.4)) + "\n")
        for files, what in (((done, timed), "after"), ((timed, done), "before")):
            rc, out, err = summary(src, tacio, *files)
            c512 = {l["paper_job"]: l for l in lines_of(out, "paper_job=")}.get(
                "inspur-scatter-cube-512", {})
            check(c512.get("strategy") == "bottleneck@4" and c512.get("best_vs_romio") == "0.750",
                  f"an unfinished run stored {what} the finished one: {c512} {err}")
        # a finished run stored before runs carried cpu_s, and a stopped
        # attempt of it past an hour (BTIO 625's baseline): the job keeps
        # its line, and the attempt's CPU time rules the hour out
        attempt = dict(stopped, strategy="romio", aggs_per_host=1)
        old = os.path.join(work, "old.jsonl")
        with open(old, "w") as f:
            for r in (run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4),
                      dict(run("inspur", 512, "auto", 1, 1.6, 1.6, 0.4), cpu_s=100)):
                f.write(json.dumps(r) + "\n")
        again = os.path.join(work, "attempt.jsonl")
        with open(again, "w") as f:
            f.write(json.dumps(attempt) + "\n")
        for files, what in (((old, again), "after"), ((again, old), "before")):
            rc, out, err = summary(src, tacio, *files)
            got = [l for l in out.splitlines() if l.startswith("sweep_cpu_hours=")]
            c512 = {l["paper_job"]: l for l in lines_of(out, "paper_job=")}.get(
                "inspur-scatter-cube-512", {})
            check(got == ["sweep_cpu_hours=1.06 runs_cpu_timed=2 runs_unfinished=1 "
                          "slowest_run_cpu_minutes=61.7 "
                          "slowest_run=inspur-scatter-cube-512:romio@1:unfinished "
                          "sweep_under_an_hour=impossible"]
                  and c512.get("auto_vs_romio") == "0.800",
                  f"a stopped attempt stored {what} its finished run: {got} {c512} {err}")
        # one job with every run (and a hinted one outside the count)
        whole = os.path.join(work, "whole.jsonl")
        with open(whole, "w") as f:
            for name in names:
                for k in ((1,) if name == "auto" else (1, 2, 4)):
                    f.write(json.dumps(run("inspur", 64, name, k, 5.0, 5.0, 4.9)) + "\n")
            f.write(json.dumps(run("inspur", 64, "romio", 1, 4.0, 4.0, 4.9, ["a=b"])) + "\n")
        rc, out, err = summary(src, tacio, whole)
        check(f"sweep_runs_stored={per_job}/{13 * per_job} jobs_complete=1/13" in out,
              f"a whole job: {out} {err}")
        rc, out, err = summary(src, tacio, first, second)
        c512 = {l["paper_job"]: l for l in lines_of(out, "paper_job=")}.get(
            "inspur-scatter-cube-512", {})
        check(c512.get("auto_vs_romio") == "0.800", f"the later auto run replaces: {c512}")
        check("auto_never_loses=2/2" in out, f"after the replacement: {out}")
        # a run with --hint is a choice of its own (never romio's baseline),
        # and a goal job without auto's run still gets its write goal
        hinted = os.path.join(work, "hinted.jsonl")
        with open(hinted, "w") as f:
            for r in (run("inspur", 512, "romio", 1, 2.0, 2.0, 0.4),
                      run("inspur", 512, "romio", 1, 1.4, 1.4, 0.4,
                          ["tacio_node_aggregation=enable"])):
                f.write(json.dumps(r) + "\n")
        rc, out, err = summary(src, tacio, hinted)
        g = {l["job"]: l for l in lines_of(out, "paper_write_goal ")}.get(
            "inspur-scatter-cube-512", {})
        check(not lines_of(out, "paper_job=") and g.get("best_write_vs_romio") == "0.700"
              and g.get("strategy") == "romio+tacio_node_aggregation=enable@1"
              and g.get("met") == "yes", f"a hinted run, no auto: {out} {err}")
        with open(second, "a") as f:
            f.write("{}\n")
        rc, out, err = summary(src, tacio, second)
        check(rc != 0 and "b.jsonl:2" in err, f"a broken line is named: rc {rc} {err}")
        bench = load_bench(src)
        check_precision(src, tacio, bench, work)
        check_stopped_times(bench)
        check_stopped_bound(bench)
        check_certify(src, tacio, bench, work)
        check_twins(src, tacio, bench, work)
        check_round_floor(bench, work, tacio)
    check_last_words(bench)
    print(f"paper_summary: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
