#!/usr/bin/env bash
# Every function the installed headers declare (TACIO_API, read from the
# headers themselves) resolves from each installed artifact that promises
# it: tacio.h's and tacio_plan.h's from libtacio.so, tacio_plan.h's from
# libtacioplan.a; and libtacioplan.a defines no global name outside tacio_
# (an internal xcalloc or parse_size would meet a program's own).
# usage: api_symbols.sh PREFIX
set -u
prefix=$1
inc="$prefix/include" lib="$prefix/lib"
. "$(dirname "$0")/../lib.sh"
declared() { # the functions a header declares
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for name in re.findall(r"TACIO_API\b[^;{]*?\b(tacio_\w+)\s*\(", text, re.S):
    print(name)
PY
}
defined() { # the global functions an artifact defines
    case "$1" in
    *.so*) nm -D --defined-only "$1" | awk '$2 == "T" {print $3}' ;;
    *) nm -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 && $2 == "T" {print $3}' ;;
    esac
}
check() { # check HEADER ARTIFACT
    local missing n
    n=$(declared "$1" | wc -l)
    missing=$(comm -23 <(declared "$1" | sort -u) <(defined "$2" | sort -u))
    if [ "$n" -lt 10 ]; then
        ko "found only $n declarations in $1"
    elif [ -n "$missing" ]; then
        ko "$(basename "$2") lacks what $(basename "$1") declares:" $missing
    else
        ok && echo "ok: $(basename "$2") defines all $n functions of $(basename "$1")"
    fi
}
# the engine: libtacio.so, or libtacio_abi.so from an ABI build (one of
# them wherever tacio.h is installed)
so=$(ls "$lib"/libtacio.so "$lib"/libtacio_abi.so 2>/dev/null | head -1)
if [ -n "$so" ]; then
    check "$inc/tacio.h" "$so" && check "$inc/tacio_plan.h" "$so"
elif [ -e "$inc/tacio.h" ]; then
    ko "tacio.h is installed but no engine library"
fi
check "$inc/tacio_plan.h" "$lib/libtacioplan.a"
extra=$(nm -g --defined-only "$lib/libtacioplan.a" | awk 'NF == 3 {print $3}' | grep -v '^tacio_')
if [ -n "$extra" ]; then
    ko "libtacioplan.a defines $(wc -l <<<"$extra") global names outside tacio_:" \
        $(head -20 <<<"$extra")
else
    ok && echo "ok: libtacioplan.a defines no global name outside tacio_"
fi
report api_symbols
