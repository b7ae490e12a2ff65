//! The context of a kept line (issue 26, rule 3): the lines without which
//! a signal line a rendering keeps reads out of place.
//!
//! - its **section header**: a banner (`# example.com/pkg`, `====== SET
//!   ======`, `----- Captured log -----`) above it, or, for an indented
//!   line, the unindented line that opens its list (`The following NEW
//!   packages will be installed:`) or names its file (a bare path over
//!   eslint/stylelint's indented findings);
//! - its **next line**, when that line comes from the same source (the same
//!   `prog[pid]`, systemd unit or `[pid]` of a log: `Scheduled restart job`
//!   after a unit failed) or continues it (indented deeper: go's `have …`/
//!   `want …` under its error).
//!
//! Pure functions of the lines; callers decide which lines are kept.

use once_cell::sync::Lazy;
use regex::Regex;

/// How far above a kept line its header may stand.
const SECTION: usize = 400;

/// A banner: a heading (`# x`, `## x`) or a short title between rules of
/// `=`, `-` or `*` (`====== SET ======`; not strace's `--- SIGCHLD {…} ---`).
static BANNER: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:#{1,3} \S.*|\s*(?:={3,}|-{3,}|\*{3,}) ?[^=*\s-][^{}]{0,60}?(?:={3,}|-{3,}|\*{3,})\s*)$")
        .expect("valid banner regex")
});

/// A bare path naming the file of the findings under it: no blanks, a
/// directory or an extension.
static PATH: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(?:\S*/)?[\w.+~-]+\.[A-Za-z]\w{0,9}$|^\S*/\S+$").expect("valid path regex"));

/// Who printed a log line: syslog's `host prog[pid]:` after its stamp,
/// `prog[pid]:` (journald), each with the systemd unit that names itself
/// (`thumbd.service:`), or a bracketed pid (`[1234]`, PostgreSQL's
/// prefix). Found in the line's first chars only.
static SOURCE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"^\w{3} [ \d]\d \d\d:\d\d:\d\d (\S+ [\w.@/-]+(?:\[\d+\])?:(?: [\w@.-]+\.(?:service|socket|timer|mount|scope|slice|target):)?)",
        r"|([\w.@-]+\[\d+\]:(?: [\w@.-]+\.(?:service|socket|timer|mount|scope|slice|target):)?|\[\d+\])"
    ))
    .expect("valid source regex")
});
const SOURCE_SPAN: usize = 80;

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

fn is_banner(line: &str) -> bool {
    BANNER.is_match(line)
}

/// Where the line came from, when it says (see `SOURCE`).
fn source(line: &str) -> Option<&str> {
    let mut end = line.len().min(SOURCE_SPAN);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    // a unit name may run past the span: match on the whole line, start within it
    let c = SOURCE.captures(line)?;
    c.get(1).or_else(|| c.get(2)).filter(|m| m.start() < end).map(|m| m.as_str())
}

/// The section header of line `i`, if it has one (see the module doc).
pub fn header_of(lines: &[&str], i: usize) -> Option<usize> {
    let line = lines.get(i)?;
    if line.trim().is_empty() || is_banner(line) {
        return None;
    }
    let floor = i.saturating_sub(SECTION);
    let mut k = i;
    // an indented line: the line that opens its list or names its file
    if indent(line) > 0 {
        while k > floor && indent(lines[k - 1]) > 0 && !lines[k - 1].trim().is_empty() {
            k -= 1;
        }
        if k > 0 {
            let top = lines[k - 1];
            let opens = top.trim_end().ends_with(':') || PATH.is_match(top.trim_end());
            if !top.trim().is_empty() && (opens || is_banner(top)) {
                return Some(k - 1);
            }
        }
    }
    (floor..k).rev().find(|&h| is_banner(lines[h]))
}

/// The line after line `i` that belongs with it (see the module doc).
pub fn next_of(lines: &[&str], i: usize) -> Option<usize> {
    let line = lines.get(i)?;
    let j = next_after(lines, i)?;
    let next = lines[j];
    // (an indented line under an indented one is a row of a table as often)
    if j == i + 1 && indent(line) == 0 && indent(next) > 0 && !line.is_empty() {
        return Some(j);
    }
    match (source(line), source(next)) {
        (Some(a), Some(b)) if a == b && !is_banner(next) => Some(j),
        _ => None,
    }
}

