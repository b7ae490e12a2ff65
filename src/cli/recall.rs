//! `tokensieve recall [--status S] [--tool T] [--file PATH] [--since 2d]
//! [--cwd] [--limit N] [--json]`: past captures found by their typed result,
//! newest first, through the history's indexes (`history::recall`).

use std::ffi::OsString;
use std::io::Write;
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

/// One line per capture (id, time, status, command, counts, findings), and
/// with `--file` the findings on that file under it.
pub fn render_text(found: &[Recalled], file: Option<&str>) -> String {
    if found.is_empty() {
        return "no captures match\n".into();
    }
    let mut out = String::new();
    for r in found {
        let command =
            if r.subcommand.is_empty() { r.tool.clone() } else { format!("{} {}", r.tool, r.subcommand) };
        let time = crate::json::deduper::iso_utc(r.ts_ms.max(0) as u64);
        let findings = r.result.as_ref().and_then(|v| v["findings"].as_array());
        let counts = r
            .result
            .as_ref()
            .and_then(|v| v["counts"].as_object())
            .filter(|c| !c.is_empty())
            .map(|c| {
                format!(" ({})", c.iter().map(|(k, n)| format!("{n} {k}")).collect::<Vec<_>>().join(", "))
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "{}  {}  {:<6}  {command}{counts}  {} findings\n",
            r.object_id.as_deref().unwrap_or("-"),
            time,
            r.status,
            findings.map_or(0, Vec::len)
        ));
        let Some(file) = file else { continue };
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
