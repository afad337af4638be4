#!/usr/bin/env bash
# `cmake --install` of a build tree into a scratch prefix, then a program
# built against it twice, with the plain C compiler (the MPI comes along
# through tacio's own link interface): with find_package(tacio) and with
# pkg-config.
# usage: run.sh BUILD_TREE MPICC LAUNCHER DIR
set -u
build=$1 mpicc=$2 launcher=$3 dir=$4
here=$(cd "$(dirname "$0")" && pwd)
prefix="$dir/install" passed=0 failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }
rm -rf "$prefix" "$dir/consumer-cmake"
cmake --install "$build" --prefix "$prefix" >"$dir/install.log" 2>&1 && ok ||
    { ko "cmake --install:"; cat "$dir/install.log"; }
run() { # run NAME EXE
    if LD_LIBRARY_PATH="$prefix/lib" timeout 60 "$launcher" -n 1 "$2" "$dir/consumer.dat" \
        >"$dir/consumer.log" 2>&1 && grep -q "consumer: 4 passed, 0 failed" "$dir/consumer.log"
    then ok; else ko "$1:" && cat "$dir/consumer.log"; fi
}
if cmake -S "$here" -B "$dir/consumer-cmake" -DCMAKE_C_COMPILER=cc -DMPI_C_COMPILER="$mpicc" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$dir/consumer-cmake.log" 2>&1 &&
    cmake --build "$dir/consumer-cmake" >>"$dir/consumer-cmake.log" 2>&1; then
    ok && run find_package "$dir/consumer-cmake/consumer"
else ko "find_package(tacio) build:" && cat "$dir/consumer-cmake.log"; fi
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tacio)
if cc -o "$dir/consumer-pc" "$here/consumer.c" $flags >"$dir/consumer-pc.log" 2>&1; then
    ok && run pkg-config "$dir/consumer-pc"
else ko "pkg-config build ($flags):" && cat "$dir/consumer-pc.log"; fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
