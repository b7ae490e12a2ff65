//! pytest and unittest runs.
//!
//! unittest (`python -m unittest`): passing `name (id) ... ok` lines, the
//! dots line, the `====`/`----` rules and caret lines go (the passes
//! counted); every `ERROR:`/`FAIL:` block with its traceback (each run of
//! library frames one count line), and `Ran N tests` with the `OK`/`FAILED
//! (…)` verdict, stay as printed.
//!
//! pytest: banner and progress/PASSED lines dropped; each failure keeps its
//! title, the `>` source line, the `E` lines (assertion values and diffs),
//! user frames and the `path:line: Error` location; each run of library
//! frames becomes one count line (`lines::frames`); the short summary and
//! the final counts stay.

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::lines::frames::{self, Fold};
use crate::text::clean::{is_library_path, tidy};
use crate::text::guard::Source;

pub struct Pytest;

static SECTION: Lazy<Regex> = Lazy::new(|| Regex::new(r"^=+ (.+?) =+$").unwrap());
static TITLE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^_{3,} (.+?) _{3,}$").unwrap());
static SUBSECTION: Lazy<Regex> = Lazy::new(|| Regex::new(r"^-{3,} (.+?) -{3,}$").unwrap());
static PROGRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:\S+\.py ?)?[.FEsxXp]+\s*(?:\[\s*\d+%\])?$|^\S+::\S.* (?:PASSED|SKIPPED|XFAIL|XPASS)(?: .*)?\s*\[\s*\d+%\]$").unwrap()
});
static VERBOSE_FAIL: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(\S+::\S.*) (FAILED|ERROR)\s*\[\s*\d+%\]$").unwrap());
static PY_FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^(\S.*?):(\d+): in \S+").unwrap());
static LOCATION: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\S+:\d+: \w+").unwrap());
static FINAL: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"^\d+ (?:passed|failed|error|errors|skipped|deselected|xfailed|xpassed|warnings?)\b.* in [\d.]+s",
    )
    .unwrap()
});

const BANNER: &[&str] = &[
    "platform ",
    "rootdir:",
    "configfile:",
    "cachedir:",
    "plugins:",
    "testpaths:",
    "cachedir",
    "Using --randomly-seed",
];
/// E-lines pytest adds as advice, not as facts about the failure.
const E_NOISE: &[&str] =
    &["Use -v to get more diff", "Use -v to get the full diff", "Omitting ", "...Full output truncated"];

impl Filter for Pytest {
    fn name(&self) -> &'static str {
        "pytest"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["pytest", "py.test"])
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        pytest(text)
    }
}

pub struct Unittest;

/// `test_x (pkg.Class.test_x) ... ok`: one passing (or skipped) test.
static UNITTEST_PASS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\w+ \([\w.]+\)(?: \S.*)? \.\.\. (?:ok|skipped\b.*|expected failure)$").unwrap()
});
static UNITTEST_RAN: Lazy<Regex> = Lazy::new(|| Regex::new(r"^Ran \d+ tests? in ").unwrap());
static RULE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^(?:={20,}|-{20,})$").unwrap());

impl Filter for Unittest {
    fn name(&self) -> &'static str {
        "unittest"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "unittest"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        if !text.lines().any(|l| UNITTEST_RAN.is_match(l)) {
            return None;
        }
        let mut out = Vec::new();
        let mut passed = 0usize;
        let lines: Vec<&str> = text.lines().collect();
        // a traceback's frames of unittest and the interpreter: counted
        let mut fold = Fold::default();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if let Some(f) = frames::python_frame(&lines, i).filter(|f| !f.user) {
                fold.frame(line);
                i += f.span;
                continue;
            }
            if UNITTEST_PASS.is_match(line) || PROGRESS.is_match(line) && !line.contains("::") {
                passed += 1;
            } else if !(RULE.is_match(line) || frames::is_carets(line)) {
                fold.flush(&mut out);
                out.push(line.to_string());
            }
            i += 1;
        }
        fold.flush(&mut out);
        if passed > 0 {
            out.push(format!("({passed} lines of passing tests and progress not shown)"));
        }
        Some(tidy(&out))
    }
}

