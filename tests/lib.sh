# The shell tests' one harness, sourced by every script under tests/: pass
# and fail counters, a skip that CTest reports as skipped (exit 77, the
# tests' SKIP_RETURN_CODE), the closing line (which fails when nothing was
# checked), and the launcher flags that hand a program LD_PRELOAD and
# tacio's variables.
passed=0 failed=0
# The flag every program a test builds by hand is compiled with, as the
# project's own builds are (CMakeLists.txt, TACIO_AUTO_VAR_INIT): an
# uninitialised local reads as a fixed pattern, so a program that reads one
# goes wrong on every run, not by chance.
TEST_CFLAGS=
if echo 'int main(void) { return 0; }' |
    cc -x c -ftrivial-auto-var-init=pattern -o /dev/null - 2>/dev/null; then
    TEST_CFLAGS=-ftrivial-auto-var-init=pattern # GCC 12 and Clang have it
fi
ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*"; }
# skip WHY: this case cannot run on this machine; never counted as passed
skip() {
    echo "SKIP: $*"
    exit 77
}

# sanitizer_runtime LIB: the sanitizer runtimes LIB was linked with (none:
# empty), colon-separated, as LD_PRELOAD takes them.
sanitizer_runtime() {
    ldd "$1" 2>/dev/null | awk '/lib(a|ub)san/ {print $3}' | paste -sd:
}

# strategy_env STRATEGY DIR [HINTS]: exports TACIO_HINTS (the strategy,
# two ranks a virtual node, HINTS) and TACIO_WISDOM. The strategy
# auto+wisdom is auto with one trial and the wisdom file DIR/wisdom.txt
# (the caller removes it): shapes that do not repeat within a run are timed
# with the model's pick in a first run and the default in a second, and a
# third starts at the faster.
strategy_env() {
    local s=$1 extra=${3:+,$3}
    export TACIO_WISDOM=
    if [ "$s" = auto+wisdom ]; then
        s=auto extra=",tacio_auto_trials=1$extra"
        export TACIO_WISDOM=$2/wisdom.txt
    fi
    export TACIO_HINTS="tacio_strategy=$s,tacio_ranks_per_node=2$extra"
}

# learned_calls STATS: the calls of a TACIO_STATS file auto planned from its
# wisdom file.
learned_calls() {
    grep -c '"learned":1' "$1" 2>/dev/null || true
}
# planned_calls STATS: its calls that were planned (not served by a kept
# schedule), which are those a wisdom file's choice can serve.
planned_calls() {
    grep -c '"reused":0' "$1" 2>/dev/null || true
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

# ompi_romio LAUNCHER: the name of the ROMIO component of the Open MPI whose
# launcher this is (romio321 in Open MPI 4, romio341 in 5), from the
# ompi_info beside it (Debian's: ompi_info on the PATH).
ompi_romio() {
    local info
    info=$(dirname "$(command -v "$1")")/ompi_info
    [ -x "$info" ] || info=ompi_info
    "$info" 2>/dev/null | sed -n 's/.*MCA io: \(romio[0-9]*\).*/\1/p' | head -1
}

# pnetcdf_mpi: the MPI Debian's PnetCDF is built against (openmpi or mpich):
# it runs only where it links to that one.
pnetcdf_mpi() {
    if ldd /usr/lib/x86_64-linux-gnu/libpnetcdf.so 2>/dev/null | grep -q "libmpi.so"; then
        echo openmpi
    else
        echo mpich
    fi
}

# report [NAME]: the closing line; fails when a check failed or none ran
report() {
    echo "${1:+$1: }$passed passed, $failed failed"
    if [ $((passed + failed)) -eq 0 ]; then
        echo "FAIL: no check ran"
        return 1
    fi
    [ "$failed" -eq 0 ]
}
