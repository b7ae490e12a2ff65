//! git status/diff/show/log/push/pull/fetch/clone.
//!
//! - status: every path with its state; the `(use "git ...")` hints go.
//! - diff/show: file headers, modes, hunk headers (as printed) and every
//!   changed line stay; `index`/`---`/`+++` lines go, context is cut to one
//!   line around each change after a hunk's first change (each later stretch
//!   gets a true `@@ -old +new @@`), a deleted file's body becomes a count;
//!   past the budget, long runs of added or removed lines keep their first
//!   and last lines around `… N more added lines (tokensieve show ID
//!   --lines A:B) …`.
//! - log: commit messages are documents. A short log (up to 4,000 chars)
//!   passes whole, and so does a longer one whose messages are written
//!   prose (up to the budget, like any document). Only a log whose messages
//!   repeat a template (`Bump X to N`, `Merge pull request #N from ...`:
//!   most message lines one word away from two others) gets one line per
//!   commit (`commit <hash> <date> <author>: <subject>`), authors listed
//!   once with their e-mail; newest commits keep full hashes and bodies.
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
pub struct Sync;

/// A run of added or removed lines longer than this is cut to head + tail.
const LONG_RUN: usize = 16;
const RUN_HEAD: usize = 8;
const RUN_TAIL: usize = 3;
/// Commits that keep their full hash and message body.
const DETAILED_COMMITS: usize = 10;
const BODY_COMMITS: usize = 3;
const BODY_LINES: usize = 3;
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
}

/// The header line of one file's patch (plain or combined diff).
fn starts_file(line: &str) -> bool {
    line.starts_with("diff --git ") || line.starts_with("diff --cc ")
}

/// Whether `text` is over the budget: only then are long runs of changed
/// lines cut (within it the changes are the answer, every line kept).
fn past_budget(text: &str, src: &Source) -> bool {
    src.budget.is_some_and(|b| text.len() > b)
}

fn diff(text: &str, src: &Source) -> Option<String> {
    if !text.lines().any(starts_file) {
        return None;
    }
    let cut = Cut { on: past_budget(text, src), src };
    let mut out: Vec<String> = Vec::new();
    let mut deleted_file = false;
    let mut in_hunk = false;
    let mut hunk: Vec<(usize, &str)> = Vec::new();
    let mut header = "";
    let mut removed_body = 0usize;
    for (at, line) in text.lines().enumerate() {
        let starts_file = starts_file(line);
        // `git log -p` / `git show`: a commit header ends the previous hunk
        let starts_commit = COMMIT.is_match(line);
        if starts_file || starts_commit || (in_hunk && line.starts_with("@@")) {
            flush_hunk(header, &hunk, &cut, &mut out);
            hunk.clear();
            flush_removed(&mut removed_body, &mut out);
        }
        if starts_file || starts_commit {
            deleted_file = false;
            in_hunk = false;
            out.push(line.to_string());
            continue;
        }
        if !in_hunk {
            if line.starts_with("index ") || line.starts_with("--- ") || line.starts_with("+++ ") {
                continue;
            }
            if line.starts_with("deleted file mode") {
                deleted_file = true;
            }
            if !line.starts_with("@@") {
                out.push(line.to_string());
                continue;
            }
        }
        if line.starts_with("@@") {
            in_hunk = true;
            header = line;
            continue;
        }
        if deleted_file {
            removed_body += 1;
        } else {
            hunk.push((at, line));
        }
    }
    flush_hunk(header, &hunk, &cut, &mut out);
    flush_removed(&mut removed_body, &mut out);
    Some(out.join("\n") + "\n")
}

static HUNK: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^@@+ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@+ ?(.*)$").unwrap());

