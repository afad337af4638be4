#!/usr/bin/env bash
# tacio platform: the SimGrid platform and hostfile a --topology spec gives.
#  - tree: one <host> (with a <disk>) per host, one <router> per switch, one
#    split-duplex link per tree edge at its level's bandwidth, two routes per
#    link; the hostfile puts every rank where the planner's placement does
#    (the same hosts, at most cores ranks each, scatter differing from block);
#  - fattree:/dragonfly: SimGrid's own clusters with the tree's shape;
#  - --memory: each host's free memory as its property tacio_mem_free;
#  - bad input: a clear error and exit status 2.
# usage: platform.sh TACIO
set -u
TACIO=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$(dirname "$0")/../lib.sh"

"$TACIO" platform --topology tree:racks=4,nodes=20,cores=12 --procs 512 \
    --placement scatter:seed=1 --link-bw 40Gbps,20Gbps --out "$work/inspur" >"$work/out" &&
    ok || ko "inspur platform"
grep -q "hosts=80 job_hosts=43 ranks=512" "$work/out" && ok || ko "summary: $(cat "$work/out")"
python3 - "$work/inspur" <<'PY' && ok || ko "inspur platform content"
import collections, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
root = ET.parse(f"{d}/platform.xml").getroot()
zone = root.find("zone")
hosts = zone.findall("host")
links = {l.get("id"): l for l in zone.findall("link")}
routes = zone.findall("route")
bad = []
if len(hosts) != 80 or any(h.find("disk") is None for h in hosts):
    bad.append(f"{len(hosts)} hosts")
if len(zone.findall("router")) != 5:
    bad.append("routers")
if len(links) != 84 or len(routes) != 168:
    bad.append(f"{len(links)} links, {len(routes)} routes")
if any(l.get("sharing_policy") != "SPLITDUPLEX" for l in links.values()):
    bad.append("sharing")
if links["l-n7"].get("bandwidth") != "5000000000Bps" or links["l-s2"].get("bandwidth") != "2500000000Bps":
    bad.append("bandwidths")
ranks = [l.strip() for l in open(f"{d}/hostfile")]
per = collections.Counter(ranks)
if len(ranks) != 512 or len(per) != 43 or max(per.values()) > 12:
    bad.append(f"hostfile: {len(ranks)} ranks on {len(per)} hosts")
if ranks != sorted(ranks, key=lambda h: int(h[1:])):
    bad.append("ranks not in host order (block within the allocation)")
if sorted(per, key=lambda h: int(h[1:]))[:5] == ["n0", "n1", "n2", "n3", "n4"] and max(int(h[1:]) for h in per) == 42:
    bad.append("scatter gave the first 43 hosts")
print("inspur:", "; ".join(bad) or "ok")
sys.exit(1 if bad else 0)
PY

"$TACIO" platform --topology fattree:k=8,cores=16 --procs 64 --out "$work/ft" >/dev/null &&
    grep -q 'topology="FAT_TREE" topo_parameters="3;4,4,8;1,4,4;1,1,1"' "$work/ft/platform.xml" &&
    grep -q 'radical="0-127"' "$work/ft/platform.xml" && ok || ko "fat tree"
"$TACIO" platform --topology dragonfly:groups=4,chassis=2,routers=4,nodes=4,cores=16 --procs 64 \
    --out "$work/df" >/dev/null &&
    grep -q 'topology="DRAGONFLY" topo_parameters="4,1;2,1;4,1;4"' "$work/df/platform.xml" &&
    ok || ko "dragonfly"
"$TACIO" platform --topology fattree:k=4,cores=2 --procs 8 --network tree --out "$work/ftt" \
    >/dev/null && grep -q '<router id="pod0"/>' "$work/ftt/platform.xml" && ok || ko "fat tree as a tree"

# --memory: each host's free memory as a property the engine reads under
# SimGrid (tacio_mem_free), the planner's figure for that host index
"$TACIO" platform --topology tree:racks=2,nodes=3,cores=2 --procs 6 --out "$work/mem" \
    --memory normal:mean=64m,sd=16m,seed=5 >/dev/null && ok || ko "platform --memory"
printf '0 100\n3 4096\n5 7\n' >"$work/memfile"
"$TACIO" platform --topology tree:racks=2,nodes=3,cores=2 --procs 6 --out "$work/memf" \
    --memory "file:$work/memfile" >/dev/null && ok || ko "platform --memory file:"
python3 - "$work" <<'PY' && ok || ko "memory properties"
import sys, xml.etree.ElementTree as ET
w = sys.argv[1]
def props(d):
    hosts = ET.parse(f"{w}/{d}/platform.xml").getroot().find("zone").findall("host")
    return {h.get("id"): {p.get("id"): p.get("value") for p in h.findall("prop")} for h in hosts}
drawn, filed = props("mem"), props("memf")
vals = [int(p["tacio_mem_free"]) for p in drawn.values()]
ok = len(vals) == 6 and len(set(vals)) == 6 and all(32 << 20 < v < 96 << 20 for v in vals)
# the file names hosts by index (n<index> on a tree); unnamed hosts have 0
ok &= filed["n0"] == {"tacio_mem_free": "100"} and filed["n3"] == {"tacio_mem_free": "4096"}
ok &= filed["n5"] == {"tacio_mem_free": "7"} and filed["n1"] == {"tacio_mem_free": "0"}
print("memory:", drawn, filed)
sys.exit(0 if ok else 1)
PY
"$TACIO" platform --topology tree:racks=2,nodes=3,cores=2 --procs 6 --out "$work/nomem" >/dev/null &&
    ! grep -q tacio_mem_free "$work/nomem/platform.xml" && ok || ko "no --memory, no property"

expect_error() { # WHAT ARGS...: exit status 2 and a message naming the problem
    local what=$1
    shift
    "$TACIO" platform "$@" >/dev/null 2>"$work/err"
    local rc=$?
    [ $rc -eq 2 ] && grep -q "$what" "$work/err" && ok || ko "error '$what' (rc $rc): $(cat "$work/err")"
}
expect_error "native" --topology tree:racks=2,nodes=2,cores=1 --procs 2 --network native --out "$work/x"
expect_error "link-bw" --topology tree:racks=2,nodes=2,cores=1 --procs 2 --link-bw fast --out "$work/x"
expect_error "latency" --topology tree:racks=2,nodes=2,cores=1 --procs 2 --latency soon --out "$work/x"
expect_error "slots" --topology tree:racks=2,nodes=2,cores=1 --procs 9 --out "$work/x"
expect_error "required" --topology tree:racks=2,nodes=2,cores=1 --out "$work/x"
expect_error "memory" --topology fattree:k=4,cores=2 --procs 8 --memory 1g --out "$work/x"
expect_error "memory spec" --topology tree:racks=2,nodes=2,cores=1 --procs 2 --memory lots --out "$work/x"
expect_error "unknown option" --topology tree:racks=2,nodes=2,cores=1 --procs 2 --out "$work/x" --bogus 1
report platform
