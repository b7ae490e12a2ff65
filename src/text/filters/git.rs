//! git status/diff/show/log/push/pull/fetch/clone.
//!
//! - status: every path with its state; the `(use "git ...")` hints go.
//! - diff/show: file headers (`diff --git`, `index`, `---`, `+++`, modes),
//!   hunk headers (as printed) and every changed line stay; context is cut
//!   to one line around each change, a stretch cut marked by a line no
//!   diff has, `… N unchanged lines (tokensieve show ID --lines A:B) …`
//!   (never a hunk header of ours: it would pass for git's); past the
//!   budget or the focus size, long runs of added or removed lines (a
//!   deleted file's body) keep their first and last lines around `… N more
//!   added lines (tokensieve show ID --lines A:B) …`.
//! - log: record-like text. Past the focus size (`TOKENSIEVE_FOCUS`,
//!   `crate::budget::record_focus`, 1,000 tokens) it gets a focus view: a line
//!   per commit (short hash, decoration, date, author when it changes,
//!   subject; one author is said once), then bodies and `--stat` file lists
//!   in order while the view stays within the focus size, and the `show
//!   --lines` range of the rest, in lines of ours (`# …`). Below it, commit
//!   messages are documents and pass as printed, unless they repeat a
//!   template (`Bump X to N`: most message lines one word away from two
//!   others), which gets the same view past 4,000 chars.
//! - blame: record-like too. Past the focus size, runs of lines from one
//!   commit get one line of ours (`# hash author date, lines A-B`) and each
//!   code line its number; times and zones are left out, named with the
//!   `show` command.
//! - push/pull/fetch/clone: progress counters go; transfer totals, ref
//!   updates, tracking setup, warnings and errors stay.

use std::collections::HashMap;

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct Status;
pub struct Diff;
pub struct Log;
pub struct Blame;
pub struct Sync;

/// A run of added or removed lines longer than this is cut to head + tail.
const LONG_RUN: usize = 16;
const RUN_HEAD: usize = 8;
const RUN_TAIL: usize = 3;
/// A log up to this many chars (the generic path's summary threshold) passes
/// whole: the agent reads every message as printed.
const WHOLE_LOG: usize = 4_000;
/// A longer log is summarised only when at least this share of its message
/// lines is templated (see `templated_share`).
const TEMPLATED: f64 = 0.5;
/// A message line is templated when, one word set aside, this many lines
/// (itself included) read the same.
const TEMPLATE_FAMILY: usize = 3;
/// Words of a message line compared.
const TEMPLATE_WORDS: usize = 16;

static COMMIT: Lazy<Regex> = Lazy::new(|| Regex::new(r"^commit ([0-9a-f]{7,64})(.*)$").unwrap());
static GIT_DATE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\w{3} (\w{3}) (\d{1,2}) (\d\d:\d\d):\d\d (\d{4}) ([+-]\d{4})$").unwrap());
static PROGRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:remote: )?(?:Enumerating objects|Counting objects|Compressing objects|Resolving deltas|Delta compression|Unpacking objects|Checking connectivity|Updating files|Filtering content|Checking out files|Updating index)\b").unwrap()
});
static TRANSFER: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(?:remote: )?(?:Receiving|Writing) objects:").unwrap());

impl Filter for Status {
    fn name(&self) -> &'static str {
        "git-status"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "git" && inv.sub() == "status"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        if !text.lines().any(|l| {
            l.starts_with("On branch ")
                || l.starts_with("HEAD detached")
                || l.starts_with("Not currently on any branch")
        }) {
            return None;
        }
        let mut out = Vec::new();
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with("(use \"git ")
                || t.starts_with("(commit or discard")
                || t.starts_with("(fix conflicts")
            {
                continue;
            }
            // "no changes added to commit (use ...)" keeps its fact, not its hint
            let t = match t.find(" (use \"git ") {
                Some(p) => &t[..p],
                None => t,
            };
            out.push(if line.starts_with('\t') { format!(" {t}") } else { t.to_string() });
        }
        Some(tidy(&out))
    }
}

impl Filter for Diff {
    fn name(&self) -> &'static str {
        "git-diff"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "git" && matches!(inv.sub(), "diff" | "show")
    }

    fn summarize(&self, _inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        diff(text, src)
    }

    /// A diff is the answer (SPEC §6d): what it leaves out it says itself,
    /// with the `show --lines` range; never the blind cap of dense summaries.
    fn lossless(&self) -> bool {
        true
    }
}

