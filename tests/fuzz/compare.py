#!/usr/bin/env python3
"""Compare the differential fuzzer's transcripts (tests/fuzz/diff_app.c).

PLAIN is the MPI alone, SHIM the same program under tacio's shim, OTHER the
other MPI alone. Call by call, a sequence must give under the shim what it
gave on the MPI: the error class on every rank, the status counts, the file
pointers and the read buffers, and at the end the same file, byte for byte.
Two exceptions, each listed in docs/differences.md:
  - an error class may differ where both fail and the two MPIs themselves
    give different classes for the call (OTHER says so);
  - a call tagged doc=WHY runs where tacio differs on purpose: a tacio_
    hint the shim refuses where the MPI ignores it, or a view the MPI took
    that the standard calls erroneous (a negative displacement) or that a
    failed set_view left; the sequence stops there;
  - a read crossing end-of-file (eof=1) that the MPI reports as whole: the
    shim must report exactly the bytes before the end (x) where it served
    the call, with the same data before the end (a view in external32 is
    the MPI's to serve: there the shim reports what the MPI reports, and
    the buffer past the end holds whatever the MPI left, OMPIO garbage);
  - a call of count 0 whose status the MPI leaves unset (ROMIO): the shim
    must say 0;
  - a call the program knows is erroneous (err=...: a negative offset or
    count, a read of a write-only file, ...) must fail under the shim on
    every rank, with the MPI's class or the other MPI's; the MPI itself may
    let it pass (OMPIO takes a negative offset);
  - after a call that failed alike, the read buffer is not compared (its
    contents are undefined: OMPIO's external32 path leaves garbage).
Before all that, every successful read is checked against the file itself:
the bytes before its end, read with POSIX (o), must be those in the buffer
(v). A shim that misreads is a divergence; an MPI that misreads leaves
nothing to compare the shim's read with (counted as mpi_misread).
Where the MPI and the shim differ and the other MPI, running the same call,
got what the shim got, the MPI alone is the odd one out (mpi_odd; for a
file, the sequence's last word).
At a sequence's end the files may differ only in bytes no successful write
put there, which the standard leaves undefined (the same size and `written`
hash; counted as stale_holes): ROMIO writes stale buffer bytes into gaps,
collectively (tacio's windows zero them instead) and independently (under
the shim too: the MPI serves independent calls); a read likewise (w: its
data with those bytes as 0).
An independent call that moved nothing (the MPI's own, under the shim too)
may leave other garbage in the read buffer in the two runs (mpi_garbage).
Anything else is a divergence: the first per sequence is printed (the rest
of that sequence no longer runs the same calls) and the exit status is 1.
Prints: fuzz: calls=N sequences=S divergences=D documented=K mpi_disagree=M
"""
import argparse
import collections
import sys

FIELDS = ("c", "n", "p", "x", "h", "v", "o", "w")


def parse(path):
    """{seq: [(op, text, fields)]}: the calls of each sequence, in order."""
    seqs = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            head, _, tail = line.rstrip("\n").partition(" | ")
            seq, op, text = head.split(" ", 2)
            fields = dict(kv.split("=", 1) for kv in tail.split()) if tail else {}
            seqs[int(seq)].append((op, text, fields))
    return seqs


def classes(fields):
    """The error class per rank, by name (SUCCESS, ARG, ...)."""
    return [c for c in fields.get("c", "").split(",") if c]


def failed(fields):
    return [c != "SUCCESS" for c in classes(fields)]


def all_failed(fields):
    return all(failed(fields))


def other_run(other_calls, index, op, text):
    """OTHER's fields for the same call (same place in the sequence, same
    arguments); None when OTHER ran another call there."""
    if other_calls is None or index >= len(other_calls):
        return None
    o_op, o_text, o_fields = other_calls[index]
    return o_fields if (o_op, o_text) == (op, text) else None


def other_disagrees(other_calls, index, op, text, plain_fields):
    """OTHER ran the same call and its class differs from PLAIN's."""
    o_fields = other_run(other_calls, index, op, text)
    return o_fields is not None and classes(o_fields) != classes(plain_fields)


def ints(fields, key):
    return [int(v) for v in fields.get(key, "").split(",") if v]


