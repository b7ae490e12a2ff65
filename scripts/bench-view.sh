#!/usr/bin/env bash
# The budgeted view of the 5.8 MB instance types against the lossless
# compression of the same file (issue 12: the view costs <= 1.2x), in the
# same rounds: hyperfine alternates the two (and, given, an older build's
# two), several short rounds pooled, so a change of load hits every side.
#
#   scripts/bench-view.sh [BINARY] [OLD_BINARY]     # BINARY: the release build
#
# Prints one table row per binary: median wall (all runs) and CPU (median of
# the rounds' means) of each, and the view/lossless ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/release/tokensieve}
old=${2:-}
rounds=${ROUNDS:-5}
runs=${RUNS:-4}
out=target/bench/view
big=fixtures/json/aws/ec2-describe-instance-types-all.json
mkdir -p "$out/new" "$out/old"
# Both must be called `tokensieve` (argv[0] picks the CLI).
cp "$bin" "$out/new/tokensieve"
[ -n "$old" ] && cp "$old" "$out/old/tokensieve"
for v in CLAUDECODE CODEX_CI CODEX_SANDBOX CODEX_THREAD_ID GEMINI_CLI CURSOR_AGENT AGENT AI_AGENT \
    TOKENSIEVE TOKENSIEVE_DEBUG BASH_MAX_OUTPUT_LENGTH TOKENSIEVE_BUDGET; do
    unset "$v"
done
export TOKENSIEVE_HOME=$out/home
rm -rf "$TOKENSIEVE_HOME"

cmds=(-n new-lossless "env TOKENSIEVE_BUDGET=off $out/new/tokensieve $big"
    -n new-view "env TOKENSIEVE_BUDGET=25000 $out/new/tokensieve $big")
[ -n "$old" ] && cmds+=(-n old-lossless "env TOKENSIEVE_BUDGET=off $out/old/tokensieve $big"
    -n old-view "env TOKENSIEVE_BUDGET=25000 $out/old/tokensieve $big")
rm -f "$out"/r*.json
for r in $(seq "$rounds"); do
    hyperfine -N --style none --warmup 1 --runs "$runs" --export-json "$out/r$r.json" "${cmds[@]}" >/dev/null
done
receipt=$(TOKENSIEVE_BUDGET=25000 "$out/new/tokensieve" "$big" 2>&1 >/dev/null | tail -1)

python3 - "$out" "$rounds" "$receipt" "$(uptime)" <<'PY'
import glob, json, statistics, sys
out, rounds, receipt, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
pool = {}
for f in sorted(glob.glob(f"{out}/r*.json")):
    for r in json.load(open(f))["results"]:
        p = pool.setdefault(r["command"], {"wall": [], "cpu": []})
        p["wall"] += r["times"]
        p["cpu"].append(r["user"] + r["system"])  # a round's mean
med = lambda name, k: statistics.median(pool[name][k]) * 1000
print(f"5.8 MB instance types, {rounds} rounds pooled; {load.strip()}")
print(f"view: {receipt}")
print()
print("| build | lossless wall ms | view wall ms | view/lossless wall | lossless CPU ms | view CPU ms | view/lossless CPU |")
print("|---|---:|---:|---:|---:|---:|---:|")
for b in ("old", "new"):
    if f"{b}-view" not in pool:
        continue
    lw, vw = med(f"{b}-lossless", "wall"), med(f"{b}-view", "wall")
    lc, vc = med(f"{b}-lossless", "cpu"), med(f"{b}-view", "cpu")
    print(f"| {b} | {lw:.0f} | {vw:.0f} | {vw / lw:.2f}x | {lc:.0f} | {vc:.0f} | {vc / lc:.2f}x |")
PY
