//! cargo build/check/clippy/test (and rustc itself): rustc diagnostics compacted to header,
//! ` --> path:line:col`, an error's source line and labels, `= note:`/
//! `= help:` lines and helps, each quoted as printed (the rest of
//! code frames, std locations and suggestion diffs dropped; nothing
//! reworded); dependency compile lines counted; libtest
//! output reduced to failing tests, their panics (message, left/right, user
//! frames: the `N: function` line and its `at path:line:col` line, each as
//! printed) and every `test result:` line, a failing binary's after its
//! `Running` line (as printed, once, before the first line of it shown).

use std::collections::{HashMap, HashSet};

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::lines::frames::{self, Fold};
use crate::text::clean::is_library_path;
use crate::text::guard::Source;

pub struct Cargo;

/// cargo's right-aligned status verbs that only report progress.
const PROGRESS: &[&str] = &[
    "Compiling",
    "Checking",
    "Documenting",
    "Downloaded",
    "Downloading",
    "Locking",
    "Adding",
    "Updating",
    "Fresh",
    "Blocking",
    "Unpacking",
    "Packaging",
    "Verifying",
    "Archiving",
    "Removing",
    "Installing",
    "Installed",
    "Replacing",
    "Replaced",
];

static DIAG_HEADER: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:error|warning|ICE|internal compiler error)(?:\[[A-Za-z0-9_:-]+\])?: ").unwrap()
});
static ARROW: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*(?:-->|:::|╭▸|├▸)\s*(.+)$").unwrap());
static GUTTER: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*(\d+)?\s*[|│]").unwrap());
static SUGGESTION: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*\d+\s*[-+~]\s").unwrap());
static SUBDIAG: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(?:help|note|suggestion|warning|error)(?:\[[^\]]*\])?: ").unwrap());

impl Filter for Cargo {
    fn name(&self) -> &'static str {
        "cargo"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        // not `cargo run`: its stdout is the program's own (and may be a server)
        inv.tool == "rustc" && !inv.has_flag("--version") && !inv.has_short('V') && !inv.has_flag("--print")
            || inv.tool == "cargo"
                && matches!(
                    inv.sub(),
                    "build" | "b" | "check" | "c" | "clippy" | "test" | "t" | "nextest" | "bench" | "doc"
                )
    }

    fn summarize(&self, _inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        summarize_in(text, Some(src))
    }
}

/// `summarize_in` without a stored raw (warnings shown as printed).
#[cfg(test)]
fn summarize(text: &str) -> Option<String> {
    summarize_in(text, None)
}

