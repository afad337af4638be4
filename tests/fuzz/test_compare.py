#!/usr/bin/env python3
"""The comparator's own rules, on made-up transcripts (tests/fuzz/compare.py
decides what counts as a divergence; a rule that let a wrong count through
would hide a tacio bug from every fuzz run).
A read crossing the end of an empty file (x=0): under a native view tacio
serves the collective and must report 0 bytes, so a shim claiming the whole
request diverges; under external32 the shim passes the call to the MPI,
whose count and garbage past the end it then shares. At the end the files
may differ only where no write put bytes (the standard leaves them undefined)."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
F0 = "cbf29ce484222325"


def line(i, text, c="SUCCESS,SUCCESS", n="-1,-1", p="0,0", x="-1,-1", h=F0):
    return f"7 {i} {text} | c={c} n={n} p={p} x={x} h={h},{h} v={F0},{F0} o={F0},{F0}\n"


def transcript(rep, read_n, garbage, end="size=0 hash=cbf29ce484222325"):
    return (line(0, "open mode=rdwr|create") +
            line(1, f"set_view disp=8 etype=4 view=2 block=5 type=ok rep={rep}") +
            line(2, "read_all offset=ok count=40 holes=0 null=0 base=32 eof=1",
                 n=read_n, p="40,40", x="0,0", h=garbage) +
            line(3, "close -") +
            f"7 end {end}\n")


def ends(plain_end, shim_end):
    """Two runs alike but for the files at the end."""
    return (transcript("native", "0,0", F0, plain_end),
            transcript("native", "0,0", F0, shim_end))


def verdict(plain, shim, other=None):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        runs = (("plain", plain), ("shim", shim)) + ((("other", other),) if other else ())
        for name, text in runs:
            paths.append(os.path.join(d, name))
            with open(paths[-1], "w") as f:
                f.write(text)
        r = subprocess.run([sys.executable, os.path.join(HERE, "compare.py"), *paths],
                           capture_output=True, text=True)
        return r.returncode, r.stdout


def views_and_pointers():
    """The rules for what a view the shim keeps from the library changes:
    a seek to the end where the standard puts it, a negative displacement
    refused, a failed set_view, and OMPIO's preallocate moving its pointer."""
    failures = []
    def seek_end(p):
        return (line(0, "open mode=rdwr|create") +
                line(1, "seek whence=2 off=ok", p=p, x="155,148") +
                "7 end size=0 hash=cbf29ce484222325\n")
    rc, out = verdict(seek_end("59,60"), seek_end("155,148"))
    if rc != 0 or "seek_end=1" not in out:
        failures.append(f"seek to the standard's end: want agreement, got rc={rc}: {out}")
    rc, out = verdict(seek_end("59,60"), seek_end("155,100"))
    if rc == 0:
        failures.append(f"seek to neither end: want a divergence: {out}")
    # the MPI took a negative displacement the shim refused: the runs part
    # (their next calls differ), and the comparison stops there
    def negative_view(c, then):
        return (line(0, "open mode=rdwr|create") +
                line(1, "set_view disp=-8 etype=1 view=0 block=8 type=ok rep=native "
                        "err=negative_disp", c=c) +
                line(2, then) + "7 end size=0 hash=cbf29ce484222325\n")
    rc, out = verdict(negative_view("SUCCESS,SUCCESS", "sync size=ok"),
                      negative_view("ARG,ARG", "get_size size=ok"))
    if rc != 0 or "refused=1" not in out:
        failures.append(f"negative displacement refused: want a stop, got rc={rc}: {out}")
    rc, out = verdict(negative_view("SUCCESS,SUCCESS", "sync size=ok"),
                      negative_view("SUCCESS,ARG", "get_size size=ok"))
    if rc == 0:
        failures.append(f"negative displacement refused on one rank: want a divergence: {out}")
    # a set_view failed alike: what follows is each library's guess
    rc, out = verdict(negative_view("ARG,ARG", "sync size=ok").replace(" err=negative_disp", ""),
                      negative_view("ARG,ARG", "get_size size=ok").replace(" err=negative_disp",
                                                                           ""))
    if rc != 0 or "documented=1" not in out:
        failures.append(f"set_view failed alike: want a stop, got rc={rc}: {out}")
    # OMPIO's preallocate on a read-only file moves its pointer; MPICH's does not
    def preallocate(c, p):
        return (line(0, "open mode=rdonly") + line(1, "preallocate size=ok", c=c, p=p) +
                line(2, "sync size=ok", p=p) + "7 end size=0 hash=cbf29ce484222325\n")
    plain, shim = preallocate("READ_ONLY,READ_ONLY", "423,24"), preallocate("READ_ONLY,READ_ONLY",
                                                                            "24,24")
    rc, out = verdict(plain, shim, preallocate("IO,IO", "24,24"))
    if rc != 0 or "mpi_odd=1" not in out:
        failures.append(f"the MPI alone moved its pointer: want agreement, got rc={rc}: {out}")
    rc, out = verdict(plain, shim, preallocate("IO,IO", "423,24"))
    if rc == 0:
        failures.append(f"both MPIs moved the pointer: want a divergence: {out}")
    return failures


