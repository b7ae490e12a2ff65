#!/usr/bin/env python3
"""Every text filter is linear in its input (issue 25): each tool family's
fixture (fixtures/text/MANIFEST.tsv, the first row of each tool, with its
command and exit code as hints) fed to `tokensieve --cmd CMD --exit CODE`
at two sizes, in three shapes:

  lines   the fixture repeated to SIZE (many lines, its own shapes)
  single  the same text with every newline a space (one line)
  warning `warning: something happened here ` repeated (one line): the
          input that stalled the cargo filter

Prints a table: seconds at each size, seconds per 5 MB at the larger size
(target <= 1.0), and the growth from the small size to the large one
(linear: about the size ratio; quadratic: its square).

    scripts/bench-filter-linear.py [--sizes 1,10] [--tools cargo,git] [--binary BIN]

Builds the release binary if needed; inputs go to target/bench/linear.
Run it under `nice` on a shared machine. Exit status 1 when a case misses
the target.
"""
import argparse, csv, os, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
triple = os.environ.get("CARGO_BUILD_TARGET", "x86_64-unknown-linux-gnu")
default_binary = os.path.join(root, "target", triple, "release", "tokensieve")
out_dir = os.path.join(root, "target", "bench", "linear")
MB = 1 << 20


def families():
    seen = {}
    with open(os.path.join(root, "fixtures", "text", "MANIFEST.tsv")) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            seen.setdefault(row["tool"], row)
    return list(seen.values())


def write_input(path, unit, size):
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    with open(path, "wb") as f:
        left = size
        while left > 0:
            part = unit[:left]
            f.write(part)
            left -= len(part)


def measure(binary, command, code, path, timeout):
    env = dict(os.environ, TOKENSIEVE_HOME=os.path.join(out_dir, "home"), TOKENSIEVE_STORE_MAX_BYTES="0")
    for k in ("CLAUDECODE", "TOKENSIEVE"):
        env.pop(k, None)
    started = time.monotonic()
    with open(path, "rb") as stdin:
        try:
            p = subprocess.run(
                [binary, "--cmd", command, "--exit", str(code)],
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return None
    took = time.monotonic() - started
    if p.returncode not in (0, int(code) if str(code).isdigit() else 0):
        pass  # the filter's exit mirrors the hint; only the time is measured here
    return took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,10", help="two sizes in MB: small,large")
    ap.add_argument("--tools", default="", help="only these tools (comma-separated)")
    ap.add_argument("--binary", default=default_binary)
    ap.add_argument("--timeout", type=float, default=120.0)
    a = ap.parse_args()
    small, large = (int(float(s) * MB) for s in a.sizes.split(","))
    if a.binary == default_binary and not os.path.exists(a.binary):
        subprocess.run(["bash", "-c", ". scripts/static-build.sh && cargo build --release"], cwd=root, check=True)
    os.makedirs(out_dir, exist_ok=True)
    wanted = [t for t in a.tools.split(",") if t]
    rows = [r for r in families() if not wanted or r["tool"] in wanted]
    print(f"{'tool':10} {'shape':8} {small / MB:>6.0f} MB s {large / MB:>6.0f} MB s {'s/5MB':>7} {'growth':>7}  ok")
    failed = 0
    for r in rows:
        text = open(os.path.join(root, "fixtures", "text", r["file"]), "rb").read()
        shapes = {
            "lines": text if text.endswith(b"\n") else text + b"\n",
            "single": text.replace(b"\n", b" "),
            "warning": b"warning: something happened here ",
        }
        for shape, unit in shapes.items():
            unit = unit * max(1, (1 << 16) // max(1, len(unit)))
            times = []
            for size in (small, large):
                path = os.path.join(out_dir, f"{r['file']}.{shape}.{size}")
                write_input(path, unit, size)
                times.append(measure(a.binary, r["command"], r["exit_code"] or "0", path, a.timeout))
            t_small, t_large = times
            if t_large is None:
                per5, growth, ok = float("inf"), float("inf"), False
            else:
                per5 = t_large / (large / MB) * 5
                growth = t_large / t_small if t_small else float("inf")
                ok = per5 <= 1.0
            failed += not ok
            fmt = lambda t: "timeout" if t is None else f"{t:.2f}"
            print(
                f"{r['tool']:10} {shape:8} {fmt(t_small):>11} {fmt(t_large):>11} {per5:>7.2f} {growth:>7.1f}  "
                f"{'yes' if ok else 'NO'}  ({r['command']})",
                flush=True,
            )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
