//! Text outputs: tool-aware summaries and the generic treatment (SPEC §6).
//!
//! The hint's command picks a [`Filter`] from the registry (tool + subcommand,
//! after wrappers such as `npx` or `python -m`). A filter that finds its
//! anchors writes a summary; one that does not declines, and the text gets
//! the generic folding (`generic`). Status comes from the exit code only: a
//! non-zero code is stated as `exit N`, never guessed from the text.

mod clean;
mod command;
pub mod filters;
mod generic;
pub mod ledger;

use crate::auditor::Shape;
use crate::pipeline::{Hint, Rendered, Settings};

pub use command::Invocation;
pub use filters::Filter;
use filters::{filter_for, python};

/// Below this many chars an output is left exactly as it is.
pub const TINY: usize = 100;

/// Whether a tool-aware filter wants this command's stdout buffered (the
/// shim streams everything else straight through).
pub fn claims(command: &[String]) -> bool {
    filter_for(command).is_some()
}

/// ANSI-free text with `\r` redraws and backspace overstrike resolved and
/// trailing blanks dropped: what every rendering starts from.
pub fn clean(text: &str) -> String {
    clean::clean(text)
}

/// Whether one line is a signal an agent must see even when the lines around
/// it are left out (an error, a failure, a traceback). The shim's bounded
/// capture keeps such lines from the middle of an output too large to hold.
/// Expects a cleaned line.
pub fn is_signal_line(line: &str) -> bool {
    generic::is_signal(line)
}

/// A summary of `text` for an agent, or `None` to pass it through. Without a
/// hint (plain `tokensieve < file`) text passes through untouched. With one,
/// even text nothing summarises is at least cleaned (`clean`).
pub fn render(text: &str, hint: Option<&Hint>, settings: &Settings) -> Option<Rendered> {
    let hint = hint?;
    let cleaned = clean::clean(text);
    if text.len() < TINY {
        return cleaned_only(text, cleaned, hint.exit_code);
    }
    let large = text.len() > settings.text_threshold;
    if let Some((inv, filter)) = filter_for(&hint.command)
        && let Some(body) = filter.summarize(&inv, &cleaned, hint.exit_code)
    {
        let note = if large { settings.raw_note.as_deref() } else { None };
        let body = if text.len() > 2 * settings.text_threshold { cap(body, text.len(), note) } else { body };
        return Some(Rendered {
            text: finish(body, hint.exit_code, note),
            shape: Shape::Text(filter.name().into()),
        });
    }
    // any tool can die with a Python traceback (aws, gcloud, scripts run as
    // `./x.py`): below the threshold it gets the traceback treatment
    if !large && let Some(body) = python::traceback(&cleaned) {
        return Some(Rendered {
            text: finish(body, hint.exit_code, None),
            shape: Shape::Text("python".into()),
        });
    }
    let Some(mut out) = generic::render(&cleaned, hint.exit_code, settings) else {
        return cleaned_only(text, cleaned, hint.exit_code);
    };
    // The receipt follows on stderr: in a terminal it must start its own line.
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Some(Rendered { text: out, shape: Shape::Text("generic".into()) })
}

/// Text nothing summarises still reaches the agent without colour codes,
/// overstrike or progress redraws; `None` when cleaning changed nothing.
fn cleaned_only(raw: &str, cleaned: String, exit_code: i32) -> Option<Rendered> {
    if cleaned == raw || cleaned.trim().is_empty() {
        return None;
    }
    Some(Rendered { text: finish(cleaned, exit_code, None), shape: Shape::Text("clean".into()) })
}

/// A large output whose summary is still more than half of it (in chars) is
/// cut to this share: head and tail of the summary stay, the middle is
/// counted, structural headings (files of a diff) are listed.
const MAX_SHARE: f64 = 0.45;

