#!/usr/bin/env bash
# The libraries export their public API and nothing else: an internal name
# (xcalloc, parse_size, ...) in a preloaded library would take the place of
# an application's own function of that name.
# usage: symbols.sh LIBTACIO LIBSHIM
set -u
passed=0 failed=0
check() { # check LIB REGEX: every defined dynamic symbol matches REGEX
    local names extra
    names=$(nm -D --defined-only "$1" | awk '{print $3}')
    extra=$(grep -Ev "$2" <<<"$names")
    if [ -z "$extra" ] && [ "$(grep -Ec "$2" <<<"$names")" -gt 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $(basename "$1") exports beyond /$2/:" $extra
    fi
}
check "$1" '^tacio_'
check "$2" '^(MPI_File_|mpi_file_|MPI_FILE_)'
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
