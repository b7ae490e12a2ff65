//! What every test runner's output repeats, whichever runner printed it and
//! whichever candidate (a tool filter or the generic path) rendered it:
//!
//! - when the run failed, passing-test records (`ok 3 - name`, `✔ name (3 ms)`, `PASS [0.03s]
//!   name`, `test_x (m.T.test_x) ... ok`, `--- PASS: TestX`, googletest's
//!   `[       OK ] X.y`, ctest's `Test #4: name ...   Passed`, doctest's
//!   `Trying:` … `ok` blocks) go, with one line of ours that counts them and
//!   gives the `tokensieve show ID --grep` printing them (in a run where
//!   everything passed they are the answer, and stay);
//! - a failure's details printed again in a recap at the end (node's
//!   `✖ failing tests:`) are given once: the repeat becomes a line of ours
//!   naming the first line it repeats.
//!
//! The kind comes from the command (`is_test_run`), never from the text. A
//! line holding a signal line of the ledger is never dropped, and nothing is
//! dropped when the raw output is not stored (no command could show it).

use std::collections::{HashMap, HashSet};

use once_cell::sync::Lazy;
use regex::Regex;

use crate::command::Invocation;
use crate::text::guard::{self, Source};

/// Tools whose whole job is running tests.
const RUNNERS: &[&str] = &[
    "pytest",
    "py.test",
    "unittest",
    "doctest",
    "nose2",
    "nosetests",
    "tox",
    "nox",
    "trial",
    "prove",
    "ctest",
    "jest",
    "vitest",
    "mocha",
    "ava",
    "tap",
    "jasmine",
    "karma",
    "playwright",
    "cypress",
    "phpunit",
    "pest",
    "rspec",
    "minitest",
    "busted",
    "bats",
    "cargo-nextest",
    "gotestsum",
];
/// Tools that run tests with a `test` subcommand (`go test`, `mix test`).
const TEST_SUBCOMMAND: &[&str] = &[
    "go", "cargo", "mix", "npm", "pnpm", "yarn", "bun", "deno", "dotnet", "swift", "zig", "gradle",
    "gradlew", "mvn", "mvnw", "sbt", "lein", "stack", "cabal", "dune", "make", "rebar3", "flutter", "dart",
    "ctest",
];

/// Whether `inv` runs tests: a test runner, a `test` subcommand (`cargo
/// nextest run` too), `node --test`, or a test binary (`./unit_tests`).
pub fn is_test_run(inv: &Invocation) -> bool {
    let sub = inv.sub();
    inv.is(RUNNERS)
        || (inv.is(TEST_SUBCOMMAND) && matches!(sub, "test" | "tests" | "check" | "verify" | "nextest"))
        // builds that run the tests too
        || (inv.is(&["gradle", "gradlew", "mvn", "mvnw"]) && matches!(sub, "build" | "package" | "install"))
        || (inv.tool == "node" && inv.has_flag("--test"))
        // `npm run test:unit`, `yarn run test`
        || (inv.is(TEST_SUBCOMMAND) && sub == "run" && inv.args.iter().skip_while(|a| *a != "run").nth(1).is_some_and(|s| s.starts_with("test")))
        || inv.tool.ends_with("_test")
        || inv.tool.ends_with("_tests")
        || inv.tool.ends_with("-test")
        || inv.tool.ends_with("-tests")
}

/// One kind of passing-test record (or of a per-test start line): how it
/// reads in a rendering (line start trimmed) and the pattern `show --grep`
/// finds it with in the raw output (after any indentation and colour codes,
/// see `grep_pattern`).
struct Pass {
    rendered: Regex,
    raw: &'static str,
    /// What the line is, for the count line: a passing test, a line printed
    /// as each test starts, failing ones too (`[ RUN ]`, `=== RUN`: the
    /// failure's own lines name the test again), or a build step's progress.
    what: &'static str,
}

const PASSING: &str = "passing tests";
const STARTS: &str = "per-test start lines";
const PROGRESS: &str = "task progress";

