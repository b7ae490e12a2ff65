#!/usr/bin/env python3
"""Outputs too large to hold, through `tokensieve run` the way an agent meets
them: peak RSS, wall time against the bare producer, what reached the agent,
and that the raw store holds every byte.

usage: scripts/bounded-capture.py [BINARY] [MB]   (default: release build, 110)

Producers (real processes writing to a pipe, in 64 KB writes):
  log    a service log: INFO lines of seven users, an ERROR line at 1/3 and
         2/3, a summary line at the end
  noisy  the same with an ERROR line every 50 lines (the signal budget fills)
  json   one JSON array on a single line (no line to cut at)
Each is run twice, read by a Python parent: alone (baseline), and through
`tokensieve run --` with TOKENSIEVE_HOME in a temp folder. Peak RSS is the
largest of the parent's children (ru_maxrss of RUSAGE_CHILDREN): the bare
producer's own figure is printed beside it.
"""
import hashlib, os, resource, subprocess, sys, tempfile, textwrap, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
binary = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "target" / os.environ.get("CARGO_BUILD_TARGET", "x86_64-unknown-linux-gnu") / "release/tokensieve").resolve()
mb = int(sys.argv[2]) if len(sys.argv) > 2 else 110
if not binary.exists():
    sys.exit(f"no binary at {binary} (cargo build --release)")

PRODUCER = textwrap.dedent("""\
    import hashlib, sys
    kind, target, sha_file = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    out, h, buf, size = sys.stdout.buffer, hashlib.sha256(), [], 0
    def w(s):
        global size
        b = s.encode(); h.update(b); buf.append(b); size += len(b)
        if len(buf) >= 800:
            out.write(b"".join(buf)); buf.clear()
    users = ["ana", "bo", "chen", "dara", "eli", "fay", "gus"]
    if kind == "json":
        w("[")
        i = 0
        while size < target:
            w(("," if i else "") + '{"id": %d, "name": "item-%d", "state": "running", "tags": ["a", "b"]}' % (i, i))
            i += 1
        w("]\\n")
    else:
        n = target // 80
        w("service starting: worker pool=8 queue=jobs\\n")
        for i in range(1, n + 1):
            bad = i in (n // 3, 2 * n // 3) if kind == "log" else i % 50 == 0
            if bad:
                w(f"2026-11-23T10:{i % 60:02d}:00Z ERROR job {i} failed: connection refused to db:{5000 + i % 997}\\n")
            else:
                w(f"2026-11-23T10:{i % 60:02d}:{i % 60:02d}Z INFO job {i} for {users[i % 7]} done in {i % 97} ms, depth {i % 13}\\n")
        w("summary: jobs finished\\n")
    out.write(b"".join(buf)); out.flush()
    open(sha_file, "w").write(f"{h.hexdigest()} {size}")
""")

PARENT = textwrap.dedent("""\
    import resource, subprocess, sys, time
    t = time.monotonic()
    p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = 0
    with open(sys.argv[1], "wb") as keep:
        while True:
            b = p.stdout.read(1 << 16)
            if not b:
                break
            got += len(b)
            if got <= 1 << 20:
                keep.write(b)
    err = p.stderr.read()
    p.wait()
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    sys.stdout.write(f"{time.monotonic() - t:.2f} {rss} {got} {p.returncode}\\n")
    sys.stderr.buffer.write(err)
""")


def run(argv, tmp, tag):
    seen = tmp / f"{tag}.out"
    r = subprocess.run([sys.executable, "-c", PARENT, str(seen), *argv], capture_output=True, env=env)
    wall, rss, got, rc = r.stdout.split()
    return float(wall), int(rss), int(got), int(rc), seen.read_bytes(), r.stderr.decode(errors="replace")


env = {k: v for k, v in os.environ.items() if not k.startswith("TOKENSIEVE")}
print(f"binary: {binary}, target size {mb} MB, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
print(f"{'producer':8} {'MB':>6} {'bare s':>7} {'bare RSS':>9} {'run s':>7} {'run RSS':>9} {'to agent':>9}  stored whole")
for kind in ["log", "noisy", "json"]:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        env["TOKENSIEVE_HOME"] = str(tmp / "home")
        script = tmp / "producer.py"
        script.write_text(PRODUCER)
        sha = tmp / "sha"
        prod = [sys.executable, str(script), kind, str(mb << 20), str(sha)]
        b_wall, b_rss, b_got, _, _, _ = run(prod, tmp, "bare")
        r_wall, r_rss, r_got, rc, seen, err = run([str(binary), "run", "--", *prod], tmp, "run")
        want_sha, size = sha.read_text().split()
        rid = next((l.split("raw: ")[1].split()[0] for l in err.splitlines() if "raw: " in l), None)
        ok = "no raw id"
        if rid:
            shown = subprocess.run([str(binary), "show", rid], capture_output=True, env=env).stdout
            ok = "yes" if hashlib.sha256(shown).hexdigest() == want_sha and len(shown) == int(size) else "NO"
        print(f"{kind:8} {int(size) / 2**20:6.1f} {b_wall:7.2f} {b_rss / 1024:7.1f}MB {r_wall:7.2f} "
              f"{r_rss / 1024:7.1f}MB {r_got:8d}B  {ok}  (exit {rc})")
        if os.environ.get("SHOW"):
            print(textwrap.indent(seen.decode(errors="replace")[:3000], "    | "))
            print(textwrap.indent(err[-600:], "    ! "))
