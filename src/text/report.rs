//! Outputs of checkers no filter was written for (issue 26): a report of
//! findings, or a formatter's diff. Both are renderings of the generic path
//! for a program's output (never for a document or a file read whole).
//!
//! A **finding** names a place (`path:line[:col]`, `path: line N, col M`,
//! `line N column M`, a `Location:` line under an issue header, a
//! `L: n | P: m` row, `M 88:4 name - D (23)`), or is a signal line of the
//! ledger or a line with a problem word. In a report (findings make up a
//! good share of the lines):
//! - every finding is quoted as printed: never counted, never rewritten as
//!   a list of its values (a must-keep line is a line as the tool printed
//!   it). Findings printed as short paragraphs (csslint's file, place,
//!   message, source line) of one template fold past the focus size from
//!   `FOLD_MIN` on to the lines that differ: the first paragraph as
//!   printed, then `… N more like it, the lines that differ:` and each
//!   other paragraph's own lines (its place, a message of its own), as
//!   printed;
//! - a finding's block stays whole: in a short paragraph (blank-line
//!   separated) that holds one, every line but code excerpts stays
//!   (bandit's issue header, severity and location); the line after a
//!   finding stays too (pydocstyle's and csslint's message line);
//! - code excerpts under findings (a source line over a caret line, gutter
//!   lines `  8 |  code`, bandit's numbered source) go, counted once at
//!   the end;
//! - the tool's lines before the first finding and after the last stay
//!   when they are few (its banner, its totals); any other run of lines
//!   keeps its first line and names the `show --lines` range of the rest.
//!
//! A **formatter diff** (black/isort `--diff`, shfmt `-d`, rustfmt
//! `--check`) above the text threshold: the lines that are not the diff
//! (which files would change, the totals) first, then per file its `---`/
//! `+++` lines and each hunk's header with the `show --lines` range of its
//! body.

use once_cell::sync::Lazy;

use crate::lines::places::is_finding;
use crate::text::ascii_regex;
use crate::text::blocks::Block;
use crate::text::context;
use crate::text::generic;
use crate::text::guard::Source;
use crate::values::{self, Values};

/// Code shown under a finding: gutter lines (`  8 |     if (n = 0)`,
/// `      |   ^`, prettier's `[error] > 26 |`), bandit's numbered source,
/// and gutters drawn with `│` (biome's `  > 5 │ code`, its fix's
/// `   3  3 │ code`, a `      │   ^^^^` marker under them).
static CODE: Lazy<regex::bytes::Regex> = Lazy::new(|| {
    ascii_regex(concat!(
        r"^(?:\[\w+\])?\s*>?\s*\d+\s+\|(?:\s|$)|^(?:\[\w+\])?\s+\|\s+[\^~]+\s*$|^\d+\t|",
        r"^\s*>?\s*\d+(?:\s+\d+)?\s+\xE2\x94\x82|^\s+\xE2\x94\x82\s*(?:[\^~+-]+\s*)?$"
    ))
    .expect("valid code frame regex")
});
/// A rule line (`-----`, `=====`, `─────`): layout, not content.
static RULE: Lazy<regex::bytes::Regex> =
    Lazy::new(|| ascii_regex(r"^\s*(?:-{5,}|={5,}|_{5,}|(?:─){5,})\s*$").expect("valid rule regex"));
static HUNK: Lazy<regex::bytes::Regex> = Lazy::new(|| {
    ascii_regex(r"^(?:@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|Diff in \S+:\d+:$)").expect("valid hunk regex")
});

/// A caret/tilde line (`    ^~~~`, `~~^~~`), as `generic` drops in logs.
fn is_marker(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.bytes().all(|b| matches!(b, b'^' | b'~' | b' '))
}

/// Lines the tool printed before its first finding or after its last that
/// stay whole (its banner, its totals).
const EDGE: usize = 40;
/// A paragraph of at most this many lines that holds a finding is one
/// block: its lines stay together.
const BLOCK: usize = 8;
/// Findings must make up this share of the non-blank lines (and be at
/// least `MIN_FINDINGS`) for an output to read as a report.
const SHARE: f64 = 0.1;
const MIN_FINDINGS: usize = 3;

/// What each line of a report is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Keep,
    Code,
    Rest,
}

/// What each line of a report is, and the findings printed as a header
/// over indented lines (`headed_blocks`).
struct Marked {
    /// Lines that name a place (`lines::places::is_finding`).
    place: Vec<bool>,
    found: Vec<bool>,
    role: Vec<Role>,
    headed: Vec<Vec<usize>>,
}

