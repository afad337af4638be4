#!/usr/bin/env bash
# Golden tests: tacio's output on fixed specs against checked-in files.
# Timing fields are blanked. `golden.sh TACIO DATA --update` rewrites them
# (review the diff before committing).
set -u
TACIO=$1
DATA=$2
UPDATE=${3:-}
DIR=$(cd "$(dirname "$0")" && pwd)/golden
passed=0
failed=0

normalise() {
    sed -E -e 's/"plan_seconds":[0-9.e+-]+/"plan_seconds":T/g' -e '/^plan seconds:/d' \
        -e 's/(model [0-9.e+-]+ s)/model M s/'
}

case_() { # case_ NAME ARGS...
    local name=$1
    shift
    local got
    got=$(cd "$DATA" && timeout 60 "$TACIO" "$@" 2>&1 | normalise)
    if [ "$UPDATE" = "--update" ]; then
        printf '%s\n' "$got" >"$DIR/$name.out"
    fi
    if [ -f "$DIR/$name.out" ] && diff -u "$DIR/$name.out" <(printf '%s\n' "$got") >/dev/null; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $name (tacio $*)"
        diff -u "$DIR/$name.out" <(printf '%s\n' "$got") | head -40
    fi
}

case_ tatp_example_romio plan --pattern matrix:tatp_c.txt --topology dist:tatp_d.txt --strategy romio
case_ tatp_example_tatp plan --pattern matrix:tatp_c.txt --topology dist:tatp_d.txt \
    --strategy tatp --show-cost
case_ tatp_tree_compare compare --pattern matrix:tatp_c.txt \
    --topology slurm:tatp_topology.conf,cores=2 --json
case_ cube_tsujita plan --pattern cube:n=16 --procs 8 --topology tree:racks=2,nodes=2,cores=2 \
    --placement scatter:seed=3 --strategy tsujita --hint striping_unit=4k --json
case_ ior_mccio plan --pattern ior:block=1m,transfer=256k,segments=2 --procs 16 \
    --topology fattree:k=4,cores=2 --strategy mccio --memory normal:mean=64m,sd=24m,seed=5 \
    --hint tacio_msg_ind=2m --hint tacio_mem_min=48m
case_ btio_compare compare --pattern btio:n=60 --procs 36 --topology tree:racks=3,nodes=4,cores=4 \
    --placement scatter:seed=2 --strategies romio,latp,tatp,auto --json
case_ collperf_lustre plan --pattern collperf:n=40 --procs 12 --topology flat:nodes=6,cores=2 \
    --strategy lustre --hint striping_unit=64k --hint striping_factor=4
case_ mesh_latp plan --pattern mesh:elems=4000,seed=9 --procs 12 --topology flat:nodes=3,cores=4 \
    --placement cyclic --strategy latp --hint cb_config_list=*:2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
