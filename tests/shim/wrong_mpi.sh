#!/usr/bin/env bash
# The shim built for the other Debian MPI, preloaded into a program of this
# one (a job script that names the wrong build): the program stops at its
# first MPI_File_open with one line from rank 0 that names both MPIs, and
# exits non-zero at once, without a crash or a hang. Without the check the
# MPI crashed in the first collective (MPICH: "Invalid MPI_Op"; Open MPI: a
# segmentation fault), since the shim hands it the other MPI's handles.
# usage: wrong_mpi.sh LAUNCHER openmpi|mpich APP OTHER_SHIM DIR
set -u
launcher=$1 kind=$2 app=$3 other=$4 dir=$5
. "$(dirname "$0")/../lib.sh"

[ -f "$other" ] || skip "no shim built for the other MPI at $other (make build-mpi builds both)"
out=$dir/wrong_mpi_out.txt
# a sanitizer build's program needs its runtime first (the other shim has none)
rt=$(sanitizer_runtime "$app")
preload_env "$kind" "${rt:+$rt:}$other"
timeout 120 "$launcher" "${env[@]}" -n 2 "$app" "$dir/wrong_mpi.dat" 4 >"$out" 2>&1
status=$?
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] && ok ||
    ko "the program under the other MPI's shim ended with status $status (want a prompt failure)"
said=$(grep -c "^tacio: error: libtacio_mpiio.so was built for .*, but this program runs on .*: preload the shim built for that MPI" "$out")
[ "$said" -eq 1 ] && ok || ko "the error was said $said times (want once, by rank 0)"
grep -qiE "segmentation|signal 11|invalid mpi_op|app: [0-9]* passed" "$out" &&
    ko "the program crashed or ran on under the other MPI's shim" || ok
[ "$failed" -eq 0 ] || cat "$out"
report wrong_mpi
