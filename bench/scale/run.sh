#!/usr/bin/env bash
# The engine at scale under SimGrid SMPI: cube (N^3 doubles, strong
# scaling: per-rank extents shrink as ranks grow) written and read with the
# C API at 512, 1,024 and 4,096 ranks (8 per simulated host), romio and
# tatp, every file checked against the closed form with POSIX reads.
# Prints per case: ranks strategy meta_bytes peak_rss_mib wall_s verified,
# then meta_bytes_ratio_4096_vs_512 per strategy (goal <= 8).
# Small sends are not detached (send-is-detached-thresh:0): SimGrid 3.32
# finishes each detached send with a walk over a list that grows with the
# ranks, which made the simulation, not tacio, superlinear (5x faster at 512
# ranks without them; simulated times barely change).
# The driver is bench/scale/scale.c, built by CMake's tacio-smpi target as
# tacio-smpiscale in BUILD (default build/).
# usage: [BUILD=DIR] bench/scale/run.sh [RANKS...]   (default 512 1024 4096; 4096 takes long)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ranks=("${@:-512 1024 4096}")
[ $# -gt 0 ] || ranks=(512 1024 4096)
command -v smpicc >/dev/null || { echo "bench/scale: needs SimGrid (apt-get install libsimgrid-dev simgrid)"; exit 1; }
build=${BUILD:-$src/build}
[ -f "$build/CMakeCache.txt" ] || cmake -S "$src" -B "$build" -DTACIO_MPI=OFF >/dev/null
cmake --build "$build" --target tacio-smpi >/dev/null
scale=$build/bin/tacio-smpiscale
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
platform() { # HOSTS CORES: a flat cluster and a hostfile with CORES ranks per host
    cat >"$work/cluster.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-$(($1 - 1))" speed="1Gf" core="$2"
           bw="10GBps" lat="1us" bb_bw="40GBps" bb_lat="1us"/>
</platform>
XML
    for ((i = 0; i < $1; i++)); do for ((k = 0; k < $2; k++)); do echo "node-$i"; done; done >"$work/hosts.txt"
}
declare -A meta
for np in "${ranks[@]}"; do
    platform $((np / 8)) 8
    for s in romio tatp; do
        rm -f "$work/cube.dat"
        line=$( { /usr/bin/time -f "TIME %M %e" smpirun -np "$np" -platform "$work/cluster.xml" \
            -hostfile "$work/hosts.txt" --cfg=smpi/privatization:dlopen \
            --cfg=smpi/coll-selector:ompi --cfg=smpi/send-is-detached-thresh:0 \
            "$scale" "$work/cube.dat" 128 "$s"; } 2>&1 |
            grep -E "^ranks=|^TIME" | tr '\n' ' ')
        m=$(sed -n 's/.*meta_bytes=\([0-9]*\).*/\1/p' <<<"$line")
        rss=$(awk '{for (i = 1; i <= NF; i++) if ($i == "TIME") print int($(i + 1) / 1024)}' <<<"$line")
        wall=$(awk '{for (i = 1; i <= NF; i++) if ($i == "TIME") print $(i + 2)}' <<<"$line")
        ok=no
        grep -q "ranks_read_wrong=0 file_elements_wrong=0" <<<"$line" && ok=yes
        meta[$np.$s]=$m
        echo "ranks=$np strategy=$s meta_bytes=$m peak_rss_mib=$rss wall_s=$wall verified=$ok"
    done
done
for s in romio tatp; do
    if [ -n "${meta[4096.$s]:-}" ] && [ -n "${meta[512.$s]:-}" ]; then
        echo "meta_bytes_ratio_4096_vs_512 strategy=$s $(awk -v a="${meta[4096.$s]}" \
            -v b="${meta[512.$s]}" 'BEGIN {printf "%.2f", a / b}')"
    fi
done
