//! Type checkers and linters: tsc, eslint, ruff, mypy, flake8, pylint,
//! pyright, shellcheck. Every finding line stays as the tool wrote it
//! (location, code, message: they are the signal and already dense); code
//! frames, carets, wrapper chatter (`npm warn`) and blank lines go;
//! summaries stay. shellcheck's own layout (`In f line N:`, the source
//! line, a marker line per finding) stays; its `Did you mean:` rewrites
//! and the closing list of wiki links go.

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct Tsc;
pub struct Eslint;
pub struct PyLint;
pub struct ShellCheck;

static TSC_FINDING: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\S.*(?:\(\d+,\d+\): |:\d+:\d+ - )(?:error|warning|message) TS\d+").unwrap());
static TSC_FOUND: Lazy<Regex> = Lazy::new(|| Regex::new(r"^Found \d+ errors?").unwrap());
static TSC_FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*\d+(?:\s|$)|^\s*~+\s*$").unwrap());
static ESLINT_ROW: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s+\d+:\d+\s+(?:error|warning)\s").unwrap());
static ESLINT_TOTAL: Lazy<Regex> = Lazy::new(|| Regex::new(r"^✖ \d+ problems? ").unwrap());
static PY_FINDING: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\S+:\d+(?::\d+)?:? ").unwrap());
static PY_SUMMARY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:Found \d+ errors?|Success: no issues|All checks passed|\[\*\] \d+ fixable|\d+ errors?, \d+ warnings?|Your code has been rated)").unwrap()
});
static CODE_FRAME: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\s*(?:\d+\s*)?[|│]|^\s*[\^~]+\s*$|^\s*\d*\s+[-+] |^\s*\d*\s+[-+]$").unwrap());
static WRAPPER: Lazy<Regex> = Lazy::new(|| Regex::new(r"^npm (?:warn|WARN|notice) |^> ").unwrap());

impl Filter for Tsc {
    fn name(&self) -> &'static str {
        "tsc"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["tsc", "vue-tsc"])
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        // kept besides findings: continuations of a message, related info
        sift(
            text,
            |l| (TSC_FINDING.is_match(l) || TSC_FOUND.is_match(l)).then(|| l.to_string()),
            // the closing per-file table repeats the findings above
            |l| {
                WRAPPER.is_match(l)
                    || TSC_FRAME.is_match(l)
                    || l.trim().is_empty()
                    || l.starts_with("Errors  Files")
            },
        )
    }
}

impl Filter for Eslint {
    fn name(&self) -> &'static str {
        "eslint"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "eslint"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        sift(
            text,
            |l| {
                (ESLINT_ROW.is_match(l) || ESLINT_TOTAL.is_match(l) || PY_FINDING.is_match(l))
                    .then(|| l.to_string())
            },
            |l| WRAPPER.is_match(l) || l.trim().is_empty(),
        )
    }
}

impl Filter for PyLint {
    fn name(&self) -> &'static str {
        "python-lint"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["ruff", "mypy", "dmypy", "flake8", "pylint", "pyright", "pyflakes", "pycodestyle"])
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        // ruff's default "full" format is rustc-shaped: header, ` --> path`, frame
        if text.lines().any(|l| l.trim_start().starts_with("--> ")) {
            return rustc_shaped(text);
        }
        sift(
            text,
            |l| (PY_FINDING.is_match(l) || PY_SUMMARY.is_match(l)).then(|| l.to_string()),
            // pylint's `************* Module x` headers stay: they name what follows
            |l| CODE_FRAME.is_match(l) || l.trim().is_empty(),
        )
    }
}

/// `In scripts/a.sh line 7:` (tty format) or a `[SC2086]` code (gcc format).
static SC_ANCHOR: Lazy<Regex> = Lazy::new(|| Regex::new(r"^In \S.* line \d+:$|\[SC\d{4}\]$").unwrap());

