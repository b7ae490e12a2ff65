//! `tokensieve discover [--since 7d] [--json] [PATH...]`: the shell commands
//! an agent ran, from its session logs, and what tokensieve did or would
//! have done with each output.
//!
//! A command counts as handled when its result carries a receipt, or when
//! the history has a call of that tool between the call and its result.
//! Otherwise the recorded output runs through the real pipeline with the
//! command as hint (`handoff::assess`, what `tokensieve --cmd CMD --exit N`
//! does), and the saving is exact tokens.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use serde_json::json;

use super::out::group;
use super::progress::{Progress, Unit};
use crate::auditor::{self, ReceiptForm, Shape};
use crate::command::Invocation;
use crate::handoff;
use crate::history;
use crate::settings::{Hint, Settings};
use crate::store::{self, Store};
use crate::transcript::{self, Line, Reader, compact, events, spans};

struct Args {
    since: Option<Duration>,
    json: bool,
    paths: Vec<PathBuf>,
}

pub(crate) fn run(a: super::args::DiscoverArgs) -> Result<ExitCode> {
    let since = a.since.as_deref().map(crate::history::query::parse_since).transpose()?.flatten();
    let args = Args { since, json: a.json, paths: a.paths };
    let mut settings = super::settings();
    // What an agent would have read: the short receipt, unless asked otherwise.
    if !crate::config::get().is_set("receipt") {
        settings.receipt = ReceiptForm::Short;
    }
    let roots = if args.paths.is_empty() { default_roots() } else { args.paths.clone() };
    let cutoff = args.since.and_then(|d| SystemTime::now().checked_sub(d));
    let mut files = Vec::new();
    for root in &roots {
        collect(root, cutoff, &mut files, !args.paths.is_empty())?;
    }
    files.sort();
    let home = store::home();
    let max = crate::config::get().store_max_bytes();
    let raw_store = Store::new(home.clone(), max);
    let since_ms = cutoff
        .map_or(i64::MIN, |t| t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64));
    let rows = match history::open_existing(&home) {
        Ok(Some(conn)) => history::tool_times(&conn, since_ms).unwrap_or_default(),
        _ => Vec::new(),
    };
    let mut report = Report::default();
    let mut progress = Progress::new("reading sessions", Unit::Files, Some(files.len() as u64));
    for file in &files {
        progress.advance(1);
        let f = std::fs::File::open(file).with_context(|| format!("cannot read '{}'", file.display()))?;
        let malformed = scan(BufReader::new(f), &settings, &raw_store, &rows, &mut report)?;
        if malformed > 0 {
            eprintln!(
                "tokensieve discover: {}: {malformed} lines not transcript entries (skipped)",
                file.display()
            );
        }
    }
    progress.finish();
    report.files = files.len();
    let shimmed = |tool: &str| home.join("bin").join(tool).exists();
    let out = if args.json { format!("{:#}\n", report.to_json(&shimmed)) } else { report.table(&shimmed) };
    match io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// Where the agents keep their logs: Claude Code's projects
/// (`$CLAUDE_CONFIG_DIR`, default `~/.claude`) and Codex's sessions
/// (`$CODEX_HOME`, default `~/.codex`).
fn default_roots() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
    let claude = std::env::var_os("CLAUDE_CONFIG_DIR").map_or_else(|| home.join(".claude"), PathBuf::from);
    let codex = std::env::var_os("CODEX_HOME").map_or_else(|| home.join(".codex"), PathBuf::from);
    vec![claude.join("projects"), codex.join("sessions")]
}

/// `*.jsonl` files under `root` (or `root` itself) modified after `cutoff`.
fn collect(root: &Path, cutoff: Option<SystemTime>, out: &mut Vec<PathBuf>, named: bool) -> Result<()> {
    let meta = match std::fs::metadata(root) {
        Ok(m) => m,
        Err(_) if !named => return Ok(()), // an agent that is not installed
        Err(e) => return Err(e).with_context(|| format!("cannot read '{}'", root.display())),
    };
    if meta.is_file() {
        let recent = cutoff.is_none_or(|c| meta.modified().is_ok_and(|m| m >= c));
        if recent {
            out.push(root.to_owned());
        }
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(root)
        .with_context(|| format!("cannot read '{}'", root.display()))?
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        let ty = e.file_type()?;
        let transcript = ty.is_file() && path.extension().is_some_and(|x| x == "jsonl");
        if ty.is_dir() || transcript {
            collect(&path, cutoff, out, false)?;
        }
    }
    Ok(())
}

/// Totals per tool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ToolRow {
    calls: usize,
    handled: usize,
    /// Tokens of the results the model received.
    received: u64,
    /// Tokens tokensieve would have saved on the calls not handled.
    would_save: u64,
}

#[derive(Debug, Default)]
struct Report {
    files: usize,
    tools: BTreeMap<String, ToolRow>,
    /// Tokens of every tool result, and of every entry's content.
    tool_result_tokens: u64,
    content_tokens: u64,
}

/// A call waiting for its result.
struct Pending {
    tool: String,
    command: Option<String>,
    at_ms: Option<i64>,
}

