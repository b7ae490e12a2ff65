//! The generic text treatment, for any output no tool filter claims (or
//! whose filter declined or failed the guard).
//!
//! - A document (`kind`) passes whole: only runs of 3+ identical lines fold,
//!   as `line (×N)`.
//! - A log, or an output that is mostly a stack trace, is folded: identical
//!   runs become `line (×N)`; runs of 3+ lines that differ only in numbers
//!   and hex ids keep every distinguishing value in place
//!   (`app.py:11,14,17:1: moved … (×3 similar)`), the last line after them
//!   as printed (the state the run ended in), where one or two places vary
//!   outside times and durations. A run where more vary is cut into pieces
//!   where at most two do (a piece of one or two lines stays as printed); when that
//!   leaves mostly single lines (each line its own id and duration) worth
//!   hiding, the run reads `first line (×N similar: tokensieve show ID
//!   --lines A:B)` and its last line as printed. A fold never drops a value
//!   it stands for, nor shows a line twice. Signal lines of the ledger fold only with identical lines;
//!   keyword lines (error/warn/fail/exception/panic/traceback words, HTTP
//!   4xx/5xx) only with their own kind. Stack traces are blocks (`blocks`):
//!   shown whole, library frames counted.
//! - A log still above `settings.text_threshold` chars gets the summary
//!   (`summary`): head and tail, every signal line between them, the most
//!   common lines.

use aho_corasick::AhoCorasick;
use once_cell::sync::Lazy;
use regex::Regex;

use crate::settings::Settings;
use crate::text::blocks::{self, Block};
use crate::text::guard::{self, Source};
use crate::text::kind::{self, Asked, Kind};
use crate::text::paragraphs;
use crate::text::report;
use crate::text::summary;
use crate::values::{shape, slots};

/// Lines shown in a summary longer than this are cut (minified JSON,
/// base64), signal lines excepted.
const MAX_LINE: usize = 300;
/// A summary lists at most this many values of one folded place.
const MAX_VALUES: usize = 12;
/// A document folds only runs of at least this many identical lines.
const DOC_REPEAT: usize = 3;

// Whole words only: `libgpg-error-dev` or `error_count` are not errors, a
// CamelCase `ValueError` is. A deadlock is a problem in any log (issue 26
// rule 5: PostgreSQL's `process N detected deadlock` is a `LOG:` line), and
// so are nginx's `[crit]`, `[alert]`, `[emerg]` (as levels only: an alert
// in prose is not one).
static KEYWORD: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"(?i:(?:^|[^\w-])(?:error|errors|err|warn|warning|warnings|fail|fails|failed|failing|failure|failures|fatal|",
        r"exception|exceptions|panic|panicked|traceback|critical|deadlock|deadlocked)(?:$|[^\w-]))|[a-z](?:Error|Exception)\b|",
        // the levels above error of nginx and syslog-style JSON logs
        r#"(?i:\[(?:crit|alert|emerg)\]|\blevel"?[=:] ?"?(?:crit|alert|emerg)\b)"#
    ))
    .expect("valid keyword regex")
});
static HTTP_ERROR: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r#"(?i)(?:HTTP/\d(?:\.\d)?"?\s+|\bstatus(?:[ _]?code)?["']?[=: ]+|\bcode[=: ]+)[45]\d\d\b"#)
        .expect("valid http status regex")
});
pub(crate) const KEYWORDS: &[&str] = &["error", "warn", "fail", "exception", "panic", "traceback"];

/// Every match of KEYWORD or HTTP_ERROR contains one of these, ASCII case
/// aside (`traceb` and `tatu` stop short of the `k` and `s` that `(?i)` also
/// matches as the Kelvin sign and the long s). Most lines of a log contain
/// none, and this one SIMD scan rejects them before the two regexes run.
static SIGNAL_STEMS: Lazy<AhoCorasick> = Lazy::new(|| {
    let stems = [
        "err",
        "warn",
        "fail",
        "fatal",
        "exception",
        "panic",
        "traceb",
        "crit",
        "alert",
        "emerg",
        "deadlock",
        "http/",
        "tatu",
        "code",
    ];
    AhoCorasick::builder().ascii_case_insensitive(true).build(stems).expect("valid stems")
});

/// Times, dates, durations and percentages: the places of a folded run
/// whose values are its clock, not what tells its lines apart.
static CLOCK: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"\d{4}-\d\d-\d\d(?:(?:T| {1,2})\d?\d:\d\d(?::\d\d)?(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?|\d\d?:\d\d:\d\d(?:[.,]\d+)?|",
        r"\d\d?/\w{3}/\d{4}:\d\d:\d\d:\d\d|\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds)\b|\d+(?:\.\d+)?%"
    ))
    .expect("valid clock regex")
});

