#!/usr/bin/env python3
"""The calls between tacio's source files, checked as the includes are.

The include check (include_graph.py) sees only what a file includes; a
file can still call a function defined in a file that calls back into it,
with both declared in a common header. This reads every .c file of the
layers (src/ and tools/), finds its function definitions (clang-format puts a
definition's opening brace alone in column 0) and the calls in its bodies,
and builds the graph of files calling functions defined in other files.
Calls through pointers (the registries' strategy and pattern tables) are
not edges: that is how a lower layer reaches a higher one by design.

Fails on a circle of calls between files, and on a call from a lower
layer into a higher one (include_graph.py's layers).

usage: scripts/call_graph.py [ROOT] [--quiet]
"""
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from include_graph import layer_of, sources  # noqa: E402

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
HEAD = re.compile(r"^(?!typedef|struct\b.*\{|enum|union|#)[A-Za-z_].*?\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "do", "else"}


def definitions(text):
    """[(name, static, first body line, last body line)] of a file whose
    comments and strings are blanked."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        m = HEAD.match(lines[i])
        if not m:
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j] != "{" and not lines[j].rstrip().endswith(";"):
            j += 1
        if j < len(lines) and lines[j] == "{":
            end = j
            while end < len(lines) and lines[end] != "}":
                end += 1
            out.append((m.group(1), lines[i].startswith("static"), j, end))
            i = end + 1
        else:
            i = j + 1
    return out, lines


def graph(root):
    """{file: {file it calls: {function, ...}}} over the layers' .c files."""
    files, defined = {}, defaultdict(set)
    for rel in sorted(r for r in sources(root) if r.endswith(".c")):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = STRING.sub('""', COMMENT.sub(lambda m: " " * len(m.group(0)), f.read()))
        defs, lines = definitions(text)
        files[rel] = (defs, lines)
        for name, static, _, _ in defs:
            if not static:
                defined[name].add(rel)
    calls = defaultdict(lambda: defaultdict(set))
    for rel, (defs, lines) in files.items():
        own = {name for name, _, _, _ in defs}
        for _, _, first, last in defs:
            for name in CALL.findall("\n".join(lines[first:last])):
                if name in own or name in KEYWORDS:
                    continue
                for callee in defined.get(name, ()):
                    if callee != rel:
                        calls[rel][callee].add(name)
    return calls


def circles(calls):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in calls.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(calls):
        if v not in index:
            visit(v)
    return out


def main(argv):
    quiet = "--quiet" in argv
    rest = [a for a in argv if a != "--quiet"]
    root = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    calls = graph(root)
    bad = []
    for comp in circles(calls):
        inside = [f"{a} -> {b} ({', '.join(sorted(calls[a][b]))})" for a in comp for b in comp
                  if b in calls.get(a, {})]
        bad.append("circle of calls: " + "; ".join(inside))
    for a, callees in sorted(calls.items()):
        for b, names in sorted(callees.items()):
            la, lb = layer_of(a)[1], layer_of(b)[1]
            if la is not None and lb is not None and la < lb:
                bad.append(f"upward call: {a} -> {b} ({', '.join(sorted(names))})")
    if not quiet:
        for a, callees in sorted(calls.items()):
            print(f"{a} -> {', '.join(sorted(callees))}")
    for line in bad:
        print(line)
    print(f"call_graph: {sum(len(c) for c in calls.values())} edges between files, "
          f"{len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
