#!/usr/bin/env bash
# bench/io's programs, small, so that what the benches report rests on
# checked code: iobench (the patterns through this MPI's own MPI-IO, every
# file and read checked against the closed form, and the parallel POSIX
# ceiling measured after them), and, where Debian's PnetCDF is built
# against this MPI, varn through tacio's list API and through the GIO-style
# baseline (bench/io/gio.c) at one, two and every rank aggregating: the
# program checks the file with POSIX reads and every value read back; and
# an aggregator count past the ranks is refused with a message; and
# bench/io/versus, which compares two builds' auto run by run.
# usage: programs.sh SOURCE_DIR BUILD_DIR LAUNCHER openmpi|mpich DIR
set -u
src=$1 build=$2 launcher=$3 kind=$4 dir=$5
. "$(dirname "$0")/../lib.sh"
np=3

# field LINE KEY: the value of KEY= in a key=value line
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"; }

iobench() {
    # Open MPI 4.1.4's OMPIO writes struct wrong at 3 ranks (docs/field-notes.md):
    # its romio321 serves the plain runs (MPICH's launcher ignores the variable)
    export OMPI_MCA_io=romio321
    local exe=$dir/iobench.$kind out=$dir/iobench_out.txt
    if ! "mpicc.$kind" -O2 $TEST_CFLAGS -o "$exe" "$src/bench/io/iobench.c" -I"$src/include" \
        "$build/lib/libtacioplan.a" -lpthread -lm >"$out" 2>&1; then
        ko "building iobench:" && cat "$out" && return
    fi
    local pattern line
    for pattern in cube struct; do
        if ! timeout 300 "$launcher" -n $np "$exe" "$dir/iobench.dat" "$pattern" 16 2 >"$out" 2>&1; then
            ko "iobench $pattern:" && cat "$out" && continue
        fi
        for op in write read; do
            line=$(grep "^pattern=$pattern op=$op " "$out")
            [ "$(field "$line" wrong)" = 0 ] && ok || ko "iobench $pattern $op: $line"
            # a ceiling was measured: a positive time
            awk -v c="$(field "$line" ceiling)" 'BEGIN { exit !(c > 0) }' && ok ||
                ko "iobench $pattern $op: no ceiling in '$line'"
        done
    done
}

varn() {
    local exe=$dir/varn.$kind out=$dir/varn_out.txt
    [ "$kind" = "$(pnetcdf_mpi)" ] || return 0 # PnetCDF is built against the other MPI here
    if ! "mpicc.$kind" -O2 $TEST_CFLAGS -o "$exe" "$src/bench/io/varn.c" "$src/bench/io/gio.c" \
        -I"$src/include" -lpnetcdf -L"$build/lib" -ltacio -Wl,-rpath,"$build/lib" >"$out" 2>&1; then
        ko "building varn:" && cat "$out" && return
    fi
    local how line
    for how in list gio gio:2 gio:$np; do
        if ! timeout 300 "$launcher" -n $np "$exe" "$dir/varn.nc" 3000 1 "$how" >"$out" 2>&1; then
            ko "varn $how:" && cat "$out" && continue
        fi
        line=$(grep "^varn " "$out")
        [ "$(field "$line" wrong)" = 0 ] && ok || ko "varn $how: $line"
    done
    if timeout 300 "$launcher" -n $np "$exe" "$dir/varn.nc" 3000 1 "gio:$((np + 1))" >"$out" 2>&1; then
        ko "varn gio:$((np + 1)) ran with more aggregators than ranks"
    else
        grep -q "1 to $np aggregators" "$out" && ok || { ko "varn gio:$((np + 1)):" && cat "$out"; }
    fi
    rm -f "$dir/varn.nc"
}

# bench/io/versus, this tree against itself (one pair, two calls): a line
# per direction with its ratio; a base that was not built is refused. Only
# where this build is the one bench/io runs (build-openmpi, build-mpich).
versus() {
    [ "$(cd "$build" && pwd)" = "$(cd "$src" && pwd)/build-$kind" ] || return 0
    local out=$dir/versus_out.txt line op
    if ! timeout 300 "$src/bench/io/versus" --base "$src" --mpi "$kind" --ranks 2 \
        --patterns cube --calls 2 --pairs 1 --dir "$dir" >"$out" 2>&1; then
        ko "bench/io/versus:" && cat "$out" && return
    fi
    for op in write read; do
        line=$(grep "^versus .* op=$op " "$out")
        awk -v r="$(field "$line" base_over_this)" 'BEGIN { exit !(r > 0) }' &&
            [ "$(field "$line" pairs)" = 1 ] && ok || ko "bench/io/versus $op: '$line'"
    done
    if "$src/bench/io/versus" --base "$dir/no-such-tree" --mpi "$kind" >"$out" 2>&1; then
        ko "bench/io/versus ran against a base that does not exist"
    else
        grep -q "no-such-tree/build-$kind/.* is missing" "$out" && ok || { ko "versus:" && cat "$out"; }
    fi
}

iobench
varn
versus
report "bench programs"
