#!/usr/bin/env bash
# Adding a strategy is one file plus one registry line: copy the sources,
# add a toy strategy that way, build the tacio command, and check that the
# CLI's usage, compare's default list, the hint's error message and plan
# all know it. Usage: toy_strategy.sh SOURCE_DIR
set -eu
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -C "$src" --exclude='./build*' --exclude=./.git -cf - . | tar -C "$work" -xf -
cat >"$work/src/plan/strategies/toy.c" <<'C'
/* toy: ROMIO's file domains, every one served by the last rank. */
#include "../strategy.h"

static int assign_last(const struct plan_ctx *ctx, struct partition *part, const struct cmatrix *c,
                       struct tacio_plan *plan)
{
    (void)ctx;
    for (int j = 0; j < part->n; j++)
        plan->agg[j] = c->p - 1;
    return 0;
}

const struct tacio_strategy strategy_toy = {
    .name = "toy",
    .summary = "a test's: ROMIO's FDs, all on the last rank",
    .partition = partition_romio,
    .assign = assign_last,
};
C
echo 'STRATEGY(toy)' >>"$work/src/plan/strategies/list.h"
cmake -S "$work" -B "$work/b" -DTACIO_MPI=OFF >/dev/null
cmake --build "$work/b" --target tacio -j2 >/dev/null
tacio=$work/b/bin/tacio
. "$src/tests/lib.sh"
check() { if eval "$2"; then ok && echo "ok: $1"; else ko "$1"; fi; }
job=(--pattern cube:n=16 --procs 8 --topology tree:racks=2,nodes=2,cores=2)
check "usage lists toy" '"$tacio" --help | grep -q "^strategies:.* toy$"'
check "plan with toy: every FD on rank 7" \
    '"$tacio" plan "${job[@]}" --strategy toy | awk "/^ +[0-9]+ +[0-9]+ +[0-9]+/ {n++; if (\$5 != 7) bad=1} END {exit !(n > 0 && !bad)}"'
check "compare lists toy by default" '"$tacio" compare "${job[@]}" | grep -q "^toy "'
check "an unknown strategy's error names toy" \
    '"$tacio" plan "${job[@]}" --strategy best 2>&1 | grep -q "expected one of .*auto, toy"'
report toy_strategy
