#!/usr/bin/env bash
# One parser harness: every input of its corpus (the seeds, and each input
# that once failed), then SECONDS of libFuzzer's own inputs grown from a
# copy of it. Prints
#   parsers: NAME execs=N cov=C cov_at_half=H features=F corpus=K seconds=S crashes=0
# (cov: edges covered at the end; H: after half the executions)
# and fails on any crash, sanitizer report, leak, timeout or out-of-memory
# (the input is left as WORK/crash-*, to add to the corpus once fixed).
# usage: run.sh HARNESS CORPUS SECONDS WORK
set -u
harness=$1 corpus=$2 seconds=$3 work=$4
name=$(basename "$harness")
name=${name#fuzz_}
rm -rf "$work" && mkdir -p "$work/corpus" || exit 1
# Allocations above 1 GiB fail as on a machine without the memory (the
# parsers must answer ENOMEM); anything else a sanitizer sees stops the run.
export ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1
# (what MPI_Init keeps for the process's life is the MPI's: fuzz_hints)
export LSAN_OPTIONS=suppressions=$(dirname "$0")/mpi.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
flags=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -max_len=4096
    -artifact_prefix="$work/" -print_final_stats=1)

"$harness" "${flags[@]}" -runs=0 "$corpus" >"$work/replay.log" 2>&1 ||
    { tail -30 "$work/replay.log"; echo "FAIL: parsers: $name: an input of $corpus fails"; exit 1; }
cp "$corpus"/* "$work/corpus/"
"$harness" "${flags[@]}" -max_total_time="$seconds" "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
stat() { grep -o "^stat::$1: *[0-9]*" "$work/fuzz.log" | grep -o '[0-9]*$' | tail -1; }
cov=$(grep -o 'cov: [0-9]*' "$work/fuzz.log" | tail -1 | cut -d' ' -f2)
# the coverage after half of the executions: equal to the last is a plateau
half=$(awk -v n="$(stat number_of_executed_units)" \
    '/^#[0-9]+/ && /cov: / { e = substr($1, 2) + 0; if (e <= n / 2) { for (i = 1; i < NF; i++) if ($i == "cov:") c = $(i + 1) } } END { print c + 0 }' \
    "$work/fuzz.log")
ft=$(grep -o 'ft: [0-9]*' "$work/fuzz.log" | tail -1 | cut -d' ' -f2)
crashes=$(find "$work" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' \
    -o -maxdepth 1 -name 'timeout-*' -o -maxdepth 1 -name 'oom-*' | wc -l)
echo "parsers: $name execs=$(stat number_of_executed_units) cov=${cov:-0} cov_at_half=$half features=${ft:-0}" \
    "corpus=$(ls "$work/corpus" | wc -l) seconds=$seconds crashes=$crashes"
if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    grep -B2 -A25 -m1 'ERROR\|runtime error\|==ERROR\|deadly signal' "$work/fuzz.log" | head -60
    echo "FAIL: parsers: $name: see $work"
    exit 1
fi
