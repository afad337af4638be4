#!/usr/bin/env python3
"""The include structure of tacio, checked against the house rule.

Layers, lowest first: include/ (the public headers), src/base, src/topo,
src/plan, src/exec, then src/shim and tools/ side by side. An #include may
point down this list or inside its own layer, never up. Inside the tree, a
module is a .c file with its .h (src/exec/rounds.c + rounds.h); a module
includes another when its .c or its .h includes the other's .h, and no
chain of such includes may come back to where it started (no two rooms
call each other, however indirectly).

Prints the edges between layers (with counts) and between modules of each
layer, then every violation; exits 1 when there is one.

usage: scripts/include_graph.py [ROOT] [--quiet]
"""
import os
import re
import sys
from collections import defaultdict

LAYERS = [("include", 0), ("src/base", 1), ("src/topo", 2), ("src/plan", 3), ("src/exec", 4),
          ("src/shim", 5), ("tools", 5)]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    for prefix, rank in LAYERS:
        if rel == prefix or rel.startswith(prefix + "/"):
            return prefix, rank
    return None, None


def module_of(rel):
    """src/exec/rounds.c and src/exec/rounds.h are module src/exec/rounds."""
    return os.path.splitext(rel)[0]


def sources(root):
    for prefix, _ in LAYERS:
        for dirpath, _, files in os.walk(os.path.join(root, prefix)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def resolve(root, rel, name):
    """Where an #include "name" from file rel lands (its folder, then include/, then src/)."""
    for base in (os.path.dirname(rel), "include", "src"):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.exists(os.path.join(root, cand)):
            return cand
    return None


def edges(root):
    out = []
    for rel in sorted(sources(root)):
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        for name in INCLUDE.findall(text):
            target = resolve(root, rel, name)
            if target and layer_of(target)[0] is not None:
                out.append((rel, target))
    return out


def find_cycle(graph):
    """One cycle of the module graph, as a list of modules, or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if not state.get(nxt):
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if not state.get(node):
            found = visit(node)
            if found:
                return found
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quiet = "--quiet" in sys.argv
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    problems, between, modules = [], defaultdict(int), defaultdict(set)
    for src, dst in edges(root):
        (sl, sr), (dl, dr) = layer_of(src), layer_of(dst)
        if sl != dl:
            between[(sl, dl)] += 1
            if dr >= sr:
                problems.append(f"upward include: {src} -> {dst} ({sl} may not include {dl})")
        a, b = module_of(src), module_of(dst)
        if a != b:
            modules[a].add(b)
        modules.setdefault(b, set())
    cycle = find_cycle(modules)
    if cycle:
        problems.append("circle: " + " -> ".join(cycle))
    if not quiet:
        print("edges between layers (includes):")
        for (a, b), n in sorted(between.items()):
            print(f"  {a} -> {b}: {n}")
        for prefix, _ in LAYERS:
            inner = sorted((a, b) for a in modules for b in modules[a]
                           if layer_of(a)[0] == prefix and layer_of(b)[0] == prefix)
            if inner:
                print(f"modules of {prefix}:")
                for a, b in inner:
                    print(f"  {os.path.relpath(a, prefix)} -> {os.path.relpath(b, prefix)}")
    for p in problems:
        print("include_graph: " + p)
    print(f"include_graph: {'FAIL' if problems else 'ok'} ({len(problems)} violations)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
