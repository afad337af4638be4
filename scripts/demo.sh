#!/usr/bin/env bash
# make demo: the TATP paper's worked example, then every strategy on the
# paper's cube and BTIO benchmarks on its Inspur cluster (4 racks x 20 nodes x
# 12 cores) with a fragmented allocation.
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
    --placement scatter:seed=1 --strategies romio,latp,tatp,tsujita,auto
