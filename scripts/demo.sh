#!/usr/bin/env bash
# make demo: the TATP paper's worked example, then every strategy on the
# paper's cube and BTIO benchmarks on its Inspur cluster (4 racks x 20 nodes x
# 12 cores) with a fragmented allocation, planned; then every strategy
# writing and reading a real cube through the shim, each file checked.
# usage: demo.sh TACIO_COMMAND [MPI_BUILD_DIR]
set -euo pipefail
TACIO=${1:-build/bin/tacio}
DATA=$(cd "$(dirname "$0")/../tests/data" && pwd)

echo "== TATP paper, section 4: 6 processes, 3 file domains (C and D from the paper)"
for s in romio tatp; do
    "$TACIO" plan --pattern "matrix:$DATA/tatp_c.txt" --topology "dist:$DATA/tatp_d.txt" \
        --strategy "$s" | sed -n '1p;4,7p;/hop-bytes/p'
done
echo
echo "== cube 2000^3 doubles, 512 ranks, Inspur cluster, scattered allocation"
"$TACIO" compare --pattern cube:n=2000 --procs 512 --topology tree:racks=4,nodes=20,cores=12 \
    --placement scatter:seed=1
echo
echo "== BTIO 2000^3, 625 ranks, same cluster"
"$TACIO" compare --pattern btio:n=2000 --procs 625 --topology tree:racks=4,nodes=20,cores=12 \
    --placement scatter:seed=1
echo
echo "== the engine: a real 128^3 cube of doubles (16 MiB), 8 ranks of Open MPI on virtual"
echo "   hosts of 2 under 2 racks, MPI_File_write_at_all / read_at_all through the shim"
MPIBUILD=${2:-build-openmpi}
demo=$(mktemp -d)
trap 'rm -rf "$demo"' EXIT
stats=${TACIO_DEMO_STATS:-$PWD/tacio-demo-stats.json}
rm -f "$stats"
root=$(dirname "$0")/..
mpicc.openmpi -O2 -I"$root/include" -o "$demo/iobench" "$root/bench/io/iobench.c" \
    "$MPIBUILD/lib/libtacioplan.a" -lpthread -lm # the patterns' closed forms: the planner's
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
file=/dev/shm/tacio-demo.$$.dat
for s in $("$TACIO" list strategies); do # the registry's
    TACIO_STATS=$stats TACIO_HINTS="tacio_strategy=$s,tacio_ranks_per_node=2,tacio_topology=tree:racks=2,nodes=2,cores=2" \
        mpirun.openmpi -x TACIO_STATS -x TACIO_HINTS -x "LD_PRELOAD=$PWD/$MPIBUILD/lib/libtacio_mpiio.so" \
        -n 8 "$demo/iobench" "$file" cube quick 3 >"$demo/$s.out"
done
python3 - "$stats" "$demo" <<'PY'
import json, statistics, sys
stats, demo = sys.argv[1], sys.argv[2]
rows = {}
for line in open(stats):
    j = json.loads(line)
    rows.setdefault(j["strategy"], []).append(j)
print(f"{'strategy':<10} {'hop-bytes':>10} {'off-node':>10} {'max link':>10} {'aggs':>5} "
      f"{'write MiB/s':>12} {'read MiB/s':>11} {'verified':>9}")
for s, calls in rows.items():
    out = {}
    for line in open(f"{demo}/{s}.out"):
        f = dict(kv.split("=", 1) for kv in line.split())
        out[f["op"]] = f
    def mibs(op):
        times = [float(t) for t in out[op]["times"].split(",")]
        return int(out[op]["bytes"]) / 2**20 / statistics.median(times)
    ok = all(out[op]["wrong"] == "0" for op in ("write", "read"))
    m = calls[-1]
    print(f"{s:<10} {m['hop_bytes']:>10} {m['offnode_bytes']:>10} {m['max_link_load']:>10} "
          f"{m['naggs']:>5} {mibs('write'):>12.0f} {mibs('read'):>11.0f} {'yes' if ok else 'NO':>9}")
PY
echo "(stats of every call, one JSON line each: $stats)"
