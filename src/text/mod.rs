//! Text outputs: tool-aware summaries and the generic treatment (SPEC §6).
//!
//! The hint's command picks a [`Filter`] from the registry (tool + subcommand,
//! after wrappers such as `npx` or `python -m`). A filter that finds its
//! anchors writes a summary; one that does not declines, and the text gets
//! the generic folding (`generic`). Status comes from the exit code only: a
//! non-zero code is stated as `exit N`, never guessed from the text.

mod cargo;
mod cc;
mod clean;
mod command;
mod docker;
mod generic;
mod git;
mod gotool;
mod install;
mod jstest;
mod kubectl;
mod lint;
mod listing;
mod python;

use crate::auditor::Shape;
use crate::pipeline::{Hint, Rendered, Settings};

pub use command::Invocation;

/// Below this many chars an output is left exactly as it is.
pub const TINY: usize = 100;

/// One tool family's summariser.
pub trait Filter: Sync {
    /// Short name, shown in the receipt as `text:<name>`.
    fn name(&self) -> &'static str;
    /// Whether this filter knows the command's output format.
    fn claims(&self, inv: &Invocation) -> bool;
    /// The summary of `text` (already ANSI-free, `\r` redraws resolved), or
    /// `None` when the expected anchors are missing. The caller adds `exit N`.
    fn summarize(&self, inv: &Invocation, text: &str, exit_code: i32) -> Option<String>;
}

/// Every tool-aware filter, most specific first.
static FILTERS: &[&dyn Filter] = &[
    &cargo::Cargo,
    &python::Pytest,
    &python::Python,
    &gotool::Go,
    &jstest::JsTest,
    &lint::Tsc,
    &lint::Eslint,
    &lint::PyLint,
    &git::Status,
    &git::Diff,
    &git::Log,
    &git::Sync,
    &install::Install,
    &install::NpmLs,
    &cc::Cc,
    &docker::Docker,
    &kubectl::Kubectl,
    &listing::Grep,
    &listing::Find,
    &listing::Ls,
];

fn filter_for(command: &[String]) -> Option<(Invocation, &'static dyn Filter)> {
    let inv = Invocation::parse(command)?;
    let f = FILTERS.iter().copied().find(|f| f.claims(&inv))?;
    Some((inv, f))
}

/// Whether a tool-aware filter wants this command's stdout buffered (the
/// shim streams everything else straight through).
pub fn claims(command: &[String]) -> bool {
    filter_for(command).is_some()
}

/// A summary of `text` for an agent, or `None` to pass it through. Without a
/// hint (plain `tokensieve < file`) text passes through untouched.
pub fn render(text: &str, hint: Option<&Hint>, settings: &Settings) -> Option<Rendered> {
    let hint = hint?;
    if text.len() < TINY {
        return None;
    }
    let cleaned = clean::clean(text);
    let large = text.len() > settings.text_threshold;
    if let Some((inv, filter)) = filter_for(&hint.command)
        && let Some(body) = filter.summarize(&inv, &cleaned, hint.exit_code)
    {
        let note = if large { settings.raw_note.as_deref() } else { None };
        let body = if large { cap(body, text.len(), note) } else { body };
        return Some(Rendered {
            text: finish(body, hint.exit_code, note),
            shape: Shape::Text(filter.name().into()),
        });
    }
    let text = generic::render(&cleaned, hint.exit_code, settings)?;
    Some(Rendered { text, shape: Shape::Text("generic".into()) })
}

/// A large output whose summary is still more than this share of it (in
/// chars) is cut to this share: head and tail of the summary stay, the middle
/// is counted, structural headings (files of a diff, commits) are listed.
const MAX_SHARE: f64 = 0.4;

/// The last resort for signal-dense output (thousands of findings, a diff of
/// many small edits): keep the summary's head and tail within the budget.
fn cap(body: String, raw_len: usize, raw_note: Option<&str>) -> String {
    let budget = (raw_len as f64 * MAX_SHARE) as usize;
    if body.len() <= budget {
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
    if !headings.is_empty() {
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
    fn claims_follow_the_command() {
        assert!(claims(&words("cargo test --all")));
        assert!(claims(&words("npx jest")));
        assert!(claims(&words("python3 -m pytest -q")));
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
        let small = "a\nb\n".to_string();
        assert_eq!(cap(small.clone(), 1000, None), small);
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
