//! The typed result of a capture (docs/FORMAT.md §9): one shape for every
//! tool — `status` from the exit code only, the tool's own summary counts,
//! the findings the signal ledger marked (each with its location and a
//! fingerprint that survives line shifts), and the raw output's id.
//!
//! Nothing here is guessed: `status` is the exit code's verdict, counts come
//! only from the tool's own summary lines, a finding is a line the ledger
//! marked, its location as printed on that line. When the tool's filter
//! claims the command but finds none of its anchors, the result says so and
//! holds no findings.
//!
//! # Design: Typed results and recall (`src/typed.rs`, `src/cli/{recall,gain}.rs`)
//!
//! `text::render_typed` reads, from the same cleaned lines and ledger the
//! rendering uses, the call's typed result (`typed::TypedResult`, docs/FORMAT.md
//! §9): `status` from the exit code only (`typed::status_of`), `counts` from the
//! tool's own summary lines, `findings` from the ledger's lines with the
//! location printed on them and a fingerprint that ignores line numbers; a
//! built-in filter that claims the command but returns `None` (no anchors)
//! leaves the result with `anchors: false`, a note and nothing read. JSON and
//! binary outputs get the verdict alone (`TypedResult::bare`). `handoff`
//! sets its `raw` id after the store, prints it with the text when
//! `Settings.format` is json or yaml (`--format`, the `format` setting /
//! `TOKENSIEVE_FORMAT`; YAML by `typed/yaml.rs`, JSON scalars in block
//! style), and `history::Call::with_result` keeps it with the row (migration
//! 3: `status`, `cwd`, `result`, a `findings` table of paths; indexes on
//! status, tool, finding path and object id). `history::result_of(home, id)` is the
//! stored result of a raw id (`show ID --summary`). `tokensieve recall`
//! (`history::recall`) lists calls by status, tool, a finding's file (path equal
//! or ending in `/FILE`), time and project directory; `scripts/bench-recall.py`
//! times it over a 200-call history. `gain --markdown [--since-ref REF]` is the
//! PR scorecard: per tool, calls made under the repository's top level since
//! the branch point with REF (`git merge-base`, its commit time).

mod yaml;

use std::fmt::Write as _;

use crate::settings::Format;
use once_cell::sync::Lazy;
use regex::Regex;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::lines::ledger::{Kind, Ledger};

/// Version of the stored JSON shape (`"v"`); bumped on a breaking change.
pub const VERSION: u64 = 1;
/// Findings kept per result; the rest are counted in `findings_dropped`.
pub const MAX_FINDINGS: usize = 500;

/// The exit code's verdict: 0 passed; a tool that could not run (126, 127),
/// died by a signal (128+N) or, for pytest, stopped on a usage or internal
/// error (2–4) is an error; any other non-zero code is a failure.
pub fn status_of(tool: &str, exit_code: i32) -> &'static str {
    match exit_code {
        0 => "passed",
        126 | 127 => "error",
        c if !(0..=128).contains(&c) => "error",
        2..=4 if matches!(tool, "pytest" | "py.test") => "error",
        _ => "failed",
    }
}

/// One finding: a ledger line, with its location when the line prints one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `error`, `warning`, `lint`, `test-failure`, `trace`, `oom`, `http-5xx`,
    /// `log-error`.
    pub kind: &'static str,
    pub message: String,
    pub path: Option<String>,
    pub line: Option<u64>,
    pub col: Option<u64>,
    /// 1-based line of the raw output the location (or the message) is on:
    /// `tokensieve show ID --lines N`.
    pub raw_line: usize,
    /// 16 hex digits: kind, path and message with its numbers masked, and
    /// the ordinal among equal ones; line numbers play no part.
    pub fingerprint: String,
}

/// The typed result of one capture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypedResult {
    pub status: &'static str,
    pub exit_code: i32,
    pub tool: String,
    pub subcommand: String,
    /// The tool-aware filter that claims the command, if any.
    pub filter: Option<&'static str>,
    /// `false` when that filter found none of its anchors (then no findings).
    pub anchors: bool,
    pub note: Option<String>,
    /// Only the keys the tool's own summary lines print.
    pub counts: Map<String, Value>,
    pub findings: Vec<Finding>,
    pub findings_dropped: usize,
    pub raw: Option<String>,
}

