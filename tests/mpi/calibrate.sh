#!/usr/bin/env bash
# tacio-calibrate on this machine (one host: its copies, its latency and the
# storage rates; no link): it must print positive rates, as hints the
# planner accepts, and fail with a message on a directory it cannot write;
# with --network, the copies and latency without the storage.
# usage: calibrate.sh TACIO_CALIBRATE TACIO MPIEXEC [FLAGS...]
set -u
cal=$1 tacio=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/../lib.sh"

line=$("$@" -n 2 "$cal" "$work" --mib 4 2>&1 | grep '^hosts=')
echo "$line"
model=${line##*model=}
[ -n "$line" ] && [ "$model" != "$line" ] && ok || ko "no model line"
for k in tacio_bw_agg_io tacio_bw_node_io tacio_bw_fs tacio_bw_copy; do
    v=$(tr , '\n' <<<"$model" | sed -n "s/^$k=//p")
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 1e6) }' && ok || ko "$k=$v: expected a rate above 1 MB/s"
done
for k in tacio_latency tacio_msg_overhead; do
    v=$(tr , '\n' <<<"$model" | sed -n "s/^$k=//p")
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0 && v + 0 < 0.01) }' && ok || ko "$k=$v: expected 0-10 ms"
done
grep -qE "tacio_bw_link|tacio_bw_factors" <<<"$model" && ko "one host cannot measure links: $model" || ok
hints=()
for kv in ${model//,/ }; do hints+=(--hint "$kv"); done
"$tacio" plan --pattern cube:n=16 --procs 8 --topology tree:racks=2,nodes=2,cores=2 \
    --strategy auto "${hints[@]}" >/dev/null && ok || ko "tacio plan refused the measured hints"
ls "$work" | grep -q . && ko "left files behind: $(ls "$work")" || ok

# the machine's profile: the same model as a hints file ("key value" lines,
# what TACIO_HINTS_FILE and ROMIO_HINTS take)
prof=$(mktemp)
"$@" -n 2 "$cal" "$work" --mib 4 --profile "$prof" >/dev/null 2>&1 && ok || ko "--profile failed"
copy=$(sed -n 's/^tacio_bw_copy //p' "$prof")
awk -v v="$copy" 'BEGIN { exit !(v + 0 > 1e6) }' && ok || ko "the profile has no tacio_bw_copy: $(cat "$prof")"
rm -f "$prof"

# the network alone: no directory, no storage rate, the copies still
line=$("$@" -n 2 "$cal" --network 2>&1 | grep '^hosts=')
echo "$line"
grep -q "tacio_bw_copy=" <<<"$line" && ! grep -qE "tacio_bw_(agg_io|node_io|fs)" <<<"$line" && ok ||
    ko "--network: copies and no storage rate expected: $line"
out=$("$@" -n 2 "$cal" --network "$work" 2>&1)
[ $? -ne 0 ] && grep -q "usage" <<<"$out" && ok || ko "--network with a DIR: $out"

out=$("$@" -n 2 "$cal" /proc/tacio-nowhere 2>&1)
[ $? -ne 0 ] && grep -q "cannot write DIR" <<<"$out" && ok || ko "unwritable DIR: $out"
out=$("$@" -n 1 "$cal" 2>&1)
[ $? -ne 0 ] && grep -q "usage" <<<"$out" && ok || ko "no DIR: $out"
report "calibrate"