/// `summarize`; with `src` (the stored raw), a run whose tests failed
/// shows its compiler warnings as one line of ours (`warnings_line`) and
/// no `Compiling` lines: the failure is the answer, the warnings are one
/// command away.
fn summarize_in(text: &str, src: Option<&Source>) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let fold_warnings = src.is_some() && lines.iter().any(|l| is_test_failure(l));
    let mut warnings: Vec<String> = Vec::new();
    let mut warned = 0usize;
    let mut out: Vec<String> = Vec::new();
    let mut anchored = false;
    let mut deps = 0usize;
    // the test binary whose output comes next (`Running …`, `Doc-tests …`),
    // quoted as printed before the first line of it that is shown
    let mut running: Option<&str> = None;
    // diagnostics with the same header are shown once, with every location
    let mut diags: Vec<(Vec<String>, usize)> = Vec::new();
    let mut body_seen: Vec<HashSet<String>> = Vec::new();
    let mut by_header: HashMap<String, usize> = HashMap::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        let verb = t.split_whitespace().next().unwrap_or("");
        if line.starts_with(' ') && PROGRESS.contains(&verb) {
            anchored = true;
            if fold_warnings {
                i += 1;
                continue;
            }
            // the workspace's own crates carry a local path: keep those
            if (verb == "Compiling" || verb == "Checking" || verb == "Documenting") && t.contains(" (/") {
                flush_deps(&mut out, &mut deps);
                out.push(line.to_string());
            } else if verb == "Compiling" || verb == "Checking" {
                deps += 1;
            }
            i += 1;
            continue;
        }
        flush_deps(&mut out, &mut deps);
        // cargo-nextest: `PASS [ 0.004s] crate tests::name` per passing test
        if (verb == "PASS" || verb == "SKIP") && t.contains(" [") {
            anchored = true;
            i += 1;
            continue;
        }
        // cargo-nextest: a failing test's captured output, indented by 4
        if t == "stdout ───" || t == "stderr ───" {
            anchored = true;
            i = nextest_capture(&lines, i + 1, &mut out);
            continue;
        }
        // nextest's rules and run id
        if !t.is_empty() && t.chars().all(|c| c == '─') || t.starts_with("Nextest run ID ") {
            i += 1;
            continue;
        }
        if verb == "Finished" || verb == "Executable" {
            anchored = true;
            out.push(line.to_string());
        } else if verb == "Running" && line.starts_with(' ') || t.starts_with("Doc-tests ") {
            anchored = true;
            running = Some(line);
        } else if DIAG_HEADER.is_match(line) {
            anchored = true;
            let mut block = Vec::new();
            i = diagnostic(&lines, i, &mut block);
            if fold_warnings && line.starts_with("warning") {
                if !out.iter().any(|l| l == WARNINGS_SLOT) {
                    out.push(WARNINGS_SLOT.to_string());
                }
                // cargo's `generated N warnings` lines are counts, not warnings
                if !line.contains(") generated ") {
                    warned += 1;
                }
                let arrows = block.iter().filter(|l| l.trim_start().starts_with("-->"));
                warnings.extend(arrows.filter_map(|l| ARROW.captures(l)).map(|c| location(&c[1])));
                continue;
            }
            match by_header.get(line) {
                Some(&k) => {
                    let (body, n) = &mut diags[k];
                    *n += 1;
                    for l in block.into_iter().skip(1) {
                        if body_seen[k].insert(l.clone()) {
                            body.push(l);
                        }
                    }
                }
                None => {
                    by_header.insert(line.to_string(), diags.len());
                    out.push(format!("{DIAG_SLOT}{}", diags.len()));
                    body_seen.push(block.iter().skip(1).cloned().collect());
                    diags.push((block, 1));
                }
            }
            continue;
        } else if line.starts_with("running ") && (line.ends_with(" tests") || line.ends_with(" test")) {
            anchored = true;
        } else if let Some(rest) = line.strip_prefix("test ") {
            anchored = true;
            if rest.ends_with(" ok") || rest.ends_with(" ignored") || rest.contains(" ... ignored") {
                // passing tests: the `test result:` line counts them
            } else {
                // a failing test or the binary's `test result:` line; a
                // binary that passed is not named (its line says `ok`)
                let named = running.take().filter(|_| !rest.starts_with("result: ok."));
                out.extend(named.map(str::to_string));
                out.push(line.to_string());
            }
        } else if line == "failures:" {
            anchored = true;
            out.extend(running.take().map(str::to_string));
            i = failures(&lines, i + 1, &mut out);
            continue;
        } else if line.starts_with("Some errors have detailed explanations")
            || line.starts_with("For more information about")
            || t.is_empty()
        {
        } else {
            out.push(line.to_string());
        }
        i += 1;
    }
    flush_deps(&mut out, &mut deps);
    if !anchored {
        return None;
    }
    let folded = match src {
        Some(src) if warned > 0 => warnings_line(src, warned, &warnings),
        _ => None,
    };
    if folded.is_none() && out.iter().any(|l| l == WARNINGS_SLOT) {
        // no command can show them (the raw is not stored): as printed
        return summarize_in(text, None);
    }
    let mut rendered = Vec::with_capacity(out.len());
    for line in out {
        if line == WARNINGS_SLOT {
            rendered.extend(folded.clone());
            continue;
        }
        match line.strip_prefix(DIAG_SLOT).and_then(|k| k.parse::<usize>().ok()) {
            Some(k) => {
                let (block, n) = &diags[k];
                let mut lines = block.iter();
                let header = lines.next().cloned().unwrap_or_default();
                rendered.push(if *n > 1 { format!("{header} (×{n})") } else { header });
                rendered.extend(lines.cloned());
            }
            None => rendered.push(line),
        }
    }
    Some(rendered.join("\n") + "\n")
}

