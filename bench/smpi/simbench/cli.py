"""bench/smpi/run's subcommands."""
import argparse
import os
import shutil
import sys
import tempfile

from benchlib import ROOT

from . import floors, jobs, platforms, records, simulate, summary

USAGE = """\
The engine (tacio's C API, real writes and reads, every byte checked) under
SimGrid SMPI on simulated clusters whose platform `tacio platform` writes
from the topology spec the planner takes. docs/simulation.md says what the
clusters, jobs and lines are.

  run [--quick | --sweep | --auto]   the bench's own jobs: cube, btio and
                                     ior on the Inspur tree (--quick: cube
                                     at 64 ranks; --sweep: the TATP paper's
                                     axes; --auto: auto against every
                                     strategy, and its candidates with
                                     node aggregation, on 10 jobs)
      [--calls N]                    each job's write and read made N
                                     times (auto's trials run on them;
                                     times are the N calls' totals)
  paper [--quick] [--job NAME]       the papers' jobs at their size
                                     (2000^3 doubles, data-free)
  memory [--quick]                   the memory-conscious paper's experiment
  summary paper|auto|model FILE...   the summary of stored runs (--results;
                                     model: auto's cost model against each
                                     stored run, candidate by candidate)
  floors FILE...                     no stored run under its plan's floor
"""


def _common(p):
    p.add_argument("--build", default=os.path.join(ROOT, "build"),
                   help="the build tree holding tacio and tacio-smpibench (built if missing)")
    p.add_argument("--model", choices=("measured", "platform"), default="measured",
                   help="auto's model of each platform's network: measured by "
                        "tacio-calibrate under SMPI on the job's hosts (the default), or "
                        "derived by tacio platform from the platform file and SMPI's "
                        "factors (handed to auto)")


def _simulating(p):
    _common(p)
    p.add_argument("--jobs", type=int, default=1, help="simulations run at once")
    p.add_argument("--results", metavar="FILE",
                   help="append every run as a JSON line (tacio report draws them)")


def _positive(kind):
    def parse(text):
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"{text} is not > 0")
        return value
    return parse


