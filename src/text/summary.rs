//! The summary of a log too large to read whole (generic path, above
//! `settings.text_threshold` once folded):
//!
//! - a count line (`N lines, C chars; keyword lines: …`);
//! - `head:` the first folded items, `tail:` the last ones (a stack trace is
//!   one item: never cut in two);
//! - every signal line between them: stack traces whole (library frames
//!   counted); ledger lines by line number, verbatim — a group of more than
//!   a few lines of one shape shows its first line, its distinguishing
//!   values and `(N lines: tokensieve show ID --grep '…')`, the command that
//!   prints all of them; one line per shape of the other keyword lines;
//! - the most common line shapes with their counts.

use std::collections::HashMap;

use crate::text::blocks::{Shown, Trace};
use crate::text::generic::{self, Item, cut, render_item, values_line};
use crate::text::guard::{self, Source};

const HEAD: usize = 5;
const TAIL: usize = 10;
/// At most this many shapes of keyword lines (outside the ledger).
const MAX_KEYWORD_SHAPES: usize = 40;
/// A group of at most this many distinct signal lines is shown whole.
const FEW: usize = 3;

pub fn render(src: &Source, items: &[Item]) -> String {
    let lines = &src.cleaned;
    let total_lines = lines.len() - usize::from(lines.last().is_some_and(|l| l.is_empty()));
    let chars: usize = src.raw.iter().map(|l| l.len() + 1).sum();
    // an excerpt's counts are the whole output's (its keyword counts are
    // the excerpt's own)
    let (total_lines, chars) = src.excerpt.map_or((total_lines, chars as u64), |e| (e.lines, e.chars));
    let weighed = items.iter().flat_map(|item| match item {
        Item::Run(r) => vec![(lines[r.first()], r.members.len())],
        Item::Block(b) => (b.start..b.end).map(|i| (lines[i], 1)).collect(),
    });
    let mut out = vec![format!(
        "{total_lines} lines, {chars} chars; keyword lines: {}",
        generic::keyword_counts(weighed)
    )];

    // a table's header and its first rows are the head (a profile or a
    // listing sorted by what matters)
    let head = match table_top(lines) {
        Some(end) => items.iter().take_while(|item| first_line(item) < end).count().max(HEAD),
        None => HEAD,
    };
    let head = items.len().min(head);
    let tail = items.len().saturating_sub(TAIL);
    // the tail holds the output's closing section whole (pidstat's and
    // sar's `Average:` tables)
    let tail = match closing_section(lines) {
        Some(start) => tail.min(items.iter().position(|item| last_line(item) >= start).unwrap_or(tail)),
        None => tail,
    };
    // nor does it start inside a short section (the peak snapshot's tree
    // under ms_print's last table row): it starts where the section does
    let tail = match items.get(tail).map(first_line).and_then(|at| section_start(lines, at)) {
        Some(start) => items.iter().position(|item| last_line(item) >= start).unwrap_or(tail),
        None => tail,
    }
    .max(head);
    out.push("head:".into());
    // a trace is said once, wherever it repeats: head, middle or tail
    let mut traces = Shown::default();
    for (k, item) in items[..head].iter().enumerate() {
        render_item(item, src, &mut out, &mut traces, true, before_trace(src, items, k));
    }

    let mut middle = signal_lines(src, items, head..tail, &mut traces);
    let context = context_lines(src, items, head..tail, &middle);
    middle.extend(context);
    let shown: std::collections::HashSet<usize> = middle.iter().map(|m| m.0).collect();
    let extra = outliers(src, items, head..tail, &shown);
    middle.extend(extra);
    middle.sort_by_key(|m| m.0);
    if !middle.is_empty() {
        out.push("signal lines between head and tail:".into());
        // a stack trace shown covers its lines to its end: no gap after it
        let ends: HashMap<usize, usize> = items
            .iter()
            .filter_map(|item| match item {
                Item::Block(b) => Some((b.start, b.end - 1)),
                Item::Run(_) => None,
            })
            .collect();
        let mut last: Option<usize> = None;
        for (at, shown) in middle {
            if last.is_none_or(|l| src.line_no(at) > src.line_no(l) + 1) {
                out.push("…".into());
            }
            out.extend(shown);
            last = Some(ends.get(&at).copied().unwrap_or(at).max(last.unwrap_or(0)));
        }
    }

    // What the bulk of the output looks like: lines of one template
    // (numbers, quoted names and `key=value` values aside) with their
    // count and the few words their fields take (rule 5 of issue 26).
    let mut shapes: HashMap<String, (usize, usize, Vec<usize>)> = HashMap::new();
    for item in items {
        if let Item::Run(r) = item
            && !r.keyword
            && !r.ledger
            && !lines[r.first()].trim().is_empty()
        {
            let key = crate::values::mask(lines[r.first()], crate::values::Values::Fields);
            let entry = shapes.entry(key).or_insert((0, r.first(), Vec::new()));
            entry.0 += r.members.len();
            entry.2.extend(&r.members);
        }
    }
    let mut common: Vec<(usize, usize, Vec<usize>)> =
        shapes.into_values().filter(|(n, ..)| *n >= 10).collect();
    common.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    if !common.is_empty() {
        out.push("most common lines:".into());
        for (n, i, members) in common.into_iter().take(5) {
            let words = field_words(lines, &members);
            out.push(format!("{n}× {}{words}", cut(lines[i])));
        }
    }

    out.push("tail:".into());
    // the output's last run (blank lines aside) shows where it ended
    let end = items.iter().rposition(|item| !is_blank(src, item));
    for (k, item) in items[tail..].iter().enumerate() {
        let last = end == Some(tail + k) || before_trace(src, items, tail + k);
        render_item(item, src, &mut out, &mut traces, true, last);
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// A closing section is at most this many lines.
const CLOSING: usize = 40;

/// Where the output's closing section starts: its last lines (blank ones
/// aside) all open with the same word, one with a letter in it (`Average:`),
/// and the line before them does not, within `CLOSING` lines of the end.
fn closing_section(lines: &[&str]) -> Option<usize> {
    fn opening(l: &str) -> Option<&str> {
        l.split_whitespace().next()
    }
    let last = lines.iter().rposition(|l| !l.trim().is_empty())?;
    let word = opening(lines[last])?;
    if !word.bytes().any(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    // a walk of more than `CLOSING` lines finds no closing section: stop there
    let start = (0..=last)
        .rev()
        .take(CLOSING + 1)
        .take_while(|&k| lines[k].trim().is_empty() || opening(lines[k]) == Some(word))
        .last()?;
    let start = (start..=last).find(|&k| !lines[k].trim().is_empty())?;
    (start > 0 && last - start < CLOSING && last > start).then_some(start)
}

/// A section the tail starts inside of is taken whole up to this many lines.
const SECTION: usize = 12;

/// Where the section holding line `at` starts, when `at` is not its first
/// line and it starts at most `SECTION` lines before: sections are set apart
/// by blank lines and rules (`-----`, `=====`).
fn section_start(lines: &[&str], at: usize) -> Option<usize> {
    let apart = |l: &str| {
        let t = l.trim();
        t.is_empty() || (t.len() >= 10 && t.bytes().all(|b| b == t.as_bytes()[0] && b.is_ascii_punctuation()))
    };
    if at == 0 || at >= lines.len() || apart(lines[at]) || apart(lines[at - 1]) {
        return None;
    }
    let start = (0..at).rev().find(|&k| apart(lines[k])).map_or(0, |k| k + 1);
    (at - start <= SECTION).then_some(start)
}

fn last_line(item: &Item) -> usize {
    match item {
        Item::Run(r) => *r.members.last().expect("a run has lines"),
        Item::Block(b) => b.end - 1,
    }
}

fn first_line(item: &Item) -> usize {
    match item {
        Item::Run(r) => r.first(),
        Item::Block(b) => b.start,
    }
}

/// Rows of a table shown in the head after its header line.
const TABLE_ROWS: usize = 10;
/// A header opens the table within this many first lines.
const TABLE_SEARCH: usize = 15;

/// The end of a table's top (its header line and first `TABLE_ROWS`
/// rows) when one of the first lines is a column header: three or more
/// words, no digits, set apart by runs of blanks (`ncalls  tottime  …`,
/// `Name   Stmts   Miss  Cover`).
fn table_top(lines: &[&str]) -> Option<usize> {
    let header = lines.iter().take(TABLE_SEARCH).position(|l| {
        let cols = l.split("  ").filter(|c| !c.trim().is_empty()).count();
        cols >= 3 && !l.bytes().any(|b| b.is_ascii_digit()) && l.len() < 200
    })?;
    Some((header + 1 + TABLE_ROWS).min(lines.len()))
}

/// Lines the middle would otherwise lose that tell a log's story: the first
/// of each rare template (a start, a shutdown, a warning banner, a reset
/// among acks) while there are few of them, and slow statements
/// (`duration: N ms` well above the log's own median).
fn outliers(
    src: &Source,
    items: &[Item],
    range: std::ops::Range<usize>,
    shown: &std::collections::HashSet<usize>,
) -> Vec<(usize, Vec<String>)> {
    let lines = &src.cleaned;
    let middle = range.clone();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for item in items {
        if let Item::Run(r) = item {
            *seen.entry(r.shape.as_str()).or_insert(0) += r.members.len();
        }
    }
    let mut out: Vec<(usize, Vec<String>)> = Vec::new();
    // the middle's first line of each rare template, by how rare: the
    // shapes seen once, then the templates (fields and padding aside: a
    // ledger's amounts are not events) seen twice... while the lines stay
    // few (a connection reset among a capture's thousands of acks); a
    // template stops being rare at `RARE_SHARE` of the lines
    let candidates: Vec<(usize, usize)> = items[range.clone()]
        .iter()
        .filter_map(|item| match item {
            Item::Run(r)
                if is_event_line(lines[r.first()])
                    && !r.ledger
                    && !r.keyword
                    && !lines[r.first()].trim().is_empty()
                    && !shown.contains(&r.first()) =>
            {
                Some((r.first(), seen[r.shape.as_str()]))
            }
            _ => None,
        })
        .collect();
    let once: Vec<usize> = candidates.iter().filter(|c| c.1 == 1).map(|c| c.0).collect();
    if once.len() <= MAX_RARE {
        let mut chosen = once;
        let total: usize = seen.values().sum();
        // templates seen twice and more can be rare only in a long enough log
        if total / RARE_SHARE >= 2 {
            chosen.extend(rare_tiers(lines, items, &candidates, total / RARE_SHARE, MAX_RARE - chosen.len()));
        }
        chosen.sort_unstable();
        chosen.dedup();
        out.extend(chosen.into_iter().map(|i| (i, vec![format!("L{}: {}", src.line_no(i), cut(lines[i]))])));
    }
    let timed: Vec<(usize, f64)> = items
        .iter()
        .filter_map(|item| match item {
            Item::Run(r) => Some(r.members.iter()),
            Item::Block(_) => None,
        })
        .flatten()
        .filter_map(|&i| duration_ms(lines[i]).map(|d| (i, d)))
        .collect();
    if timed.len() >= MIN_TIMED {
        let mut values: Vec<f64> = timed.iter().map(|t| t.1).collect();
        values.sort_by(f64::total_cmp);
        let median = values[values.len() / 2];
        let middle_lines: std::collections::HashSet<usize> = items[range]
            .iter()
            .filter_map(|item| match item {
                Item::Run(r) => Some(r.members.iter().copied()),
                Item::Block(_) => None,
            })
            .flatten()
            .collect();
        let rare: std::collections::HashSet<usize> = out.iter().map(|o| o.0).collect();
        for (i, d) in timed {
            if d > SLOW * median && middle_lines.contains(&i) && !shown.contains(&i) && !rare.contains(&i) {
                out.push((i, vec![format!("L{}: {}", src.line_no(i), lines[i])]));
            }
        }
    }
    let shown_now: std::collections::HashSet<usize> = out.iter().map(|o| o.0).collect();
    let top = largest_rows(lines, items, range_lines(&items[middle]));
    out.extend(
        top.into_iter()
            .filter(|i| !shown.contains(i) && !shown_now.contains(i))
            .map(|i| (i, vec![format!("L{}: {}", src.line_no(i), cut(lines[i]))])),
    );
    out
}

/// Lines shown for what followed a stack trace, at most (a log of many
/// traces has its most common lines for the rest).
const AFTER_TRACES: usize = 10;

/// Rule 3 of issue 26: the section header and the next line of the same
/// source of each line the middle shows, and the line after each stack
/// trace, when the middle would otherwise hide them (a trace's own lines
/// are its block).
fn context_lines(
    src: &Source,
    items: &[Item],
    range: std::ops::Range<usize>,
    middle: &[(usize, Vec<String>)],
) -> Vec<(usize, Vec<String>)> {
    let lines = &src.cleaned;
    let hidden: std::collections::HashSet<usize> = range_lines(&items[range.clone()]).into_iter().collect();
    let kept: Vec<usize> = middle.iter().map(|m| m.0).filter(|i| hidden.contains(i)).collect();
    // the line a stack trace is followed by: what the program did next;
    // a signal line there is the signal lines' own to show or count (a
    // request's 500 after its trace), and at most `AFTER_TRACES` of them
    let after_traces: Vec<usize> = items[range]
        .iter()
        .filter_map(|item| match item {
            Item::Block(b) => crate::text::context::next_after(lines, b.end - 1),
            Item::Run(_) => None,
        })
        .filter(|&i| src.ledger.kind(i).is_none() && !generic::is_signal(lines[i]))
        .take(AFTER_TRACES)
        .collect();
    let mut context = crate::text::context::around(lines, &kept);
    context.extend(after_traces);
    context.sort_unstable();
    context.dedup();
    context
        .into_iter()
        .filter(|i| hidden.contains(i) && !kept.contains(i))
        .map(|i| (i, vec![format!("L{}: {}", src.line_no(i), cut(lines[i]))]))
        .collect()
}

/// Fields (`key=value`) whose value is a word, not a number, and takes a
/// few values over `members`: ` (cmd: set, get, lpush)`, in order of first
/// appearance; empty when none.
fn field_words(lines: &[&str], members: &[usize]) -> String {
    let mut keys: Vec<(&str, Vec<&str>)> = Vec::new();
    for &i in members {
        for (key, value) in lines[i].split_whitespace().filter_map(|w| w.split_once('=')) {
            if key.is_empty() || value.is_empty() || value.bytes().any(|b| b.is_ascii_digit()) {
                continue;
            }
            match keys.iter_mut().find(|k| k.0 == key) {
                Some((_, values)) if !values.contains(&value) => values.push(value),
                Some(_) => {}
                None => keys.push((key, vec![value])),
            }
        }
    }
    let listed: Vec<String> = keys
        .into_iter()
        .filter(|(_, values)| (2..=FIELD_WORDS).contains(&values.len()))
        .map(|(key, values)| format!("{key}: {}", values.join(", ")))
        .collect();
    if listed.is_empty() { String::new() } else { format!(" ({})", listed.join("; ")) }
}

/// A field listed under the most common lines takes at most this many words.
const FIELD_WORDS: usize = 8;

/// The lines of the folded runs of `items`.
fn range_lines(items: &[Item]) -> Vec<usize> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Run(r) => Some(r.members.iter().copied()),
            Item::Block(_) => None,
        })
        .flatten()
        .collect()
}