impl TypedResult {
    /// A result with no text to read (JSON, binary, no hint): status only.
    pub fn bare(command: &[String], exit_code: i32) -> TypedResult {
        // the tool a wrapper runs (`npx tsc`, `python -m pytest`, `sudo apt-get`)
        let (tool, subcommand) = match crate::command::Invocation::parse(command) {
            _ if command.is_empty() => ("-".to_string(), String::new()),
            Some(inv) => {
                let words: Vec<String> = std::iter::once(inv.tool).chain(inv.args).collect();
                crate::command::command_words(&words)
            }
            None => crate::command::command_words(command),
        };
        TypedResult {
            status: status_of(&tool, exit_code),
            exit_code,
            tool,
            subcommand,
            anchors: true,
            ..TypedResult::default()
        }
    }

    /// The result for a text output: `lines` and `ledger` are the cleaned
    /// text's (numbered as the raw's), `filter` the claiming filter and
    /// whether it found its anchors.
    pub fn of_text(
        command: &[String],
        exit_code: i32,
        lines: &[&str],
        ledger: &Ledger,
        filter: Option<(&'static str, bool)>,
    ) -> TypedResult {
        let mut r = TypedResult::bare(command, exit_code);
        r.filter = filter.map(|f| f.0);
        if let Some((name, false)) = filter {
            r.anchors = false;
            r.note = Some(format!(
                "the {name} filter found none of its anchors in this output: no findings or counts read"
            ));
            return r;
        }
        r.counts = counts(lines, ledger);
        // a checker no filter names: its lines that name a place are findings
        let (findings, dropped) = findings(&r.tool, lines, ledger, filter.is_none());
        r.findings = findings;
        r.findings_dropped = dropped;
        r
    }

    pub fn to_json(&self) -> Value {
        let findings: Vec<Value> = self
            .findings
            .iter()
            .map(|f| {
                let mut m = Map::new();
                m.insert("kind".into(), f.kind.into());
                m.insert("message".into(), f.message.clone().into());
                m.insert("path".into(), f.path.clone().into());
                m.insert("line".into(), f.line.into());
                m.insert("col".into(), f.col.into());
                m.insert("raw_line".into(), f.raw_line.into());
                m.insert("fingerprint".into(), f.fingerprint.clone().into());
                Value::Object(m)
            })
            .collect();
        json!({
            "v": VERSION,
            "status": self.status,
            "exit_code": self.exit_code,
            "tool": self.tool,
            "subcommand": self.subcommand,
            "filter": self.filter,
            "anchors": self.anchors,
            "note": self.note,
            "counts": self.counts,
            "findings": findings,
            "findings_dropped": self.findings_dropped,
            "raw": self.raw,
        })
    }
}

/// The printed document for `--format json|yaml`: the typed result plus
/// `output`, the text the agent would have read.
pub fn document(result: &TypedResult, output: &str, format: Format) -> String {
    let mut v = result.to_json();
    v["output"] = output.into();
    match format {
        Format::Yaml => yaml::encode(&v),
        _ => {
            let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
            s.push('\n');
            s
        }
    }
}

/// YAML for any JSON value (block style, scalars JSON-quoted when needed).
pub fn to_yaml(v: &Value) -> String {
    yaml::encode(v)
}

/// The short text form of a stored result (`show ID --summary`).
pub fn summary_text(v: &Value) -> String {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    let command = [s("tool"), s("subcommand")].iter().filter(|w| !w.is_empty()).copied().collect::<Vec<_>>();
    let mut out = format!(
        "{}: {} (exit {})",
        command.join(" "),
        s("status"),
        v.get("exit_code").and_then(Value::as_i64).unwrap_or(0)
    );
    if let Some(counts) = v.get("counts").and_then(Value::as_object).filter(|c| !c.is_empty()) {
        let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let _ = write!(out, " · {}", parts.join(", "));
    }
    if let Some(raw) = v.get("raw").and_then(Value::as_str) {
        let _ = write!(out, " · raw {raw}");
    }
    out.push('\n');
    if let Some(note) = v.get("note").and_then(Value::as_str) {
        let _ = writeln!(out, "{note}");
    }
    for f in v.get("findings").and_then(Value::as_array).into_iter().flatten() {
        let at = match (f["path"].as_str(), f["line"].as_u64(), f["col"].as_u64()) {
            (Some(p), Some(l), Some(c)) => format!("{p}:{l}:{c}"),
            (Some(p), Some(l), None) => format!("{p}:{l}"),
            (Some(p), None, _) => p.to_string(),
            _ => format!("L{}", f["raw_line"]),
        };
        let _ = writeln!(
            out,
            "{} {at} {} [{}]",
            f["kind"].as_str().unwrap_or(""),
            f["message"].as_str().unwrap_or(""),
            f["fingerprint"].as_str().unwrap_or("")
        );
    }
    if let Some(n) = v.get("findings_dropped").and_then(Value::as_u64).filter(|&n| n > 0) {
        let _ = writeln!(out, "… {n} more findings not kept");
    }
    out
}

// Every pattern here runs on each text output: ASCII classes (`-u`), so
// that compiling them skips the Unicode tables (see text::ascii_regex).

/// Count words of the tool's summary lines, as printed: `3 passed`,
/// `1 failed; 0 ignored`, `2 warnings`, `due to 4 previous errors`.
static COUNT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i-u)\b(\d+)\s+(?:previous\s+)?(passed|failed|skipped|ignored|errors?|warnings?)\b")
        .unwrap()
});

