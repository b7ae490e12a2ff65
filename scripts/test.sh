#!/usr/bin/env bash
# The test command (README and CI): sets up what the tests need, then runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
# One static binary, built for the named host target (see static-build.sh).
. scripts/static-build.sh
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
# The official Python MCP client for tests/mcp.rs (`tokensieve mcp`), in its
# own venv (its pydantic/anyio stack kept apart from moto's), made once.
mcp_venv="${TOKENSIEVE_MCP_VENV_DIR:-$HOME/.cache/tokensieve/mcp-venv}"
if ! "$mcp_venv/bin/python" -c 'import mcp.client.stdio' 2>/dev/null; then
    echo "test.sh: creating $mcp_venv (mcp)" >&2
    python3 -m venv "$mcp_venv"
    "$mcp_venv/bin/pip" install -q --disable-pip-version-check 'mcp>=2,<3'
fi
export TOKENSIEVE_TEST_MCP_VENV="$mcp_venv/bin"
# The real agent CLIs for tests/agents_e2e.rs, from the npm registry (their
# native binaries come in npm's optional dependencies), installed once.
agents="${TOKENSIEVE_AGENTS_DIR:-$HOME/.cache/tokensieve/agents}"
claude_version=2.1.197
codex_version=0.169.0
if ! "$agents/node_modules/.bin/claude" --version 2>/dev/null | grep -qF "$claude_version" ||
    ! "$agents/node_modules/.bin/codex" --version 2>/dev/null | grep -qF "$codex_version"; then
    echo "test.sh: installing Claude Code $claude_version and Codex $codex_version into $agents" >&2
    mkdir -p "$agents"
    npm install --prefix "$agents" --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/claude-code@$claude_version" "@openai/codex@$codex_version" >&2
fi
export TOKENSIEVE_TEST_AGENTS="$agents/node_modules/.bin"
# kubectl for the agents' non-AWS case (Debian's package when it is missing).
if ! command -v kubectl >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing kubectl (kubernetes-client)" >&2
    apt-get install -y -q kubernetes-client >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q kubernetes-client >/dev/null; }
fi
# man-db for tests/cli.rs (`man -l` renders `tokensieve man`), when missing;
# without it that part of the test says it skipped.
if ! command -v man >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing man-db" >&2
    apt-get install -y -q man-db >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q man-db >/dev/null; } ||
        echo "test.sh: man-db not installed; tests/cli.rs skips the man -l check" >&2
fi
# A real Git LFS server for tests/share.rs: giftless (its wheel declares no
# dependencies, so they are named here, pinned), and the standard client
# (Debian's git-lfs) as the cross-check that our objects are readable.
lfs_venv="${TOKENSIEVE_LFS_VENV_DIR:-$HOME/.cache/tokensieve/lfs-venv}"
if ! "$lfs_venv/bin/python" -c 'import giftless.wsgi_entrypoint' 2>/dev/null; then
    echo "test.sh: creating $lfs_venv (giftless)" >&2
    python3 -m venv "$lfs_venv"
    "$lfs_venv/bin/pip" install -q --disable-pip-version-check giftless==0.6.2 Flask==3.1.3 \
        Flask-Classful==0.16.0 flask-marshmallow==1.5.0 marshmallow==4.4.0 figcan==0.0.4 \
        PyYAML==6.0.3 python-dotenv==1.2.4 PyJWT==2.15.1 webargs==8.7.1 cachetools==8.0.1 \
        python-dateutil==4.0.0 typing_extensions==4.16.0 Werkzeug==3.1.9
fi
export TOKENSIEVE_TEST_LFS_VENV="$lfs_venv/bin"
if ! command -v git-lfs >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "test.sh: installing git-lfs" >&2
    apt-get install -y -q git-lfs >/dev/null 2>&1 ||
        { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q git-lfs >/dev/null; }
fi
cargo test --all-targets "$@"
# The shim matrix again, with a settings file that does not parse in every
# test's home (tests/common/mod.rs, TOKENSIEVE_TEST_BROKEN_CONFIG): a bad
# config.toml must never cost a command its output (~40 s).
TOKENSIEVE_TEST_BROKEN_CONFIG=1 cargo test --test shim --test capture_file
