#!/usr/bin/env bash
# Real workloads through the shim: parallel HDF5 (h5pcc of this MPI) and
# PnetCDF (where Debian's libpnetcdf is built against this MPI) programs from
# tests/apps, run once without tacio for the reference file, then under
# LD_PRELOAD for each strategy. Each run must pass the program's own checks
# (every element read back), tacio must serve collectives (TACIO_STATS), and
# the file must equal the reference (h5diff; ncmpidiff and cmp).
# usage: run.sh hdf5|pnetcdf LAUNCHER openmpi|mpich SHIM DIR NP STRATEGY...
# PnetCDF's case is skipped (exit 77) with the MPI Debian did not build it for.
# TACIO_EXTRA_HINTS=k=v,... adds hints to every tacio run (e.g.
# tacio_node_aggregation=enable: ctest -R mpi.shim.apps with it set).
set -u
app=$1 launcher=$2 kind=$3 shim=$4 dir=$5 np=$6
shift 6
here=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/../lib.sh"

run() { # run NAME EXE FILE PRELOAD STRATEGY: sets $served
    local name=$1 exe=$2 file=$3 pre=$4 stats="$dir/apps_stats.json" out="$dir/apps_out.txt"
    rm -f "$stats" "$file"
    export TACIO_STATS=$stats
    strategy_env "$5" "$dir" "${TACIO_EXTRA_HINTS:-}"
    preload_env "$kind" "$pre" TACIO_STATS TACIO_HINTS TACIO_WISDOM
    if timeout 300 "$launcher" "${env[@]}" -n "$np" "$exe" "$file" >"$out" 2>&1 &&
        grep -q "$name: [0-9]* passed, 0 failed" "$out"; then ok; else
        ko "$name (preload='$pre' strategy=$5):" && cat "$out"
    fi
    served=0
    [ -f "$stats" ] && served=$(wc -l <"$stats")
}

workload() { # workload NAME EXE SUFFIX DIFF...
    local name=$1 exe=$2 ref="$dir/$1_ref.$3" out="$dir/$1_tacio.$3"
    shift 3
    run "$name" "$exe" "$ref" "" romio
    [ "$served" = 0 ] && ok || ko "$name without the shim: tacio served $served calls"
    for s in $strategies; do
        rm -f "$dir/wisdom.txt"
        run_compared "$name" "$exe" "$ref" "$out" "$s" "$@"
        [ "$s" = auto+wisdom ] || continue
        # no shape repeats within a run: the second run times the default, and the
        # third starts at the faster of the two on every call
        run_compared "$name" "$exe" "$ref" "$out" "$s" "$@"
        run_compared "$name" "$exe" "$ref" "$out" "$s" "$@"
        local learned planned
        learned=$(learned_calls "$dir/apps_stats.json")
        planned=$(planned_calls "$dir/apps_stats.json")
        [ "$learned" = "$planned" ] && [ "$planned" -gt 0 ] && ok ||
            ko "$name $s: the third run planned $learned of its $planned calls from the wisdom file"
    done
}

run_compared() { # run_compared NAME EXE REF OUT STRATEGY DIFF...
    local name=$1 exe=$2 ref=$3 out=$4 s=$5
    shift 5
    run "$name" "$exe" "$out" "$shim" "$s"
    [ "$served" -gt 0 ] && ok || ko "$name $s: tacio served no collective"
    if "$@" "$ref" "$out" >"$dir/apps_diff.txt" 2>&1; then ok; else
        ko "$name $s: $* differs from the run without tacio:" && cat "$dir/apps_diff.txt"
    fi
}

strategies="$*"
hdf5() {
    if "h5pcc.$kind" $TEST_CFLAGS -o "$dir/hdf5_app.$kind" "$here/hdf5_app.c" >"$dir/apps_build.txt" 2>&1; then
        workload hdf5 "$dir/hdf5_app.$kind" h5 h5diff
    else
        ko "h5pcc.$kind hdf5_app.c:" && cat "$dir/apps_build.txt"
    fi
}
pnetcdf() {
    local pnc
    pnc=$(pnetcdf_mpi)
    [ "$kind" = "$pnc" ] || skip "PnetCDF is built against $pnc here, not $kind"
    if "mpicc.$kind" $TEST_CFLAGS -o "$dir/pnetcdf_app.$kind" "$here/pnetcdf_app.c" -lpnetcdf \
        >"$dir/apps_build.txt" 2>&1; then
        workload pnetcdf "$dir/pnetcdf_app.$kind" nc ncmpidiff
        workload pnetcdf "$dir/pnetcdf_app.$kind" nc cmp
    else
        ko "pnetcdf_app.c:" && cat "$dir/apps_build.txt"
    fi
}
case $app in
hdf5 | pnetcdf) $app ;;
*) ko "unknown application '$app': expected hdf5 or pnetcdf" ;;
esac
report "$app"
