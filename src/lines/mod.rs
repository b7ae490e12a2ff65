//! What every text path shares, below the filters: the cleaning
//! (`clean`: ANSI, `\r` redraws, overstrike; library-path recognisers),
//! the signal ledger (`ledger`: which lines an agent must never lose) and
//! the stack frames of every language with the one fold of the
//! framework's frames (`frames`: `fold_frames`, `Fold`), and the lines
//! that name a place (`places`: what makes a finding).
//!
//! Layer 2 (docs/ARCHITECTURE.md): it may use `settings`, `command`,
//! `json` (the scrubber) and what is below them; `text`, `typed`, `view`
//! and the shim use it.

pub mod clean;
pub mod frames;
pub mod ledger;
pub mod places;

/// A pattern over a line's bytes with ASCII classes only (`\w`, `\d`,
/// `\s`, `\b`, `(?i)`): what tools print matches the same, and compiling
/// it skips the Unicode tables that made up most of a short text command's
/// CPU (scripts/bench-regex.sh). Non-ASCII literals still match as UTF-8.
pub(crate) fn ascii_regex(pattern: &str) -> Result<regex::bytes::Regex, regex::Error> {
    regex::bytes::RegexBuilder::new(pattern).unicode(false).build()
}

/// The cleaning every text path starts with (ANSI, `\r` redraws, trailing
/// blanks); line numbers stay those of the input. For the budgeted view.
pub fn cleaned(text: &str) -> String {
    clean::clean(text)
}
