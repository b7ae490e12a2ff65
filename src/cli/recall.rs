//! `tokensieve recall [--status S] [--tool T] [--file PATH] [--since 2d]
//! [--cwd] [--limit N] [--json]`: past captures found by their typed result,
//! newest first, through the history's indexes (`history::recall`).

use std::process::ExitCode;

use anyhow::{Result, bail};
use serde_json::{Value, json};

use super::Global;
use crate::history::{self, Query, Recalled};
use crate::store;
use crate::typed::Format;

/// Options as typed, before validation.
#[derive(Debug, Default)]
pub(crate) struct Options {
    pub status: Option<String>,
    pub tool: Option<String>,
    pub file: Option<String>,
    pub cwd: bool,
    pub limit: Option<String>,
}

/// Most captures listed unless `--limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 50;

/// A query from the options (`since` as typed for `gain`, `json` shared).
pub(crate) fn query(opts: &Options, since: Option<&str>) -> Result<Query> {
    if let Some(s) = opts.status.as_deref()
        && !matches!(s, "passed" | "failed" | "error")
    {
        bail!("--status wants passed, failed or error; got '{s}'");
    }
    let since_ms = match since {
        Some(s) => {
            super::gain::parse_since(s)?.map(|d| history::now_ms().saturating_sub(d.as_millis() as i64))
        }
        None => None,
    };
    let limit = match opts.limit.as_deref() {
        Some(n) => n.trim().parse().map_err(|_| anyhow::anyhow!("--limit wants a number, got '{n}'"))?,
        None => DEFAULT_LIMIT,
    };
    let cwd = match opts.cwd {
        true => Some(std::env::current_dir()?.to_string_lossy().into_owned()),
        false => None,
    };
    Ok(Query {
        status: opts.status.clone(),
        tool: opts.tool.clone(),
        file: opts.file.as_deref().map(|f| f.trim_start_matches("./").to_string()),
        since_ms,
        cwd,
        limit,
    })
}

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

/// One object per capture: when, where, and its stored result.
pub fn to_json(found: &[Recalled]) -> Value {
    Value::Array(
        found
            .iter()
            .map(|r| {
                json!({
                    "id": r.object_id,
                    "time": crate::json::deduper::iso_utc(r.ts_ms.max(0) as u64),
                    "tool": r.tool,
                    "subcommand": r.subcommand,
                    "status": r.status,
                    "exit_code": r.exit_code,
                    "cwd": r.cwd,
                    "result": r.result,
                })
            })
            .collect(),
    )
}

/// Command names longer than this are clipped (the table fits 100 columns).
const MAX_COMMAND_WIDTH: usize = 32;

/// A table with a header, one row per capture (id, time, status, command,
/// findings, counts), and with `--file` the findings on that file under it.
pub fn render_text(found: &[Recalled], file: Option<&str>) -> String {
    if found.is_empty() {
        return "no captures match\n".into();
    }
    let rows: Vec<[String; 6]> = found
        .iter()
        .map(|r| {
            let command =
                if r.subcommand.is_empty() { r.tool.clone() } else { format!("{} {}", r.tool, r.subcommand) };
            let findings = r.result.as_ref().and_then(|v| v["findings"].as_array()).map_or(0, Vec::len);
            let counts = r
                .result
                .as_ref()
                .and_then(|v| v["counts"].as_object())
                .map(|c| c.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", "))
                .unwrap_or_default();
            [
                r.object_id.clone().unwrap_or_else(|| "-".into()),
                crate::json::deduper::iso_utc(r.ts_ms.max(0) as u64),
                r.status.clone(),
                super::out::clip(&command, MAX_COMMAND_WIDTH),
                findings.to_string(),
                counts,
            ]
        })
        .collect();
    let header = ["id", "time", "status", "command", "findings", "counts"];
    let widths: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0))
        .collect();
    let line = |cells: [&str; 6]| {
        let (w0, w1, w2, w3, w4) = (widths[0], widths[1], widths[2], widths[3], widths[4]);
        let row = format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {:>w4$}  {}",
            cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]
        );
        format!("{}\n", row.trim_end())
    };
    let mut out = line(header);
    for (r, cells) in found.iter().zip(&rows) {
        out.push_str(&line([&cells[0], &cells[1], &cells[2], &cells[3], &cells[4], &cells[5]]));
        let Some(file) = file else { continue };
        let findings = r.result.as_ref().and_then(|v| v["findings"].as_array());
        for f in findings.into_iter().flatten() {
            if f["path"].as_str().is_some_and(|p| history::path_matches(p, file)) {
                let at = match f["line"].as_u64() {
                    Some(l) => format!("{}:{l}", f["path"].as_str().unwrap_or("")),
                    None => f["path"].as_str().unwrap_or("").to_string(),
                };
                out.push_str(&format!(
                    "  {} {at} {}\n",
                    f["kind"].as_str().unwrap_or(""),
                    f["message"].as_str().unwrap_or("")
                ));
            }
        }
    }
    out
}