def eof_read(op, text, pf, sf, served):
    """A read crossing end-of-file (eof=1; x: the bytes before the end,
    computed by the program from the file's size). The data before the end
    (v) must be the same; the status must say x where tacio served the call
    (a collective), the MPI may say the whole request (ROMIO and OMPIO do);
    the pointer follows the count, and the buffer past the data is left
    alone by tacio, filled with stale bytes by ROMIO's independent reads.
    An independent read is tacio's too while the shim keeps the view from
    the library (TACIO_DEFER_VIEWS), the MPI's otherwise: either count.
    served: tacio serves the view's collectives (not external32)."""
    if " eof=1" not in text or pf.get("c") != sf.get("c") or any(failed(pf)):
        return False
    collective = text.split()[0].endswith("_all")
    exact = ints(sf, "n") == ints(sf, "x")
    if collective and served:
        counts_ok = exact
    else:
        counts_ok = pf.get("n") == sf.get("n") or (served and exact)
    return counts_ok and pf.get("v") == sf.get("v") and pf.get("x") == sf.get("x")


def zero_count(text, pf, sf):
    """A call of count 0: the shim's status must say 0 bytes; ROMIO leaves a
    collective's status as it was (the program fills it with 0xa5 first)."""
    return " count=0 " in text and ints(sf, "n") and all(n == 0 for n in ints(sf, "n")) \
        and without(pf, "n") == without(sf, "n")


def without(fields, *keys):
    return {k: v for k, v in fields.items() if k not in keys}


def without_buffers(fields):
    return without(fields, "h", "v")


def erroneous(text):
    """The erroneous arguments the program knowingly passed (err=A+B)."""
    for word in text.split():
        if word.startswith("err="):
            return word[4:].split("+")
    return []


# The class the standard's text names for one erroneous argument (for a
# negative displacement or position it names none: ROMIO's).
STANDARD = {"negative_offset": "ARG", "negative_count": "COUNT", "write_rdonly": "READ_ONLY",
            "read_wronly": "ACCESS", "negative_disp": "ARG", "negative_position": "ARG"}


def standard_class(errs, nranks):
    return {",".join([STANDARD[errs[0]]] * nranks)} if len(errs) == 1 else set()


def refused(pf, sf, other_calls, index, op, text, tally):
    """A call with erroneous arguments: the shim must fail it on every rank
    with one class, the MPI's own (or the other MPI's, where the MPI gave
    another or let the call pass: OMPIO takes a negative offset). None when
    so ("stop" when the MPI wrote through the call: the files now differ);
    else the divergence."""
    errs, sc = erroneous(text), classes(sf)
    if not all_failed(sf) or len(set(sc)) != 1:
        return f"an erroneous call ({'+'.join(errs)}) not refused on every rank: {text}"
    other_class = (other_run(other_calls, index, op, text) or {}).get("c")
    known = {pf.get("c"), other_class} | standard_class(errs, len(sc))
    if all_failed(pf) and len(errs) == 1 and sf.get("c") not in known:
        return f"class {sf.get('c')}, the MPIs give {pf.get('c')} / {other_class}: {text}"
    if not all_failed(pf) and sf.get("c") not in known and len(errs) == 1:
        return f"class {sf.get('c')}, the other MPI gives {other_class}: {text}"
    tally["refused"] += 1
    wrote = text.startswith("write") and any(n > 0 for n in ints(pf, "n"))
    # a view or a pointer the MPI took and the shim refused: the runs'
    # states part here (OMPIO takes a negative displacement)
    moved = text.split()[0] in ("set_view", "seek") and not all_failed(pf)
    return "stop" if wrote or moved else None


def misread(fields):
    """Ranks whose successful read gave other bytes than the file holds
    before its end (v, the buffer's; o, the same bytes read with POSIX)."""
    v, o, c = fields.get("v", "").split(","), fields.get("o", "").split(","), classes(fields)
    return [r for r in range(len(c)) if c[r] == "SUCCESS" and fields.get("x", "-1").split(",")[r]
            != "-1" and v[r] != o[r]]


def stale_holes(plain_end, shim_end):
    """The files differ only in bytes no successful write put there (the
    same size and `written` hash): ROMIO's buffers write stale bytes into
    the gap a write past the end opens (docs/differences.md)."""
    p, s = parse_end(plain_end), parse_end(shim_end)
    return (p.get("size") == s.get("size") and p.get("written") is not None
            and p.get("written") == s.get("written"))


