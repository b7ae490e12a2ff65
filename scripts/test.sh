#!/usr/bin/env bash
# The test command (README and CI): sets up what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
# Calls made by the tests must not land in the developer's own raw store and
# history (tests that check them set their own TOKENSIEVE_HOME).
export TOKENSIEVE_HOME="${TMPDIR:-/tmp}/tokensieve-test-home.$$"
trap 'rm -rf "$TOKENSIEVE_HOME"' EXIT
cargo fmt --all -- --check
cargo clippy --all-targets -q -- -D warnings
cargo test --all-targets "$@"
