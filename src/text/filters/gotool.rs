//! go build/vet/test: compiler and vet findings kept as they are (they are
//! already `path:line:col: message`); `go test` keeps failing tests with their
//! messages, panics with user frames only (function and `path:line +0x..`
//! lines as printed; each run of runtime/testing frames one count line of
//! `lines::frames`; so too in the race detector's reports),
//! top-level passes, and the per-package `ok`/`FAIL` lines; `=== RUN` lines,
//! subtest passes and passing tests' logs go.

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::lines::frames::{self, Frame, Step};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct Go;

static RESULT: Lazy<Regex> = Lazy::new(|| Regex::new(r"^--- (PASS|FAIL|SKIP): ").unwrap());
static NESTED_RESULT: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s+--- (PASS|FAIL|SKIP): ").unwrap());
static DIAG: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\S+\.go:\d+(:\d+)?: ").unwrap());
/// Top-level passing tests listed at most this many times.
const MAX_PASSES: usize = 30;

impl Filter for Go {
    fn name(&self) -> &'static str {
        "go"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "go" && matches!(inv.sub(), "build" | "vet" | "test" | "install" | "generate")
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        summarize(text)
    }
}

fn summarize(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut anchored = false;
    let mut in_fail = false;
    let mut passes = 0usize;
    let mut sub_passes = 0usize;
    let mut no_tests = 0usize;
    // -v streams a test's log lines before its result line: hold them until then
    let mut pending: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        if t.starts_with("=== RUN")
            || t.starts_with("=== PAUSE")
            || t.starts_with("=== CONT")
            || t.starts_with("=== NAME")
        {
            anchored = true;
        } else if let Some(c) = RESULT.captures(line) {
            anchored = true;
            in_fail = &c[1] == "FAIL";
            if in_fail || passes < MAX_PASSES {
                out.push(line.to_string());
            }
            if in_fail {
                out.append(&mut pending);
            } else {
                passes += 1;
                pending.clear();
            }
        } else if let Some(c) = NESTED_RESULT.captures(line) {
            anchored = true;
            in_fail = &c[1] == "FAIL";
            if in_fail {
                out.push(line.to_string());
                out.append(&mut pending);
            } else {
                sub_passes += 1;
                pending.clear();
            }
        } else if line.starts_with("ok  \t")
            || line.starts_with("FAIL\t")
            || line == "FAIL"
            || line.starts_with("# ")
        {
            anchored = true;
            if line.starts_with("FAIL") {
                // the log of a test that never reported (it panicked, timed out)
                out.append(&mut pending);
            }
            pending.clear();
            // a package header stays over the errors it introduces (issue
            // 26 rule 3: which package failed); alone it says nothing
            let heads_errors = lines.get(i + 1).is_some_and(|next| DIAG.is_match(next));
            if !line.starts_with("# ") || heads_errors {
                out.push(line.to_string());
            }
            in_fail = false;
        } else if line.starts_with("?   \t") && line.ends_with("[no test files]") {
            anchored = true;
            no_tests += 1;
        } else if line == "PASS" {
            anchored = true;
        } else if DIAG.is_match(line) {
            anchored = true;
            out.push(line.to_string());
        } else if t.starts_with("goroutine ") && t.ends_with(':') {
            out.push(line.to_string());
            i = frames(&lines, i + 1, &mut out);
            continue;
        } else if frames::go_race_frame(&lines, i).is_some() {
            i = race_frames(&lines, i, &mut out);
            continue;
        } else if line.starts_with("    ") && !in_fail {
            // t.Log output of a test whose result is not known yet
            pending.push(line.to_string());
        } else if !line.trim().is_empty() {
            if line.starts_with("panic: ") {
                // the panicking test's log so far: what it did before
                out.append(&mut pending);
            }
            out.push(line.to_string());
        }
        i += 1;
    }
    if !anchored {
        return None;
    }
    if passes > MAX_PASSES {
        out.push(format!("(+{} more top-level tests passed)", passes - MAX_PASSES));
    }
    if sub_passes > 0 {
        out.push(format!("({sub_passes} subtests passed)"));
    }
    if no_tests > 0 {
        out.push(format!("({no_tests} packages without test files)"));
    }
    Some(tidy(&out))
}

/// Goroutine frames (`func(args)` then `\tpath:line +0x..`): user frames as
/// printed, each run of the runtime's and testing's frames one count line
/// (`lines::frames`). Returns the index after the stack.
fn frames(lines: &[&str], start: usize, out: &mut Vec<String>) -> usize {
    stack(lines, start, frames::go_frame, out)
}

/// A stack of the race detector's report (`Read at ... by goroutine 8:`,
/// `Goroutine 8 (running) created at:`), folded the same way.
fn race_frames(lines: &[&str], start: usize, out: &mut Vec<String>) -> usize {
    stack(lines, start, frames::go_race_frame, out)
}

