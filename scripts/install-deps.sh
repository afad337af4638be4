#!/usr/bin/env bash
# Install what the build and tests need, only when missing (idempotent, quiet).
set -euo pipefail

need_apt=()
command -v cmake >/dev/null 2>&1 || need_apt+=(cmake)
command -v cc >/dev/null 2>&1 || need_apt+=(gcc)
command -v make >/dev/null 2>&1 || need_apt+=(make)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-pip)
command -v /usr/bin/time >/dev/null 2>&1 || need_apt+=(time)
# both MPIs (DESIGN.md field notes: name their wrappers explicitly)
command -v mpicc.mpich >/dev/null 2>&1 || need_apt+=(mpich libmpich-dev)
command -v mpicc.openmpi >/dev/null 2>&1 || need_apt+=(openmpi-bin libopenmpi-dev)
# what real applications are built with: Fortran, parallel HDF5 (both MPIs),
# PnetCDF and their tools; clang-format for the format check
command -v gfortran >/dev/null 2>&1 || need_apt+=(gfortran)
command -v h5pcc.openmpi >/dev/null 2>&1 || need_apt+=(libhdf5-openmpi-dev)
command -v h5pcc.mpich >/dev/null 2>&1 || need_apt+=(libhdf5-mpich-dev)
command -v h5diff >/dev/null 2>&1 || need_apt+=(hdf5-tools)
[ -f /usr/include/pnetcdf.h ] || need_apt+=(libpnetcdf-dev)
command -v ncmpidiff >/dev/null 2>&1 || need_apt+=(pnetcdf-bin)
command -v clang-format >/dev/null 2>&1 || need_apt+=(clang-format)
# clang and its libFuzzer runtime: the parser harnesses (make test-fuzz)
command -v clang >/dev/null 2>&1 || need_apt+=(clang)
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
    need_apt+=(libclang-rt-dev)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
# SimGrid's SMPI: the engine on simulated clusters (tests/smpi, bench/smpi)
command -v smpicc >/dev/null 2>&1 || need_apt+=(libsimgrid-dev simgrid)
# HDF5's and PnetCDF's source packages and their builds (make test-external)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v autoreconf >/dev/null 2>&1 || need_apt+=(autoconf automake)
command -v libtoolize >/dev/null 2>&1 || need_apt+=(libtool)

if [ ${#need_apt[@]} -gt 0 ]; then
    echo "install-deps: apt-get install ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# scipy is the independent LAP solver the tests and bench/plan compare against.
if ! python3 -c 'import scipy, numpy' >/dev/null 2>&1; then
    echo "install-deps: pip install scipy numpy"
    python3 -m pip install -q scipy numpy 2>/dev/null ||
        python3 -m pip install -q --break-system-packages scipy numpy
fi

# matplotlib draws `tacio report`'s charts (tools/report.py; not a dependency
# of the library). From PyPI like numpy above: Debian's build is tied to
# Debian's numpy.
if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
    echo "install-deps: pip install matplotlib"
    python3 -m pip install -q matplotlib 2>/dev/null ||
        python3 -m pip install -q --break-system-packages matplotlib
fi