/// A report's rendering, when the output is one and the rendering is
/// shorter than the text: each line's role (`mark`), the blocks of one
/// rule folded past the focus size (`fold`), then the lines in order.
pub fn render(src: &Source, blocks: &[Block]) -> Option<String> {
    let marked = mark(src)?;
    // stack traces are blocks: rendered as everywhere (library frames counted)
    let mut in_block = vec![None; src.cleaned.len()];
    for (k, b) in blocks.iter().enumerate() {
        for slot in &mut in_block[b.start..b.end] {
            *slot = Some(k);
        }
    }
    let folded = fold(src, &marked, &in_block);
    emit(src, blocks, &marked, &in_block, folded)
}

/// The role of each line, `None` when the output is no report (too few
/// places, or too small a share of its lines).
fn mark(src: &Source) -> Option<Marked> {
    let lines = &src.cleaned;
    let n = lines.len();
    // places make a report; problem words and the ledger's lines alone do
    // not: most outputs stop here, before any other line is looked at
    let place: Vec<bool> = lines.iter().map(|l| is_finding(l)).collect();
    let findings = place.iter().filter(|&&p| p).count();
    if findings < MIN_FINDINGS {
        return None;
    }
    // code excerpts: a frame's lines, the markers under them
    let code_like = |i: usize| {
        let l = lines[i];
        is_marker(l)
            || CODE.is_match(l.as_bytes())
            || lines.get(i + 1).is_some_and(|next| is_marker(next) && !next.trim().is_empty())
            || RULE.is_match(l.as_bytes())
    };
    let code: Vec<bool> = (0..n).map(code_like).collect();
    // a problem word inside a code excerpt (`throw new Error(…)` in a
    // frame) is the code's, not a finding's; the ledger's lines stay
    let signal = |i: usize| {
        let l = lines[i];
        !l.trim().is_empty()
            && (place[i] || src.ledger.kind(i).is_some() || !code[i] && generic::is_signal(l))
    };
    let found: Vec<bool> = (0..n).map(signal).collect();
    let mut role = vec![Role::Rest; n];
    for i in 0..n {
        if found[i] {
            role[i] = Role::Keep;
        } else if code[i] {
            role[i] = Role::Code;
        }
    }
    // the source line a finding quotes in its paragraph (csslint's
    // `.katex .mfrac {` under its place and message): past the message, a
    // line that ends as a statement, a block or a list of code does
    for i in (0..n).filter(|&i| found[i]) {
        for k in (i + 2..n.min(i + BLOCK)).take_while(|&k| !lines[k].trim().is_empty() && !found[k]) {
            if lines[k].trim_end().ends_with(['{', '}', ';', ',']) {
                role[k] = Role::Code;
            }
        }
    }
    // the share is of the lines that are not code excerpts
    let body = (0..n).filter(|&i| role[i] != Role::Code && !lines[i].trim().is_empty()).count();
    if (findings as f64) < SHARE * body as f64 {
        return None;
    }
    // the line after a finding: its message
    for i in 0..n.saturating_sub(1) {
        if found[i] && role[i + 1] == Role::Rest && !lines[i + 1].trim().is_empty() {
            role[i + 1] = Role::Keep;
        }
    }
    // the section header of a finding (a file's path over its findings, a
    // `# pkg` or `=== x ===` banner): rule 3
    let headers: Vec<usize> =
        (0..n).filter(|&i| found[i]).filter_map(|i| context::header_of(lines, i)).collect();
    for h in headers {
        if role[h] == Role::Rest {
            role[h] = Role::Keep;
        }
    }
    // an indented finding under a header (bandit's `Location:` under its
    // `>> Issue:` and severity lines): the block from the header down
    for i in 0..n {
        if !(found[i] && lines[i].starts_with([' ', '\t'])) {
            continue;
        }
        let mut k = i;
        while k > 0 && i - k < BLOCK && role[k - 1] != Role::Code && lines[k - 1].starts_with([' ', '\t']) {
            k -= 1;
        }
        if k > 0 && i - k < BLOCK && !lines[k - 1].trim().is_empty() && role[k - 1] != Role::Code {
            role[k - 1..i].iter_mut().for_each(|r| *r = Role::Keep);
        }
    }
    // short paragraphs holding a finding stay whole (code excerpts aside)
    let mut start = 0;
    while start < n {
        let end = (start..n).find(|&k| lines[k].trim().is_empty()).unwrap_or(n);
        let text: Vec<usize> = (start..end).filter(|&k| role[k] != Role::Code).collect();
        if text.len() <= BLOCK && text.iter().any(|&k| found[k]) {
            for k in text {
                role[k] = Role::Keep;
            }
        }
        start = end + 1;
    }
    // a finding printed as a header over indented lines (pydocstyle's
    // `path:1 at module level:` over its message, flawfinder's
    // `path:37:  [4] (buffer) strcpy:` over its explanation) is one block:
    // kept whole (rule 2)
    let headed = headed_blocks(lines, &place);
    for k in headed.iter().flatten().copied() {
        if role[k] != Role::Code {
            role[k] = Role::Keep;
        }
    }
    // the tool's banner and totals
    let first = (0..n).find(|&i| found[i])?;
    let last = (0..n).rev().find(|&i| found[i])?;
    if first <= EDGE {
        role[..first].iter_mut().filter(|r| **r == Role::Rest).for_each(|r| *r = Role::Keep);
    }
    if n - last <= EDGE {
        role[last..].iter_mut().filter(|r| **r == Role::Rest).for_each(|r| *r = Role::Keep);
    }
    Some(Marked { place, found, role, headed })
}

