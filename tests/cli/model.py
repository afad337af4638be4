#!/usr/bin/env python3
"""auto's cost model, term by term, through `tacio plan --json`: changing one
bandwidth hint must change model_seconds by exactly that term's bytes over
the difference of the two rates, with the bytes taken from the plan itself
(docs/strategies.md, "auto's cost model"):
  - tacio_bw_uplink: the busiest link between switches (below a switch);
  - rounds after the first: one window each over the slowest link class;
  - tacio_bw_link: with the uplinks slow, a host's own links do not count;
  - tacio_bw_node_io: the bytes of the busiest host's aggregators;
  - unset tacio_bw_node_io: not charged at all;
  - tacio_bw_copy: bytes an aggregator copies from ranks of its own host;
  - pipelined rounds overlap the copies and the I/O (the shorter adds its
    share of one round), one round adds them;
  - tacio_msg_overhead: each message of the busiest aggregator and sender,
    one after another; tacio_latency: once a round, and log2(p) times for
    each agreement and each chunk of the plan's broadcast.
The other terms are held constant (or made negligible) by the hints.

usage: model.py TACIO_EXE
"""
import json
import subprocess
import sys

failures = []
JOB = ["--pattern", "cube:n=32", "--procs", "8", "--topology", "tree:racks=2,nodes=2,cores=2"]


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def plan(tacio, placement, strategy, **hints):
    cmd = [tacio, "plan"] + JOB + ["--placement", placement, "--strategy", strategy, "--json"]
    for k, v in hints.items():
        cmd += ["--hint", f"tacio_{k}={v}"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-12)


def close_json(diff, want, a, b):
    """A difference of two model_seconds the JSON gives to 6 significant
    digits: within their rounding."""
    slack = 1e-6 * (abs(a["model_seconds"]) + abs(b["model_seconds"]))
    return abs(diff - want) <= slack + 1e-9 * abs(want)


def test_uplink(tacio):
    # fast disks and file system, fast hosts' links: the uplinks decide
    fast = dict(bw_agg_io=1e15, bw_fs=1e15, bw_link=1e15, latency=1e-15)
    for s in ("romio", "tatp"):
        a = plan(tacio, "cyclic", s, bw_uplink=1e6, **fast)
        b = plan(tacio, "cyclic", s, bw_uplink=2e6, **fast)
        up = max(max(l["up"], l["down"]) for l in a["links"] if l["below"].startswith("s"))
        check(up > 0, f"{s}: the cyclic job crosses the uplinks")
        want = up * (1 / 1e6 - 1 / 2e6)
        got = a["model_seconds"] - b["model_seconds"]
        check(close(got, want), f"{s}: uplink term {got} s, want {want} s ({up} B)")
        # a host's own link, 10x faster than before, changes nothing: the
        # uplinks stay the bottleneck
        c = plan(tacio, "cyclic", s, bw_uplink=1e6, **dict(fast, bw_link=1e14))
        check(close(a["model_seconds"], c["model_seconds"]),
              f"{s}: hosts' links counted while the uplinks are slower")


def test_round_tails(tacio):
    # rounds after the first add one window each over the slowest link
    # class: with the uplinks slowest, a change of their rate changes the
    # busiest uplink's term and (rounds - 1) windows' tails alike
    window = 4096
    fast = dict(tacio_bw_agg_io=1e15, tacio_bw_fs=1e15, tacio_bw_link=1e15, tacio_latency=1e-15,
                cb_buffer_size=window)
    job = JOB + ["--placement", "cyclic"]
    a = plan_on(tacio, job, "romio", tacio_bw_uplink=1e6, **fast)
    b = plan_on(tacio, job, "romio", tacio_bw_uplink=2e6, **fast)
    rounds = a["rounds"]
    check(rounds > 1, f"the job runs in rounds ({rounds})")
    up = max(max(l["up"], l["down"]) for l in a["links"] if l["below"].startswith("s"))
    want = (up + (rounds - 1) * window) * (1 / 1e6 - 1 / 2e6)
    got = a["model_seconds"] - b["model_seconds"]
    check(close(got, want), f"uplink and round tails {got} s, want {want} s ({rounds} rounds)")


