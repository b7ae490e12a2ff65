//! Blocks are atomic: a stack trace is one unit, from its header to its last
//! exception line. Inside it, runs of library frames may become one count
//! line of ours; the header, user frames (with their source line), every
//! `Caused by:` and chaining line and the exception lines always stay.
//!
//! Kinds: Python tracebacks (chained ones as one block), `at` stacks (Java
//! with `Caused by:`/`Suppressed:` and `... N more`, Node, .NET), Go panics
//! (`panic:` then goroutine frames), Rust panics (`panicked at`, message,
//! `stack backtrace:` frames).

use once_cell::sync::Lazy;
use regex::Regex;

use crate::text::clean::is_library_path;
use crate::text::ledger;

/// One piece of a block as rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A line of the output, kept as it is.
    Line(usize),
    /// This many library frames, folded.
    Library(usize),
}

/// A stack trace: lines `start..end` of the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: usize,
    pub end: usize,
    pub pieces: Vec<Piece>,
}

impl Block {
    /// The block's lines as shown: kept lines verbatim, folded frames counted.
    pub fn render(&self, lines: &[&str]) -> Vec<String> {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Line(i) => lines[*i].to_string(),
                Piece::Library(n) => format!("  … {n} library frames"),
            })
            .collect()
    }
}

static PY_FRAME: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"^\s+File "([^"]+)", line \d+"#).expect("valid regex"));
static CARETS: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*[\^~]+\s*$").expect("valid regex"));
static MORE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\s+\.\.\. \d+ (?:more|common frames omitted)").expect("valid regex"));
static CAUSE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*(?:Caused by|Suppressed): ").expect("valid regex"));
static GO_LOC: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\t(\S+):\d+(?: \+0x[0-9a-f]+)?$").expect("valid regex"));
static GOROUTINE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^goroutine \d+ \[[^\]]*\]:$").expect("valid regex"));
static RUST_FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s+\d+: (.+)$").expect("valid regex"));
static RUST_AT: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s+at (.+):\d+(?::\d+)?$").expect("valid regex"));
const PY_CHAIN: &[&str] =
    &["During handling of the above exception", "The above exception was the direct cause"];

/// Every stack trace in `lines`, in order, not overlapping.
pub fn find(lines: &[&str]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let found = python(lines, i)
            .or_else(|| at_stack(lines, i))
            .or_else(|| go(lines, i))
            .or_else(|| rust(lines, i));
        match found {
            Some(b) => {
                i = b.end;
                out.push(b);
            }
            None => i += 1,
        }
    }
    out
}

/// Library frames in a row become one piece.
fn push_library(pieces: &mut Vec<Piece>, n: usize) {
    if let Some(Piece::Library(k)) = pieces.last_mut() {
        *k += n;
    } else {
        pieces.push(Piece::Library(n));
    }
}

fn python(lines: &[&str], start: usize) -> Option<Block> {
    let (mut pieces, mut end) = python_one(lines, start)?;
    // A chained traceback continues the block. A loop, not recursion: a
    // program can print any number of chained tracebacks.
    while let Some(k) = (end..lines.len()).find(|&k| !lines[k].trim().is_empty()) {
        if !PY_CHAIN.iter().any(|c| lines[k].starts_with(c)) {
            break;
        }
        let Some(t) = (k + 1..lines.len()).find(|&t| !lines[t].trim().is_empty()) else { break };
        let Some((more, more_end)) = python_one(lines, t) else { break };
        pieces.push(Piece::Line(k));
        pieces.extend(more);
        end = more_end;
    }
    Some(Block { start, end, pieces })
}

/// One traceback from its header to its exception line: its pieces and the
/// line after it.
fn python_one(lines: &[&str], start: usize) -> Option<(Vec<Piece>, usize)> {
    if !lines[start].starts_with("Traceback (most recent call last)") {
        return None;
    }
    let mut pieces = vec![Piece::Line(start)];
    let mut i = start + 1;
    loop {
        let line = *lines.get(i)?;
        if let Some(c) = PY_FRAME.captures(line) {
            let src = lines
                .get(i + 1)
                .is_some_and(|n| n.starts_with("    ") && !PY_FRAME.is_match(n) && !CARETS.is_match(n));
            if is_library_path(&c[1]) {
                push_library(&mut pieces, 1);
            } else {
                pieces.push(Piece::Line(i));
                if src {
                    pieces.push(Piece::Line(i + 1));
                }
            }
            i += if src { 2 } else { 1 };
        } else if line.starts_with([' ', '\t']) || line.is_empty() {
            // carets, source of a folded frame, `[Previous line repeated N more times]`
            if line.trim_start().starts_with('[') {
                pieces.push(Piece::Line(i));
            }
            i += 1;
        } else {
            // the exception line
            pieces.push(Piece::Line(i));
            return Some((pieces, i + 1));
        }
    }
}

