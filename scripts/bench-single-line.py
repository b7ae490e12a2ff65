#!/usr/bin/env python3
"""Single-line inputs through the release binary (issue 13): wall time, CPU
time and peak RSS per input, against the targets <= 1 s per 5 MB and peak
RSS <= 10x the input, with every case's ratio to a realistic input (base64
of the same size) measured in the same run.

    scripts/bench-single-line.py [--sizes 5,10] [--runs 3]

Builds the release binary if needed; inputs are generated into
target/bench/single-line (seeded, so every run measures the same bytes).
Needs GNU time (/usr/bin/time). Run it under `nice` on a shared machine.
"""
import argparse, base64, json, os, random, statistics, subprocess, sys

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
    for name, make in cases.items():
        path = os.path.join(out, f"{name.replace(' ', '-')}-{mb}mb.txt")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(make() + "\n")
        paths[name] = path
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
    return paths


def measure(args, path, runs):
    """Median wall s, median CPU s, max peak RSS bytes over `runs` runs."""
    walls, cpus, rss = [], [], []
    env = dict(os.environ, TOKENSIEVE_HOME=os.path.join(out, "home"))
    for _ in range(runs):
        with open(path, "rb") as stdin:
            r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", binary, *args], stdin=stdin,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=True)
        e, u, s, m = r.stderr.decode().strip().splitlines()[-1].split()
        walls.append(float(e)); cpus.append(float(u) + float(s)); rss.append(int(m) * 1024)
    return statistics.median(walls), statistics.median(cpus), max(rss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="5,10")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(out, exist_ok=True)
    if not os.path.exists(binary):
        subprocess.run(["bash", "-c", ". scripts/static-build.sh && cargo build --release -q"], cwd=root, check=True)
    modes = {"filter": [], "text path": ["--cmd", "cat big.log"]}
    print(f"Machine: {os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[:3]}")
    print()
    print("| input | MB | mode | wall s | CPU s | s per 5 MB (wall) | peak RSS | RSS / input | wall vs base64 | |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for mb in (int(s) for s in a.sizes.split(",")):
        paths = make_inputs(mb)
        for mode, args in modes.items():
            base = None
            for name, path in paths.items():
                size = os.path.getsize(path)
                wall, cpu, rss = measure(args, path, a.runs)
                if name == "base64":
                    base = wall
                per5 = wall * 5e6 / size
                ok = per5 <= 1.0 and rss <= 10 * size
                print(f"| {name} | {size / 1e6:.0f} | {mode} | {wall:.2f} | {cpu:.2f} | {per5:.2f} | "
                      f"{rss / 1e6:.0f} MB | {rss / size:.1f}x | {wall / base:.2f}x | {'ok' if ok else 'MISS'} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