/// One hunk with its context cut to one line around each change. The hunk's
/// own header is quoted as printed, with the context before its first change
/// (so its numbers stay true); every later stretch gets a `@@ -old +new @@`
/// of ours.
fn flush_hunk(header: &str, numbered: &[(usize, &str)], cut: &Cut, out: &mut Vec<String>) {
    if numbered.is_empty() {
        return;
    }
    let lines: Vec<&str> = numbered.iter().map(|(_, l)| *l).collect();
    let Some(c) = HUNK.captures(header) else {
        out.push(header.to_string());
        out.extend(lines.iter().map(|l| l.to_string()));
        return;
    };
    let (mut old, mut new): (usize, usize) = (c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0));
    let change = |l: &str| l.starts_with('+') || l.starts_with('-');
    let first_change = lines.iter().position(|l| change(l)).unwrap_or(lines.len());
    let keep: Vec<bool> = (0..lines.len())
        .map(|i| {
            i < first_change
                || change(lines[i])
                || lines[i].starts_with('\\')
                || (i > 0 && change(lines[i - 1]))
                || lines.get(i + 1).is_some_and(|n| change(n))
        })
        .collect();
    let mut run: Vec<(usize, &str)> = Vec::new();
    let mut first = true;
    let mut gap = true;
    for (i, line) in lines.iter().enumerate() {
        if keep[i] {
            if gap {
                cut.flush(&mut run, out);
                if first {
                    out.push(header.to_string());
                } else {
                    out.push(format!("@@ -{old} +{new} @@"));
                }
                first = false;
                gap = false;
            }
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
        } else {
            gap = true;
        }
        match line.chars().next() {
            Some('+') => new += 1,
            Some('-') => old += 1,
            Some('\\') => {}
            _ => {
                old += 1;
                new += 1;
            }
        }
    }
    cut.flush(&mut run, out);
}

/// Whether long runs of changed lines are cut, and the output they are cut
/// from (for the command that shows the cut lines).
struct Cut<'a, 'b> {
    on: bool,
    src: &'a Source<'b>,
}

