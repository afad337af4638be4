#!/usr/bin/env bash
# The libraries' own parallel test suites under the shim, for each strategy:
# HDF5 1.10.8's testphdf5, t_shapesame, t_filters_parallel and t_pread, and
# PnetCDF 1.12.3's `make ptest`, built from Debian's source packages
# against Debian's Open MPI (about 6 minutes to build, then about 45 s a
# strategy; `make test-external`, in CI, runs romio and auto).
# usage: tests/external/suites.sh BUILD_TREE [WORKDIR [STRATEGY,...]]
#        (BUILD_TREE: build-openmpi; the strategies: every one of the registry)
set -u
tree=$(cd "$1" && pwd) work=${2:-/tmp/tacio-suites}
shim=$tree/lib/libtacio_mpiio.so
read -ra strategies <<<"$("$tree/bin/tacio" --help | sed -n 's/^strategies: //p')" # the registry's
[ -n "${3:-}" ] && IFS=, read -ra strategies <<<"$3"
pool=http://deb.debian.org/debian/pool/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$work" && cd "$work" || exit 1
fetch() { [ -f "$2" ] || curl -fsSO "$pool/$1/$2" || { echo "cannot fetch $2"; exit 1; }; }
hdf5=hdf5-1.10.8+repack1 pnc=pnetcdf-1.12.3
if [ ! -x $hdf5/testpar/.libs/t_pread ]; then
    fetch h/hdf5 hdf5_1.10.8+repack1.orig.tar.gz && tar xzf hdf5_1.10.8+repack1.orig.tar.gz
    (cd $hdf5 && CC=mpicc.openmpi ./configure --enable-parallel --disable-fortran --disable-cxx \
        --disable-hl --disable-tools >../hdf5-build.log 2>&1 && make -j2 -C src &&
        make -j2 -C test libh5test.la &&
        make -j2 -C testpar testphdf5 t_shapesame t_filters_parallel t_pread) >>hdf5-build.log 2>&1 ||
        { echo "HDF5 build failed: $work/hdf5-build.log"; exit 1; }
fi
if [ ! -x $pnc/test/testcases/add_var ]; then
    fetch p/pnetcdf pnetcdf_1.12.3.orig.tar.xz && tar xJf pnetcdf_1.12.3.orig.tar.xz
    (cd $pnc && autoreconf -i && ./configure MPICC=mpicc.openmpi --disable-fortran --disable-cxx &&
        make -j2 && make -j2 tests) >pnetcdf-build.log 2>&1 ||
        { echo "PnetCDF build failed: $work/pnetcdf-build.log"; exit 1; }
fi
passed=0 failed=0
verdict() { # NAME LOG STATS RC
    local served=0
    [ -f "$3" ] && served=$(wc -l <"$3")
    if [ "$4" -eq 0 ] && [ "$served" -gt 0 ]; then passed=$((passed + 1)); r=pass; else
        failed=$((failed + 1)); r=FAIL; fi
    echo "$1 $r served=$served log=$2"
}
# atomicity is left out: it checks OMPIO's atomic mode (tacio passes atomic
# files to MPI), and it fails now and then without the shim too.
for prog in testphdf5 t_shapesame t_filters_parallel t_pread; do
    args=()
    [ $prog = testphdf5 ] && args=(-x atomicity)
    for s in "${strategies[@]}"; do
        d=$work/out.$prog.$s && rm -rf "$d" && mkdir -p "$d"
        (cd $hdf5/testpar && HDF5_PARAPREFIX=$d timeout 1800 mpirun.openmpi -x HDF5_PARAPREFIX \
            -x LD_PRELOAD="$shim" -x TACIO_STATS="$d/stats.json" \
            -x TACIO_HINTS=tacio_strategy=$s,tacio_ranks_per_node=2 -n 4 ./$prog "${args[@]}") \
            >"$d.log" 2>&1
        verdict "hdf5 $prog strategy=$s" "$d.log" "$d/stats.json" $?
    done
done
for s in "${strategies[@]}"; do
    d=$work/out.pnetcdf.$s && rm -rf "$d" && mkdir -p "$d"
    run="mpirun.openmpi -x LD_PRELOAD=$shim -x TACIO_STATS=$d/stats.json"
    run="$run -x TACIO_HINTS=tacio_strategy=$s,tacio_ranks_per_node=2 -n NP"
    (cd $pnc && timeout 3000 make -s ptest TESTMPIRUN="$run" TESTOUTDIR="$d") >"$d.log" 2>&1
    verdict "pnetcdf ptest strategy=$s" "$d.log" "$d/stats.json" $?
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
