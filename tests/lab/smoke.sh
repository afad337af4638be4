#!/usr/bin/env bash
# bench/lab, small: the namespace network comes up, MPI traffic crosses its
# shaped links (the tbf byte counters), the data checks pass, and every
# namespace, hosts file and UTS file it made is gone afterwards -- after a
# normal exit and after a signal in the middle of a run (TERM: a background
# job of a script ignores INT, and bench/lab traps both alike). No timing asserted
# (the machine is shared: speed is bench/lab's business).
# usage: smoke.sh SOURCE_DIR   (root; namespaces and tc)
set -u
src=$1
fail=0
ko() { echo "FAIL: $*"; fail=1; }
leftovers() { # anything a lab run left behind
    { ip netns list | grep -o '^tlab[0-9]*-[a-z0-9]*'; ls -d /run/tlab* /etc/netns/tlab* 2>/dev/null; } |
        tr '\n' ' '
}
[ "$(id -u)" = 0 ] || { echo "FAIL: the lab needs root"; exit 1; }
before=$(leftovers)
[ -z "$before" ] || echo "note: leftovers from an earlier run: $before"

out=$("$src/bench/lab/run" --reps 1 --strategies romio,tatp 2>&1)
rc=$?
# whole lines: cut short, hop_bytes=44040192 read as 4404019 (a tenth of romio's)
echo "$out" | grep -E "^(calibrated|layout|shuffle|uplink)"
[ $rc = 0 ] || ko "bench/lab exited $rc: $(tail -5 <<<"$out")"
[ "$(grep -c 'verified=yes' <<<"$out")" = 4 ] || ko "expected 4 verified runs (2 patterns x 2)"
up=$(grep -o 'uplink_bytes=[0-9]*' <<<"$out" | cut -d= -f2)
[ "${up:-0}" -gt 10000000 ] || ko "the uplinks carried ${up:-no} bytes: the traffic did not cross them"
grep -q 'tacio_bw_uplink=' <<<"$out" || ko "no calibration line"
[ "$(leftovers)" = "$before" ] || ko "left behind after exit: $(leftovers)"

# interrupted while the MPI runs go on
"$src/bench/lab/run" --reps 5 --strategies romio >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 60); do # until the first namespace is up
    ip netns list | grep -q "tlab$pid-n0" && break
    sleep 0.5
done
sleep 8
kill -TERM "$pid"
wait "$pid"
rc=$?
[ $rc -ne 0 ] || ko "interrupted lab exited 0"
[ "$(leftovers)" = "$before" ] || ko "left behind after a signal: $(leftovers)"
[ $fail = 0 ] && echo "lab smoke: ok"
exit $fail
