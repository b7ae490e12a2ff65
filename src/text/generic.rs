//! The generic text treatment, for any output no tool filter claims.
//!
//! 1. Fold: a run of identical lines becomes `line (×N)`; a run of 3+ lines
//!    that differ only in numbers, timestamps, hex ids becomes
//!    `first line (×N similar)`. Signal lines (error/warn/fail/exception/
//!    panic/traceback keywords, HTTP 4xx/5xx) only fold with their own kind.
//! 2. If the folded text is still above `settings.text_threshold` chars, a
//!    summary replaces it: counts, where the raw bytes are, head preview,
//!    every buried signal line (by line number, with context), the most
//!    common line shapes, tail preview.

use std::collections::HashMap;

use aho_corasick::AhoCorasick;
use once_cell::sync::Lazy;
use regex::Regex;

use crate::pipeline::Settings;

const HEAD: usize = 5;
const TAIL: usize = 10;
/// Preview and signal lines longer than this are cut (minified JSON, base64).
const MAX_LINE: usize = 300;
/// At most this many distinct signal-line shapes in a summary.
const MAX_SIGNALS: usize = 40;

// Whole words only: `libgpg-error-dev` or `error_count` are not errors, a
// CamelCase `ValueError` is.
static KEYWORD: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"(?i:(?:^|[^\w-])(?:error|errors|err|warn|warning|warnings|fail|fails|failed|failing|failure|failures|fatal|",
        r"exception|exceptions|panic|panicked|traceback|critical)(?:$|[^\w-]))|[a-z](?:Error|Exception)\b"
    ))
    .expect("valid keyword regex")
});
static HTTP_ERROR: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#"(?i)(?:HTTP/\d(?:\.\d)?"?\s+|\bstatus(?:[ _]?code)?["']?[=: ]+|\bcode[=: ]+)[45]\d\d\b"#)
        .expect("valid http status regex")
});
const KEYWORDS: &[&str] = &["error", "warn", "fail", "exception", "panic", "traceback"];

/// Every match of KEYWORD or HTTP_ERROR contains one of these, ASCII case
/// aside (`traceb` and `tatu` stop short of the `k` and `s` that `(?i)` also
/// matches as the Kelvin sign and the long s). Most lines of a log contain
/// none, and this one SIMD scan rejects them before the two regexes run.
static SIGNAL_STEMS: Lazy<AhoCorasick> = Lazy::new(|| {
    let stems =
        ["err", "warn", "fail", "fatal", "exception", "panic", "traceb", "critical", "http/", "tatu", "code"];
    AhoCorasick::builder().ascii_case_insensitive(true).build(stems).expect("valid stems")
});

/// A caret/tilde-only line (`   ^^^^`): it points at columns of the line
/// above, noise once lines are folded. (`str::trim` and the regex `\s` agree
/// on what whitespace is: Unicode White_Space.)
fn is_marker(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 2 && t.bytes().all(|b| b == b'^' || b == b'~')
}

/// The line with every number and hex id replaced by `#`: each maximal run
/// of ASCII hex digits that holds a decimal digit, a `0x` prefix included
/// (what `0[xX][0-9a-fA-F]+|[0-9a-fA-F]*[0-9][0-9a-fA-F]*` replaces, without
/// a regex search per log line).
pub fn shape(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        if !b[i].is_ascii_hexdigit() {
            i += 1;
            continue;
        }
        let start = i;
        let hex_prefix = b[i] == b'0'
            && matches!(b.get(i + 1), Some(b'x' | b'X'))
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if hex_prefix {
            i += 2;
        }
        let mut digit = hex_prefix;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            digit |= b[i].is_ascii_digit();
            i += 1;
        }
        if digit {
            // Runs start and end at ASCII bytes: char boundaries.
            out.push_str(&line[copied..start]);
            out.push('#');
            copied = i;
        }
    }
    out.push_str(&line[copied..]);
    out
}

/// A line an agent must see even when everything around it is folded away.
pub fn is_signal(line: &str) -> bool {
    SIGNAL_STEMS.is_match(line) && (KEYWORD.is_match(line) || HTTP_ERROR.is_match(line))
}

/// One folded run of lines.
#[derive(Debug)]
struct Run<'a> {
    /// Index of the first line of the run.
    first: usize,
    text: &'a str,
    /// The second line, shown when a similar run has only two lines.
    second: Option<&'a str>,
    count: usize,
    identical: bool,
    shape: String,
    signal: bool,
}

