#!/usr/bin/env bash
# bench/lab, small: the namespace network comes up, MPI traffic crosses its
# shaped links (the tbf byte counters), the data checks pass, the same jobs
# run under SMPI on the lab's platform (--compare-smpi), mccio and auto
# keep their aggregators off hosts whose memory cgroup is short, tacio-calibrate
# measures the links' bandwidth factors, auto gathers hosts where its model
# says so (real Open MPI between the lab's hosts), and every
# namespace, hosts file, UTS file and control group it made is gone afterwards -- after a
# normal exit and after a signal in the middle of a run (TERM: a background
# job of a script ignores INT, and bench/lab traps both alike). No timing asserted
# (the machine is shared: speed is bench/lab's business).
# usage: smoke.sh SOURCE_DIR   (root; namespaces and tc)
set -u
src=$1
. "$(dirname "$0")/../lib.sh"
leftovers() { # anything a lab run left behind
    { ip netns list | grep -o '^tlab[0-9]*-[a-z0-9]*'
        ls -d /run/tlab* /etc/netns/tlab* /sys/fs/cgroup/tlab* /sys/fs/cgroup/memory/tlab* 2>/dev/null; } |
        tr '\n' ' '
}
[ "$(id -u)" = 0 ] || { echo "FAIL: the lab needs root"; exit 1; }
before=$(leftovers)
[ -z "$before" ] || echo "note: leftovers from an earlier run: $before"

out=$("$src/bench/lab/run" --reps 1 --strategies romio,tatp --compare-smpi 2>&1)
rc=$?
# whole lines: cut short, hop_bytes=44040192 read as 4404019 (a tenth of romio's)
echo "$out" | grep -E "^(calibrated|layout|shuffle|uplink|compare_)"
[ $rc = 0 ] && ok || ko "bench/lab exited $rc: $(tail -5 <<<"$out")"
# the same jobs under SMPI on the lab's platform (its data checked by the
# driver): a row per pattern, strategy and stage, each with both
# simulations' seconds (not how close they are: that is the lab's clock)
rows=$(grep -cE '^compare pattern=(ior1|cube) strategy=(romio|tatp) stage=(write|read)_(exchange|io|call) lab_s=[0-9.]+ .*smpi_s=[0-9.]+ smpi_over_lab=[0-9.]+ smpi_fitted_s=[0-9.]+ ' <<<"$out")
[ "$rows" = 24 ] && ok || ko "expected 24 compared rows (2 patterns x 2 strategies x 6 stages), got $rows"
[ "$(grep -c '^compare_order .*kendall_tau=' <<<"$out")" = 4 ] && ok || ko "expected 4 compare_order lines"
[ "$(grep -c '^compare_goal sim=smpi' <<<"$out")" = 2 ] && ok || ko "expected 2 compare_goal lines"
[ "$(grep -c 'verified=yes' <<<"$out")" = 4 ] && ok || ko "expected 4 verified runs (2 patterns x 2)"
up=$(grep -o 'uplink_bytes=[0-9]*' <<<"$out" | cut -d= -f2)
[ "${up:-0}" -gt 10000000 ] && ok || ko "the uplinks carried ${up:-no} bytes: the traffic did not cross them"
grep -q 'tacio_bw_uplink=' <<<"$out" && ok || ko "no calibration line"
# tacio-calibrate's bandwidth factors between hosts: 1 MiB down to the
# smallest ("0:"), each in (0, 1] and none above a larger message's
factors=$(grep -o 'tacio_bw_factors=[^,]*' <<<"$out" | cut -d= -f2)
python3 -c '
import sys
e = [tuple(map(float, x.split(":"))) for x in sys.argv[1].split(";")]
assert [b for b, _ in e] == [1 << 20, 1 << 18, 1 << 16, 1 << 14, 1 << 12, 0], e
f = [v for _, v in e]
assert all(0 < v <= 1 for v in f) and f == sorted(f, reverse=True), f
' "$factors" && ok || ko "calibrated factors: ${factors:-none}"
[ "$(leftovers)" = "$before" ] && ok || ko "left behind after exit: $(leftovers)"

