#!/usr/bin/env bash
# The MPI-5 ABI build (TACIO_MPI_ABI: libtacio_abi.so, libtacio_mpiio_abi.so,
# built against MPICH 5's libmpi_abi.so) run unchanged on another MPI's ABI
# library, Intel MPI 2021.19's libmpi_abi.so: one binary for both.
#   - the engine's own tests (test_engine, test_reuse, test_faults) pass;
#   - an unmodified MPI-IO program (tests/shim/mpiio_app.c, built with
#     mpicc_abi) passes its own POSIX check under the shim, with tacio
#     serving its collectives. (Alone, Intel MPI 2021.19's ABI library stops
#     the program in MPI_File_set_view of a derived filetype with
#     MPI_Abort(1): docs/field-notes.md. The shim's deferred view never hands
#     it that view, so the program runs.)
# usage: abi_impi.sh ABI_BUILD IMPI_VENV
set -u
build=$1 impi=$2
. "$(dirname "$0")/../lib.sh"
[ -e "$impi/lib/libmpi_abi.so.1" ] || { ko "$impi/lib/libmpi_abi.so.1 missing (scripts/install-modern-mpis.sh)"; report abi_impi; exit; }
export I_MPI_ROOT=$impi FI_PROVIDER=shm LD_LIBRARY_PATH=$impi/lib
launch() { timeout 300 "$impi/bin/mpiexec" "$@"; }
lib=$(LD_LIBRARY_PATH=$impi/lib ldd "$build/lib/libtacio_mpiio_abi.so" | awk '/libmpi_abi/ {print $3}')
[ "$lib" = "$impi/lib/libmpi_abi.so.1" ] && ok || ko "the shim loads $lib, not Intel MPI's"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for np in 1 2; do
    launch -n "$np" "$build/bin/test_engine" "$work" >"$work/engine.log" 2>&1 &&
        grep -q "0 failed" "$work/engine.log" && ok || ko "test_engine np=$np: $(tail -3 "$work/engine.log")"
done
launch -n 2 "$build/bin/test_reuse" "$work" >"$work/reuse.log" 2>&1 && ok ||
    ko "test_reuse: $(tail -3 "$work/reuse.log")"
launch -n 2 -env LD_PRELOAD "$build/lib/libtacio_mpiio_abi.so" -env TACIO_STATS "$work/stats.json" \
    "$build/bin/mpiio_app" "$work/app.dat" >"$work/app.log" 2>&1 &&
    grep -q "app: [0-9]* passed, 0 failed" "$work/app.log" && ok ||
    ko "mpiio_app under the shim: $(tail -3 "$work/app.log")"
served=$(grep -c '"op"' "$work/stats.json" 2>/dev/null)
[ "${served:-0}" -ge 3 ] && ok || ko "tacio served ${served:-0} collectives, not 3"
report abi_impi
