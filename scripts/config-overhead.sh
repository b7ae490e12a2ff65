#!/usr/bin/env bash
# What reading the settings files costs a shim call, in the same run as the
# passthrough figure (scripts/shim-overhead.sh measures the same call): a
# tool called directly, through the shim with no settings file, with a
# user config.toml setting everything, with a project .tokensieve.toml
# (trusted filters) as well, and from a folder 12 levels deep (one stat per
# level looking for a project file). With a second binary (a build without
# settings files, e.g. main's), its passthrough is the baseline for "none
# when no file exists".
# usage: scripts/config-overhead.sh [BINARY] [RUNS] [BASELINE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/release/tokensieve}"
runs="${2:-500}"
base="${3:-}"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 1; }
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
bin="$(abs "$bin")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/shims" "$tmp/base" "$tmp/tools" "$tmp/home" "$tmp/proj"
printf '#!/bin/sh\necho "{\\"a\\": 1}"\n' >"$tmp/tools/tool"
chmod +x "$tmp/tools/tool"
ln -s "$bin" "$tmp/shims/tool"
[ -n "$base" ] && ln -s "$(abs "$base")" "$tmp/base/tool"
export TOKENSIEVE_HOME="$tmp/home"
unset TOKENSIEVE TOKENSIEVE_DEPTH TOKENSIEVE_SHIMS CLAUDECODE AGENT AI_AGENT TOKENSIEVE_DEBUG

per_call() { # dir, command...: µs per call, best of 5 rounds of $runs/5
    local dir="$1" best=0 start end i r n=$((runs / 5)) us
    shift
    for ((r = 0; r < 5; r++)); do
        start=$(date +%s%N)
        for ((i = 0; i < n; i++)); do (cd "$dir" && "$@" >/dev/null); done
        end=$(date +%s%N)
        us=$(((end - start) / n / 1000))
        if ((best == 0 || us < best)); then best=$us; fi
    done
    echo "$best"
}
row() { printf "  %-46s %6s µs  %+6s µs\n" "$1" "$2" "$3"; }

PATH="$tmp/shims:$tmp/tools:$PATH"
deep="$tmp/proj/a/b/c/d/e/f/g/h/i/j/k/l"
mkdir -p "$deep"
direct=$(per_call "$tmp" "$tmp/tools/tool")
none=$(per_call "$tmp" "$tmp/shims/tool")
none_deep=$(per_call "$deep" "$tmp/shims/tool")
if [ -n "$base" ]; then
    baseline=$(PATH="$tmp/base:$tmp/tools:${PATH#*:}" per_call "$tmp" "$tmp/base/tool")
fi
# Every setting, tool switches, and two filters in the user's file.
cat >"$tmp/home/config.toml" <<'TOML'
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
user=$(per_call "$tmp" "$tmp/shims/tool")
cp examples/filters/dpkg.toml "$tmp/proj/.tokensieve.toml"
echo 'budget = 9000' >>"$tmp/proj/.tokensieve.toml"
(cd "$tmp/proj" && "$bin" trust >/dev/null)
both=$(per_call "$tmp/proj" "$tmp/shims/tool")
both_deep=$(per_call "$deep" "$tmp/shims/tool")

echo "shim passthrough (no agent marker), best of 5 x $((runs / 5)) calls; tool directly: ${direct} µs"
printf "  %-46s %9s  %9s\n" "case" "per call" "vs no file"
[ -n "$base" ] && row "baseline build, no settings support" "$baseline" "$((baseline - none))"
row "no settings file" "$none" 0
row "no file, 12 folders deep" "$none_deep" "$((none_deep - none))"
row "user config.toml (every setting, 2 filters)" "$user" "$((user - none))"
row "+ trusted project file with a filter" "$both" "$((both - none))"
row "+ the same, 12 folders deep" "$both_deep" "$((both_deep - none))"
echo "passthrough overhead (shim, no file, minus the tool itself): $((none - direct)) µs"
