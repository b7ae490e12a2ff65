#!/usr/bin/env python3
"""Single-line inputs through the release binary (issue 13): wall time, CPU
time and peak RSS per input, against the targets <= 1 s per 5 MB and peak
RSS <= 10x the input, with every case's ratio to a realistic input (base64
of the same size) measured in the same run.

    scripts/bench-single-line.py [--sizes 5,10] [--runs 3] [--modes filter,run]
                                 [--cases json,letters] [--binary BIN] [--old BIN]

Modes: `filter` (`tokensieve < file`), `text path` (`--cmd 'cat big.log'`),
`run` (`tokensieve run -- cat FILE`, as an agent's call: the capture path)
and `shim` (the same through a symlink named `cat`, first on PATH). In run
and shim, stdout is a pipe this script reads (so the policy compresses) and
a call without a receipt, i.e. passed through, is marked PASSTHROUGH.
`--old BIN` measures a second binary on the same files in the same run,
interleaved (its peak RSS ratio is the "old RSS" column). `--cases` keeps
the inputs whose name contains one of the words.

Builds the release binary if needed; inputs are generated into
target/bench/single-line (seeded, so every run measures the same bytes).
Needs GNU time (/usr/bin/time). Run it under `nice` on a shared machine.
"""
import argparse, base64, json, os, random, statistics, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = os.path.join(root, "target", "bench", "single-line")
# The static release build (scripts/static-build.sh names the target).
triple = os.environ.get("CARGO_BUILD_TARGET", "x86_64-unknown-linux-gnu")
binary = os.path.join(root, "target", triple, "release", "tokensieve")


