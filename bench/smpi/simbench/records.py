"""What the bench simulates and what it stores.

A run is stored (--results) as one JSON object a line, the format `tacio
report` draws its figures from: the driver's key=value line (strings) with
the case's fields beside it. Run keeps that object as it is (fields) and
reads the few things the summaries need from it."""
import json
import sys
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Job:
    cluster: str    # a key of jobs.CLUSTERS
    placement: str  # tacio platform's --placement
    pattern: str    # the driver's pattern (cube, btio, btio8, ior, ior1)
    ranks: int

    @property
    def name(self):
        return f"{self.cluster}-{self.placement.split(':')[0]}-{self.pattern}-{self.ranks}"


@dataclass(frozen=True)
class Case:
    """One simulation to run: a job, aggregators per host, a strategy, and
    what the run adds: hints (a choice of its own), each host's free memory
    (tacio platform --memory), fields stored with it."""
    job: Job
    per_host: int
    strategy: str
    hints: tuple = ()
    memory: str = None
    fields: tuple = ()  # (key, value) pairs


@dataclass
class Run:
    job: Job
    per_host: int
    strategy: str
    hints: tuple
    fields: dict = field(repr=False)  # the stored object

    @classmethod
    def from_json(cls, obj):
        return cls(Job(obj["cluster"], obj["placement"], obj["pattern"], int(obj["ranks"])),
                   int(obj["aggs_per_host"]), obj["strategy"], tuple(obj.get("hints", ())), obj)

    @property
    def config(self):
        """The strategy with its hints (romio+cb_buffer_size=N): a hinted
        run is a choice of its own, never the baseline or auto's."""
        return self.strategy + "".join("+" + h for h in self.hints)

    @property
    def choice(self):
        """(config, aggregators per host): what a job's runs are told apart by."""
        return self.config, self.per_host

    @property
    def finished(self):
        """False for a run its CPU limit stopped (no times)."""
        return self.fields.get("status") != "unfinished"

    def seconds(self, calls=("write", "read")):
        """The simulated time of these calls, added; of a run that repeated
        them (run --calls), all of their repeats."""
        return sum(float(self.fields.get(f"{c}_total_s", self.fields[f"{c}_s"])) for c in calls)

    def __getitem__(self, key):
        return self.fields[key]

    def get(self, key, default=None):
        return self.fields.get(key, default)


def load(paths):
    """The runs stored in paths, the last of each job's choice: a later run
    replaces an earlier one, but a stopped run never replaces a finished
    one."""
    runs = {}
    for path in paths:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                try:
                    r = Run.from_json(json.loads(line))
                except (ValueError, KeyError, TypeError) as e:
                    sys.exit(f"bench/smpi: {path}:{n}: not a stored run ({e})")
                key = (r.job, r.choice)
                if r.finished or key not in runs or not runs[key].finished:
                    runs[key] = r
    return list(runs.values())


def by_job(runs):
    """{Job: [runs]} in the order first seen."""
    jobs = {}
    for r in runs:
        jobs.setdefault(r.job, []).append(r)
    return jobs


def times(runs, calls=("write", "read")):
    """{choice: seconds} of finished runs."""
    return {r.choice: r.seconds(calls) for r in runs if r.finished}
