#!/usr/bin/env bash
# Run test_faults: its injected faults and bad input (KIND injected), or the
# errors of a real file system, mounted here for the test: a nearly full one
# (KIND enospc: real ENOSPC) or a read-only one (KIND erofs: real EROFS).
# Where this machine cannot mount (not root, no tmpfs), a real-fs case exits
# 77, which CTest reports as skipped, not passed.
# Usage: faults.sh KIND LAUNCHER... -- TEST_FAULTS DIR
set -u
kind=$1
shift
launcher=()
while [ "$1" != "--" ]; do launcher+=("$1"); shift; done
shift
exe=$1
dir=$2
run() { timeout 300 "${launcher[@]}" "$exe" "$dir" "$@"; }
case $kind in
injected) run ;;
enospc | erofs)
    mnt=$(mktemp -d)
    trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"' EXIT
    opts=size=16k
    [ "$kind" = erofs ] && opts=size=16k,ro
    if ! mount -t tmpfs -o "$opts" tmpfs "$mnt" 2>/dev/null; then
        echo "faults.sh: skipped: cannot mount a tmpfs here for real $kind"
        exit 77
    fi
    if [ "$kind" = enospc ]; then
        head -c 12000 /dev/zero >"$mnt/filler" # leave a few KiB: the test writes ~30
        run "$mnt" -
    else
        run - "$mnt"
    fi
    ;;
*) echo "faults.sh: unknown kind $kind" >&2; exit 2 ;;
esac
