//! JavaScript test runners: jest, vitest, `node --test`, mocha, and
//! `npm test`-style scripts that run them. Passing tests and suites are
//! counted, failing ones kept with their message, expected/received diff and
//! user stack frames; code frames, node_modules/node:internal frames, timing
//! and banner lines go; the runner's summary lines stay.

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::lines::frames::{self, Fold};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct JsTest;

static PASS_LINE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*(?:✓|√|✔)\s").unwrap());
static PASS_FILE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*(?:PASS|✓)\s+\S+\.\w+(?:\s|$)").unwrap());
static CODE_FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*>?\s*\d+\s*\|").unwrap());
static CARET_FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*\|\s*[\^~]+\s*$").unwrap());
static SUMMARY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\s*(?:Tests?:|Test Suites:|Test Files|Tests\s|ℹ (?:tests|suites|pass|fail|cancelled|skipped|todo) )|^\s*\d+ (?:passing|failing|pending)")
        .unwrap()
});
static NOISE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:npm (?:warn|WARN|notice)|> |\s*Snapshots:|\s*Time:|Ran all test suites|\s*Start at|\s*Duration|\s*RUN\s+v\d|ℹ duration_ms|ℹ (?:cancelled|skipped|todo) 0$|\s*⎯+(?:\[\d+/\d+\]⎯*)?\s*$)")
        .unwrap()
});

impl Filter for JsTest {
    fn name(&self) -> &'static str {
        "jstest"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["jest", "vitest", "mocha", "ava"])
            || (inv.tool == "node" && inv.has_flag("--test"))
            || (inv.is(&["npm", "pnpm", "yarn", "bun"])
                && (inv.sub() == "test"
                    || inv.sub() == "t"
                    || inv.args.starts_with(&["run".into(), "test".into()])))
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        summarize(text)
    }
}

static TAP_RESULT: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*(not )?ok \d+ ").unwrap());
static TAP_COUNT: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^# (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$").unwrap());

fn summarize(text: &str) -> Option<String> {
    if text.lines().any(|l| l.starts_with("TAP version")) {
        return tap(text);
    }
    let mut out: Vec<String> = Vec::new();
    let mut anchored = false;
    let mut passed = 0usize;
    let mut passed_files = 0usize;
    // each run of the runner's and node's frames: one count line where it stood
    let mut fold = Fold::default();
    for line in text.lines() {
        if let Some(user) = frames::frame_of(line) {
            // quoted as printed: a frame keeps its indentation
            fold.push(line, user, &mut out);
            continue;
        }
        fold.flush(&mut out);
        if SUMMARY.is_match(line) {
            anchored = true;
            out.push(line.to_string());
            continue;
        }
        if NOISE.is_match(line) {
            continue;
        }
        if PASS_FILE.is_match(line) {
            anchored = true;
            passed_files += 1;
            continue;
        }
        if PASS_LINE.is_match(line) {
            anchored = true;
            passed += 1;
            continue;
        }
        if CODE_FRAME.is_match(line) || CARET_FRAME.is_match(line) {
            continue;
        }
        let t = line.trim_start();
        if t.starts_with("FAIL ")
            || t.starts_with('●')
            || t.starts_with('✕')
            || t.starts_with('×')
            || t.starts_with('✖')
        {
            anchored = true;
        }
        out.push(line.to_string());
    }
    fold.flush(&mut out);
    if !anchored {
        return None;
    }
    let mut counts = Vec::new();
    if passed_files > 0 {
        counts.push(format!("{passed_files} passing test files"));
    }
    if passed > 0 {
        counts.push(format!("{passed} passing tests"));
    }
    if !counts.is_empty() {
        out.push(format!("(not shown: {})", counts.join(", ")));
    }
    Some(tidy(&out))
}

