#!/usr/bin/env bash
# Streaming check for the transcript reader: a transcript of about SIZE MB
# (the fixture sessions repeated, each copy with fresh tool-call ids so the
# repeats are new calls), then `session compact` (plain and --tool-results)
# and `discover` over it, each run's peak RSS and time against `cat` of the
# same file in the same run.
# Needs GNU time (/usr/bin/time, Debian package `time`).
# usage: scripts/transcript-rss.sh [BINARY] [SIZE_MB]   (default: release build, 100)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/release/tokensieve}"
size_mb="${2:-100}"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export TOKENSIEVE_HOME="$tmp/home" TOKENSIEVE_STORE_MAX_BYTES=1G
python3 - "$tmp/big.jsonl" "$size_mb" <<'PY'
import glob, sys
out, want = sys.argv[1], int(sys.argv[2]) << 20
files = sorted(glob.glob("fixtures/sessions/claude/**/*.jsonl", recursive=True))
data = b"".join(open(f, "rb").read() for f in files)
with open(out, "wb") as f:
    n = 0
    while f.tell() < want:
        # toolu_ ids made unique per copy: results pair with their own calls
        f.write(data.replace(b'"toolu_', b'"toolu_c%d_' % n))
        n += 1
PY
measure() { # label, stdin file, command...: peak RSS (MB, GNU time) and wall time
    local label="$1" input="$2"; shift 2
    local rc=0
    /usr/bin/time -o "$tmp/time" -f '%M %e' "$@" <"$input" >/dev/null 2>"$tmp/stderr" || rc=$?
    read -r kb secs <"$tmp/time"
    awk -v l="$label" -v kb="$kb" -v s="$secs" -v rc="$rc" 'BEGIN {printf "%-34s %8.1f MB %8.1f s   exit %d\n", l, kb / 1024, s, rc}'
}
mb=$(( $(stat -c %s "$tmp/big.jsonl") >> 20 ))
lines=$(wc -l <"$tmp/big.jsonl")
echo "input: $mb MB, $lines lines ($bin)"
printf '%-34s %11s %10s\n' "run" "peak RSS" "time"
measure "cat (baseline)" "$tmp/big.jsonl" cat
measure "session compact" "$tmp/big.jsonl" "$bin" session compact
measure "session compact --tool-results" "$tmp/big.jsonl" "$bin" session compact --tool-results
measure "discover FILE" /dev/null "$bin" discover "$tmp/big.jsonl"
