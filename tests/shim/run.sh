#!/usr/bin/env bash
# An unmodified MPI-IO program with and without LD_PRELOAD=libtacio_mpiio.so,
# for each strategy: the program's own POSIX check must pass every time, and
# TACIO_STATS must show tacio served the collectives exactly when preloaded
# (and not with TACIO_DISABLE=1).
# usage: run.sh LAUNCHER openmpi|mpich APP SHIM DIR NP STRATEGY...
set -u
launcher=$1 kind=$2 app=$3 shim=$4 dir=$5 np=$6
shift 6
. "$(dirname "$0")/../lib.sh"

served=0
run_app() { # run_app PRELOAD(yes/no) DISABLE(0/1) STRATEGY; sets $served (-1: the app failed)
    local stats="$dir/shim_stats.json" file="$dir/shim_app.dat" pre=""
    rm -f "$stats" "$file"
    [ "$1" = yes ] && pre=$shim
    export TACIO_STATS=$stats TACIO_DISABLE=$2
    export TACIO_HINTS="tacio_strategy=$3,tacio_ranks_per_node=2,cb_buffer_size=3000"
    preload_env "$kind" "$pre" TACIO_STATS TACIO_DISABLE TACIO_HINTS
    served=-1
    if timeout 120 "$launcher" "${env[@]}" -n "$np" "$app" "$file" 12 >"$dir/shim_out.txt" 2>&1 &&
        grep -q "app: [0-9]* passed, 0 failed" "$dir/shim_out.txt"; then
        ok
        served=0
        [ -f "$stats" ] && served=$(wc -l <"$stats")
    else
        ko "app failed (preload=$1 disable=$2 strategy=$3):"
        cat "$dir/shim_out.txt"
    fi
}

for s in "$@"; do
    run_app no 0 "$s"
    [ "$served" = 0 ] && ok || ko "$s: without LD_PRELOAD tacio served $served calls"
    run_app yes 0 "$s"
    [ "$served" = 3 ] && ok || ko "$s: with LD_PRELOAD tacio served $served calls, expected 3"
    run_app yes 1 "$s"
    [ "$served" = 0 ] && ok || ko "$s: TACIO_DISABLE=1 still served $served calls"
done
# Hints from a ROMIO_HINTS file, reported by TACIO_PRINT_HINTS; the program's
# own info (none here) and TACIO_HINTS would override it.
printf 'tacio_strategy tsujita\ncb_nodes 64\nromio_cb_write enable\n# a comment\n' >"$dir/hints.txt"
export ROMIO_HINTS=$dir/hints.txt TACIO_PRINT_HINTS=1 TACIO_HINTS=tacio_ranks_per_node=2
preload_env "$kind" "$shim" ROMIO_HINTS TACIO_PRINT_HINTS TACIO_HINTS
export TACIO_DISABLE=0
timeout 120 "$launcher" "${env[@]}" -n "$np" "$app" "$dir/shim_app.dat" 12 >"$dir/shim_out.txt" 2>&1
if grep -q "tacio_strategy=tsujita" "$dir/shim_out.txt" && grep -q "clamped" "$dir/shim_out.txt" &&
    grep -q "app: [0-9]* passed, 0 failed" "$dir/shim_out.txt"; then ok; else
    ko "hints file / TACIO_PRINT_HINTS:" && cat "$dir/shim_out.txt"
fi
# A TACIO_HINTS value with commas of its own (a topology spec) is one item:
# the topology's hosts must match the job's, or the open fails. The virtual
# hosts share one machine's name, so they are placed in the tree's order,
# and TACIO_PRINT_HINTS says so.
hosts=$(((np + 1) / 2))
export TACIO_HINTS="tacio_ranks_per_node=2,tacio_topology=tree:racks=1,nodes=$hosts,cores=2,tacio_strategy=tatp"
export ROMIO_HINTS=/dev/null
preload_env "$kind" "$shim" ROMIO_HINTS TACIO_PRINT_HINTS TACIO_HINTS
timeout 120 "$launcher" "${env[@]}" -n "$np" "$app" "$dir/shim_app.dat" 12 >"$dir/shim_out.txt" 2>&1
if grep -q "tacio_strategy=tatp" "$dir/shim_out.txt" &&
    grep -q "tacio_topology=tree:racks=1,nodes=$hosts,cores=2" "$dir/shim_out.txt" &&
    grep -q "hosts=$hosts .*placement=order" "$dir/shim_out.txt" &&
    grep -q "app: [0-9]* passed, 0 failed" "$dir/shim_out.txt"; then ok; else
    ko "TACIO_HINTS with a comma-separated topology:" && cat "$dir/shim_out.txt"
fi
report