# auto gathers each host's data on its first rank where its model rates it
# faster, on real Open MPI between the lab's hosts: messages under 200 KB
# at a hundredth of the link's rate (the hint, over the calibrated model)
# make btio's 110 KB a rank pay for it; the data is checked by the driver
out=$("$src/bench/lab/run" --nodes 2 --ranks-per-node 2 --reps 1 --strategies auto \
    --patterns "btio8 48" --hints "tacio_bw_factors=0:0.01;200000:1" 2>&1)
grep -E "^layout" <<<"$out"
grep -q "strategy=auto .*node_aggregated=1 verified=yes" <<<"$out" ||
    ko "auto did not gather in the lab: $(tail -3 <<<"$out")"
[ "$(leftovers)" = "$before" ] && ok || ko "left behind after exit: $(leftovers)"
# the same, six writes and six reads on the open file: the gathered pick's
# first call is its trial, the default and the runners-up follow (each
# gathered one planned as rated), a settled gathered choice gathers at once;
# every read and the file checked
out=$("$src/bench/lab/run" --nodes 2 --ranks-per-node 2 --reps 1 --calls 6 --strategies auto \
    --patterns "btio8 48" --hints "tacio_bw_factors=0:0.01;200000:1" 2>&1)
grep -E "^layout" <<<"$out"
grep -q "strategy=auto .*verified=yes" <<<"$out" && ok ||
    ko "auto's trials with gathered candidates in the lab: $(tail -3 <<<"$out")"

# hosts short of memory (a memory cgroup per virtual host, as a batch
# system limits a job): the engine reads each host's limit, and mccio and
# auto keep their aggregators on the two hosts with room (two aggregators,
# the data checked); whether the kernel kills the memory-blind romio there
# is the kernel's accounting, reported, not asserted
memory_groups() { # whether this machine lets us make a memory control group
    local root=/sys/fs/cgroup/memory
    [ -f /sys/fs/cgroup/cgroup.controllers ] && root=/sys/fs/cgroup
    mkdir "$root/tlabprobe$$" 2>/dev/null && rmdir "$root/tlabprobe$$"
}
if memory_groups; then
    out=$("$src/bench/lab/run" --reps 1 --strategies mccio,auto,romio --patterns "ior1 4194304" \
        --host-memory 24M,24M,1G,1G 2>&1)
    grep -E "^(layout|killed|host_memory)" <<<"$out"
    for s in mccio auto; do
        grep -q "strategy=$s naggs=2 .*verified=yes" <<<"$out" && ok ||
            ko "$s under the hosts' memory limits: $(grep "strategy=$s\|^killed\|bench/lab" <<<"$out" | tail -3)"
    done
    [ "$(grep -c '^host_memory=n[0-3] ' <<<"$out")" = 4 ] && ok || ko "expected 4 host_memory lines"
    # over three calls auto's trials leave out the default, whose aggregator
    # on every host does not fit (a trial of it would be killed), and say so
    out=$(TACIO_PRINT_CHOICE=1 "$src/bench/lab/run" --reps 1 --calls 3 --strategies auto \
        --patterns "ior1 4194304" --host-memory 24M,24M,1G,1G 2>&1)
    grep -q "strategy=auto naggs=2 .*verified=yes" <<<"$out" && ok ||
        ko "auto's three calls under the hosts' memory limits: $(tail -3 <<<"$out")"
    grep -q "the default not tried: its aggregators do not fit" <<<"$out" && ok ||
        ko "auto's choice does not say the default was left out for memory: $(grep 'tacio:' <<<"$out" | head -5)"
    [ "$(leftovers)" = "$before" ] && ok || ko "left behind after --host-memory: $(leftovers)"
else
    echo "note: no memory control group can be made here: --host-memory not checked"
fi

# interrupted while the MPI runs go on
"$src/bench/lab/run" --reps 5 --strategies romio >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 60); do # until the first namespace is up
    ip netns list | grep -q "tlab$pid-n0" && break
    sleep 0.5
done
sleep 8
kill -TERM "$pid"
wait "$pid"
rc=$?
[ $rc -ne 0 ] && ok || ko "interrupted lab exited 0"
[ "$(leftovers)" = "$before" ] && ok || ko "left behind after a signal: $(leftovers)"
report "lab smoke"
