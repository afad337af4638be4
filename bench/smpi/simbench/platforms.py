"""The simulated machines: the platform files `tacio platform` writes from
the same topology spec the planner takes (so the simulated and the planned
job are one machine), auto's model hints for them, and their rates.

auto's model of a platform is measured as a user's would be: its network
by tacio-calibrate --network, run under SMPI on the job's own hosts
(tacio-smpicalibrate, when MEASURE names it), its storage from the
platform's disks (a POSIX write does not advance SMPI's clock, so the
simulated storage cannot be timed so). With MEASURE None, the network's
hints are those `tacio platform` derives from the platform file and
SMPI's default factors: handed to auto, not measured."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from benchlib import parse_kv

from .jobs import CLUSTERS, IO_BW
from .launch import smpirun


@dataclass(frozen=True)
class Platform:
    spec: str        # tacio's topology spec
    dir: str         # platform.xml and hostfile
    model: str       # auto's model hints for it (measured, or tacio platform's)
    handed: str      # tacio platform's model=: the platform's own rates
    io_bw: float     # the most bytes/s the job's storage takes (io_bandwidth)


_made = {}  # platform directory -> Platform
MEASURE = None  # tacio-smpicalibrate's path: auto's network measured (above)
# The keys tacio-calibrate --network measures; the rest (the storage's) stay
# tacio platform's.
NETWORK_KEYS = ("tacio_bw_link", "tacio_bw_uplink", "tacio_bw_factors", "tacio_latency",
                "tacio_msg_overhead", "tacio_bw_copy")


def platform(work, tacio, job, memory=None):
    """The job's platform, made once per work directory. memory: tacio
    platform's --memory (each host's free memory, which the engine reads)."""
    spec, extra = CLUSTERS[job.cluster]
    out = os.path.join(work, f"{job.cluster}-{job.placement.replace(':', '_')}-{job.ranks}")
    if memory:
        out += "-" + "".join(c if c.isalnum() else "_" for c in memory.split("/")[-1])
        extra = extra + ["--memory", memory]
    if out not in _made:
        p = subprocess.run([tacio, "platform", "--topology", spec, "--procs", str(job.ranks),
                            "--placement", job.placement, "--out", out,
                            "--disk-bw", f"{IO_BW:.0f}Bps"] + extra,
                           check=True, stdout=subprocess.PIPE, text=True)
        handed = parse_kv(p.stdout)["model"]
        model = measured(out, spec, job.ranks, handed) if MEASURE else handed
        _made[out] = Platform(spec, out, model, handed, io_bandwidth(out, job.ranks))
    return _made[out]


def measured(plat_dir, spec, ranks, handed):
    """handed's hints with the network's replaced by what tacio-calibrate
    --network measures on the job's hosts under SMPI (MEASURE)."""
    cmd = [*smpirun(plat_dir, ranks), MEASURE, "--network", "--topology", spec]
    p = subprocess.run(cmd, capture_output=True, text=True)
    lines = [l for l in p.stdout.splitlines() if l.startswith("hosts=")]
    if p.returncode or not lines:
        sys.exit(f"bench/smpi: tacio-smpicalibrate failed on {plat_dir} "
                 f"(exit {p.returncode}): {p.stderr.strip()[-500:]}")
    return with_network(handed, parse_kv(lines[-1])["model"])


def with_network(handed, network):
    """handed's hints (k=v,...) without its NETWORK_KEYS, and network's: a
    key the calibration did not measure is left to the model's default
    (no uplink among the job's hosts: the job crosses none)."""
    hints = {k: v for k, v in (kv.split("=", 1) for kv in handed.split(","))
             if k not in NETWORK_KEYS}
    hints.update(kv.split("=", 1) for kv in network.split(","))
    return ",".join(f"{k}={v}" for k, v in hints.items())


def hosts(plat_dir):
    """Each rank's host, from the hostfile."""
    with open(os.path.join(plat_dir, "hostfile")) as f:
        return [line.strip() for line in f if line.strip()]


def io_bandwidth(plat_dir, ranks):
    """The most bytes/s the job's storage takes, whatever the plan: every
    byte is written (read) by one host's disk, and the job has only its own
    hosts' (a tree's platform gives each host one <disk> at IO_BW). Where
    hosts have no disk (SimGrid's fat tree and dragonfly), each rank's
    accesses take TACIO_SIM_IO_BW, so at most every rank at once."""
    with open(os.path.join(plat_dir, "platform.xml")) as f:
        disks = "<disk " in f.read()
    return IO_BW * (len(set(hosts(plat_dir))) if disks else ranks)


def _bytes_per_s(text):
    if not text.endswith("Bps"):
        sys.exit(f"bench/smpi: a platform rate {text!r} not in Bps (tacio platform writes them so)")
    return float(text[:-3])


def rates(plat_dir):
    """{"links": name -> bytes/s, "disks": host -> (write, read) bytes/s,
    "host_of": each rank's host}. On a tree each link is l-NAME, NAME's link
    to the switch above it: the planner's links, routed alike (a tree has
    one route). On SimGrid's FAT_TREE and DRAGONFLY only each host's own
    link is named (every byte in or out of a host crosses it); those have
    no disks."""
    root = ET.parse(os.path.join(plat_dir, "platform.xml")).getroot()
    links, disks = {}, {}
    for link in root.iter("link"):
        if link.get("id", "").startswith("l-"):
            links[link.get("id")[2:]] = _bytes_per_s(link.get("bandwidth"))
    for cluster in root.iter("cluster"):
        lo, hi = (int(x) for x in cluster.get("radical").split("-"))
        for i in range(lo, hi + 1):
            links[f"{cluster.get('prefix')}{i}{cluster.get('suffix', '')}"] = \
                _bytes_per_s(cluster.get("bw"))
    for host in root.iter("host"):
        for disk in host.iter("disk"):
            disks[host.get("id")] = (_bytes_per_s(disk.get("write_bw")),
                                     _bytes_per_s(disk.get("read_bw")))
    return {"links": links, "disks": disks, "host_of": hosts(plat_dir)}
