#!/usr/bin/env bash
# Issue 24's closed-stdout stress of the command line: every subcommand's
# help (--help and -h) and the read commands that print a lot, each into a
# reader that stops after one byte (`| head -c 1`), RUNS times (default
# 100): exit 0 and no panic every time. tests/cli.rs runs the same walk
# once per case (with stdout closed before the first write) in CI.
# usage: scripts/cli-walk.sh [BINARY] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/debug/tokensieve}"
runs="${2:-100}"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" TOKENSIEVE_HOME="$tmp/ts"
mkdir -p "$HOME"
subs=$("$bin" --help | awk '/^Commands:/ {f = 1; next} f && /^  [a-z]/ {print $1} f && /^$/ {f = 0}' | grep -vx help)
cases=("--help" "-h" "init" "config path" "config show" "gain" "completions bash" "man")
for sub in $subs; do
    cases+=("$sub --help" "$sub -h" "help $sub")
done
fail=0
total=0
started=$(date +%s)
for c in "${cases[@]}"; do
    for ((i = 0; i < runs; i++)); do
        set +e
        # shellcheck disable=SC2086 # the case is words
        "$bin" $c 2>"$tmp/err" | head -c 1 >/dev/null
        rc=${PIPESTATUS[0]}
        set -e
        total=$((total + 1))
        if [ "$rc" != 0 ] || grep -q panicked "$tmp/err"; then
            echo "FAIL: tokensieve $c | head -c 1: exit $rc: $(head -1 "$tmp/err")"
            fail=$((fail + 1))
        fi
    done
done
echo "${#cases[@]} cases x $runs runs = $total runs in $(($(date +%s) - started)) s: $fail failed"
[ "$fail" = 0 ]
