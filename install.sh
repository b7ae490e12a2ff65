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
    # one static binary for this machine (see scripts/static-build.sh)
    . "$here/scripts/static-build.sh"
    echo "building tokensieve (release)..."
    (cd "$here" && cargo build --release --locked --quiet)
    src="$here/target/${CARGO_BUILD_TARGET:-x86_64-unknown-linux-gnu}/release/tokensieve"
fi
[ -x "$src" ] || { echo "install.sh: no binary at $src" >&2; exit 1; }

# Private folders (0700) whatever the umask; `tokensieve install` below
# checks the modes again.
(umask 077 && mkdir -p "$bin")
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
status=0
for rc in "${rc_files[@]}"; do
    if [ -f "$rc" ] && ! awk -v b="$begin" -v e="$end" '$0==b{open=1} open&&$0==e{open=0} END{exit open}' "$rc"; then
        # Where the block ends would be a guess, and a wrong guess loses
        # the user's own lines.
        echo "install.sh: left $rc alone: it has a '$begin' line with no '$end' line after it; fix it by hand" >&2
        status=1
        continue
    fi
    new="$(mktemp)"
    {
        [ -f "$rc" ] && awk -v b="$begin" -v e="$end" '$0==b{skip=1;next} skip&&$0==e{skip=0;next} !skip' "$rc"
        printf '%s\n' "$block"
    } >"$new"
    # Rewritten in place (not replaced by a new file): a symlinked start-up
    # file (a dotfiles repository) stays a symlink, and keeps its mode.
    if ! cmp -s "$new" "$rc"; then
        cat "$new" >"$rc"
    fi
    rm -f "$new"
    echo "PATH line in $rc"
done

echo "done. Open a new shell (or: export PATH=\"$bin:\$PATH\"; hash -r), then: tokensieve doctor"
exit "$status"
