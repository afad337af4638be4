#!/usr/bin/env bash
# `cmake --install` of a build tree into a scratch prefix, then programs
# built against that prefix alone, through each of its three entry points:
#   find_package(tacio)  tacio::tacio (the engine, the plan API with it),
#                        tacio::plan (the planning core alone), and a
#                        program built against an older struct tacio_stats;
#   pkg-config tacio     with the plain C compiler;
#   plain -ltacio        with the MPI's compiler wrapper, -I and -L only.
# The installed shim must load by LD_PRELOAD alone, as a job preloads it.
# First, every function the installed headers declare must resolve from
# the installed libraries (api_symbols.sh).
# usage: run.sh BUILD_TREE MPICC LAUNCHER DIR
set -u
build=$1 mpicc=$2 launcher=$3 dir=$4
here=$(cd "$(dirname "$0")" && pwd)
prefix="$dir/install"
. "$(dirname "$0")/../lib.sh"
mkdir -p "$dir"
rm -rf "$prefix" "$dir/consumer-cmake"
cmake --install "$build" --prefix "$prefix" >"$dir/install.log" 2>&1 && ok ||
    { ko "cmake --install:"; cat "$dir/install.log"; }
"$here/api_symbols.sh" "$prefix" && ok || ko "the installed libraries lack what the headers declare"
# the installed pages find every image they show, and the licence is there
docdir="$prefix/share/doc/tacio"
missing=$(cd "$docdir" 2>/dev/null && grep -oh '](figures/[^)]*)' ./*.md | sed 's/^](//; s/)$//' |
    sort -u | while read -r f; do [ -e "$f" ] || echo "$f"; done)
[ -d "$docdir" ] && [ -z "$missing" ] && ok || ko "installed docs without their images: $missing"
[ -s "$docdir/LICENSE" ] && ok || ko "no LICENSE in $docdir"
# the installed shim is preloaded into programs that know nothing of tacio:
# it must load with no LD_LIBRARY_PATH (its engine found beside it)
shim="$prefix/lib/libtacio_mpiio.so"
[ -e "$prefix/lib/libtacio_mpiio_abi.so" ] && shim="$prefix/lib/libtacio_mpiio_abi.so"
if env -u LD_LIBRARY_PATH LD_PRELOAD="$shim" /bin/true 2>"$dir/preload.log"; then ok; else
    ko "the installed shim does not load without LD_LIBRARY_PATH:" && cat "$dir/preload.log"
fi
run() { # run NAME WANT EXE: under the launcher, its output must hold WANT
    if LD_LIBRARY_PATH="$prefix/lib" timeout 60 "$launcher" -n 1 "$3" "$dir/consumer.dat" \
        >"$dir/consumer.log" 2>&1 && grep -q "$2" "$dir/consumer.log"
    then ok; else ko "$1:" && cat "$dir/consumer.log"; fi
}
if cmake -S "$here" -B "$dir/consumer-cmake" -DCMAKE_C_COMPILER=cc -DMPI_C_COMPILER="$mpicc" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$dir/consumer-cmake.log" 2>&1 &&
    cmake --build "$dir/consumer-cmake" >>"$dir/consumer-cmake.log" 2>&1; then
    ok
    run "find_package tacio::tacio" "consumer: 6 passed, 0 failed" "$dir/consumer-cmake/consumer"
    run "an older struct tacio_stats" "consumer_abi: ok" "$dir/consumer-cmake/consumer_abi"
    "$dir/consumer-cmake/consumer_plan" >"$dir/consumer.log" 2>&1 && ok ||
        { ko "find_package tacio::plan:" && cat "$dir/consumer.log"; }
else ko "find_package(tacio) build:" && cat "$dir/consumer-cmake.log"; fi
# the engine's library: libtacio, or libtacio_abi from an ABI build
lib=tacio
[ -e "$prefix/lib/libtacio_abi.so" ] && lib=tacio_abi
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tacio)
if cc -o "$dir/consumer-pc" "$here/consumer.c" $flags >"$dir/consumer-pc.log" 2>&1; then
    ok && run pkg-config "consumer: 6 passed, 0 failed" "$dir/consumer-pc"
else ko "pkg-config build ($flags):" && cat "$dir/consumer-pc.log"; fi
if "$mpicc" -o "$dir/consumer-l" "$here/consumer.c" -I"$prefix/include" -L"$prefix/lib" \
    -l$lib >"$dir/consumer-l.log" 2>&1; then
    ok && run "plain -l$lib" "consumer: 6 passed, 0 failed" "$dir/consumer-l"
else ko "plain -l$lib build:" && cat "$dir/consumer-l.log"; fi
report