/// Past the focus size, the records (finding paragraphs, headed blocks)
/// of one template from `FOLD_MIN` on, as shown (`fold_records`), each
/// group at its first record's first line; `None` at every other line.
fn fold(src: &Source, marked: &Marked, in_block: &[Option<usize>]) -> Vec<Option<Vec<String>>> {
    let lines = &src.cleaned;
    let n = lines.len();
    let Marked { place, found, role, headed } = marked;
    let mut folded: Vec<Option<Vec<String>>> = vec![None; n];
    // only past the focus size: below it the findings are the answer whole
    if !crate::budget::past_focus(src.focus, &lines.join("\n")) {
        return folded;
    }
    let mut records = finding_paragraphs(lines, role, found, in_block);
    let mut taken = vec![false; n];
    records.iter().flatten().for_each(|&k| taken[k] = true);
    for block in headed {
        let text: Vec<usize> = block.iter().copied().filter(|&k| role[k] != Role::Code).collect();
        if text.len() >= 2 && text.iter().all(|&k| !taken[k] && in_block[k].is_none()) {
            records.push(text);
        }
    }
    records.sort_unstable();
    for group in by_template(lines, place, &records).into_iter().filter(|g| g.len() >= FOLD_MIN) {
        if let Some(shown) = fold_records(src, &group) {
            folded[group[0][0]] = Some(shown);
            for &i in group.iter().flatten().skip(1) {
                folded[i] = Some(Vec::new());
            }
        }
    }
    folded
}

/// The report's lines in order: blocks rendered, folds in place of their
/// records, findings and kept lines as printed (a repeated header or
/// paragraph opening once), other stretches cut to their first line and
/// `show --lines` range, code excerpts counted at the end.
fn emit(
    src: &Source,
    blocks: &[Block],
    marked: &Marked,
    in_block: &[Option<usize>],
    mut folded: Vec<Option<Vec<String>>>,
) -> Option<String> {
    let lines = &src.cleaned;
    let n = lines.len();
    let Marked { found, role, .. } = marked;
    let mut out: Vec<String> = Vec::new();
    let mut code = 0usize;
    let mut last_header: Option<&str> = None;
    // the line a kept paragraph opens with (csslint's file above each
    // finding): one that repeats the last one printed is said once
    let opens = |i: usize| i == 0 || lines[i - 1].trim().is_empty();
    let mut last_opening: Option<&str> = None;
    let mut traces = crate::text::blocks::Shown::default();
    let mut i = 0;
    while i < n {
        if let Some(k) = in_block[i] {
            out.extend(traces.show(&blocks[k], src));
            i = blocks[k].end;
            continue;
        }
        if let Some(shown) = folded[i].take() {
            // a fold's first line (an empty one: a folded record's line)
            if !shown.is_empty() {
                let again = opens(i) && last_opening == Some(lines[i]);
                last_opening = opens(i).then_some(lines[i]);
                out.extend(shown.into_iter().skip(usize::from(again)));
            }
            i += 1;
            continue;
        }
        match role[i] {
            Role::Keep if found[i] && !lines[i].ends_with(':') => {
                // a stretch of findings, each as printed
                let finding = |k: usize| {
                    role[k] == Role::Keep && found[k] && in_block[k].is_none() && !lines[k].ends_with(':')
                };
                // code excerpts between them do not end the stretch
                let end = (i..n).find(|&k| !(finding(k) || role[k] == Role::Code)).unwrap_or(n);
                let members: Vec<usize> = (i..end).filter(|&k| finding(k)).collect();
                code += (i..end).filter(|&k| role[k] == Role::Code && !lines[k].trim().is_empty()).count();
                out.extend(members.iter().map(|&k| lines[k].to_string()));
                last_header = None;
                i = end;
            }
            Role::Keep => {
                let l = lines[i];
                // pydocstyle repeats a finding's header line for each message
                // under it: quoted once
                let header = l.ends_with(':') && found[i];
                let opening = opens(i) && !found[i];
                if !(header && last_header == Some(l) || opening && last_opening == Some(l)) {
                    out.push(l.to_string());
                }
                if opening {
                    last_opening = Some(l);
                }
                last_header = if header { Some(l) } else { last_header.filter(|_| !found[i]) };
                i += 1;
            }
            Role::Code => {
                code += usize::from(!lines[i].trim().is_empty());
                i += 1;
            }
            Role::Rest => {
                let end = (i..n).find(|&k| role[k] != Role::Rest || in_block[k].is_some()).unwrap_or(n);
                let stretch: Vec<usize> = (i..end).filter(|&k| !lines[k].trim().is_empty()).collect();
                if !stretch.is_empty() {
                    last_opening = None;
                }
                if stretch.len() <= 2 {
                    out.extend(stretch.iter().map(|&k| lines[k].to_string()));
                } else {
                    out.push(lines[stretch[0]].to_string());
                    out.push(more_lines(
                        src,
                        &format!("… {} more lines", stretch.len() - 1),
                        stretch[1],
                        end - 1,
                    ));
                }
                i = end;
            }
        }
    }
    if code > 0 {
        out.push(format!("({code} lines of code excerpts under the findings not shown)"));
    }
    finish(out, lines)
}

