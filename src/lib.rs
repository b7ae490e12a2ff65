//! tokensieve: one binary that plays the CLI (`tokensieve ...`) or a shim for a
//! real tool (`aws`, `kubectl`, ... via a symlink), chosen by argv[0].
//!
//! Map of the crate (see docs/ARCHITECTURE.md for the data flow):
//! - `json`: the JSON pipeline stages (pure functions) and the decoder.
//! - `text`: dev-tool text summaries and the generic log folding.
//! - `pipeline`: picks JSON or text handling for one captured stdout.
//! - `auditor`: exact BPE token counts and the receipt line.
//! - `handoff`: writes stdout, then the receipt; stores raw, records history.
//! - `shim`: real-tool resolution, the compress/passthrough policy, the child.
//! - `mcp`: `tokensieve mcp`, the same captures as an MCP server (rmcp).
//! - `jq`: jq programs (jaq) over a stored raw output, for `show --jq`.
//! - `store`, `history`: the raw object store and the SQLite call log.
//! - `share`: `objects push|pull` through git (LFS or refs), lazy fetch in `show`.
//! - `budget`, `view`: the stdout budget and the views printed above it.
//! - `homefs`: the one way to write under the home (no symlink followed).
//! - `untrusted`: the one way to read a file we did not write (capped, regular files only).
//! - `typed`: the typed result of a capture (status, counts, findings).
//! - `cli`: the `tokensieve` subcommands.
//! - `config`: every setting (environment > project file > user file >
//!   default) in one place; `userfilter`: the `[[filter]]`s those files define.
//! - `agents`: each agent's own setting that puts the shims on its shell's PATH.
//! - `transcript`: agent session logs read line by line (`discover`, `session compact`).

pub mod agents;
pub mod auditor;
pub mod budget;
pub mod cli;
pub mod command;
pub mod config;
pub mod debug;
pub mod handoff;
pub mod history;
pub mod homefs;
pub mod jq;
pub mod json;
pub mod lines;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod pipeline;
pub mod settings;
pub mod share;
pub mod shim;
pub mod store;
pub mod text;
pub mod transcript;
pub mod typed;
pub mod untrusted;
pub mod userfilter;
pub mod view;

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

/// Dispatch on the basename of argv[0]: `tokensieve` is the CLI, anything
/// else is a shim for the tool of that name.
pub fn entry(args: Vec<OsString>) -> ExitCode {
    let name = args
        .first()
        .and_then(|a| Path::new(a).file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "tokensieve" {
        cli::main(args.into_iter().skip(1).collect())
    } else {
        shim::main(&name, args.into_iter().skip(1).collect())
    }
}