static PASSES: Lazy<Vec<Pass>> = Lazy::new(|| {
    let pass = |rendered: &str, raw: &'static str| Pass {
        rendered: Regex::new(rendered).expect("valid pass"),
        raw,
        what: PASSING,
    };
    let start = |rendered: &str, raw: &'static str| Pass { what: STARTS, ..pass(rendered, raw) };
    let progress = |rendered: &str, raw: &'static str| Pass { what: PROGRESS, ..pass(rendered, raw) };
    vec![
        // TAP (prove -v, node --test's TAP, tap): a skip or todo is no pass
        pass(r"^ok \d+(?: |$)", r"ok \d+( |$)"),
        // node --test spec, mocha, jest, vitest, bun and playwright, PHPUnit testdox
        pass(r"^[✔✓√] +\S", "[✔✓√] "),
        // cargo-nextest
        pass(r"^PASS \[ *[\d.]+m?s\] ", r"PASS \[ *[0-9.]+m?s\] "),
        // unittest -v, libtest, deno, and anything printing `name ... ok`
        pass(r"\S \.\.\. ok(?: \(\d+m?s\))?$", r"\S.* \.\.\. ok( \([0-9]+m?s\))?$"),
        // go test -v (subtests indented), and go test's package lines
        pass(r"^--- PASS: ", "--- PASS: "),
        pass(r"^ok\s+\S+\s+(?:[\d.]+s|\(cached\))", r"ok\s+\S+\s+([0-9.]+s|\(cached\))"),
        // dotnet test (normal verbosity), minitest -v
        pass(r"^Passed \S.* \[(?:< ?)?\d+ m?s\]$", r"Passed \S.* \[(< ?)?[0-9]+ m?s\]$"),
        pass(r"^\S+#\S+ = [\d.]+ s = \.$", r"\S+#\S+ = [0-9.]+ s = \.$"),
        // pytest -v
        pass(r"\S PASSED(?: +\[ *\d+%\])?$", r"\S.* PASSED( +\[ *[0-9]+%\])?$"),
        // googletest
        pass(r"^\[ +OK \] ", r"\[ +OK \] "),
        // ctest
        pass(
            r"^(?:\d+/\d+ +)?Test +#\d+: .* Passed +[\d.]+ sec$",
            r"([0-9]+/[0-9]+ +)?Test +#[0-9]+: .* Passed +[0-9.]+ sec$",
        ),
        // googletest, ctest and go test -v as each test starts
        start(r"^\[ RUN +\] ", r"\[ RUN +\] "),
        start(r"^Start +\d+: ", r"Start +[0-9]+: "),
        start(r"^=== (?:RUN|PAUSE|CONT|NAME) ", "=== (RUN|PAUSE|CONT|NAME) "),
        // gradle's tasks that ran or were skipped (a failed one stays)
        progress(
            r"^> Task :\S+(?: UP-TO-DATE| NO-SOURCE| FROM-CACHE| SKIPPED)?$",
            r"> Task :\S+( UP-TO-DATE| NO-SOURCE| FROM-CACHE| SKIPPED)?$",
        ),
    ]
});

/// A doctest `-v` example: `Trying:`, its source, `Expecting:` (or
/// `Expecting nothing`), its output, then `ok` for a pass.
const TRYING: &str = "Trying:";
const DOCTEST_OK: &str = "ok";

/// Lines at least this long, repeated from earlier in the rendering, are a
/// recap given once.
const RECAP_MIN_LINES: usize = 4;
/// The search for recaps stays linear: the last few earlier places of a
/// line are tried, a repeat is followed this far, and a rendering this long
/// is left as it is (its size is the cap's business).
const RECAP_STARTS: usize = 8;
const RECAP_MAX_LINES: usize = 400;
const RECAP_MAX_RENDERING: usize = 20_000;

/// `body` (a rendering of a test run's output) without its repeated failure
/// recaps and, when the run `failed`, its passing-test records; `body`
/// itself when nothing goes.
pub fn reduce(body: String, src: &Source, failed: bool) -> String {
    if src.id.is_none() {
        return body;
    }
    let signal = signal_lines(src);
    let lines: Vec<&str> = body.lines().collect();
    let passes = if failed { drop_passes(&lines, src, &signal) } else { None };
    let mut out = passes.unwrap_or_else(|| lines.iter().map(|l| l.to_string()).collect());
    if let Some(shorter) = drop_recaps(&out, &failure_lines(src)) {
        out = shorter;
    }
    let joined = out.join("\n") + "\n";
    if joined.len() < body.len() { joined } else { body }
}

/// The raw output's failure and diagnostic lines, trimmed: what makes a
/// repeated run of lines a recap of failures.
fn failure_lines<'a>(src: &Source<'a>) -> HashSet<&'a str> {
    use crate::text::ledger::Kind;
    let failure = |k: Kind| matches!(k, Kind::TestFailure | Kind::Diagnostic);
    src.ledger
        .entries
        .iter()
        .filter(|e| failure(e.kind))
        .filter_map(|e| src.cleaned.get(e.line))
        .map(|l| l.trim())
        .collect()
}

