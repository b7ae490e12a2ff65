#!/usr/bin/env python3
"""Cost of the history database over many consecutive calls (issue 4/5).

Runs the release binary N times in filter mode on one small fixture with a
fresh TOKENSIEVE_HOME, as an agent session would, and prints the mean and
percentiles of the two history costs that TOKENSIEVE_DEBUG reports (the
open, which runs beside the render, and the row) and the wall time per
call. Steady state matters: a WAL left behind grows call after call.

    scripts/bench-history.py [N]        # default 600 calls
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.join(root, "target", "release", "tokensieve")
fixture = os.path.join(root, "fixtures", "json", "gh", "api-orgs.json")
n = int(sys.argv[1]) if len(sys.argv) > 1 else 600

if not os.path.exists(binary):
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=root, check=True)
home = tempfile.mkdtemp(prefix="tokensieve-history-bench-")
env = dict(os.environ, TOKENSIEVE_HOME=home, TOKENSIEVE_DEBUG="1")
opens, rows = [], []
started = time.time()
try:
    for _ in range(n):
        p = subprocess.run([binary, fixture], env=env, capture_output=True, check=True)
        m = re.search(rb"history open (\d+) .*row (\d+)", p.stderr)
        if not m:
            sys.exit("no history timing on stderr: " + p.stderr.decode(errors="replace"))
        opens.append(int(m[1]))
        rows.append(int(m[2]))
    wall = (time.time() - started) / n * 1e6
    wal = os.path.join(home, "history.db-wal")
    wal_size = os.path.getsize(wal) if os.path.exists(wal) else 0
finally:
    shutil.rmtree(home, ignore_errors=True)


def pct(xs, q):
    return sorted(xs)[min(len(xs) - 1, int(len(xs) * q))]


print(f"| {n} calls | mean µs | p50 µs | p99 µs |")
print("|---|---:|---:|---:|")
for name, xs in (("history open (beside the render)", opens), ("history row", rows)):
    print(f"| {name} | {sum(xs) / n:.0f} | {pct(xs, 0.5)} | {pct(xs, 0.99)} |")
print(f"| whole call, wall | {wall:.0f} | | |")
print(f"\nWAL file left after the last call: {wal_size} bytes")