impl Cut<'_, '_> {
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

fn flush_removed(n: &mut usize, out: &mut Vec<String>) {
    if *n > 0 {
        out.push(format!("({n} lines removed)"));
        *n = 0;
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
        // commit messages are documents: a short log passes whole (quoted
        // as printed, the generic path's threshold); a long one gets one line
        // per commit
        if text.len() <= WHOLE_LOG || templated_share(text) < TEMPLATED {
            return None;
        }
        log(text)
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
        .map(|m| m.split_whitespace().take(TEMPLATE_WORDS).map(crate::text::generic::shape).collect())
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
    message: Vec<String>,
    /// `--stat`: the files touched and the totals line.
    files: Vec<String>,
    stat: String,
}

/// How many files of a `--stat` commit are named.
const STAT_FILES: usize = 8;
static STAT_LINE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^ (\S.*?)\s+\|\s+(?:\d+|Bin)").unwrap());
static STAT_TOTAL: Lazy<Regex> = Lazy::new(|| Regex::new(r"^ \d+ files? changed").unwrap());

fn log(text: &str) -> Option<String> {
    let mut commits: Vec<Commit> = Vec::new();
    for line in text.lines() {
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
            });
            continue;
        }
        let commit = commits.last_mut()?;
        if let Some(c) = STAT_LINE.captures(line) {
            commit.files.push(c[1].trim().to_string());
            continue;
        }
        if STAT_TOTAL.is_match(line) {
            commit.stat = line.trim().to_string();
            continue;
        }
        if let Some(a) = line.strip_prefix("Author:") {
            commit.author = a.trim().to_string();
        } else if let Some(d) = line.strip_prefix("Date:") {
            commit.date = short_date(d.trim());
        } else if line.starts_with("Merge:") {
            commit.merge = true;
        } else if let Some(m) = line.strip_prefix("    ") {
            commit.message.push(m.trim().to_string());
        } else if !line.trim().is_empty() && !line.starts_with("AuthorDate:") && !line.starts_with("Commit") {
            // --stat, --patch, --graph...: a shape this filter does not know
            return None;
        }
    }
    if commits.is_empty() {
        return None;
    }
    let mut authors: Vec<(String, usize)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for c in &commits {
        match index.get(&c.author) {
            Some(&k) => authors[k].1 += 1,
            None => {
                index.insert(c.author.clone(), authors.len());
                authors.push((c.author.clone(), 1));
            }
        }
    }
    let mut out = vec![format!("{} commits", commits.len())];
    for (a, n) in &authors {
        out.push(format!("Author: {a} ({n} commits)"));
    }
    for (k, c) in commits.iter().enumerate() {
        let hash = if k < DETAILED_COMMITS { c.hash.as_str() } else { &c.hash[..c.hash.len().min(10)] };
        let name = c.author.split(" <").next().unwrap_or("");
        let mut msg = c.message.iter().filter(|m| !m.is_empty());
        let subject = msg.next().map(String::as_str).unwrap_or("");
        let deco = if c.decoration.is_empty() { String::new() } else { format!(" {}", c.decoration) };
        let merge = if c.merge { " merge" } else { "" };
        out.push(format!("commit {hash}{deco} {} {name}{merge}: {subject}", c.date));
        if !c.stat.is_empty() {
            let more = if c.files.len() > STAT_FILES {
                format!(", +{} more", c.files.len() - STAT_FILES)
            } else {
                String::new()
            };
            let names: Vec<&str> = c.files.iter().take(STAT_FILES).map(String::as_str).collect();
            out.push(format!(" {} ({}{more})", c.stat, names.join(", ")));
        }
        if k < BODY_COMMITS {
            let body: Vec<&String> = msg.collect();
            for m in body.iter().take(BODY_LINES) {
                out.push(format!(" {m}"));
            }
            if body.len() > BODY_LINES {
                out.push(format!(" … {} more lines", body.len() - BODY_LINES));
            }
        }
    }
    if commits.len() > BODY_COMMITS && commits.iter().skip(BODY_COMMITS).any(|c| c.message.len() > 1) {
        out.push(format!("(message bodies shown for the newest {BODY_COMMITS} commits only)"));
    }
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
    fn diff_cuts_long_runs_and_deleted_bodies() {
        let mut text = String::from(
            "diff --git a/x b/x\ndeleted file mode 100644\nindex 1..0\n--- a/x\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n-b\n-c\n",
        );
        text.push_str("diff --git a/y b/y\nindex 1..2 100644\n--- a/y\n+++ b/y\n@@ -1,1 +1,31 @@\n ctx\n");
        for i in 0..30 {
            text.push_str(&format!("+line {i}\n"));
        }
        let owned = Owned::new(&text);
        let out = diff(&text, &Source { budget: Some(100), ..owned.src() }).unwrap();
        assert!(out.starts_with(
            "diff --git a/x b/x\ndeleted file mode 100644\n(3 lines removed)\ndiff --git a/y b/y\n@@ -1,1 +1,31 @@\n ctx\n"
        ));
        assert!(
            out.contains(
                "+line 7\n… 19 more added lines (tokensieve show abc123 --lines 24:42) …\n+line 27\n"
            ),
            "{out}"
        );
        assert!(!out.contains("index "));
        // within the budget every changed line stays
        let whole = diff(&text, &owned.src()).unwrap();
        assert!(whole.contains("+line 6\n+line 7\n+line 8\n"), "{whole}");
        assert!(!whole.contains("more added lines"), "{whole}");
    }

    #[test]
    fn diff_quotes_hunk_headers_and_numbers_later_stretches() {
        let text = "diff --git a/y b/y\n--- a/y\n+++ b/y\n@@ -10,9 +10,9 @@ fn main() {\n a\n b\n c\n-d\n+D\n e\n f\n g\n-h\n+H\n";
        let out = diff(text, &Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "diff --git a/y b/y\n@@ -10,9 +10,9 @@ fn main() {\n a\n b\n c\n-d\n+D\n e\n@@ -16 +16 @@\n g\n-h\n+H\n"
        );
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
    }

    #[test]
    fn a_long_log_of_templated_messages_is_summarised() {
        let text =
            log_of(40, |k| format!("Bump dep-{k} from 1.{k}.0 to 1.{k}.1\n\nSigned-off-by: bot <bot@x>"));
        assert!(templated_share(&text) > 0.9);
        let out = Log.summarize(&inv("git log -40"), &text, &Owned::new(&text).src()).unwrap();
        assert!(out.starts_with("40 commits\n"), "{out}");
    }

    #[test]
    fn log_lists_authors_once() {
        let text = "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A B <a@x>\nDate:   Mon Oct 12 11:54:00 2026 +0000\n\n    Subject one\n\n    Body line.\n";
        let out = log(text).unwrap();
        assert_eq!(
            out,
            "1 commits\nAuthor: A B <a@x> (1 commits)\ncommit 0123456789abcdef0123456789abcdef01234567 2026-10-12 A B: Subject one\n Body line.\n"
        );
        assert!(log("abc1234 oneline subject\n").is_none());
    }

    #[test]
    fn log_stat_keeps_totals_and_names() {
        let text = "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A B <a@x>\nDate:   Mon Oct 12 11:54:00 2026 +0000\n\n    Subject one\n\n src/a.rs | 3 ++-\n src/b.rs | 1 +\n 2 files changed, 3 insertions(+), 1 deletion(-)\n";
        let out = log(text).unwrap();
        assert!(
            out.ends_with(
                ": Subject one\n 2 files changed, 3 insertions(+), 1 deletion(-) (src/a.rs, src/b.rs)\n"
            ),
            "{out}"
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
