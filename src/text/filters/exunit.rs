//! ExUnit (`mix test`): each numbered failure stays as printed — its title,
//! location, message, `code:`, `left:`/`right:` and stack frames — except
//! that a value longer than `MAX_VALUE` chars (a rendered page in an `=~`
//! assertion) is cut with a count; the `Finished in` and `N tests, N
//! failures` lines stay. Dependency compile progress (`==> dep`,
//! `Compiling N files`, `Generated x app`), progress dots, `--trace`'s
//! passing-test lines and the seed line go, counted.

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct ExUnit;

/// `left:`/`right:` values longer than this are cut.
const MAX_VALUE: usize = 400;

static FAILURE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s+\d+\) test ").unwrap());
static TOTALS: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\d+ (?:tests?|doctests?|properties)(?:, \d+ \w+)*").unwrap());
static PROGRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:==> \S+$|Compiling \d+ files? \(|Generated \S+ app$|Randomized with seed|Running ExUnit with seed|Getting extensions in|Running setup for|[.*]+$)").unwrap()
});
/// `--trace`: `  * test name [L#7]  * test name (0.1ms) [L#7]`, a passing test.
static TRACE_PASS: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\s+\* (?:test|doctest|property) .*\(\d+(?:\.\d+)?m?s\)").unwrap());
static VALUE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^(\s+(?:left|right|code|value):\s+)(.*)$").unwrap());

impl Filter for ExUnit {
    fn name(&self) -> &'static str {
        "exunit"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "mix" && inv.sub() == "test"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        let mut out = Vec::new();
        let mut anchored = false;
        let mut hidden = 0usize;
        for line in text.lines() {
            if FAILURE.is_match(line) || TOTALS.is_match(line) {
                anchored = true;
                out.push(line.to_string());
            } else if PROGRESS.is_match(line.trim_start()) || TRACE_PASS.is_match(line) {
                hidden += 1;
            } else if let Some(c) = VALUE.captures(line)
                && c[2].chars().count() > MAX_VALUE
            {
                let value: String = c[2].chars().take(MAX_VALUE).collect();
                let more = c[2].chars().count() - MAX_VALUE;
                out.push(format!("{}{value}… (+{more} chars)", &c[1]));
            } else {
                out.push(line.to_string());
            }
        }
        if !anchored {
            return None;
        }
        if hidden > 0 {
            out.push(format!("({hidden} lines of compile progress, passing tests and dots not shown)"));
        }
        Some(tidy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::inv;
    use crate::text::guard::Owned;

    #[test]
    fn failures_stay_progress_goes_long_values_are_cut() {
        let page = "x".repeat(1000);
        let text = format!(
            "==> jason\nCompiling 3 files (.ex)\nGenerated jason app\n..\n\n  1) test renders (PageTest)\n     test/page_test.exs:9\n     Assertion with =~ failed\n     code:  assert html =~ \"Review\"\n     left:  \"{page}\"\n     right: \"Review\"\n     stacktrace:\n       test/page_test.exs:10: (test)\n\nFinished in 0.1 seconds\n3 tests, 1 failure\n\nRandomized with seed 0\n"
        );
        let out = ExUnit.summarize(&inv("mix test"), &text, &Owned::new(&text).src()).unwrap();
        assert!(out.starts_with("  1) test renders (PageTest)\n     test/page_test.exs:9\n"), "{out}");
        assert!(out.contains(&format!("     left:  \"{}… (+602 chars)\n", &page[..399])), "{out}");
        assert!(
            out.contains("     right: \"Review\"\n     stacktrace:\n       test/page_test.exs:10: (test)\n")
        );
        assert!(out.ends_with("Finished in 0.1 seconds\n3 tests, 1 failure\n\n(5 lines of compile progress, passing tests and dots not shown)\n"), "{out}");
    }
}
