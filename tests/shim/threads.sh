#!/usr/bin/env bash
# threads_app (MPI_THREAD_MULTIPLE, three threads per rank on their own
# files) plain and under LD_PRELOAD: it must pass both ways, and tacio must
# serve every thread's collectives (3 threads x 4 rounds x 2 = 24).
# usage: threads.sh LAUNCHER APP SHIM DIR NP  (Open MPI only)
set -u
launcher=$1 app=$2 shim=$3 dir=$4 np=$5
. "$(dirname "$0")/../lib.sh"
for pre in "" "$shim"; do
    rm -f "$dir/threads_stats.json"
    preload_env openmpi "$pre" TACIO_STATS="$dir/threads_stats.json" \
        TACIO_HINTS=tacio_strategy=tatp,tacio_ranks_per_node=1
    [ -z "$pre" ] && env=(-x TACIO_STATS="$dir/threads_stats.json")
    if timeout 300 "$launcher" "${env[@]}" -n "$np" "$app" "$dir" \
        >"$dir/threads_out.txt" 2>&1 && grep -q "threads: [0-9]* passed, 0 failed" \
        "$dir/threads_out.txt"; then ok; else
        ko "threads_app (preload='$pre'):" && cat "$dir/threads_out.txt"
    fi
    served=0
    [ -f "$dir/threads_stats.json" ] && served=$(wc -l <"$dir/threads_stats.json")
    want=0
    [ -n "$pre" ] && want=24
    [ "$served" = "$want" ] && ok || ko "tacio served $served collectives, expected $want"
done
report
