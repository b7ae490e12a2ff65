#!/usr/bin/env bash
# What reading the settings files costs a shim call, in the same run as the
# passthrough figure (the one scripts/shim-overhead.sh measures). Cases: no
# settings file; no file from a folder 12 levels deep (one stat per level
# looking for a project file); a user config.toml setting everything (tool
# switches, two filters); a trusted project .tokensieve.toml as well, near
# and 12 levels deep. With a second binary (a build without settings files,
# e.g. main's before them), its figures are the baseline for "none when no
# file exists".
#
# Two figures per case, the cases interleaved round by round so a busy
# machine slows them alike:
#  - decision: what the shim reports with TOKENSIEVE_DEBUG (`decided in N
#    µs`: PATH resolution, the settings, the passthrough decision), median;
#  - whole call: exec of the shim + decision + exec of the tool, wall time
#    per call, median of the rounds, and the tool called directly.
# usage: scripts/config-overhead.sh [BINARY] [ROUNDS] [BASELINE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/release/tokensieve}"
rounds="${2:-10}"
base="${3:-}"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 1; }
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
bin="$(abs "$bin")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/shims" "$tmp/base" "$tmp/tools" "$tmp/h-none" "$tmp/h-user" "$tmp/none" "$tmp/proj" "$tmp/samples"
printf '#!/bin/sh\necho "{\\"a\\": 1}"\n' >"$tmp/tools/tool"
chmod +x "$tmp/tools/tool"
ln -s "$bin" "$tmp/shims/tool"
ln -s "$bin" "$tmp/tokensieve"
[ -n "$base" ] && ln -s "$(abs "$base")" "$tmp/base/tool"
unset TOKENSIEVE TOKENSIEVE_DEPTH TOKENSIEVE_SHIMS CLAUDECODE AGENT AI_AGENT TOKENSIEVE_DEBUG
deep_none="$tmp/none/a/b/c/d/e/f/g/h/i/j/k/l"
deep_proj="$tmp/proj/a/b/c/d/e/f/g/h/i/j/k/l"
mkdir -p "$deep_none" "$deep_proj"

# Every setting, tool switches and two filters in the user's file.
cat >"$tmp/h-user/config.toml" <<'TOML'
tokenizer = "o200k"
budget = 20000
text_threshold = 5000
dedup = "default"
epoch = "iso"
receipt = "auto"
store_max_bytes = "512M"
capture_max_bytes = "32M"
text_wait_secs = 0
agent_markers = ["MY_BOT"]
live = ["logs tail", "--stream"]
[tool.kubectl]
enabled = true
[tool.git.log]
enabled = false
[[filter]]
match = "cmake"
drop = ['^-- Looking for \S+( - found)?$']
[[filter]]
match = "zip"
replace = [{ pattern = '^  adding: (.*) \(\w+ \d+%\)$', with = '$1' }]
fold = true
TOML
{ echo 'budget = 9000'; cat examples/filters/dpkg.toml; } >"$tmp/proj/.tokensieve.toml"
(cd "$tmp/proj" && TOKENSIEVE_HOME="$tmp/h-user" "$tmp/tokensieve" trust >/dev/null)

# case name | shim folder | home | working directory
cases=()
[ -n "$base" ] && cases+=("baseline build (no settings support)|$tmp/base|$tmp/h-none|$tmp/none")
cases+=(
    "no settings file|$tmp/shims|$tmp/h-none|$tmp/none"
    "no file, 12 folders deep|$tmp/shims|$tmp/h-none|$deep_none"
    "user config.toml (all settings, 2 filters)|$tmp/shims|$tmp/h-user|$tmp/none"
    "+ trusted project file (a filter)|$tmp/shims|$tmp/h-user|$tmp/proj"
    "+ the same, 12 folders deep|$tmp/shims|$tmp/h-user|$deep_proj"
)

per_round=40
for ((r = 0; r < rounds; r++)); do
    for i in "${!cases[@]}"; do
        IFS='|' read -r _ shims home dir <<<"${cases[$i]}"
        (
            cd "$dir"
            export PATH="$shims:$tmp/tools:$PATH" TOKENSIEVE_HOME="$home"
            for ((k = 0; k < per_round; k++)); do
                TOKENSIEVE_DEBUG=1 "$shims/tool" 2>&1 >/dev/null | sed -n 's/.*decided in \([0-9]*\) µs.*/\1/p'
            done >>"$tmp/samples/decision.$i"
            start=$(date +%s%N)
            for ((k = 0; k < per_round; k++)); do "$shims/tool" >/dev/null; done
            end=$(date +%s%N)
            echo $(((end - start) / per_round / 1000)) >>"$tmp/samples/call.$i"
        )
    done
    start=$(date +%s%N)
    for ((k = 0; k < per_round; k++)); do "$tmp/tools/tool" >/dev/null; done
    end=$(date +%s%N)
    echo $(((end - start) / per_round / 1000)) >>"$tmp/samples/direct"
done

median() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
direct=$(median "$tmp/samples/direct")
ref_i=0
[ -n "$base" ] && ref_i=1
ref_d=$(median "$tmp/samples/decision.$ref_i")
ref_c=$(median "$tmp/samples/call.$ref_i")
echo "shim passthrough (no agent marker): $rounds rounds x $per_round calls per case, interleaved; medians"
printf "  %-44s %9s %9s   %9s %9s\n" "case" "decision" "vs none" "call" "vs none"
for i in "${!cases[@]}"; do
    name="${cases[$i]%%|*}"
    d=$(median "$tmp/samples/decision.$i")
    c=$(median "$tmp/samples/call.$i")
    printf "  %-44s %6d µs %+6d µs   %6d µs %+6d µs\n" "$name" "$d" "$((d - ref_d))" "$c" "$((c - ref_c))"
done
echo "the tool called directly: $direct µs per call; passthrough overhead (no file): $((ref_c - direct)) µs"
