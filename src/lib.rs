//! tokensieve: one binary that plays the CLI (`tokensieve ...`) or a shim for a
//! real tool (`aws`, `kubectl`, ... via a symlink), chosen by argv[0].
//!
//! The layers of the crate, the walk of one stdout buffer and one line per
//! module: docs/ARCHITECTURE.md; each module's details: its own `//!` doc.

pub mod agents;
pub mod auditor;
pub mod budget;
pub mod cli;
pub mod command;
pub mod config;
pub mod debug;
pub mod focus;
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
pub mod threads;
pub mod transcript;
pub mod typed;
pub mod untrusted;
pub mod userfilter;
pub mod userview;
pub mod values;
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