/// The paragraphs (blank-line separated) that are one finding each: a
/// finding and the lines printed with it, all kept, at most `BLOCK` of
/// them, not only findings (a paragraph of finding lines is a run of them);
/// each as its kept lines (code excerpts aside).
fn finding_paragraphs(
    lines: &[&str],
    role: &[Role],
    found: &[bool],
    in_block: &[Option<usize>],
) -> Vec<Vec<usize>> {
    let n = lines.len();
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        let end = (start..n).find(|&k| lines[k].trim().is_empty()).unwrap_or(n);
        let text: Vec<usize> = (start..end).filter(|&k| role[k] != Role::Code).collect();
        let whole = text.iter().all(|&k| role[k] == Role::Keep && in_block[k].is_none());
        if (2..=BLOCK).contains(&text.len())
            && whole
            && text.iter().any(|&k| found[k])
            && !text.iter().all(|&k| found[k])
        {
            out.push(text);
        }
        start = end + 1;
    }
    out
}

/// Findings printed as a header line (a place, not indented, ending with
/// `:`) over the indented lines that belong to it, at most `BLOCK` lines
/// in all: each block's lines.
fn headed_blocks(lines: &[&str], place: &[bool]) -> Vec<Vec<usize>> {
    let n = lines.len();
    let under = |k: usize| lines[k].starts_with([' ', '\t']) && !lines[k].trim().is_empty() && !place[k];
    let mut out = Vec::new();
    for i in 0..n.saturating_sub(1) {
        let l = lines[i];
        if !(place[i] && !l.starts_with([' ', '\t']) && l.trim_end().ends_with(':') && under(i + 1)) {
            continue;
        }
        let end = (i + 1..n).find(|&k| !under(k)).unwrap_or(n);
        if end - i <= BLOCK {
            out.push((i..end).collect());
        }
    }
    out
}

/// In a report, finding paragraphs of one template (rule and message,
/// places aside) fold from this many on, wherever they stand in it.
const FOLD_MIN: usize = 4;

/// The line with each of its values (numbers, quoted names) masked:
/// findings of one rule and message share it.
fn template(line: &str) -> String {
    values::mask(line, Values::Quoted)
}

/// Records of one template (each a finding's lines, line for line of one
/// template), as shown: the first as printed, then `… N more like it, the
/// lines that differ:` and, record by record, each of its lines that is
/// not the first record's line at that place, as printed (csslint's place
/// lines under one file and message). No line is rewritten, so no finding
/// loses the words it was printed with. `None` when that would not be
/// shorter: one-line records (each is all its own words) or records that
/// share no line.
fn fold_records(src: &Source, records: &[Vec<usize>]) -> Option<Vec<String>> {
    let lines = &src.cleaned;
    let first = records.first()?;
    let width = first.len();
    if records.len() < 3 || width < 2 || records.iter().any(|r| r.len() != width) {
        return None;
    }
    let same = |r: &[usize], k: usize| lines[r[k]] == lines[first[k]];
    if !(0..width).any(|k| records.iter().all(|r| same(r, k))) {
        return None;
    }
    let mut out: Vec<String> = first.iter().map(|&i| lines[i].to_string()).collect();
    out.push(format!("… {} more like it, the lines that differ:", records.len() - 1));
    for r in &records[1..] {
        out.extend((0..width).filter(|&k| !same(r, k)).map(|k| lines[r[k]].to_string()));
    }
    Some(out)
}

