//! GitHub Copilot CLI. At start-up it runs a login shell (`bash -l -c`, an
//! environment dump) and merges that environment into its own; its shell
//! tool then runs `bash --norc --noprofile -c CMD` with the result. A login
//! shell reads `~/.profile` (or `~/.bash_profile`), where install.sh puts
//! the shim folder first, so the shims reach it even when `copilot` was
//! started from a desktop launcher or an older shell (checked on the real
//! CLI, 1.0.102). Nothing else is needed for PATH; `init copilot` adds the
//! note for the model to the user instructions file
//! `$COPILOT_HOME/copilot-instructions.md` (default `~/.copilot`).

use std::path::PathBuf;

use super::block::{self, Markers};
use super::edit::Edit;
use super::{Context, INSTRUCTIONS};

const MARKERS: Markers = Markers { begin: "<!-- >>> tokensieve >>> -->", end: "<!-- <<< tokensieve <<< -->" };

/// `$COPILOT_HOME`, else `~/.copilot`.
pub fn config_dir(ctx: &Context) -> PathBuf {
    match ctx.var("COPILOT_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => ctx.user_home.join(".copilot"),
    }
}

pub fn edits(ctx: &Context) -> Vec<Edit> {
    vec![Edit {
        path: config_dir(ctx).join("copilot-instructions.md"),
        apply: Box::new(|text| block::with_block(text, MARKERS, INSTRUCTIONS)),
        remove: Box::new(|text| block::without_block(text, MARKERS)),
    }]
}
