#!/usr/bin/env bash
# The libraries' own parallel test suites under the shim, for each strategy:
# HDF5 1.10.8's testphdf5, t_shapesame, t_filters_parallel and t_pread, and
# PnetCDF 1.12.3's `make ptest`, built from Debian's source packages
# against Debian's Open MPI (about 6 minutes to build, then about 45 s a
# strategy; `make test-external`, in CI, runs romio and auto). Then the
# libraries' benchmarks, application I/O kernels: HDF5's h5perf (its MPI-IO
# and parallel HDF5 modes, collective, checking what it reads), PnetCDF's
# C benchmarks and FLASH-IO (built against Debian's PnetCDF, which has the
# Fortran binding), whose files must equal the run's without the shim.
#
# With SUITES_MPI=PREFIX (an Open MPI 5 from its wheel, make build-modern's
# build-modern/ompi5, and BUILD_TREE built against it) the same, libraries
# built from the same sources against that MPI, less FLASH-IO: the wheels
# carry no Fortran compiler. SUITES_ONLY=pnetcdf leaves HDF5 out.
# usage: tests/external/suites.sh BUILD_TREE [WORKDIR [STRATEGY,...]]
#        (BUILD_TREE: build-openmpi; the strategies: every one of the registry)
set -u
tree=$(cd "$1" && pwd) work=${2:-/tmp/tacio-suites}
shim=$tree/lib/libtacio_mpiio.so
read -ra strategies <<<"$("$tree/bin/tacio" --help | sed -n 's/^strategies: //p')" # the registry's
[ -n "${3:-}" ] && IFS=, read -ra strategies <<<"$3"
pool=http://deb.debian.org/debian/pool/main
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ -n "${SUITES_MPI:-}" ]; then # Open MPI 5: PRRTE's spelling of oversubscription
    mpicc=$SUITES_MPI/bin/mpicc mpirun=$SUITES_MPI/bin/mpirun mpif90=
    export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
else
    mpicc=mpicc.openmpi mpirun=mpirun.openmpi mpif90=mpif90.openmpi
fi
want() { [ -z "${SUITES_ONLY:-}" ] || [ "$SUITES_ONLY" = "$1" ]; }
mkdir -p "$work" && cd "$work" || exit 1
fetch() { [ -f "$2" ] || curl -fsSO "$pool/$1/$2" || { echo "cannot fetch $2"; exit 1; }; }
hdf5=hdf5-1.10.8+repack1 pnc=pnetcdf-1.12.3
if want hdf5 && [ ! -x $hdf5/testpar/.libs/t_pread ]; then
    fetch h/hdf5 hdf5_1.10.8+repack1.orig.tar.gz && tar xzf hdf5_1.10.8+repack1.orig.tar.gz
    (cd $hdf5 && CC=$mpicc ./configure --enable-parallel --disable-fortran --disable-cxx \
        --disable-hl --disable-tools >../hdf5-build.log 2>&1 && make -j2 -C src &&
        make -j2 -C test libh5test.la &&
        make -j2 -C testpar testphdf5 t_shapesame t_filters_parallel t_pread) >>hdf5-build.log 2>&1 ||
        { echo "HDF5 build failed: $work/hdf5-build.log"; exit 1; }
fi
h5perf=$hdf5/tools/src/h5perf/h5perf
if want hdf5 && [ ! -x $h5perf ]; then
    (make -j2 -C $hdf5/tools/lib && make -j2 -C $hdf5/tools/src/h5perf h5perf) >>hdf5-build.log 2>&1 ||
        { echo "h5perf build failed: $work/hdf5-build.log"; exit 1; }
fi
if [ ! -x $pnc/test/testcases/add_var ]; then
    fetch p/pnetcdf pnetcdf_1.12.3.orig.tar.xz && tar xJf pnetcdf_1.12.3.orig.tar.xz
    (cd $pnc && autoreconf -i && ./configure MPICC=$mpicc --disable-fortran --disable-cxx &&
        make -j2 && make -j2 tests) >pnetcdf-build.log 2>&1 ||
        { echo "PnetCDF build failed: $work/pnetcdf-build.log"; exit 1; }
