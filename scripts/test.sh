#!/usr/bin/env bash
# The test command (README and CI): sets up what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets -q -- -D warnings
cargo test --all-targets "$@"
