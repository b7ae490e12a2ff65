//! OpenAI Codex. Its shell tool runs `bash -lc`, a login shell, which reads
//! `~/.profile` (where install.sh puts the shim folder first on PATH) after
//! Codex built the environment: no `shell_environment_policy` setting
//! (`inherit = "none"`, `exclude`, `set`) can take the entry away, since the
//! profile runs after it. `init codex` adds the note for the model to the
//! global instructions file, `$CODEX_HOME/AGENTS.md` (default
//! `~/.codex/AGENTS.md`), inline: Codex has no import syntax.

use std::path::PathBuf;

use super::block::{self, Markers};
use super::edit::Edit;
use super::{Context, INSTRUCTIONS};

const MARKERS: Markers = Markers { begin: "<!-- >>> tokensieve >>> -->", end: "<!-- <<< tokensieve <<< -->" };

/// `$CODEX_HOME`, else `~/.codex`.
pub fn config_dir(ctx: &Context) -> PathBuf {
    match ctx.var("CODEX_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => ctx.user_home.join(".codex"),
    }
}

pub fn edits(ctx: &Context) -> Vec<Edit> {
    vec![Edit {
        path: config_dir(ctx).join("AGENTS.md"),
        apply: Box::new(|text| block::with_block(text, MARKERS, INSTRUCTIONS)),
        remove: Box::new(|text| block::without_block(text, MARKERS)),
    }]
}
