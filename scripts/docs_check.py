#!/usr/bin/env python3
"""The documentation against the code: what README.md and docs/ name must
exist, and what the code offers users must be documented.

- docs/cli.md's tables of pattern and topology kinds are the registries'
  (`tacio list patterns|topologies --summary`); docs/strategies.md's and the
  README's strategy tables name the registry's strategies, no more, no fewer;
- docs/hints.md's table is the code's hint tables (scripts/hints_doc.py);
- every hint given a value (`tacio_x=...`) is a hint (or a key a bench
  prints), and every other `tacio_*` name is one the code has;
- every TACIO_* variable the docs name is one the code reads, and every
  variable src/ and tools/ read is in docs/usage.md's environment table;
- every key of the statistics (TACIO_STATS_FIELDS in include/tacio.h) is
  in docs/usage.md's statistics table;
- every `tacio SUBCOMMAND` the docs show is one `tacio --help` lists, and
  docs/cli.md and the man page (docs/tacio.1) document each of them;
- relative links point to files that exist, and their #anchors to headings;
- the README stays under 250 lines.

usage: docs_check.py TACIO ROOT            check (exit 1 on a difference)
       docs_check.py TACIO ROOT --write    rewrite the two kind tables
"""
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hints_doc  # noqa: E402

KIND_TABLES = {"## Access patterns (`--pattern`)": "patterns",
               "## Topologies (`--topology`)": "topologies"}
STRATEGY_TABLES = [("docs/strategies.md", "# Strategies"), ("README.md", "# tacio")]
CODE_DIRS = ["src", "include", "tools", "bench", "tests", "scripts"]
README_MAX_LINES = 250


def listing(tacio, kind):
    out = subprocess.run([tacio, "list", kind, "--summary"], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("\t", 1) for line in out.splitlines()]


def table_span(lines, heading):
    """[first, end) of the rows of the first table below the heading."""
    at = lines.index(heading)
    first = next(i for i in range(at, len(lines)) if lines[i].startswith("|")) + 2
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return first, end


def check_registries(tacio, root, write, bad):
    cli = root / "docs/cli.md"
    lines = cli.read_text().split("\n")
    for heading, kind in KIND_TABLES.items():
        want = [f"| `{form}` | {summary} |" for form, summary in listing(tacio, kind)]
        first, end = table_span(lines, heading)
        if lines[first:end] != want:
            bad.append(f"docs/cli.md: the {kind} table differs from `tacio list {kind} "
                       "--summary` (docs_check.py TACIO ROOT --write)")
            lines[first:end] = want
    if write:
        cli.write_text("\n".join(lines))
    registry = [name for name, _ in listing(tacio, "strategies")]
    for page, heading in STRATEGY_TABLES:
        lines = (root / page).read_text().split("\n")
        first, end = table_span(lines, heading)
        named = [re.findall(r"`(\w+)`", row.split("|")[1]) for row in lines[first:end]]
        named = [n for names in named for n in names]
        if sorted(named) != sorted(registry):
            bad.append(f"{page}: strategies {named}, the registry's {registry}")


def pages(root):
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def code_text(root):
    parts = []
    for d in CODE_DIRS:
        for p in (root / d).rglob("*"):
            if p.is_file() and p.suffix in ("", ".c", ".h", ".py", ".sh", ".in", ".txt", ".map"):
                try:
                    parts.append(p.read_text())
                except UnicodeDecodeError:
                    pass
    parts.append((root / "CMakeLists.txt").read_text())
    return "\n".join(parts)