/// Marks where a (possibly merged) diagnostic goes in the output.
const DIAG_SLOT: &str = "\u{0}diag:";
/// Marks where the line of folded warnings goes.
const WARNINGS_SLOT: &str = "\u{0}warnings";
/// Every line of rustc's warnings a count line stands for: the headers
/// (cargo's `generated N warnings` too) and their `-->` locations.
const WARNING_LINES: &str = "^warning|^ *--> ";

/// A libtest or nextest line that says a test failed.
fn is_test_failure(line: &str) -> bool {
    line.starts_with("test result: FAILED")
        || line.starts_with("test ") && line.ends_with(" FAILED")
        || line.trim_start().starts_with("FAIL [")
}

/// `src/lib.rs:12:9` out of an arrow's target (labels after it cut).
fn location(target: &str) -> String {
    target.split(": ").next().unwrap_or(target).trim().to_string()
}

/// `N compiler warnings at LOC, LOC (M lines: tokensieve show ID --grep
/// …)`: the warnings of a failed test run, counted with where they are
/// and the command that prints them (which the guard re-runs); `None` when
/// the raw is not stored.
fn warnings_line(src: &Source, n: usize, locations: &[String]) -> Option<String> {
    let re = Regex::new(WARNING_LINES).ok()?;
    let targets: Vec<usize> = (0..src.raw.len()).filter(|&i| re.is_match(src.raw[i])).collect();
    let count = crate::text::guard::count_line(src, WARNING_LINES, &targets)?;
    let mut unique: Vec<&str> = Vec::new();
    for l in locations {
        if !unique.contains(&l.as_str()) {
            unique.push(l);
        }
    }
    Some(format!("{n} compiler warning{} at {} {count}", if n == 1 { "" } else { "s" }, unique.join(", ")))
}

fn flush_deps(out: &mut Vec<String>, deps: &mut usize) {
    if *deps > 0 {
        out.push(format!("(compiled {} dependencies)", deps));
        *deps = 0;
    }
}

/// One rustc-style diagnostic starting at `start`; returns the index after it.
pub fn diagnostic(lines: &[&str], start: usize, out: &mut Vec<String>) -> usize {
    out.push(lines[start].to_string());
    // an error's offending source line stays (what must change, as
    // printed); a warning's frame goes with the rest
    let is_error = lines[start].starts_with("error");
    let mut source_kept = true;
    // the last location was the user's (its labels are kept)
    let mut located = false;
    let mut skipping = false;
    let mut i = start + 1;
    while i < lines.len() {
        let line = lines[i];
        if line.trim().is_empty() || DIAG_HEADER.is_match(line) || is_status(line) {
            break;
        }
        if SUBDIAG.is_match(line) {
            // a `help:`/`note:` sub-diagnostic: dropped when it points into std
            let next_is_lib =
                lines.get(i + 1).and_then(|n| ARROW.captures(n)).is_some_and(|c| is_library_path(&c[1]));
            skipping = next_is_lib || line.starts_with("help: to override");
            if !skipping {
                out.push(line.to_string());
                located = false;
            }
            i += 1;
            continue;
        }
        if skipping {
            i += 1;
            continue;
        }
        if let Some(c) = ARROW.captures(line) {
            let path = c[1].trim();
            if is_library_path(path) {
                located = false;
            } else {
                // quoted as printed (` --> src/a.rs:4:27`)
                out.push(line.to_string());
                located = true;
                source_kept = !is_error;
            }
        } else if let Some(note) = line.trim_start().strip_prefix("= ") {
            if !note.contains("for further information visit") && !note.starts_with("help: to override") {
                out.push(line.to_string());
            }
        } else if SUGGESTION.is_match(line) {
        } else if let Some(g) = GUTTER.captures(line) {
            if g.get(1).is_some() && !std::mem::replace(&mut source_kept, true) {
                out.push(line.to_string());
            } else if is_error && located && g.get(1).is_none() && has_label(&line[g.get(0).unwrap().end()..])
            {
                // an error's labels (`  |     ^ expected `u32``: what is
                // wrong, under the line kept above), as printed; a
                // warning's repeat its `help:`/`note:` and go
                out.push(line.to_string());
            }
        } else {
            // continuation of a note (`found enum ...`), as printed
            out.push(line.to_string());
        }
        i += 1;
    }
    i
}