/// The header line of one file's patch (plain or combined diff).
fn starts_file(line: &str) -> bool {
    line.starts_with("diff --git ") || line.starts_with("diff --cc ")
}

/// Whether `text` is over the budget or the focus size: only then are long
/// runs of changed lines cut (a deleted or new file's body, a generated
/// block; within both every changed line is kept, the changes are the answer).
fn past_budget(text: &str, src: &Source) -> bool {
    src.budget.is_some_and(|b| text.len() > b) || crate::budget::past_focus(src.focus, text)
}

fn diff(text: &str, src: &Source) -> Option<String> {
    if !text.lines().any(starts_file) {
        return None;
    }
    let cut = Cut { on: past_budget(text, src), src };
    let mut out: Vec<String> = Vec::new();
    let mut in_hunk = false;
    let mut hunk: Vec<(usize, &str)> = Vec::new();
    let mut header = "";
    for (at, line) in text.lines().enumerate() {
        let starts_file = starts_file(line);
        // `git log -p` / `git show`: a commit header ends the previous hunk
        let starts_commit = COMMIT.is_match(line);
        let starts_hunk = line.starts_with("@@");
        if starts_file || starts_commit || (in_hunk && starts_hunk) {
            flush_hunk(header, &hunk, &cut, &mut out);
            hunk.clear();
            header = "";
        }
        if starts_file || starts_commit {
            in_hunk = false;
        }
        if starts_hunk {
            in_hunk = true;
            header = line;
        } else if in_hunk {
            hunk.push((at, line));
        } else {
            // file headers (`index`, `---`, `+++`, modes, renames) and
            // commit headers, as printed
            out.push(line.to_string());
        }
    }
    flush_hunk(header, &hunk, &cut, &mut out);
    Some(out.join("\n") + "\n")
}

/// One hunk, its header quoted as printed, with the context cut to one
/// line around each change: a stretch of unchanged lines that costs more
/// than the line saying so becomes `… N unchanged lines (tokensieve show
/// ID --lines A:B) …`, a line no diff has (never a hunk header of ours,
/// which would pass for git's).
fn flush_hunk(header: &str, numbered: &[(usize, &str)], cut: &Cut, out: &mut Vec<String>) {
    if !header.is_empty() {
        out.push(header.to_string());
    }
    let lines: Vec<&str> = numbered.iter().map(|(_, l)| *l).collect();
    let change = |l: &str| l.starts_with('+') || l.starts_with('-');
    let keep: Vec<bool> = (0..lines.len())
        .map(|i| {
            change(lines[i])
                || !lines[i].starts_with(' ')
                || (i > 0 && change(lines[i - 1]))
                || lines.get(i + 1).is_some_and(|n| change(n))
        })
        .collect();
    let mut run: Vec<(usize, &str)> = Vec::new();
    let mut gap: Vec<(usize, &str)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !keep[i] {
            cut.flush(&mut run, out);
            gap.push(numbered[i]);
            continue;
        }
        cut.gap(&mut gap, out);
        let changed = change(line);
        if changed && run.first().is_none_or(|r| r.1.starts_with(&line[..1])) {
            run.push(numbered[i]);
        } else {
            cut.flush(&mut run, out);
            if changed {
                run.push(numbered[i]);
            } else {
                out.push(line.to_string());
            }
        }
    }
    cut.flush(&mut run, out);
    cut.gap(&mut gap, out);
}

/// Whether long runs of changed lines are cut, and the output they are cut
/// from (for the command that shows the cut lines).
struct Cut<'a, 'b> {
    on: bool,
    src: &'a Source<'b>,
}

impl Cut<'_, '_> {
    /// Writes a stretch of unchanged lines (raw line index, text): whole
    /// when the line that would stand for it is not shorter.
    fn gap(&self, gap: &mut Vec<(usize, &str)>, out: &mut Vec<String>) {
        let Some((&(first, _), &(last, _))) = gap.first().zip(gap.last()) else { return };
        let show = self.src.id.map_or_else(String::new, |id| {
            format!(" (tokensieve show {id} --lines {}:{})", self.src.line_no(first), self.src.line_no(last))
        });
        let plural = if gap.len() == 1 { "" } else { "s" };
        let marker = format!("… {} unchanged line{plural}{show} …", gap.len());
        let chars: usize = gap.iter().map(|(_, l)| l.len() + 1).sum();
        if chars > marker.len() + 1 {
            out.push(marker);
        } else {
            out.extend(gap.iter().map(|(_, l)| l.to_string()));
        }
        gap.clear();
    }