fn fold<'a>(lines: &[&'a str]) -> Vec<Run<'a>> {
    let mut runs: Vec<Run<'a>> = Vec::new();
    for (i, &line) in lines.iter().enumerate() {
        if let Some(last) = runs.last_mut()
            && line == last.text
            && last.identical
        {
            last.count += 1;
            continue;
        }
        let signal = is_signal(line);
        let s = shape(line);
        if let Some(last) = runs.last_mut()
            && !line.trim().is_empty()
            && signal == last.signal
            && s == last.shape
        {
            last.count += 1;
            last.identical = false;
            last.second.get_or_insert(line);
            continue;
        }
        runs.push(Run { first: i, text: line, second: None, count: 1, identical: true, shape: s, signal });
    }
    runs
}

fn cut(line: &str) -> String {
    let chars = line.chars().count();
    if chars <= MAX_LINE {
        return line.to_string();
    }
    let head: String = line.chars().take(MAX_LINE).collect();
    format!("{head}… (+{} chars)", chars - MAX_LINE)
}

fn render_run(run: &Run, out: &mut Vec<String>, shorten: bool) {
    let show = |l: &str| if shorten { cut(l) } else { l.to_string() };
    let text = show(run.text);
    if run.count == 1 || (run.identical && run.text.trim().is_empty()) {
        out.push(text);
    } else if run.identical {
        out.push(format!("{text} (×{})", run.count));
    } else if run.count == 2 {
        out.push(text);
        let second = run.second.unwrap_or_default();
        out.push(show(second));
    } else {
        out.push(format!("{text} (×{} similar)", run.count));
    }
}

/// The generic rendering of cleaned text; `None` when it would change nothing.
pub fn render(text: &str, exit_code: i32, settings: &Settings) -> Option<String> {
    // caret/tilde-only lines point at columns of the line above: noise here
    let lines: Vec<&str> = text.lines().filter(|l| !is_marker(l)).collect();
    let runs = fold(&lines);
    let mut folded = Vec::new();
    for run in &runs {
        render_run(run, &mut folded, false);
    }
    let mut body = folded.join("\n");
    body.push('\n');
    let large = text.len() > settings.text_threshold;
    if body.len() > settings.text_threshold {
        body = summary(&lines, &runs, text.len(), settings);
    } else if runs.len() == lines.len() && lines.len() == text.lines().count() && exit_code == 0 {
        return None;
    }
    if exit_code != 0 {
        body.push_str(&format!("exit {exit_code}\n"));
    }
    if large && let Some(note) = &settings.raw_note {
        body.push_str(note.trim_end());
        body.push('\n');
    }
    Some(body)
}

/// Lines per keyword (and HTTP 4xx/5xx), counted per folded run: a run's
/// lines differ only in numbers, so they carry the same words.
fn keyword_counts(runs: &[Run]) -> String {
    let mut counts = [0usize; KEYWORDS.len()];
    let mut http = 0usize;
    for run in runs.iter().filter(|r| r.signal) {
        let found: String = KEYWORD.find_iter(run.text).map(|m| m.as_str().to_ascii_lowercase()).collect();
        for (k, word) in KEYWORDS.iter().enumerate() {
            if found.contains(word) {
                counts[k] += run.count;
            }
        }
        if HTTP_ERROR.is_match(run.text) {
            http += run.count;
        }
    }
    let mut parts: Vec<String> =
        KEYWORDS.iter().zip(counts).filter(|(_, n)| *n > 0).map(|(w, n)| format!("{w} {n}")).collect();
    if http > 0 {
        parts.push(format!("HTTP 4xx/5xx {http}"));
    }
    if parts.is_empty() { "none".to_string() } else { parts.join(", ") }
}