/// Records grouped by the templates of their lines, in order of first
/// appearance. A line that names a place is a place whatever it names
/// (bandit's `Location: flask/ctx.py:373:8`): one rule's records group
/// across files.
fn by_template(lines: &[&str], place: &[bool], records: &[Vec<usize>]) -> Vec<Vec<Vec<usize>>> {
    let mut order: Vec<Vec<Vec<usize>>> = Vec::new();
    let mut seen: std::collections::HashMap<Vec<String>, usize> = std::collections::HashMap::new();
    for r in records {
        let key: Vec<String> =
            r.iter().map(|&i| if place[i] { String::new() } else { template(lines[i]) }).collect();
        let k = *seen.entry(key).or_insert_with(|| {
            order.push(Vec::new());
            order.len() - 1
        });
        order[k].push(r.clone());
    }
    order
}

/// `(WHAT: tokensieve show ID --lines A:B)`, the range 1-based.
fn more_lines(src: &Source, what: &str, from: usize, to: usize) -> String {
    match src.id {
        Some(id) => {
            format!("({what}: tokensieve show {id} --lines {}:{})", src.line_no(from), src.line_no(to))
        }
        None => format!("({what})"),
    }
}

/// The rendering as one text; the lines whole when it is not shorter (a
/// list of findings and nothing else is its own shortest form).
fn finish(out: Vec<String>, lines: &[&str]) -> Option<String> {
    let whole = |v: &[&str]| {
        let mut text = v.join("\n");
        while text.ends_with('\n') {
            text.pop();
        }
        text.push('\n');
        text
    };
    let text = whole(&out.iter().map(String::as_str).collect::<Vec<_>>());
    let raw = whole(lines);
    Some(if text.len() < raw.len() { text } else { raw })
}

/// A formatter's diff above `threshold` chars: what is not the diff first
/// (which files would change, the totals), then each file's header lines
/// and each hunk's header with the `show --lines` range of its body. Signal
/// lines of the ledger inside a hunk stay under its header.
pub fn diff(src: &Source, threshold: usize) -> Option<String> {
    let lines = &src.cleaned;
    let n = lines.len();
    let raw: usize = lines.iter().map(|l| l.len() + 1).sum();
    let hunks: Vec<usize> = (0..n).filter(|&i| HUNK.is_match(lines[i].as_bytes())).collect();
    if raw <= threshold || hunks.is_empty() {
        return None;
    }
    // where each hunk's body ends: the first line that is no diff line
    let body_line = |l: &str| l.is_empty() || l.starts_with([' ', '+', '-', '\\']);
    let mut in_diff = vec![false; n];
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for &h in &hunks {
        let mut end = h + 1;
        while end < n
            && body_line(lines[end])
            && !HUNK.is_match(lines[end].as_bytes())
            && !file_header(lines, end)
        {
            end += 1;
        }
        // a trailing blank line belongs to what follows
        while end > h + 1 && lines[end - 1].is_empty() {
            end -= 1;
        }
        in_diff[h..end].iter_mut().for_each(|d| *d = true);
        spans.push((h, end));
    }
    for i in 0..n {
        if file_header(lines, i) {
            in_diff[i] = true;
            in_diff[i + 1] = true;
        }
    }
    let mut out: Vec<String> = (0..n)
        .filter(|&i| !in_diff[i] && !lines[i].trim().is_empty())
        .map(|i| lines[i].to_string())
        .collect();
    // one line per file: its path, its hunks, the range that prints them
    let files: Vec<usize> = (0..n).filter(|&i| file_header(lines, i)).collect();
    let mut k = 0;
    while k < spans.len() {
        let (h, _) = spans[k];
        let file = files.iter().rev().find(|&&f| f < h).copied();
        let next_file = files.iter().find(|&&f| f > h).copied().unwrap_or(n);
        let mut last = k;
        while last + 1 < spans.len() && spans[last + 1].0 < next_file {
            last += 1;
        }
        let from = file.unwrap_or(h);
        let to = spans[last].1 - 1;
        let name = match file {
            Some(f) => lines[f + 1].trim_start_matches("+++ ").split('\t').next().unwrap_or("").to_string(),
            None => lines[h].to_string(),
        };
        let hunks = last - k + 1;
        let what = format!(
            "diff of {name}: {hunks} hunk{}, {} lines",
            if hunks == 1 { "" } else { "s" },
            to + 1 - from
        );
        out.push(more_lines(src, &what, from, to));
        for &(h, end) in &spans[k..=last] {
            out.extend((h + 1..end).filter(|&j| src.ledger.kind(j).is_some()).map(|j| lines[j].to_string()));
        }
        k = last + 1;
    }
    finish(out, lines)
}

