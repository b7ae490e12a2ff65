# Sourced by install.sh, scripts/test.sh and scripts/bench.sh: build one
# static executable (glibc linked statically, non-PIE, so `file` says
# "statically linked") for this machine's target, named explicitly.
#
# Why here and not in .cargo/config.toml: without `--target`, cargo hands a
# target's rustflags to proc-macro crates too, and a crt-static target cannot
# build those (serde's derive, which rmcp needs). With the target named, the
# flags reach our binary only. A plain `cargo build --release` (no flags)
# still gives a working, dynamically linked target/release/tokensieve, the
# path the shared measuring tools expect; these scripts build into
# target/<triple>/{debug,release}.
CARGO_BUILD_TARGET="${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}"
export CARGO_BUILD_TARGET
_static_var="CARGO_TARGET_$(printf '%s' "$CARGO_BUILD_TARGET" | tr 'a-z.-' 'A-Z__')_RUSTFLAGS"
case "$CARGO_BUILD_TARGET" in
*-linux-gnu) export "$_static_var=${!_static_var:--C target-feature=+crt-static -C relocation-model=static}" ;;
esac
unset _static_var