    /// Writes a run of changed lines (raw line index, text): whole, or past
    /// the budget its first and last lines around `… N more added lines …`
    /// with the `tokensieve show ID --lines A:B` that prints the cut ones.
    fn flush(&self, run: &mut Vec<(usize, &str)>, out: &mut Vec<String>) {
        if self.on && run.len() > LONG_RUN {
            let sign = if run[0].1.starts_with('+') { "added" } else { "removed" };
            out.extend(run[..RUN_HEAD].iter().map(|l| l.1.to_string()));
            let (from, to) = (run[RUN_HEAD].0, run[run.len() - RUN_TAIL - 1].0);
            let show = self.src.id.map_or_else(String::new, |id| {
                format!(" (tokensieve show {id} --lines {}:{})", self.src.line_no(from), self.src.line_no(to))
            });
            out.push(format!("… {} more {sign} lines{show} …", run.len() - RUN_HEAD - RUN_TAIL));
            out.extend(run[run.len() - RUN_TAIL..].iter().map(|l| l.1.to_string()));
        } else {
            out.extend(run.iter().map(|l| l.1.to_string()));
        }
        run.clear();
    }
}

impl Filter for Log {
    fn name(&self) -> &'static str {
        "git-log"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "git" && inv.sub() == "log"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        // `git log -p`: commit headers and messages stay, the patches are cut like a diff
        if text.lines().any(|l| l.starts_with("diff --git ")) {
            return diff(text, src);
        }
        // a log is record-like: past the focus size it gets a focus view;
        // below it (or with focus off) commit messages are documents,
        // quoted as printed, unless they repeat a template (bot commits)
        if crate::budget::past_focus(src.focus, text)
            || text.len() > WHOLE_LOG && templated_share(text) >= TEMPLATED
        {
            return log(text, src);
        }
        None
    }
}

/// The share of a log's message lines (indented by four spaces, not blank)
/// that belong to a template: set one word aside (numbers and ids reduced
/// to `#`) and at least `TEMPLATE_FAMILY` lines read the same. Written
/// messages score low (each line its own); bot and scripted commits high.
fn templated_share(text: &str) -> f64 {
    let messages: Vec<Vec<String>> = text
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|m| !m.trim().is_empty())
        // a line's first words decide (bounds the keys of a very long line)
        .map(|m| m.split_whitespace().take(TEMPLATE_WORDS).map(crate::values::shape).collect())
        .collect();
    if messages.is_empty() {
        return 0.0;
    }
    // every line under each of its one-word-masked keys
    let keys = |words: &[String]| -> Vec<String> {
        (0..words.len())
            .map(|i| {
                let mut k = String::new();
                for (j, w) in words.iter().enumerate() {
                    k.push_str(if i == j { "\u{1}" } else { w });
                    k.push(' ');
                }
                k
            })
            .collect()
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    for m in &messages {
        for k in keys(m) {
            *counts.entry(k).or_default() += 1;
        }
    }
    let templated = messages
        .iter()
        .filter(|m| keys(m).iter().any(|k| counts.get(k).is_some_and(|&n| n >= TEMPLATE_FAMILY)))
        .count();
    templated as f64 / messages.len() as f64
}

struct Commit {
    hash: String,
    decoration: String,
    author: String,
    date: String,
    merge: bool,
    /// Message lines (raw line index, text without git's indent).
    message: Vec<(usize, String)>,
    /// `--stat`: the files touched with their counts, and the totals line.
    files: Vec<(String, String)>,
    stat: String,
    /// Line index of its `commit` line.
    start: usize,
}

static STAT_LINE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^ (\S.*?)\s+\|\s+(\d+|Bin)").unwrap());
static STAT_TOTAL: Lazy<Regex> = Lazy::new(|| Regex::new(r"^ \d+ files? changed").unwrap());
/// Hex digits of a hash in the view (`git log --oneline`'s own minimum).
const SHORT_HASH: usize = 7;
/// The newest commits keep git's `commit <full hash>` (what a script, a
/// cherry-pick or a revert is given).
const FULL_HASHES: usize = 5;