/// The first non-blank line after line `i` (within two lines): what
/// followed a stack trace ending there.
pub fn next_after(lines: &[&str], i: usize) -> Option<usize> {
    let k = lines.get(i + 1..)?.iter().take(2).position(|l| !l.trim().is_empty())?;
    Some(i + 1 + k)
}

/// The context lines of `kept` (indices into `lines`) that are not kept
/// themselves, in order.
pub fn around(lines: &[&str], kept: &[usize]) -> Vec<usize> {
    let set: std::collections::HashSet<usize> = kept.iter().copied().collect();
    let mut out: Vec<usize> = kept
        .iter()
        .flat_map(|&i| [header_of(lines, i), next_of(lines, i)])
        .flatten()
        .filter(|k| !set.contains(k))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banners_head_their_sections() {
        let lines = [
            "# example.com/ledger/ledger",
            "ledger/limits.go:6:21: invalid operation",
            "ledger/limits.go:15:6: i declared but not used",
            "# example.com/ledger/export",
            "export/csv.go:17:55: cannot use r.Cents",
        ];
        assert_eq!(header_of(&lines, 2), Some(0));
        assert_eq!(header_of(&lines, 4), Some(3));
        assert_eq!(header_of(&lines, 0), None);
        assert!(!is_banner("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=26298} ---"));
        let bench =
            ["====== SET ======", "  2000 requests completed", "", "Summary:", "  throughput summary: 1"];
        // an indented line: its list's opener first
        assert_eq!(header_of(&bench, 4), Some(3));
        assert_eq!(header_of(&bench, 3), Some(0));
        assert_eq!(header_of(&bench, 1), Some(0));
    }

    #[test]
    fn a_list_or_a_file_heads_its_indented_lines() {
        let apt =
            ["Reading state information...", "The following NEW packages will be installed:", "  sl cowsay"];
        assert_eq!(header_of(&apt, 2), Some(1));
        let lint =
            ["css/site.css", "  12:3  ✖  Unknown value \"-ms-flexbox\"", "  14:1  ✖  Expected indentation"];
        assert_eq!(header_of(&lint, 2), Some(0));
        // an indented line under prose has no header
        let prose = ["It went well and", "  then it stopped"];
        assert_eq!(header_of(&prose, 1), None);
    }

    #[test]
    fn the_next_line_of_the_same_source_follows() {
        let log = [
            "Nov 23 08:22:33 web01 systemd[1]: thumbd.service: Failed with result 'core-dump'.",
            "Nov 23 08:22:33 web01 systemd[1]: thumbd.service: Scheduled restart job, restart counter is at 1.",
            "Nov 23 08:22:34 web01 systemd[1]: nginx.service: Reloaded.",
            "Nov 23 08:22:34 web01 CRON[1202]: (www-data) CMD (php artisan)",
        ];
        assert_eq!(next_of(&log, 0), Some(1));
        // another unit, another process: not its context
        assert_eq!(next_of(&log, 1), None);
        assert_eq!(next_of(&log, 2), None);
        let kernel = [
            "Nov 23 08:22:33 web01 kernel: [81233.402117] thumbd[2911]: segfault at 18 ip 000055d0c3a1b2f4",
            "Nov 23 08:22:33 web01 kernel: [81233.402140] Code: 48 8b 45 e8 48 8b 40 18 <8b> 00 89 45 fc",
        ];
        assert_eq!(next_of(&kernel, 0), Some(1));
        let pg = [
            "2026-11-27 03:00:01.100 UTC [17056] ERROR:  deadlock detected",
            "2026-11-27 03:00:01.100 UTC [17056] DETAIL:  Process 17056 waits for ShareLock",
            "2026-11-27 03:00:01.200 UTC [17060] LOG:  checkpoint starting",
        ];
        assert_eq!(next_of(&pg, 0), Some(1));
        assert_eq!(next_of(&pg, 1), None);
        // a deeper-indented line continues the one above
        let go = ["export/csv.go:32:9: not enough return values", "\thave ([]Row)", "\twant ([]Row, error)"];
        assert_eq!(next_of(&go, 0), Some(1));
        assert_eq!(around(&go, &[0]), vec![1]);
    }
}