/// TAP (`node --test` when stdout is not a terminal, node-tap, mocha's TAP
/// reporter): `ok` results and their YAML blocks go; `not ok` results keep
/// their block minus durations (node's warnings `(node:PID) …` too), each
/// run of node's and the runner's stack frames one count line; counts stay.
fn tap(text: &str) -> Option<String> {
    let mut out = Vec::new();
    let mut in_failure = false;
    let mut fold = Fold::default();
    for line in text.lines() {
        let t = line.trim_start();
        if in_failure && let Some(user) = frames::bare_js_frame(line) {
            fold.push(line, user, &mut out);
            continue;
        }
        fold.flush(&mut out);
        if let Some(c) = TAP_RESULT.captures(line) {
            in_failure = c.get(1).is_some();
            if in_failure {
                out.push(line.to_string());
            }
            continue;
        }
        if let Some(c) = TAP_COUNT.captures(line) {
            // zero counts of the rare kinds say nothing
            if &c[2] != "0" || matches!(&c[1], "tests" | "pass" | "fail") {
                out.push(line.to_string());
            }
            continue;
        }
        if !in_failure
            || t.starts_with("# Subtest:")
            || t.starts_with("duration_ms:")
            || t.starts_with("# duration_ms")
            || t == "---"
            || t == "..."
            || t.contains("(node:")
            || t.starts_with("TAP version")
        {
            continue;
        }
        out.push(line.to_string());
    }
    fold.flush(&mut out);
    Some(tidy(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jest_failure_survives_and_passes_are_counted() {
        let text = "FAIL __tests__/a.test.js\n  sum\n    ✓ adds (2 ms)\n    ✕ subtracts (3 ms)\n\n  ● sum › subtracts\n\n    expect(received).toBe(expected)\n\n      3 |   test(\"subtracts\", () => {\n    > 4 |     expect(sub(2, 1)).toBe(2);\n        |                       ^\n\n      at Object.toBe (__tests__/a.test.js:4:23)\n      at node_modules/jest-circus/build/run.js:12:3\n\nTests:       1 failed, 1 passed, 2 total\nTime:        0.4 s\n";
        let out = summarize(text).unwrap();
        assert!(out.contains("✕ subtracts"));
        assert!(out.contains("at Object.toBe (__tests__/a.test.js:4:23)"));
        assert!(!out.contains("jest-circus") && !out.contains("4 |") && !out.contains("Time:"));
        assert!(out.contains("Tests:       1 failed, 1 passed, 2 total"));
        assert!(out.contains("1 passing tests"));
        assert!(out.contains("\n      (1 framework frame)\n"), "{out}");
        // kept frames and summary lines are quoted as printed, indentation too
        assert!(out.contains("\n      at Object.toBe (__tests__/a.test.js:4:23)\n"), "{out}");
        let owned = crate::text::guard::Owned::new(text);
        assert_eq!(crate::text::guard::check(&out, &owned.src()), Ok(()));
    }

    #[test]
    fn tap_keeps_failures_only() {
        let text = "TAP version 13\n# Subtest: a\nok 1 - a\n  ---\n  duration_ms: 1.2\n  ...\n# Subtest: b\nnot ok 2 - b\n  ---\n  duration_ms: 3.4\n  location: '/p/x.test.js:7:1'\n  error: 'Missing expected exception.'\n  stack: |-\n    TestContext.<anonymous> (/p/x.test.js:8:10)\n    Test.run (node:internal/test_runner/test:796:25)\n  ...\n1..2\n# tests 2\n# pass 1\n# fail 1\n# todo 0\n";
        assert_eq!(
            summarize(text).unwrap(),
            "not ok 2 - b\n  location: '/p/x.test.js:7:1'\n  error: 'Missing expected exception.'\n  stack: |-\n    TestContext.<anonymous> (/p/x.test.js:8:10)\n    (1 framework frame)\n1..2\n# tests 2\n# pass 1\n# fail 1\n"
        );
    }

    #[test]
    fn unrelated_output_declines() {
        assert!(summarize("building...\ndone\n").is_none());
    }
}