/// A caret/tilde-only line (`   ^^^^`): it points at columns of the line
/// above, noise once lines are folded. (`str::trim` and the regex `\s` agree
/// on what whitespace is: Unicode White_Space.)
fn is_marker(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 2 && t.bytes().all(|b| b == b'^' || b == b'~')
}

/// A line with a problem word in it: kept out of folds with other lines.
pub fn is_signal(line: &str) -> bool {
    SIGNAL_STEMS.is_match(line) && (KEYWORD.is_match(line) || HTTP_ERROR.is_match(line))
}

/// Lines per keyword and HTTP 4xx/5xx, over runs of lines.
pub(crate) fn keyword_counts<'a>(runs: impl Iterator<Item = (&'a str, usize)>) -> String {
    let mut counts = [0usize; KEYWORDS.len()];
    let mut http = 0usize;
    for (text, n) in runs {
        if !is_signal(text) {
            continue;
        }
        let found: String = KEYWORD.find_iter(text).map(|m| m.as_str().to_ascii_lowercase()).collect();
        for (k, word) in KEYWORDS.iter().enumerate() {
            if found.contains(word) {
                counts[k] += n;
            }
        }
        if HTTP_ERROR.is_match(text) {
            http += n;
        }
    }
    let mut parts: Vec<String> =
        KEYWORDS.iter().zip(counts).filter(|(_, n)| *n > 0).map(|(w, n)| format!("{w} {n}")).collect();
    if http > 0 {
        parts.push(format!("HTTP 4xx/5xx {http}"));
    }
    if parts.is_empty() { "none".to_string() } else { parts.join(", ") }
}

/// A run of folded lines: identical ones, or ones of one shape.
#[derive(Debug)]
pub(crate) struct Run {
    /// The lines of the run (0-based indices).
    pub members: Vec<usize>,
    pub identical: bool,
    pub shape: String,
    /// Has a problem word (`is_signal`).
    pub keyword: bool,
    /// Is a signal line of the ledger.
    pub ledger: bool,
    /// Names a place (`lines::places::is_finding`): shown as printed, never
    /// folded with lines that differ from it.
    pub finding: bool,
}

impl Run {
    pub fn first(&self) -> usize {
        self.members[0]
    }
}

/// What a folded output is made of.
#[derive(Debug)]
pub(crate) enum Item<'b> {
    Run(Run),
    Block(&'b Block),
}

/// Folds `lines` into runs, with each of `blocks` as one item.
pub(crate) fn fold<'b>(src: &Source, blocks: &'b [Block]) -> Vec<Item<'b>> {
    let lines = &src.cleaned;
    let mut items: Vec<Item<'b>> = Vec::new();
    let mut next_block = blocks.iter().peekable();
    let mut i = 0;
    while i < lines.len() {
        if let Some(b) = next_block.next_if(|b| b.start == i) {
            items.push(Item::Block(b));
            i = b.end;
            continue;
        }
        let line = lines[i];
        if is_marker(line) {
            i += 1;
            continue;
        }
        if let Some(Item::Run(last)) = items.last_mut()
            && last.identical
            && lines[last.first()] == line
        {
            last.members.push(i);
            i += 1;
            continue;
        }
        let ledger = src.ledger.kind(i).is_some();
        let keyword = is_signal(line);
        let finding = crate::lines::places::is_finding(line);
        let s = shape(line);
        if let Some(Item::Run(last)) = items.last_mut()
            && finding == last.finding
            && ledger == last.ledger
            && !line.trim().is_empty()
            && keyword == last.keyword
            && s == last.shape
        {
            last.members.push(i);
            last.identical = false;
            i += 1;
            continue;
        }
        items.push(Item::Run(Run { members: vec![i], identical: true, shape: s, keyword, ledger, finding }));
        i += 1;
    }
    items
}

/// A line cut to `MAX_LINE` chars, saying how much was cut.
pub(crate) fn cut(line: &str) -> String {
    let chars = line.chars().count();
    if chars <= MAX_LINE {
        return line.to_string();
    }
    let head: String = line.chars().take(MAX_LINE).collect();
    format!("{head}… (+{} chars)", chars - MAX_LINE)
}

