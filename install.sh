#!/usr/bin/env bash
# Installs tokensieve for the current user:
#   1. builds the release binary (or takes TOKENSIEVE_BINARY=path as built),
#   2. copies it to ~/.tokensieve/bin (or $TOKENSIEVE_HOME/bin),
#   3. shims the tools named on the command line, by default the common agent
#      CLIs found on PATH (aws kubectl gh docker gcloud az terraform),
#   4. puts that folder first on PATH in ~/.profile, ~/.bashrc, ~/.zshrc (and
#      ~/.bash_profile if present), between marker lines that
#      `tokensieve uninstall` removes. Running it again changes nothing twice.
# usage: ./install.sh [TOOL...]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
home_dir="${TOKENSIEVE_HOME:-$HOME/.tokensieve}"
bin="$home_dir/bin"
begin='# >>> tokensieve >>>'
end='# <<< tokensieve <<<'

if [ -n "${TOKENSIEVE_BINARY:-}" ]; then
    src="$TOKENSIEVE_BINARY"
else
    echo "building tokensieve (release)..."
    (cd "$here" && cargo build --release --locked --quiet)
    src="$here/target/release/tokensieve"
fi
[ -x "$src" ] || { echo "install.sh: no binary at $src" >&2; exit 1; }

mkdir -p "$bin"
# Copy under a temporary name, then rename: shims running right now keep
# their old file.
cp "$src" "$bin/tokensieve.new.$$"
chmod 755 "$bin/tokensieve.new.$$"
mv -f "$bin/tokensieve.new.$$" "$bin/tokensieve"

"$bin/tokensieve" install "$@"

# The PATH block: literal paths, single-quoted (a path with a quote in it is
# escaped the POSIX way).
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
block="$begin
case \":\$PATH:\" in *:$(quote "$bin"):*) ;; *) PATH=$(quote "$bin"):\"\$PATH\"; export PATH ;; esac"
if [ -n "${TOKENSIEVE_HOME:-}" ]; then
    block="$block
TOKENSIEVE_HOME=$(quote "$TOKENSIEVE_HOME"); export TOKENSIEVE_HOME"
fi
block="$block
$end"

rc_files=("$HOME/.profile" "$HOME/.bashrc")
[ -f "$HOME/.bash_profile" ] && rc_files+=("$HOME/.bash_profile")
if [ -f "$HOME/.zshrc" ] || command -v zsh >/dev/null 2>&1; then
    rc_files+=("$HOME/.zshrc")
fi
for rc in "${rc_files[@]}"; do
    old=""
    [ -f "$rc" ] && old="$(awk -v b="$begin" -v e="$end" '$0==b{skip=1;next} skip&&$0==e{skip=0;next} !skip' "$rc")"
    { [ -n "$old" ] && printf '%s\n' "$old"; printf '%s\n' "$block"; } >"$rc.tokensieve.$$"
    mv -f "$rc.tokensieve.$$" "$rc"
    echo "PATH line in $rc"
done

echo "done. Open a new shell (or: export PATH=\"$bin:\$PATH\"; hash -r), then: tokensieve doctor"
