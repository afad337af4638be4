#!/usr/bin/env bash
# Run test_faults with a real full file system and a real read-only one when
# this machine lets us mount them (root); otherwise test_faults says which
# cases it could not run. Usage: faults.sh LAUNCHER... -- TEST_FAULTS DIR
set -u
launcher=()
while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
exe=$1
dir=$2
small=$(mktemp -d) ro=$(mktemp -d)
cleanup() { umount "$small" 2>/dev/null; umount "$ro" 2>/dev/null; rmdir "$small" "$ro"; }
trap cleanup EXIT
if mount -t tmpfs -o size=16k tmpfs "$small" 2>/dev/null; then
    head -c 12000 /dev/zero >"$small/filler" # leave a few KiB: the test writes ~30
else
    small=-
fi
mount -t tmpfs -o size=16k,ro tmpfs "$ro" 2>/dev/null || ro=-
timeout 300 "${launcher[@]}" "$exe" "$dir" "$small" "$ro"
