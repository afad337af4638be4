#!/usr/bin/env bash
# The engine on a simulated cluster (SimGrid SMPI), small: bench/smpi's
# driver on a platform from `tacio platform` (the TATP paper's Inspur tree,
# hosts scattered), for cube (64 ranks) and ior (36), with romio, tatp and
# bottleneck; btio (36) with romio at 4 aggregators per host and with auto.
# Checks per run:
#  - the data: every read buffer and the whole file (the driver's checks);
#  - the engine placed its hosts by name where the platform put them: its
#    hop-bytes and busiest link equal `tacio plan`'s for the same pattern,
#    topology and placement (with hosts placed in order they would not);
#  - simulated times are positive;
#  - tacio-calibrate --network under SMPI measures the platform's links.
# The driver is the build tree's tacio-smpibench (CMake's tacio-smpi
# target, which the test smpi.build makes first).
# usage: smoke.sh BUILD_DIR
set -u
tacio=$1/bin/tacio
smpibench=$1/bin/tacio-smpibench
topo=tree:racks=4,nodes=20,cores=12
. "$(dirname "$0")/../lib.sh"
[ -x "$smpibench" ] || { echo "FAIL: $smpibench not built (cmake --build $1 --target tacio-smpi; SimGrid: scripts/install-deps.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

smpi_on() { # SECONDS DIR NP PROGRAM ARGS...: the program under smpirun on DIR's platform
    local secs=$1 dir=$2 np=$3
    shift 3
    timeout "$secs" smpirun -np "$np" -platform "$dir/platform.xml" -hostfile "$dir/hostfile" \
        --cfg=smpi/privatization:dlopen --cfg=smpi/simulate-computation:no \
        --cfg=smpi/coll-selector:ompi --cfg=network/weight-S:0 "$@"
}

sim_out() { # NODATA NP PATTERN N STRATEGY HINT [CALLS]: all smpibench prints
    local np=$2 dir="$work/p$2"
    [ -d "$dir" ] || "$tacio" platform --topology "$topo" --procs "$np" \
        --placement scatter:seed=2 --out "$dir" >/dev/null || { ko "tacio platform"; return; }
    rm -f "$work/data.bin"
    TACIO_SIM_NODATA=$1 TACIO_HINTS="tacio_topology=$topo,$6" smpi_on 600 "$dir" "$np" \
        "$smpibench" "$work/data.bin" "$3" "$4" "$5" ${7:+"$7"} 2>&1
}
sim_line() { # NODATA NP PATTERN N STRATEGY HINT [CALLS]: smpibench's line
    sim_out "$@" | grep '^pattern='
}

run_case() { # NP PATTERN N PLAN_PATTERN STRATEGY [HINT]
    local np=$1 hint=${6:-cb_config_list=*:1}
    local line want got
    line=$(sim_line 0 "$np" "$2" "$3" "$5" "$hint")
    echo "$line"
    [ -n "$line" ] || { ko "$2 $5: no result"; return; }
    grep -q "buffer_wrong=0 file_wrong=0" <<<"$line" || ko "$2 $5: wrong data"
    grep -Eq "write_s=0\.0*[1-9]" <<<"$line" || ko "$2 $5: no simulated time"
    [ -n "$4" ] || { passed=$((passed + 1)); return; } # the data alone
    got=$(grep -o 'hop_bytes=[0-9]* max_link_load=[0-9]*' <<<"$line")
    want=$("$tacio" plan --pattern "$4" --procs "$np" --topology "$topo" \
        --placement scatter:seed=2 --strategy "$5" --hint "$hint" --json |
        python3 -c 'import json, sys; d = json.load(sys.stdin)
print("hop_bytes=%d max_link_load=%d" % (d["hop_bytes"], d["max_link_load"]))')
    [ "$got" = "$want" ] && passed=$((passed + 1)) || ko "$2 $5: engine $got, planner $want"
}

for s in romio tatp bottleneck; do
    run_case 64 cube 48 cube:n=48 "$s"
    run_case 36 ior 32768 ior:block=32k,transfer=32k,segments=8 "$s"
done
# mccio and cuts plan on the ranks' access summaries (SUMMARY_RUNS byte
# quantiles each, cplan.c), where `tacio plan` reads the whole pattern:
# mccio's leaves then differ here (cube: 1495405 hop-bytes on the
# summaries, 1502208 on the pattern). `tacio plan --as-engine` plans as the
# engine does (tacio_plan_compute_as_engine, which bench/smpi's floor check
# plans with too): its hop-bytes and busiest link are the engine's exactly.
engine_plan_case() { # NP PATTERN N PLAN_PATTERN STRATEGY
    local hint='cb_config_list=*:1' line got want
    line=$(sim_line 0 "$1" "$2" "$3" "$5" "$hint")
    echo "$line"
    grep -q "buffer_wrong=0 file_wrong=0" <<<"$line" || { ko "$2 $5: wrong data: $line"; return; }
    got=$(grep -o 'hop_bytes=[0-9]* max_link_load=[0-9]*' <<<"$line")
    want=$("$tacio" plan --pattern "$4" --procs "$1" --topology "$topo" --placement scatter:seed=2 \
        --hint "$hint" --strategy "$5" --as-engine --json |
        python3 -c 'import json, sys; d = json.load(sys.stdin)
print("hop_bytes=%d max_link_load=%d" % (d["hop_bytes"], d["max_link_load"]))')
    [ -n "$got" ] && [ "$got" = "$want" ] && passed=$((passed + 1)) ||
        ko "$2 $5: engine $got, tacio plan --as-engine $want"
}
engine_plan_case 64 cube 48 cube:n=48 mccio
engine_plan_case 36 btio8 48 btio:n=48,elem=8 mccio
engine_plan_case 36 btio8 48 btio:n=48,elem=8 cuts
# rows longer than the fixed-size gather takes (btio at 4 aggregators per
# host: CMD_ROWS_FULL), and auto (its candidates' rows in one batch); the
# driver's btio cells are not the planner's btio: the data is checked alone
run_case 36 btio 24 "" romio 'cb_config_list=*:4'
run_case 36 btio 24 "" auto
# auto asks the ranks for their byte quantiles (a second gather of
# SUMMARY_RUNS runs each, 8 * 53 bytes a rank, into rank 0) only when the
# model rates the asking cheap beside the collective: not for this small
# cube at the default constants; when latency and links cost nothing, yes.
# Both runs check their data, and choose alike here.
auto_ask_case() {
    local spans asked ms ma
    spans=$(sim_line 0 64 cube 48 auto 'cb_config_list=*:1')
    asked=$(sim_line 0 64 cube 48 auto 'cb_config_list=*:1,tacio_latency=1e-12,tacio_bw_link=1e15')
    echo "$asked"
    ms=$(grep -o 'meta_bytes=[0-9]*' <<<"$spans") ma=$(grep -o 'meta_bytes=[0-9]*' <<<"$asked")
    grep -q "buffer_wrong=0 file_wrong=0" <<<"$spans" && grep -q "buffer_wrong=0 file_wrong=0" <<<"$asked" ||
        { ko "auto ask: wrong data"; return; }
    [ -n "$ms" ] && [ $((${ma#*=} - ${ms#*=})) -eq $((8 * 53 * 64)) ] && passed=$((passed + 1)) ||
        ko "auto ask: rank 0's metadata $ms without asking, $ma asking (want $((8 * 53 * 64)) more)"
}
auto_ask_case
# auto's trials on repeated calls (smpibench's CALLS writes, then as many
# reads, each read checked), timed on the simulated clock: the default and
# the model's candidates one call each (trials 1..9, none twice but for a
# planned one timed again on its kept schedule by the next call), then the
# choice; every call on the kept schedule runs the fastest schedule timed
# so far, also after a confirmation that lost (the fastest's schedule was
# set aside for it: btio at 36 ranks, whose default loses its
# confirmation); independent I/O (trial 10) is not among the reads'
# trials, since the hosts share the storage (coll.c, trials_start).
#
# With a hint that makes auto gather (below), the first call plans the
# pick with its hosts' data gathered, whose schedule is never kept: that
# call times it, the default follows on the next, and the trials go on
# (before, each gathered call started them over: no trial ever ran); the
# gathered candidates are each planned as rated on the leaders' accesses,
# so two of them do not run as one plan.
repeat_case() { # NP PATTERN N CALLS [HINT, GATHERED: the first call gathers]
    local stats="$work/stats.jsonl" line
    rm -f "$stats"
    line=$(TACIO_STATS="$stats" sim_line 0 "$1" "$2" "$3" auto "cb_config_list=*:1${5:+,$5}" "$4")
    echo "$line"
    grep -q "buffer_wrong=0 file_wrong=0 .* calls=$4 write_total_s=" <<<"$line" ||
        { ko "auto repeated $2: $line"; return; }
    python3 - "$stats" "$4" "${6:-0}" <<'PY' && passed=$((passed + 1)) || ko "auto repeated $2: its trials"
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
for op in ("write_at_all", "read_at_all"):
    seq = [(c["trial"], c["reused"]) for c in calls if c["op"] == op]
    secs = [c["call_us"] for c in calls if c["op"] == op]
    gathered = [c["node_aggregated"] for c in calls if c["op"] == op]
    print(op, "trials (trial, reused)", seq, "gathered", gathered)
    assert len(seq) == int(sys.argv[2]), seq
    if sys.argv[3] == "1":
        assert gathered[0] and seq[1] == (1, 0), "the pick gathered, then the default"
        runners = {secs[k] for k, (t, r) in enumerate(seq) if t >= 3 and gathered[k]}
        assert len(runners) > 1 or sum(t >= 3 for t, _ in seq) < 2, "gathered candidates as one"
    confirms = [k > 0 and t > 0 and seq[k - 1] == (t, 0) and r for k, (t, r) in enumerate(seq)]
    timed = [t for (t, r), c in zip(seq, confirms) if t > 0 and not c]
    assert 1 in timed or 2 in timed, "no trial timed"
    assert len(timed) == len(set(timed)), "a trial ran twice"
    assert 10 not in timed, "independent I/O tried on shared storage"
    for k, (t, r) in enumerate(seq):  # the kept schedule: the fastest timed on one
        on_kept = [secs[j] for j in range(k) if seq[j][1] and seq[j][0] > 0]
        assert t or not r or not on_kept or secs[k] <= min(on_kept), \
            f"call {k} on the kept schedule took {secs[k]} us, {min(on_kept)} timed"
PY
}
repeat_case 64 cube 48 8
repeat_case 36 btio 36 12
repeat_case 36 btio8 48 12 'tacio_bw_factors=0:0.01;65536:1' 1

# A shape that moves for good (SMPIBENCH_SHRINK_FROM=K: rank 0 writes half
# its data from call K on; the file checked) starts the trials over once,
# and the calls after go on with the new shape's trials. Where the new
# shape's pick gathers, its shape is kept in the stale one's place: else
# every later call found it moved again and started over (btio8 at 36
# ranks, whose pick gathers). A settled gathered choice (node aggregation
# first; ior at 64 ranks settles on a gathered runner-up by its sixth
# call) plans every call on the accesses it is given, so the check of its
# kept shape rides on the call's last agreement instead of a collective of
# its own: on the simulated clock its calls pay nothing beyond the plan
# they run (move_us = call_us; the check cost 16-41 us a call here), and
# the call whose shape moved still runs it, the next one starting over.
shape_moves_case() { # NP PATTERN N CALLS SHRINK_FROM SETTLED_GATHERED(0/1)
    local stats="$work/stats.jsonl" out line
    rm -f "$stats"
    out=$(SMPIBENCH_SHRINK_FROM=$5 TACIO_STATS="$stats" TACIO_PRINT_CHOICE=1 sim_out 0 "$1" "$2" \
        "$3" auto 'cb_config_list=*:1,tacio_bw_factors=0:0.01;65536:1' "$4")
    line=$(grep '^pattern=' <<<"$out")
    echo "$line"
    grep -q "buffer_wrong=0 file_wrong=0 .* calls=$4 " <<<"$line" ||
        { ko "$2: a shape that moves: $line"; return; }
    # the settled gathered runner-up, starred in TACIO_PRINT_CHOICE's table as the trial it was
    [ "$6" = 0 ] || grep -q "^tacio:   \* .* s predicted: trial: .* on the hosts' gathered accesses" \
        <<<"$out" || { ko "$2: the gathered trial's label: $(grep '^tacio:' <<<"$out")"; return; }
    python3 - "$stats" "$5" "$6" <<'PY' && passed=$((passed + 1)) || ko "$2: a shape that moves"
import json, sys
calls, k, settled_case = [json.loads(l) for l in open(sys.argv[1])], int(sys.argv[2]), sys.argv[3] == "1"
for op in ("write_at_all", "read_at_all"):
    c = [x for x in calls if x["op"] == op]
    seq = [(x["trial"], x["reused"], x["node_aggregated"]) for x in c]
    print(op, "(trial, reused, gathered)", seq)
    if op == "write_at_all":  # one fresh start (trial 0, planned), then the new shape's trials
        starts = [i for i in range(k, len(seq)) if seq[i][:2] == (0, 0)]
        assert starts and starts[0] <= k + 1 and starts[0] + 1 not in starts, \
            f"after the shape moved at call {k}: {seq[k:]}"
    if not settled_case:
        continue
    last = k if op == "write_at_all" else len(c) - 1  # the moved write, the last read
    settled = seq[last - 1]
    assert settled[0] >= 2 and settled[2], f"settled on {settled}: not a gathered runner-up"
    for i in range(last - 2, last + 1):
        assert seq[i] == settled, f"call {i} ran {seq[i]}, the choice settled was {settled}"
        assert c[i]["call_us"] == c[i]["move_us"], \
            f"call {i} paid {c[i]['call_us'] - c[i]['move_us']} us for a check of its own"
PY
}
shape_moves_case 64 ior 32768 12 8 1
shape_moves_case 36 btio8 48 14 10 0

# Data-free (bench/smpi/run paper: TACIO_SIM_NODATA=1, no byte copied, sent
# or stored): the same simulated times, stages and plan as the run that
# moves the data, and the ranks' writes cover the file exactly once.
nodata_case() { # NP PATTERN N STRATEGY HINT (the full-data line stays in $full)
    local free
    full=$(sim_line 0 "$@") free=$(sim_line 1 "$@")
    echo "$free"
    grep -q "buffer_wrong=0 file_wrong=0 data=coverage" <<<"$free" || ko "$2 $4 data-free: $free"
    [ -n "$full" ] && [ "${full/data=full/}" = "${free/data=coverage/}" ] &&
        passed=$((passed + 1)) || ko "$2 $4: data-free times differ: $full / $free"
}
nodata_case 64 cube 48 tatp 'cb_config_list=*:1'
nodata_case 36 btio8 24 romio 'cb_config_list=*:2'
nodata_case 36 ior 32768 auto 'cb_config_list=*:1'
# Intra-node aggregation data-free too (its host buffers are the backend's
# scratch): the same times, and the hosts' leaders did gather.
nodata_case 36 btio8 24 romio 'cb_config_list=*:1,tacio_node_aggregation=enable'
grep -q "node_aggregated=1" <<<"$full" && passed=$((passed + 1)) || ko "btio8 node aggregation: $full"
# auto turns it on itself where its model rates the gathered plan faster:
# here messages under 64 KiB cross the links at a hundredth of their rate
# (tacio_bw_factors), so btio's pieces pay for gathering; without the
# factors the same call does not gather. The gathered call plans again on
# the leaders' accesses: its data is checked, data-free too.
nodata_case 36 btio8 48 auto 'cb_config_list=*:1,tacio_bw_factors=0:0.01;65536:1'
grep -q "node_aggregated=1" <<<"$full" && passed=$((passed + 1)) || ko "auto did not gather: $full"
line=$(sim_line 0 36 btio8 48 auto 'cb_config_list=*:1')
grep -q "node_aggregated=0 .*buffer_wrong=0 file_wrong=0" <<<"$line" && passed=$((passed + 1)) ||
    ko "auto gathered without the factors: $line"
# A leader that cannot allocate for auto's gathering (TACIO_FAULT) fails the
# call with its reason, agreed in the second planning pass; smpibench stops
# at the first failed call. Not a hang (timeout), not a result.
line=$(TACIO_FAULT=nodeagg:0:1 sim_out 0 36 btio8 48 auto 'cb_config_list=*:1,tacio_bw_factors=0:0.01;65536:1')
grep -q "write_at_all: .*the host's leader, allocating" <<<"$line" && ! grep -q '^pattern=' <<<"$line" &&
    passed=$((passed + 1)) || ko "auto's gathering with a failed leader: $line"
# Free memory per host from the platform (tacio platform --memory: each
# host's property tacio_mem_free), which every simulated host would
# otherwise read from this machine: mccio sizes each aggregator's window by
# its host's memory, below cb_buffer_size. The data is checked (windows of
# different sizes, several rounds), and the engine's plan is `tacio plan
# --as-engine`'s for the same memory: its aggregators, hop-bytes, busiest
# link and largest window (`tacio plan` alone, on the whole pattern, moves
# mccio's leaves: 1557504 hop-bytes against the engine's 1559672).
memory_case() {
    local np=64 mem=normal:mean=32k,sd=16k,seed=3 dir="$work/mem" line want got
    local hint="cb_buffer_size=1048576,tacio_mem_min=8192,tacio_aggs_per_node=1"
    "$tacio" platform --topology "$topo" --procs "$np" --placement scatter:seed=2 \
        --memory "$mem" --out "$dir" >/dev/null || { ko "tacio platform --memory"; return; }
    rm -f "$work/data.bin"
    line=$(TACIO_HINTS="tacio_topology=$topo,$hint" smpi_on 600 "$dir" "$np" \
        "$smpibench" "$work/data.bin" cube 48 mccio 2>&1 | grep '^pattern=')
    echo "$line"
    grep -q "buffer_wrong=0 file_wrong=0" <<<"$line" || { ko "mccio memory: wrong data: $line"; return; }
    # its FDs (under 300 KB) fit one window of cb_buffer_size: more rounds
    # only if the engine took the plan's smaller windows
    grep -q "rounds=1 " <<<"$line" && { ko "mccio memory: one round, cb_buffer_size's"; return; }
    got="$(grep -o 'naggs=[0-9]*' <<<"$line") $(grep -o 'hop_bytes=[0-9]* max_link_load=[0-9]*' <<<"$line")"
    got+=" $(grep -o 'buffer_bytes=[0-9]*' <<<"$line")"
    want=$("$tacio" plan --pattern cube:n=48 --procs "$np" --topology "$topo" \
        --placement scatter:seed=2 --strategy mccio --memory "$mem" $(sed 's/^/--hint /; s/,/ --hint /g' <<<"$hint") --json --as-engine |
        python3 -c 'import json, sys; d = json.load(sys.stdin)
assert d["max_agg_mem"] < 1048576, "no window below cb_buffer_size"
print("naggs=%d hop_bytes=%d max_link_load=%d buffer_bytes=%d" % (d["naggs"], d["hop_bytes"], d["max_link_load"], d["max_agg_mem"]))')
    [ "$got" = "$want" ] && passed=$((passed + 1)) || ko "mccio memory: engine $got, planner $want"
}
memory_case
# Pipelined rounds (several windows of cb_buffer_size): each window's I/O
# runs on a helper actor of the host (src/exec/backend/simgrid.c), so the
# disk's time overlaps the next round's exchange, as the helper thread's
# does on a real machine: the pipelined write takes less than the same
# write unpipelined, and less than its exchange and I/O stages added up.
# (Unpipelined, the stages of the slowest ranks can add up to more than the
# call: a rank's shuffle stage includes waiting in a round's agreement for
# the aggregator's I/O.) The data is checked, and the data-free runs must
# take the same times.
pipeline_line() { # MODE (enable|disable): sets $full
    nodata_case 64 cube 128 romio "cb_config_list=*:1,cb_buffer_size=1048576,tacio_pipeline=$1"
    grep -q "buffer_wrong=0 file_wrong=0" <<<"$full" || ko "pipeline $1: wrong data"
}
pipeline_line enable
piped=$full
pipeline_line disable
python3 - "$piped" "$full" <<'PY' && passed=$((passed + 1)) || ko "pipelining: $piped / $full"
import sys
on, off = (dict(kv.split("=", 1) for kv in a.split() if "=" in kv) for a in sys.argv[1:])
w, sh, io = (float(on[k]) for k in ("write_s", "write_shuffle_s", "write_io_s"))
print(f"pipelined write {w:.6f} s, unpipelined {float(off['write_s']):.6f} s")
sys.exit(0 if w < 0.95 * float(off["write_s"]) and w < 0.95 * (sh + io) else 1)
PY
# tacio-calibrate --network under SMPI (tacio-smpicalibrate: bench/smpi
# measures auto's model of a platform so) on the scattered tree, whose
# platform file gives node links of 5e9 B/s, uplinks of 2.5e9 and SMPI's
# default bandwidth factors (0.94 of a link from 64 KiB up, 0.34-0.70 below
# 16 KiB): the link and the uplink measured at 0.85-1 of theirs (the
# factor's 0.94 and a 4 MiB message's latency), the factors from 1 MiB down
# never rising, 1 at 64 KiB (as fast as the link's own 4 MiB messages) and
# under 0.8 at the smallest; no storage rate (a POSIX write takes no
# simulated time).
calibrate_case() {
    local cal=$1/bin/tacio-smpicalibrate dir="$work/p64" line
    line=$(smpi_on 300 "$dir" 64 "$cal" --network --topology "$topo" 2>&1 |
        grep '^hosts=')
    echo "$line"
    python3 - "$line" <<'PY' && passed=$((passed + 1)) || ko "calibrate under SMPI: $line"
import sys
model = dict(kv.split("=", 1) for kv in sys.argv[1].split("model=", 1)[1].split(","))
factors = [(int(b), float(f)) for b, f in (x.split(":") for x in model["tacio_bw_factors"].split(";"))]
ok = 0.85 * 5e9 <= float(model["tacio_bw_link"]) <= 5e9
ok &= 0.85 * 2.5e9 <= float(model["tacio_bw_uplink"]) <= 2.5e9
ok &= all(a[1] >= b[1] for a, b in zip(factors, factors[1:]))
ok &= dict(factors)[65536] == 1 and factors[-1][1] < 0.8
ok &= not any(k in model for k in ("tacio_bw_agg_io", "tacio_bw_node_io", "tacio_bw_fs"))
sys.exit(0 if ok else 1)
PY
}
calibrate_case "$1"
report "smpi smoke"
