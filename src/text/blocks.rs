//! Blocks are atomic: a stack trace is one unit, from its header to its last
//! exception line. Inside it, each run of framework frames becomes one count
//! line of ours (`lines::frames`, the fold every filter shares); the header,
//! user frames (with their source line), every `Caused by:` and chaining
//! line and the exception lines always stay. A trace that repeats one shown
//! before it, values aside (`Shown`), is one line of ours naming the first
//! and the lines where it differs, as printed.
//!
//! Kinds: Python tracebacks (chained ones as one block), `at` stacks (Java
//! with `Caused by:`/`Suppressed:` and `... N more`, JUnit's console
//! launcher with its bare frames and `[...]`, Node, .NET), Go panics
//! (`panic:` then goroutine frames), Rust panics (`panicked at`, message,
//! `stack backtrace:` frames).

use std::collections::HashMap;

use once_cell::sync::Lazy;
use regex::Regex;

use crate::lines::frames::{self, Frame, Piece, Step};
use crate::text::guard::Source;
use crate::text::ledger;
use crate::values::{Values, mask};

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
        frames::render(&self.pieces, lines)
    }
}

/// Traces a rendering has shown, so that a later trace of the same shape
/// (the same bug hit by every request) is said in one line of ours and the
/// lines where it differs (its message's values), not quoted again.
#[derive(Default)]
pub struct Shown {
    /// Each trace's lines with their values masked → where it started and
    /// its lines as shown.
    seen: HashMap<Vec<String>, (usize, Vec<String>)>,
}

/// A trace as a rendering shows it.
pub enum Trace {
    /// The first of its shape: its lines.
    New(Vec<String>),
    /// A repeat of the trace that started at line `first` (0-based): the
    /// lines that differ from it, as printed (none when identical).
    Again { first: usize, differ: Vec<String> },
}

/// A trace of fewer lines than this is shown whole even when it repeats.
const MIN_REPEAT: usize = 3;

impl Shown {
    /// `b` as shown after the traces seen so far.
    pub fn see(&mut self, b: &Block, lines: &[&str]) -> Trace {
        let body = b.render(lines);
        if body.len() < MIN_REPEAT {
            return Trace::New(body);
        }
        let key: Vec<String> = body.iter().map(|l| mask(l, Values::Quoted)).collect();
        match self.seen.get(&key) {
            Some((first, earlier)) => Trace::Again {
                first: *first,
                differ: body.iter().zip(earlier).filter(|(a, b)| a != b).map(|(a, _)| a.clone()).collect(),
            },
            None => {
                self.seen.insert(key, (b.start, body.clone()));
                Trace::New(body)
            }
        }
    }

    /// `b` as a rendering of `src` shows it: whole, or a repeat as
    /// `(same trace as L12[, except:])` and its lines that differ.
    pub fn show(&mut self, b: &Block, src: &Source) -> Vec<String> {
        self.see(b, &src.cleaned).lines(|i| src.line_no(i), "(", ")")
    }
}

impl Trace {
    /// The trace's lines: a repeat's first one is ours, `opening` followed by
    /// `same trace as L12` (`…, except:` above the lines that differ) and
    /// `closing`; `line_no` numbers lines as the agent's `show --lines` does.
    pub fn lines(self, line_no: impl Fn(usize) -> usize, opening: &str, closing: &str) -> Vec<String> {
        match self {
            Trace::New(body) => body,
            Trace::Again { first, differ } => {
                let except = if differ.is_empty() { "" } else { ", except:" };
                let mut out = vec![format!("{opening}same trace as L{}{except}{closing}", line_no(first))];
                out.extend(differ);
                out
            }
        }
    }
}

static GOROUTINE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^goroutine \d+ \[[^\]]*\]:$").expect("valid regex"));
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
    let (frames, end) = frames::fold_frames(lines, start + 1, |i| {
        let line = lines[i];
        if let Some(f) = frames::python_frame(lines, i) {
            Step::Frame(f)
        } else if line.starts_with([' ', '\t']) || line.is_empty() {
            // carets, source of a folded frame; `[Previous line repeated N more times]` stays
            if line.trim_start().starts_with('[') { Step::Keep } else { Step::Skip }
        } else {
            Step::Stop
        }
    });
    // the exception line ends it
    lines.get(end)?;
    let mut pieces = vec![Piece::Line(start)];
    pieces.extend(frames);
    pieces.push(Piece::Line(end));
    Some((pieces, end + 1))
}

