#!/usr/bin/env bash
# bench/engine: tacio's collective write/read against the MPI library's own
# (Open MPI's OMPIO) on the same cube, same binary, same run: the baseline
# runs plain, each strategy under LD_PRELOAD. Ranks sit on virtual hosts of
# 4 on a two-rack tree, so topology-aware strategies have a topology to use;
# on one machine that changes plans, not wire times, so the ratios mostly
# measure tacio's overheads. Prints one line per strategy.
# usage: bench/engine/run.sh [BUILD_DIR] [N] [NP] [REPS]
set -euo pipefail
BUILD=${1:-build-openmpi}
N=${2:-192}
NP=${3:-8}
REPS=${4:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
exe="$dir/collbench"
mpicc.openmpi -O2 -o "$exe" "$(dirname "$0")/collbench.c"
run() { # run PRELOAD STRATEGY
    TACIO_HINTS="tacio_strategy=$2,tacio_ranks_per_node=4,tacio_topology=tree:racks=2,nodes=2,cores=4" \
        mpirun.openmpi -x TACIO_HINTS -x "LD_PRELOAD=$1" -n "$NP" "$exe" "$dir/cube.dat" "$N" "$REPS"
}
base=$(run "" romio)
bw=$(echo "$base" | sed -E 's/write_s=([0-9.]+).*/\1/')
br=$(echo "$base" | sed -E 's/.*read_s=([0-9.]+)/\1/')
echo "case=cube n=$N np=$NP impl=mpi write_s=$bw read_s=$br"
for s in romio lustre latp tatp mccio tsujita auto; do
    out=$(run "$PWD/$BUILD/lib/libtacio_mpiio.so" "$s")
    w=$(echo "$out" | sed -E 's/write_s=([0-9.]+).*/\1/')
    r=$(echo "$out" | sed -E 's/.*read_s=([0-9.]+)/\1/')
    python3 -c "print(f'case=cube n=$N np=$NP impl=tacio-$s write_s=$w read_s=$r write_vs_mpi={$w/$bw:.2f} read_vs_mpi={$r/$br:.2f}')"
done
