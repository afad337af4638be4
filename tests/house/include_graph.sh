#!/usr/bin/env bash
# The house's structure: no upward include and no circle of includes
# (scripts/include_graph.py), no circle of calls between files and no call
# into a higher layer (scripts/call_graph.py). Each check passes on the tree
# and fails on a copy with the fault put in.
set -u
src=$1
. "$src/tests/lib.sh"
includes="$src/scripts/include_graph.py" calls="$src/scripts/call_graph.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$includes" "$src" --quiet >/dev/null && ok || ko "the tree's includes"
python3 "$calls" "$src" --quiet >/dev/null && ok || ko "the tree's calls"
copy() { rm -rf "$work/t" && mkdir -p "$work/t" && cp -r "$src/include" "$src/src" "$src/tools" "$work/t/"; }
expect() { # expect SCRIPT PATTERN WHAT: the script fails on the copy, naming PATTERN
    local out
    out=$(python3 "$1" "$work/t" --quiet)
    [ $? -ne 0 ] && grep -q "$2" <<<"$out" && ok || ko "$3 went unnoticed: $out"
}
copy # the planner may not include the engine
sed -i '1i #include "../exec/call.h"' "$work/t/src/plan/fdom.c"
expect "$includes" "upward include: src/plan/fdom.c -> src/exec/call.h" "an upward include"
copy # window includes rounds while rounds includes window: a circle
sed -i '1i #include "rounds.h"' "$work/t/src/exec/window.c"
expect "$includes" "circle: .*rounds.*window" "a circle of includes"
copy # topo.c calling back into a file that calls it: a circle of calls
printf 'int topo_called_back(void)\n{\n    return topo_parse_dist(0, 0);\n}\n' >>"$work/t/src/topo/topo.c"
expect "$calls" "circle of calls: .*topo/slurm.c.*topo/topo.c" "a circle of calls"
copy # the planner calling the engine
printf 'int fdom_up(void)\n{\n    return hints_digest(0);\n}\n' >>"$work/t/src/plan/fdom.c"
expect "$calls" "upward call: src/plan/fdom.c -> src/exec/hints.c" "an upward call"
report house
