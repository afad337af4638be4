#!/usr/bin/env bash
# The planning core's acceptance checks (issue "Planning core", done when):
#  - cube:n=2000 at 512 ranks and btio:n=2000 at 625 ranks on the TATP paper's
#    Inspur cluster with a scattered allocation: tatp's hop-bytes <= latp's and
#    <= romio's, each compare answered in under 2 s;
#  - 110,592 ranks (cube:n=4800) planned by tatp in <= 5 s and <= 2 GiB.
set -u
TACIO=$1
passed=0
failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }

compare_case() { # compare_case PATTERN PROCS
    local t0 t1 json
    t0=$(date +%s.%N)
    json=$(timeout 60 "$TACIO" compare --pattern "$1" --procs "$2" \
        --topology tree:racks=4,nodes=20,cores=12 --placement scatter:seed=1 \
        --strategies romio,latp,tatp --json) || { ko "$1: tacio failed"; return; }
    t1=$(date +%s.%N)
    python3 - "$json" "$1" "$t0" "$t1" <<'PY' && ok || ko "$1: see above"
import json, sys
plans = {p["strategy"]: p for p in json.loads(sys.argv[1])}
hb = {k: v["hop_bytes"] for k, v in plans.items()}
secs = float(sys.argv[4]) - float(sys.argv[3])
print(f"{sys.argv[2]}: hop_bytes romio={hb['romio']} latp={hb['latp']} tatp={hb['tatp']} "
      f"wall={secs:.2f}s")
sys.exit(0 if hb["tatp"] <= hb["latp"] and hb["tatp"] <= hb["romio"] and secs < 2.0 else 1)
PY
}

compare_case cube:n=2000 512
compare_case btio:n=2000 625

log=$(mktemp)
/usr/bin/time -v "$TACIO" plan --pattern cube:n=4800 --procs 110592 \
    --topology tree:racks=48,nodes=48,cores=48 --placement scatter:seed=1 --strategy tatp \
    --json >/dev/null 2>"$log" || ko "scale run failed"
wall=$(awk -F': ' '/Elapsed/ {print $2}' "$log")
rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$log")
secs=$(echo "$wall" | awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
echo "scale: 110592 ranks, wall ${secs}s, peak RSS ${rss} KiB"
if awk -v s="$secs" -v r="$rss" 'BEGIN { exit !(s <= 5.0 && r <= 2097152) }'; then ok; else
    ko "scale: ${secs}s, ${rss} KiB"
fi
rm -f "$log"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