fn stack(
    lines: &[&str],
    start: usize,
    frame: fn(&[&str], usize) -> Option<Frame>,
    out: &mut Vec<String>,
) -> usize {
    let (pieces, end) =
        frames::fold_frames(lines, start, |i| frame(lines, i).map_or(Step::Stop, Step::Frame));
    out.extend(frames::render(&pieces, lines));
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbose_pass_keeps_top_level_and_counts_subtests() {
        let text = "=== RUN   TestA\n=== RUN   TestA/x\n    a_test.go:9: log line\n--- PASS: TestA (0.00s)\n    --- PASS: TestA/x (0.00s)\nPASS\nok  \texample.com/a\t0.01s\n";
        assert_eq!(
            summarize(text).unwrap(),
            "--- PASS: TestA (0.00s)\nok  \texample.com/a\t0.01s\n(1 subtests passed)\n"
        );
    }

    #[test]
    fn panic_keeps_user_frames() {
        let text = "--- FAIL: TestNil (0.00s)\npanic: boom\n\ngoroutine 7 [running]:\ntesting.tRunner(0x1)\n\t/usr/lib/go-1.19/src/testing/testing.go:1446 +0x10b\nexample.com/a.F(...)\n\t/src/a/a.go:37\nFAIL\texample.com/a\t0.004s\n";
        let out = summarize(text).unwrap();
        assert!(out.contains("example.com/a.F(...)\n\t/src/a/a.go:37\n"), "{out}");
        assert!(!out.contains("testing.go"), "{out}");
        assert!(out.contains("(1 framework frame)"));
    }

    #[test]
    fn failure_messages_survive_with_and_without_v() {
        for text in [
            "--- FAIL: TestRefill (0.35s)\n    refill_test.go:15: after 350ms: tokens = 3, want 4\nFAIL\nFAIL\texample.com/a\t0.4s\n",
            "=== RUN   TestA\n    a_test.go:5: noise\n--- PASS: TestA (0.00s)\n=== RUN   TestRefill\n    refill_test.go:15: after 350ms: tokens = 3, want 4\n--- FAIL: TestRefill (0.35s)\nFAIL\nFAIL\texample.com/a\t0.4s\n",
            "=== RUN   TestRefill\n    refill_test.go:15: after 350ms: tokens = 3, want 4\npanic: boom\n\ngoroutine 7 [running]:\nexample.com/a.F(...)\n\t/src/a/a.go:37\nFAIL\texample.com/a\t0.004s\n",
        ] {
            let out = summarize(text).unwrap();
            assert!(
                out.lines().any(|l| l == "    refill_test.go:15: after 350ms: tokens = 3, want 4"),
                "{out}"
            );
            assert!(!out.contains("a_test.go:5"), "{out}");
            let owned = crate::text::guard::Owned::new(text);
            assert_eq!(crate::text::guard::check(&out, &owned.src()), Ok(()), "{out}");
        }
    }

    #[test]
    fn race_reports_keep_user_frames_and_count_the_toolchains() {
        let text = "==================\nWARNING: DATA RACE\nRead at 0x00c000100028 by goroutine 8:\n  example.com/l.TestCount.func1()\n      /src/l/race_test.go:18 +0xbd\n\nGoroutine 8 (running) created at:\n  example.com/l.TestCount()\n      /src/l/race_test.go:15 +0x117\n  testing.tRunner()\n      /usr/lib/go-1.19/src/testing/testing.go:1446 +0x216\n  testing.(*T).Run.func1()\n      /usr/lib/go-1.19/src/testing/testing.go:1493 +0x47\n==================\n--- FAIL: TestCount (0.00s)\n    testing.go:1319: race detected during execution of test\nFAIL\nFAIL\texample.com/l\t0.013s\n";
        let out = summarize(text).unwrap();
        assert!(out.contains("Read at 0x00c000100028 by goroutine 8:\n  example.com/l.TestCount.func1()\n      /src/l/race_test.go:18 +0xbd\n"), "{out}");
        assert!(
            out.contains("      /src/l/race_test.go:15 +0x117\n  (2 framework frames)\n=================="),
            "{out}"
        );
        assert!(!out.contains("tRunner"), "{out}");
        assert!(out.contains("\n    testing.go:1319: race detected during execution of test\n"), "{out}");
        let owned = crate::text::guard::Owned::new(text);
        assert_eq!(crate::text::guard::check(&out, &owned.src()), Ok(()));
    }

    #[test]
    fn build_errors_keep_their_package_header() {
        let text = "# example.com/a\nmain.go:3:2: undefined: x\n# example.com/b\nb.go:1:1: y declared and not used\n";
        assert_eq!(summarize(text).unwrap(), text);
        // a header over no error goes
        let text = "# example.com/a\nok  \texample.com/a\t0.01s\n";
        assert_eq!(summarize(text).unwrap(), "ok  \texample.com/a\t0.01s\n");
    }
}
