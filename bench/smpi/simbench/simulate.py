"""Running the engine under smpirun: the driver (bench/smpi/smpibench.c,
built by CMake's tacio-smpi target) writes and reads one pattern with
tacio's C API, every byte checked, times taken on SimGrid's clock."""
import concurrent.futures
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from benchlib import cmake_targets, parse_kv, run_group

from .jobs import IO_BW, driver_size
from . import platforms
from .launch import smpirun
from .platforms import platform
from .records import Run

# exit statuses of a simulation its CPU limit stopped: through smpirun
# (128 + the signal) or directly (minus the signal)
STOPPED_BY_LIMIT = {128 + signal.SIGXCPU, -signal.SIGXCPU, 128 + signal.SIGKILL, -signal.SIGKILL}


def build(build_dir, simulate=True, measure=False):
    """(the tacio command, the driver, the calibrating driver), built in
    build_dir: the driver only when simulating, the calibrating one (auto's
    model measured: platforms.py) only when measuring; None otherwise."""
    smpi = simulate or measure
    if smpi and not shutil.which("smpicc"):
        sys.exit("bench/smpi: needs SimGrid (apt-get install libsimgrid-dev simgrid)"
                 + ("" if simulate else "; --model platform does without"))
    cmake_targets(build_dir, ["tacio"] + (["tacio-smpi"] if smpi else []), "bench/smpi")
    binary = os.path.join(build_dir, "bin")
    return (os.path.join(binary, "tacio"),
            os.path.join(binary, "tacio-smpibench") if simulate else None,
            os.path.join(binary, "tacio-smpicalibrate") if measure else None)


def strategies(tacio, kind="strategies"):
    """The registry's strategies (`tacio list strategies`); kind
    "candidates": those auto tries."""
    return subprocess.run([tacio, "list", kind], capture_output=True, text=True,
                          check=True).stdout.split()


def _cpu_limited(seconds):
    """preexec_fn stopping a simulation after seconds of its own CPU time
    (SIGXCPU), without a core dump (its shared mappings are tens of GB)."""
    if not seconds:
        return None

    def limit():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 10))
    return limit


def _environment(case, plat, paper):
    per = f"cb_config_list=*:{case.per_host},tacio_aggs_per_node={case.per_host}"
    env = dict(os.environ, TACIO_SIM_IO_BW=str(IO_BW),
               TACIO_HINTS=",".join([f"tacio_topology={plat.spec}", per, plat.model,
                                     *case.hints]))
    if paper:  # data-free: no byte moves (src/exec/backend/simgrid.c)
        env["TACIO_SIM_NODATA"] = "1"
        # every rank's view is built at once in one process and freed: with
        # glibc's sliding mmap threshold those arrays stay in the heap
        env["GLIBC_TUNABLES"] = "glibc.malloc.mmap_threshold=131072"
    return env


def run_one(work, tacio, exe, case, paper=False, cpu_limit=0, precision=None, calls=1):
    """One simulation: its stored record (a Run); an unfinished one where
    cpu_limit (seconds) stopped it; None where it failed (said why). calls:
    the write and the read each made this many times (smpibench's CALLS)."""
    job = case.job
    plat = platform(work, tacio, job, case.memory)
    fd, data = tempfile.mkstemp(prefix="data.", dir=work)  # one per run: runs go in parallel
    os.close(fd)
    cpu = data + ".cpu"  # /usr/bin/time: its own CPU seconds, which other load does not inflate
    cmd = ["/usr/bin/time", "-o", cpu, "-f", "%U %S",
           *smpirun(plat.dir, job.ranks, paper, precision),
           exe, data, job.pattern, str(driver_size(job.pattern, job.ranks, paper)), case.strategy,
           *([str(calls)] if calls > 1 else [])]
    t0 = time.monotonic()
    try:
        rc, out, err = run_group(cmd, _environment(case, plat, paper), job.name, "bench/smpi",
                                 timeout=None, preexec_fn=_cpu_limited(cpu_limit))
        with open(cpu) as f:
            cpu_s = sum(float(x) for x in f.read().split()[-2:])
    finally:
        for path in (data, cpu):
            if os.path.exists(path):
                os.unlink(path)
    record = dict(cluster=job.cluster, placement=job.placement, pattern=job.pattern,
                  ranks=str(job.ranks), aggs_per_host=case.per_host, strategy=case.strategy,
                  wall_s=round(time.monotonic() - t0, 1), cpu_s=round(cpu_s, 1))
    record["model"] = "measured" if platforms.MEASURE else "platform"  # auto's, of the network
    if paper:
        record["lmm_solver"] = "full"
    if precision is not None:
        record["maxmin_precision"] = precision
    if case.hints:
        record["hints"] = list(case.hints)
    record.update(case.fields)
    # the limit stops it with SIGXCPU, then SIGKILL 10 s on; rusage can read
    # a little under the limit the kernel enforced
    if rc in STOPPED_BY_LIMIT and cpu_limit and cpu_s >= 0.9 * cpu_limit:
        return Run.from_json(dict(record, status="unfinished", cpu_limit_s=cpu_limit))
    lines = [l for l in out.splitlines() if l.startswith("pattern=")]
    if rc or not lines:  # said, and the bench ends failed
        print(f"{show_case(case)} status=failed exit={rc}", flush=True)
        for line in killed_why(rc) + last_words(err):
            print(f"  {line}", file=sys.stderr, flush=True)
        return None
    line = parse_kv(lines[-1])
    if line["buffer_wrong"] != "0" or line["file_wrong"] != "0":
        sys.exit(f"bench/smpi: wrong data: {lines[-1]}")
    return Run.from_json(dict(line, **record, io_floor_s=int(line["bytes"]) / plat.io_bw))