/// Java, Node, .NET: an error line, then `at` frames, causes, `... N more`.
fn at_stack(lines: &[&str], start: usize) -> Option<Block> {
    let first = lines.get(start + 1)?;
    if frames::frame_of(lines[start]).is_some() || frames::frame_of(first).is_none() {
        return None;
    }
    if !ledger::is_error_line(lines[start]) {
        return None;
    }
    let (more, end) = frames::fold_frames(lines, start + 1, |i| {
        let line = lines[i];
        match frames::frame_of(line) {
            Some(user) => Step::Frame(Frame { span: 1, user }),
            None if frames::is_stack_note(line) => Step::Keep,
            None => Step::Stop,
        }
    });
    let mut pieces = vec![Piece::Line(start)];
    pieces.extend(more);
    Some(Block { start, end, pieces })
}

/// `panic:`/`fatal error:`, then goroutine stacks (function line, then a
/// tab-indented `path:line +0x..` line) up to the first line of neither kind.
fn go(lines: &[&str], start: usize) -> Option<Block> {
    let head = lines[start];
    if !(head.starts_with("panic: ") || head.starts_with("fatal error: ")) {
        return None;
    }
    let mut seen_goroutine = false;
    let (more, end) = frames::fold_frames(lines, start + 1, |i| {
        let line = lines[i];
        if line.trim().is_empty() {
            // blank lines separate the message from the goroutines
            let next = lines.get(i + 1).is_some_and(|n| GOROUTINE.is_match(n));
            return if next { Step::Skip } else { Step::Stop };
        }
        if GOROUTINE.is_match(line) || line.starts_with("panic: ") || line.starts_with("[signal ") {
            seen_goroutine |= GOROUTINE.is_match(line);
            return Step::Keep;
        }
        if !seen_goroutine {
            // more of the panic message (`[recovered]`, a wrapped value)
            return Step::Keep;
        }
        match frames::go_frame(lines, i) {
            Some(f) => Step::Frame(f),
            None if line.starts_with("exit status ") || line.starts_with("created by ") => Step::Keep,
            None => Step::Stop,
        }
    });
    let mut pieces = vec![Piece::Line(start)];
    pieces.extend(more);
    seen_goroutine.then_some(Block { start, end, pieces })
}

/// `thread 'x' panicked at path:l:c:`, its message, notes and backtrace.
fn rust(lines: &[&str], start: usize) -> Option<Block> {
    if !(lines[start].starts_with("thread '") && lines[start].contains("panicked at")) {
        return None;
    }
    let mut in_backtrace = false;
    let (more, end) = frames::fold_frames(lines, start + 1, |i| {
        let line = lines[i];
        if line.trim() == "stack backtrace:" {
            in_backtrace = true;
            return Step::Keep;
        }
        if !in_backtrace {
            let end = line.trim().is_empty() || line.starts_with("thread '") || line.starts_with("test ");
            return if end { Step::Stop } else { Step::Keep };
        }
        match frames::rust_frame(lines, i) {
            Some(f) => Step::Frame(f),
            None if line.trim_start().starts_with("note: ") => Step::Keep,
            None => Step::Stop,
        }
    });
    let mut pieces = vec![Piece::Line(start)];
    pieces.extend(more);
    Some(Block { start, end, pieces })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> Vec<String> {
        let lines: Vec<&str> = text.lines().collect();
        find(&lines).iter().flat_map(|b| b.render(&lines)).collect()
    }

    #[test]
    fn a_trace_that_repeats_is_said_once_with_the_lines_that_differ() {
        let one = |key: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"/srv/app.py\", line 14, in app\n    body = lookup(sku)\n  File \"/srv/app.py\", line 22, in lookup\n    return PRICES[sku]\nKeyError: '{key}'\n"
            )
        };
        let text = one("SKU-060")
            + "GET /price 500\n"
            + &one("SKU-063")
            + &one("SKU-060")
            + "Traceback (most recent call last):\n  File \"/srv/app.py\", line 9, in app\n    run()\nValueError: bad\n";
        let lines: Vec<&str> = text.lines().collect();
        let mut shown = Shown::default();
        let out: Vec<Vec<String>> =
            find(&lines).iter().map(|b| shown.see(b, &lines).lines(|i| i + 1, "(", ")")).collect();
        assert_eq!(out.len(), 4);
        assert_eq!(out[0].len(), 6, "{out:?}");
        assert_eq!(out[1], ["(same trace as L1, except:)", "KeyError: 'SKU-063'"]);
        assert_eq!(out[2], ["(same trace as L1)"]);
        // another exception through other frames is its own trace
        assert_eq!(out[3][3], "ValueError: bad");
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
                "  (1 framework frame)",
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
                "\t(2 framework frames)",
                "Caused by: java.sql.SQLException: timeout",
                "\tat com.zaxxer.hikari.Pool.get(Pool.java:9)",
                "\tat com.acme.Repo.save(Repo.java:17)",
                "\t... 12 more",
                "Caused by: java.net.SocketTimeoutException: read timed out",
                "\t(1 framework frame)",
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
                "    (2 framework frames)",
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
                "(1 framework frame)",
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
                "   (1 framework frame)",
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