/// A line of cargo's own right-aligned status (`    Finished ...`,
/// `   Compiling x`): it ends the diagnostic above it, with or without a
/// blank line between.
fn is_status(line: &str) -> bool {
    let t = line.trim_start();
    let verb = t.split_whitespace().next().unwrap_or("");
    t.len() < line.len()
        && (PROGRESS.contains(&verb) || matches!(verb, "Finished" | "Running" | "Executable"))
}

/// Whether the rest of a gutter line (`^^^ expected u32`) carries a label,
/// not only the marker art.
fn has_label(rest: &str) -> bool {
    let text = rest.trim_start_matches(|c: char| " ^-~_|+.│╰╭─┬┴".contains(c) || c == '\'');
    !text.trim().chars().all(|c| "^-~_|+ │".contains(c))
}

/// The output nextest captured for a failing test, from `start` to the
/// first line that is not indented by 4: libtest's own lines for the one
/// test reduced as in a `cargo test` run, the panic with its user frames;
/// kept lines keep their indent. Returns the index after the block.
fn nextest_capture(lines: &[&str], start: usize, out: &mut Vec<String>) -> usize {
    let mut end = start;
    while end < lines.len() && (lines[end].starts_with("    ") || lines[end].trim().is_empty()) {
        end += 1;
    }
    let block: Vec<&str> = lines[start..end].iter().map(|l| l.get(4..).unwrap_or("")).collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < block.len() {
        let line = block[i];
        if line == "failures:" {
            i = failures(&block, i + 1, &mut kept);
            continue;
        }
        if line.starts_with("thread '") || line == "stack backtrace:" {
            i = failures(&block, i, &mut kept);
            continue;
        }
        let passed = line.starts_with("test ") && (line.ends_with(" ok") || line.ends_with(" ignored"));
        let running = line.starts_with("running ") && (line.ends_with(" test") || line.ends_with(" tests"));
        if !(line.trim().is_empty() || passed || running) {
            kept.push(line.to_string());
        }
        i += 1;
    }
    out.extend(kept.into_iter().map(|l| format!("    {l}")));
    end
}