def seek_end(text, pf, sf):
    """A seek to the end (whence=2) that the shim made where the standard
    puts it (x, computed by the program from the view and the file's size,
    as ROMIO's ADIOI_Get_eof_offset counts) and the MPI did not: OMPIO
    counts the file's bytes past the displacement, holes of the view and
    all (or fails where the file ends before the view begins)."""
    return (text.startswith("seek whence=2") and not any(failed(sf))
            and ints(sf, "x") and ints(sf, "p") == ints(sf, "x")
            and without(pf, "c", "p") == without(sf, "c", "p"))


def failed_view(text, pf, sf):
    """A set_view that failed alike in both runs: the view and pointers it
    leaves are each library's own (OMPIO keeps part of the view and resets
    the pointer; tacio, holding a view apart from the library, keeps both
    as they were, as ROMIO does)."""
    return (text.startswith("set_view") and all_failed(pf) and all_failed(sf)
            and pf.get("c") == sf.get("c"))


def odd_pointer(other_calls, index, plain, shim):
    """A call that failed alike, after which the MPI alone moved its
    individual pointer and the other MPI, like the shim, did not (OMPIO's
    preallocate on a read-only file)."""
    (op, text, pf), (_, _, sf) = plain, shim
    o_fields = other_run(other_calls, index, op, text)
    return (all_failed(pf) and pf.get("c") == sf.get("c") and o_fields is not None
            and without(pf, "p") == without(sf, "p") and o_fields.get("p") == sf.get("p"))


def mpi_garbage(text, pf, sf):
    """An independent call (the shim passes it to the MPI) that both runs
    answered alike but for the read buffer, which the MPI filled with bytes
    of no file: OMPIO's read_at at a negative offset reports success, 0
    bytes, and leaves garbage in the buffer, different run to run."""
    independent = not text.split()[0].endswith("_all")
    return independent and without(pf, "h") == without(sf, "h") and all(
        n <= 0 for n in ints(pf, "n"))


def stale_read(pf, sf):
    """A read whose data differ only in bytes no successful write put in the
    file (w: the data with those bytes as 0, the same in both): stale gap
    bytes read back."""
    return "w" in pf and pf.get("w") == sf.get("w") and pf.get("v") != sf.get("v")


def parse_end(text):
    return dict(kv.split("=", 1) for kv in text.split() if "=" in kv)


def odd_one_out(other_calls, index, shim):
    """The other MPI, running the same call, got what the shim got (the
    file's bytes, or a read's data and the file's bytes under it): the MPI
    alone differs, a bug of its own (MPICH 4.0.2's ROMIO writes some
    sequences' files differently after earlier sequences, run to run the
    same; alone, the same sequence gives the others' file)."""
    s_op, s_text, s_fields = shim
    o_fields = other_run(other_calls, index, s_op, s_text)
    if o_fields is None:
        return False
    keys = ("c", "x", "v", "o")
    return s_op == "end" or all(o_fields.get(k) == s_fields.get(k) for k in keys)