/// The commits of a `git log` in its default (`medium`) format, with or
/// without `--stat`; `None` for any other shape (`--oneline`, `--graph`,
/// `--format`...), which this filter does not know.
fn commits(text: &str) -> Option<Vec<Commit>> {
    let mut commits: Vec<Commit> = Vec::new();
    for (at, line) in text.lines().enumerate() {
        if let Some(c) = COMMIT.captures(line) {
            commits.push(Commit {
                hash: c[1].to_string(),
                decoration: c[2].trim().to_string(),
                author: String::new(),
                date: String::new(),
                merge: false,
                message: Vec::new(),
                files: Vec::new(),
                stat: String::new(),
                start: at,
            });
            continue;
        }
        let commit = commits.last_mut()?;
        if let Some(c) = STAT_LINE.captures(line) {
            commit.files.push((c[1].trim().to_string(), c[2].to_string()));
        } else if STAT_TOTAL.is_match(line) {
            commit.stat = line.trim().to_string();
        } else if let Some(a) = line.strip_prefix("Author:") {
            commit.author = a.trim().to_string();
        } else if let Some(d) = line.strip_prefix("Date:") {
            commit.date = short_date(d.trim());
        } else if line.starts_with("Merge:") {
            commit.merge = true;
        } else if let Some(m) = line.strip_prefix("    ") {
            commit.message.push((at, m.trim_end().to_string()));
        } else if !line.trim().is_empty() && !line.starts_with("AuthorDate:") && !line.starts_with("Commit") {
            return None;
        }
    }
    (!commits.is_empty()).then_some(commits)
}

/// The focus view of a log (SPEC §6c): one line per commit (short hash,
/// decoration, date, the author when it changes, subject), then message
/// bodies and `--stat` file lists in order while the view stays within the
/// focus size, and lines of ours (`# …`, a shape no log line has) saying
/// what was left out with the `tokensieve show` command that prints it.
/// Without a stored raw output nothing could be asked for: every body is
/// kept then.
fn log(text: &str, src: &Source) -> Option<String> {
    let commits = commits(text)?;
    let room = match (src.id, src.focus) {
        (None, _) => usize::MAX,
        (Some(_), Some(f)) => f,
        (Some(_), None) => crate::budget::RECORD_FOCUS_FACTOR * crate::budget::FOCUS_DEFAULT,
    };
    let id = src.id.unwrap_or_default();
    let all = src.id.map_or_else(
        || "the raw output was not stored".to_string(),
        |id| format!("all of it: tokensieve show {id}"),
    );
    let name = |c: &Commit| c.author.split(" <").next().unwrap_or("").to_string();
    let one_author = commits.iter().all(|c| c.author == commits[0].author);
    let mut heads = Vec::new();
    let mut prev = String::new();
    for (k, c) in commits.iter().enumerate() {
        let hash = if k < FULL_HASHES {
            format!("commit {}", c.hash)
        } else {
            c.hash[..c.hash.len().min(SHORT_HASH)].to_string()
        };
        let deco = if c.decoration.is_empty() { String::new() } else { format!(" {}", c.decoration) };
        let who = name(c);
        let author = if one_author || who == prev { String::new() } else { format!(" {who}") };
        prev = who;
        let merge = if c.merge { " merge" } else { "" };
        let subject = c.message.iter().map(|m| m.1.trim()).find(|m| !m.is_empty()).unwrap_or("");
        heads.push(format!("{hash}{deco} {}{author}{merge}: {subject}", c.date));
    }
    let header = format!(
        "# focus view: {} commits, one line each (hash date author-when-it-changes: subject), \
         the newest {FULL_HASHES} with the full hash; times left out, {all}",
        commits.len()
    );
    // each author said once, as git names them
    let mut authors: Vec<(&str, usize)> = Vec::new();
    for c in &commits {
        match authors.iter_mut().find(|a| a.0 == c.author) {
            Some(a) => a.1 += 1,
            None => authors.push((&c.author, 1)),
        }
    }
    let mut out = vec![header];
    if one_author {
        out.push(format!("# all {} by Author: {}", commits.len(), commits[0].author));
    } else {
        out.extend(authors.iter().map(|(a, n)| format!("# Author: {a}, {n} commits")));
    }
    let count = |l: &str| crate::auditor::count(crate::auditor::Encoding::Cl100k, l) + 1;
    let mut used = out.iter().chain(&heads).map(|h| count(h)).sum::<usize>();
    let mut left_from: Option<usize> = None;
    for (c, head) in commits.iter().zip(heads) {
        out.push(head);
        if left_from.is_some() {
            continue;
        }
        let mut detail: Vec<String> = Vec::new();
        let mut body = c.message.iter().map(|m| m.1.trim()).skip_while(|m| m.is_empty()).skip(1);
        detail.extend(body.by_ref().filter(|m| !m.is_empty()).map(|m| format!("  {m}")));
        if !c.files.is_empty() || !c.stat.is_empty() {
            let files: Vec<String> = c.files.iter().map(|(f, n)| format!("{f} {n}")).collect();
            detail.push(format!("  {}; {}", files.join(", "), c.stat));
        }
        let cost: usize = detail.iter().map(|d| count(d)).sum();
        if used + cost > room && !detail.is_empty() {
            left_from = Some(c.start);
            continue;
        }
        used += cost;
        out.extend(detail);
    }
    if let Some(from) = left_from {
        let to = text.lines().count().saturating_sub(1);
        out.push(format!(
            "# past the focus size, bodies and files from here on: tokensieve show {id} --lines {}:{}",
            src.line_no(from),
            src.line_no(to)
        ));
    }
    Some(out.join("\n") + "\n")
}

