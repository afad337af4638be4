"""No stored run under its plan's floor: what catches the planner or the
simulator drifting.

SimGrid's max-min sharing holds the flows crossing a link to the link's
bandwidth (each expands the link's constraint at coefficient 1: SimGrid
3.32's network_cm02.cpp), and a <disk>'s accesses to its rate. So each
direction of a run takes at least its plan's busiest link's bytes at that
link's rate (a read crosses each link the other way: the same bytes), and
its busiest disk's bytes at the disk's. The plan is the engine's own
(`tacio plan --as-engine`, planned on the ranks' summaries as the engine
plans); it is trusted only where it agrees with the run's stored plan
(hop-bytes and busiest link as the engine reported them)."""
import collections
import sys

from . import platforms
from .jobs import planner_pattern
from .records import by_job
from .summary import plan

SLACK = 1e-6  # SimGrid's solver rounds: a stored time may sit this far under


def call_floors(plan_json, rates):
    """(write, read): seconds under which no simulation of the plan's call
    can finish: its busiest link or its busiest disk, whichever is slower."""
    link_s = max((max(l["up"], l["down"]) / rates["links"][l["below"]]
                  for l in plan_json["links"] if l["below"] in rates["links"]), default=0.0)
    on_host = collections.Counter()
    for fd in plan_json["fds"]:
        on_host[rates["host_of"][fd["aggregator"]]] += fd["bytes"]
    disk = rates["disks"]
    write_s = max((b / disk[h][0] for h, b in on_host.items() if h in disk), default=0.0)
    read_s = max((b / disk[h][1] for h, b in on_host.items() if h in disk), default=0.0)
    return max(link_s, write_s), max(link_s, read_s)


def checkable(r):
    """A finished run of a plain strategy (no hints; not auto, whose choice
    is its own) on a pattern the planner names."""
    return r.finished and not r.hints and r.strategy != "auto" and planner_pattern(r.job)


def check(runs, work, tacio):
    """Prints paper_floor_check runs=N under_floor=M planner_agrees=S:A/N,...
    and a paper_floor_under line per run under its floor; True when none is."""
    agree = collections.defaultdict(lambda: [0, 0])  # strategy -> [agreeing, compared]
    under = []
    for job, rs in by_job(r for r in runs if checkable(r)).items():
        rates = platforms.rates(platforms.platform(work, tacio, job).dir)
        for r in rs:
            p = plan(work, tacio, job, r.strategy, r.per_host, as_engine=True,
                     rates=r.get("model") != "measured",  # the model the run was given
                     nbytes=r.get("bytes"))
            same = all(str(p[f]) == str(r.get(f)) for f in ("max_link_load", "hop_bytes"))
            agree[r.strategy][0] += same
            agree[r.strategy][1] += 1
            floor = sum(call_floors(p, rates))
            if same and floor > r.seconds() * (1 + SLACK):
                under.append(f"{job.name}:{r.strategy}@{r.per_host} "
                             f"time_s={r.seconds():.6f} floor_s={floor:.6f}")
    print(f"paper_floor_check runs={sum(n for _, n in agree.values())} "
          f"under_floor={len(under)} planner_agrees="
          + ",".join(f"{s}:{ok}/{n}" for s, (ok, n) in sorted(agree.items())), flush=True)
    for u in under:
        print(f"paper_floor_under {u}")
    if under:
        print(f"bench/smpi: {len(under)} stored run(s) under their floor", file=sys.stderr)
    return not under