def compare_call(plain, shim, other_calls, index, tally, served):
    """None when the call agrees (or differs as documented, counted in
    tally); 'stop' for a documented stop; else the divergence's text.
    served: whether tacio serves collectives under the current view."""
    (op, text, pf), (s_op, s_text, sf) = plain, shim
    if op == "end" == s_op and text != s_text:
        if stale_holes(text, s_text):
            tally["stale_holes"] += 1
            return None
        if odd_one_out(other_calls, index, shim):
            tally["mpi_odd"] += 1
            return None
        return f"the files differ: {text} / {s_text}"
    if (op, text) != (s_op, s_text):
        return f"the runs made different calls: {op} {text} / {s_op} {s_text}"
    wrong = misread(sf) if text.split()[0].endswith("_all") else []  # tacio's reads
    if wrong:
        return f"the shim read other data than the file holds (POSIX), ranks {wrong}: {text}"
    if " doc=" in text:  # see docs/differences.md: from here on the MPIs' own state is a guess
        tally["documented"] += 1
        return "stop"
    if failed_view(text, pf, sf):  # the next call's view is each library's guess
        tally["documented"] += 1
        return "stop"
    if pf == sf:
        return None
    if seek_end(text, pf, sf):
        tally["seek_end"] += 1
        return None
    if odd_pointer(other_calls, index, plain, shim):
        tally["mpi_odd"] += 1
        return "stop"
    if misread(pf):  # the MPI's own read is wrong: nothing to compare the shim's with
        tally["mpi_misread"] += 1
        pf, sf = without(pf, "n", "p", "h", "v", "o"), without(sf, "n", "p", "h", "v", "o")
        if pf == sf:
            return None
    if stale_read(pf, sf):  # see stale_holes: the MPI's stale bytes, read back
        tally["stale_holes"] += 1
        pf, sf = without(pf, "h", "v", "o", "w"), without(sf, "h", "v", "o", "w")
        if pf == sf:
            return None
    if eof_read(op, text, pf, sf, served):
        tally["eof_count"] += 1
        return None
    if zero_count(text, pf, sf):
        tally["zero_count"] += 1
        return None
    if mpi_garbage(text, pf, sf):
        tally["mpi_garbage"] += 1
        return None
    if erroneous(text):
        return refused(pf, sf, other_calls, index, op, text, tally)
    if all_failed(pf) and pf.get("c") == sf.get("c"):
        pf, sf = without_buffers(pf), without_buffers(sf)  # undefined after an error
        if pf == sf:
            return None
    if pf.get("c") != sf.get("c"):
        if all_failed(pf) and all_failed(sf) and other_disagrees(other_calls, index, op, text, pf):
            tally["mpi_disagree"] += 1
            return None
        if odd_one_out(other_calls, index, shim):  # the MPI alone failed (Intel MPI: a huge offset)
            tally["mpi_odd"] += 1
            return "stop"
        return f"error classes differ: {text}"
    if odd_one_out(other_calls, index, shim):
        tally["mpi_odd"] += 1
        return "stop"  # the MPI's file is not the others': nothing more to compare
    diff = [k for k in FIELDS if pf.get(k) != sf.get(k)]
    return f"{','.join(diff)} differ: {text}"


def serves_view(text, fields, served):
    """Whether tacio serves collectives after this call: the shim passes a
    view in any datarep but native to the MPI (an open starts native)."""
    name = text.split()[0]
    if name == "open":
        return True
    if name == "set_view" and not any(failed(fields)):
        return " rep=native" in text
    return served


def compare_sequence(seq, plain, shim, other, tally):
    other_calls = other.get(seq) if other else None
    served = True
    for i, (pc, sc) in enumerate(zip(plain, shim)):
        tally["calls"] += 1
        verdict = compare_call(pc, sc, other_calls, i, tally, served)
        served = serves_view(sc[1], sc[2], served)
        if verdict == "stop":
            return None
        if verdict:
            return f"seq {seq} call {pc[0]}: {verdict}\n  plain: {pc}\n  shim:  {sc}"
    if len(plain) != len(shim):
        return f"seq {seq}: {len(plain)} calls plain, {len(shim)} under the shim"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("plain")
    ap.add_argument("shim")
    ap.add_argument("other", nargs="?")
    ap.add_argument("--label", default="")
    ap.add_argument("--show", type=int, default=10, help="divergences printed")
    ap.add_argument("--divergent", help="write the diverging sequences' numbers here")
    a = ap.parse_args()
    plain, shim = parse(a.plain), parse(a.shim)
    other = parse(a.other) if a.other else None
    tally = collections.Counter()
    found = []
    for seq in sorted(set(plain) | set(shim)):
        d = compare_sequence(seq, plain.get(seq, []), shim.get(seq, []), other, tally)
        if d:
            found.append(d)
    if a.divergent:
        with open(a.divergent, "w") as f:
            f.write("".join(f"{d.split()[1]}\n" for d in found))
    for d in found[: a.show]:
        print("DIVERGENCE", d)
    print(f"fuzz: {a.label} calls={tally['calls']} sequences={len(plain)} "
          f"divergences={len(found)} documented={tally['documented']} "
          f"mpi_disagree={tally['mpi_disagree']} eof_count={tally['eof_count']} "
          f"refused={tally['refused']} zero_count={tally['zero_count']} "
          f"mpi_misread={tally['mpi_misread']} mpi_odd={tally['mpi_odd']} "
          f"stale_holes={tally['stale_holes']} mpi_garbage={tally['mpi_garbage']} "
          f"seek_end={tally['seek_end']}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
