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
#  - a run stopped early (CPU limit, simulated time) proves a time under
#    the whole run's (bench/smpi's stopped_times), with its plan's floors
#    too (stopped_bound), and at every step of the whole run the time to
#    it plus the floors of the steps after stay under the call's;
#  - bench/smpi --stop-proving stops a run once it proves what was asked.
# usage: smoke.sh SOURCE_DIR TACIO
set -u
src=$1
tacio=$2
topo=tree:racks=4,nodes=20,cores=12
. "$(dirname "$0")/../lib.sh"
command -v smpicc >/dev/null || { echo "FAIL: smpicc not found (scripts/install-deps.sh installs libsimgrid-dev)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O2 -std=gnu11 -I"$src/include" -I"$src/src" \
    -o "$work/smpibench" "$src/bench/smpi/smpibench.c" "$src"/src/exec/*.c "$src"/src/exec/backend/simgrid.c "$src"/src/base/*.c \
    "$src"/src/plan/*.c "$src"/src/plan/strategies/*.c "$src"/src/topo/*.c -lm -lpthread \
    >"$work/build.log" 2>&1 || { cat "$work/build.log"; echo "FAIL: smpicc"; exit 1; }

sim_out() { # NODATA NP PATTERN N STRATEGY HINT: all smpibench prints
    local np=$2 dir="$work/p$2"
    [ -d "$dir" ] || "$tacio" platform --topology "$topo" --procs "$np" \
        --placement scatter:seed=2 --out "$dir" >/dev/null || { ko "tacio platform"; return; }
    rm -f "$work/data.bin"
    TACIO_SIM_NODATA=$1 TACIO_HINTS="tacio_topology=$topo,$6" timeout 600 smpirun -np "$np" \
        -platform "$dir/platform.xml" -hostfile "$dir/hostfile" --cfg=smpi/privatization:dlopen \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi --cfg=network/weight-S:0 \
        "$work/smpibench" "$work/data.bin" "$3" "$4" "$5" 2>&1
}
sim_line() { # NODATA NP PATTERN N STRATEGY HINT: smpibench's line
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
# engine does (tacio_plan_compute_as_engine, which tacio-roundfloor and so
# bench/smpi --certify plan with too): its hop-bytes and busiest link are
# the engine's exactly.
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
# SUMMARY_RUNS runs each, 8 * 52 bytes a rank, into rank 0) only when the
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
    [ -n "$ms" ] && [ $((${ma#*=} - ${ms#*=})) -eq $((8 * 52 * 64)) ] && passed=$((passed + 1)) ||
        ko "auto ask: rank 0's metadata $ms without asking, $ma asking (want $((8 * 52 * 64)) more)"
}
auto_ask_case
# Data-free (bench/smpi --paper: TACIO_SIM_NODATA=1, no byte copied, sent
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
    local hint="cb_buffer_size=1048576,tacio_mem_min=8192,tacio_aggs_per_host=1"
    "$tacio" platform --topology "$topo" --procs "$np" --placement scatter:seed=2 \
        --memory "$mem" --out "$dir" >/dev/null || { ko "tacio platform --memory"; return; }
    rm -f "$work/data.bin"
    line=$(TACIO_HINTS="tacio_topology=$topo,$hint" smpirun -np "$np" -platform "$dir/platform.xml" \
        -hostfile "$dir/hostfile" --cfg=smpi/privatization:dlopen \
        --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:ompi --cfg=network/weight-S:0 \
        "$work/smpibench" "$work/data.bin" cube 48 mccio 2>&1 | grep '^pattern=')
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
# does on a real machine: the write takes less than its exchange and I/O
# stages added up, which unpipelined it cannot. The data is checked, and
# the data-free run must take the same times.
pipeline_case() { # MODE (enable|disable)
    local hint="cb_config_list=*:1,cb_buffer_size=1048576,tacio_pipeline=$1"
    nodata_case 64 cube 128 romio "$hint"
    grep -q "buffer_wrong=0 file_wrong=0" <<<"$full" || { ko "pipeline $1: wrong data"; return; }
    python3 - "$1" "$full" <<'PY' && passed=$((passed + 1)) || ko "pipeline $1: $full"
import sys
mode, line = sys.argv[1], dict(kv.split("=", 1) for kv in sys.argv[2].split() if "=" in kv)
w, sh, io = (float(line[k]) for k in ("write_s", "write_shuffle_s", "write_io_s"))
overlapped = w < 0.95 * (sh + io)
sys.exit(0 if overlapped == (mode == "enable") else 1)
PY
}
pipeline_case enable
pipeline_case disable
# A run stopped early: by its CPU limit (bench/smpi --cpu-limit: SIGXCPU
# at the soft limit), smpibench's handler saying the simulated clock it
# reached; and at a simulated time (--stop-at: TACIO_SIM_STOP_AT's timer),
# which must stop it there without changing it before (the write, done
# by then, takes the whole run's time). What bench/smpi's stopped_times
# proves from each is under the whole run's write + read (cube 1600^3
# data-free at 64 ranks: 10-15 CPU-seconds whole, 11 simulated). The CPU
# limit leaves the setup (every rank's view, 2.5-3 CPU-seconds and more on
# a loaded machine) room to finish: at 3 s the run was sometimes stopped
# before its first call, with nothing to prove; at 6 s it stops in the
# write, about 3 simulated seconds in.
stop_case() {
    local hint='cb_config_list=*:1' out=$work/stop # the outputs: thousands of lines
    sim_out 1 64 cube 1600 romio "$hint" >"$out.full"
    (
        ulimit -St 6
        sim_out 1 64 cube 1600 romio "$hint"
    ) >"$out.cpu"
    TACIO_SIM_STOP_AT=7.5 sim_out 1 64 cube 1600 romio "$hint" >"$out.clock"
    "$tacio-roundfloor" cube:n=1600 64 "$topo" scatter:seed=2 "$hint" tacio_strategy=romio \
        >"$out.loads"
    python3 - "$src" "$out" "$work/p64" <<'PY' && passed=$((passed + 1)) ||
import json, re, sys
src, out, plat = sys.argv[1:]
full, by_cpu, by_clock, loads = (open(f"{out}.{what}").read()
                                 for what in ("full", "cpu", "clock", "loads"))
sys.dont_write_bytecode = True
sys.path.insert(0, src + "/tests/bench")
from paper_summary import load_bench  # bench/smpi/run as a module
bench = load_bench(src)
whole = dict(kv.split("=", 1) for line in full.splitlines() if line.startswith("pattern=")
             for kv in line.split())
total = float(whole["write_s"]) + float(whole["read_s"])
ok = True
for out in (by_cpu, by_clock):
    got = bench.stopped_times(out, out)  # the lines, stdout and stderr as one
    print(f"stopped: {got}, whole run {total:.6f} s")
    ok = ok and bool(got) and 0 < got["at_least_s"] <= min(total, got["stopped_at_s"])
got = bench.stopped_times(by_clock, by_clock)
write = re.search(r"^progress call=write slowest=(\S+)$", by_clock, re.M)
ok = ok and got.get("stopped_at_s") == 7.5 and write is not None and \
    abs(float(write.group(1)) - float(whole["write_s"])) < 1e-6
# the steps' floors (the smoke's tree is bench's inspur): in the whole
# run, at every step rank 0 entered, the time to it plus the floors of
# the steps after stay under the call's time; so do the stopped runs'
# bounds with their plan's floors
loads = json.loads(loads)
ok = ok and loads["plan"]["hop_bytes"] == int(whole["hop_bytes"])
rates = bench.platform_rates(plat)
floors, steps = bench.plan_floors(("inspur",), loads, rates)
for i, call in enumerate(("write", "read")):
    seen = [dict(kv.split("=", 1) for kv in line.split()[1:]) for line in full.splitlines()
            if line.startswith(f"progress call={call} ")]
    start = float(next(p["start"] for p in seen if "start" in p))
    took = float(whole[f"{call}_s"])
    entered = [(int(p["step"]), int(p["steps"]), float(p["entered"])) for p in seen if "step" in p]
    worst = max(e - start + sum(steps[i][k + 1:]) - took for k, _, e in entered)
    print(f"{call}: {len(entered)} steps, the floor after each at most {worst:.6f} s over")
    ok = ok and [k for k, _, _ in entered] == list(range(len(steps[i]))) and \
        all(n == len(steps[i]) for _, n, _ in entered) and worst <= 1e-9
for out in (by_cpu, by_clock):
    bound = bench.stopped_bound(bench.stopped_times(out, out), floors, steps)
    print(f"with the floors: {bound:.6f} s")
    ok = ok and bound <= total
ok = ok and "steps_done_read" in got
sys.exit(0 if ok else 1)
PY
        ko "stopped runs' bounds: $(cat "$out.full" "$out.cpu" "$out.clock" | grep -v INFO | grep -v step= | tail -20)"
}
stop_case
# bench/smpi --stop-proving on the papers' quick job (cube 2000^3 at 64
# ranks, romio at one per host): stopped once its progress proves 10.7 s
# with its plan's floors (10.667 s alone), and what it proves stays under
# the job's stored whole run (docs/figures/paper_runs.jsonl: 11.026 s)
proving_case() {
    local out=$work/proving.jsonl
    "$src/bench/smpi/run" --paper --job inspur-scatter-cube-64 --strategies romio --per-host 1 \
        --stop-proving 10.7 --tacio "$tacio" --results "$out" >"$work/proving.log" 2>&1
    python3 - "$src" "$tacio" "$out" "$work" <<'PY' && passed=$((passed + 1)) ||
import json, sys
src, tacio, out, work = sys.argv[1:]
sys.dont_write_bytecode = True
sys.path.insert(0, src + "/tests/bench")
from paper_summary import load_bench  # bench/smpi/run as a module
bench = load_bench(src)
r = json.loads(open(out).read())
key = bench.PAPER_QUICK[0]
loads, plat = bench.engine_plan(work, tacio, key, "romio", 1)
rates = bench.platform_rates(plat)
floors, steps = bench.plan_floors(key, loads, rates)
whole = [s for s in map(json.loads, open(src + "/docs/figures/paper_runs.jsonl"))
         if bench.by_job([s]).get(key) and s["strategy"] == "romio" and s["aggs_per_host"] == 1
         and not s.get("hints")]
total = float(whole[-1]["write_s"]) + float(whole[-1]["read_s"])
bound = bench.stopped_bound(r, floors, steps)
print(f"--stop-proving 10.7: stopped at {r.get('stopped_at_s')} s, proves {bound:.6f} s "
      f"(floors {sum(floors):.6f}), the whole run {total:.6f} s")
sys.exit(0 if r["status"] == "unfinished" and r["stop_proving_s"] == 10.7
         and 10.7 <= bound <= total and sum(floors) < 10.7 else 1)
PY
        ko "--stop-proving: $(tail -5 "$work/proving.log")"
}
proving_case
report "smpi smoke"
