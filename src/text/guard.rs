//! The guard: the last word over every rendering of a text output.
//!
//! Each signal line of the ledger must be in the rendering verbatim (its
//! cleaned text with its leading indentation, trailing blanks aside, inside
//! one rendered line: a frame or a message that lost its indentation was
//! rephrased, not kept; a repeat of a line, indented anew, may be shown by
//! another copy as printed there), or be
//! counted by a line of ours that carries the exact command that shows it:
//! `(N lines: tokensieve show ID --grep 'RE')`. The guard runs that grep
//! itself, over the raw lines exactly as `tokensieve show` does: the count
//! must be what the command prints, and the lines it prints must include the
//! ones it stands for. A rendering that fails is replaced by a safer one
//! (see `text::render`).

use std::collections::HashSet;

use once_cell::sync::Lazy;
use regex::Regex;

use crate::settings::Excerpt;
use crate::text::ledger::Ledger;

/// What a rendering is checked against.
pub struct Source<'a> {
    /// The raw output's lines as `tokensieve show` numbers them.
    pub raw: Vec<&'a str>,
    /// The cleaned text's lines (same numbering).
    pub cleaned: Vec<&'a str>,
    pub ledger: &'a Ledger,
    /// The stored raw output's id, when it is stored and `raw` is all of
    /// it (for an excerpt of a larger output, `None`: a count checked over
    /// the excerpt would not be what `tokensieve show` prints).
    pub id: Option<&'a str>,
    /// Characters of output the agent's harness shows whole
    /// (`Settings::budget`; `None`: no limit). A listing past it counts, with
    /// the command, what it cannot show.
    pub budget: Option<usize>,
    /// The focus size for record-like text (`budget::record_focus` of
    /// `Settings::focus`): past it, such text gets a focus view.
    pub focus: Option<usize>,
    /// Set when `raw` is an excerpt of a larger output: where its lines are
    /// in the whole, and the whole's size.
    pub excerpt: Option<&'a Excerpt>,
}

impl Source<'_> {
    /// The number (1-based) that `tokensieve show` gives line `i` (0-based).
    pub fn line_no(&self, i: usize) -> usize {
        self.excerpt.map_or(i + 1, |e| e.line_number(i))
    }
}

/// Why a rendering failed the guard.
#[derive(Debug, PartialEq, Eq)]
pub struct Breach {
    /// Signal lines (0-based) neither present nor counted.
    pub missing: Vec<usize>,
    /// Count lines whose command does not print what they say.
    pub false_counts: Vec<String>,
}

impl Breach {
    /// One line for `TOKENSIEVE_DEBUG`.
    pub fn describe(&self, src: &Source) -> String {
        let mut parts = Vec::new();
        if let Some(&first) = self.missing.first() {
            let line: String = src.cleaned.get(first).unwrap_or(&"").trim().chars().take(100).collect();
            parts.push(format!(
                "{} signal lines lost (first: L{} {line:?})",
                self.missing.len(),
                src.line_no(first)
            ));
        }
        if let Some(first) = self.false_counts.first() {
            parts.push(format!("{} false count lines (first: {first})", self.false_counts.len()));
        }
        parts.join("; ")
    }
}

/// `(N lines: tokensieve show ID --grep 'RE')`: the only shape of a count
/// line the guard accepts.
static COUNT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\((\d+) lines?: tokensieve show ([0-9a-f]+) --grep '((?:[^']|'\\'')*)'\)")
        .expect("valid count regex")
});

/// Whether `line` holds a count line.
pub fn counts(line: &str) -> bool {
    line.contains("tokensieve show ") && COUNT.is_match(line)
}

/// The raw lines as `tokensieve show` numbers them: split after each `\n`,
/// the `\n` itself not part of the line.
pub fn raw_lines(raw: &str) -> Vec<&str> {
    raw.split_inclusive('\n').map(|l| l.strip_suffix('\n').unwrap_or(l)).collect()
}

/// Checks `rendering` against `src`.
pub fn check(rendering: &str, src: &Source) -> Result<(), Breach> {
    if src.ledger.is_empty() {
        return Ok(());
    }
    let mut covered: HashSet<usize> = HashSet::new();
    let mut false_counts = Vec::new();
    for c in COUNT.captures_iter(rendering) {
        let said: usize = c[1].parse().unwrap_or(usize::MAX);
        let pattern = c[3].replace("'\\''", "'");
        let hits = match (src.id, Regex::new(&pattern)) {
            (Some(id), Ok(re)) if id == &c[2] => grep(&src.raw, &re),
            _ => {
                false_counts.push(c[0].to_string());
                continue;
            }
        };
        if hits.len() != said {
            false_counts.push(format!("{} (prints {})", &c[0], hits.len()));
            continue;
        }
        covered.extend(hits);
    }
    let shown: HashSet<&str> = rendering.lines().map(str::trim_end).collect();
    let present = |line: &str| shown.contains(line) || rendering.contains(line);
    let unseen: Vec<usize> = src
        .ledger
        .entries
        .iter()
        .map(|e| e.line)
        .filter(|&i| {
            let needle = src.cleaned.get(i).map_or("", |l| l.trim_end());
            !(needle.trim_start().is_empty() || covered.contains(&i) || present(needle))
        })
        .collect();
    let missing = without_shown_copies(src, unseen, &present);
    if missing.is_empty() && false_counts.is_empty() { Ok(()) } else { Err(Breach { missing, false_counts }) }
}

