#!/usr/bin/env python3
"""Focus views over fixtures/json (issue 22): for each fixture, the tokens of
the whole rendering (TOKENSIEVE_FOCUS=off) and of the focus view (the focus
size at 0, so every document gets one when it saves a quarter), with the
command of its MANIFEST row as hint. Then, per focus size, the tokens a
session of all fixtures would read. The focus size default is chosen from
this table.

Usage: scripts/bench-focus.py BIN [FIXTURE_DIR]
"""
import os, re, subprocess, sys, tempfile
from pathlib import Path

ts = sys.argv[1]
root = Path(sys.argv[2] if len(sys.argv) > 2 else "fixtures/json")
cmds = {}
for line in (root / "MANIFEST.tsv").read_text().splitlines()[1:]:
    cols = line.split("\t")
    if len(cols) > 2:
        cmds[cols[0]] = cols[2]
RECEIPT = re.compile(r"Original: (\d+) tok \| Compressed: (\d+) tok")
home = tempfile.mkdtemp(prefix="bench-focus-")

def tokens(path, focus):
    env = dict(os.environ, TOKENSIEVE_HOME=home, TOKENSIEVE_FOCUS=focus, TOKENSIEVE_RECEIPT="long")
    args = [ts]
    rel = str(path.relative_to(root))
    if rel in cmds:
        args += ["--cmd", cmds[rel]]
    out = subprocess.run(args + [str(path)], capture_output=True, env=env, timeout=300)
    m = RECEIPT.search(out.stderr.decode(errors="replace"))
    view = out.stdout.startswith(b"# view: focus")
    return (int(m.group(2)) if m else None), view

rows = []
for path in sorted(root.rglob("*.json")):
    full, _ = tokens(path, "off")
    focus, view = tokens(path, "0")
    if full is None or focus is None:
        continue
    rows.append((str(path.relative_to(root)), full, focus if view else full, view))
print(f"{'fixture':60} {'whole':>7} {'focus':>7} {'saved':>6}")
for name, full, focus, view in sorted(rows, key=lambda r: r[1]):
    print(f"{name:60} {full:7} {focus:7} {100 * (full - focus) / full:5.0f}%" + ("" if view else "  (whole)"))
print()
total_full = sum(r[1] for r in rows)
print(f"{'focus size':>10} {'tokens':>8} {'saved':>6} {'views':>6}")
for size in (0, 250, 500, 750, 1000, 1500, 2000, 4000):
    t = sum(r[2] if r[1] > size else r[1] for r in rows)
    n = sum(1 for r in rows if r[3] and r[1] > size)
    print(f"{size:>10} {t:8} {100 * (total_full - t) / total_full:5.1f}% {n:6}")