/// Lines of one shape as one line: the first with each varying place
/// outside the clock replaced by its values in order (`11,14,17`); `None`
/// when no place or more than two vary. `shorten` keeps at most
/// `MAX_VALUES` values a place.
pub(crate) fn values_line(lines: &[&str], shorten: bool) -> Option<String> {
    let first = *lines.first()?;
    let places = slots(first);
    let all: Vec<Vec<(usize, usize)>> = lines.iter().map(|l| slots(l)).collect();
    if all.iter().any(|s| s.len() != places.len()) {
        return None;
    }
    let clock: Vec<(usize, usize)> = CLOCK.find_iter(first).map(|m| (m.start(), m.end())).collect();
    let in_clock = |(a, b): (usize, usize)| clock.iter().any(|&(s, e)| s <= a && b <= e);
    let value = |k: usize, j: usize| &lines[j][all[j][k].0..all[j][k].1];
    let varying: Vec<usize> = (0..places.len())
        .filter(|&k| !in_clock(places[k]) && (1..lines.len()).any(|j| value(k, j) != value(k, 0)))
        .collect();
    if varying.is_empty() || varying.len() > 2 {
        return None;
    }
    let mut out = String::new();
    let mut copied = 0;
    for &k in &varying {
        let mut values: Vec<&str> = Vec::new();
        for j in 0..lines.len() {
            let v = value(k, j);
            if !values.contains(&v) {
                values.push(v);
            }
        }
        let mut list = if shorten && values.len() > MAX_VALUES {
            let more = values.len() - MAX_VALUES;
            values.truncate(MAX_VALUES);
            format!("{},… (+{more} values)", values.join(","))
        } else {
            values.join(",")
        };
        if list.is_empty() {
            list.push('?');
        }
        out.push_str(&first[copied..places[k].0]);
        out.push_str(&list);
        copied = places[k].1;
    }
    out.push_str(&first[copied..]);
    Some(out)
}

/// Below this many chars, a run of similar signal lines is shown whole
/// rather than counted.
const SMALL_SIGNAL_RUN: usize = 240;

/// A run as shown. `shorten` (in a summary) cuts very long lines, signal
/// lines excepted, and keeps at most `MAX_VALUES` values a place; `last`
/// adds the last line of a folded run as printed (the state a run of
/// progress lines ended in). A run of similar signal lines shows its first
/// line, the values that tell the others apart and the command that prints
/// them all, or every line when no such command can be given.
pub(crate) fn render_run(run: &Run, src: &Source, out: &mut Vec<String>, shorten: bool, last: bool) {
    let lines = &src.cleaned;
    let show = |l: &str| if shorten && !run.ledger { cut(l) } else { l.to_string() };
    let first = lines[run.first()];
    let n = run.members.len();
    let members: Vec<&str> = run.members.iter().map(|&i| lines[i]).collect();
    // a finding's words are its own: each as printed, never folded
    if run.finding && !run.identical {
        out.extend(members.iter().map(|l| l.to_string()));
        return;
    }
    if n == 1 || (run.identical && first.trim().is_empty()) {
        out.push(show(first));
    } else if run.identical {
        out.push(format!("{} (×{n})", show(first)));
    } else if n == 2 {
        out.push(show(first));
        out.push(show(members[1]));
    } else if run.ledger {
        let rest: usize = members[1..].iter().map(|l| l.len()).sum();
        let count = if rest < SMALL_SIGNAL_RUN {
            None
        } else {
            guard::count_line(src, &guard::similar_pattern(first), &run.members)
        };
        match count {
            Some(count) => {
                out.push(first.to_string());
                let values = values_line(&members, true).map(|v| format!(": {v}")).unwrap_or_default();
                out.push(format!("… {} more like it{values} {count}", n - 1));
            }
            None => out.extend(members.iter().map(|l| l.to_string())),
        }
    } else if n <= FEW_FILES && names_files(&members) {
        // a few files, each its own name (`img_01.jpg` … `img_05.jpg` of a
        // bucket listing): a name is said whole, never as `img_01,02,03`
        out.extend(members.iter().map(|l| show(l)));
    } else {
        let pieces = listable_pieces(&members);
        let hidden: usize = members[1..n - 1].iter().map(|l| l.len() + 1).sum();
        if pieces.len() == 1 || pieces.iter().all(|&p| p >= 3) || hidden <= FOLD_WORTH {
            let mut at = 0;
            for len in pieces {
                similar_lines(&members[at..at + len], &show, out, shorten, last);
                at += len;
            }
        } else {
            // too many places vary to list: the first line, the command that
            // prints the lines between, the last line as printed
            let (a, b) = (src.line_no(run.first()), src.line_no(run.members[n - 1]));
            let cmd = src.id.map(|id| format!(": tokensieve show {id} --lines {a}:{b}")).unwrap_or_default();
            out.push(format!("{} (×{n} similar{cmd})", show(first)));
            out.push(show(members[n - 1]));
        }
    }
}

/// A run of at most this many lines that each name their own file is shown
/// whole.
const FEW_FILES: usize = 12;