/// The counts of the tool's summary lines. Lines of one family (the same
/// first word: cargo's `test result:` once per test binary) add up; when
/// two families state the same count, the later one is the tool's final
/// word (pytest's `Interrupted: 2 errors during collection` banner, then
/// `2 errors in 0.22s`: two errors, not four). Jest's `Test Suites:` line
/// counts suites, not tests: skipped.
fn counts(lines: &[&str], ledger: &Ledger) -> Map<String, Value> {
    // (family, key, sum) in the order first seen; `last` names, per key,
    // the family that stated it last.
    let mut sums: Vec<(String, &'static str, u64)> = Vec::new();
    let mut last: Vec<(&'static str, String)> = Vec::new();
    for e in &ledger.entries {
        let Some(line) = lines.get(e.line).filter(|l| is_summary(e.kind, l)) else { continue };
        if line.trim_start().starts_with("Test Suites:") {
            continue;
        }
        let family = summary_family(line);
        for c in COUNT.captures_iter(line) {
            let key = match c[2].to_ascii_lowercase().as_str() {
                "passed" => "passed",
                "failed" => "failed",
                "skipped" | "ignored" => "skipped",
                w if w.starts_with("error") => "errors",
                _ => "warnings",
            };
            let n: u64 = c[1].parse().unwrap_or(0);
            match sums.iter_mut().find(|(f, k, _)| *f == family && *k == key) {
                Some((_, _, total)) => *total += n,
                None => sums.push((family.clone(), key, n)),
            }
            match last.iter_mut().find(|(k, _)| *k == key) {
                Some((_, f)) => f.clone_from(&family),
                None => last.push((key, family.clone())),
            }
        }
    }
    let mut out = Map::new();
    for key in ["passed", "failed", "skipped", "errors", "warnings"] {
        let Some((_, family)) = last.iter().find(|(k, _)| *k == key) else { continue };
        if let Some((_, _, n)) = sums.iter().find(|(f, k, _)| f == family && *k == key) {
            out.insert(key.into(), (*n).into());
        }
    }
    out
}

/// A summary line's family: its first word (letters only, lower case),
/// past any rule of `=`, `!` or `-` and the counts themselves.
fn summary_family(line: &str) -> String {
    line.split(|c: char| !c.is_ascii_alphabetic()).find(|w| !w.is_empty()).unwrap_or("").to_ascii_lowercase()
}

/// A summary line of the tool's (cargo's `test result: FAILED.` reads as a
/// failure to the ledger; it is the counts).
fn is_summary(kind: Kind, line: &str) -> bool {
    kind == Kind::Summary || line.trim_start().starts_with("test result:")
}

/// `path:line[:col]` (a path has a `/` or an extension, so `12:30:45` is
/// no location; a line number never starts with 0, so neither is an access
/// log's `[27/Nov/2026:05:33:06`, but it may be 0 alone: cpplint's
/// `a.cpp:0:` is about the whole file), `path(line,col)` (tsc), `File "path",
/// line N` (Python).
static LOCATION: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r#"(?x-u)
        (?:^|[\s'"`(\[])
        (?P<path>(?:[A-Za-z]:)?[\w.~/\\-]*(?:/[\w.@+-]+|\.[A-Za-z][\w]{0,9}))
        (?: :(?P<line>[1-9]\d*)(?::(?P<col>\d+))? | :(?P<zero>0)(?:(?u:\D)|$) | \((?P<pline>\d+),(?P<pcol>\d+)\) )
        "#,
    )
    .unwrap()
});
static PY_FILE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"File "(?P<path>[^"]+)", line (?P<line>(?-u:\d)+)"#).unwrap());
/// pytest's `FAILED tests/test_x.py::test_name`.
static NODE_ID: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?-u)(?:^|\s)(?P<path>[\w./-]+\.py)::").unwrap());
static WORD_ERROR: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i-u)\berror\b|\bfatal\b").unwrap());
static WORD_WARNING: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i-u)\bwarning\b").unwrap());
/// Numbers standing alone (line numbers, durations, counts), not inside
/// codes like `E302` or `TS2304`.
static NUMBER: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?-u)\b\d+(?:\.\d+)?").unwrap());