/// `--- a` over `+++ b` at line `i`.
fn file_header(lines: &[&str], i: usize) -> bool {
    lines[i].starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::guard::Owned;

    fn report(text: &str) -> Option<String> {
        let owned = Owned::new(text);
        let src = owned.src();
        render(&src, &crate::text::blocks::find(&src.cleaned))
    }

    #[test]
    fn places_are_findings() {
        for l in [
            "click/core.py:1672: unused variable '__func' (100% confidence)",
            "dateutil/tz/win.py:119:9: E722 do not use bare 'except'",
            "    lua/cart.lua:1:7: unused variable json",
            "js/csslint.js: line 7475, col 13, 'next' is already defined.",
            "line 19 column 3 - Warning: <div> anchor \"main\" already defined",
            "2: warning at line 7, col 3",
            "   Location: flask/sessions.py:281:11",
            "L:   2 | P:  15 | AM05 | Join clauses should be fully qualified. [ambiguous.join]",
            "  142:1  ✖  \"x\" has already been disabled  CssSyntaxError",
            "H025 10:12 Tag seems to be an orphan. </h2>",
            "    M 812:4 Range.__getitem__ - F (50)",
            "ntheory/factor_.py:1 at module level:",
            "lib/Cart/Total.pm: Subroutine \"sum\" does not end with \"return\" at line 41, column 1.  (Severity: 4)",
            "config.yml: duplicate key (line 3, column 7)",
        ] {
            assert!(is_finding(l), "{l}");
        }
        for l in ["12:00:01 INFO start", "Checking lua/cart.lua OK", "    arr[10] = 1;", "total: 12 files"] {
            assert!(!is_finding(l), "{l}");
        }
    }

    #[test]
    fn findings_stay_code_excerpts_go() {
        let mut text = String::from("Inspecting 2 files\nCC\n\nOffenses:\n\n");
        for k in 1..=8 {
            text.push_str(&format!(
                "lib/cart.rb:{k}:3: C: Layout/EmptyLineBetweenDefs: Expected 1 empty line.\n  def add(item, qty=1)\n  ^^^^^^^\n"
            ));
        }
        text.push_str("\n2 files inspected, 8 offenses detected\n");
        let out = report(&text).expect("a report");
        for k in 1..=8 {
            assert!(out.contains(&format!("lib/cart.rb:{k}:3: C: Layout/EmptyLineBetweenDefs")), "{out}");
        }
        assert!(!out.contains("def add"), "{out}");
        assert!(out.contains("2 files inspected, 8 offenses detected"), "{out}");
        assert!(out.contains("(16 lines of code excerpts under the findings not shown)"), "{out}");
    }

    #[test]
    fn frames_drawn_with_box_gutters_are_code_excerpts() {
        // biome's framed diagnostics: the frame and the fix's diff go, the
        // finding and its `i`/`✖` message lines stay
        let mut text = String::new();
        for k in 1..=4 {
            text.push_str(&format!(
                "src/a.js:{k}:5 lint/suspicious/noDebugger  FIXABLE  ━━━━━━━━━━━━━━━━━━━━\n\n                   ✖ This is an unexpected use of the debugger statement.\n  \n                     {} │ function f() {{\n  > {k} │   debugger;\n      │   ^^^^^^^^^\n                     {} │ }}\n  \n  i Unsafe fix: Remove debugger statement\n  \n                     {k} {k} │   debugger;\n      {k} │ - debugger;\n      │   ++++\n  > {k} │   throw new Error(\"x\");\n  \n\n",
                k + 9,
                k + 11
            ));
        }
        text.push_str("Checked 3 files in 4ms. No fixes applied.\nFound 4 errors.\n");
        let out = report(&text).expect("a report");
        for k in 1..=4 {
            assert!(out.contains(&format!("src/a.js:{k}:5 lint/suspicious/noDebugger  FIXABLE")), "{out}");
        }
        assert!(out.contains("  ✖ This is an unexpected use of the debugger statement."), "{out}");
        assert!(out.contains("  i Unsafe fix: Remove debugger statement"), "{out}");
        assert!(!out.contains("│"), "{out}");
        assert!(out.contains("Found 4 errors."), "{out}");
    }

    #[test]
    fn an_issue_block_stays_whole() {
        let mut text = String::from("[main]\tINFO\trunning\nTest results:\n");
        for k in 0..6 {
            text.push_str(&format!(
                ">> Issue: [B324:hashlib] Use of weak SHA1 hash.\n   Severity: High   Confidence: High\n   Location: pkg/m{k}.py:45:11\n44\timport hashlib\n45\th = hashlib.sha1(x)\n46\treturn h\n\n--------------------------------------------------\n"
            ));
        }
        text.push_str("\nRun metrics:\n\t\tHigh: 6\n");
        let out = report(&text).expect("a report");
        assert_eq!(out.matches(">> Issue: [B324:hashlib] Use of weak SHA1 hash.").count(), 6, "{out}");
        assert_eq!(out.matches("   Severity: High   Confidence: High").count(), 6, "{out}");
        assert!(out.contains("   Location: pkg/m5.py:45:11") && out.contains("\t\tHigh: 6"), "{out}");
        assert!(!out.contains("hashlib.sha1(x)") && !out.contains("-----"), "{out}");
        // past the focus size, one rule's blocks in any file fold to the
        // lines that differ: the first block whole, each other's location
        // (the first of all shares its paragraph with the tool's header)
        let out = report_focused(&text, 10).expect("a report");
        assert_eq!(out.matches(">> Issue: [B324:hashlib] Use of weak SHA1 hash.").count(), 2, "{out}");
        assert!(out.contains("   Location: pkg/m1.py:45:11\n… 4 more like it, the lines that differ:\n   Location: pkg/m2.py:45:11\n   Location: pkg/m3.py:45:11\n"), "{out}");
        assert!(out.contains("   Location: pkg/m5.py:45:11") && out.contains("\t\tHigh: 6"), "{out}");
    }

    #[test]
    fn repeated_finding_headers_are_quoted_once() {
        let mut text = String::new();
        for f in ["a.py", "b.py", "c.py"] {
            for code in ["D205: 1 blank line required", "D400: First line should end with a period"] {
                text.push_str(&format!("{f}:1 at module level:\n        {code}\n"));
            }
        }
        let out = report(&text).expect("a report");
        assert_eq!(out.matches("a.py:1 at module level:").count(), 1, "{out}");
        assert_eq!(out.matches("        D400: First line should end with a period").count(), 3, "{out}");
    }

    #[test]
    fn headed_findings_of_one_rule_fold_to_their_headers() {
        // pydocstyle's header over its message, flawfinder's over its
        // explanation: one rule's blocks, past the focus size, print the
        // first whole and the others' own lines, each as printed
        let mut text = String::new();
        for k in 0..8 {
            text.push_str(&format!(
                "c/m{k}.c:{}:  [4] (buffer) strcpy:\n  Does not check for buffer overflows when copying to destination\n  (CWE-120). Consider using snprintf.\n",
                10 + k
            ));
            text.push_str(&format!(
                "c/m{k}.c:{}:  [2] (buffer) char:\n  Statically-sized arrays can be improperly restricted.\n",
                40 + k
            ));
        }
        text.push_str("Hits = 16\n");
        let out = report_focused(&text, 10).expect("a report");
        assert!(out.starts_with("c/m0.c:10:  [4] (buffer) strcpy:\n  Does not check for buffer overflows when copying to destination\n  (CWE-120). Consider using snprintf.\n… 7 more like it, the lines that differ:\nc/m1.c:11:  [4] (buffer) strcpy:\n"), "{out}");
        assert!(out.contains("c/m0.c:40:  [2] (buffer) char:\n  Statically-sized arrays can be improperly restricted.\n… 7 more like it, the lines that differ:\nc/m1.c:41:  [2] (buffer) char:\n"), "{out}");
        for k in 0..8 {
            assert!(out.contains(&format!("c/m{k}.c:{}:  [4] (buffer) strcpy:\n", 10 + k)), "{out}");
        }
        assert!(out.contains("Hits = 16"), "{out}");
        // below the focus size, each block whole where it stands
        let whole = report_focused(&text, 100_000).expect("a report");
        assert_eq!(whole.matches("(CWE-120). Consider using snprintf.").count(), 8, "{whole}");
    }

    /// `report` with the focus size at `focus` tokens.
    fn report_focused(text: &str, focus: usize) -> Option<String> {
        let owned = Owned::new(text);
        let mut src = owned.src();
        src.focus = Some(focus);
        render(&src, &crate::text::blocks::find(&src.cleaned))
    }

    #[test]
    fn findings_of_one_rule_stay_as_printed_past_the_focus_size() {
        let mut text = String::from("Linting docs\n");
        let mut findings = Vec::new();
        for k in 0..12 {
            findings.push(format!(
                "docs/a.md:{}:{} error MD034/no-bare-urls Bare URL used [Context: \"http://h{k}.org\"]",
                30 + k,
                k % 3 + 1
            ));
            if k % 4 == 0 {
                findings.push(format!(
                    "docs/a.md:{} error MD041/first-line-heading First line in a file should be a heading",
                    k + 1
                ));
            }
        }
        for f in &findings {
            text.push_str(f);
            text.push_str("\n    (the offending line, shown by the tool)\n");
        }
        text.push_str("12 errors\n");
        for focus in [100, 100_000] {
            let out = report_focused(&text, focus).expect("a report");
            // every finding quoted as printed, in order: none is rewritten
            // as a list of values or counted
            let at: Vec<usize> = findings.iter().map(|f| out.find(&format!("{f}\n")).expect(f)).collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{out}");
            assert!(!out.contains("more like it"), "{out}");
            assert!(out.contains("12 errors"), "{out}");
        }
    }

    #[test]
    fn finding_paragraphs_of_one_template_fold_to_the_lines_that_differ() {
        let mut text = String::from("\ncsslint: There are 30 problems in site.css.\n\n");
        for k in 1..=30 {
            let (msg, src) = if k % 2 == 0 {
                ("Unknown property 'font-display'.", "  font-display: block;")
            } else {
                ("Rule doesn't have all its properties in alphabetical order.", "@font-face {")
            };
            text.push_str(&format!(
                "site.css\n{k}: warning at line {}, col {}\n{msg}\n{src}\n\n",
                7 * k,
                k % 4 + 1
            ));
        }
        let out = report_focused(&text, 100).expect("a report");
        // each template: its first record as printed, then every other
        // record's own lines (its place), each as printed; the file once;
        // the source lines under the messages are code excerpts
        assert!(out.contains("csslint: There are 30 problems in site.css.\n\nsite.css\n1: warning at line 7, col 2\nRule doesn't have all its properties in alphabetical order.\n… 14 more like it, the lines that differ:\n3: warning at line 21, col 4\n"), "{out}");
        assert!(out.contains("\n2: warning at line 14, col 3\nUnknown property 'font-display'.\n… 14 more like it, the lines that differ:\n4: warning at line 28, col 1\n6: warning at line 42, col 3\n"), "{out}");
        assert_eq!(out.matches("site.css\n").count(), 1, "{out}");
        assert!(!out.contains("font-display: block;") && out.contains("(30 lines of code excerpts"), "{out}");
        for k in 1..=30 {
            assert!(
                out.contains(&format!("\n{k}: warning at line {}, col {}\n", 7 * k, k % 4 + 1)),
                "{k}: {out}"
            );
        }
        assert!(out.len() < text.len() / 2, "{out}");
        // below the focus size, each paragraph as printed
        let whole = report_focused(&text, 100_000).expect("a report");
        assert!(!whole.contains("more like it"), "{whole}");
    }

    #[test]
    fn formatter_diffs_fold_their_hunks() {
        let mut text = String::new();
        for f in ["a.py", "b.py"] {
            text.push_str(&format!("--- {f}\t2026-01-01\n+++ {f}\t2026-01-02\n@@ -1,40 +1,40 @@\n"));
            for k in 0..40 {
                text.push_str(&format!(" line {k} of the unchanged code around it\n-old {k}\n+new {k}\n"));
            }
            text.push_str(&format!("would reformat {f}\n"));
        }
        text.push_str("2 files would be reformatted.\n");
        let owned = Owned::new(&text);
        let out = diff(&owned.src(), 4000).expect("a folded diff");
        assert!(
            out.starts_with("would reformat a.py\nwould reformat b.py\n2 files would be reformatted.\n(diff of a.py: 1 hunk, 123 lines: tokensieve show abc123 --lines 1:123)"),
            "{out}"
        );
        assert!(
            out.contains("(diff of b.py: 1 hunk, 123 lines: tokensieve show abc123 --lines 125:247)"),
            "{out}"
        );
        assert!(!out.contains("+new 3"), "{out}");
    }
}