def killed_why(returncode):
    """The likely sender of a SIGKILL the CPU limit did not send: the
    kernel's out-of-memory killer (SimGrid prints only "Killed")."""
    if returncode in (128 + signal.SIGKILL, -signal.SIGKILL):
        return ["SIGKILL before any --cpu-limit: out of memory? (dmesg shows the kernel's oom-kill)"]
    return []


def last_words(stderr):
    """Why a simulation died, without its backtrace or the thousands of
    INFO lines before: from SimGrid's first CRITICAL or ERROR line (an LMM
    precision abort names its cfg there) to the backtrace, else the last
    five lines (the engine's own error, a signal)."""
    lines = stderr.strip().splitlines()
    first = next((i for i, l in enumerate(lines) if "/CRITICAL]" in l or "/ERROR]" in l), None)
    if first is None:
        return lines[-5:]
    end = next((i for i in range(first, len(lines)) if lines[i].startswith("Backtrace")),
               len(lines))
    return lines[first:end][:10]


def show_case(case):
    j = case.job
    config = case.strategy + "".join("+" + h for h in case.hints)
    return (f"cluster={j.cluster} placement={j.placement} pattern={j.pattern} ranks={j.ranks} "
            f"aggs_per_host={case.per_host} strategy={config}")


def show(r):
    """The run's line."""
    case = (f"cluster={r.job.cluster} placement={r.job.placement} pattern={r.job.pattern} "
            f"ranks={r.job.ranks} aggs_per_host={r.per_host} strategy={r.config}")
    if "maxmin_precision" in r.fields:
        case += f" maxmin_precision={r['maxmin_precision']:g}"
    if not r.finished:
        print(f"{case} status=unfinished cpu_s={r['cpu_s']} cpu_limit_s={r['cpu_limit_s']}",
              flush=True)
        return
    print(f"{case} naggs={r['naggs']} write_s={r['write_s']} read_s={r['read_s']} "
          f"write_shuffle_s={r['write_shuffle_s']} write_io_s={r['write_io_s']} "
          f"hop_bytes={r['hop_bytes']} max_link_load={r['max_link_load']} "
          f"buffer_bytes={r['buffer_bytes']} bytes={r['bytes']} verified=yes "
          f"data={r.get('data', 'full')}", flush=True)


def run_all(work, tacio, exe, cases, jobs=1, results=None, **how):
    """Runs every case, jobs at a time, each shown and stored (results: a
    JSON line each); (runs, the count of failed ones). how: run_one's."""
    for c in cases:  # the platforms first: the runs share them
        platform(work, tacio, c.job, c.memory)
    runs, failed = [], 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for r in pool.map(lambda c: run_one(work, tacio, exe, c, **how), cases):
            failed += r is None
            if r is None:
                continue
            runs.append(r)
            show(r)
            if results:
                with open(results, "a") as f:
                    f.write(json.dumps(r.fields) + "\n")
    return runs, failed
