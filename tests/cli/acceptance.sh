#!/usr/bin/env bash
# The planning core's acceptance checks (issue "Planning core", done when):
#  - cube:n=2000 at 512 ranks and btio:n=2000 at 625 ranks on the TATP paper's
#    Inspur cluster with a scattered allocation: tatp's hop-bytes <= latp's and
#    <= romio's;
#  - 110,592 ranks (cube:n=4800) planned by tatp within 2 GiB.
# How fast they plan is the benchmarks' to say (bench/plan), not a test's:
# this machine is shared and its times vary.
set -u
TACIO=$1
. "$(dirname "$0")/../lib.sh"

compare_case() { # compare_case PATTERN PROCS
    local json
    json=$(timeout 60 "$TACIO" compare --pattern "$1" --procs "$2" \
        --topology tree:racks=4,nodes=20,cores=12 --placement scatter:seed=1 \
        --strategies romio,latp,tatp --json) || { ko "$1: tacio failed"; return; }
    python3 - "$json" "$1" <<'PY' && ok || ko "$1: see above"
import json, sys
plans = {p["strategy"]: p for p in json.loads(sys.argv[1])}
hb = {k: v["hop_bytes"] for k, v in plans.items()}
print(f"{sys.argv[2]}: hop_bytes romio={hb['romio']} latp={hb['latp']} tatp={hb['tatp']}")
sys.exit(0 if hb["tatp"] <= hb["latp"] and hb["tatp"] <= hb["romio"] else 1)
PY
}

compare_case cube:n=2000 512
compare_case btio:n=2000 625

log=$(mktemp)
/usr/bin/time -v "$TACIO" plan --pattern cube:n=4800 --procs 110592 \
    --topology tree:racks=48,nodes=48,cores=48 --placement scatter:seed=1 --strategy tatp \
    --json >/dev/null 2>"$log" || ko "scale run failed"
rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log")
echo "scale: 110592 ranks, peak RSS ${rss} KiB"
if [ -n "$rss" ] && [ "$rss" -le 2097152 ]; then ok; else ko "scale: ${rss} KiB"; fi
rm -f "$log"
report
