#!/usr/bin/env python3
"""`tokensieve recall` over a 200-call history: every failed capture found
by status, tool and file, and the time of each query (the whole process,
as an agent pays it), against the same database with the recall indexes
dropped (baseline, same run).

usage: scripts/bench-recall.py [BINARY] [--calls 200] [--runs 21]
(default binary: target/x86_64-unknown-linux-gnu/release/tokensieve)
"""
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fixtures():
    """(path, command, exit) of every text fixture of the shared corpus."""
    out = []
    with open(os.path.join(ROOT, "fixtures/text/MANIFEST.tsv")) as f:
        rows = [r.rstrip("\n").split("\t") for r in f][1:]
    for r in rows:
        cmd = r[2]
        if cmd.startswith('"') and cmd.endswith('"'):
            cmd = cmd[1:-1].replace('""', '"')
        out.append((os.path.join(ROOT, "fixtures/text", r[0]), cmd, int(r[3])))
    return out


def main():
    args = sys.argv[1:]
    binary = os.path.join(ROOT, "target/x86_64-unknown-linux-gnu/release/tokensieve")
    calls, runs = 200, 21
    while args:
        a = args.pop(0)
        if a == "--calls":
            calls = int(args.pop(0))
        elif a == "--runs":
            runs = int(args.pop(0))
        else:
            binary = a
    home = tempfile.mkdtemp(prefix="tokensieve-recall-bench.")
    env = dict(os.environ, TOKENSIEVE_HOME=home)
    for k in ("TOKENSIEVE_FORMAT", "TOKENSIEVE_BUDGET", "CLAUDECODE"):
        env.pop(k, None)
    fx = fixtures()
    expected = {"failed": 0}
    by_tool = {}
    started = time.perf_counter()
    for i in range(calls):
        path, cmd, code = fx[i % len(fx)]
        with open(path, "rb") as f:
            r = subprocess.run([binary, "--format", "json", "--cmd", cmd, "--exit", str(code)],
                               stdin=f, capture_output=True, env=env, check=True)
        result = json.loads(r.stdout)
        if result["status"] == "failed":
            expected["failed"] += 1
            by_tool.setdefault(result["tool"], []).append(result)
    fill = time.perf_counter() - started
    # the tool with most failures, and a file among its findings
    tool = max(by_tool, key=lambda t: len(by_tool[t]))
    files = {}
    for results in by_tool.values():
        for res in results:
            for f in res["findings"]:
                if f["path"]:
                    files.setdefault(f["path"], set()).add(id(res))
    file = max(files, key=lambda p: len(files[p]))
    want_file = 0
    for results in by_tool.values():
        for res in results:
            if any(f["path"] == file for f in res["findings"]):
                want_file += 1
    # the SQL `history::recall` runs for each query, timed alone in SQLite
    select = "SELECT ts_ms, tool, subcommand, status, exit_code, object_id, cwd, result FROM calls " \
             "WHERE result IS NOT NULL AND status = ?1"
    by_file = " AND id IN (SELECT call_id FROM findings WHERE path = ?2 OR path = './' || ?2 " \
              "OR substr(path, -length(?2) - 1) = '/' || ?2)"
    order = " ORDER BY ts_ms DESC, id DESC LIMIT 100000"
    queries = [
        ("--status failed", ["--status", "failed"], expected["failed"], (select + order, ("failed",))),
        (f"--status failed --tool {tool}", ["--status", "failed", "--tool", tool], len(by_tool[tool]),
         (select + " AND tool = ?2" + order, ("failed", tool))),
        (f"--status failed --file {file}", ["--status", "failed", "--file", file], want_file,
         (select + by_file + order, ("failed", file))),
    ]

    def sql_ms(home_dir, sql, args):
        db = sqlite3.connect(os.path.join(home_dir, "history.db"))
        samples = []
        for _ in range(runs):
            t = time.perf_counter()
            db.execute(sql, args).fetchall()
            samples.append((time.perf_counter() - t) * 1000)
        db.close()
        return statistics.median(samples)

    def timed(home_dir, q):
        e = dict(env, TOKENSIEVE_HOME=home_dir)
        samples, found = [], None
        for _ in range(runs):
            t = time.perf_counter()
            r = subprocess.run([binary, "recall", "--json", "--limit", "100000"] + q,
                               capture_output=True, env=e, check=True)
            samples.append((time.perf_counter() - t) * 1000)
            found = len(json.loads(r.stdout))
        return statistics.median(samples), max(samples), found

    base = tempfile.mkdtemp(prefix="tokensieve-recall-base.")
    shutil.copy(os.path.join(home, "history.db"), os.path.join(base, "history.db"))
    db = sqlite3.connect(os.path.join(base, "history.db"))
    for ix in ("findings_path", "calls_status", "calls_tool"):
        db.execute(f"DROP INDEX {ix}")
    db.commit()
    db.close()
    print(f"history: {calls} calls ({fill:.1f} s to record), {expected['failed']} failed; "
          f"median of {runs} runs per query, whole process")
    print(f"{'query':<44} {'found':>6} {'want':>5} {'median ms':>10} {'max ms':>7} "
          f"{'no-index ms':>12} {'ratio':>6} {'sql ms':>7} {'no-index sql':>13}")
    ok = True
    for name, q, want, (sql, sql_args) in queries:
        med, worst, found = timed(home, q)
        bmed, _, bfound = timed(base, q)
        ok &= found == want == bfound and med <= 20
        print(f"{name:<44} {found:>6} {want:>5} {med:>10.2f} {worst:>7.2f} {bmed:>12.2f} {med / bmed:>6.2f} "
              f"{sql_ms(home, sql, sql_args):>7.3f} {sql_ms(base, sql, sql_args):>13.3f}")
    print("(median/max/no-index: the whole `tokensieve recall --json` process; sql: the query alone)")
    shutil.rmtree(home)
    shutil.rmtree(base)
    print("target (every failed capture found, each query <= 20 ms):", "met" if ok else "NOT met")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
