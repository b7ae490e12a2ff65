//! The signal ledger: which lines of an output an agent must never lose,
//! marked by detectors that know nothing of the tool filters.
//!
//! A pure function over lines ([`scan`]), also usable line by line
//! ([`Scanner`]) by a capture that never holds the whole output. Line numbers
//! are 0-based indices into the cleaned text's `\n`-separated lines, which are
//! the raw output's lines one for one (`tokensieve show ID --lines` numbers
//! them from 1).
//!
//! The detectors (each documented in `crate::text`, "Design: Text"):
//! - `diagnostic`: compiler and checker findings — `path:line[:col]: error|
//!   warning|fatal|style|portability|performance …`, `path:l:c - error`,
//!   lint codes after a location (`E302`, `C0103:`), notes that carry a
//!   check code (`[SC2086]`), rustc `error[E…]:`/`error:`/`warning:` headers,
//!   `--> path:line:col` outside the toolchain, `error TS…`.
//! - `trace`: stack traces — Python (`Traceback …`, user frames, the final
//!   exception line, the chaining lines), Java (the exception line before its
//!   frames, user frames, `Caused by:`), Node and .NET (`at …` frames of user
//!   code and the error line above them), Go (`panic:`, `fatal error:`,
//!   `goroutine N [...]:`), Rust (`panicked at`).
//! - `test-failure`: `FAILED`, `FAIL`, `--- FAIL`, `not ok N`, `✗ ✕ × ✖`
//!   marks, ExUnit's `N) test …`, rspec's `rspec path:line`; and Go's
//!   testing log lines (`    name_test.go:12: got 3, want 4`, indented,
//!   a bare file name) of a test that failed: those after its `--- FAIL:`
//!   line, and with `-v` those streamed before it (held since the last
//!   `--- PASS`/`--- SKIP`, marked at a `--- FAIL:`, a `panic:` or the
//!   package's `FAIL` line).
//! - `level`: ERROR, FATAL, CRITICAL, SEVERE, EMERG, ALERT, PANIC as words in
//!   capitals, `level=error`, `"level":"error"`, `[error]`/`[crit]`, glog's
//!   `E0123`/`F0123` line starts; and the lines that tell of a crash (the
//!   kernel's `segfault at`, a sanitizer's report, a process that died of a
//!   signal as systemd or a shell reports it).
//! - `http-5xx`: a 5xx status in an access log or a `status=5xx` field.
//! - `oom`: kernel and container out-of-memory kills.
//! - `summary`: the tool's own summary or footer lines (test, lint, build and
//!   install totals) wherever they are, and count lines among the last three.

use std::collections::VecDeque;

use aho_corasick::AhoCorasick;
use once_cell::sync::Lazy;
use regex::Regex;
use regex::bytes::{RegexSet, RegexSetBuilder};

use crate::lines::ascii_regex;

use crate::lines::clean::is_library_path;
use crate::lines::frames::{frame_of, python_frame_line};

/// What a detector found on a line. One kind per line: the first of this
/// order that matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Trace,
    Diagnostic,
    TestFailure,
    Oom,
    Http5xx,
    Level,
    Summary,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Trace => "trace",
            Kind::Diagnostic => "diagnostic",
            Kind::TestFailure => "test-failure",
            Kind::Oom => "oom",
            Kind::Http5xx => "http-5xx",
            Kind::Level => "level",
            Kind::Summary => "summary",
        }
    }
}

/// One signal line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 0-based line index.
    pub line: usize,
    pub kind: Kind,
}

/// Every signal line of one output, in line order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    pub entries: Vec<Entry>,
    /// How many lines were scanned.
    pub lines: usize,
}

