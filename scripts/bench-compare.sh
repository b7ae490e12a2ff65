#!/usr/bin/env bash
# Two builds of tokensieve side by side, in one run (issue 13's "no
# regression"): hyperfine interleaves them on the same inputs, each with its
# own store and history, so the ratio holds on a busy machine.
#
#   scripts/bench-compare.sh OLD_BINARY [NEW_BINARY]   # NEW defaults to the release build
#
# Inputs: ~200 KB of AWS JSON (a new output, then the same output again: the
# store's compare-and-reuse path), the 5.8 MB instance types, ~600 KB of text
# through the generic path, a small gh fixture (history row dominated), and
# two short text outputs (the per-call cost of a text command).
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: scripts/bench-compare.sh OLD_BINARY [NEW_BINARY]}
new=${2:-target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/release/tokensieve}
out=target/bench/compare
mkdir -p "$out/old" "$out/new"
# Both must be called `tokensieve` (argv[0] picks the CLI).
cp "$old" "$out/old/tokensieve"
cp "$new" "$out/new/tokensieve"
runs=${RUNS:-20}

aws200=$out/aws-200k.json
jq --indent 4 '{Images: .Images[:176]}' fixtures/json/aws/ec2-describe-images-owners-amazon.json >"$aws200"
big=fixtures/json/aws/ec2-describe-instance-types-all.json
log=$out/log-600k.txt
cat fixtures/text/python-http-server-log.txt fixtures/text/grep-rn-stdlib.txt >"$log"
small=fixtures/json/gh/api-orgs.json

for v in CLAUDECODE CODEX_CI CODEX_SANDBOX CODEX_THREAD_ID GEMINI_CLI CURSOR_AGENT AGENT AI_AGENT TOKENSIEVE TOKENSIEVE_DEBUG; do
    unset "$v"
done
rm -rf "$out/home-old" "$out/home-new"

case_() { # case_ NAME ARGS... : old vs new, each with its own home
    local name=$1
    shift
    echo "== $name" >&2
    hyperfine -N --style none --warmup 3 --runs "$runs" --export-json "$out/$name.json" \
        -n old "env TOKENSIEVE_HOME=$out/home-old $out/old/tokensieve $*" \
        -n new "env TOKENSIEVE_HOME=$out/home-new $out/new/tokensieve $*" >/dev/null
    python3 - "$out/$name.json" "$name" <<'PY'
import json, statistics, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
o, n = r["old"], r["new"]
med = lambda x: statistics.median(x["times"]) * 1000
cpu = lambda x: (x["user"] + x["system"]) * 1000
print(f"| {sys.argv[2]} | {med(o):.2f} | {med(n):.2f} | {med(n) / med(o):.2f}x | {cpu(o):.2f} | {cpu(n):.2f} |")
PY
}

echo "| case | old median ms | new median ms | new/old | old CPU ms | new CPU ms |"
echo "|---|---:|---:|---:|---:|---:|"
case_ filter-200k "$aws200"
case_ filter-5.8mb "$big"
case_ text-600k --cmd "'journalctl -u web'" "$log"
case_ small-gh "$small"
# short text commands: the per-call cost (detector regexes, tokenizer, history
# row) is all there is to them, once unclaimed (generic path), once claimed
case_ text-2k-generic --cmd "'javac -d out Invoice.java'" fixtures/text/local/build/javac-errors.txt
case_ text-3k-cargo --cmd "'cargo build'" --exit 101 fixtures/text/cargo-build-fail.txt
for bin in old new; do
    kb=$(/usr/bin/time -f '%M' "$out/$bin/tokensieve" "$big" 2>&1 >/dev/null | tail -1)
    echo "- peak RSS, 5.8 MB, $bin: $((kb / 1024)) MB"
done
