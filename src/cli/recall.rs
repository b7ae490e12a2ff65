//! `tokensieve recall [--status S] [--tool T] [--file PATH] [--since 2d]
//! [--cwd] [--limit N] [--json]`: past captures found by their typed result,
//! newest first, through the history's indexes (`history::recall`).

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::Global;
use crate::history::{self, Query};
use crate::settings::Format;
use crate::store;

// The query and its renderings are the history's (`crate::history::query`),
// shared with the MCP server.
pub(crate) use crate::history::query::{Options, from_options as query};
use crate::history::query::{render_text, to_json};

pub(crate) fn run(positional: &[OsString], q: &Query, json: bool, global: &Global) -> Result<ExitCode> {
    if let Some(extra) = positional.first() {
        bail!("unexpected argument '{}'", extra.to_string_lossy());
    }
    let home = store::home();
    let found = match super::gain::read_history(&home, |conn| history::recall(conn, q))? {
        Ok(f) => f,
        Err(code) => return Ok(code),
    };
    let text = if json || global.settings.format == Format::Json {
        format!("{}\n", serde_json::to_string_pretty(&to_json(&found))?)
    } else if global.settings.format == Format::Yaml {
        crate::typed::to_yaml(&to_json(&found))
    } else {
        render_text(&found, q.file.as_deref())
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    Ok(ExitCode::SUCCESS)
}
