#!/usr/bin/env bash
# Bad input to the tacio command: exit status 2, exactly one line on stderr
# that names the problem, nothing on stdout, no crash, no hang.
set -u
TACIO=$1
DATA=$2
passed=0
failed=0

expect_error() { # expect_error PATTERN-IN-MESSAGE ARGS...
    local want=$1
    shift
    local out err rc
    err=$(mktemp)
    out=$(timeout 20 "$TACIO" "$@" 2>"$err")
    rc=$?
    local lines
    lines=$(wc -l <"$err")
    if [ "$rc" -eq 2 ] && [ -z "$out" ] && [ "$lines" -eq 1 ] &&
        grep -q '^tacio: error: ' "$err" && grep -qi -- "$want" "$err"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: tacio $* -> status $rc, stderr:" && cat "$err"
    fi
    rm -f "$err"
}

T="tree:racks=2,nodes=4,cores=4"
expect_error "expected a command" frobnicate
expect_error "strategies|candidates|patterns|topologies" list
expect_error "strategies|candidates|patterns|topologies" list sizes
expect_error "strategies|candidates|patterns|topologies" list patterns --long
expect_error "struct needs records" plan --pattern struct --procs 8 --topology "$T"
expect_error "required" plan --pattern cube:n=8
expect_error "unknown option" plan --pattern cube:n=8 --procs 8 --topology "$T" --fast
expect_error "needs a value" plan --pattern cube:n=8 --procs
expect_error "unknown pattern" plan --pattern sphere:r=3 --procs 8 --topology "$T"
expect_error "cube number" plan --pattern cube:n=8 --procs 10 --topology "$T"
expect_error "square number" plan --pattern btio:n=8 --procs 10 --topology "$T"
expect_error "unknown parameter" plan --pattern cube:n=8,size=3 --procs 8 --topology "$T"
expect_error "not a number" plan --pattern cube:n=eight --procs 8 --topology "$T"
expect_error "multiple of transfer" plan --pattern ior:block=10,transfer=3 --procs 4 --topology "$T"
expect_error "unknown strategy" plan --pattern cube:n=8 --procs 8 --topology "$T" --strategy best
expect_error "unknown hint" plan --pattern cube:n=8 --procs 8 --topology "$T" --hint cb_node=2
expect_error "cb_buffer_size" plan --pattern cube:n=8 --procs 8 --topology "$T" --hint cb_buffer_size=0
expect_error "BYTES:FACTOR" plan --pattern cube:n=8 --procs 8 --topology "$T" --hint "tacio_bw_factors=65472:0.9;x"
expect_error "each factor above 0" plan --pattern cube:n=8 --procs 8 --topology "$T" --hint "tacio_bw_factors=0:0"
expect_error "each factor above 0" plan --pattern cube:n=8 --procs 8 --topology "$T" --hint "tacio_bw_factors=0:nan"
expect_error "each factor above 0" plan --pattern cube:n=8 --procs 8 --topology "$T" --hint "tacio_bw_factors=0:inf"
expect_error "key=value" plan --pattern cube:n=8 --procs 8 --topology "$T" --hint cb_nodes
expect_error "unknown topology" plan --pattern cube:n=8 --procs 8 --topology torus:x=2
expect_error "slots" plan --pattern cube:n=8 --procs 64 --topology "$T"
expect_error "placement" plan --pattern cube:n=8 --procs 8 --topology "$T" --placement random
expect_error "cannot open" plan --pattern matrix:/nonexistent --topology "$T"
expect_error "row has" plan --pattern "matrix:$DATA/ragged_matrix.txt" --topology "$T"
expect_error "overlap" plan --pattern "extents:$DATA/extents_overlap.txt" --topology "$T"
expect_error "never defined" plan --pattern cube:n=8 --procs 8 --topology "slurm:$DATA/bad_topology.conf"
expect_error "symmetry" plan --pattern "matrix:$DATA/tatp_c.txt" --topology "dist:$DATA/asym_d.txt"
expect_error "6 x 6" plan --pattern cube:n=8 --procs 8 --topology "dist:$DATA/tatp_d.txt"
expect_error "memory spec" plan --pattern cube:n=8 --procs 8 --topology "$T" --memory lots
expect_error "--procs" plan --pattern cube:n=8 --procs 0 --topology "$T"
expect_error "show-cost" plan --pattern cube:n=64 --procs 512 --topology tree:racks=4,nodes=16,cores=8 --show-cost
expect_error "every strategy but auto" plan --pattern cube:n=8 --procs 8 --topology "$T" --strategy auto --as-engine
expect_error "as-engine goes with tacio plan" compare --pattern cube:n=8 --procs 8 --topology "$T" --as-engine

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