/// Java, Node, .NET: an error line, then `at` frames, causes, `... N more`.
fn at_stack(lines: &[&str], start: usize) -> Option<Block> {
    let first = lines.get(start + 1)?;
    if ledger::frame_of(lines[start]).is_some() || ledger::frame_of(first).is_none() {
        return None;
    }
    if !ledger::is_error_line(lines[start]) {
        return None;
    }
    let mut pieces = vec![Piece::Line(start)];
    let mut i = start + 1;
    while let Some(line) = lines.get(i) {
        if let Some(user) = ledger::frame_of(line) {
            if user {
                pieces.push(Piece::Line(i));
            } else {
                push_library(&mut pieces, 1);
            }
        } else if MORE.is_match(line) || CAUSE.is_match(line) {
            // `... N more`: the tool's own count of frames shared with the
            // trace above, quoted as printed (it is short)
            pieces.push(Piece::Line(i));
        } else {
            break;
        }
        i += 1;
    }
    Some(Block { start, end: i, pieces })
}

/// `panic:`/`fatal error:`, then goroutine stacks (function line, then a
/// tab-indented `path:line +0x..` line) up to the first line of neither kind.
fn go(lines: &[&str], start: usize) -> Option<Block> {
    let head = lines[start];
    if !(head.starts_with("panic: ") || head.starts_with("fatal error: ")) {
        return None;
    }
    let mut pieces = vec![Piece::Line(start)];
    let mut i = start + 1;
    let mut seen_goroutine = false;
    while let Some(line) = lines.get(i) {
        if line.trim().is_empty() {
            // blank lines separate the message from the goroutines
            let next = lines.get(i + 1).is_some_and(|n| GOROUTINE.is_match(n));
            if !next {
                break;
            }
            i += 1;
            continue;
        }
        if GOROUTINE.is_match(line) || line.starts_with("panic: ") || line.starts_with("[signal ") {
            seen_goroutine |= GOROUTINE.is_match(line);
            pieces.push(Piece::Line(i));
            i += 1;
            continue;
        }
        if !seen_goroutine {
            // more of the panic message (`[recovered]`, a wrapped value)
            pieces.push(Piece::Line(i));
            i += 1;
            continue;
        }
        let Some(c) = lines.get(i + 1).and_then(|n| GO_LOC.captures(n)) else {
            if line.starts_with("exit status ") || line.starts_with("created by ") {
                pieces.push(Piece::Line(i));
                i += 1;
                continue;
            }
            break;
        };
        if is_library_path(&c[1]) {
            push_library(&mut pieces, 1);
        } else {
            pieces.push(Piece::Line(i));
            pieces.push(Piece::Line(i + 1));
        }
        i += 2;
    }
    seen_goroutine.then_some(Block { start, end: i, pieces })
}