/// The `failures:` section: each `---- name stdout ----` block with its panic
/// message and user frames (both lines quoted as printed: the `at` line is a
/// frame the ledger knows, indentation and all), each run of the runtime's
/// frames one count line; the closing name list is dropped (already shown).
fn failures(lines: &[&str], start: usize, out: &mut Vec<String>) -> usize {
    let mut fold = Fold::default();
    let mut i = start;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("test result:") || line.starts_with("error: ") {
            break;
        }
        if line == "failures:" {
            // the second list: names only
            i += 1;
            while i < lines.len() && (lines[i].starts_with("    ") || lines[i].trim().is_empty()) {
                i += 1;
            }
            break;
        }
        if line.starts_with("  ")
            && let Some(f) = frames::rust_frame(lines, i)
        {
            if f.user {
                fold.flush(out);
                out.extend(lines[i..i + f.span].iter().map(|l| l.to_string()));
            } else {
                fold.frame(line);
            }
            i += f.span;
            continue;
        }
        let t = line.trim();
        if !(t.is_empty()
            || t == "stack backtrace:"
            || t.starts_with("note: Some details are omitted")
            || t.starts_with("note: run with `RUST_BACKTRACE=1`"))
        {
            fold.flush(out);
            out.push(line.to_string());
        }
        i += 1;
    }
    fold.flush(out);
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustc_error_compacts_to_location_and_label() {
        let text = "error[E0308]: mismatched types\n --> src/lib.rs:4:27\n  |\n4 |     x = y + z;\n  |             ^ expected `u32`, found `i64`\n\nerror: could not compile `k` (lib) due to 1 previous error\n";
        let out = summarize(text).unwrap();
        assert_eq!(
            out,
            "error[E0308]: mismatched types\n --> src/lib.rs:4:27\n4 |     x = y + z;\n  |             ^ expected `u32`, found `i64`\nerror: could not compile `k` (lib) due to 1 previous error\n"
        );
    }

    #[test]
    fn std_help_blocks_are_dropped() {
        let text = "error[E0277]: cannot add\n --> src/a.rs:1:2\n  |\n  = help: the trait `Add` is not implemented\nhelp: the following other types implement trait\n --> /rustc/abc/library/core/src/ops/arith.rs:99:8\n  |\n  = note: `u32` implements `Add`\n";
        let out = summarize(text).unwrap();
        // quoted as printed, `= ` and indentation included
        assert!(out.contains("\n  = help: the trait `Add` is not implemented\n"), "{out}");
        assert!(!out.contains("arith.rs") && !out.contains("implements `Add`"), "{out}");
    }

    #[test]
    fn same_header_diagnostics_merge() {
        let text = "warning: missing backticks\n --> src/a.rs:1:2\n  |\nhelp: try\n\nwarning: missing backticks\n --> src/b.rs:3:4\n  |\nhelp: try\n\n";
        assert_eq!(
            summarize(text).unwrap(),
            "warning: missing backticks (×2)\n --> src/a.rs:1:2\nhelp: try\n --> src/b.rs:3:4\n"
        );
    }

    #[test]
    fn nextest_passes_go() {
        let text = "    Starting 3 tests across 1 binary\n        PASS [   0.004s] ledger tests::a\n        FAIL [   0.005s] ledger tests::b\n     Summary [   0.010s] 3 tests run: 2 passed, 1 failed, 0 skipped\n";
        let out = summarize(text).unwrap();
        assert!(!out.contains("tests::a") && out.contains("FAIL [   0.005s] ledger tests::b"), "{out}");
        assert!(out.contains("Summary [   0.010s] 3 tests run: 2 passed, 1 failed"));
    }

    #[test]
    fn status_lines_end_a_diagnostic_and_stay_as_printed() {
        let text = "warning: unused variable: `x`\n --> src/a.rs:2:9\n\nwarning: `k` (lib) generated 1 warning\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.34s\n";
        let out = summarize(text).unwrap();
        assert!(
            out.ends_with("\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.34s\n"),
            "{out}"
        );
        let owned = crate::text::guard::Owned::new(text);
        assert_eq!(crate::text::guard::check(&out, &owned.src()), Ok(()));
    }

    #[test]
    fn user_backtrace_frames_are_quoted_as_printed() {
        let text = "running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n\nthread 't' panicked at src/lib.rs:3:5:\nboom\nstack backtrace:\n   0: core::panicking::panic_fmt\n             at /rustc/abc/library/core/src/panicking.rs:80:14\n   1: k::t\n             at ./src/lib.rs:3:5\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed\n";
        let out = summarize(text).unwrap();
        assert!(out.contains("\n   1: k::t\n             at ./src/lib.rs:3:5\n"), "{out}");
        assert!(!out.contains("panicking.rs"), "{out}");
        let owned = crate::text::guard::Owned::new(text);
        assert_eq!(crate::text::guard::check(&out, &owned.src()), Ok(()));
    }

    /// Issue 26 rule 7 on real cargo output: every line of the summary is a
    /// line of the output as printed (indentation included), a header
    /// followed by its `(×N)` repeat count, or a line of ours in parentheses.
    #[test]
    fn real_output_is_quoted_never_reworded() {
        let real = [
            include_str!("../../../fixtures/text/cargo-build-fail.txt"),
            include_str!("../../../fixtures/text/cargo-build-fail-color.txt"),
            include_str!("../../../fixtures/text/cargo-clippy-warnings.txt"),
            include_str!("../../../fixtures/text/cargo-test-fail.txt"),
            include_str!("../../../fixtures/text/cargo-test-pass.txt"),
            include_str!("../../../fixtures/text/local/build/cargo-build-notes.txt"),
            include_str!("../../../fixtures/text/local/cargo-build-real.txt"),
            include_str!("../../../fixtures/text/local/cargo-clippy-real.txt"),
            include_str!("../../../fixtures/text/local/cargo-test-real.txt"),
            include_str!("../../../fixtures/text/local/clippy-pedantic.txt"),
            include_str!("../../../fixtures/text/local/heldout/cargo-test-doctest-fail.txt"),
            include_str!("../../../fixtures/text/local/tests/nextest-no-fail-fast.txt"),
        ];
        let ours = Regex::new(r"^\s*\((?:compiled \d+ dependencies|\d+ framework frames?)\)$").unwrap();
        for raw in real {
            let text = crate::text::clean::clean(raw);
            let printed: HashSet<&str> = text.lines().collect();
            let out = summarize(&text).unwrap();
            for line in out.lines() {
                let header = line.rsplit_once(" (×").map_or(line, |(h, _)| h);
                assert!(
                    printed.contains(line) || printed.contains(header) || ours.is_match(line),
                    "reworded: {line:?}\n{out}"
                );
            }
        }
    }

    #[test]
    fn a_failed_test_run_counts_its_warnings_in_one_line() {
        // real `cargo test`: 7 warnings over two files, 2 tests failing
        let text = include_str!("../../../fixtures/text/local/tests/cargo-test-warnings-fail.txt");
        let owned = crate::text::guard::Owned::new(text);
        let out = summarize_in(text, Some(&owned.src())).unwrap();
        let warnings: Vec<&str> = out.lines().filter(|l| l.contains("compiler warning")).collect();
        assert_eq!(
            warnings,
            vec![
                "7 compiler warnings at src/lib.rs:3:5, src/bands.rs:3:9, src/lib.rs:24:9, src/lib.rs:12:5, \
                 src/lib.rs:37:4, src/bands.rs:11:15 (16 lines: tokensieve show abc123 --grep '^warning|^ *--> ')"
            ],
            "{out}"
        );
        assert!(!out.contains("never used") && !out.contains("generated 7"), "{out}");
        assert!(!out.contains("Compiling meter"), "{out}");
        assert!(
            out.contains("test tests::day_price ... FAILED") && out.contains(" right: \"high\""),
            "{out}"
        );
        // the guard re-runs the command: every warning line is counted
        assert_eq!(crate::text::guard::check(&out, &owned.src()), Ok(()));
        // a run whose tests pass keeps its warnings as they are
        let passing = text.replace("... FAILED", "... ok").replace("test result: FAILED", "test result: ok");
        let owned = crate::text::guard::Owned::new(&passing);
        let out = summarize_in(&passing, Some(&owned.src())).unwrap();
        assert!(out.contains("warning: function `legacy_rate` is never used"), "{out}");
        // without a stored raw nothing can be counted: as printed
        assert!(summarize(text).unwrap().contains("warning: unused import: `std::fmt::Write`"));
    }

    #[test]
    fn no_anchor_declines() {
        assert!(summarize("hello world\nthis is my program output\n").is_none());
    }
}