/// Whether each of `lines` ends in a file's name (a last word with an
/// extension or a `/`) and the names differ: a listing's rows.
fn names_files(lines: &[&str]) -> bool {
    fn name(l: &str) -> &str {
        l.split_whitespace().next_back().unwrap_or("")
    }
    let file = |w: &str| {
        w.contains('/')
            || w.rsplit_once('.').is_some_and(|(stem, ext)| {
                !stem.is_empty()
                    && (1..=5).contains(&ext.len())
                    && ext.bytes().all(|b| b.is_ascii_alphanumeric())
                    && ext.bytes().any(|b| b.is_ascii_alphabetic())
            })
    };
    let first = name(lines[0]);
    file(first) && lines.iter().all(|l| file(name(l))) && lines[1..].iter().any(|l| name(l) != first)
}

/// Chars of hidden lines below which a run whose values cannot be listed
/// is shown whole: about what the command that would print them costs.
const FOLD_WORTH: usize = 160;

/// `lines` (one shape) cut into consecutive pieces in which at most two
/// places outside the clock vary (what `values_line` can list); their
/// lengths, in order. One pass: each line's places are found once.
fn listable_pieces(lines: &[&str]) -> Vec<usize> {
    let all: Vec<Vec<(usize, usize)>> = lines.iter().map(|l| slots(l)).collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        let first = lines[start];
        let clock: Vec<(usize, usize)> = CLOCK.find_iter(first).map(|m| (m.start(), m.end())).collect();
        let in_clock = |(a, b): (usize, usize)| clock.iter().any(|&(s, e)| s <= a && b <= e);
        let mut varying: Vec<usize> = Vec::new();
        let mut end = start + 1;
        while end < lines.len() && all[end].len() == all[start].len() {
            let mut grown = varying.clone();
            for (k, (&(a, b), &(c, d))) in all[start].iter().zip(&all[end]).enumerate() {
                if !in_clock((a, b)) && first[a..b] != lines[end][c..d] && !grown.contains(&k) {
                    grown.push(k);
                }
            }
            if grown.len() > 2 {
                break;
            }
            varying = grown;
            end += 1;
        }
        pieces.push(end - start);
        start = end;
    }
    pieces
}

/// A piece of a similar run (`listable_pieces`): one or two lines as
/// printed; more as the first line with every value listed in place and
/// `(×N similar)`. With `last`, the piece's last line follows as printed
/// (the state a run of progress lines ended in) and the values line
/// stands for the lines before it only: no line is shown twice.
fn similar_lines(
    lines: &[&str],
    show: &dyn Fn(&str) -> String,
    out: &mut Vec<String>,
    shorten: bool,
    last: bool,
) {
    let (listed, tail) =
        if last && lines.len() > 1 { lines.split_at(lines.len() - 1) } else { (lines, &[][..]) };
    let n = listed.len();
    match values_line(listed, shorten) {
        _ if n <= 2 => out.extend(listed.iter().map(|l| show(l))),
        Some(v) => out.push(format!("{} (×{n} similar)", show(&v))),
        // only the clock varies
        None => out.push(format!("{} (×{n} similar)", show(listed[0]))),
    }
    out.extend(tail.iter().map(|l| show(l)));
}

/// `last`: see `render_run`.
/// `shown`: the traces rendered before this item (a repeat says so).
pub(crate) fn render_item(
    item: &Item,
    src: &Source,
    out: &mut Vec<String>,
    shown: &mut blocks::Shown,
    shorten: bool,
    last: bool,
) {
    match item {
        Item::Run(r) => render_run(r, src, out, shorten, last),
        Item::Block(b) => out.extend(shown.show(b, src)),
    }
}

/// A document as the agent reads it: whole, runs of `DOC_REPEAT`+
/// identical non-blank lines as `line (×N)`, and each of `blocks` (the
/// stack traces of a program's output that reads as a document) as a block
/// does everywhere: header, user frames and exception lines, library frames
/// counted.
fn document(src: &Source, blocks: &[Block]) -> Vec<String> {
    let lines = &src.cleaned;
    let mut out = Vec::with_capacity(lines.len());
    let mut next_block = blocks.iter().peekable();
    let mut shown = blocks::Shown::default();
    let mut i = 0;
    while i < lines.len() {
        if let Some(b) = next_block.next_if(|b| b.start == i) {
            out.extend(shown.show(b, src));
            i = b.end;
            continue;
        }
        // a run of repeats stops where the next block starts
        let limit = next_block.peek().map_or(lines.len(), |b| b.start);
        let n = lines[i..limit].iter().take_while(|l| **l == lines[i]).count().max(1);
        if n >= DOC_REPEAT && !lines[i].trim().is_empty() {
            out.push(format!("{} (×{n})", lines[i]));
        } else {
            out.extend(lines[i..i + n].iter().map(|l| l.to_string()));
        }
        i += n;
    }
    out
}