def test_host_io(tacio):
    fast = dict(bw_agg_io=1e15, bw_fs=1e15, bw_link=1e15, latency=1e-15)
    for s in ("romio", "auto"):
        per_host = dict(aggs_per_host=2)
        a = plan(tacio, "block", s, bw_host_io=1e3, **fast, **per_host)
        b = plan(tacio, "block", s, bw_host_io=2e3, **fast, **per_host)
        host_bytes = {}
        for fd in a["fds"]:  # block placement, 2 cores: rank r on host r // 2
            h = fd["aggregator"] // 2
            host_bytes[h] = host_bytes.get(h, 0) + fd["bytes"]
        busiest = max(host_bytes.values())
        want = busiest * (1 / 1e3 - 1 / 2e3)
        got = a["model_seconds"] - b["model_seconds"]
        check(close(got, want), f"{s}: host I/O term {got} s, want {want} s ({busiest} B)")
        unset = plan(tacio, "block", s, **fast, **per_host)
        check(unset["model_seconds"] < b["model_seconds"] / 10,
              f"{s}: unset tacio_bw_node_io still charged ({unset['model_seconds']} s)")


ONE_HOST = ["--pattern", "cube:n=32", "--procs", "8", "--topology", "flat:nodes=1,cores=8"]


def plan_on(tacio, job, strategy, **hints):
    cmd = [tacio, "plan"] + job + ["--strategy", strategy, "--json"]
    for k, v in hints.items():
        cmd += ["--hint", f"{k}={v}"]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def test_copy(tacio):
    # one host, one aggregator: every shuffled byte is a copy between its
    # ranks; the network and the I/O are fast
    fast = dict(tacio_bw_agg_io=1e15, tacio_bw_fs=1e15, tacio_bw_link=1e15, tacio_latency=1e-15,
                cb_nodes=1)
    a = plan_on(tacio, ONE_HOST, "romio", tacio_bw_copy=1e6, **fast)
    b = plan_on(tacio, ONE_HOST, "romio", tacio_bw_copy=2e6, **fast)
    copied = a["shuffle_bytes"]
    check(copied > 0 and a["offnode_bytes"] == 0, "one host: every shuffled byte stays on it")
    want = copied * (1 / 1e6 - 1 / 2e6)
    got = a["model_seconds"] - b["model_seconds"]
    check(close_json(got, want, a, b), f"copy term {got} s, want {want} s ({copied} B)")


def test_overlap(tacio):
    # pipelined rounds: the copies (slow) and the I/O overlap, so the I/O
    # adds only its share of one round while it is the shorter of the two
    base = dict(tacio_bw_fs=1e15, tacio_bw_link=1e15, tacio_latency=1e-15, cb_nodes=1,
                tacio_bw_copy=1e6, cb_buffer_size=4096)
    a = plan_on(tacio, ONE_HOST, "romio", tacio_bw_agg_io=1e7, **base)
    b = plan_on(tacio, ONE_HOST, "romio", tacio_bw_agg_io=2e7, **base)
    rounds = a["rounds"]
    check(rounds > 1, f"the job runs in rounds ({rounds})")
    io = a["max_agg_bytes"] * (1 / 1e7 - 1 / 2e7)
    got = a["model_seconds"] - b["model_seconds"]
    check(close_json(got, io / rounds, a, b),
          f"overlapped I/O term {got} s, want {io / rounds} s")
    # one round: nothing to overlap, the I/O adds in full
    one = dict(base, cb_buffer_size=1 << 30)
    c = plan_on(tacio, ONE_HOST, "romio", tacio_bw_agg_io=1e7, **one)
    d = plan_on(tacio, ONE_HOST, "romio", tacio_bw_agg_io=2e7, **one)
    check(c["rounds"] == 1, "one round with a large buffer")
    got = c["model_seconds"] - d["model_seconds"]
    check(close_json(got, io, c, d), f"unoverlapped I/O term {got} s, want {io} s")