impl Filter for Blame {
    fn name(&self) -> &'static str {
        "git-blame"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "git" && inv.sub() == "blame"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        if !crate::budget::past_focus(src.focus, text) {
            return None;
        }
        blame(text, src)
    }
}

/// A line of `git blame` in its default format: hash (`^` on a boundary
/// commit), author, date, time, zone, line number, code.
static BLAME_LINE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\^?([0-9a-f]{7,64}) \((.+?) +(\d{4}-\d\d-\d\d) \d\d:\d\d:\d\d [+-]\d{4} +(\d+)\) ?(.*)$")
        .unwrap()
});

/// The focus view of a blame: a line of ours per run of lines from one
/// commit, then the run's lines with their numbers. Any line of another
/// shape (`-s`, `-e`, `--porcelain`, a file-name column): `None`.
fn blame(text: &str, src: &Source) -> Option<String> {
    let id = src.id?;
    let mut out = vec![format!(
        "# focus view: a line of ours per run of lines from one commit (# hash author date, lines), \
         then its lines numbered; times and zones left out, all of it: tokensieve show {id}"
    )];
    let mut run: Option<(String, String, String)> = None;
    let mut lines: Vec<(String, String)> = Vec::new();
    let flush = |run: &Option<(String, String, String)>,
                 lines: &mut Vec<(String, String)>,
                 out: &mut Vec<String>| {
        let (Some((hash, author, date)), Some(first), Some(last)) = (run, lines.first(), lines.last()) else {
            return;
        };
        let span = if first.0 == last.0 { first.0.clone() } else { format!("{}-{}", first.0, last.0) };
        out.push(format!("# {hash} {author} {date}, lines {span}"));
        out.extend(lines.drain(..).map(|(n, code)| format!("{n} {code}")));
    };
    for line in text.lines() {
        let c = BLAME_LINE.captures(line)?;
        let key = (c[1].to_string(), c[2].trim().to_string(), c[3].to_string());
        if run.as_ref() != Some(&key) {
            flush(&run, &mut lines, &mut out);
            run = Some(key);
        }
        lines.push((c[4].to_string(), c[5].to_string()));
    }
    flush(&run, &mut lines, &mut out);
    Some(out.join("\n") + "\n")
}

/// `Mon Oct 12 11:54:00 2026 +0000` → `2026-10-12`; other formats as-is.
fn short_date(d: &str) -> String {
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    if let Some(c) = GIT_DATE.captures(d)
        && let Some(m) = MONTHS.iter().position(|m| *m == &c[1])
    {
        let day: u32 = c[2].parse().unwrap_or(0);
        return format!("{}-{:02}-{day:02}", &c[4], m + 1);
    }
    d.to_string()
}