def _precision(text):
    value = float(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not in (0, 1)")
    return value


def parser():
    ap = argparse.ArgumentParser(prog="bench/smpi/run", description=USAGE,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="the bench's own jobs")
    mode = run.add_mutually_exclusive_group()
    for flag in ("--quick", "--sweep", "--auto"):
        mode.add_argument(flag, dest="mode", action="store_const", const=flag[2:])
    run.add_argument("--ranks", type=_positive(int), default=512, help="cube's and ior's ranks")
    run.add_argument("--strategies", help="only these (comma-separated)")
    run.add_argument("--calls", type=_positive(int), default=1,
                     help="each write and read made this many times on the open file")
    _simulating(run)
    paper = sub.add_parser("paper", help="the papers' jobs at their own size")
    paper.add_argument("--quick", action="store_true",
                       help=f"{jobs.PAPER_QUICK.name} with {', '.join(jobs.PAPER_QUICK_STRATEGIES)}")
    paper.add_argument("--job", choices=[j.name for j in jobs.PAPER_JOBS], metavar="NAME",
                       help="that job only")
    paper.add_argument("--strategies", help="only these (comma-separated)")
    paper.add_argument("--per-host", default="1,2,4", help="these aggregators per host")
    paper.add_argument("--hint", action="append", default=[], metavar="KEY=VALUE",
                       help="on every run too: a run with hints is a choice of its own")
    paper.add_argument("--cpu-limit", type=_positive(float), metavar="MINUTES",
                       help="stop each simulation after this much CPU time (stored unfinished)")
    paper.add_argument("--maxmin-precision", type=_precision, metavar="P",
                       help="SimGrid's maxmin/precision (its default 1e-05)")
    _simulating(paper)
    memory = sub.add_parser("memory", help="the memory-conscious paper's experiment")
    memory.add_argument("--quick", action="store_true", help="the 16 MiB budget only")
    _simulating(memory)
    summ = sub.add_parser("summary", help="the summary of stored runs")
    summ.add_argument("kind", choices=("paper", "auto", "model"))
    summ.add_argument("files", nargs="+", metavar="FILE")
    _common(summ)
    fl = sub.add_parser("floors", help="no stored run under its plan's floor")
    fl.add_argument("files", nargs="+", metavar="FILE")
    _common(fl)
    return ap


def _chosen(names, wanted):
    """The registry's names that --strategies keeps (all without it)."""
    if not wanted:
        return names
    unknown = set(wanted.split(",")) - set(names)
    if unknown:
        sys.exit(f"bench/smpi: no strategy {' '.join(sorted(unknown))} "
                 f"(the strategies: {' '.join(names)})")
    return [s for s in names if s in wanted.split(",")]


def _per_host(text):
    ks = text.split(",")
    if not all(k in ("1", "2", "4") for k in ks):
        sys.exit(f"bench/smpi: --per-host takes 1, 2 and 4 (got {text})")
    return [int(k) for k in ks]


def _simulate(args, work):
    tacio, exe = _built(args)
    names = simulate.strategies(tacio)
    how = dict(jobs=args.jobs, results=args.results)
    if args.command == "memory":
        cases, draws = jobs.memory_cases(work, args.quick)
        runs, failed = simulate.run_all(work, tacio, exe, cases, paper=True, **how)
        summary.memory(runs, draws, summary.host_indices(work, tacio, jobs.MEMORY_JOB))
    elif args.command == "paper":
        strategies = _chosen(names, args.strategies)
        if args.quick:
            strategies = [s for s in strategies if s in jobs.PAPER_QUICK_STRATEGIES]
        wanted = [args.job] if args.job else [jobs.PAPER_QUICK.name] if args.quick else \
            [j.name for j in jobs.PAPER_JOBS]
        cases = jobs.paper_cases(wanted, strategies, _per_host(args.per_host), args.hint)
        runs, failed = simulate.run_all(work, tacio, exe, cases, paper=True,
                                        cpu_limit=round((args.cpu_limit or 0) * 60),
                                        precision=args.maxmin_precision, **how)
        summary.paper(runs, lambda job: summary.link_bounds(work, tacio, job), names)
    else:
        ranks = 64 if args.mode == "quick" else args.ranks
        cases = jobs.small_cases(args.mode, ranks, _chosen(names, args.strategies),
                                 simulate.strategies(tacio, "candidates"))
        runs, failed = simulate.run_all(work, tacio, exe, cases, calls=args.calls, **how)
        summary.shuffle_ratios(runs, ranks)
        if args.mode == "auto" or args.calls > 1:
            summary.auto_check(runs)
    if failed:
        sys.exit(f"bench/smpi: {failed} run(s) failed")


def _built(args, simulating=True):
    """tacio and the driver (None unless simulating), built; with --model
    measured, platforms.MEASURE set to the calibrating driver, built too."""
    measure = args.model == "measured"
    tacio, exe, calibrate = simulate.build(args.build, simulate=simulating, measure=measure)
    platforms.MEASURE = calibrate
    return tacio, exe


def _stored(args, work):
    runs = records.load(args.files)
    tacio, _ = _built(args, simulating=False)
    if args.command == "floors":
        if not floors.check(runs, work, tacio):
            sys.exit(1)
    elif args.kind == "auto":
        summary.auto_check(runs)
    elif args.kind == "model":
        summary.model_check(runs, lambda job, s, k, nbytes: summary.model_seconds(
            work, tacio, job, s, k, nbytes))
    else:
        summary.paper(runs, lambda job: summary.link_bounds(work, tacio, job),
                      simulate.strategies(tacio))


def main(argv=None):
    args = parser().parse_args(argv)
    simulating = args.command in ("run", "paper", "memory")
    shm = "/dev/shm" if simulating and os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="tacio-smpi-", dir=shm)
    try:
        (_simulate if simulating else _stored)(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