fn pytest(text: &str) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let mut section = String::new();
    let mut anchored = false;
    let mut skip_frame_body = false;
    let mut frame_source = false;
    let mut captured = 0usize;
    // each run of library frames (pytest's, pluggy's, the interpreter's):
    // one count line where it stood
    let mut fold = Fold::default();
    for line in text.lines() {
        if let Some(c) = SECTION.captures(line) {
            anchored = true;
            section = c[1].to_ascii_lowercase();
            // kept as printed, bars included: agents and their tools match them
            if section.contains(" in ") && FINAL.is_match(&c[1])
                || section.starts_with("no tests ran")
                || ["failures", "errors", "short test summary", "warnings summary"]
                    .iter()
                    .any(|s| section.contains(s))
            {
                keep(&mut fold, &mut out, line.to_string());
            }
            skip_frame_body = false;
            continue;
        }
        if line.starts_with("!!!") {
            anchored = true;
            keep(&mut fold, &mut out, line.to_string());
            continue;
        }
        if FINAL.is_match(line) {
            anchored = true;
            keep(&mut fold, &mut out, line.to_string());
            continue;
        }
        if section.is_empty() || section.contains("test session starts") {
            if line.starts_with("collected ") || line.contains("collected ") && line.starts_with("collecting")
            {
                anchored = true;
                keep(&mut fold, &mut out, line.trim_start_matches("collecting ... ").to_string());
            } else if VERBOSE_FAIL.is_match(line) {
                keep(&mut fold, &mut out, line.to_string());
            } else if BANNER.iter().any(|b| line.starts_with(b))
                || PROGRESS.is_match(line)
                || line.trim().is_empty()
            {
            } else {
                keep(&mut fold, &mut out, line.to_string());
            }
            continue;
        }
        if TITLE.is_match(line) {
            keep(&mut fold, &mut out, line.to_string());
            skip_frame_body = false;
            captured = 0;
            continue;
        }
        if section.contains("failures") || section.contains("errors") {
            if SUBSECTION.is_match(line) {
                keep(&mut fold, &mut out, line.to_string());
                captured = 1;
                skip_frame_body = false;
                continue;
            }
            if captured > 0 {
                // captured stdout/log: a few lines are context, more is noise
                captured += 1;
                if captured <= 11 {
                    keep(&mut fold, &mut out, line.to_string());
                } else if captured == 12 {
                    keep(&mut fold, &mut out, "… (captured output cut; see raw)".into());
                }
                continue;
            }
            if let Some(c) = PY_FRAME.captures(line) {
                skip_frame_body = is_library_path(&c[1]);
                fold.push(line, !skip_frame_body, &mut out);
                // a short-style frame (`path:N: in f`) prints the line it
                // was running just below: which call led on (the helper
                // the error came from)
                frame_source = !skip_frame_body;
                continue;
            }
            if std::mem::take(&mut frame_source) && line.starts_with(' ') && !frames::is_carets(line.trim()) {
                keep(&mut fold, &mut out, line.to_string());
                continue;
            }
            if line == "E" || line.starts_with("E ") {
                let e = line[1..].trim();
                if !e.is_empty() && !frames::is_carets(e) && !E_NOISE.iter().any(|n| e.starts_with(n)) {
                    keep(&mut fold, &mut out, line.to_string());
                }
                skip_frame_body = false;
                continue;
            }
            if LOCATION.is_match(line) {
                keep(&mut fold, &mut out, line.to_string());
                continue;
            }
            if line.starts_with('>') {
                keep(&mut fold, &mut out, line.to_string());
                continue;
            }
            if skip_frame_body
                || line.starts_with(' ')
                || line.trim().is_empty()
                || line == "???"
                || line.starts_with("Hint: make sure")
                || line.starts_with("_ _ _")
                || line == "Traceback:"
            {
                continue;
            }
            keep(&mut fold, &mut out, line.to_string());
            continue;
        }
        if line.trim().is_empty() || line.starts_with("-- Docs: ") {
            continue;
        }
        keep(&mut fold, &mut out, line.to_string());
    }
    fold.flush(&mut out);
    if !anchored {
        return None;
    }
    Some(tidy(&out))
}

/// A line of the summary, after the count of the library frames before it.
fn keep(fold: &mut Fold, out: &mut Vec<String>, line: String) {
    fold.flush(out);
    out.push(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytest_keeps_failure_facts_and_drops_progress() {
        let text = "============ test session starts ============\nplatform linux -- Python 3.11\ncollected 3 items\n\nt/test_a.py .F.   [100%]\n\n================= FAILURES =================\n___________ test_b ___________\n\n    def test_b():\n>       assert 1 == 2\nE       assert 1 == 2\n\nt/test_a.py:5: AssertionError\n========= short test summary info =========\nFAILED t/test_a.py::test_b - assert 1 == 2\n========= 1 failed, 2 passed in 0.01s =========\n";
        let out = pytest(text).unwrap();
        assert_eq!(
            out,
            "collected 3 items\n================= FAILURES =================\n___________ test_b ___________\n>       assert 1 == 2\nE       assert 1 == 2\nt/test_a.py:5: AssertionError\n========= short test summary info =========\nFAILED t/test_a.py::test_b - assert 1 == 2\n========= 1 failed, 2 passed in 0.01s =========\n"
        );
    }

    #[test]
    fn a_short_style_frame_keeps_the_line_it_ran() {
        let text = "collected 2 items\n\nt/test_r.py F\n\n================= FAILURES =================\n___________ test_r ___________\n\n    def test_r():\n>       totals = report(rows)\n\nt/test_r.py:3: \n_ _ _ _ _ _ _ _ _ _\nsrc/report.py:15: in report\n    amount = parse_amount(row)\n             ^^^^^^^^^^^^^^^^^\n_ _ _ _ _ _ _ _ _ _\n\n    def parse_amount(text):\n>       raise ValueError(text)\nE       ValueError: x\n\nsrc/parse.py:32: ValueError\n========= 1 failed in 0.01s =========\n";
        let out = pytest(text).unwrap();
        assert!(
            out.contains("\nsrc/report.py:15: in report\n    amount = parse_amount(row)\n>       raise"),
            "{out}"
        );
        assert!(!out.contains("^^^"), "{out}");
    }

    #[test]
    fn unittest_drops_passes_and_rules() {
        let text = "test_a (t.T.test_a) ... ok\ntest_b (t.T.test_b) ... FAIL\n\n======================================================================\nFAIL: test_b (t.T.test_b)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/p/t.py\", line 5, in test_b\n    self.assertEqual(f(), 2)\n         ^^^^^^^^^^^^^^\nAssertionError: 1 != 2\n\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n";
        let inv = Invocation::parse(&["python3", "-m", "unittest", "-v"].map(String::from)).unwrap();
        let out = Unittest.summarize(&inv, text, &crate::text::guard::Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "test_b (t.T.test_b) ... FAIL\n\nFAIL: test_b (t.T.test_b)\nTraceback (most recent call last):\n  File \"/p/t.py\", line 5, in test_b\n    self.assertEqual(f(), 2)\nAssertionError: 1 != 2\n\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n(1 lines of passing tests and progress not shown)\n"
        );
    }

    #[test]
    fn not_pytest_output_declines() {
        assert!(pytest("hello\nworld\n").is_none());
    }
}
