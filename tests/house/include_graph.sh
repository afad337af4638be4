#!/usr/bin/env bash
# The include-graph check passes on the tree, and fails on a copy with an
# upward include and on one with a circle between two rooms.
set -u
src=$1
script="$src/scripts/include_graph.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
python3 "$script" "$src" --quiet >/dev/null || { echo "FAIL: the tree itself"; fail=1; }
copy() { rm -rf "$work/t" && mkdir -p "$work/t" && cp -r "$src/include" "$src/src" "$src/tools" "$work/t/"; }
copy # the planner may not include the engine
sed -i '1i #include "../exec/call.h"' "$work/t/src/plan/fdom.c"
out=$(python3 "$script" "$work/t" --quiet)
{ [ $? -ne 0 ] && grep -q "upward include: src/plan/fdom.c -> src/exec/call.h" <<<"$out"; } ||
    { echo "FAIL: an upward include went unnoticed: $out"; fail=1; }
copy # window includes rounds while rounds includes window: a circle
sed -i '1i #include "rounds.h"' "$work/t/src/exec/window.c"
out=$(python3 "$script" "$work/t" --quiet)
{ [ $? -ne 0 ] && grep -q "circle: .*rounds.*window" <<<"$out"; } ||
    { echo "FAIL: a circle went unnoticed: $out"; fail=1; }
[ $fail = 0 ] && echo "include_graph: 3 checks passed"
exit $fail