fi
flash=$work/flash_benchmark_io
if [ -n "$mpif90" ] && [ ! -x "$flash" ]; then
    # gfortran 12 rejects FLASH-IO's untyped MPI calls without the mismatch flag
    (cd $pnc/benchmarks/FLASH-IO && $mpif90 -O2 -cpp -ffree-form -ffree-line-length-none \
        -fallow-argument-mismatch -w -I. -I/usr/lib/x86_64-linux-gnu/fortran/gfortran-mod-15 \
        -DN_DIM=3 -DMAXBLOCKS=100 -DIONMAX=13 get_mfluid_property.F90 flash_release.F90 \
        flash_benchmark_io.F90 checkpoint_ncmpi_parallel.F90 plotfile_ncmpi_parallel.F90 \
        -o "$flash" -lpnetcdf) >flash-build.log 2>&1 ||
        { echo "FLASH-IO build failed: $work/flash-build.log"; exit 1; }
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
hdf5_progs=(testphdf5 t_shapesame t_filters_parallel t_pread)
want hdf5 || hdf5_progs=()
for prog in "${hdf5_progs[@]}"; do
    args=()
    [ $prog = testphdf5 ] && args=(-x atomicity)
    for s in "${strategies[@]}"; do
        d=$work/out.$prog.$s && rm -rf "$d" && mkdir -p "$d"
        (cd $hdf5/testpar && HDF5_PARAPREFIX=$d timeout 1800 $mpirun -x HDF5_PARAPREFIX \
            -x LD_PRELOAD="$shim" -x TACIO_STATS="$d/stats.json" \
            -x TACIO_HINTS=tacio_strategy=$s,tacio_ranks_per_node=2 -n 4 ./$prog "${args[@]}") \
            >"$d.log" 2>&1
        verdict "hdf5 $prog strategy=$s" "$d.log" "$d/stats.json" $?
    done
done
for s in "${strategies[@]}"; do
    d=$work/out.pnetcdf.$s && rm -rf "$d" && mkdir -p "$d"
    run="$mpirun -x LD_PRELOAD=$shim -x TACIO_STATS=$d/stats.json"
    run="$run -x TACIO_HINTS=tacio_strategy=$s,tacio_ranks_per_node=2 -n NP"
    (cd $pnc && timeout 3000 make -s ptest TESTMPIRUN="$run" TESTOUTDIR="$d") >"$d.log" 2>&1
    verdict "pnetcdf ptest strategy=$s" "$d.log" "$d/stats.json" $?
done

# The kernels: each run once without the shim (the reference files), then
# under it per strategy. h5perf checks what it reads itself (-D v: every
# byte read must be the writer's rank + 1) and removes its files.
under_shim() { # DIR STRATEGY: mpirun's arguments that put tacio under the program
    echo -x LD_PRELOAD="$shim" -x TACIO_STATS="$1/stats.json" \
        -x TACIO_HINTS=tacio_strategy=$2,tacio_ranks_per_node=2
}
kernel() { # NAME DIR: the program's files in DIR, compared with ref/NAME*
    local name=$1 dir=$2 rc=0 f
    for f in "$work/ref/$name"*; do
        cmp "$f" "$dir/$(basename "$f")" >>"$dir.log" 2>&1 || rc=1
    done
    return $rc
}
kernels=(
    "aggregation $pnc/benchmarks/C/aggregation -q -l 100 @/aggregation.nc"
    "block_column $pnc/benchmarks/C/write_block_read_column -q -l 100 @/block_column.nc"
)
[ -n "$mpif90" ] && kernels+=("flash $flash @/flash_")
geometries=("1d -e 256K -B 4K -x 64K -X 64K" "2d -g -e 1K -B 64 -x 1K -X 1K")
want hdf5 || geometries=()
rm -rf "$work/ref" && mkdir -p "$work/ref"
for k in "${kernels[@]}"; do
    read -ra cmd <<<"${k#* }"
    $mpirun -n 4 "${cmd[@]//@/$work/ref}" >"$work/ref/${k%% *}.log" 2>&1 ||
        { echo "${k%% *} failed without the shim: $work/ref/${k%% *}.log"; exit 1; }
    rm -f "$work/ref/${k%% *}.log"
done
for s in "${strategies[@]}"; do
    for k in "${kernels[@]}"; do
        name=${k%% *} d=$work/out.$name.$s && rm -rf "$d" && mkdir -p "$d"
        read -ra cmd <<<"${k#* }"
        # shellcheck disable=SC2046 # under_shim's words are meant to split
        timeout 600 $mpirun $(under_shim "$d" "$s") -n 4 "${cmd[@]//@/$d}" >"$d.log" 2>&1 &&
            kernel "$name" "$d"
        verdict "kernel $name strategy=$s" "$d.log" "$d/stats.json" $?
    done
    # 1D: 4 KiB blocks interleaved across ranks; 2D: 64x64 tiles of a 4096^2 array
    for geometry in "${geometries[@]}"; do
        d=$work/out.h5perf-${geometry%% *}.$s && rm -rf "$d" && mkdir -p "$d"
        # shellcheck disable=SC2046,SC2086 # the shim's and the geometry's words split
        HDF5_PARAPREFIX=$d timeout 600 $mpirun -x HDF5_PARAPREFIX $(under_shim "$d" "$s") \
            -n 4 $h5perf -A mpiio,phdf5 -C -I -p 4 -D v -i 2 ${geometry#* } >"$d.log" 2>&1 &&
            ! grep -qi "error" "$d.log"
        verdict "kernel h5perf-${geometry%% *} strategy=$s" "$d.log" "$d/stats.json" $?
    done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