/// The last resort for signal-dense output (thousands of findings, a diff of
/// many small edits): keep the summary's head and tail within the budget.
fn cap(body: String, raw_len: usize, raw_note: Option<&str>) -> String {
    let budget = (raw_len as f64 * MAX_SHARE) as usize;
    if body.len() * 2 <= raw_len {
        return body;
    }
    let lines: Vec<&str> = body.lines().collect();
    let (head_budget, tail_budget) = (budget * 3 / 4, budget / 5);
    let mut head = 0;
    let mut used = 0;
    while head < lines.len() && used + lines[head].len() < head_budget {
        used += lines[head].len() + 1;
        head += 1;
    }
    let mut tail = lines.len();
    used = 0;
    while tail > head && used + lines[tail - 1].len() < tail_budget {
        tail -= 1;
        used += lines[tail].len() + 1;
    }
    let middle = &lines[head..tail];
    let headings: Vec<&str> = middle
        .iter()
        .copied()
        .filter(|l| l.starts_with("diff --git ") || l.starts_with("commit "))
        .take(40)
        .collect();
    let mut out: Vec<String> = lines[..head].iter().map(|l| l.to_string()).collect();
    let whence = raw_note.map_or("see the raw output".to_string(), |n| n.trim().to_string());
    out.push(format!("… {} lines of this summary cut to stay short ({whence})", middle.len()));
    // worth listing only when they are a small part of what was cut
    if !headings.is_empty() && headings.len() * 3 <= middle.len() {
        out.push("cut sections:".into());
        out.extend(headings.iter().map(|h| format!(" {h}")));
    }
    out.extend(lines[tail..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

/// Appends the status line and, for large outputs, where the raw bytes are.
fn finish(body: String, exit_code: i32, raw_note: Option<&str>) -> String {
    let mut out = body.trim_end_matches('\n').to_string();
    out.push('\n');
    if exit_code != 0 {
        out.push_str(&format!("exit {exit_code}\n"));
    }
    if let Some(note) = raw_note {
        out.push_str(note.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn generic_summary_ends_its_last_line() {
        let log: String =
            (0..400).map(|i| format!("worker {i} processed batch ok\n")).collect::<String>() + "done";
        let hint = Hint { command: words("./long-job.sh"), exit_code: 0 };
        let out = render(&log, Some(&hint), &Settings::default()).expect("a summary");
        assert!(out.text.ends_with('\n'), "{:?}", &out.text[out.text.len().saturating_sub(40)..]);
    }

    #[test]
    fn claims_follow_the_command() {
        assert!(claims(&words("cargo test --all")));
        assert!(claims(&words("npx jest")));
        assert!(claims(&words("python3 -m pytest -q")));
        assert!(!claims(&words("cargo run --release")));
        assert!(!claims(&words("python3 server.py")));
        assert!(claims(&words("RUST_BACKTRACE=1 cargo test")));
        assert!(claims(&words("git -C repo status")));
        assert!(!claims(&words("aws s3 ls")));
        assert!(!claims(&words("git commit -m x")));
        assert!(!claims(&words("python3 -m http.server 8765")));
        assert!(!claims(&[]));
    }

    #[test]
    fn no_hint_passes_through_and_tiny_is_untouched() {
        let s = Settings::default();
        let long = "x\n".repeat(200);
        assert!(render(&long, None, &s).is_none());
        let hint = Hint { command: words("cargo build"), exit_code: 101 };
        assert!(render("error: oops\n", Some(&hint), &s).is_none());
    }

    #[test]
    fn text_nothing_summarises_is_still_cleaned() {
        let s = Settings::default();
        let hint = Hint { command: words("./report.sh"), exit_code: 0 };
        let r = render("\x1b[1mOK\x1b[0m 3 files\n", Some(&hint), &s).expect("cleaned");
        assert_eq!((r.text.as_str(), r.shape), ("OK 3 files\n", Shape::Text("clean".into())));
        // a man page past the tiny size, nothing to fold: only cleaned
        let man = "L\x08LS\x08S(1)  User Commands\n\nN\x08NA\x08AM\x08ME\x08E\n       ls - list directory contents\n\n\
                   _\x08S_\x08Y_\x08N_\x08O_\x08P_\x08S_\x08I_\x08S\n       ls [OPTION]... [FILE]...\n";
        let r = render(man, Some(&hint), &s).expect("cleaned");
        assert_eq!(r.shape, Shape::Text("clean".into()));
        assert_eq!(
            r.text,
            "LS(1)  User Commands\n\nNAME\n       ls - list directory contents\n\nSYNOPSIS\n       ls [OPTION]... [FILE]...\n"
        );
        assert!(render("already clean\n", Some(&hint), &s).is_none());
    }

    #[test]
    fn nonzero_exit_is_stated() {
        let out = finish("body".into(), 2, None);
        assert_eq!(out, "body\nexit 2\n");
        assert_eq!(finish("body\n".into(), 0, Some("raw: abc")), "body\nraw: abc\n");
    }

    #[test]
    fn dense_summaries_are_capped_with_head_and_tail() {
        let body: String =
            (0..400).map(|i| format!("src/f{i}.rs:{i}:1: error: thing {i} is wrong\n")).collect();
        let raw_len = body.len() + 100;
        let out = cap(body.clone(), raw_len, Some("raw: abc"));
        assert!(out.len() as f64 <= raw_len as f64 * MAX_SHARE + 200.0, "{}", out.len());
        assert!(out.starts_with("src/f0.rs:0:1: error"));
        assert!(out.ends_with("src/f399.rs:399:1: error: thing 399 is wrong\n"));
        assert!(out.contains("lines of this summary cut to stay short (raw: abc)"));
        let half: String = "x\n".repeat(10);
        assert_eq!(cap(half.clone(), 40, None), half);
        let small = "a\nb\n".to_string();
        assert_eq!(cap(small.clone(), 1000, None), small);
    }

    #[test]
    fn a_traceback_from_any_tool_loses_its_carets() {
        let hint = Hint { command: words("aws s3 ls"), exit_code: 255 };
        let text = "Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/awscli/clidriver.py\", line 9, in main\n    return run()\n           ^^^^^\nKeyError: 'region'\n";
        let r = render(text, Some(&hint), &Settings::default()).unwrap();
        assert_eq!(r.shape, Shape::Text("python".into()));
        assert_eq!(
            r.text,
            "Traceback (most recent call last):\n  … 1 library frames\nKeyError: 'region'\nexit 255\n"
        );
    }

    #[test]
    fn unclaimed_command_gets_generic_shape() {
        let hint = Hint { command: words("mytool run"), exit_code: 0 };
        let text = "same line here\n".repeat(40);
        let r = render(&text, Some(&hint), &Settings::default()).unwrap();
        assert_eq!(r.shape, Shape::Text("generic".into()));
        assert!(r.text.contains("same line here (×40)"), "{}", r.text);
    }
}

/// Each filter on real runs captured on this machine (fixtures/text/local,
/// README there): the noise it promises to drop is gone, the facts stay.
#[cfg(test)]
mod real_outputs {
    use super::*;

    fn run(cmd: &str, exit: i32, raw: &str) -> Rendered {
        let hint = Hint { command: cmd.split_whitespace().map(str::to_owned).collect(), exit_code: exit };
        render(raw, Some(&hint), &Settings::default()).expect("a summary")
    }

    macro_rules! local {
        ($name:literal) => {
            include_str!(concat!("../../fixtures/text/local/", $name, ".txt"))
        };
    }

    #[test]
    fn cargo_test_drops_std_frames_keeps_user_frame() {
        let r = run("cargo test", 101, local!("cargo-test-real"));
        assert_eq!(r.shape, Shape::Text("cargo".into()));
        assert!(!r.text.contains("/rustc/") && !r.text.contains("test generated_"), "{}", r.text);
        assert!(r.text.contains("at ledger::tests::total_of_two src/lib.rs:21:9"), "{}", r.text);
        assert!(r.text.contains("src/lib.rs: test result: FAILED. 1 passed; 2 failed"), "{}", r.text);
    }

    #[test]
    fn clippy_merges_repeated_lints() {
        let r = run("cargo clippy", 0, local!("clippy-pedantic"));
        assert!(
            r.text.contains("warning: item in documentation is missing backticks (×"),
            "{}",
            &r.text[..500]
        );
        assert!(!r.text.contains("help: to override"));
    }

    #[test]
    fn pytest_verbose_drops_passed_lines() {
        let r = run("python -m pytest -v", 1, local!("pytest-v-real"));
        assert!(!r.text.contains("PASSED"), "{}", r.text);
        assert!(r.text.contains("5 failed, 60 passed"));
    }

    #[test]
    fn git_log_lists_every_commit_once() {
        let r = run("git log", 0, local!("git-log-real"));
        assert!(r.text.starts_with("26 commits\n"), "{}", r.text);
        assert_eq!(r.text.matches("\ncommit ").count(), 26);
    }

    #[test]
    fn node_tap_keeps_failures_only() {
        let r = run("node --test", 1, local!("node-test-real"));
        assert!(!r.text.contains("duration_ms") && !r.text.contains("ok 1 -"), "{}", r.text);
        assert!(r.text.contains("not ok 21 - split keeps the remainder"));
    }

    #[test]
    fn gcc_frames_go_linker_errors_stay() {
        let r = run("make", 2, local!("make-real"));
        assert!(!r.text.contains(" | "), "{}", r.text);
        assert!(r.text.contains("undefined reference to `missing_fn'"));
        assert!(r.text.ends_with("exit 2\n"));
    }

    #[test]
    fn tsc_pretty_code_frames_go() {
        let r = run("npx tsc -p . --pretty", 1, local!("tsc-pretty-real"));
        assert!(!r.text.contains("~~") && !r.text.contains("\x1b["), "{}", r.text);
        assert!(r.text.contains("src/order.ts:17:18 - error TS2304: Cannot find name 'o'."));
    }

    #[test]
    fn push_progress_goes() {
        let r = run("git push --progress -u origin main", 0, local!("git-push-real"));
        assert!(!r.text.contains("Counting objects") && !r.text.contains('\r'), "{}", r.text);
        assert!(r.text.contains("main -> main"));
    }

    #[test]
    fn grep_folds_site_packages() {
        let r = run("grep -rn def .", 0, local!("grep-real"));
        assert!(r.text.contains("./site-packages/ (dependencies, not listed):"), "{}", &r.text[..300]);
        assert!(r.text.contains("./plistlib.py:90: def __repr__(self):"));
    }

    #[test]
    fn dpkg_log_gets_the_large_output_summary() {
        let r = run("tail -n 2500 /var/log/dpkg.log", 0, local!("dpkg-log-real"));
        assert_eq!(r.shape, Shape::Text("generic".into()));
        assert!(r.text.starts_with("2500 lines, "), "{}", r.text);
        assert!(r.text.contains("\ntail:\n"));
    }
}

/// No filter may panic on any text: every filter over every fixture, whole
/// and cut into odd pieces (a panic would only cost the summary, but still).
#[cfg(test)]
mod robustness {
    use super::*;

    #[test]
    fn every_filter_survives_every_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text");
        let mut texts = Vec::new();
        for dir in [root.clone(), root.join("local")] {
            for entry in std::fs::read_dir(dir).unwrap() {
                let p = entry.unwrap().path();
                if p.extension().is_some_and(|e| e == "txt") {
                    texts.push(clean::clean(&std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        let inv = Invocation::parse(&["tool".to_string()]).unwrap();
        for text in &texts {
            let lines: Vec<&str> = text.lines().collect();
            let pieces = [
                text.clone(),
                lines[lines.len() / 2..].join("\n"),
                lines.iter().step_by(7).copied().collect::<Vec<_>>().join("\n"),
                lines.iter().map(|l| format!(" {l}")).collect::<Vec<_>>().join("\n"),
            ];
            for piece in &pieces {
                for f in filters::FILTERS {
                    let _ = f.summarize(&inv, piece, 1);
                }
                let _ = generic::render(piece, 1, &Settings { text_threshold: 500, ..Settings::default() });
            }
        }
    }
}