struct Location {
    path: String,
    line: Option<u64>,
    col: Option<u64>,
    /// Byte range of the location in the line.
    span: (usize, usize),
}

fn location(line: &str) -> Option<Location> {
    if let Some(c) = LOCATION.captures(line) {
        let path = c.name("path")?;
        let num = |n: &str| c.name(n).and_then(|m| m.as_str().parse().ok());
        let end = c.get(0).map_or(path.end(), |m| m.end());
        return Some(Location {
            path: path.as_str().to_string(),
            line: num("line").or(num("zero")).or(num("pline")),
            col: num("col").or(num("pcol")),
            span: (path.start(), end),
        });
    }
    if let Some(c) = PY_FILE.captures(line) {
        let m = c.get(0)?;
        return Some(Location {
            path: c["path"].to_string(),
            line: c["line"].parse().ok(),
            col: None,
            span: (m.start(), m.end()),
        });
    }
    let c = NODE_ID.captures(line)?;
    let path = c.name("path")?;
    Some(Location {
        path: path.as_str().to_string(),
        line: None,
        col: None,
        span: (path.start(), path.end()),
    })
}

/// The finding's message: the line without a leading location and the
/// separator after it.
fn message_of(line: &str, loc: Option<&Location>) -> String {
    let t = line.trim();
    let msg = match loc {
        Some(l) if line[..l.span.0].trim().is_empty() => {
            line[l.span.1..].trim_start_matches([':', ' ', '-']).trim().to_string()
        }
        _ => t.to_string(),
    };
    if msg.is_empty() { t.to_string() } else { msg }
}

/// Characters of a message kept in the result (the fingerprint reads all).
const MAX_MESSAGE: usize = 400;

fn diagnostic_kind(line: &str) -> &'static str {
    if WORD_ERROR.is_match(line) {
        "error"
    } else if WORD_WARNING.is_match(line) {
        "warning"
    } else {
        "lint"
    }
}

/// An arrow line (`  --> src/main.rs:4:5`): the location of the header above.
fn is_arrow(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("--> ") || t.starts_with("::: ")
}

