"""What bench/io's scripts share (run, repeat): building iobench and latency
with each MPI's own compiler, launching a configuration (plain MPI-IO or
tacio through the shim with its hints), reading the programs' lines, and
the data files a run writes."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from benchlib import CFLAGS, ROOT, mpis, parse_kv, run_checked  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MPIS = mpis()


def build(work, names):
    """The programs for each MPI, with its own compiler (iobench, latency
    and alternate). iobench takes its patterns' closed forms from the
    planning core (bench/common/pattern.h), linked statically from the Open
    MPI build: it holds no MPI."""
    exe = {}
    plan_lib = os.path.join(MPIS["openmpi"].build, "lib", "libtacioplan.a")
    if not os.path.exists(plan_lib):
        sys.exit(f"bench/io: {plan_lib} is missing; run `make build-mpi` first")
    for m in names:
        mpi = MPIS[m]
        if not mpi.available() or not os.path.exists(mpi.shim()):
            sys.exit(f"bench/io: {m}: {mpi.compiler}, {mpi.launcher} or {mpi.shim()} is missing; "
                     "run `make build-mpi` (Debian's) or `make build-modern` first")
        for prog in ("iobench", "latency", "alternate"):
            exe[(m, prog)] = os.path.join(work, f"{prog}.{m}")
            libs = ["-I" + os.path.join(ROOT, "include"), plan_lib, "-lpthread", "-lm"]
            run_checked([mpi.compiler] + CFLAGS + ["-o", exe[(m, prog)],
                         os.path.join(HERE, f"{prog}.c")] + (libs if prog == "iobench" else []),
                        None, f"building {prog} with {m}", "bench/io")
    return exe, {m: MPIS[m].shim() for m in names}


def launch(cfg, np, run, shim, stats=None, wisdom=None):
    """The command and environment that run `run` under one configuration
    (with stats, a tacio configuration writes TACIO_STATS there; with
    wisdom, auto learns in and starts from that wisdom file)."""
    name, m, component, hints = cfg
    export = {}
    if hints is not None:
        export = {"LD_PRELOAD": shim[m], "TACIO_HINTS": hints,
                  **({"TACIO_STATS": stats} if stats else {}),
                  **({"TACIO_WISDOM": wisdom} if wisdom else {})}
    return MPIS[m].command(np, run, export, component,
                           unset=("TACIO_HINTS", "TACIO_STATS", "TACIO_WISDOM"))


def iobench_totals(tool, mpi, exe, shim, cfg, path, np, pattern, size, calls, wisdom=None):
    """{op: seconds} of one run of iobench's N calls (calls) under cfg
    (name, hints): each direction's times summed, the first call included.
    A wrong element read back ends the bench (tool names it)."""
    name, hints = cfg
    run = [exe[(mpi, "iobench")], path, pattern, size, str(calls - 1)]
    cmd, env = launch((name, mpi, "ompio", hints), pattern_ranks(pattern, np), run, shim,
                      wisdom=wisdom)
    res = parse(run_checked(cmd, env, f"{name} {pattern} np={np} calls={calls}", tool), "pattern=")
    out = {}
    for op, kv in res.items():
        if int(kv["wrong"]):
            sys.exit(f"{tool}: {name} {pattern} {op}: {kv['wrong']} wrong elements")
        out[op] = float(kv["first"]) + sum(float(t) for t in kv["times"].split(","))
    return out


def pattern_ranks(pattern, np):
    """btio needs a square: 1, 4, 9 for 2, 4, 8."""
    return {2: 1, 4: 4, 8: 9}.get(np, np) if pattern == "btio" else np


def parse(out, prefix):
    """{op: {key: value}} from the programs' lines."""
    res = {}
    for line in out.splitlines():
        if line.startswith(prefix):
            kv = parse_kv(line)
            res[kv["op"]] = kv
    return res


def data_file(d, phase):
    """The file this run's programs write in directory d for a phase (io:
    the throughput patterns, lat: the latency mode)."""
    return os.path.join(d, f"tacio-bench-{phase}.{os.getpid()}.dat")


def remove_data_files(dirs):
    """The files this run wrote: the programs unlink them when they finish,
    which a run stopped in the middle does not reach."""
    for d in dirs:
        for phase in ("io", "lat"):
            try:
                os.unlink(data_file(d, phase))
            except FileNotFoundError:
                pass