fn summary(lines: &[&str], runs: &[Run], chars: usize, settings: &Settings) -> String {
    let mut out = Vec::new();
    // An excerpt's counts are the whole output's (its keyword counts are
    // the excerpt's own).
    let (total_lines, total_chars) =
        settings.excerpt.as_ref().map_or((lines.len(), chars as u64), |e| (e.lines, e.chars));
    out.push(format!("{total_lines} lines, {total_chars} chars; keyword lines: {}", keyword_counts(runs)));

    let head_runs = runs.len().min(HEAD);
    let tail_start = runs.len().saturating_sub(TAIL).max(head_runs);
    let shown_until = runs.get(head_runs).map_or(lines.len(), |r| r.first);
    let tail_from = runs.get(tail_start).map_or(lines.len(), |r| r.first);

    out.push("head:".into());
    for run in &runs[..head_runs] {
        render_run(run, &mut out, true);
    }

    // Signal lines buried between head and tail, one per shape, with context.
    // A run's lines share its shape and signal-ness, so runs are enough.
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut picked: Vec<usize> = Vec::new();
    let mut dropped = 0usize;
    for run in runs.iter().filter(|r| r.signal && r.first >= shown_until && r.first < tail_from) {
        if let Some(n) = seen.get_mut(run.shape.as_str()) {
            *n += run.count;
            continue;
        }
        if seen.len() >= MAX_SIGNALS {
            dropped += run.count;
            continue;
        }
        seen.insert(&run.shape, run.count);
        picked.push(run.first);
    }
    if !picked.is_empty() {
        out.push(format!(
            "signal lines ({} shown of {}):",
            picked.len(),
            picked.len() + dropped + repeats(&seen)
        ));
        let mut last_printed: Option<usize> = None;
        for &i in &picked {
            let from = i.saturating_sub(1).max(shown_until);
            let to = (i + 1).min(tail_from.saturating_sub(1));
            for (j, line) in lines.iter().enumerate().take(to + 1).skip(from) {
                if last_printed.is_some_and(|p| j <= p) {
                    continue;
                }
                // lines skipped in between (an excerpt skips some itself)
                let apart = |a: usize| settings.line_number(j) > settings.line_number(a) + 1;
                let skipped = match last_printed {
                    Some(p) => apart(p),
                    None => shown_until.checked_sub(1).map_or(j > 0, apart),
                };
                if skipped {
                    out.push("…".into());
                }
                let n =
                    if is_signal(line) { seen.get(shape(line).as_str()).copied().unwrap_or(1) } else { 1 };
                let more = if n > 1 { format!(" (×{n} similar in all)") } else { String::new() };
                out.push(format!("L{}: {}{more}", settings.line_number(j), cut(line)));
                last_printed = Some(j);
            }
        }
    }

    // What the bulk of the output looks like.
    let mut shapes: HashMap<&str, (usize, usize)> = HashMap::new();
    for run in runs.iter().filter(|r| !r.signal && !r.text.trim().is_empty()) {
        shapes.entry(&run.shape).or_insert((0, run.first)).0 += run.count;
    }
    let mut common: Vec<(usize, usize)> = shapes.into_values().filter(|(n, _)| *n >= 10).collect();
    common.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    if !common.is_empty() {
        out.push("most common lines:".into());
        for (n, i) in common.into_iter().take(5) {
            out.push(format!("{n}× {}", cut(lines[i])));
        }
    }

    out.push("tail:".into());
    if tail_start > head_runs {
        for run in &runs[tail_start..] {
            render_run(run, &mut out, true);
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

fn repeats(seen: &HashMap<&str, usize>) -> usize {
    seen.values().map(|n| n - 1).sum()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// The rule `shape` implements, as the regex it replaced.
    static VARIABLE: Lazy<Regex> =
        Lazy::new(|| Regex::new(r"0[xX][0-9a-fA-F]+|[0-9a-fA-F]*[0-9][0-9a-fA-F]*").unwrap());

    /// Lines made of the characters that matter to `shape` and `is_signal`.
    fn log_line() -> impl Strategy<Value = String> {
        let atoms = prop::sample::select(vec![
            "0",
            "7",
            "0x",
            "0X1f",
            "x",
            "ab",
            "DEAD",
            "g",
            " ",
            "-",
            "_",
            ":",
            "/",
            ".",
            "\"",
            "'",
            "=",
            "error",
            "Errors",
            "WARN",
            "failed",
            "fatal",
            "Exception",
            "ValueError",
            "panicked",
            "Traceback",
            "critical",
            "HTTP/1.1\" ",
            "status=",
            "status_code: ",
            "code=",
            "404",
            "503",
            "200",
            "é",
            "٣",
            "\u{212a}",
            "\u{17f}",
            "ſtatus: 500",
            "PANIC",
            "err_count",
            "libgpg-error",
            "^",
            "~",
            "\t",
            "\u{a0}",
            "\u{2003}",
        ]);
        prop::collection::vec(atoms, 0..24).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn shape_is_the_variable_regex(line in log_line()) {
            prop_assert_eq!(shape(&line), VARIABLE.replace_all(&line, "#").into_owned());
        }

        #[test]
        fn markers_are_the_marker_regex(line in prop::collection::vec(
            prop::sample::select(vec![" ", "\t", "\u{a0}", "\u{2003}", "\u{85}", "^", "~", "x", "é"]), 0..8,
        ).prop_map(|v| v.concat())) {
            let regex = Regex::new(r"^\s*[\^~]{2,}\s*$").unwrap();
            prop_assert_eq!(is_marker(&line), regex.is_match(&line));
        }

        #[test]
        fn the_stem_prefilter_never_hides_a_signal(line in log_line()) {
            let by_regex = KEYWORD.is_match(&line) || HTTP_ERROR.is_match(&line);
            prop_assert_eq!(is_signal(&line), by_regex);
        }
    }

    use super::*;

    fn settings(threshold: usize) -> Settings {
        Settings { text_threshold: threshold, ..Settings::default() }
    }

    #[test]
    fn identical_runs_collapse_with_count() {
        let text = format!("start\n{}end\n", "same\n".repeat(47));
        let out = render(&text, 0, &settings(4000)).unwrap();
        assert_eq!(out, "start\nsame (×47)\nend\n");
    }

    #[test]
    fn lines_differing_in_numbers_fold() {
        let text: String =
            (0..20).map(|i| format!("12:00:{i:02} worker {i} processed batch 0x{i:08x}\n")).collect();
        let out = render(&text, 0, &settings(4000)).unwrap();
        assert_eq!(out, "12:00:00 worker 0 processed batch 0x00000000 (×20 similar)\n");
    }

    #[test]
    fn two_similar_lines_stay() {
        let out = render("step 1 done\nstep 2 done\nfinal line\n", 3, &settings(4000)).unwrap();
        assert_eq!(out, "step 1 done\nstep 2 done\nfinal line\nexit 3\n");
    }

    #[test]
    fn signal_lines_do_not_fold_into_noise() {
        let mut text = String::new();
        for i in 0..10 {
            text.push_str(&format!("GET /a/{i} HTTP/1.1\" 200 -\n"));
        }
        text.push_str("GET /a/99 HTTP/1.1\" 404 -\n");
        let out = render(&text, 0, &settings(4000)).unwrap();
        assert!(out.contains("GET /a/99 HTTP/1.1\" 404 -"), "{out}");
        assert!(out.contains("(×10 similar)"), "{out}");
    }

    #[test]
    fn caret_lines_go() {
        let out =
            render("x = compute(a, b)\n    ^^^^^^^\nTypeError: bad operand\n", 1, &settings(4000)).unwrap();
        assert_eq!(out, "x = compute(a, b)\nTypeError: bad operand\nexit 1\n");
    }

    #[test]
    fn unchanged_text_declines() {
        assert!(render("alpha\nbeta\ngamma\n", 0, &settings(4000)).is_none());
    }

    #[test]
    fn large_output_gets_summary_with_buried_signal_and_note() {
        let mut text = String::new();
        let (who, what) =
            (["alice", "bob", "carol", "dave", "erin"], ["reads", "writes", "deletes", "moves"]);
        for i in 0..2000 {
            text.push_str(&format!("{} {} file {i} in the shared folder\n", who[i % 5], what[i % 4]));
            if i == 1234 {
                text.push_str("Traceback: something exploded at stage 4\n");
            }
        }
        let s = Settings { raw_note: Some("raw: abc123 (tokensieve show abc123)".into()), ..settings(4000) };
        let out = render(&text, 1, &s).unwrap();
        assert!(out.starts_with("2001 lines"), "{out}");
        assert!(out.contains("L1236: Traceback: something exploded at stage 4"), "{out}");
        assert!(out.contains("most common lines:\n100× alice reads file 0 in the shared folder"), "{out}");
        assert!(out.contains("exit 1\nraw: abc123"), "{out}");
        assert!(out.contains("keyword lines: traceback 1"), "{out}");
        assert!(out.len() < 3000, "{}", out.len());
    }

    #[test]
    fn keywords_are_whole_words() {
        assert!(is_signal("ERROR: disk full"));
        assert!(is_signal("ValueError: bad pct"));
        assert!(is_signal("2 tests failed"));
        assert!(!is_signal("install libgpg-error-dev:amd64 1.46-1"));
        assert!(!is_signal("error_count=0 liberror-perl"));
    }

    #[test]
    fn http_statuses_are_signal() {
        assert!(is_signal(r#"127.0.0.1 - - [x] "GET /.env HTTP/1.1" 404 -"#));
        assert!(is_signal("code 501, message Unsupported method"));
        assert!(!is_signal(r#"127.0.0.1 - - [x] "GET /a HTTP/1.1" 200 -"#));
        assert!(!is_signal("processed 404 items"));
    }
}