def check_names(root, bad):
    keys = {h[0] for h in hints_doc.hints(root)}
    keys |= {old for olds in hints_doc.aliases(root).values() for old in olds}
    code = code_text(root)
    code_names = set(re.findall(r"\btacio_\w+", code))
    code_env = set(re.findall(r"\b(?:TACIO|ROMIO)_[A-Z_]+", code))
    for page in pages(root):
        text = page.read_text()
        rel = page.relative_to(root)
        for key in set(re.findall(r"\b(tacio_[a-z_]+)=", text)):
            if key not in keys and f"{key}=" not in code:  # a hint, or a key a bench prints
                bad.append(f"{rel}: hint {key} is not in the code's hint tables")
        for name in set(re.findall(r"\btacio_[a-z][a-z0-9_]*[a-z0-9]\b", text)):
            if name not in keys and name not in code_names:
                bad.append(f"{rel}: {name} is no hint and no name in the code")
        for var in set(re.findall(r"\bTACIO_[A-Z][A-Z_]*[A-Z]\b", text)):
            if var not in code_env:
                bad.append(f"{rel}: {var} is not in the code")
    usage = (root / "docs/usage.md").read_text()
    env_rows = usage[usage.index("## Environment"):].split("\n## ")[0]
    for path in [*(root / "src").rglob("*.c"), *(root / "tools").glob("*.c")]:
        for var in re.findall(r'getenv\("([A-Z_]+)"\)', path.read_text()):
            if f"`{var}" not in env_rows:
                bad.append(f"docs/usage.md: the environment table lacks {var} "
                           f"({path.relative_to(root)} reads it)")


def documented_keys(text):
    """The `key`s text names, a range `st1`..`st5` as every key in it."""
    keys = set(re.findall(r"`(\w+)`", text))
    for stem, lo, hi in re.findall(r"`([a-z_]+?)(\d+)`\.\.`\1(\d+)`", text):
        keys |= {f"{stem}{k}" for k in range(int(lo), int(hi) + 1)}
    return keys


def check_stats(root, bad):
    header = (root / "include/tacio.h").read_text()
    fields = re.findall(r'X\(\w+, \w+, "(\w+)", TACIO_STAT_', header)
    usage = (root / "docs/usage.md").read_text()
    table = documented_keys(usage[usage.index("## Statistics"):].split("\n## ")[0])
    if not fields:
        bad.append("include/tacio.h: no TACIO_STATS_FIELDS row found")
    for key in fields:
        if key not in table:
            bad.append(f"docs/usage.md: the statistics table lacks {key} (include/tacio.h)")
    # the keys the JSON line writes before the table's rows (src/exec/call.c)
    call = (root / "src/exec/call.c").read_text()
    for key in re.findall(r'\\"(\w+)\\":', call):
        if key not in table:
            bad.append(f"docs/usage.md: the statistics table lacks {key} (src/exec/call.c)")


def subcommands(tacio):
    usage = subprocess.run([tacio, "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"tacio (\w+)", usage))


def check_commands(tacio, root, bad):
    known = subcommands(tacio)
    for page in pages(root):
        for sub in set(re.findall(r"`tacio ([a-z]+)\b", page.read_text())):
            if sub not in known:
                bad.append(f"{page.relative_to(root)}: `tacio {sub}` is no subcommand "
                           f"(tacio --help lists {sorted(known)})")
    cli = (root / "docs/cli.md").read_text()
    man = (root / "docs/tacio.1").read_text()
    for sub in sorted(known):
        if not re.search(rf"^## .*`tacio {sub}", cli, re.M):
            bad.append(f"docs/cli.md: no section for `tacio {sub}`")
        if not re.search(rf"^\.SS .*{sub}", man, re.M):
            bad.append(f"docs/tacio.1: no .SS section for {sub}")


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def check_links(root, bad):
    for page in pages(root):
        text = page.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, frag = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append(f"{page.relative_to(root)}: link to {target}: no such file")
            elif frag and dest.suffix == ".md":
                heads = {anchor(h) for h in re.findall(r"^#+ (.*)$", dest.read_text(), re.M)}
                if frag not in heads:
                    bad.append(f"{page.relative_to(root)}: link to {target}: no such heading")


def main(argv):
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--write"):
        sys.exit(__doc__)
    tacio, root, write = argv[0], Path(argv[1]), len(argv) == 3
    bad = []
    check_registries(tacio, root, write, bad)
    if hints_doc.main(["--check", str(root)]):
        bad.append("docs/hints.md: stale (scripts/hints_doc.py)")
    check_names(root, bad)
    check_stats(root, bad)
    check_commands(tacio, root, bad)
    check_links(root, bad)
    n = len((root / "README.md").read_text().split("\n"))
    if n > README_MAX_LINES:
        bad.append(f"README.md: {n} lines, more than {README_MAX_LINES}")
    for line in bad:
        print(f"docs_check: {line}", file=sys.stderr)
    print(f"docs_check: {len(bad)} difference(s) between the docs and the code")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
