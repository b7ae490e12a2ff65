#!/usr/bin/env python3
"""must_keep of text sets, judged verbatim and "verbatim or rebuilt from a fold".

Usage: fold-fidelity.py [--via-run] TOKENSIEVE_BINARY DIR ...

`../shared/tools/measure_text.py` counts a must_keep string as kept only when
it is a substring of the rendering. A report of findings folded by rule
(issue 26, rule 1) prints the first finding of a rule as printed and, for
the others, only the values that tell them apart:

    docs/a.md:30:1 error MD034/no-bare-urls Bare URL used [Context: "http://x"]
    … 17 more like it, their values: 37,1,"http://y"; 62,19,"http://z" (19 lines: tokensieve show ID --grep '…')

`docs/a.md:62:19 error MD034/… [Context: "http://z"]` is then not a
substring, though every character of it can be read back. This script counts
such a line as rebuilt when a fold line holds, as one of its `;`-separated
entries, exactly the line's values (numbers and quoted names, as
src/text/report.rs `places` finds them) that differ from a printed line of
the same template just above the fold, and the other values are that
line's. Prints, per set, kept verbatim and kept verbatim-or-rebuilt.
"""
import json, os, re, shlex, subprocess, sys, tempfile
from pathlib import Path

VIA_RUN = "--via-run" in sys.argv
args = [a for a in sys.argv[1:] if a != "--via-run"]
ts = str(Path(args[0]).resolve())
env = {k: v for k, v in os.environ.items() if k not in ("CLAUDECODE", "TOKENSIEVE")}
env["TOKENSIEVE_HOME"] = tempfile.mkdtemp(prefix="fold-fidelity-")
env["TOKENSIEVE_BUDGET"] = "off"

# report.rs `places`: quoted names (a quote not inside a word), then numbers
# and hex ids outside them
QUOTED = re.compile(r"""(?<![A-Za-z0-9])(['"`])[^'"`]*?\1(?![A-Za-z0-9])""")
NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|[0-9a-fA-F]*[0-9][0-9a-fA-F]*")
FOLD = re.compile(r"… \d+ more like it, their (?:numbers|values): (.*?) \(\d+ lines?: tokensieve show ")


def places(line):
    spans = [m.span() for m in QUOTED.finditer(line)]
    for m in NUMBER.finditer(line):
        if not any(s < m.end() and m.start() < e for s, e in spans):
            spans.append(m.span())
    return sorted(spans)


def template(line):
    out, at = [], 0
    for s, e in places(line):
        out.append(line[at:s])
        at = e
    return "\x01".join(out) + "\x01" + line[at:]


def values(line):
    return [line[s:e] for s, e in places(line)]


def rebuilt(keep, out_lines):
    t = template(keep)
    for k, line in enumerate(out_lines):
        m = FOLD.search(line)
        if not m:
            continue
        entries = [e.split(",") for e in m.group(1).split("; ")]
        # the record printed above the fold: up to 8 lines
        for first in out_lines[max(0, k - 8):k]:
            first = re.sub(r"^L\d+: ", "", first)  # a summary numbers its lines
            if template(first) != t:
                continue
            base, mine = values(first), values(keep)
            differ = [v for v, b in zip(mine, base) if v != b]
            if any(differ == e[: len(differ)] or differ == e[-len(differ):] or
                   _subseq(differ, e) for e in entries):
                return True
    return False


def _subseq(small, big):
    # the line's differing values, in order and adjacent, inside one entry
    n = len(small)
    return n > 0 and any(big[i:i + n] == small for i in range(len(big) - n + 1))


def run(sig, raw, tmp, i):
    if not VIA_RUN:
        return subprocess.run([ts, "--cmd", sig["command"], "--exit", str(sig["exit_code"])],
                              input=raw, capture_output=True, env=env, timeout=120).stdout
    cmd = sig["command"]
    if any(c in cmd for c in "|&;<>$`()") or "=" in cmd.split()[0]:
        return None
    argv = shlex.split(cmd)
    stand = tmp / f"bin{i}"
    stand.mkdir()
    data = tmp / f"{i}.capture"
    data.write_bytes(raw)
    exe = stand / Path(argv[0]).name
    exe.write_text(f"#!/bin/sh\n/bin/cat '{data}'\nexit {int(sig['exit_code'])}\n")
    exe.chmod(0o755)
    e = dict(env, CLAUDECODE="1", PATH=f"{stand}:{os.environ['PATH']}")
    return subprocess.run([ts, "run", "--", Path(argv[0]).name, *argv[1:]], capture_output=True, env=e,
                          timeout=120).stdout


for root in map(Path, args[1:]):
    tmp = Path(tempfile.mkdtemp(prefix="fold-fidelity-"))
    n = verbatim = either = 0
    lost = []
    for i, f in enumerate(sorted(root.glob("*.txt"))):
        sig = json.loads(f.with_suffix(".signal.json").read_text())
        out = run(sig, f.read_bytes(), tmp, i)
        if out is None:
            continue
        text = out.decode(errors="replace")
        lines = text.split("\n")
        n += 1
        missing = [m for m in sig["must_keep"] if m not in text]
        verbatim += not missing
        still = [m for m in missing if not rebuilt(m, lines)]
        either += not still
        lost += [f"{f.name}: {m!r}" for m in still]
    print(f"{root.name}{' (via run)' if VIA_RUN else ''}: {n} fixtures, must_keep verbatim {verbatim}/{n}, "
          f"verbatim or rebuilt from a fold {either}/{n}")
    for l in lost[:10]:
        print("    lost:", l)