impl Filter for Sync {
    fn name(&self) -> &'static str {
        "git-sync"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "git" && matches!(inv.sub(), "push" | "pull" | "fetch" | "clone")
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        let mut out = Vec::new();
        let mut dropped = 0usize;
        for line in text.lines() {
            if PROGRESS.is_match(line) {
                dropped += 1;
            } else if TRANSFER.is_match(line) {
                // only the final state carries the size
                if line.contains("done") {
                    out.push(line.to_string());
                } else {
                    dropped += 1;
                }
            } else {
                out.push(line.trim_end().to_string());
            }
        }
        (dropped > 0).then(|| tidy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::inv;
    use crate::text::guard::Owned;

    #[test]
    fn status_drops_hints_keeps_paths() {
        let text = "On branch main\nChanges to be committed:\n  (use \"git restore --staged <file>...\" to unstage)\n\tmodified:   README.md\n\nno changes added to commit (use \"git add\" and/or \"git commit -a\")\n";
        let out =
            Status.summarize(&inv("git status"), text, &crate::text::guard::Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "On branch main\nChanges to be committed:\n modified:   README.md\n\nno changes added to commit\n"
        );
    }

    #[test]
    fn diff_keeps_file_headers_and_every_changed_line_and_cuts_long_runs_past_the_budget() {
        let mut text = String::from(
            "diff --git a/x b/x\ndeleted file mode 100644\nindex 1..0\n--- a/x\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n",
        );
        text.push_str("diff --git a/y b/y\nindex 1..2 100644\n--- a/y\n+++ b/y\n@@ -1,1 +1,31 @@\n ctx\n");
        for i in 0..30 {
            text.push_str(&format!("+line {i}\n"));
        }
        let owned = Owned::new(&text);
        let out = diff(&text, &Source { budget: Some(100), ..owned.src() }).unwrap();
        // a deleted file's lines are changed lines too: all there
        assert!(out.starts_with(
            "diff --git a/x b/x\ndeleted file mode 100644\nindex 1..0\n--- a/x\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\ndiff --git a/y b/y\nindex 1..2 100644\n--- a/y\n+++ b/y\n@@ -1,1 +1,31 @@\n ctx\n"
        ), "{out}");
        assert!(
            out.contains(
                "+line 7\n… 19 more added lines (tokensieve show abc123 --lines 24:42) …\n+line 27\n"
            ),
            "{out}"
        );
        // past the focus size too, with no budget
        let focused = diff(&text, &focus_src(&owned, 200)).unwrap();
        assert!(
            focused.contains("… 19 more added lines (tokensieve show abc123 --lines 24:42) …"),
            "{focused}"
        );
        // within both every changed line stays
        assert_eq!(diff(&text, &focus_src(&owned, 100_000)).unwrap(), diff(&text, &owned.src()).unwrap());
        let whole = diff(&text, &owned.src()).unwrap();
        assert!(whole.contains("+line 6\n+line 7\n+line 8\n"), "{whole}");
        assert!(!whole.contains("more added lines"), "{whole}");
    }

    #[test]
    fn diff_marks_cut_context_with_a_line_of_ours_never_a_hunk_header() {
        let text = "diff --git a/y b/y\nindex 1..2 100644\n--- a/y\n+++ b/y\n@@ -10,13 +10,13 @@ fn main() {\n a\n b\n c\n-d\n+D\n e\n f = compute_the_first_value(alpha, beta);\n g = compute_the_second_value(gamma, delta);\n h = compute_the_third_value(epsilon, zeta);\n i\n-j\n+J\n k\n";
        let out = diff(text, &Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "diff --git a/y b/y\nindex 1..2 100644\n--- a/y\n+++ b/y\n@@ -10,13 +10,13 @@ fn main() {\n a\n b\n c\n-d\n+D\n e\n… 3 unchanged lines (tokensieve show abc123 --lines 12:14) …\n i\n-j\n+J\n k\n"
        );
        assert_eq!(out.lines().filter(|l| l.starts_with("@@")).count(), 1, "{out}");
        // a stretch shorter than the line that would stand for it stays
        let short = "diff --git a/y b/y\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n c\n d\n e\n-f\n+F\n";
        assert_eq!(diff(short, &Owned::new(short).src()).unwrap(), short);
    }

    #[test]
    fn short_log_passes_whole() {
        let text = "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A B <a@x>\nDate:   Mon Oct 12 11:54:00 2026 +0000\n\n    Subject one\n";
        assert_eq!(Log.summarize(&inv("git log"), text, &Owned::new(text).src()), None);
    }

    /// A log of `n` commits whose messages come from `message(k)`.
    fn log_of(n: usize, message: impl Fn(usize) -> String) -> String {
        (0..n)
            .map(|k| {
                format!(
                    "commit {k:040x}\nAuthor: A B <a@x>\nDate:   Mon Oct 12 11:54:00 2026 +0000\n\n{}\n",
                    message(k).lines().map(|l| format!("    {l}\n")).collect::<String>()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_long_log_of_written_messages_passes_whole() {
        // every word its own (letters only: numbers are set aside as `#`)
        let word = |n: usize| -> String {
            let mut n = n * 7919 + 13;
            let mut w = String::new();
            while n > 0 {
                w.push((b'a' + (n % 26) as u8) as char);
                n /= 26;
            }
            w
        };
        let text = log_of(40, |k| {
            let line = |i: usize| (0..7).map(|j| word(k * 100 + i * 10 + j)).collect::<Vec<_>>().join(" ");
            format!("{}\n\n{}\n{}", line(0), line(1), line(2))
        });
        assert!(text.len() > WHOLE_LOG);
        assert_eq!(templated_share(&text), 0.0);
        assert_eq!(Log.summarize(&inv("git log -40"), &text, &Owned::new(&text).src()), None);
        // under the focus size: whole (a document, quoted as printed)
        let owned = Owned::new(&text);
        assert_eq!(Log.summarize(&inv("git log -40"), &text, &focus_src(&owned, 100_000)), None);
        assert!(Log.summarize(&inv("git log -40"), &text, &focus_src(&owned, 500)).is_some());
    }

    #[test]
    fn a_long_log_of_templated_messages_is_summarised() {
        let text =
            log_of(40, |k| format!("Bump dep-{k} from 1.{k}.0 to 1.{k}.1\n\nSigned-off-by: bot <bot@x>"));
        assert!(templated_share(&text) > 0.9);
        let owned = Owned::new(&text);
        // under the focus size, but a template: the view, bodies while they fit
        let out = Log.summarize(&inv("git log -40"), &text, &focus_src(&owned, 3000)).unwrap();
        assert!(out.starts_with("# focus view: 40 commits"), "{out}");
        assert!(
            out.contains(
                "\n# all 40 by Author: A B <a@x>\ncommit 0000000000000000000000000000000000000000 2026-10-12: Bump dep-0 from 1.0.0 to 1.0.1\n  Signed-off-by: bot <bot@x>\n"
            ),
            "{out}"
        );
    }

    fn focus_src(owned: &Owned, focus: usize) -> Source<'_> {
        Source { focus: Some(focus), ..owned.src() }
    }

    #[test]
    fn a_log_past_the_focus_size_gets_a_line_per_commit_and_bodies_while_they_fit() {
        let authors = ["Ann Lee <ann@x>", "Ann Lee <ann@x>", "Bo Chen <bo@y>"];
        let text = (0..30)
            .map(|k| {
                format!(
                    "commit {k:07x}{}\nAuthor: {}\nDate:   Mon Oct 12 11:54:00 2026 +0000\n\n    Subject number {k} of the log\n\n    Why {k}: a body line that explains it.\n\n src/a{k}.rs | 3 ++-\n 1 file changed, 2 insertions(+), 1 deletion(-)\n",
                    "a".repeat(33),
                    authors[k % 3]
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        let owned = Owned::new(&text);
        let out = Log.summarize(&inv("git log"), &text, &focus_src(&owned, 900)).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].starts_with("# focus view: 30 commits"), "{out}");
        // each author said once as git names them, in lines of ours
        assert_eq!(
            lines[1..3],
            ["# Author: Ann Lee <ann@x>, 20 commits", "# Author: Bo Chen <bo@y>, 10 commits"]
        );
        // every commit present, the author only when it changes; the
        // newest with git's full hash
        let a33 = "a".repeat(33);
        assert_eq!(lines[3], format!("commit 0000000{a33} 2026-10-12 Ann Lee: Subject number 0 of the log"));
        assert_eq!(lines[6], format!("commit 0000001{a33} 2026-10-12: Subject number 1 of the log"));
        assert!(
            out.contains(&format!("\ncommit 0000002{a33} 2026-10-12 Bo Chen: Subject number 2 of the log\n")),
            "{out}"
        );
        assert!(out.contains("\n0000005 2026-10-12 Bo Chen: Subject number 5 of the log\n"), "{out}");
        for k in 0..30 {
            assert!(out.contains(&format!(" Subject number {k} of the log\n")), "{k}: {out}");
        }
        assert_eq!(lines[4], "  Why 0: a body line that explains it.");
        assert_eq!(lines[5], "  src/a0.rs 3; 1 file changed, 2 insertions(+), 1 deletion(-)");
        // the rest is named by the range that prints it, in a line of ours
        let last = lines.last().unwrap();
        assert!(
            last.starts_with(
                "# past the focus size, bodies and files from here on: tokensieve show abc123 --lines "
            ),
            "{out}"
        );
        let from: usize = last.rsplit(' ').next().unwrap().split(':').next().unwrap().parse().unwrap();
        let first_left = text.lines().nth(from - 1).unwrap();
        assert!(first_left.starts_with("commit "), "{first_left}");
        let k = usize::from_str_radix(&first_left["commit ".len()..][..7], 16).unwrap();
        assert!(
            k > 0 && !out.contains(&format!("Why {k}:")) && out.contains(&format!("Why {}:", k - 1)),
            "{out}"
        );
        assert!(crate::auditor::count(crate::auditor::Encoding::Cl100k, &out) <= 900, "{out}");
        // nothing stored, nothing that could be asked for: every body kept
        let unstored =
            Log.summarize(&inv("git log"), &text, &Source { id: None, ..focus_src(&owned, 900) }).unwrap();
        assert!(unstored.contains("Why 29:") && !unstored.contains("# past the focus size"), "{unstored}");
        assert!(unstored.lines().next().unwrap().ends_with("the raw output was not stored"), "{unstored}");
    }

    #[test]
    fn one_author_is_said_once_and_other_shapes_are_declined() {
        let text = "commit 0123456789abcdef0123456789abcdef01234567 (HEAD -> main)\nAuthor: A B <a@x>\nDate:   Mon Oct 12 11:54:00 2026 +0000\n\n    Subject one\n\n    Body line.\n";
        let out = log(text, &Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "# focus view: 1 commits, one line each (hash date author-when-it-changes: subject), the newest 5 with the full hash; times left out, all of it: tokensieve show abc123\n# all 1 by Author: A B <a@x>\ncommit 0123456789abcdef0123456789abcdef01234567 (HEAD -> main) 2026-10-12: Subject one\n  Body line.\n"
        );
        assert!(log("abc1234 oneline subject\n", &Owned::new("x").src()).is_none());
    }

    #[test]
    fn blame_past_the_focus_size_gets_a_line_per_run() {
        let mut text = String::new();
        for n in 1..=60 {
            let (hash, who, date) = match n {
                47 => ("00000000", "Not Committed Yet", "2026-11-26 12:00:00 +0100"),
                40..=45 => ("3319214d", "Alice Moreau", "2026-04-01 10:12:33 +0100"),
                _ => ("^e696d7d", "Priya Raman", "2026-01-08 09:00:01 +0530"),
            };
            text.push_str(&format!("{hash} ({who:<17} {date} {n:>2})     line_{n} = compute({n})\n"));
        }
        let owned = Owned::new(&text);
        assert_eq!(Blame.summarize(&inv("git blame a.py"), &text, &focus_src(&owned, 100_000)), None);
        let out = Blame.summarize(&inv("git blame a.py"), &text, &focus_src(&owned, 200)).unwrap();
        assert!(
            out.contains("\n# e696d7d Priya Raman 2026-01-08, lines 1-39\n1     line_1 = compute(1)\n"),
            "{out}"
        );
        assert!(out.contains("\n# 3319214d Alice Moreau 2026-04-01, lines 40-45\n40     line_40"), "{out}");
        assert!(out.contains("\n# 00000000 Not Committed Yet 2026-11-26, lines 47\n47     line_47"), "{out}");
        assert!(out.contains("\n# e696d7d Priya Raman 2026-01-08, lines 48-60\n"), "{out}");
        assert_eq!(out.lines().filter(|l| !l.starts_with('#')).count(), 60);
        // another shape: declined
        let porcelain = "e696d7de 1 1 1\nauthor Priya\n";
        assert_eq!(
            Blame.summarize(&inv("git blame"), porcelain, &focus_src(&Owned::new(porcelain), 200)),
            None
        );
    }

    #[test]
    fn push_keeps_refs_drops_progress() {
        let text = "Enumerating objects: 5, done.\nCounting objects: 100% (5/5), done.\nWriting objects: 100% (3/3), 300 bytes | 300.00 KiB/s, done.\nTotal 3 (delta 1), reused 0 (delta 0)\nTo github.com:o/r.git\n   abc..def  main -> main\n";
        let out =
            Sync.summarize(&inv("git push"), text, &crate::text::guard::Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "Writing objects: 100% (3/3), 300 bytes | 300.00 KiB/s, done.\nTotal 3 (delta 1), reused 0 (delta 0)\nTo github.com:o/r.git\n   abc..def  main -> main\n"
        );
    }
}