fn findings(tool: &str, lines: &[&str], ledger: &Ledger, places: bool) -> (Vec<Finding>, usize) {
    let mut out: Vec<Finding> = Vec::new();
    let mut dropped = 0;
    let mut seen: Vec<(String, usize)> = Vec::new();
    // the ledger's lines, and with `places` the lines naming a place that it
    // does not mark (a checker's findings without a problem word:
    // `pkg/a.py:12: unused variable 'x'`), in line order
    let mut marked: Vec<(usize, Kind)> = ledger.entries.iter().map(|e| (e.line, e.kind)).collect();
    if places {
        let in_ledger: std::collections::HashSet<usize> = marked.iter().map(|m| m.0).collect();
        marked.extend(
            (0..lines.len())
                .filter(|k| !in_ledger.contains(k) && crate::lines::places::is_finding(lines[*k]))
                .map(|k| (k, Kind::Diagnostic)),
        );
        marked.sort_by_key(|m| m.0);
    }
    for (i, &(at_line, ekind)) in marked.iter().enumerate() {
        let Some(&line) = lines.get(at_line) else { continue };
        if is_summary(ekind, line) {
            continue;
        }
        let kind = match ekind {
            Kind::Summary => continue,
            Kind::Diagnostic if is_arrow(line) => continue,
            Kind::Diagnostic => diagnostic_kind(line),
            Kind::TestFailure => "test-failure",
            // stack frames are indented: the trace's header and exception
            // lines are the findings, its frames their context
            Kind::Trace if line.starts_with([' ', '\t']) => continue,
            Kind::Trace => "trace",
            Kind::Oom => "oom",
            Kind::Http5xx => "http-5xx",
            Kind::Level => "log-error",
        };
        let mut loc = location(line);
        let mut at = at_line;
        // a rustc-style header: its location is on the `-->` line below
        if loc.is_none() && ekind == Kind::Diagnostic {
            let next = marked[i + 1..].iter().take(3).find(|n| n.0 <= at_line + 4);
            if let Some(&(n, _)) = next
                && let Some(&arrow) = lines.get(n)
                && is_arrow(arrow)
            {
                loc = location(arrow);
                at = n;
            }
        }
        if out.len() >= MAX_FINDINGS {
            dropped += 1;
            continue;
        }
        let message = message_of(line, if at == at_line { loc.as_ref() } else { None });
        let path = loc.as_ref().map(|l| l.path.clone());
        let base =
            format!("{tool}\u{1f}{kind}\u{1f}{}\u{1f}{}", path.as_deref().unwrap_or(""), mask(&message));
        let message: String = message.chars().take(MAX_MESSAGE).collect();
        let ordinal = match seen.iter_mut().find(|(b, _)| *b == base) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                seen.push((base.clone(), 0));
                0
            }
        };
        out.push(Finding {
            kind,
            message,
            path,
            line: loc.as_ref().and_then(|l| l.line),
            col: loc.as_ref().and_then(|l| l.col),
            raw_line: at + 1,
            fingerprint: fingerprint(&base, ordinal),
        });
    }
    (out, dropped)
}

/// The message with its free-standing numbers masked, so a finding keeps its
/// fingerprint when code moves (line numbers in the message, durations).
fn mask(message: &str) -> String {
    NUMBER.replace_all(message, "#").into_owned()
}

