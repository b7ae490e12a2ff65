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
# The real AWS CLI and a local moto server for tests/shim/aws.rs: one venv,
# made once and reused (PyPI is the only network the tests need).
aws_venv="${TOKENSIEVE_AWS_VENV_DIR:-$HOME/.cache/tokensieve/aws-venv}"
if [ ! -x "$aws_venv/bin/aws" ] || [ ! -x "$aws_venv/bin/moto_server" ]; then
    echo "test.sh: creating $aws_venv (awscli, moto[server])" >&2
    python3 -m venv "$aws_venv"
    "$aws_venv/bin/pip" install -q --disable-pip-version-check awscli 'moto[server]'
fi
export TOKENSIEVE_TEST_AWS_VENV="$aws_venv/bin"
cargo test --all-targets "$@"