impl Ledger {
    /// The kind of line `i`, if it is a signal line.
    pub fn kind(&self, i: usize) -> Option<Kind> {
        self.entries.binary_search_by_key(&i, |e| e.line).ok().map(|k| self.entries[k].kind)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

/// The ledger of `lines` (cleaned: ANSI-free, `\r` redraws resolved).
pub fn scan<'a>(lines: impl IntoIterator<Item = &'a str>) -> Ledger {
    let mut s = Scanner::default();
    for line in lines {
        s.push(line);
    }
    s.finish()
}

/// The ledger built one line at a time.
#[derive(Debug, Default)]
pub struct Scanner {
    n: usize,
    entries: Vec<Entry>,
    /// Inside a Python traceback: frames seen, waiting for the exception line.
    python: bool,
    /// The last non-blank line, and whether it was an `at …` frame.
    prev: Option<(usize, bool)>,
    /// Whether the last non-blank line reads like an error (`TypeError: x`).
    prev_error: bool,
    /// Non-blank lines at the end so far that read like counts (`12 passed`).
    tail: VecDeque<(usize, bool)>,
    /// Go testing log lines whose test's result is not known yet (`-v`
    /// streams them before it), the last `GO_PENDING` of them.
    go_pending: VecDeque<usize>,
    /// After a `--- FAIL:` line: its test's log lines follow.
    go_failed: bool,
}

/// Go testing log lines held for a result at most (a passing test's log is
/// dropped at its `--- PASS`; a failing one's last lines are its message).
const GO_PENDING: usize = 4096;

/// Count lines among this many last non-blank lines are the tool's footer.
const FOOTER: usize = 3;

impl Scanner {
    pub fn new() -> Scanner {
        Scanner::default()
    }

    /// Lines scanned so far.
    pub fn lines(&self) -> usize {
        self.n
    }

    /// Scans the next line; returns its kind when it is a signal line (a line
    /// can also become one later: the header above a stack's first frame, a
    /// count line that turns out to be the footer).
    pub fn push(&mut self, line: &str) -> Option<Kind> {
        let i = self.n;
        self.n += 1;
        if line.trim().is_empty() {
            return None;
        }
        let kind = self.detect(i, line);
        if let Some(k) = kind {
            self.mark(i, k);
        }
        let counted = kind.is_none() && COUNT_LINE.is_match(line.as_bytes());
        self.tail.push_back((i, counted));
        if self.tail.len() > FOOTER {
            self.tail.pop_front();
        }
        kind
    }

    pub fn finish(mut self) -> Ledger {
        for (i, counted) in std::mem::take(&mut self.tail) {
            if counted {
                self.mark(i, Kind::Summary);
            }
        }
        self.entries.sort_by_key(|e| e.line);
        self.entries.dedup_by_key(|e| e.line);
        Ledger { entries: self.entries, lines: self.n }
    }

    fn mark(&mut self, line: usize, kind: Kind) {
        match self.entries.iter().rev().take(4).position(|e| e.line == line) {
            Some(_) => {}
            None => self.entries.push(Entry { line, kind }),
        }
    }

    fn detect(&mut self, i: usize, line: &str) -> Option<Kind> {
        let frame = frame_of(line);
        let prev = self.prev.replace((i, frame.is_some()));
        let prev_error = std::mem::replace(&mut self.prev_error, ERROR_LINE.is_match(line.as_bytes()));
        if let Some(user) = frame {
            // the first frame of a stack: the error line above is what it unwinds
            if let Some((p, false)) = prev
                && prev_error
            {
                self.mark(p, Kind::Trace);
            }
            return user.then_some(Kind::Trace);
        }
        if self.python {
            if let Some(user) = python_frame_line(line) {
                return user.then_some(Kind::Trace);
            }
            if !line.starts_with([' ', '\t']) {
                // the exception line ends the traceback
                self.python = false;
                return Some(Kind::Trace);
            }
            return None;
        }
        if line.starts_with("Traceback (most recent call last)") {
            self.python = true;
            return Some(Kind::Trace);
        }
        if let Some(k) = self.go_test(i, line) {
            return Some(k);
        }
        detect_line(line)
    }

