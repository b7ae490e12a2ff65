#!/usr/bin/env python3
"""Before/after: the same inputs through two builds, stdout and stderr
(the receipt) compared byte for byte.

    scripts/compare-builds.py OLD_BINARY NEW_BINARY [--budgets 2000,8000,25000,off]
                              [--out DIR] [--only SUBSTRING]

Every text fixture (fixtures/text/**/X.txt with its X.signal.json: command
and exit code) and every JSON fixture (fixtures/json/**/*.json) goes through
each build

- in filter mode (`tokensieve --cmd CMD --exit N < X`, JSON without
  `--cmd`) under each budget (`TOKENSIEVE_BUDGET`), and
- through `tokensieve run -- DIR/TOOL ARGS` at the default budget, where
  DIR/TOOL is a script named after the command's tool that prints the
  fixture and exits with its code (the shim's whole path: capture, hint,
  store, receipt).

Both builds run with the same empty TOKENSIEVE_HOME path (emptied between
them) and no agent marker, so raw ids and notes are the same when the
behaviour is. Prints one line per case that differs and keeps both outputs
under --out (default target/compare) as CASE.old / CASE.new; exits 1 when
any case differs. Both binaries are linked as `tokensieve` (argv[0] picks
the CLI).
"""

import argparse
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MARKERS = ["CLAUDECODE", "CODEX_CI", "CODEX_SANDBOX", "CODEX_THREAD_ID", "GEMINI_CLI", "CURSOR_AGENT",
           "OPENCODE", "OPENCODE_CLIENT", "AGENT", "AI_AGENT", "COPILOT_CLI", "CURSOR_EXTENSION_HOST_ROLE"]
OURS = ["TOKENSIEVE", "TOKENSIEVE_DEBUG", "TOKENSIEVE_BUDGET", "BASH_MAX_OUTPUT_LENGTH", "TOKENSIEVE_DEPTH",
        "TOKENSIEVE_RECEIPT", "TOKENSIEVE_FORMAT", "TOKENSIEVE_SHIMS"]


def cases(only):
    """(name, input path, command words or None, exit code)"""
    out = []
    for txt in sorted((ROOT / "fixtures/text").rglob("*.txt")):
        sidecar = txt.with_suffix(".signal.json")
        if not sidecar.exists():
            continue
        sig = json.loads(sidecar.read_text())
        words = shlex.split(sig["command"])
        while words and "=" in words[0] and not words[0].startswith("="):
            words.pop(0)  # `RUST_BACKTRACE=1 cargo test`: the tool is the next word
        if words:
            out.append((str(txt.relative_to(ROOT)), txt, words, int(sig["exit_code"])))
    for doc in sorted((ROOT / "fixtures/json").rglob("*.json")):
        if doc.name.endswith(".signal.json"):
            continue
        family = doc.parent.name if doc.parent.name in ("aws", "gh", "kubectl") else "tool"
        out.append((str(doc.relative_to(ROOT)), doc, None if family == "tool" else [family], 0))
    return [c for c in out if only is None or only in c[0]]


def env_for(home, budget):
    env = {k: v for k, v in os.environ.items() if k not in MARKERS + OURS}
    env["TOKENSIEVE_HOME"] = str(home)
    if budget is not None:
        env["TOKENSIEVE_BUDGET"] = budget
    return env


def filter_mode(binary, path, words, code, home, budget):
    args = [str(binary)]
    if words is not None:
        args += ["--cmd", shlex.join(words), "--exit", str(code)]
    with open(path, "rb") as stdin:
        p = subprocess.run(args, stdin=stdin, capture_output=True, env=env_for(home, budget), timeout=600)
    return p.stdout, p.stderr + f"\n[exit {p.returncode}]\n".encode()


def run_mode(binary, path, words, code, home, tools):
    words = words or ["tool"]
    tool = tools / os.path.basename(words[0])
    if not tool.exists():
        tool.write_text('#!/bin/sh\ncat "$COMPARE_FIXTURE"\nexit "$COMPARE_CODE"\n')
        tool.chmod(0o755)
    env = env_for(home, None)
    env.update(COMPARE_FIXTURE=str(path), COMPARE_CODE=str(code))
    p = subprocess.run([str(binary), "run", "--", str(tool)] + words[1:], stdin=subprocess.DEVNULL,
                       capture_output=True, env=env, timeout=600)
    return p.stdout, p.stderr + f"\n[exit {p.returncode}]\n".encode()


def collect(binary, all_cases, budgets, home, tools):
    results = {}
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    for name, path, words, code in all_cases:
        for b in budgets:
            results[(name, f"filter-{b}")] = filter_mode(binary, path, words, code, home, b)
        results[(name, "run")] = run_mode(binary, path, words, code, home, tools)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--budgets", default="2000,8000,25000,off")
    ap.add_argument("--out", default=str(ROOT / "target/compare"))
    ap.add_argument("--only")
    a = ap.parse_args()
    out = pathlib.Path(a.out)
    shutil.rmtree(out, ignore_errors=True)
    (out / "tools").mkdir(parents=True)
    bins = {}
    for side, src in (("old", a.old), ("new", a.new)):
        (out / side).mkdir()
        bins[side] = out / side / "tokensieve"
        os.symlink(os.path.abspath(src), bins[side])
    all_cases = cases(a.only)
    budgets = a.budgets.split(",")
    home = out / "home"  # one path for both: raw notes name it
    got = {side: collect(bins[side], all_cases, budgets, home, out / "tools") for side in ("old", "new")}
    diffs = 0
    for key, before in got["old"].items():
        after = got["new"][key]
        if before == after:
            continue
        diffs += 1
        what = " and ".join(w for w, x, y in (("stdout", before[0], after[0]), ("stderr", before[1], after[1]))
                            if x != y)
        stem = out / "diff" / (key[0].replace("/", "__") + "." + key[1])
        stem.parent.mkdir(exist_ok=True)
        for side, (o, e) in (("old", before), ("new", after)):
            stem.with_name(stem.name + f".{side}").write_bytes(o + b"\n--- stderr ---\n" + e)
        print(f"DIFF {key[0]} [{key[1]}]: {what}  ({stem}.old/.new)")
    total = len(got["old"])
    print(f"{total} cases ({len(all_cases)} fixtures x ({len(budgets)} budgets + run)), {diffs} differ")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
