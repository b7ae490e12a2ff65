#!/usr/bin/env bash
# What a shim costs when it passes through: the compress/passthrough decision
# alone (TOKENSIEVE_DEBUG reports it from inside the process) in the common
# situations, and the whole call (exec of our binary + decision + exec of the
# tool) against calling the tool directly.
# usage: scripts/shim-overhead.sh [BINARY] [RUNS]   (default: release build, 300)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/release/tokensieve}"
runs="${2:-300}"
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 1; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/shims" "$tmp/tools"
printf '#!/bin/sh\necho "{\\"a\\": 1}"\n' >"$tmp/tools/tool"
chmod +x "$tmp/tools/tool"
ln -s "$bin" "$tmp/shims/tool"
export PATH="$tmp/shims:$tmp/tools:$PATH" TOKENSIEVE_HOME="$tmp/home"
unset TOKENSIEVE TOKENSIEVE_DEPTH TOKENSIEVE_SHIMS CLAUDECODE AGENT AI_AGENT

# An agent: a program that spawns `bash -c SCRIPT` and reads its stdout.
agent='import subprocess, sys; subprocess.run(["bash", "-c", sys.argv[1]], stdout=subprocess.PIPE)'
decision() { # label, script: median and max µs of the decision
    local label="$1" script="$2" i
    for ((i = 0; i < 50; i++)); do
        CLAUDECODE=1 TOKENSIEVE_DEBUG=1 python3 -c "$agent" "$script" 2>&1 | sed -n 's/.*decided in \([0-9]*\) µs.*/\1/p'
    done | sort -n | awk -v l="$label" '{a[NR]=$1} END {printf "  %-34s median %4d µs  max %4d µs\n", l, a[int((NR+1)/2)], a[NR]}'
}
# An agent that hands the command a file (Claude Code's Bash tool): stdout
# and stderr on one file opened for appending, read afterwards.
file_agent='import os, subprocess, sys
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
subprocess.run(["bash", "-c", sys.argv[1]], stdout=fd, stderr=fd, stdin=subprocess.DEVNULL)
sys.stdout.write(open(sys.argv[2]).read())'
decision_file() { # label, script
    local label="$1" script="$2" i
    for ((i = 0; i < 50; i++)); do
        CLAUDECODE=1 TOKENSIEVE_DEBUG=1 python3 -c "$file_agent" "$script" "$tmp/task.output" 2>&1 |
            sed -n 's/.*decided in \([0-9]*\) µs.*/\1/p'
    done | sort -n | awk -v l="$label" '{a[NR]=$1} END {printf "  %-34s median %4d µs  max %4d µs\n", l, a[int((NR+1)/2)], a[NR]}'
}
echo "decision cost (inside the shim, includes PATH resolution):"
decision "no agent marker" "CLAUDECODE= tool"
decision "redirected to a file" "tool > $tmp/out"
decision "piped into a program (| cat)" "tool | cat"
decision "captured by \$(...)" 'x=$(tool)'
decision "agent reads (compress)" "tool; true"
decision_file "agent's capture file (compress)" "tool; true"
decision_file "capture file, { tool; } > f (exec)" "{ TOKENSIEVE_DEBUG=1 tool; } > $tmp/out 2>&1; cat $tmp/out"
decision_file "capture file, tool > f (exec)" "TOKENSIEVE_DEBUG=1 tool 2>&1 > $tmp/out"

per_call() { # command...: µs per call, best of 5 rounds of $runs/5 (a busy machine only adds noise)
    local best=0 start end i r n=$((runs / 5)) us
    for ((r = 0; r < 5; r++)); do
        start=$(date +%s%N)
        for ((i = 0; i < n; i++)); do "$@" >/dev/null; done
        end=$(date +%s%N)
        us=$(((end - start) / n / 1000))
        if ((best == 0 || us < best)); then best=$us; fi
    done
    echo "$best"
}
# The floor: a static C program that only execs the tool. Any wrapper pays
# one more exec than calling the tool directly; the shim is judged by what
# it costs beyond that.
floor_bin=""
if command -v cc >/dev/null 2>&1; then
    printf '#include <unistd.h>\nint main(int c, char **v) { (void)c; execv("%s", v); return 127; }\n' \
        "$tmp/tools/tool" >"$tmp/floor.c"
    cc -static -O2 -o "$tmp/floor" "$tmp/floor.c" 2>/dev/null && floor_bin="$tmp/floor"
fi
direct=$(per_call "$tmp/tools/tool")
shim=$(per_call "$tmp/shims/tool")
echo "whole call (best of 5 x $((runs / 5))): tool directly ${direct} µs, through the shim (passthrough) ${shim} µs, overhead $((shim - direct)) µs"
if [ -n "$floor_bin" ]; then
    floor=$(per_call "$floor_bin")
    echo "  an exec-only static C wrapper: ${floor} µs, overhead $((floor - direct)) µs; the shim beyond it: $((shim - floor)) µs"
fi
# CPU time (task-clock) is what a busy machine disturbs least.
if command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1; then
    cpu() { perf stat -r "$runs" -x, -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ {printf "%d", $1 * 1000}'; }
    line="CPU per call (perf stat, $runs runs): tool directly $(cpu "$tmp/tools/tool") µs"
    [ -n "$floor_bin" ] && line+=", exec-only wrapper $(cpu "$floor_bin") µs"
    echo "$line, through the shim $(cpu "$tmp/shims/tool") µs"
fi