/// A time of day or a date: a log line's stamp.
static STAMP: once_cell::sync::Lazy<regex::Regex> = once_cell::sync::Lazy::new(|| {
    regex::Regex::new(r"\d\d:\d\d:\d\d|\d{4}-\d\d-\d\d|\d\d/\w{3}/\d{4}").expect("valid stamp regex")
});

/// A table's rows: at least this many lines of one column skeleton...
const TABLE_MIN: usize = 20;
/// ...of which the rows with the largest value of each numeric column (at
/// most `TOP_COLUMNS` of them) are shown, `TOP_ROWS` a column.
const TOP_ROWS: usize = 5;
const TOP_COLUMNS: usize = 6;

/// A line's column skeleton: each blank-separated word a `#` when it is a
/// number, itself when it is punctuation, `w` otherwise (`import time: # |
/// # | w`, `w # # # w`): the rows of one table share it, whatever names
/// they hold.
fn skeleton(line: &str) -> String {
    line.split_whitespace()
        .map(|w| {
            if number(w).is_some() {
                "#"
            } else if w.chars().all(|c| c.is_ascii_punctuation()) {
                w
            } else {
                "w"
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A word that is a plain decimal number (`12`, `0.5`, `1,234` aside).
fn number(word: &str) -> Option<f64> {
    let w = word.trim_end_matches([',', ';']);
    (w.bytes().any(|b| b.is_ascii_digit()) && w.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
        .then(|| w.parse().ok())
        .flatten()
}

/// Among `among`, the rows of the output's tables (`TABLE_MIN` lines of one
/// skeleton with a number column) that hold a column's largest values: the
/// slowest import, the biggest process, what such a table is read for.
fn largest_rows(lines: &[&str], items: &[Item], among: Vec<usize>) -> Vec<usize> {
    let among: std::collections::HashSet<usize> = among.into_iter().collect();
    let mut tables: HashMap<String, Vec<usize>> = HashMap::new();
    for i in range_lines(items) {
        if !lines[i].trim().is_empty() && lines[i].len() <= 300 {
            tables.entry(skeleton(lines[i])).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    // a log's lines are events, stamped with a time: not a table's rows
    let stamped = |i: &usize| STAMP.is_match(lines[*i]);
    for (skel, rows) in
        tables.into_iter().filter(|(_, rows)| rows.len() >= TABLE_MIN && !rows.iter().any(stamped))
    {
        let columns = skel.split(' ').filter(|w| *w == "#").count();
        for c in 0..columns.min(TOP_COLUMNS) {
            let value = |i: usize| lines[i].split_whitespace().filter_map(number).nth(c).unwrap_or(f64::MIN);
            let mut ranked: Vec<usize> = rows.clone();
            ranked.sort_by(|&a, &b| value(b).total_cmp(&value(a)).then(a.cmp(&b)));
            if value(ranked[0]) == value(ranked[ranked.len() - 1]) {
                continue;
            }
            out.extend(ranked.into_iter().take(TOP_ROWS).filter(|i| among.contains(i)));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The first lines (among `candidates`) of the templates seen twice, three
/// times... up to `most` times, tier by tier while they stay within `room`.
fn rare_tiers(
    lines: &[&str],
    items: &[Item],
    candidates: &[(usize, usize)],
    most: usize,
    room: usize,
) -> Vec<usize> {
    // each run's template, made once (a candidate is a run's first line)
    let runs: Vec<(usize, String, usize)> = items
        .iter()
        .filter_map(|item| match item {
            Item::Run(r) => Some((r.first(), template(lines[r.first()]), r.members.len())),
            Item::Block(_) => None,
        })
        .collect();
    let mut templates: HashMap<&str, usize> = HashMap::new();
    for (_, t, n) in &runs {
        *templates.entry(t.as_str()).or_insert(0) += n;
    }
    let of_run: HashMap<usize, &str> = runs.iter().map(|(i, t, _)| (*i, t.as_str())).collect();
    let mut firsts: HashMap<&str, usize> = HashMap::new();
    for &(i, _) in candidates {
        firsts.entry(of_run[&i]).or_insert(i);
    }
    // each template's first line, by how many times the template is seen
    let mut tiers: std::collections::BTreeMap<usize, Vec<usize>> = std::collections::BTreeMap::new();
    for (t, i) in firsts {
        let times = templates[t];
        if (2..=most).contains(&times) {
            tiers.entry(times).or_default().push(i);
        }
    }
    let mut out = Vec::new();
    for tier in tiers.into_values() {
        if out.len() + tier.len() > room {
            break;
        }
        out.extend(tier);
    }
    out
}

/// At most this many lines of rare templates are shown.
const MAX_RARE: usize = 15;
/// A template is rare while it makes at most one line in this many.
const RARE_SHARE: usize = 50;

/// A line whose template says what happened (`Ready to accept
/// connections`): not a JSON record, whose shape varies with its values,
/// nor a long dump, nor a row of a drawing (`|   :::@ ::  #:`, no word in it).
fn is_event_line(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty()
        && !t.starts_with(['{', '['])
        && line.len() <= 200
        && t.bytes().any(|b| b.is_ascii_alphabetic())
}
/// A line's template for rarity: its fields masked (`values::Values::Fields`)
/// and its runs of blanks made one (columns padded to their values' width).
fn template(line: &str) -> String {
    crate::values::mask(line, crate::values::Values::Fields).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Slow: this many times the median duration of the log...
const SLOW: f64 = 4.0;
/// ...among at least this many timed lines.
const MIN_TIMED: usize = 10;

/// The `duration: N ms` (or `s`) a line reports, in ms.
fn duration_ms(line: &str) -> Option<f64> {
    let at = line.find("duration: ")? + "duration: ".len();
    let rest = &line[at..];
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
    let value: f64 = rest[..end].parse().ok()?;
    let unit = rest[end..].trim_start();
    if unit.starts_with("ms") {
        Some(value)
    } else if unit.starts_with('s') {
        Some(value * 1000.0)
    } else {
        None
    }
}

/// Whether the item after `items[k]` (blank lines aside) is a stack trace:
/// then the last line of a run at `k` is the state the program crashed in
/// (the row it was on, the last request), shown as printed.
fn before_trace(src: &Source, items: &[Item], k: usize) -> bool {
    items[k + 1..].iter().find(|item| !is_blank(src, item)).is_some_and(|item| matches!(item, Item::Block(_)))
}

fn is_blank(src: &Source, item: &Item) -> bool {
    matches!(item, Item::Run(r) if src.cleaned[r.first()].trim().is_empty())
}

/// The signal lines of `items[range]` (the middle), each with the line it
/// starts at (sorted).
fn signal_lines(
    src: &Source,
    items: &[Item],
    range: std::ops::Range<usize>,
    traces: &mut Shown,
) -> Vec<(usize, Vec<String>)> {
    let lines = &src.cleaned;
    let middle = &items[range.clone()];
    let mut shown: Vec<(usize, Vec<String>)> = Vec::new();

    // stack traces, whole; a repeat of one already shown says so and
    // quotes the lines where it differs
    for (j, item) in middle.iter().enumerate() {
        // the line a trace interrupted, when no other rule shows it
        if matches!(item, Item::Block(_))
            && let Some(Item::Run(r)) =
                (range.start..range.start + j).rev().find(|&k| !is_blank(src, &items[k])).map(|k| &items[k])
            && !r.ledger
            && !r.keyword
        {
            let at = *r.members.last().expect("a run has lines");
            shown.push((at, vec![format!("L{}: {}", src.line_no(at), cut(lines[at]))]));
        }
        if let Item::Block(b) = item {
            let at = format!("L{}: ", src.line_no(b.start));
            let body = match traces.see(b, lines) {
                Trace::New(mut body) => {
                    body[0].insert_str(0, &at);
                    body
                }
                again => again.lines(|i| src.line_no(i), &at, ""),
            };
            shown.push((b.start, body));
        }
    }

    // ledger lines, grouped by shape
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_shape: HashMap<&str, usize> = HashMap::new();
    // keyword lines outside the ledger: the first of each shape, counted
    let mut keyword: Vec<Vec<usize>> = Vec::new();
    let mut keyword_shapes: HashMap<&str, usize> = HashMap::new();
    let mut unshown = 0usize;
    for item in middle {
        let Item::Run(r) = item else { continue };
        if r.finding {
            // a finding is never folded into a count: each as printed (a
            // run of one line quoted once with its count)
            let i = r.first();
            if r.identical {
                let more =
                    if r.members.len() > 1 { format!(" (×{})", r.members.len()) } else { String::new() };
                let mut body = vec![format!("L{}: {}{more}", src.line_no(i), lines[i])];
                // a finding that ends in `:` introduces its message (pydocstyle)
                if lines[i].ends_with(':')
                    && let Some(next) = lines.get(i + 1).filter(|l| !l.trim().is_empty())
                {
                    body.push((*next).to_string());
                }
                shown.push((i, body));
            } else {
                let mut body: Vec<String> = r.members.iter().map(|&k| lines[k].to_string()).collect();
                body[0] = format!("L{}: {}", src.line_no(i), body[0]);
                shown.push((i, body));
            }
        } else if r.ledger {
            let k = *by_shape.entry(&r.shape).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[k].extend(&r.members);
        } else if r.keyword {
            match keyword_shapes.get(r.shape.as_str()) {
                Some(&k) => keyword[k].extend(&r.members),
                None if keyword.len() < MAX_KEYWORD_SHAPES => {
                    keyword_shapes.insert(&r.shape, keyword.len());
                    keyword.push(r.members.clone());
                }
                None => unshown += r.members.len(),
            }
        }
    }
    for members in groups {
        shown.extend(group(src, &members));
    }
    for members in keyword {
        let (i, n) = (members[0], members.len());
        // the others of the shape (a server's repeated `WARNING:`, issue 26
        // rule 5) with the command that prints them all
        let count = guard::count_line(src, &guard::similar_pattern(lines[i]), &members)
            .map(|c| format!(" {c}"))
            .unwrap_or_default();
        let more = if n > 1 { format!(" (×{n} similar in all){count}") } else { String::new() };
        shown.push((i, vec![format!("L{}: {}{more}", src.line_no(i), cut(lines[i]))]));
    }
    if unshown > 0 {
        let at = shown.iter().map(|s| s.0).max().unwrap_or(0);
        shown.push((at, vec![format!("({unshown} more keyword lines of other shapes not shown)")]));
    }
    shown.sort_by_key(|s| s.0);
    shown
}

/// One shape's signal lines: each distinct one when they are few, else the
/// first, the values that tell them apart and the command that shows all.
fn group(src: &Source, members: &[usize]) -> Vec<(usize, Vec<String>)> {
    let lines = &src.cleaned;
    let mut distinct: Vec<(usize, usize)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for &i in members {
        match index.get(lines[i]) {
            Some(&k) => distinct[k].1 += 1,
            None => {
                index.insert(lines[i], distinct.len());
                distinct.push((i, 1));
            }
        }
    }
    let each = |d: &[(usize, usize)]| -> Vec<(usize, Vec<String>)> {
        d.iter()
            .map(|&(i, n)| {
                let more = if n > 1 { format!(" (×{n})") } else { String::new() };
                (i, vec![format!("L{}: {}{more}", src.line_no(i), lines[i])])
            })
            .collect()
    };
    if distinct.len() <= FEW {
        return each(&distinct);
    }
    let first = distinct[0].0;
    let pattern = guard::similar_pattern(lines[first]);
    let Some(count) = guard::count_line(src, &pattern, members) else {
        return each(&distinct);
    };
    let texts: Vec<&str> = distinct.iter().map(|&(i, _)| lines[i]).collect();
    let mut body = vec![format!("L{}: {}", src.line_no(first), lines[first])];
    match values_line(&texts, true) {
        Some(v) => body.push(format!("{v} {count}")),
        None => body.push(format!("… and {} more like it {count}", members.len() - 1)),
    }
    vec![(first, body)]
}
