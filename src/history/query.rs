//! `recall`'s question to the history, shared by `tokensieve recall` and
//! the MCP server's `recall` tool: options as typed → a `Query`
//! (`from_options`), and the two renderings of what it finds (`to_json`,
//! `render_text`). `--since` spans are read here too (`gain`, `discover`).

use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::{Value, json};

use super::{Query, Recalled};

/// Options as typed, before validation.
#[derive(Debug, Default)]
pub struct Options {
    pub status: Option<String>,
    pub tool: Option<String>,
    pub file: Option<String>,
    pub cwd: bool,
    pub limit: Option<String>,
}

/// Most captures listed unless `--limit` says otherwise.
pub const DEFAULT_LIMIT: usize = 50;

/// A query from the options (`since` as typed for `gain`, `json` shared).
pub fn from_options(opts: &Options, since: Option<&str>) -> Result<Query> {
    if let Some(s) = opts.status.as_deref()
        && !matches!(s, "passed" | "failed" | "error")
    {
        bail!("--status wants passed, failed or error; got '{s}'");
    }
    let since_ms = match since {
        Some(s) => parse_since(s)?.map(|d| super::now_ms().saturating_sub(d.as_millis() as i64)),
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

/// `all`, or a number with a unit: `30m`, `24h`, `7d`, `2w`.
pub(crate) fn parse_since(s: &str) -> Result<Option<Duration>> {
    let t = s.trim();
    if t == "all" {
        return Ok(None);
    }
    let bad = || anyhow::anyhow!("--since wants all or a span like 24h, 7d, 30m, 2w; got '{s}'");
    let unit = t.chars().last().ok_or_else(bad)?;
    let secs = match unit {
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        'w' => 7 * 86_400,
        _ => return Err(bad()),
    };
    let n: u64 = t[..t.len() - 1].parse().map_err(|_| bad())?;
    Ok(Some(Duration::from_secs(n.checked_mul(secs).ok_or_else(bad)?)))
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

/// `recall`'s table fits this many columns (its last column is cut to fit).
const TABLE_WIDTH: usize = 100;
const MIN_COUNTS_WIDTH: usize = 8;

/// A table with a header, one row per capture (id, time, status, command,
/// findings, counts), columns aligned, and with `--file` the findings on
/// that file under its row.
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
                // to the second here (the JSON keeps the milliseconds)
                crate::json::deduper::iso_utc((r.ts_ms.max(0) as u64) / 1000 * 1000).replace(".000Z", "Z"),
                r.status.clone(),
                command,
                findings.to_string(),
                counts,
            ]
        })
        .collect();
    let header = ["id", "time", "status", "command", "findings", "counts"];
    let widths: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0))
        .collect();
    // The counts close the row; they are cut to keep it within 100 columns.
    let room =
        TABLE_WIDTH.saturating_sub(widths.iter().sum::<usize>() + 2 * widths.len()).max(MIN_COUNTS_WIDTH);
    let line = |cells: [&str; 6]| {
        let (w0, w1, w2, w3, w4) = (widths[0], widths[1], widths[2], widths[3], widths[4]);
        let row = format!(
            "{:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {:>w4$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            if cells[5].chars().count() > room {
                crate::untrusted::printable(cells[5], room - 1)
            } else {
                cells[5].to_owned()
            }
        );
        format!("{}\n", row.trim_end())
    };
    let mut out = line(header);
    for (r, cells) in found.iter().zip(&rows) {
        out.push_str(&line([&cells[0], &cells[1], &cells[2], &cells[3], &cells[4], &cells[5]]));
        let Some(file) = file else { continue };
        let findings = r.result.as_ref().and_then(|v| v["findings"].as_array());
        for f in findings.into_iter().flatten() {
            if f["path"].as_str().is_some_and(|p| super::path_matches(p, file)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24: `recall` prints a table with a header, aligned, within 100
    /// columns with the longest command names of the fixtures.
    #[test]
    fn recall_table_has_a_header_and_fits_100_columns() {
        let row = |tool: &str, sub: &str, counts: Value| Recalled {
            ts_ms: 1_764_000_000_000,
            tool: tool.into(),
            subcommand: sub.into(),
            status: "failed".into(),
            exit_code: 1,
            object_id: Some("14bb3b500616".into()),
            cwd: None,
            result: Some(json!({"counts": counts, "findings": [{"kind": "error"}]})),
        };
        let found = [
            row("aws", "ec2 describe-instance-types", json!({})),
            row(
                "pytest",
                "",
                json!({"passed": 1203, "failed": 12, "skipped": 40, "errors": 2, "warnings": 7}),
            ),
        ];
        let t = render_text(&found, None);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[0].starts_with("id ") && lines[0].ends_with("findings  counts"), "{t}");
        for l in &lines {
            assert!(l.chars().count() <= 100, "{} columns: {l}", l.chars().count());
        }
        let at = lines[0].find("command").unwrap();
        assert!(
            lines[1][at..].starts_with("aws ec2 describe-instance-types")
                && lines[2][at..].starts_with("pytest")
        );
        assert!(lines[2].ends_with('…'), "{t}");
    }

    #[test]
    fn since_spans() {
        assert_eq!(parse_since("all").unwrap(), None);
        assert_eq!(parse_since("24h").unwrap(), Some(Duration::from_secs(86_400)));
        assert_eq!(parse_since("7d").unwrap(), Some(Duration::from_secs(7 * 86_400)));
        assert_eq!(parse_since("30m").unwrap(), Some(Duration::from_secs(1800)));
        assert_eq!(parse_since("2w").unwrap(), Some(Duration::from_secs(14 * 86_400)));
        for bad in ["", "h", "7", "7y", "-1d", "1.5h", "99999999999999999999d"] {
            assert!(parse_since(bad).is_err(), "{bad}");
        }
    }
}
