#!/usr/bin/env bash
# threads_app (MPI_THREAD_MULTIPLE, three threads per rank on their own
# files) plain and under LD_PRELOAD: it must pass both ways, and tacio must
# serve every thread's collectives (3 threads x 4 rounds x 2 = 24).
# usage: threads.sh LAUNCHER APP SHIM DIR NP  (Open MPI: mpirun -x)
set -u
launcher=$1 app=$2 shim=$3 dir=$4 np=$5
passed=0 failed=0
for pre in "" "$shim"; do
    rm -f "$dir/threads_stats.json"
    if timeout 300 "$launcher" -x TACIO_STATS="$dir/threads_stats.json" -x LD_PRELOAD="$pre" \
        -x TACIO_HINTS=tacio_strategy=tatp,tacio_ranks_per_node=1 -n "$np" "$app" "$dir" \
        >"$dir/threads_out.txt" 2>&1 && grep -q "threads: [0-9]* passed, 0 failed" \
        "$dir/threads_out.txt"; then passed=$((passed + 1)); else
        failed=$((failed + 1)) && echo "FAIL: threads_app (preload='$pre'):" &&
            cat "$dir/threads_out.txt"
    fi
    served=0
    [ -f "$dir/threads_stats.json" ] && served=$(wc -l <"$dir/threads_stats.json")
    want=0
    [ -n "$pre" ] && want=24
    if [ "$served" = "$want" ]; then passed=$((passed + 1)); else
        failed=$((failed + 1)) && echo "FAIL: tacio served $served collectives, expected $want"
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