/// The raw output's signal lines, trimmed: a rendered line holding one stays.
fn signal_lines<'a>(src: &Source<'a>) -> HashSet<&'a str> {
    src.ledger.entries.iter().filter_map(|e| src.cleaned.get(e.line)).map(|l| l.trim()).collect()
}

/// The rendering without passing-test records, plus one count line; `None`
/// when there are none, or when no grep prints what would go.
fn drop_passes(lines: &[&str], src: &Source, signal: &HashSet<&str>) -> Option<Vec<String>> {
    let mut dropped = vec![false; lines.len()];
    // lines of a doctest example dropped whole (its `ok` is what grep prints)
    let mut example = vec![false; lines.len()];
    let mut kinds = vec![false; PASSES.len()];
    let mut examples = false;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if signal.contains(t.trim_end()) {
            i += 1;
            continue;
        }
        if t == TRYING
            && let Some(end) = doctest_pass(lines, i, signal)
        {
            dropped[i..=end].iter_mut().for_each(|d| *d = true);
            example[i..=end].iter_mut().for_each(|d| *d = true);
            examples = true;
            i = end + 1;
            continue;
        }
        if let Some(k) = PASSES.iter().position(|p| p.rendered.is_match(t)) {
            let skip_or_todo = k == 0 && {
                t.to_ascii_lowercase().contains("# skip") || t.to_ascii_lowercase().contains("# todo")
            };
            if !skip_or_todo {
                dropped[i] = true;
                kinds[k] = true;
            }
        }
        i += 1;
    }
    if !dropped.contains(&true) {
        return None;
    }
    let mut alternatives: Vec<&str> =
        PASSES.iter().zip(&kinds).filter(|(_, k)| **k).map(|(p, _)| p.raw).collect();
    if examples {
        alternatives.push("ok$");
    }
    let pattern = grep_pattern(&alternatives, src);
    // every dropped line must be among what the grep prints
    let re = Regex::new(&pattern).ok()?;
    let printed: HashSet<&str> =
        src.raw.iter().zip(&src.cleaned).filter(|(r, _)| re.is_match(r)).map(|(_, c)| c.trim()).collect();
    let missed = (0..lines.len()).any(|i| dropped[i] && !example[i] && !printed.contains(lines[i].trim()));
    if missed {
        return None;
    }
    let count = guard::count_line(src, &pattern, &[])?;
    let mut labels: Vec<&str> = Vec::new();
    for p in PASSES.iter().zip(&kinds).filter(|(_, k)| **k).map(|(p, _)| p) {
        if !labels.contains(&p.what) {
            labels.push(p.what);
        }
    }
    let what = if labels.is_empty() {
        "passing examples (Trying: … ok) not shown, each ends at an `ok` line".to_string()
    } else {
        if examples && !labels.contains(&PASSING) {
            labels.insert(0, PASSING);
        }
        format!("{} not shown", labels.join(" and "))
    };
    // blank lines that separated the records collapse
    let mut out: Vec<String> = Vec::new();
    for (l, _) in lines.iter().zip(&dropped).filter(|(_, d)| !**d) {
        let blank = l.trim().is_empty();
        if !(blank && out.last().is_none_or(|p: &String| p.trim().is_empty())) {
            out.push(l.to_string());
        }
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let at = out.iter().rposition(|l| !is_ours(l)).map_or(0, |p| p + 1);
    out.insert(at, format!("{what} {count}"));
    Some(out)
}

/// A line tokensieve added (a count, a note in parentheses, `exit N`).
fn is_ours(line: &str) -> bool {
    let t = line.trim();
    guard::counts(t) || (t.starts_with('(') && t.ends_with(')')) || t.starts_with("exit ")
}

/// The end (the `ok` line) of the doctest example starting at `start`, when
/// it passed.
fn doctest_pass(lines: &[&str], start: usize, signal: &HashSet<&str>) -> Option<usize> {
    let mut expecting = false;
    for (j, line) in lines.iter().enumerate().skip(start + 1) {
        let t = line.trim_end();
        if signal.contains(t.trim()) {
            return None;
        }
        if t == DOCTEST_OK {
            return expecting.then_some(j);
        }
        if t == "Expecting:" || t == "Expecting nothing" {
            expecting = true;
        } else if !line.starts_with(char::is_whitespace) || t.trim().is_empty() {
            return None;
        }
    }
    None
}