/// Whether stack traces make up most of the output (a crash report, not a
/// document).
fn mostly_traces(lines: &[&str], blocks: &[Block]) -> bool {
    let traced: usize = blocks.iter().map(|b| b.end - b.start).sum();
    let body = lines.iter().filter(|l| !l.trim().is_empty()).count();
    traced > 0 && traced * 2 >= body
}

/// The generic rendering of cleaned text (the lines of `src`), without the
/// status line and the raw note (the caller adds those), and whether the
/// text read as a document.
pub fn render(src: &Source, settings: &Settings, asked: Asked) -> (String, Kind) {
    let lines = &src.cleaned;
    let blocks = blocks::find(lines);
    // a program's findings (checkers no filter names) and formatter diffs
    if asked == Asked::Output {
        let found = report::diff(src, settings.text_threshold).or_else(|| report::render(src, &blocks));
        if let Some(text) = found {
            return (text, Kind::Log);
        }
    }
    let kind = if asked != Asked::Document && mostly_traces(lines, &blocks) {
        Kind::Log
    } else {
        kind::classify_asked(lines, asked)
    };
    let body = match kind {
        // what was asked for as a document (help, a file) stays whole
        Kind::Document if asked != Asked::Output => document(src, &[]),
        // a program's output made of many paragraphs of one shape (a
        // thread dump): each shape once, framework frames counted
        Kind::Document => match blocks.is_empty().then(|| paragraphs::render(src)).flatten() {
            Some(folded) => folded,
            None => document(src, &blocks),
        },
        Kind::Log => {
            let items = fold(src, &blocks);
            let mut out = Vec::new();
            let mut shown = blocks::Shown::default();
            for item in &items {
                render_item(item, src, &mut out, &mut shown, false, true);
            }
            let chars: usize = out.iter().map(|l| l.len() + 1).sum();
            if chars > settings.text_threshold {
                return (summary::render(src, &items), Kind::Log);
            }
            out
        }
    };
    let mut text = body.join("\n");
    while text.ends_with('\n') {
        text.pop();
    }
    text.push('\n');
    (text, kind)
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
            "[crit]",
            "[emerg]",
            "[alert",
            "level=",
            "level\":\"",
            "alert",
            "emerg",
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
    use crate::values::{Values, mask, places};

    fn settings(threshold: usize) -> Settings {
        Settings { text_threshold: threshold, ..Settings::default() }
    }

    /// The generic rendering of `text` (already clean), the raw stored as `abc123`.
    fn generic(text: &str, threshold: usize) -> String {
        render(&crate::text::guard::Owned::new(text).src(), &settings(threshold), Asked::Output).0
    }

    #[test]
    fn places_are_numbers_and_quoted_names() {
        let l = "a.py:12: unused variable 'x_1' (100% confidence) don't `y`";
        let got: Vec<&str> = places(l).iter().map(|&(s, e)| &l[s..e]).collect();
        assert_eq!(got, ["12", "'x_1'", "100", "`y`"]);
    }

    #[test]
    fn identical_runs_collapse_with_count() {
        let text = format!("start\n{}end\n", "same\n".repeat(47));
        assert_eq!(generic(&text, 4000), "start\nsame (×47)\nend\n");
    }

    #[test]
    fn similar_lines_keep_what_tells_them_apart() {
        let text: String =
            (0..20).map(|i| format!("12:00:{i:02} worker {} processed batch 0x{i:08x}\n", i % 3)).collect();
        assert_eq!(
            generic(&text, 4000),
            "12:00:00 worker 0,1,2 processed batch 0x00000000,0x00000001,0x00000002,0x00000003,0x00000004,0x00000005,0x00000006,0x00000007,0x00000008,0x00000009,0x0000000a,0x0000000b,0x0000000c,0x0000000d,0x0000000e,0x0000000f,0x00000010,0x00000011,0x00000012 (×19 similar)\n12:00:19 worker 1 processed batch 0x00000013\n"
        );
        // lines that name a place are findings (issue 26): each as printed,
        // never folded with the others, whatever they say
        let moved: String = [11, 14, 17, 20, 23, 26, 29, 31, 40, 52, 60, 77]
            .iter()
            .map(|n| format!("app.py:{n}:1: moved to the new layout\n"))
            .collect();
        let few: String = moved.lines().take(9).map(|l| format!("{l}\n")).collect();
        assert_eq!(generic(&few, 4000), few);
        let lint = few.replace("moved to the new layout", "E302 expected 2 blank lines, found 1");
        assert_eq!(generic(&lint, 4000), lint);
        // past the focus size too: a finding's words are its own
        assert_eq!(generic(&moved, 4000), moved);
        let owned = crate::text::guard::Owned::new(&moved);
        let mut src = owned.src();
        src.focus = Some(50);
        assert_eq!(render(&src, &settings(4000), Asked::Output).0, moved);
        // the same run without a place folds, keeping its values
        let unplaced = moved.replace("app.py:", "step ");
        assert_eq!(
            generic(&unplaced, 4000),
            "step 11,14,17,20,23,26,29,31,40,52,60:1: moved to the new layout (×11 similar)\nstep 77:1: moved to the new layout\n"
        );
        // three places varying: the first and last lines, the command that
        // prints the ones between
        let three: String = (0..14).map(|i| format!("row {i} col {} val {}\n", i * 2, i * 3)).collect();
        assert_eq!(
            generic(&three, 4000),
            "row 0 col 0 val 0 (×14 similar: tokensieve show abc123 --lines 1:14)\nrow 13 col 26 val 39\n"
        );
    }

    #[test]
    fn a_fold_never_drops_a_value_nor_repeats_a_line() {
        // `aws s3 ls --recursive` (awscli 1.46 against moto): keys that
        // differ in a size, a user and a file number
        let mut text = String::from("2026-11-27 02:12:28         30 manifests/2026-04-16.json\n");
        for (u, user) in ["u-1042", "u-2207"].iter().enumerate() {
            for i in 1..=10 {
                let ext = if (i + u) % 4 == 0 { "png" } else { "jpg" };
                let size = 12015 + 7919 * (10 * u + i - 1);
                text.push_str(&format!(
                    "2026-11-27 02:12:2{} {size:>10} originals/{user}/2026/04/img_{i:02}.{ext}\n",
                    7 + (i > 6) as usize
                ));
            }
        }
        for i in 1..=5 {
            text.push_str(&format!(
                "2026-11-27 02:12:28 {:>10} thumbs/128/u-1042/img_{i:02}.jpg\n",
                4065 + 97 * i
            ));
        }
        let out = generic(&text, 4000);
        for key in ["u-1042/2026/04/img_09.jpg", "u-1042/2026/04/img_10.jpg", "u-2207/2026/04/img_01.jpg"] {
            assert!(out.contains(key), "{key} missing:\n{out}");
        }
        // a few files, each its own name: every line as printed, never
        // `img_01,02,03,04.jpg (×4 similar)`
        let thumbs: String = text.lines().skip(21).map(|l| format!("{l}\n")).collect();
        assert!(out.ends_with(&thumbs), "{out}");
        let mut keys: Vec<&str> = out.lines().map(|l| l.split_whitespace().nth(3).unwrap_or(l)).collect();
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n, "a line shown twice:\n{out}");
    }

    #[test]
    fn two_similar_lines_stay() {
        let text = "12:00:01 INFO start\n".repeat(12) + "step 1 done\nstep 2 done\nfinal line\n";
        assert_eq!(generic(&text, 4000), "12:00:01 INFO start (×12)\nstep 1 done\nstep 2 done\nfinal line\n");
    }

    #[test]
    fn signal_lines_do_not_fold_into_noise() {
        let mut text = String::new();
        for i in 0..10 {
            text.push_str(&format!("GET /a/{i} HTTP/1.1\" 200 -\n"));
        }
        text.push_str("GET /a/99 HTTP/1.1\" 404 -\n");
        text.push_str("GET /a/98 HTTP/1.1\" 503 -\n");
        text.push_str("GET /a/97 HTTP/1.1\" 503 -\n");
        let out = generic(&text, 4000);
        assert!(out.contains("GET /a/99 HTTP/1.1\" 404 -"), "{out}");
        assert!(
            out.contains(
                "GET /a/0,1,2,3,4,5,6,7,8 HTTP/1.1\" 200 - (×9 similar)\nGET /a/9 HTTP/1.1\" 200 -\n"
            ),
            "{out}"
        );
        // ledger lines (5xx) never fold, even with each other
        assert!(out.ends_with("GET /a/98 HTTP/1.1\" 503 -\nGET /a/97 HTTP/1.1\" 503 -\n"), "{out}");
    }

    #[test]
    fn caret_lines_go_from_logs_not_from_documents() {
        let log =
            "12:00:01 INFO start\n".repeat(12) + "x = compute(a, b)\n    ^^^^^^^\nTypeError: bad operand\n";
        assert_eq!(
            generic(&log, 4000),
            "12:00:01 INFO start (×12)\nx = compute(a, b)\nTypeError: bad operand\n"
        );
        let doc = "x = compute(a, b)\n    ^^^^^^^\nTypeError: bad operand\n";
        assert_eq!(generic(doc, 4000), doc);
    }

    #[test]
    fn documents_pass_whole() {
        let words =
            ["alpha", "quiet", "river", "stone", "maple", "orbit", "velvet", "cinder", "harbor", "lumen"];
        let doc: String = (0..60)
            .map(|i: usize| {
                let n = 3 + i % 9;
                let line: Vec<&str> = (0..n).map(|k| words[(i * 7 + k * 3 + i / 10) % words.len()]).collect();
                format!("{}.\n", line.join(" "))
            })
            .collect();
        // whole, even far above the threshold
        assert_eq!(generic(&doc, 500), doc);
        let repeats = "intro\n".to_string() + &"=====\n".repeat(5) + "body\n\n\nend\n";
        assert_eq!(generic(&repeats, 4000), "intro\n===== (×5)\nbody\n\n\nend\n");
    }

    #[test]
    fn a_programs_output_read_as_a_document_counts_its_traces_library_frames() {
        let text = "> Task :app:compileJava\n> Task :app:test\nCartTest > adds() PASSED\nCartTest > removes() PASSED\nCartTest > keeps() PASSED\nCartTest > counts() PASSED\nCartTest > totals() FAILED\n    java.lang.AssertionError: expected 3\n        at org.junit.Assert.fail(Assert.java:89)\n        at org.junit.Assert.assertEquals(Assert.java:120)\n        at shop.CartTest.totals(CartTest.java:31)\n3 tests completed, 1 failed\n";
        let owned = crate::text::guard::Owned::new(text);
        let (out, kind) = render(&owned.src(), &Settings::default(), Asked::Output);
        assert_eq!(kind, Kind::Document);
        assert!(
            !out.contains("org.junit.Assert.fail")
                && out.contains("at shop.CartTest.totals(CartTest.java:31)"),
            "{out}"
        );
        // a file read whole keeps every line
        let (out, _) = render(&owned.src(), &Settings::default(), Asked::File);
        assert_eq!(out, text);
    }

    #[test]
    fn large_log_gets_summary_with_buried_signal() {
        let mut text = String::new();
        let (who, what) =
            (["alice", "bob", "carol", "dave", "erin"], ["reads", "writes", "deletes", "moves"]);
        for i in 0..2000 {
            text.push_str(&format!("{} {} file {i} in the shared folder\n", who[i % 5], what[i % 4]));
            if i == 1234 {
                text.push_str("Traceback: something exploded at stage 4\n");
            }
        }
        let out = generic(&text, 4000);
        assert!(out.starts_with("2001 lines"), "{out}");
        assert!(out.contains("L1236: Traceback: something exploded at stage 4"), "{out}");
        assert!(out.contains("most common lines:\n100× alice reads file 0 in the shared folder"), "{out}");
        assert!(out.contains("keyword lines: traceback 1"), "{out}");
        assert!(out.len() < 3000, "{}", out.len());
    }

    /// The last line a program printed before it crashed says where it was
    /// (the row, the request): shown as printed, in the head, the middle
    /// and the tail of a summary alike.
    #[test]
    fn the_line_a_trace_interrupted_is_shown() {
        let trace = "thread 'main' panicked at src/main.rs:4:35:\nbad amount\nstack backtrace:\n   0: tally::main\n             at ./src/main.rs:17:16\n";
        // head: a short program output, folded into few items
        let mut text: String =
            (1..=700).map(|i| format!("[tally] row {i:>4} ok, running total {}\n", i * 3)).collect();
        text.push('\n');
        text.push_str(trace);
        let out = generic(&text, 4000);
        assert!(out.contains("\n[tally] row  700 ok, running total 2100\n"), "{out}");
        // middle: a trace among thousands of lines of several shapes
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(&format!("{} job {i} took {} ms\n", ["fetch", "store", "index"][i % 3], i % 70));
            if i == 1500 {
                text.push_str(trace);
            }
        }
        let out = generic(&text, 4000);
        assert!(out.contains("L1501: fetch job 1500 took 30 ms"), "{out}");
    }

    /// Rule 3 of issue 26: in a summary, what a program printed right after
    /// a stack trace, and the next line of a failed unit's own source, are
    /// shown with them.
    #[test]
    fn a_summary_shows_what_followed_a_trace_and_a_failure() {
        let trace = "Traceback (most recent call last):\n  File \"/srv/app/jobs.py\", line 40, in run\n    step()\nValueError: bad row 17\n";
        let mut text = String::new();
        for i in 0..3000 {
            let what = [
                "thumbd[1190]: resized upload",
                "CRON[1202]: (www-data) CMD run",
                "sshd[880]: closed by user",
            ];
            text.push_str(&format!(
                "Nov 23 08:{:02}:{:02} web01 {} {i} in {} ms\n",
                i / 60 % 60,
                i % 60,
                what[i % 3],
                i % 70
            ));
            if i == 1200 {
                text.push_str(trace);
                text.push_str("Nov 23 08:20:01 web01 thumbd[1190]: giving up on batch 7, 3 rows left\n");
            }
            if i == 2100 {
                text.push_str(
                    "Nov 23 08:35:00 web01 systemd[1]: thumbd.service: Failed with result 'core-dump'.\n",
                );
                text.push_str("Nov 23 08:35:00 web01 systemd[1]: thumbd.service: Scheduled restart job, restart counter is at 1.\n");
            }
        }
        let out = generic(&text, 4000);
        assert!(
            out.contains(
                "ValueError: bad row 17\nL1206: Nov 23 08:20:01 web01 thumbd[1190]: giving up on batch 7"
            ),
            "{out}"
        );
        assert!(out.contains("L2107: Nov 23 08:35:00 web01 systemd[1]: thumbd.service: Failed with result 'core-dump'.\nL2108: Nov 23 08:35:00 web01 systemd[1]: thumbd.service: Scheduled restart job, restart counter is at 1.\n"), "{out}");
    }

    /// A summary's last run shows its last line as printed, though the
    /// output ends with a newline (a blank last line).
    #[test]
    fn a_summary_ends_where_the_output_ended() {
        let mut text: String = ["starting", "config loaded", "pool of 4", "queue open", "first batch", "go"]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect();
        text.extend((0..3000).map(|i| format!("store job {i} took {} ms\n", i % 70)));
        let out = generic(&text, 4000);
        assert!(out.contains("\nstore job 2999 took 59 ms\n"), "{out}");
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
    fn levels_above_error_are_signal() {
        assert!(is_signal("2026/11/27 03:00:01 [emerg] 1201#1201: bind() to 0.0.0.0:80 failed"));
        assert!(is_signal("2026/11/27 03:00:01 [crit] 1201#1201: *7 open() \"/srv/x\" failed"));
        assert!(is_signal(r#"{"level":"alert","msg":"disk 97% full"}"#));
        assert!(!is_signal("an alert was sent to the on-call engineer"));
        assert!(!is_signal("2026/11/27 03:00:01 [notice] 1201#1201: signal process started"));
    }

    #[test]
    fn a_server_logs_lines_share_a_template_whatever_their_fields() {
        let a = "1:M 26 Nov 23:26:31.910 - Client closed connection id=3 addr=127.0.0.1:35070 name= cmd=get user=default";
        let b = "1:M 26 Nov 23:26:32.910 - Client closed connection id=44 addr=127.0.0.1:35071 name= cmd=lpush user=default";
        assert_ne!(shape(a), shape(b));
        assert_eq!(mask(a, Values::Fields), mask(b, Values::Fields));
        assert_eq!(
            mask(a, Values::Fields),
            "#:M # Nov #:#:#.# - Client closed connection id=# addr=# name= cmd=# user=#"
        );
        // quoted names are values of a checker's finding, numbers of any line
        assert_eq!(mask("a.py:12: unused 'x_1' (100%)", Values::Quoted), "a.py:#: unused # (#%)");
        assert_eq!(mask("a.py:12: unused 'x_1' (100%)", Values::Numbers), "a.py:#: unused 'x_#' (#%)");
    }

    /// Rule 5 of issue 26: the bulk of a server's log folds by template,
    /// its `key=value` fields aside, with the count and the words a field
    /// took.
    #[test]
    fn a_server_logs_common_lines_count_by_template() {
        let cmds = ["get", "set", "lpush"];
        let mut text = String::new();
        for i in 0..600 {
            text.push_str(&format!(
                "1:M 26 Nov 23:26:{:02}.{i:03} - Accepted 127.0.0.1:{}
",
                i % 60,
                30000 + i
            ));
            text.push_str(&format!(
                "1:M 26 Nov 23:26:{:02}.{i:03} - Client closed connection id={i} fd={} cmd={} user=default\n",
                i % 60,
                i % 50,
                cmds[i / 200]
            ));
        }
        let out = generic(&text, 4000);
        assert!(
            out.contains("600× 1:M 26 Nov 23:26:00.000 - Client closed connection id=0 fd=0 cmd=get user=default (cmd: get, set, lpush)\n"),
            "{out}"
        );
    }

    #[test]
    fn http_statuses_are_signal() {
        assert!(is_signal(r#"127.0.0.1 - - [x] "GET /.env HTTP/1.1" 404 -"#));
        assert!(is_signal("code 501, message Unsupported method"));
        assert!(!is_signal(r#"127.0.0.1 - - [x] "GET /a HTTP/1.1" 200 -"#));
        assert!(!is_signal("processed 404 items"));
    }
}