fn fingerprint(base: &str, ordinal: usize) -> String {
    let digest = Sha256::digest(format!("{base}\u{1f}{ordinal}").as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(cmd: &str, exit: i32, text: &str) -> TypedResult {
        let lines: Vec<&str> = text.split('\n').collect();
        let ledger = crate::lines::ledger::scan(lines.iter().copied());
        let command: Vec<String> = cmd.split_whitespace().map(str::to_owned).collect();
        TypedResult::of_text(&command, exit, &lines, &ledger, None)
    }

    #[test]
    fn status_is_the_exit_codes_verdict() {
        assert_eq!(status_of("cargo", 0), "passed");
        assert_eq!(status_of("cargo", 101), "failed");
        assert_eq!(status_of("pytest", 1), "failed");
        assert_eq!(status_of("pytest", 4), "error");
        assert_eq!(status_of("make", 2), "failed");
        assert_eq!(status_of("x", 127), "error");
        assert_eq!(status_of("x", 143), "error");
        assert_eq!(status_of("x", -1), "error");
    }

    #[test]
    fn gcc_findings_carry_their_location() {
        let r = result(
            "gcc -c a.c",
            1,
            "a.c: In function 'main':\nsrc/a.c:3:5: error: expected ';' before 'return'\n",
        );
        assert_eq!(r.findings.len(), 1, "{:?}", r.findings);
        let f = &r.findings[0];
        assert_eq!(
            (f.kind, f.path.as_deref(), f.line, f.col, f.raw_line),
            ("error", Some("src/a.c"), Some(3), Some(5), 2)
        );
        assert_eq!(f.message, "error: expected ';' before 'return'");
        assert_eq!(r.status, "failed");
    }

    #[test]
    fn a_checkers_places_are_findings_without_a_problem_word() {
        // vulture/cpplint style: no error or warning word, a place each
        let text = "Checking sets ...\nsets/fancysets.py:504: unused variable 'hints' (100% confidence)\n\
                    sets/sets.py:12: unused import 'cache' (90% confidence)\nDone.\n";
        let r = result("vulture sets", 3, text);
        let got: Vec<_> =
            r.findings.iter().map(|f| (f.kind, f.path.as_deref(), f.line, f.raw_line)).collect();
        assert_eq!(
            got,
            [("lint", Some("sets/fancysets.py"), Some(504), 2), ("lint", Some("sets/sets.py"), Some(12), 3)]
        );
        // a filter that claims the output reads its own findings only
        let lines: Vec<&str> = text.split('\n').collect();
        let ledger = crate::lines::ledger::scan(lines.iter().copied());
        let command = vec!["vulture".to_string()];
        let claimed = TypedResult::of_text(&command, 3, &lines, &ledger, Some(("lint", true)));
        assert!(claimed.findings.is_empty(), "{:?}", claimed.findings);
        // cpplint's `path:0:` is about the whole file: line 0, not no place
        let r = result("cpplint a.cpp", 1, "a.cpp:0:  No copyright message found.  [legal/copyright] [5]\n");
        assert_eq!(r.findings[0].line, Some(0), "{:?}", r.findings);
        assert_eq!(r.findings[0].message, "No copyright message found.  [legal/copyright] [5]");
    }

    #[test]
    fn an_access_log_date_is_no_location() {
        let line =
            r#"127.0.0.1 - - [27/Nov/2026:05:33:06 +0000] "GET /price/SKU-060 HTTP/1.1" 500 0 "-" "-""#;
        assert!(location(line).is_none(), "{:?}", location(line).map(|l| (l.path, l.line)));
        let at = location("see src/app/views.py:88: KeyError").expect("a location");
        assert_eq!((at.path.as_str(), at.line), ("src/app/views.py", Some(88)));
    }

    #[test]
    fn rustc_headers_take_the_arrow_location() {
        let text = "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:4:5\n  |\n4 |     x\n  |     ^ not found\n\nerror: could not compile `demo` (bin \"demo\") due to 1 previous error\n";
        let r = result("cargo build", 101, text);
        let f = &r.findings[0];
        assert_eq!((f.path.as_deref(), f.line, f.raw_line), (Some("src/main.rs"), Some(4), 2));
        assert!(f.message.starts_with("error[E0425]"), "{}", f.message);
    }

    #[test]
    fn fingerprints_survive_line_shifts() {
        let a =
            "src/a.c:3:5: error: expected ';' (see line 3)\nsrc/a.c:9:1: error: expected ';' (see line 3)\n";
        let b = "note: something new\nsrc/a.c:13:5: error: expected ';' (see line 13)\nsrc/a.c:19:1: error: expected ';' (see line 13)\n";
        let fa: Vec<String> = result("gcc", 1, a).findings.into_iter().map(|f| f.fingerprint).collect();
        let fb: Vec<String> = result("gcc", 1, b).findings.into_iter().map(|f| f.fingerprint).collect();
        assert_eq!(fa.len(), 2);
        assert_ne!(fa[0], fa[1], "equal findings are told apart by their order");
        assert_eq!(fa, fb);
    }

    #[test]
    fn counts_come_from_summary_lines_only() {
        let text = "running 3 tests\ntest a ... ok\ntest result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nrunning 1 test\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        let r = result("cargo test", 101, text);
        assert_eq!(Value::Object(r.counts), json!({"passed": 2, "failed": 2, "skipped": 0}));
    }

    #[test]
    fn pytest_collection_errors_are_counted_once() {
        // issue 24/26: the `Interrupted:` banner and the final line state
        // the same two errors.
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/text/pytest-collection-error.txt"
        ))
        .unwrap();
        let r = result("pytest", 2, &text);
        assert_eq!(r.counts.get("errors"), Some(&json!(2)), "{:?}", r.counts);
    }

    #[test]
    fn a_filter_without_anchors_reads_nothing() {
        let lines = ["src/a.c:3:5: error: expected ';'"];
        let ledger = crate::lines::ledger::scan(lines);
        let r = TypedResult::of_text(
            &["cargo".into(), "test".into()],
            101,
            &lines,
            &ledger,
            Some(("cargo", false)),
        );
        assert!(!r.anchors && r.findings.is_empty() && r.counts.is_empty());
        assert!(r.note.unwrap().contains("cargo filter found none of its anchors"));
        assert_eq!(r.status, "failed");
    }
}