/// `thread 'x' panicked at path:l:c:`, its message, notes and backtrace.
fn rust(lines: &[&str], start: usize) -> Option<Block> {
    if !(lines[start].starts_with("thread '") && lines[start].contains("panicked at")) {
        return None;
    }
    let mut pieces = vec![Piece::Line(start)];
    let mut i = start + 1;
    let mut in_backtrace = false;
    while let Some(line) = lines.get(i) {
        if line.trim() == "stack backtrace:" {
            in_backtrace = true;
            pieces.push(Piece::Line(i));
            i += 1;
            continue;
        }
        if !in_backtrace {
            if line.trim().is_empty() || line.starts_with("thread '") || line.starts_with("test ") {
                break;
            }
            pieces.push(Piece::Line(i));
            i += 1;
            continue;
        }
        let Some(f) = RUST_FRAME.captures(line) else {
            if line.trim_start().starts_with("note: ") {
                pieces.push(Piece::Line(i));
                i += 1;
                continue;
            }
            break;
        };
        let at = lines.get(i + 1).and_then(|n| RUST_AT.captures(n));
        let user = at.as_ref().is_some_and(|c| !is_library_path(&c[1]))
            && !f[1].starts_with("std::")
            && !f[1].starts_with("core::");
        if user {
            pieces.push(Piece::Line(i));
            pieces.push(Piece::Line(i + 1));
        } else {
            push_library(&mut pieces, 1);
        }
        i += if at.is_some() { 2 } else { 1 };
    }
    Some(Block { start, end: i, pieces })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        find(&lines).iter().flat_map(|b| b.render(&lines)).collect()
    }

    #[test]
    fn a_long_chain_of_tracebacks_is_one_block_without_deep_recursion() {
        // Test threads have small stacks: one frame per chained traceback
        // overflowed long before 100,000.
        let one = "Traceback (most recent call last):\n  File \"/app/x.py\", line 1, in <module>\nValueError: boom\n\nDuring handling of the above exception, another exception occurred:\n\n";
        let text = one.repeat(100_000)
            + "Traceback (most recent call last):\n  File \"/app/x.py\", line 1, in <module>\nValueError: last\n";
        let lines: Vec<&str> = text.lines().collect();
        let blocks = find(&lines);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].end, lines.len());
    }

    #[test]
    fn chained_python_traceback_is_one_block() {
        let text = "log line\nTraceback (most recent call last):\n  File \"/app/a.py\", line 3, in f\n    g()\n  File \"/usr/lib/python3.11/json/decoder.py\", line 9, in decode\n    raise X\n    ^^^^^^^\nValueError: bad\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"/app/b.py\", line 7, in main\n    f()\nOrderError: row 3\nafter\n";
        let lines: Vec<&str> = text.lines().collect();
        let b = find(&lines);
        assert_eq!(b.len(), 1);
        assert_eq!((b[0].start, b[0].end), (1, 15));
        assert_eq!(
            b[0].render(&lines),
            vec![
                "Traceback (most recent call last):",
                "  File \"/app/a.py\", line 3, in f",
                "    g()",
                "  … 1 library frames",
                "ValueError: bad",
                "The above exception was the direct cause of the following exception:",
                "Traceback (most recent call last):",
                "  File \"/app/b.py\", line 7, in main",
                "    f()",
                "OrderError: row 3",
            ]
        );
    }

    #[test]
    fn java_keeps_user_frames_and_every_cause() {
        let text = "2026-01-01 12:00:00 ERROR request failed\njava.lang.IllegalStateException: bad\n\tat com.acme.Orders.place(Orders.java:42)\n\tat org.springframework.web.X.handle(X.java:1)\n\tat org.springframework.web.Y.handle(Y.java:2)\nCaused by: java.sql.SQLException: timeout\n\tat com.zaxxer.hikari.Pool.get(Pool.java:9)\n\tat com.acme.Repo.save(Repo.java:17)\n\t... 12 more\nCaused by: java.net.SocketTimeoutException: read timed out\n\tat java.base/java.net.Socket.read(Socket.java:1)\n\t... 20 more\n2026-01-01 12:00:01 INFO next\n";
        assert_eq!(
            shown(text),
            vec![
                "java.lang.IllegalStateException: bad",
                "\tat com.acme.Orders.place(Orders.java:42)",
                "  … 2 library frames",
                "Caused by: java.sql.SQLException: timeout",
                "\tat com.zaxxer.hikari.Pool.get(Pool.java:9)",
                "\tat com.acme.Repo.save(Repo.java:17)",
                "\t... 12 more",
                "Caused by: java.net.SocketTimeoutException: read timed out",
                "  … 1 library frames",
                "\t... 20 more",
            ]
        );
    }

    #[test]
    fn node_stack() {
        let text = "TypeError: Cannot read properties of undefined (reading 'id')\n    at handler (/srv/app/routes/orders.js:41:22)\n    at Layer.handle (/srv/app/node_modules/express/lib/router/layer.js:95:5)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\nnext\n";
        assert_eq!(
            shown(text),
            vec![
                "TypeError: Cannot read properties of undefined (reading 'id')",
                "    at handler (/srv/app/routes/orders.js:41:22)",
                "  … 2 library frames",
            ]
        );
    }

    #[test]
    fn go_panic_keeps_user_frames() {
        let text = "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.pick(...)\n\t/home/dev/app/main.go:12\nruntime.main()\n\t/usr/local/go/src/runtime/proc.go:250 +0x207\nexit status 2\n";
        assert_eq!(
            shown(text),
            vec![
                "panic: runtime error: index out of range [5] with length 3",
                "goroutine 1 [running]:",
                "main.pick(...)",
                "\t/home/dev/app/main.go:12",
                "  … 1 library frames",
                "exit status 2",
            ]
        );
    }

    #[test]
    fn rust_panic_with_backtrace() {
        let text = "thread 'main' panicked at src/main.rs:4:5:\nindex out of bounds\nstack backtrace:\n   0: rust_begin_unwind\n             at /rustc/abc/library/std/src/panicking.rs:652:5\n   1: app::pick\n             at ./src/main.rs:4:5\nnote: Some details are omitted\n\nafter\n";
        assert_eq!(
            shown(text),
            vec![
                "thread 'main' panicked at src/main.rs:4:5:",
                "index out of bounds",
                "stack backtrace:",
                "  … 1 library frames",
                "   1: app::pick",
                "             at ./src/main.rs:4:5",
                "note: Some details are omitted",
            ]
        );
    }

    #[test]
    fn no_trace_no_block() {
        assert!(find(&["a", "b", "    at the end of the day", "TypeError in prose"]).is_empty());
    }
}