def make_inputs(mb):
    """name -> path of one line of `mb` megabytes (plus its newline)."""
    n = mb * 1_000_000
    rnd = random.Random(13 + mb)
    lower = "abcdefghijklmnopqrstuvwxyz"
    words = "the of and to in is that it for on with as was at by be this are from or have an not".split()
    cases = {
        # realistic
        "base64": lambda: base64.b64encode(rnd.randbytes(n * 3 // 4)).decode()[:n],
        "prose words": lambda: " ".join(rnd.choice(words) for _ in range(n // 3))[:n],
        # one BPE piece each
        "letter a repeated": lambda: "a" * n,
        "random lowercase letters": lambda: "".join(rnd.choice(lower) for _ in range(n)),
        "abc repeated": lambda: ("abc" * (n // 3 + 1))[:n],
        "spaces": lambda: " " * (n - 1) + "x",
        "punctuation": lambda: "".join(rnd.choice("=-*#.") for _ in range(n)),
    }
    paths = {}

    def write_once(cases):
        for name, make in cases.items():
            path = os.path.join(out, f"{name.replace(' ', '-')}-{mb}mb.txt")
            if not os.path.exists(path):
                with open(path, "w") as f:
                    f.write(make() + "\n")
            paths[name] = path

    write_once(cases)
    # minified JSON: the real 5.8 MB instance-types fixture, repeated to size
    src = json.load(open(os.path.join(root, "fixtures/json/aws/ec2-describe-instance-types-all.json")))
    items = src["InstanceTypes"]
    path = os.path.join(out, f"minified-json-{mb}mb.txt")
    if not os.path.exists(path):
        doc, k = {"InstanceTypes": []}, 0
        while len(json.dumps(doc, separators=(",", ":"))) < n:
            doc["InstanceTypes"].extend(items[k:k + 50])
            k = (k + 50) % len(items)
        with open(path, "w") as f:
            f.write(json.dumps(doc, separators=(",", ":")) + "\n")
    paths["minified JSON"] = path
    # JSON of tiny values: a tree of these would take 20-40x the text
    dense = {
        "JSON of ones": lambda: "[" + "1," * (n // 2 - 1) + "1]",
        "JSON small records": lambda: "[" + ",".join(
            '{"a":%d,"b":"x"}' % (i % 7) for i in range(n // 16)) + "]",
    }
    write_once(dense)
    return paths


MODES = {
    "filter": ["{bin}"],
    "text path": ["{bin}", "--cmd", "cat big.log"],
    "run": ["{bin}", "run", "--", "cat", "{file}"],
    "shim": ["{shims}/cat", "{file}"],
}


def command(mode, bin, path, shims):
    """argv, stdin file or None, whether an agent's pipe reads stdout."""
    argv = [a.format(bin=bin, file=path, shims=shims) for a in MODES[mode]]
    captured = mode in ("run", "shim")
    return argv, (None if captured else path), captured


def shim_dir(bin):
    """A folder with `cat` linked to `bin`: the shim of a tool that prints a file."""
    d = tempfile.mkdtemp(prefix="bench-shim-", dir=out)
    os.symlink(os.path.abspath(bin), os.path.join(d, "cat"))
    return d


def measure(mode, bin, path, runs, shims):
    """Median wall s, median CPU s, max peak RSS bytes over `runs` runs, and
    whether every run compressed (a receipt on stderr)."""
    walls, cpus, rss, compressed = [], [], [], True
    env = {k: v for k, v in os.environ.items() if k not in ("TOKENSIEVE", "TOKENSIEVE_DEPTH")}
    env["TOKENSIEVE_HOME"] = os.path.join(out, "home")
    argv, stdin_path, captured = command(mode, bin, path, shims)
    if captured:
        env["CLAUDECODE"] = "1"
        env["PATH"] = f"{shims}:{env.get('PATH', '/usr/bin:/bin')}"
    for _ in range(runs):
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        # Captured calls write to a pipe we read (an agent's), the others
        # to /dev/null.
        r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *argv], stdin=stdin,
                           stdout=subprocess.PIPE if captured else subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=env, check=True)
        if stdin_path:
            stdin.close()
        lines = r.stderr.decode(errors="replace").strip().splitlines()
        e, u, s, m = lines[-1].split()
        # The receipt: "[TokenSieve] ..." for a person, "[tokensieve ...]" for an agent.
        compressed &= any(l.lower().startswith("[tokensieve") for l in lines)
        walls.append(float(e)); cpus.append(float(u) + float(s)); rss.append(int(m) * 1024)
    return statistics.median(walls), statistics.median(cpus), max(rss), compressed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="5,10")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--modes", default="filter,text path",
                    help="comma-separated, of: " + ", ".join(MODES))
    ap.add_argument("--cases", default="", help="comma-separated words; empty: every input")
    ap.add_argument("--binary", default=binary)
    ap.add_argument("--old", default=None, help="a second binary, measured in the same run")
    a = ap.parse_args()
    os.makedirs(out, exist_ok=True)
    bin = a.binary
    if not os.path.exists(bin):
        subprocess.run(["bash", "-c", ". scripts/static-build.sh && cargo build --release -q"], cwd=root, check=True)
    modes = [m.strip() for m in a.modes.split(",")]
    for m in modes:
        if m not in MODES:
            sys.exit(f"unknown mode {m!r}: one of {', '.join(MODES)}")
    words = [w.strip().lower() for w in a.cases.split(",") if w.strip()]
    shims = {b: shim_dir(b) for b in (bin, a.old) if b}
    print(f"Machine: {os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[:3]}")
    print()
    old = " old RSS / input |" if a.old else ""
    print(f"| input | MB | mode | wall s | CPU s | s per 5 MB (wall) | peak RSS | RSS / input |{old} wall vs base64 | |")
    print("|---|---:|---|---:|---:|---:|---:|---:|" + ("---:|" if a.old else "") + "---:|---|")
    for mb in (int(s) for s in a.sizes.split(",")):
        paths = make_inputs(mb)
        for mode in modes:
            base = None
            for name, path in paths.items():
                if words and name != "base64" and not any(w in name.lower() for w in words):
                    continue
                size = os.path.getsize(path)
                wall, cpu, rss, compressed = measure(mode, bin, path, a.runs, shims[bin])
                if name == "base64":
                    base = wall
                    if words and not any(w in name for w in words):
                        continue
                before = ""
                if a.old:
                    _, _, old_rss, _ = measure(mode, a.old, path, a.runs, shims[a.old])
                    before = f" {old_rss / size:.1f}x |"
                per5 = wall * 5e6 / size
                ok = per5 <= 1.0 and rss <= 10 * size
                verdict = "PASSTHROUGH" if not compressed else "ok" if ok else "MISS"
                vs = f"{wall / base:.2f}x" if base else "-"
                print(f"| {name} | {size / 1e6:.0f} | {mode} | {wall:.2f} | {cpu:.2f} | {per5:.2f} | "
                      f"{rss / 1e6:.0f} MB | {rss / size:.1f}x |{before} {vs} | {verdict} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