/// Reads one transcript into the report; returns how many lines were not
/// transcript entries.
fn scan(
    input: impl io::BufRead,
    settings: &Settings,
    raw_store: &Store,
    history_rows: &[(i64, String)],
    report: &mut Report,
) -> Result<usize> {
    let mut reader = Reader::new(input);
    let mut line = Line::default();
    let mut pending: HashMap<String, Pending> = HashMap::new();
    let mut malformed = 0;
    while reader.next_into(&mut line)? {
        let bytes = &line.bytes;
        let Some((root, format)) =
            spans::index(bytes).and_then(|r| transcript::detect(&r, bytes).map(|f| (r, f)))
        else {
            malformed += 1;
            continue;
        };
        report.content_tokens += compact::content_tokens(format, &root, bytes, settings.encoding);
        let at_ms = events::timestamp_ms(&root, bytes);
        for call in events::calls(format, &root, bytes) {
            pending.insert(call.id, Pending { tool: call.tool, command: call.command, at_ms });
        }
        for result in events::results(format, &root, bytes) {
            let Some(text) = result.text_node.and_then(|n| n.str(bytes)) else { continue };
            let received = auditor::count(settings.encoding, &text) as u64;
            report.tool_result_tokens += received;
            let Some(call) = pending.remove(&result.call_id) else { continue };
            let Some(command) = call.command.filter(|_| events::is_shell(&call.tool)) else { continue };
            let words = events::hint_words(&command);
            let tool = Invocation::parse(&words)
                .map_or_else(|| words.first().cloned().unwrap_or_default(), |i| i.tool);
            if tool.is_empty() {
                continue;
            }
            let row = report.tools.entry(tool.clone()).or_default();
            row.calls += 1;
            row.received += received;
            let window = call.at_ms.zip(at_ms);
            if events::has_receipt(&text) || window.is_some_and(|w| in_history(history_rows, &tool, w)) {
                row.handled += 1;
                continue;
            }
            row.would_save += would_save(&text, words, settings, raw_store);
        }
    }
    Ok(malformed)
}

/// Tokens the agent would have saved on this output: what `tokensieve
/// --cmd CMD --exit N` reports (raw count less the rendering and the
/// receipt line the agent reads with it).
fn would_save(text: &str, words: Vec<String>, settings: &Settings, raw_store: &Store) -> u64 {
    let (exit_code, output) = events::split_exit(text);
    let hint = Hint { command: words, exit_code };
    let (_, receipt, _) = handoff::assess(output.as_bytes(), Some(&hint), settings, raw_store);
    if receipt.shape == Shape::Raw {
        return 0;
    }
    receipt.original.saturating_sub(receipt.compressed + receipt.overhead) as u64
}

/// A history row of `tool` within the call's window (a second of slack).
fn in_history(rows: &[(i64, String)], tool: &str, (from, to): (i64, i64)) -> bool {
    let start = rows.partition_point(|(t, _)| *t < from - 1000);
    rows[start..].iter().take_while(|(t, _)| *t <= to + 1000).any(|(_, name)| name == tool)
}

impl Report {
    fn totals(&self) -> ToolRow {
        self.tools.values().fold(ToolRow::default(), |a, r| ToolRow {
            calls: a.calls + r.calls,
            handled: a.handled + r.handled,
            received: a.received + r.received,
            would_save: a.would_save + r.would_save,
        })
    }

    fn sorted(&self) -> Vec<(&String, &ToolRow)> {
        let mut rows: Vec<_> = self.tools.iter().collect();
        rows.sort_by(|a, b| {
            b.1.would_save.cmp(&a.1.would_save).then(b.1.received.cmp(&a.1.received)).then(a.0.cmp(b.0))
        });
        rows
    }

    fn table(&self, shimmed: &dyn Fn(&str) -> bool) -> String {
        let mut out = String::new();
        let total = self.totals();
        out.push_str(&format!(
            "{} shell commands in {} session files\n\n{:<16} {:>6} {:>8} {:>10} {:>12}  {}\n",
            total.calls, self.files, "tool", "calls", "handled", "received", "would save", "shim"
        ));
        for (tool, r) in self.sorted() {
            let shim = if shimmed(tool) {
                "installed".to_owned()
            } else if r.would_save > 0 {
                format!("tokensieve install {tool}")
            } else {
                "-".to_owned()
            };
            out.push_str(&format!(
                "{:<16} {:>6} {:>8} {:>10} {:>12}  {shim}\n",
                tool,
                group(r.calls as u64),
                group(r.handled as u64),
                group(r.received),
                group(r.would_save)
            ));
        }
        out.push_str(&format!(
            "{:<16} {:>6} {:>8} {:>10} {:>12}\n\n",
            "total",
            group(total.calls as u64),
            group(total.handled as u64),
            group(total.received),
            group(total.would_save)
        ));
        out.push_str(&format!(
            "would save {} tok: {} of the shell results' {} tok, {} of all tool results' {} tok, {} of the sessions' {} tok of content (cl100k exact)\n",
            group(total.would_save),
            pct(total.would_save, total.received),
            group(total.received),
            pct(total.would_save, self.tool_result_tokens),
            group(self.tool_result_tokens),
            pct(total.would_save, self.content_tokens),
            group(self.content_tokens),
        ));
        out
    }

    fn to_json(&self, shimmed: &dyn Fn(&str) -> bool) -> serde_json::Value {
        let total = self.totals();
        let tools: Vec<_> = self
            .sorted()
            .into_iter()
            .map(|(tool, r)| {
                json!({"tool": tool, "calls": r.calls, "handled": r.handled, "tokens_received": r.received,
                    "tokens_would_save": r.would_save, "shimmed": shimmed(tool),
                    "install": (!shimmed(tool)).then(|| format!("tokensieve install {tool}"))})
            })
            .collect();
        json!({
            "files": self.files,
            "tools": tools,
            "total": {"calls": total.calls, "handled": total.handled, "tokens_received": total.received,
                "tokens_would_save": total.would_save},
            "tool_result_tokens": self.tool_result_tokens,
            "content_tokens": self.content_tokens,
        })
    }
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 { "0.0 %".into() } else { format!("{:.1} %", part as f64 * 100.0 / whole as f64) }
}