    /// Go's test output: a testing log line (`    a_test.go:12: msg`) is the
    /// failure's message when its test fails. Returns its kind when that is
    /// known now; otherwise keeps it (or updates the state) and lets the
    /// other detectors look at the line.
    fn go_test(&mut self, i: usize, line: &str) -> Option<Kind> {
        if is_go_log(line) {
            if self.go_failed {
                return Some(Kind::TestFailure);
            }
            if self.go_pending.len() == GO_PENDING {
                self.go_pending.pop_front();
            }
            self.go_pending.push_back(i);
            return None;
        }
        let t = line.trim_start();
        if t.starts_with("--- FAIL: ")
            || line.starts_with("panic: ")
            || line == "FAIL"
            || line.starts_with("FAIL\t")
        {
            for p in std::mem::take(&mut self.go_pending) {
                self.mark(p, Kind::TestFailure);
            }
            self.go_failed = t.starts_with("--- FAIL: ");
        } else if t.starts_with("--- PASS: ") || t.starts_with("--- SKIP: ") {
            self.go_pending.clear();
            self.go_failed = false;
        } else if t.starts_with("=== ") || !line.starts_with([' ', '\t']) {
            self.go_failed = false;
        }
        None
    }
}

/// Go's testing log line: indented (4 spaces a level), a bare `.go` file
/// name, its line, `: ` and the message (`    ledger_test.go:36: got 3`,
/// `    testing.go:1319: race detected during execution of test`).
pub fn is_go_log(line: &str) -> bool {
    line.starts_with([' ', '\t']) && line.contains(".go:") && GO_LOG.is_match(line)
}

static GO_LOG: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\s+[\w.+-]+\.go:\d+: \S").expect("valid go log regex"));

/// The kind the context-free detectors give one line (no stack frames, no
/// Python exception lines, no footer counts: those need the lines around).
pub fn detect_line(line: &str) -> Option<Kind> {
    if line.starts_with("Traceback (most recent call last)") {
        return Some(Kind::Trace);
    }
    if !(STEMS.is_match(line) || has_location(line) || starts_with_code(line)) {
        return None;
    }
    detector(line)
}

/// The kind the detectors give `line` (the stems prefilter aside).
fn detector(line: &str) -> Option<Kind> {
    let hits = DETECTORS.matches(line.as_bytes());
    let kind = hits.iter().next().map(|k| DETECTOR_KINDS[k])?;
    // a location inside the toolchain or a dependency is not the user's
    if kind == Kind::Diagnostic
        && let Some(c) = ARROW.captures(line)
        && is_library_path(&c[1])
    {
        return None;
    }
    Some(kind)
}

/// A checker's code opening the line (`E3012 ...`, cfn-lint's findings).
fn starts_with_code(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() > 5
        && matches!(b[0], b'E' | b'W' | b'I')
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5] == b' '
}

/// A `:` followed by a digit: a `path:line` location may be in the line
/// (the finding detectors that have no stem word need one).
fn has_location(line: &str) -> bool {
    line.as_bytes().windows(2).any(|w| w[0] == b':' && w[1].is_ascii_digit())
}

/// Whether `line` reads like the error an `at` stack unwinds.
pub fn is_error_line(line: &str) -> bool {
    ERROR_LINE.is_match(line.as_bytes())
}

/// The line an `at` stack unwinds: `TypeError: x`, `java.io.IOException: y`,
/// `Exception in thread "main" …`, `Unhandled exception. …`.
static ERROR_LINE: Lazy<regex::bytes::Regex> = Lazy::new(|| {
    ascii_regex(r"^\s*(?:=> )?(?:Uncaught |Unhandled exception\. |Exception in thread |\[?[\w$.]*(?:Error|Exception|Throwable|Failure|Fault)\b)")
        .expect("valid error line regex")
});
static ARROW: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*--> (\S+?):\d+:\d+").expect("valid arrow regex"));

/// Lines with none of these (ASCII case aside) and no `:digit` match no
/// detector: one SIMD pass skips them before the detector set runs.
static STEMS: Lazy<AhoCorasick> = Lazy::new(|| {
    let stems = [
        "err",
        "warn",
        "fatal",
        "fail",
        "not ok",
        "✗",
        "✕",
        "×",
        "✖",
        "-->",
        "ts",
        "caused by",
        "panic",
        "goroutine",
        "exception",
        "crit",
        "severe",
        "emerg",
        "alert",
        "http/",
        "status",
        "code ",
        "memory",
        "oom",
        "killed process",
        "pass",
        "test",
        "found",
        "success",
        "problem",
        "added",
        "removed",
        "changed",
        "audited",
        "install",
        "up to date",
        "vulnerab",
        "finished",
        "build",
        "pending",
        "example",
        "ran ",
        "ok",
        "generated",
        "***",
        "plan:",
        "complete",
        "valid",
        "rspec ",
        ") ",
        "undefined reference",
        "cmake",
        "line ",
        "sanitizer",
        "assertion",
        "segfault",
        "dumped",
        "code=",
        "protection fault",
        "bug:",
        "oops:",
        "call trace",
        "blocked for",
        "** (",
        "result:",
        "files=",
        "unable to",
        "could not",
        ":  ",
    ];
    AhoCorasick::builder().ascii_case_insensitive(true).build(stems).expect("valid stems")
});