/// `unseen` less the lines another line of the output with the same text
/// (indentation aside) shows: one in the rendering as printed there. A
/// recap that repeats a failure indented anew (node's `✖ failing tests:`)
/// is shown by its first copy; a line shown without its indentation
/// matches no line as printed. One pass over the output.
fn without_shown_copies(src: &Source, unseen: Vec<usize>, present: &dyn Fn(&str) -> bool) -> Vec<usize> {
    if unseen.is_empty() {
        return unseen;
    }
    let texts: HashSet<&str> = unseen.iter().filter_map(|&i| src.cleaned.get(i)).map(|l| l.trim()).collect();
    let mut shown_texts: HashSet<&str> = HashSet::new();
    for l in &src.cleaned {
        let t = l.trim();
        if texts.contains(t) && !shown_texts.contains(t) && present(l.trim_end()) {
            shown_texts.insert(t);
        }
    }
    unseen
        .into_iter()
        .filter(|&i| !src.cleaned.get(i).is_some_and(|l| shown_texts.contains(l.trim())))
        .collect()
}

/// The 0-based lines of `raw` that `re` matches.
fn grep(raw: &[&str], re: &Regex) -> Vec<usize> {
    raw.iter().enumerate().filter(|(_, l)| re.is_match(l)).map(|(i, _)| i).collect()
}

/// A count line's command part for `targets` (0-based raw lines) through
/// `pattern`, or `None` when the raw output is not stored or the pattern
/// misses one of them (the caller then shows the lines themselves).
pub fn count_line(src: &Source, pattern: &str, targets: &[usize]) -> Option<String> {
    let id = src.id?;
    let re = Regex::new(pattern).ok()?;
    let hits = grep(&src.raw, &re);
    if !targets.iter().all(|t| hits.binary_search(t).is_ok()) {
        return None;
    }
    Some(format!("({} lines: tokensieve show {id} --grep {})", hits.len(), shell_quote(pattern)))
}

/// `s` in single quotes for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A pattern that matches `line` and the lines that differ from it only in
/// numbers and hex ids (the generic fold's notion of "similar"): its literal
/// parts escaped, each number a `\w+`. Leading indentation is left out, and
/// so is everything past 80 chars of the line.
pub fn similar_pattern(line: &str) -> String {
    similar_pattern_within(line, 80)
}

/// `similar_pattern` of the line's first `max` literal chars: shorter,
/// and matching more lines (a view's count of the signal lines it cannot
/// show names them by their starts).
pub fn similar_pattern_within(line: &str, max: usize) -> String {
    let body = line.trim();
    // the literal parts between the numbers (a `#` the line prints is one
    // of them: redis's `# WARNING`, go's `# pkg`)
    let mut literals = Vec::new();
    let mut copied = 0;
    for (start, end) in crate::values::slots(body) {
        literals.push(&body[copied..start]);
        copied = end;
    }
    literals.push(&body[copied..]);
    let mut out = String::new();
    let mut used = 0;
    for (k, literal) in literals.into_iter().enumerate() {
        if k > 0 {
            out.push_str(r"\w+");
        }
        let take: String = literal.chars().take(max.saturating_sub(used)).collect();
        used += take.chars().count();
        out.push_str(&regex::escape(&take));
        if used >= max {
            break;
        }
    }
    out
}

/// A text with its ledger, for tests that need a `Source` (stored as `abc123`).
#[cfg(test)]
pub(crate) struct Owned {
    text: String,
    ledger: Ledger,
}

#[cfg(test)]
impl Owned {
    pub fn new(text: &str) -> Owned {
        Owned { text: text.to_string(), ledger: crate::text::ledger::scan(text.split('\n')) }
    }

