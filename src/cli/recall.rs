//! `tokensieve recall [--status S] [--tool T] [--file PATH] [--since 2d]
//! [--cwd] [--limit N] [--json]`: past captures found by their typed result,
//! newest first, through the history's indexes (`history::recall`).

use std::process::ExitCode;

use anyhow::Result;

use super::Global;
use crate::history;
use crate::settings::Format;
use crate::store;

// The query and its renderings are the history's (`crate::history::query`),
// shared with the MCP server.
pub(crate) use crate::history::query::{Options, from_options as query};
use crate::history::query::{render_text, to_json};

pub(crate) fn run(a: super::args::RecallArgs, global: &Global) -> Result<ExitCode> {
    let opts = Options {
        status: a.status.map(|s| format!("{s:?}").to_lowercase()),
        tool: a.tool,
        file: a.file,
        cwd: a.cwd,
        limit: Some(a.limit.to_string()),
    };
    let q = query(&opts, a.since.as_deref())?;
    let home = store::home();
    let found = match super::gain::read_history(&home, |conn| history::recall(conn, &q))? {
        Ok(f) => f,
        Err(code) => return Ok(code),
    };
    let format = if a.json { Format::Json } else { a.format.unwrap_or(global.settings.format) };
    let text = match format {
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&to_json(&found))?),
        Format::Yaml => crate::typed::to_yaml(&to_json(&found)),
        Format::Text => render_text(&found, q.file.as_deref()),
    };
    super::out::text(&text)?;
    Ok(ExitCode::SUCCESS)
}
