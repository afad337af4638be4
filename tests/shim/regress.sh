#!/usr/bin/env bash
# regress_app (tests/shim/regress_app.c, built without tacio) under
# LD_PRELOAD for each strategy: every case must pass and tacio must serve
# the collectives (TACIO_STATS). Without the shim the same binary runs the
# cases the MPI's own MPI-IO gets right, so a failure under the shim is
# tacio's, not the test's.
# usage: regress.sh LAUNCHER openmpi|mpich APP SHIM DIR NP STRATEGY...
set -u
launcher=$1 kind=$2 app=$3 shim=$4 dir=$5 np=$6
shift 6
. "$(dirname "$0")/../lib.sh"

run() { # run PRELOAD STRATEGY CASE...: the app's verdict and tacio's share
    local pre=$1 strategy=$2 stats="$dir/regress_stats.json" out="$dir/regress_out.txt"
    shift 2
    rm -f "$stats"
    export TACIO_STATS=$stats TACIO_HINTS="tacio_strategy=$strategy,tacio_ranks_per_node=2"
    preload_env "$kind" "$pre" TACIO_STATS TACIO_HINTS
    if timeout 300 "$launcher" "${env[@]}" -n "$np" "$app" "$dir" "$@" >"$out" 2>&1 &&
        grep -q "regress: [0-9]* passed, 0 failed" "$out"; then ok; else
        ko "regress_app (preload='$pre' strategy=$strategy cases=$*):"
        cat "$out"
    fi
    local served=0
    [ -f "$stats" ] && served=$(wc -l <"$stats")
    if [ -n "$pre" ]; then
        [ "$served" -ge 20 ] && ok || ko "$strategy: tacio served $served collectives, expected >= 20"
    else
        [ "$served" = 0 ] && ok || ko "without the shim tacio served $served collectives"
    fi
}

baseline=(status hints split badview excl romiohints sequential)
[ "$kind" = openmpi ] && baseline+=(tile) # OMPIO gets it right, ROMIO does not
prefix=()
[ "$kind" = mpich ] && prefix=(prefix) # ROMIO's file system prefixes: OMPIO has none
run "" romio "${baseline[@]}" "${prefix[@]}"
for s in "$@"; do
    run "$shim" "$s" tile status eof hints split badview excl romiohints info sequential \
        "${prefix[@]}"
done
report
