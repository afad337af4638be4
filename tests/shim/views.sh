#!/usr/bin/env bash
# views_app (every kind of call that reads a view) under the shim, with
# views deferred (TACIO_DEFER_VIEWS=1: the shim's shared pointer file must
# appear, and be gone after close) and, with Open MPI, not; and Open MPI's
# OMPIO alone, which passes it too. MPICH 4.0.2 alone does not: its shared
# pointer overcounts write_shared now and then (3 ranks: 11 or 13 etypes
# where 9 were asked for), so where MPICH serves the shared pointer (alone,
# or under the shim with views not deferred) the program is not run.
# usage: views.sh LAUNCHER openmpi|mpich APP SHIM DIR NP
set -u
launcher=$1 kind=$2 app=$3 shim=$4 dir=$5 np=$6
. "$(dirname "$0")/../lib.sh"

run() { # run LABEL PRELOAD DEFER SIDE_FILES
    export TACIO_DEFER_VIEWS=$3 VIEWS_SIDE_FILES=$4
    preload_env "$kind" "$2" TACIO_DEFER_VIEWS VIEWS_SIDE_FILES
    local file="$dir/views_app.dat" out="$dir/views_out.txt"
    if timeout 120 "$launcher" "${env[@]}" -n "$np" "$app" "$file" >"$out" 2>&1 &&
        grep -q "views: [0-9]* passed, 0 failed" "$out"; then ok; else
        ko "$1:" && cat "$out"
    fi
    if compgen -G "$file.tacio-sfp-*" >/dev/null; then ko "$1: a shared pointer file left"; else ok; fi
}

if [ "$kind" = openmpi ]; then
    run "the MPI alone" "" 0 0
    run "the shim" "$shim" 0 0
fi
run "the shim, views deferred" "$shim" 1 1
report