/// `show --grep`'s pattern for `alternatives`, each after any indentation
/// and, when the raw output has colour codes, any of those.
fn grep_pattern(alternatives: &[&str], src: &Source) -> String {
    let lead = if src.raw.iter().any(|l| l.contains('\x1b')) { r"^(\s|\x1b\[[0-9;]*m)*" } else { r"^\s*" };
    let body = if alternatives.len() == 1 {
        alternatives[0].to_string()
    } else {
        format!("({})", alternatives.join("|"))
    };
    format!("{lead}{body}")
}

/// The rendering with every run of `RECAP_MIN_LINES`+ lines that repeats an
/// earlier run (indentation aside) and holds one of `failures` replaced by
/// one line naming what it repeats; `None` when nothing repeats. (Frames
/// or context that two failures share stay with each.)
fn drop_recaps(lines: &[String], failures: &HashSet<&str>) -> Option<Vec<String>> {
    if lines.len() > RECAP_MAX_RENDERING {
        return None;
    }
    let trimmed: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    let mut seen: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut out: Vec<String> = Vec::new();
    let mut changed = false;
    let mut i = 0;
    while i < lines.len() {
        let mut best = (0, 0);
        if !trimmed[i].is_empty()
            && let Some(starts) = seen.get(trimmed[i])
        {
            for &s in starts.iter().rev().take(RECAP_STARTS) {
                let len = (0..RECAP_MAX_LINES)
                    .take_while(|&k| s + k < i && i + k < lines.len() && trimmed[s + k] == trimmed[i + k])
                    .count();
                if len > best.0 {
                    best = (len, s);
                }
            }
        }
        // a repeat that is mostly blank lines or our own lines is not a recap
        let (len, from) = best;
        let solid = (i..i + len)
            .filter(|&k| trimmed[k].chars().any(char::is_alphanumeric) && !is_ours(trimmed[k]))
            .count();
        let recap = (i..i + len).any(|k| failures.contains(trimmed[k]));
        if len >= RECAP_MIN_LINES && solid >= RECAP_MIN_LINES - 1 && recap {
            let indent = &lines[i][..lines[i].len() - lines[i].trim_start().len()];
            let first: String = trimmed[from].chars().take(60).collect();
            out.push(format!("{indent}({len} lines repeated from above, from \"{first}\")"));
            for (k, t) in trimmed.iter().enumerate().skip(i).take(len) {
                seen.entry(t).or_default().push(k);
            }
            changed = true;
            i += len;
            continue;
        }
        seen.entry(trimmed[i]).or_default().push(i);
        out.push(lines[i].clone());
        i += 1;
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::inv;
    use crate::text::guard::Owned;

    #[test]
    fn test_runs_come_from_the_command() {
        for cmd in [
            "prove -v t/",
            "python3 -m doctest -v money.py",
            "go test ./...",
            "npm test",
            "ctest",
            "mix test",
            "cargo nextest run",
            "node --test",
            "./build/unit_tests",
            "npm run test:unit",
            "python -m pytest -q",
        ] {
            assert!(is_test_run(&inv(cmd)), "{cmd}");
        }
        for cmd in [
            "go build ./...",
            "cargo build",
            "npm install",
            "npm run build",
            "node server.js",
            "python3 app.py",
            "make",
        ] {
            assert!(!is_test_run(&inv(cmd)), "{cmd}");
        }
    }

    #[test]
    fn tap_passes_go_counted_by_a_grep_that_prints_them() {
        let passes: String = (5..15).map(|i| format!("ok {i} - doubles {i}\n")).collect();
        let raw = format!(
            "t/a.t .. \n1..14\nok 1 - adds\nnot ok 2 - folds accents\nok 3 - trims\nok 4 - skipped # SKIP no db\n{passes}Failed 1/14 subtests\nResult: FAIL\n"
        );
        let owned = Owned::new(&raw);
        let out = reduce(raw.clone(), &owned.src(), true);
        assert!(
            !out.contains("ok 1 - adds") && !out.contains("ok 3 - trims") && !out.contains("doubles"),
            "{out}"
        );
        assert!(
            out.contains("not ok 2 - folds accents") && out.contains("ok 4 - skipped # SKIP no db"),
            "{out}"
        );
        let count = r"passing tests not shown (13 lines: tokensieve show abc123 --grep '^\s*ok \d+( |$)')";
        assert!(out.ends_with(&format!("Result: FAIL\n{count}\n")), "{out}");
        assert!(guard::check(&out, &owned.src()).is_ok());
    }

    #[test]
    fn checkmarks_nextest_and_dotted_passes_go() {
        let raw = "▶ total\n  ✔ sums 1 item (0.8ms)\n  ✔ sums 2 items (0.1ms)\n  ✔ sums 3 items (0.1ms)\n  ✖ handles cents (9.1ms)\n        PASS [   0.028s] ( 3/25) slugs::titles slug_of_alpha\n        PASS [   0.030s] ( 4/25) slugs::titles slug_of_beta\ntest_x (m.T.test_x) ... ok\ntest_y (m.T.test_y) ... FAIL\n";
        let owned = Owned::new(raw);
        let out = reduce(raw.to_string(), &owned.src(), true);
        assert!(
            out.starts_with("▶ total\n  ✖ handles cents (9.1ms)\ntest_y (m.T.test_y) ... FAIL\n"),
            "{out}"
        );
        assert!(out.contains("passing tests not shown (6 lines: "), "{out}");
        assert!(guard::check(&out, &owned.src()).is_ok(), "{out}");
    }

    #[test]
    fn doctest_passing_examples_go_failures_stay() {
        let example = |call: &str, want: &str| format!("Trying:\n    {call}\nExpecting:\n    {want}\nok\n");
        let passes: String =
            (1..6).map(|i| example(&format!("to_cents(\"{i}.50\")"), &format!("{i}50"))).collect();
        let raw = format!(
            "{passes}Trying:\n    f(0)\nExpecting:\n    []\n**********************************************************************\nFile \"m.py\", line 28, in m.f\nFailed example:\n    f(0)\n1 items had failures:\n***Test Failed*** 1 failures.\n"
        );
        let owned = Owned::new(&raw);
        let out = reduce(raw.clone(), &owned.src(), true);
        assert!(out.starts_with("Trying:\n    f(0)\nExpecting:\n    []\n****"), "{out}");
        let count = r"(5 lines: tokensieve show abc123 --grep '^\s*ok$')";
        assert!(
            out.contains(&format!(
                "passing examples (Trying: … ok) not shown, each ends at an `ok` line {count}"
            )),
            "{out}"
        );
        assert!(guard::check(&out, &owned.src()).is_ok());
    }

    #[test]
    fn googletest_start_lines_go_with_the_passes() {
        let cases: String = (0..12)
            .map(|i| format!("[ RUN      ] Suite.Case{i}\n[       OK ] Suite.Case{i} (0 ms)\n"))
            .collect();
        let raw = format!(
            "{cases}[ RUN      ] Suite.Bad\n/src/t.cc:41: Failure\n  Which is: 13\n[  FAILED  ] Suite.Bad (0 ms)\n[  PASSED  ] 12 tests.\n[  FAILED  ] 1 test, listed below:\n"
        );
        let owned = Owned::new(&raw);
        let out = reduce(raw.clone(), &owned.src(), true);
        assert!(
            out.starts_with("/src/t.cc:41: Failure\n  Which is: 13\n[  FAILED  ] Suite.Bad (0 ms)\n"),
            "{out}"
        );
        let count = r"(25 lines: tokensieve show abc123 --grep '^\s*(\[ +OK \] |\[ RUN +\] )')";
        assert!(out.contains(&format!("passing tests and per-test start lines not shown {count}")), "{out}");
        assert!(guard::check(&out, &owned.src()).is_ok());
    }

    #[test]
    fn frames_two_failures_share_are_no_recap() {
        let frames = "    at Test.run (node:internal/test_runner/test:796:25)\n    at Suite.processPendingSubtests (node:internal/test_runner/test:526:18)\n    at Test.postRun (node:internal/test_runner/test:889:19)\n    at Test.run (node:internal/test_runner/test:835:12)\n";
        let raw =
            format!("✖ one (1ms)\n  AssertionError: a\n{frames}✖ two (1ms)\n  AssertionError: b\n{frames}");
        let owned = Owned::new(&raw);
        assert_eq!(reduce(raw.clone(), &owned.src(), true), raw);
    }

    #[test]
    fn other_runners_passes_go_too() {
        let lines = [
            "ok  \texample.com/shop/pkg1\t0.02s",
            "ok  \texample.com/shop/pkg2\t(cached)",
            "  Passed ShopTests.CartTests.AddsItem [2 ms]",
            "CartTest#test_adds = 0.00 s = .",
            "test cart totals ... ok (3ms)",
            "  ✓  1 [chromium] › example.spec.ts:3:1 › has title (1.2s)",
        ];
        let raw =
            lines.join("\n") + "\n--- FAIL: TestCart (0.00s)\n    cart_test.go:12: got 3, want 4\nFAIL\n";
        let owned = Owned::new(&raw);
        let out = reduce(raw.clone(), &owned.src(), true);
        assert!(out.starts_with("--- FAIL: TestCart (0.00s)\n"), "{out}");
        assert!(out.contains("passing tests not shown (6 lines: "), "{out}");
    }

    #[test]
    fn gradle_task_progress_goes_and_blank_runs_collapse() {
        let tasks: String = [
            "compileJava UP-TO-DATE",
            "processResources NO-SOURCE",
            "classes UP-TO-DATE",
            "compileTestJava",
            "testClasses",
            "test",
        ]
        .iter()
        .map(|t| format!("> Task :app:{t}\n"))
        .collect();
        let passes: String = (0..6).map(|i| format!("\nCartTest > case{i}() PASSED\n")).collect();
        let raw = format!(
            "{tasks}{passes}\nCartTest > totals() FAILED\n    org.opentest4j.AssertionFailedError: expected: <10.8> but was: <10.0>\n\n8 tests completed, 1 failed\n\n> Task :app:test FAILED\n\nBUILD FAILED in 4s\n"
        );
        let owned = Owned::new(&raw);
        let out = reduce(raw.clone(), &owned.src(), true);
        assert!(out.starts_with("CartTest > totals() FAILED\n"), "{out}");
        assert!(out.contains("> Task :app:test FAILED\n"), "{out}");
        assert!(out.contains("passing tests and task progress not shown (12 lines: "), "{out}");
    }

    #[test]
    fn an_all_passing_run_keeps_its_passes() {
        let raw: String =
            (1..30).map(|i| format!("--- PASS: TestTake/take_{i:02} (0.00s)\n")).collect::<String>()
                + "ok  \texample.com/ratelimit\t0.001s\n";
        let owned = Owned::new(&raw);
        assert_eq!(reduce(raw.clone(), &owned.src(), false), raw);
        assert!(reduce(raw.clone(), &owned.src(), true).contains("passing tests not shown (30 lines: "));
    }

    #[test]
    fn a_long_rendering_of_repeats_is_searched_in_linear_time() {
        // 15,000 closing braces and 600 repeated failure blocks: every line
        // has thousands of earlier places; only the last few are tried
        let block = "not ok 1 - failing\n  ---\n  message: boom\n  at: t/x.t line 9\n  ...\n";
        let raw = block.repeat(600) + &"}\n".repeat(15_000);
        let owned = Owned::new(&raw);
        let out = reduce(raw.clone(), &owned.src(), true);
        assert_eq!(out.lines().filter(|l| l.starts_with("not ok")).count(), 1);
        assert!(out.contains("(5 lines repeated from above, from \"not ok 1 - failing\")"));
    }

    #[test]
    fn nothing_goes_without_a_stored_raw() {
        let raw = "ok 1 - a\nok 2 - b\nok 3 - c\nnot ok 4 - d\n";
        let owned = Owned::new(raw);
        let mut src = owned.src();
        src.id = None;
        assert_eq!(reduce(raw.to_string(), &src, true), raw);
    }

    #[test]
    fn a_recap_of_failures_is_given_once() {
        let block = "✖ handles cents (9.1ms)\n  AssertionError: Expected values to be strictly equal:\n  + 0.30000000000000004\n  - 0.3\n  at cart.test.js:10:38\n";
        let raw = format!(
            "{block}ℹ tests 3\nℹ fail 1\n\n✖ failing tests:\n\ntest at cart.test.js:10:3\n{}",
            block.replace('\n', "\n  ").trim_end()
        );
        let owned = Owned::new(&raw);
        let out = reduce(raw.clone(), &owned.src(), true);
        assert!(
            out.ends_with(
                "test at cart.test.js:10:3\n(5 lines repeated from above, from \"✖ handles cents (9.1ms)\")\n"
            ),
            "{out}"
        );
        assert_eq!(out.matches("0.30000000000000004").count(), 1);
        assert!(guard::check(&out, &owned.src()).is_ok());
    }
}