impl Filter for ShellCheck {
    fn name(&self) -> &'static str {
        "shellcheck"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "shellcheck"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        let mut out = Vec::new();
        let mut anchored = false;
        // inside a `Did you mean:` block or the closing wiki links
        let mut skipping = false;
        let mut skipped = 0usize;
        for line in text.lines() {
            if line.starts_with("Did you mean:") || line == "For more information:" {
                skipping = true;
            } else if line.trim().is_empty() {
                skipping = false;
                continue;
            } else if !skipping {
                anchored |= SC_ANCHOR.is_match(line);
                out.push(line.to_string());
                continue;
            }
            skipped += 1;
        }
        if skipped > 0 {
            out.push(format!("({skipped} lines of suggested rewrites and wiki links not shown)"));
        }
        anchored.then(|| tidy(&out))
    }
}

/// The shape the finding-list linters share: a line `finding` recognises is
/// kept (possibly rewritten), `noise` lines go, anything else stays.
/// `None` when no finding was seen: not this linter's output.
fn sift(
    text: &str,
    finding: impl Fn(&str) -> Option<String>,
    noise: impl Fn(&str) -> bool,
) -> Option<String> {
    let mut out = Vec::new();
    let mut anchored = false;
    for line in text.lines() {
        if let Some(kept) = finding(line) {
            anchored = true;
            out.push(kept);
        } else if !noise(line) {
            out.push(line.to_string());
        }
    }
    anchored.then(|| tidy(&out))
}

/// ruff's full format: `CODE message` then ` --> path:l:c`, a code frame and
/// `help:` lines. Kept as `CODE message` + ` --> path:l:c` + help, each as printed.
fn rustc_shaped(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut anchored = false;
    for line in &lines {
        anchored |= line.trim_start().starts_with("--> ");
        // every kept line quoted as printed, its indentation too
        if !(CODE_FRAME.is_match(line) || line.trim().is_empty()) {
            out.push(line.to_string());
        }
    }
    anchored.then(|| tidy(&out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::inv;

    #[test]
    fn tsc_pretty_drops_frames() {
        let text = "src/a.ts:4:12 - error TS2322: Type 'number' is not assignable to type 'string'.\n\n4   return { id };\n           ~~\n\n  src/b.ts:8:3 - The expected type comes from property 'id'\n    8   id: string;\n        ~~\n\n\nFound 1 error in src/a.ts:4\n";
        let out =
            Tsc.summarize(&inv("tsc --pretty"), text, &crate::text::guard::Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "src/a.ts:4:12 - error TS2322: Type 'number' is not assignable to type 'string'.\n  src/b.ts:8:3 - The expected type comes from property 'id'\nFound 1 error in src/a.ts:4\n"
        );
    }

    #[test]
    fn mypy_findings_and_summary() {
        let text = "app.py:3: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\n    return 1\n           ^\nFound 1 error in 1 file (checked 1 source file)\n";
        let out = PyLint
            .summarize(&inv("mypy --pretty app.py"), text, &crate::text::guard::Owned::new(text).src())
            .unwrap();
        assert_eq!(
            out,
            "app.py:3: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\n    return 1\nFound 1 error in 1 file (checked 1 source file)\n"
        );
    }

    #[test]
    fn ruff_full_format() {
        let text = "F401 [*] `os` imported but unused\n --> app.py:1:8\n  |\n1 | import os\n  |        ^^\n  |\nhelp: Remove unused import: `os`\n\nFound 1 error.\n[*] 1 fixable with the `--fix` option.\n";
        let out = PyLint
            .summarize(&inv("ruff check ."), text, &crate::text::guard::Owned::new(text).src())
            .unwrap();
        assert_eq!(
            out,
            "F401 [*] `os` imported but unused\n --> app.py:1:8\nhelp: Remove unused import: `os`\nFound 1 error.\n[*] 1 fixable with the `--fix` option.\n"
        );
    }
}