def odd_failure():
    """The MPI alone fails a call the shim and the other MPI both serve alike
    (Intel MPI 2021.19: a read at a huge offset past the end): the MPI is the
    odd one out; with the other MPI failing too, a divergence."""
    def huge_read(c, n):
        return (line(0, "open mode=rdwr|create") +
                line(1, "read_at_all offset=huge count=12 holes=1 null=0 base=99 eof=1",
                     c=c, n=n, x="0,0") + "7 end size=0 hash=cbf29ce484222325\n")
    failures = []
    served, io_error = huge_read("SUCCESS,SUCCESS", "0,0"), huge_read("IO,IO", "-1,-1")
    rc, out = verdict(io_error, served, served)
    if rc != 0 or "mpi_odd=1" not in out:
        failures.append(f"the MPI alone failing: want mpi_odd, got rc={rc}: {out}")
    rc, out = verdict(io_error, served, io_error)
    if rc == 0:
        failures.append(f"both MPIs failing where the shim served: want a divergence: {out}")
    return failures


def main():
    failures = []
    # the MPI says 160 bytes and leaves garbage; the shim served it: 0 bytes
    rc, out = verdict(transcript("native", "160,160", "1111111111111111"),
                      transcript("native", "0,0", F0))
    if rc != 0 or "eof_count=1" not in out:
        failures.append(f"native, shim counts x: want agreement, got rc={rc}: {out}")
    # the shim claims the whole request where it served the read
    rc, out = verdict(transcript("native", "160,160", "1111111111111111"),
                      transcript("native", "160,160", "2222222222222222"))
    if rc == 0 or "DIVERGENCE" not in out:
        failures.append(f"native, shim counts 160: want a divergence, got rc={rc}: {out}")
    # external32: the MPI served both runs; its count and garbage
    rc, out = verdict(transcript("external32", "160,160", "1111111111111111"),
                      transcript("external32", "160,160", "2222222222222222"))
    if rc != 0 or "eof_count=1" not in out:
        failures.append(f"external32, both count 160: want agreement, got rc={rc}: {out}")
    # the files differ only in bytes no write put there: stale in the MPI's
    rc, out = verdict(*ends("size=912 hash=f9a0 written=cff9 stale=48",
                            "size=912 hash=cff9 written=cff9 stale=0"))
    if rc != 0 or "stale_holes=1" not in out:
        failures.append(f"stale holes in the MPI's file: want agreement, got rc={rc}: {out}")
    # the shim's written bytes differ: a divergence, stale bytes or not
    rc, out = verdict(*ends("size=912 hash=f9a0 written=cff9 stale=48",
                            "size=912 hash=aaaa written=aaaa stale=0"))
    if rc == 0:
        failures.append(f"written bytes differ: want a divergence, got rc={rc}: {out}")
    # the same written bytes, other sizes: a divergence
    rc, out = verdict(*ends("size=912 hash=f9a0 written=cff9 stale=48",
                            "size=916 hash=bbbb written=cff9 stale=4"))
    if rc == 0:
        failures.append(f"files of other sizes: want a divergence, got rc={rc}: {out}")
    # a read of a gap's stale bytes (the MPI's) against the shim's zeros
    def read_of(v, w):
        return (line(0, "open mode=rdwr|create") +
                line(1, "read_at_all offset=ok count=4 holes=0 null=0 base=0",
                     n="4,4", x="4,4", h=v).replace(f"v={F0},{F0} o={F0},{F0}",
                                                   f"v={v},{v} o={v},{v} w={w},{w}") +
                "7 end size=8 hash=1 written=2 stale=0\n")
    rc, out = verdict(read_of("5555", "6666"), read_of("6666", "6666"))
    if rc != 0 or "stale_holes=1" not in out:
        failures.append(f"stale bytes read: want agreement, got rc={rc}: {out}")
    rc, out = verdict(read_of("5555", "6666"), read_of("6666", "8888"))
    if rc == 0:
        failures.append(f"written bytes read differ: want a divergence: {out}")
    # an independent read (the MPI's own under the shim) at a negative
    # offset: success, 0 bytes, and garbage in the buffer, other each run
    def negative_read_at(h, n="0,0"):
        return (line(0, "open mode=rdwr|create") +
                line(1, "read_at offset=negative count=38 holes=0 null=0 base=82 "
                        "err=negative_offset", n=n, x="-1,-1", h=h) +
                "7 end size=0 hash=cbf29ce484222325\n")
    rc, out = verdict(negative_read_at("1111"), negative_read_at("2222"))
    if rc != 0 or "mpi_garbage=1" not in out:
        failures.append(f"garbage of a pass-through call: want agreement, got rc={rc}: {out}")
    rc, out = verdict(negative_read_at("1111", "4,4"), negative_read_at("2222", "4,4"))
    if rc == 0:
        failures.append(f"a pass-through read with data that differ: want a divergence: {out}")
    failures += views_and_pointers()
    failures += odd_failure()
    for f in failures:
        print("FAIL", f)
    print("compare rules:", "ok" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