    pub fn src(&self) -> Source<'_> {
        Source {
            raw: raw_lines(&self.text),
            cleaned: self.text.split('\n').collect(),
            ledger: &self.ledger,
            id: Some("abc123"),
            budget: None,
            focus: None,
            excerpt: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::ledger;

    fn source<'a>(raw: &'a str, ledger: &'a Ledger) -> Source<'a> {
        Source {
            raw: raw_lines(raw),
            cleaned: raw.split('\n').collect(),
            ledger,
            id: Some("abc123"),
            budget: None,
            focus: None,
            excerpt: None,
        }
    }

    #[test]
    fn verbatim_lines_pass_and_lost_lines_fail() {
        let raw = "building\nsrc/a.c:3:5: error: expected ';'\nmore\n";
        let l = ledger::scan(raw.split('\n'));
        let src = source(raw, &l);
        assert_eq!(check("  src/a.c:3:5: error: expected ';'\nexit 1\n", &src), Ok(()));
        let lost = check("building\nexit 1\n", &src).unwrap_err();
        assert_eq!(lost.missing, vec![1]);
        assert!(lost.describe(&src).contains("L2 \"src/a.c:3:5: error"), "{}", lost.describe(&src));
    }

    #[test]
    fn a_kept_line_keeps_its_indentation() {
        let raw = "TypeError: boom  \n    at run (/app/src/job.js:9:5)\n\tat com.acme.A.b(A.java:3)\n";
        let l = ledger::scan(raw.split('\n'));
        let src = source(raw, &l);
        assert_eq!(l.len(), 3, "{l:?}");
        // verbatim (trailing blanks aside), or inside a longer line of ours
        assert_eq!(
            check("TypeError: boom\n    at run (/app/src/job.js:9:5)\n\tat com.acme.A.b(A.java:3)\n", &src),
            Ok(())
        );
        assert_eq!(
            check("TypeError: boom\n>    at run (/app/src/job.js:9:5)\n\tat com.acme.A.b(A.java:3)\n", &src),
            Ok(())
        );
        // the same words without their indentation were rephrased
        let stripped =
            check("TypeError: boom\nat run (/app/src/job.js:9:5)\n  at com.acme.A.b(A.java:3)\n", &src)
                .unwrap_err();
        assert_eq!(stripped.missing, vec![1, 2]);
    }

    #[test]
    fn a_repeat_is_shown_by_its_first_copy_as_printed() {
        // node's `✖ failing tests:` recap repeats a failure indented anew
        let raw = "✖ adds (1ms)\n  AssertionError: 1 !== 2\n\n✖ failing tests:\n  ✖ adds (1ms)\n    AssertionError: 1 !== 2\n";
        let l = ledger::scan(raw.split('\n'));
        let src = source(raw, &l);
        assert_eq!(
            check("✖ adds (1ms)\n  AssertionError: 1 !== 2\n✖ failing tests:\n(2 lines repeated)\n", &src),
            Ok(())
        );
        // a copy rephrased (indentation dropped) shows neither
        let lost = check("✖ adds (1ms)\nAssertionError: 1 !== 2\n✖ failing tests:\n", &src).unwrap_err();
        assert_eq!(lost.missing, vec![1, 5]);
    }

    #[test]
    fn a_similar_pattern_matches_its_own_line() {
        for line in [
            "22734:M 26 Nov 2026 23:26:30.895 # WARNING Memory overcommit must be enabled!",
            "# example.com/ledger/export",
            "\"order-worker-13\" #13 prio=5 os_prio=0 cpu=0.33ms",
        ] {
            let re = Regex::new(&similar_pattern(line)).unwrap();
            assert!(re.is_match(line), "{line}: {re}");
        }
    }

    #[test]
    fn count_lines_are_run_and_must_be_exact() {
        let raw: String = (0..5).map(|i| format!("12:00:0{i} ERROR worker {i} died\n")).collect();
        let l = ledger::scan(raw.split('\n'));
        let src = source(&raw, &l);
        let pattern = similar_pattern("12:00:00 ERROR worker 0 died");
        let line = count_line(&src, &pattern, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(line, r"(5 lines: tokensieve show abc123 --grep '\w+:\w+:\w+ ERROR worker \w+ died')");
        assert_eq!(check(&format!("12:00:00 ERROR worker 0 died {line}\n"), &src), Ok(()));
        // a wrong count, a wrong id, a pattern that misses lines: all fail
        let wrong = line.replace("(5 lines", "(4 lines");
        assert_eq!(check(&wrong, &src).unwrap_err().false_counts.len(), 1);
        let other = line.replace("abc123", "def456");
        assert!(check(&other, &src).is_err());
        let narrow = count_line(&src, "worker 3", &[3]).unwrap();
        assert_eq!(check(&narrow, &src).unwrap_err().missing, vec![0, 1, 2, 4]);
        assert!(count_line(&src, "worker 3", &[2, 3]).is_none());
    }

    #[test]
    fn quotes_survive_the_round_trip() {
        let raw = "x\nERROR can't open 'a b'\n";
        let l = ledger::scan(raw.split('\n'));
        let src = source(raw, &l);
        let line = count_line(&src, "can't open 'a", &[1]).unwrap();
        assert!(line.ends_with(r"--grep 'can'\''t open '\''a')"), "{line}");
        assert_eq!(check(&line, &src), Ok(()));
    }

    #[test]
    fn without_a_stored_raw_nothing_can_be_counted() {
        let raw = "ERROR one\n";
        let l = ledger::scan(raw.split('\n'));
        let src = Source { id: None, ..source(raw, &l) };
        assert!(count_line(&src, "ERROR", &[0]).is_none());
        assert!(check("(1 lines: tokensieve show abc123 --grep 'ERROR')", &src).is_err());
    }

    #[test]
    fn raw_lines_number_like_show() {
        assert_eq!(raw_lines("a\nb\r\n\nc"), vec!["a", "b\r", "", "c"]);
        assert_eq!(raw_lines("a\n"), vec!["a"]);
    }
}
