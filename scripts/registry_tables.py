#!/usr/bin/env python3
"""The README's tables of pattern and topology kinds come from the library's
registries (`tacio list patterns|topologies --summary`), and its strategy
table names the strategies of the registry, no more, no fewer.

usage: registry_tables.py TACIO README.md          check (exit 1 on a difference)
       registry_tables.py TACIO README.md --write  rewrite the two kind tables
"""
import subprocess
import sys

# README heading -> the registry its table shows
TABLES = {"## Access patterns (`--pattern`)": "patterns", "## Topologies (`--topology`)": "topologies"}
STRATEGY_HEADING = "## Strategies (hint `tacio_strategy`)"


def listing(tacio, kind):
    out = subprocess.run([tacio, "list", kind, "--summary"], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("\t", 1) for line in out.splitlines()]


def table_span(lines, heading):
    """[first, end) of the first table's rows (after its two header lines)
    below the heading."""
    at = lines.index(heading)
    first = next(i for i in range(at, len(lines)) if lines[i].startswith("|")) + 2
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return first, end


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--write"):
        sys.exit(__doc__)
    tacio, readme = sys.argv[1], sys.argv[2]
    lines = open(readme).read().split("\n")
    bad = []
    for heading, kind in TABLES.items():
        want = [f"| `{form}` | {summary} |" for form, summary in listing(tacio, kind)]
        first, end = table_span(lines, heading)
        if lines[first:end] != want:
            bad.append(kind)
            lines[first:end] = want
    first, end = table_span(lines, STRATEGY_HEADING)
    named = [row.split("|")[1].strip().strip("`") for row in lines[first:end]]
    registry = [name for name, _ in listing(tacio, "strategies")]
    if named != registry:
        print(f"README strategies {named}, registry {registry}", file=sys.stderr)
        bad.append("strategies")
    if len(sys.argv) == 4:
        open(readme, "w").write("\n".join(lines))
        bad = [b for b in bad if b == "strategies"]
    if bad:
        print(f"registry_tables: README differs from the registry in: {', '.join(bad)} "
              f"(scripts/registry_tables.py TACIO README.md --write)", file=sys.stderr)
        sys.exit(1)
    print(f"registry_tables: README's tables match the registries")


if __name__ == "__main__":
    main()
