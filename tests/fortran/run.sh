#!/usr/bin/env bash
# Fortran programs (tests/fortran, `use mpi` and `use mpi_f08`), built by
# the MPI's own mpif90, under LD_PRELOAD: each must pass its own checks (a
# POSIX-style stream read of the file) and tacio must serve its nine
# collectives (TACIO_STATS), for each strategy; plain, tacio must serve none.
# usage: run.sh LAUNCHER openmpi|mpich SHIM DIR NP STRATEGY...
set -u
launcher=$1 kind=$2 shim=$3 dir=$4 np=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"

run() { # run APP PRELOAD STRATEGY EXPECTED_SERVED
    local app=$1 pre=$2 stats="$dir/fortran_stats.json" out="$dir/fortran_out.txt"
    rm -f "$stats"
    export TACIO_STATS=$stats
    strategy_env "$3" "$dir"
    preload_env "$kind" "$pre" TACIO_STATS TACIO_HINTS TACIO_WISDOM
    if timeout 120 "$launcher" "${env[@]}" -n "$np" "$app" "$dir/fortran.dat" >"$out" 2>&1 &&
        grep -q "fortran: [0-9]* passed, 0 failed" "$out"; then ok; else
        ko "$(basename "$app") (preload='$pre' strategy=$3):" && cat "$out"
    fi
    local served=0
    [ -f "$stats" ] && served=$(wc -l <"$stats")
    [ "$served" = "$4" ] && ok || ko "$(basename "$app") $3: tacio served $served calls, expected $4"
}

for src in fortran_app fortran_app_f08; do
    exe="$dir/$src.$kind"
    if ! "mpif90.$kind" -o "$exe" "$here/$src.f90" >"$dir/fortran_build.txt" 2>&1; then
        ko "mpif90.$kind $src.f90:" && cat "$dir/fortran_build.txt"
        continue
    fi
    run "$exe" "" romio 0
    for s in "$@"; do run "$exe" "$shim" "$s" 9; done
    # auto with a wisdom file, three runs: the pick, the default, then the faster
    rm -f "$dir/wisdom.txt"
    for i in 1 2 3; do run "$exe" "$shim" auto+wisdom 9; done
    learned=$(learned_calls "$dir/fortran_stats.json")
    planned=$(planned_calls "$dir/fortran_stats.json")
    [ "$learned" = "$planned" ] && [ "$planned" -gt 0 ] && ok ||
        ko "$(basename "$exe") auto+wisdom: the third run planned $learned of its $planned calls from the wisdom file"
done
report
