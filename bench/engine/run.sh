#!/usr/bin/env bash
# bench/engine: tacio's collective write/read against the MPI library's own
# on the same cube, same binary, same run: Open MPI's default OMPIO and its
# ROMIO (--mca io romio321) run plain, each tacio strategy under LD_PRELOAD;
# ratios are against OMPIO (and ROMIO). Ranks sit on virtual hosts of
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
run() { # run PRELOAD STRATEGY [IO_COMPONENT]
    TACIO_HINTS="tacio_strategy=$2,tacio_ranks_per_node=4,tacio_topology=tree:racks=2,nodes=2,cores=4" \
        mpirun.openmpi --mca io "${3:-ompio}" -x TACIO_HINTS -x "LD_PRELOAD=$1" -n "$NP" "$exe" \
        "$dir/cube.dat" "$N" "$REPS"
}
field() { echo "$1" | sed -E "s/.*$2=([0-9.]+).*/\1/"; }
ompio=$(run "" romio ompio)
romio=$(run "" romio romio321)
ow=$(field "$ompio" write_s) or=$(field "$ompio" read_s)
rw=$(field "$romio" write_s) rr=$(field "$romio" read_s)
echo "case=cube n=$N np=$NP impl=mpi-ompio write_s=$ow read_s=$or"
echo "case=cube n=$N np=$NP impl=mpi-romio write_s=$rw read_s=$rr"
for s in romio lustre latp tatp mccio tsujita auto; do
    out=$(run "$PWD/$BUILD/lib/libtacio_mpiio.so" "$s")
    w=$(field "$out" write_s) r=$(field "$out" read_s)
    python3 -c "print(f'case=cube n=$N np=$NP impl=tacio-$s write_s=$w read_s=$r '
                      f'write_vs_ompio={$w/$ow:.2f} read_vs_ompio={$r/$or:.2f} '
                      f'write_vs_romio={$w/$rw:.2f} read_vs_romio={$r/$rr:.2f}')"
done
