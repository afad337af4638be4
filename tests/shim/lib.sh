# Sourced by the scripts that run programs under the shim: pass/fail
# counters, the launcher flags that hand a program LD_PRELOAD and tacio's
# variables, and the closing line.
passed=0 failed=0
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }

# sanitizer_runtime LIB: the sanitizer runtimes LIB was linked with (none:
# empty), colon-separated, as LD_PRELOAD takes them.
sanitizer_runtime() {
    ldd "$1" 2>/dev/null | awk '/lib(a|ub)san/ {print $3}' | paste -sd:
}

# preload_env KIND PRELOAD VAR...: sets the array env. Open MPI's launcher
# forwards only the variables named with -x; MPICH's forwards them all.
preload_env() {
    local kind=$1 pre=$2 v
    shift 2
    # A shim built with a sanitizer needs its runtime loaded first.
    local rt
    rt=$(sanitizer_runtime "${pre%%:*}")
    [ -n "$rt" ] && [ "$rt" != "$pre" ] && pre="$rt:$pre"
    env=()
    if [ "$kind" = openmpi ]; then
        for v in "$@"; do env+=(-x "$v"); done
        env+=(-x "LD_PRELOAD=$pre")
    else
        env=(-env LD_PRELOAD "$pre")
    fi
}

report() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