def test_messages(tacio):
    # one host, one aggregator: 7 messages into it and 1 out of the busiest
    # sender, one after another at the overhead each; the flights (latency)
    # count once per round
    fast = dict(tacio_bw_agg_io=1e15, tacio_bw_fs=1e15, tacio_bw_link=1e15, tacio_bw_copy=1e15,
                tacio_latency=1e-15, cb_nodes=1)
    a = plan_on(tacio, ONE_HOST, "romio", tacio_msg_overhead=1e-3, **fast)
    b = plan_on(tacio, ONE_HOST, "romio", tacio_msg_overhead=2e-3, **fast)
    got = b["model_seconds"] - a["model_seconds"]
    check(close_json(got, 8 * 1e-3, a, b), f"message term {got} s, want {8e-3} s (8 messages)")
    # the latency alone: once for the round's messages, log2(8) = 3 times
    # for each of the round's agreement and the plan's gather and broadcast
    # (3 agreements), and 3 times for the plan's one chunk of FDs: 13 in all
    c = plan_on(tacio, ONE_HOST, "romio", **dict(fast, tacio_latency=1e-3, tacio_msg_overhead=1e-15))
    check(c["rounds"] == 1 and len(c["fds"]) == 1, "one round, one FD")
    check(close_json(c["model_seconds"], 13e-3, c, c),
          f"latency terms {c['model_seconds']} s, want 13 latencies (13 ms)")


FAST = dict(tacio_bw_agg_io=1e15, tacio_bw_fs=1e15, tacio_bw_copy=1e15, tacio_latency=1e-15,
            tacio_msg_overhead=1e-15)
TREE_JOB = JOB + ["--placement", "cyclic"]


def mean_message(p):
    return p["offnode_bytes"] / p["offnode_msgs"]


def test_bw_factors(tacio):
    # the network alone (fast disks and copies, no latency): a factor of
    # 1/2 for the shuffle's mean crossing message doubles the shuffle's
    # time, which is all of the model but the plan's broadcast (56 bytes an
    # FD down log2(8) hops); an entry whose size lies above that mean does
    # not apply
    base = dict(FAST, tacio_bw_link=1e6, cb_nodes=2)
    a = plan_on(tacio, TREE_JOB, "romio", **base)
    check(a["offnode_msgs"] > 0, "the cyclic job's messages cross hosts")
    mean = mean_message(a)
    bcast = 56 * len(a["fds"]) / 1e6 * 3
    want = 2 * (a["model_seconds"] - bcast) + bcast
    at = plan_on(tacio, TREE_JOB, "romio", tacio_bw_factors=f"0:1;{int(mean)}:0.5", **base)
    check(close_json(at["model_seconds"], want, a, at),
          f"factor 0.5 at the mean message ({mean:.0f} B): {at['model_seconds']} s, want {want} s")
    above = plan_on(tacio, TREE_JOB, "romio", tacio_bw_factors=f"0:1;{int(mean) + 1}:0.5", **base)
    check(close_json(above["model_seconds"], a["model_seconds"], a, above),
          f"an entry above the mean message applied: {above['model_seconds']} s")


def test_node_aggregation(tacio):
    # auto rates each candidate with node aggregation too (each node's data
    # on its first rank): the same bytes over the same links in fewer, larger
    # messages, at the price of two copies on the leader. Messages under
    # 64 KiB at a hundredth of the links' rate make it pay; without factors
    # it only costs.
    base = dict(FAST, tacio_bw_link=1e6, tacio_bw_copy=1e9)
    plain = plan_on(tacio, TREE_JOB, "auto", **base)
    check(plain["node_aggregated"] == 0, f"auto gathered with nothing to gain: {plain['detail']}")
    slow = plan_on(tacio, TREE_JOB, "auto", tacio_bw_factors="0:0.01;65536:1", **base)
    check(slow["node_aggregated"] == 1 and "node aggregation first" in slow["detail"],
          f"auto did not gather small messages: {slow['detail']}")
    # the same choice ungathered: the same links and bytes, more messages
    k = slow["detail"].split(" with ")[1].split()[0]
    strategy = slow["detail"].split()[1]
    same = plan_on(tacio, TREE_JOB, strategy, cb_config_list=f"*:{k}", **base)
    check(same["max_link_load"] == slow["max_link_load"] and
          same["offnode_bytes"] == slow["offnode_bytes"],
          "gathering changed the bytes between hosts")
    check(slow["offnode_msgs"] * 2 <= same["offnode_msgs"],
          f"gathering 2 ranks a host left {slow['offnode_msgs']} of {same['offnode_msgs']} messages")


def main():
    tacio = sys.argv[1]
    test_bw_factors(tacio)
    test_node_aggregation(tacio)
    test_uplink(tacio)
    test_round_tails(tacio)
    test_host_io(tacio)
    test_copy(tacio)
    test_overlap(tacio)
    test_messages(tacio)
    print(f"model: {len(failures)} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