/// The detectors, in `Kind` order (the first match names the line).
// The set is compiled without Unicode classes (see DETECTORS): a non-ASCII
// character may be a literal, never inside `[...]` (write `(?:a|│)`).
static DETECTOR_SPECS: &[(Kind, &str)] = &[
    // stack traces that have no frame lines of the `at` kind
    (Kind::Trace, r"^Caused by: |^\s*Caused by: \S"),
    (Kind::Trace, r"^(?:During handling of the above exception|The above exception was the direct cause)"),
    (Kind::Trace, r"^Exception in thread "),
    (Kind::Trace, r"^panic: |^fatal error: |^goroutine \d+ \[[^\]]*\]:$"),
    (Kind::Trace, r"^thread '[^']*' (?:\(\d+\) )?panicked at|\bpanicked at \S+:\d+:\d+"),
    // an exception or error line on its own (`TypeError: ...`, `│ Error: ...`,
    // `java.lang.IllegalStateException: ...`, Elixir's `** (RuntimeError) ...`)
    (
        Kind::Trace,
        r"^(?:\s|│|\|){0,4}(?:[\w$]+\.)*(?:[A-Z][\w$]*)?(?:Error|Exception)(?: \[\w+\])?: \S|^\s*\*\* \([\w.]+\) \S",
    ),
    // compiler and checker diagnostics
    (
        Kind::Diagnostic,
        r"^\S.*?(?::\d+(?::\d+)?|\(\d+,\d+\)): (?:fatal error|error|warning|fatal|Error|Warning|style|portability|performance)(?:\[[^\]]*\]| [A-Z]+\d+)?:? ",
    ),
    (Kind::Diagnostic, r"^\s*\S+:\d+:\d+ - (?:error|warning)(?-u:\b)"),
    (Kind::Diagnostic, r"^\S+?:\d+(?::\d+)?: [A-Z]{1,3}\d{3,5}[: ]"),
    // hadolint (`Dockerfile:2 DL4000 ...`), cfn-lint (`E3012 ...` over `template.yaml:12:7`)
    (Kind::Diagnostic, r"^\S+?:\d+(?::\d+)? [A-Z]{1,3}\d{3,5} |^[EWI]\d{4} \S|^\S+\.\w{1,8}:\d+:\d+$"),
    (Kind::Diagnostic, r"^\S+?:\d+(?::\d+)?: (?:note|info|information|hint): .*\[[A-Z]+\d+\]$"),
    (Kind::Diagnostic, r"^(?:error|warning)(?:\[[A-Za-z]+\d+\])?: \S"),
    (Kind::Diagnostic, r"^\s*--> \S+:\d+:\d+"),
    (Kind::Diagnostic, r"(?-u:\b)error TS\d+(?-u:\b)"),
    // GHC and others end the header line at `error:`
    (Kind::Diagnostic, r"^\S+:\d+:\d+: (?:error|warning):$"),
    // UBSan, Python warnings (`app.py:27: DeprecationWarning: ...`)
    (Kind::Diagnostic, r"^\S+:\d+:\d+: runtime error: |^\S+:\d+: [A-Z]\w*Warning: \S"),
    // linkers, CMake, shells, PHP, Ruby, Perl
    (
        Kind::Diagnostic,
        r": undefined reference to |^collect2: error: |^\S*ld: cannot find |^ld(?:\.\w+)?: error: ",
    ),
    (Kind::Diagnostic, r"^CMake (?:Error|Warning)(?: \(dev\))? at \S+:\d+"),
    (
        Kind::Diagnostic,
        r"^\S+: line \d+: .*(?:command not found|syntax error|unbound variable|No such file or directory|Permission denied|bad substitution)",
    ),
    (Kind::Diagnostic, r"^(?:PHP )?(?:Fatal error|Parse error|Warning): .* on line \d+"),
    (Kind::Diagnostic, r"^\S+:\d+:in [`'].*\([A-Z]\w*(?:Error|Exception)\)$"),
    (Kind::Diagnostic, r" at \S+ line \d+\.$"),
    // test failures
    (Kind::TestFailure, r"(?-u:\b)FAIL(?:ED|URE)?(?-u:\b)"),
    (Kind::TestFailure, r"^\s*not ok \d+"),
    (Kind::TestFailure, r"^\s*(?:✗|✕|×|✖) \S"),
    (Kind::TestFailure, r"^\s+\d+\) test "),
    (Kind::TestFailure, r"^rspec \S+:\d+"),
    // kernel and container out-of-memory kills
    (Kind::Oom, r"(?i)out of memory: kill|oom-kill|oom_reaper|OOMKilled|memory cgroup out of memory"),
    (Kind::Oom, r"Killed process \d+"),
    // 5xx in access logs and structured fields
    (Kind::Http5xx, r#"HTTP/\d(?:\.\d)?"?\s+5\d\d(?-u:\b)"#),
    (
        Kind::Http5xx,
        r#"(?i)(?-u:\b)(?:status|status_code|code)["']?\s*[=:]\s*"?5\d\d(?-u:\b)|^code 5\d\d, message"#,
    ),
    // log levels
    (Kind::Level, r"(?-u:\b)(?:ERROR|FATAL|CRITICAL|SEVERE|EMERG|ALERT|PANIC)(?-u:\b)"),
    (
        Kind::Level,
        r#"(?i)(?-u:\b)level["']?\s*[=:]\s*["']?(?:error|fatal|critical|crit|emerg|alert|panic)(?-u:\b)|\[(?:error|crit|alert|emerg)\]"#,
    ),
    (Kind::Level, r"^[EF]\d{4} \d\d:\d\d:\d\d"),
    // the lines a database server logs with an error (PostgreSQL's
    // `DETAIL:  `, `STATEMENT:  `...: two spaces after the tag)
    (Kind::Level, r"(?:^|\] |\s)(?:DETAIL|HINT|STATEMENT|CONTEXT|QUERY|LOCATION):  \S"),
    // sanitizers, failed assertions, the kernel's crash reports, apt errors
    (
        Kind::Level,
        r"==\d+==\s*ERROR: \w+Sanitizer|^SUMMARY: \w+Sanitizer: |: Assertion [`'].*' failed\.$|^E: \S",
    ),
    (
        Kind::Level,
        r"segfault at [0-9a-f]+ ip |general protection fault|Kernel panic|(?:^|\] )(?:BUG|Oops): |Call Trace:|blocked for more than \d+ seconds",
    ),
    // a process that died of a signal or failed, as its supervisor or shell
    // reports it (systemd's `code=dumped, status=11/SEGV`, `Failed with
    // result 'core-dump'`, a shell's `Segmentation fault (core dumped)`)
    (
        Kind::Level,
        r"code=(?:dumped|killed), status=\d+/[A-Z]+|code=exited, status=[1-9]\d*/[A-Z]+|: Failed with result '[\w-]+'|\(core dumped\)",
    ),
    // the tool's own summary and footer lines
    (
        Kind::Summary,
        r"^\s*(?:test result: |(?:Tests?:?|Test Suites:|Test Files)\s+\d+ \w|Ran \d+ tests? in |Summary \[)",
    ),
    (
        Kind::Summary,
        r"^=+ .*\d+ (?:passed|failed|errors?|skipped|warnings?|deselected|x?failed|xpassed|no tests ran).* =+$",
    ),
    (Kind::Summary, r"^\d+ (?:passed|failed|errors?|skipped|deselected)(?:, \d+ \w+)* in [\d.]+s"),
    (
        Kind::Summary,
        r"^(?:Found \d+ errors?|Success: no issues found|All checks passed|✖ \d+ problems?|\d+ problems? \(|\[\*\] \d+ fixable)",
    ),
    (
        Kind::Summary,
        r"^(?:added \d+ packages?|removed \d+ packages?|changed \d+ packages?|audited \d+ packages?|up to date,|Successfully installed |found \d+ vulnerabilit|\d+ (?:\w+ )?(?:severity )?vulnerabilit)",
    ),
    (Kind::Summary, r"^\s*Finished `?\w+`? (?:profile )?\[|^\s*Finished (?:dev|release|test) "),
    (Kind::Summary, r"^(?:\[INFO\] )?BUILD (?:SUCCESS|FAILURE|SUCCESSFUL|FAILED)"),
    (
        Kind::Summary,
        r"^\d+ (?:passing|failing|pending)(?-u:\b)|^# (?:tests|pass|fail) \d+$|^ℹ (?:tests|pass|fail) \d+$",
    ),
    (
        Kind::Summary,
        r"^\d+ examples?, \d+ failures?|^\d+ (?:tests?|doctests?|properties), \d+ failures?|^Finished in [\d.]+ seconds?",
    ),
    (
        Kind::Summary,
        r"^OK(?: \(.*\))?$|^\d+ (?:errors?|warnings?)(?: and \d+ (?:errors?|warnings?))? generated\.$",
    ),
    (Kind::Summary, r"^g?make(?:\[\d+\])?: \*\*\* "),
    // TAP harnesses, doctest, googletest, ctest, PHPUnit
    (
        Kind::Summary,
        r"^Result: (?:PASS|FAIL)|^Files=\d+, Tests=\d+|^\*\*\*Test Failed\*\*\*|^\d+ passed and \d+ failed\.|^\[  (?:FAILED|PASSED)  \] |^\[==========\] \d+ tests?",
    ),
    (
        Kind::Summary,
        r"tests? passed, \d+ tests? failed out of \d+|^The following tests FAILED:|^FAILURES!$|^Tests: \d+, Assertions: \d+",
    ),
    (
        Kind::Summary,
        r"^Plan: \d+ to add|^Success! The configuration is valid|^Apply complete!|^No changes\. ",
    ),
];

/// ASCII classes (`\w`, `\d`, `\s`, `\b`, case folding) over the line's
/// bytes: the same answers on what tools print, and the Unicode classes'
/// automata (most of a text command's CPU when compiled) are never built.
static DETECTORS: Lazy<RegexSet> = Lazy::new(|| {
    RegexSetBuilder::new(DETECTOR_SPECS.iter().map(|(_, re)| *re))
        .unicode(false)
        .build()
        .expect("valid detectors")
});
static DETECTOR_KINDS: Lazy<Vec<Kind>> = Lazy::new(|| DETECTOR_SPECS.iter().map(|(k, _)| *k).collect());

/// A line that reads like a count of results (`3 passed, 1 failed`,
/// `12 errors`, `Done: 40 files checked`): the tool's footer when it ends
/// the output.
static COUNT_LINE: Lazy<regex::bytes::Regex> = Lazy::new(|| {
    ascii_regex(
        r"(?i)(?:^|[\s,(])\d+ (?:passed|failed|failures?|errors?|warnings?|problems?|skipped|files?|packages?|issues?|checks?|suites?|examples?|assertions?|findings?|vulnerabilit\w*)(?:$|[\s,.;:)])",
    )
    .expect("valid count regex")
});

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines made of what the detectors look for, and of what fools them.
    fn line() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "a.c",
            ":",
            "12",
            "3",
            " ",
            "  ",
            "\t",
            "error",
            "Error",
            "warning",
            "fatal",
            "style",
            "note",
            "E1101",
            "C0103",
            "[SC2086]",
            "-->",
            "src/x.rs",
            " - ",
            "error TS2322",
            "FAILED",
            "FAIL",
            "--- FAIL",
            "not ok",
            "✕",
            "×",
            "1) test ",
            "rspec ",
            "Killed process 7",
            "Out of memory: Kill",
            "oom-killer",
            "HTTP/1.1\" ",
            "503",
            "status=",
            "ERROR",
            "CRITICAL",
            "level=error",
            "[error]",
            "E0123 ",
            "test result: ",
            "Tests: ",
            "passed",
            "failed",
            "=====",
            " in 0.1s",
            "Found 3 errors",
            "added 4 packages",
            "Finished `dev` [",
            "BUILD SUCCESS",
            "make: *** ",
            "Plan: 2 to add",
            "Caused by: ",
            "panic: ",
            "goroutine 1 [running]:",
            "thread 'x' panicked at a.rs:1:2",
            "Exception in thread ",
            "OK",
            "é",
            "٣",
            "\u{212a}",
            "x",
            "(",
            ")",
        ]);
        prop::collection::vec(atoms, 0..12).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn the_prefilter_never_hides_a_detector(l in line()) {
            let mut s = Scanner::new();
            let filtered = s.push(&l);
            let direct = if l.trim().is_empty() || l.starts_with("Traceback (most recent call last)") || frame_of(&l).is_some() {
                filtered
            } else {
                detector(&l)
            };
            prop_assert_eq!(filtered, direct);
        }
    }

    fn kinds(text: &str) -> Vec<(usize, &'static str)> {
        scan(text.lines()).entries.iter().map(|e| (e.line, e.kind.name())).collect()
    }

    #[test]
    fn compiler_diagnostics() {
        let text = "gcc -c a.c\na.c:3:5: error: expected ';'\nsrc/x.ts(4,12): error TS2322: bad\n\
                    error[E0308]: mismatched types\n --> src/lib.rs:4:27\napp.py:3: error: Incompatible return\n\
                    a.c:9: note: candidate\nsrc/a.ts:4:12 - error TS2322: Type 'number'\n";
        assert_eq!(
            kinds(text),
            vec![
                (1, "diagnostic"),
                (2, "diagnostic"),
                (3, "diagnostic"),
                (4, "diagnostic"),
                (5, "diagnostic"),
                (7, "diagnostic")
            ]
        );
    }

    #[test]
    fn python_traceback_keeps_header_user_frames_and_exception() {
        let text = "starting\nTraceback (most recent call last):\n  File \"/app/main.py\", line 3, in <module>\n    run()\n  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n    return x\nValueError: bad\nafter\n";
        assert_eq!(kinds(text), vec![(1, "trace"), (2, "trace"), (6, "trace")]);
    }

    #[test]
    fn java_trace_marks_the_exception_user_frames_and_every_cause() {
        let text = "2026-01-01 ERROR boom\njava.lang.IllegalStateException: bad\n\tat com.acme.Orders.place(Orders.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)\nCaused by: java.io.IOException: disk\n\tat org.apache.x.Y.z(Y.java:1)\n\t... 3 more\n";
        assert_eq!(kinds(text), vec![(0, "level"), (1, "trace"), (2, "trace"), (4, "trace")]);
    }

    #[test]
    fn node_and_go_traces() {
        let text = "TypeError: x is not a function\n    at run (/app/src/job.js:9:5)\n    at Module._compile (node:internal/modules/cjs/loader:1105:14)\npanic: runtime error: index out of range\ngoroutine 1 [running]:\nthread 'main' panicked at src/main.rs:4:5:\n";
        assert_eq!(kinds(text), vec![(0, "trace"), (1, "trace"), (3, "trace"), (4, "trace"), (5, "trace")]);
    }

    #[test]
    fn go_test_messages_of_failed_tests() {
        // without -v: the messages follow the failing test's result line
        let text = "--- FAIL: TestRefill (0.35s)\n    refill_test.go:15: after 350ms: tokens = 3, want 4\n    refill_test.go:22: Take(-1) should fail\n        continued detail\nFAIL\nFAIL\tgithub.com/a/b\t0.4s\n";
        assert_eq!(
            kinds(text),
            vec![
                (0, "test-failure"),
                (1, "test-failure"),
                (2, "test-failure"),
                (4, "test-failure"),
                (5, "test-failure")
            ]
        );
        // -v: streamed before it; a passing test's log is not signal
        let text = "=== RUN   TestA\n    a_test.go:5: opening the book\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n=== RUN   TestB/neg\n    b_test.go:36: Balance = -9, want 4\n    helpers.go:12: from a helper\n=== RUN   TestB/zero\n--- FAIL: TestB (0.00s)\n    --- FAIL: TestB/neg (0.00s)\n    --- PASS: TestB/zero (0.00s)\n";
        assert_eq!(
            kinds(text),
            vec![(5, "test-failure"), (6, "test-failure"), (8, "test-failure"), (9, "test-failure")]
        );
        // a test that panicked: its log so far, with the panic
        let text = "=== RUN   TestC\n    c_test.go:9: loading fixtures\npanic: runtime error: index out of range [3] with length 3\n";
        assert_eq!(kinds(text), vec![(1, "test-failure"), (2, "trace")]);
        // not go's testing log: a path, no indentation, no message
        assert!(
            !is_go_log("./a_test.go:5: x")
                && !is_go_log("    pkg/a_test.go:5: x")
                && !is_go_log("    a.go:5:")
        );
        assert!(is_go_log("\t    testing.go:1319: race detected during execution of test"));
    }

    #[test]
    fn test_failures_levels_http_and_oom() {
        let text = "--- FAIL: TestX (0.00s)\nnot ok 3 - splits\n  ✕ adds (3 ms)\ntest a ... FAILED\n\
                    127.0.0.1 - - [x] \"GET / HTTP/1.1\" 503 12\n127.0.0.1 - - [x] \"GET / HTTP/1.1\" 404 12\n\
                    [12.3] Out of memory: Killed process 4242 (java)\n{\"level\":\"error\",\"msg\":\"x\"}\n\
                    12:00 INFO all good\n12:00 CRITICAL disk\n";
        assert_eq!(
            kinds(text),
            vec![
                (0, "test-failure"),
                (1, "test-failure"),
                (2, "test-failure"),
                (3, "test-failure"),
                (4, "http-5xx"),
                (6, "oom"),
                (7, "level"),
                (9, "level")
            ]
        );
    }

    #[test]
    fn processes_that_died_of_a_signal() {
        let text = "web01 systemd[1]: thumbd.service: Main process exited, code=dumped, status=11/SEGV\n\
                    web01 systemd[1]: thumbd.service: Failed with result 'core-dump'.\n\
                    web01 systemd[1]: api.service: Main process exited, code=exited, status=1/FAILURE\n\
                    web01 systemd[1]: cron.service: Main process exited, code=exited, status=0/SUCCESS\n\
                    ./run.sh: line 4:  812 Segmentation fault      (core dumped) ./worker\n";
        assert_eq!(kinds(text), vec![(0, "level"), (1, "level"), (2, "test-failure"), (4, "level")]);
    }

    #[test]
    fn summaries_anywhere_and_counts_at_the_end() {
        let text = "=========== 1 failed, 2 passed in 0.01s ===========\nadded 12 packages in 2s\nprocessed 12 files\nnothing\nmore\nDone: 3 files checked\n";
        assert_eq!(kinds(text), vec![(0, "summary"), (1, "summary"), (5, "summary")]);
    }

    #[test]
    fn a_listing_ending_in_a_package_file_has_no_footer() {
        let text = "total 8\n-rw-rw-r-- 1 dev dev 752 Feb 12 16:59 build.js\n-rw-rw-r-- 1 dev dev 51902 Feb 12 16:59 package-lock.json\ndrwxrwxr-x 3 dev dev 4096 Feb 12 16:59 test\n";
        assert!(kinds(text).is_empty(), "{:?}", kinds(text));
    }

    #[test]
    fn ordinary_words_are_not_signal() {
        let text = "install libgpg-error-dev:amd64\nerror_count=0\nthe build passed the test of time\nexpected an Error\nok\nstatus 200\n";
        assert!(kinds(text).is_empty(), "{:?}", kinds(text));
    }

    #[test]
    fn the_scanner_and_scan_agree() {
        let text = "a\nTypeError: x\n    at f (/app/a.js:1:2)\nb\n3 failed\n";
        let mut s = Scanner::new();
        for l in text.lines() {
            s.push(l);
        }
        assert_eq!(s.lines(), 5);
        assert_eq!(s.finish(), scan(text.lines()));
    }
}

#[cfg(test)]
mod survey {
    /// `cargo test --lib ledger::survey -- --ignored --nocapture`: what the
    /// ledger marks in every fixture, for reading.
    #[test]
    #[ignore]
    fn print_fixture_ledgers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text");
        let dir = std::env::var("SURVEY_DIR").map(std::path::PathBuf::from).unwrap_or(root);
        let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "txt")) {
            let text = crate::lines::clean::clean(&std::fs::read_to_string(p).unwrap());
            let lines: Vec<&str> = text.split('\n').collect();
            let ledger = super::scan(lines.iter().copied());
            println!("== {} ({} lines, {} signal)", p.display(), lines.len(), ledger.len());
            for e in ledger.entries.iter().take(40) {
                println!(
                    "  {:>5} {:<12} {}",
                    e.line + 1,
                    e.kind.name(),
                    &lines[e.line].chars().take(110).collect::<String>()
                );
            }
        }
    }
}
