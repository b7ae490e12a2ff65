#!/usr/bin/env python3
"""Every text filter is linear in its input (issue 25): each tool family's
fixture (fixtures/text/MANIFEST.tsv, the first row of each tool, with its
command and exit code as hints) fed to `tokensieve --cmd CMD --exit CODE`
at two sizes, in three shapes:

  lines   the fixture repeated to SIZE (many lines, its own shapes)
  single  the same text with every newline a space (one line)
  warning `warning: something happened here ` repeated (one line): the
          input that stalled the cargo filter

Prints a table: CPU seconds (user + sys, wait4) at each size, wall seconds
at the larger, CPU seconds per 5 MB at the larger size (target <= 1.0; CPU
time, as the 2-core machine is shared and wall time grows with its load),
and the growth from the small size to the large one (linear: about the
size ratio, less when start-up dominates the small one; quadratic: its
square).

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
    """(wall seconds, CPU seconds: user + sys) of one call; None past timeout."""
    env = dict(os.environ, TOKENSIEVE_HOME=os.path.join(out_dir, "home"), TOKENSIEVE_STORE_MAX_BYTES="0")
    for k in ("CLAUDECODE", "TOKENSIEVE"):
        env.pop(k, None)
    started = time.monotonic()
    with open(path, "rb") as stdin:
        p = subprocess.Popen(
            [binary, "--cmd", command, "--exit", str(code)],
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        while True:
            pid, _, usage = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.monotonic() - started > timeout:
                p.kill()
                os.wait4(p.pid, 0)
                return None
            time.sleep(0.005)
    return time.monotonic() - started, usage.ru_utime + usage.ru_stime


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
    print(f"load average at the start: {os.getloadavg()[0]:.1f} (wall time grows with it; CPU time does not)")
    print(
        f"{'tool':10} {'shape':8} {'CPU s ' + str(small // MB) + ' MB':>12} {'CPU s ' + str(large // MB) + ' MB':>12} "
        f"{'wall s':>7} {'CPU s/5MB':>9} {'growth':>7}  ok"
    )
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
            got = []
            for size in (small, large):
                path = os.path.join(out_dir, f"{r['file']}.{shape}.{size}")
                write_input(path, unit, size)
                got.append(measure(a.binary, r["command"], r["exit_code"] or "0", path, a.timeout))
            if got[1] is None or got[0] is None:
                print(f"{r['tool']:10} {shape:8} timeout after {a.timeout} s  NO  ({r['command']})", flush=True)
                failed += 1
                continue
            (_, c_small), (w_large, c_large) = got
            per5 = c_large / (large / MB) * 5
            growth = c_large / max(c_small, 0.01)
            ok = per5 <= 1.0
            failed += not ok
            print(
                f"{r['tool']:10} {shape:8} {c_small:>12.2f} {c_large:>12.2f} {w_large:>7.2f} {per5:>9.2f} {growth:>7.1f}  "
                f"{'yes' if ok else 'NO'}  ({r['command']})",
                flush=True,
            )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
