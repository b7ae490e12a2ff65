//! Listings: grep/rg hits, find/fd paths, ls -l / ls -R. What was searched
//! for is the answer: nothing is dropped below the budget.
//!
//! - grep/rg/git grep: every hit as printed (`path:line:text`, indentation
//!   kept), in file order; `rg --heading` output passes as it is. (Printing
//!   the path once per file would save a fifth; agents and the corpus checks
//!   match `path:line` pairs, so each hit keeps its path.)
//! - find/fd: every path as printed within the budget; past it, paths
//!   grouped by directory (`dir/ name name ...`), every name listed.
//! - Hits and paths inside dependency or build folders (node_modules,
//!   site-packages, vendor, target, __pycache__...) that the command did not
//!   name are counted per package, with the command that prints them, when
//!   they are not all there is; a folder the user named is listed like any.
//! - Past the budget (`Source::budget`), the files (or folders) that do not
//!   fit are counted, each with the `tokensieve show ID --grep` that prints
//!   its lines.
//! - ls -l / -R: compact rows (see `ls`).

use std::collections::{BTreeMap, HashMap, HashSet};

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::guard::{self, Source};

pub struct Grep;
pub struct Find;
pub struct Ls;

/// Directories whose contents are dependencies, caches or build output.
const VENDORED: &[&str] = &[
    "node_modules",
    "site-packages",
    "dist-packages",
    ".venv",
    "venv",
    "vendor",
    "target",
    ".git",
    "__pycache__",
    ".tox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".next",
    ".nuxt",
    ".cache",
    ".gradle",
    "bower_components",
];
/// `ls -l` entries per output line.
const LS_PER_LINE: usize = 12;
/// Below this many hits/paths in dependency folders they are listed normally.
const VENDORED_MIN: usize = 50;

static HIT: Lazy<Regex> = Lazy::new(|| Regex::new(r"^(.+?):(\d+):(.*)$").unwrap());
/// `path:text` (rg and grep without -n): a path with a file extension.
static HIT_NO_LINE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^([^\s:][^:]*\.[A-Za-z0-9]{1,8}):(.*)$").unwrap());
static LS_ENTRY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^([-dlcbps][-rwxsStT@+.]{9,10})\s+\d+\s+(\S+)\s+(\S+)\s+([\d,]+(?:\.\d+)?[KMGTP]?)\s+(\w{3}\s+\d{1,2}\s+[\d:]{4,5}|\d{4}-\d\d-\d\d(?: [\d:]+)?)\s(.+)$").unwrap()
});

/// A tar-style entry (`tar -tv`, `dpkg-deb -c`): mode, `owner/group`,
/// size, date and time, name; the same groups as `LS_ENTRY`.
static TAR_ENTRY: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"^([-dlcbps][-rwxsStT]{9})\s+([^\s/]+)/(\S+)\s+(\d+)\s+(\d{4}-\d\d-\d\d \d\d:\d\d(?::\d\d)?)\s(.+)$",
    )
    .unwrap()
});

/// An entry of a long listing, `ls -l` or tar style.
fn entry(line: &str) -> Option<regex::Captures<'_>> {
    LS_ENTRY.captures(line).or_else(|| TAR_ENTRY.captures(line))
}

/// Output that is a long listing whatever printed it (`tar -tv`,
/// `dpkg-deb -c`, `ls -l` through a wrapper): at least `LISTING_MIN`
/// entries making up nine tenths of the lines. Such output is an answer,
/// every name of it, so it gets `ls`'s compact rows, never a log summary.
///
/// Every output no filter claims is asked, so the test gives up at the
/// first line too many that is not an entry, and a line whose first bytes
/// are no mode (`drwxr-xr-x`) never reaches the regexes.
pub(crate) fn any_listing(text: &str) -> Option<String> {
    let lines = text.lines().filter(|l| !l.trim().is_empty());
    let total = lines.clone().count();
    if total < LISTING_MIN {
        return None;
    }
    let mut misses = 0;
    for line in lines {
        if !(looks_like_mode(line) && entry(line).is_some()) {
            misses += 1;
            if misses * 10 > total {
                return None;
            }
        }
    }
    (total - misses >= LISTING_MIN).then(|| ls(text, true)).flatten()
}

/// Whether `line` opens with a file mode: a type and `rwx` triplets.
fn looks_like_mode(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() > 10
        && b"-dlcbps".contains(&b[0])
        && b[1..10].chunks(3).all(|t| matches!(t[0], b'r' | b'-') && matches!(t[1], b'w' | b'-'))
}
const LISTING_MIN: usize = 20;

/// Adds `item` to `key`'s group; groups keep the order their key first came in.
fn push_grouped<T>(
    groups: &mut Vec<(String, Vec<T>)>,
    index: &mut HashMap<String, usize>,
    key: String,
    item: T,
) {
    let k = *index.entry(key.clone()).or_insert_with(|| {
        groups.push((key, Vec::new()));
        groups.len() - 1
    });
    groups[k].1.push(item);
}

/// The vendored folder a path goes through, as `prefix/folder/package`
/// (`./site-packages/sympy`), or `None` for the project's own files.
fn vendored_root(path: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = path.split('/').collect();
    let k = parts.iter().position(|p| VENDORED.contains(p))?;
    let root = parts[..=k].join("/");
    // the package below the folder; a file directly inside counts as "(files)"
    let pkg = if k + 2 < parts.len() { parts[k + 1].to_string() } else { "(files)".to_string() };
    Some((root, pkg))
}

/// Whether the command names a dependency folder itself (`find
/// node_modules/x`, `grep -r foo vendor`): then its contents are the answer.
fn names_vendored(inv: &Invocation) -> bool {
    inv.args.iter().filter(|a| !a.starts_with('-')).any(|a| a.split('/').any(|p| VENDORED.contains(&p)))
}

/// ` (N lines: tokensieve show ID --grep 'RE')` for lines of the raw output
/// left out, or nothing when the output is not stored.
fn command_for(src: &Source, pattern: &str, lines: &[usize]) -> String {
    guard::count_line(src, pattern, lines).map(|c| format!(" {c}")).unwrap_or_default()
}

/// Per dependency folder: `root/ (dependencies): N <what> in M files: pkg n, …`
/// and the command that prints them.
fn vendored_lines(folded: &[(String, String, usize)], what: &str, src: &Source) -> Vec<String> {
    // per folder: its packages with their counts, and the lines under it
    type Root = (String, Vec<(String, usize)>, Vec<usize>);
    let mut roots: Vec<Root> = Vec::new();
    for (root, pkg, line) in folded {
        let k = match roots.iter().position(|r| &r.0 == root) {
            Some(k) => k,
            None => {
                roots.push((root.clone(), Vec::new(), Vec::new()));
                roots.len() - 1
            }
        };
        match roots[k].1.iter_mut().find(|(p, _)| p == pkg) {
            Some(x) => x.1 += 1,
            None => roots[k].1.push((pkg.clone(), 1)),
        }
        roots[k].2.push(*line);
    }
    let mut out = Vec::new();
    for (root, mut pkgs, lines) in roots {
        pkgs.sort_by_key(|p| std::cmp::Reverse(p.1));
        let shown: Vec<String> = pkgs.iter().take(12).map(|(p, c)| format!("{p} {c}")).collect();
        let more = if pkgs.len() > 12 { format!(", +{} more", pkgs.len() - 12) } else { String::new() };
        let command = command_for(src, &format!("^{}/", regex::escape(&root)), &lines);
        out.push(format!(
            "{root}/ (dependencies, not listed): {} {what}: {}{more}{command}",
            lines.len(),
            shown.join(", ")
        ));
    }
    out
}

impl Filter for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }

    fn lossless(&self) -> bool {
        true
    }

    fn claims(&self, inv: &Invocation) -> bool {
        let tool = inv.is(&["grep", "egrep", "fgrep", "rg", "ag", "ack"])
            || (inv.tool == "git" && inv.sub() == "grep");
        // counts (-c) and file lists (-l, -L) are not `path:line:text` hits
        let not_hits = ['c', 'l', 'L'].iter().any(|&f| inv.has_short(f))
            || ["--count", "--files-with-matches", "--files-without-match"].iter().any(|f| inv.has_flag(f));
        tool && !not_hits
    }

    fn summarize(&self, inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        grep(text, inv, src)
    }
}

/// One hit: its file and line.
struct Hit<'a> {
    path: &'a str,
    line: usize,
}

/// `rg --heading`: a path line, then `N:text` lines, a blank line between
/// files: every other non-blank line is a path followed by a numbered line.
fn is_heading_format(lines: &[&str]) -> bool {
    static NUMBERED: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\d+[:-]").unwrap());
    let numbered = lines.iter().filter(|l| NUMBERED.is_match(l)).count();
    let headings = lines.iter().filter(|l| !l.is_empty() && !NUMBERED.is_match(l)).count();
    let followed = lines
        .windows(2)
        .filter(|w| !w[0].is_empty() && !NUMBERED.is_match(w[0]) && NUMBERED.is_match(w[1]))
        .count();
    headings > 0 && followed == headings && numbered >= headings
}

fn grep(text: &str, inv: &Invocation, src: &Source) -> Option<String> {
    let all: Vec<&str> = text.split('\n').collect();
    if is_heading_format(&all) {
        // already grouped by file: the output is the answer as it is
        return Some(text.trim_end().to_string() + "\n");
    }
    let lines: Vec<(usize, &str)> = all.iter().copied().enumerate().filter(|(_, l)| !l.is_empty()).collect();
    let numbered = lines.iter().filter(|(_, l)| HIT.is_match(l)).count();
    let with_numbers = numbered * 10 >= lines.len() * 9;
    let hits: Vec<Option<Hit>> = lines
        .iter()
        .map(|&(i, l)| {
            if with_numbers {
                HIT.captures(l).map(|c| Hit { path: c.get(1).map_or("", |m| m.as_str()), line: i })
            } else {
                HIT_NO_LINE.captures(l).map(|c| Hit { path: c.get(1).map_or("", |m| m.as_str()), line: i })
            }
        })
        .collect();
    let matched = hits.iter().filter(|h| h.is_some()).count();
    // only `path:line:text` or `path:text` output (grep -rn, rg): anything else is not ours
    if matched < 2 || matched * 10 < lines.len() * 9 {
        return None;
    }
    let roots: Vec<Option<(String, String)>> =
        hits.iter().map(|h| h.as_ref().and_then(|h| vendored_root(h.path))).collect();
    let vendored_count = roots.iter().flatten().count();
    let fold_vendored = vendored_count >= VENDORED_MIN && vendored_count < matched && !names_vendored(inv);
    let mut files: Vec<(String, Vec<Hit>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut folded: Vec<(String, String, usize)> = Vec::new();
    let mut vend_files: HashSet<&str> = HashSet::new();
    let mut other: Vec<String> = Vec::new();
    for (((_, line), hit), vend) in lines.iter().zip(hits).zip(roots) {
        let Some(hit) = hit else {
            other.push(line.to_string());
            continue;
        };
        if fold_vendored && let Some((root, pkg)) = vend {
            vend_files.insert(hit.path);
            folded.push((root, pkg, hit.line));
            continue;
        }
        push_grouped(&mut files, &mut index, hit.path.to_string(), hit);
    }
    let budget = src.budget.unwrap_or(usize::MAX);
    let mut out = vec![format!("{matched} matches in {} files", files.len() + vend_files.len())];
    let mut used = out[0].len();
    let mut counted = Vec::new();
    for (path, hs) in &files {
        let group: Vec<&str> = hs.iter().map(|h| src.cleaned.get(h.line).copied().unwrap_or("")).collect();
        let size: usize = group.iter().map(|l| l.len() + 1).sum();
        if used + size > budget && files.len() > 1 {
            let targets: Vec<usize> = hs.iter().map(|h| h.line).collect();
            let command = command_for(src, &format!("^{}:", regex::escape(path)), &targets);
            counted.push(format!("{path}: {} matches{command}", hs.len()));
            continue;
        }
        used += size;
        out.extend(group.iter().map(|l| l.to_string()));
    }
    if !counted.is_empty() {
        out.push(format!("{} more files past the budget:", counted.len()));
        out.extend(counted);
    }
    out.extend(vendored_lines(&folded, "matches", src));
    out.extend(other);
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    Some(out.join("\n") + "\n")
}

impl Filter for Find {
    fn name(&self) -> &'static str {
        "find"
    }

    fn lossless(&self) -> bool {
        true
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["find", "fd", "fdfind"])
            && !inv.args.iter().any(|a| a == "-ls" || a == "-printf" || a == "-exec")
    }

    fn summarize(&self, inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        find(text, inv, src)
    }
}

fn find(text: &str, inv: &Invocation, src: &Source) -> Option<String> {
    let paths: Vec<(usize, &str)> = text.split('\n').enumerate().filter(|(_, l)| !l.is_empty()).collect();
    // a short listing is already what the agent wants to read
    if paths.len() < 20 {
        return None;
    }
    let roots: Vec<Option<(String, String)>> = paths.iter().map(|(_, p)| vendored_root(p)).collect();
    let vendored_count = roots.iter().flatten().count();
    let fold_vendored =
        vendored_count >= VENDORED_MIN && vendored_count < paths.len() && !names_vendored(inv);
    let mut dirs: Vec<(String, Vec<(String, usize)>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut folded: Vec<(String, String, usize)> = Vec::new();
    let mut other = Vec::new();
    for ((i, p), vend_root) in paths.iter().zip(roots) {
        if p.starts_with("find: ") {
            other.push(p.to_string());
            continue;
        }
        if fold_vendored && let Some((root, pkg)) = vend_root {
            folded.push((root, pkg, *i));
            continue;
        }
        let (dir, name) = match p.rsplit_once('/') {
            Some((d, n)) => (format!("{d}/"), n.to_string()),
            None => (String::new(), p.to_string()),
        };
        push_grouped(&mut dirs, &mut index, dir, (name, *i));
    }
    let budget = src.budget.unwrap_or(usize::MAX);
    // Within the budget every path stays as printed, in find's order: an
    // agent (and a check) looks for whole paths. Grouping by directory is
    // only how a listing past the budget keeps every name.
    let folded_at: HashSet<usize> = folded.iter().map(|f| f.2).collect();
    let kept: Vec<&str> = paths.iter().filter(|(i, _)| !folded_at.contains(i)).map(|(_, p)| *p).collect();
    if kept.iter().map(|p| p.len() + 1).sum::<usize>() <= budget {
        let mut out: Vec<String> = kept.iter().map(|p| p.to_string()).collect();
        out.extend(vendored_lines(&folded, "paths", src));
        return Some(out.join("\n") + "\n");
    }
    for (_, names) in &mut dirs {
        names.sort();
    }
    let mut out = vec![format!("{} paths in {} directories", paths.len(), dirs.len())];
    let mut used = out[0].len();
    let mut counted = Vec::new();
    for (dir, names) in &dirs {
        let label = if dir.is_empty() { "." } else { dir.as_str() };
        let shown: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
        let line = format!("{label} {}", shown.join(" "));
        if used + line.len() + 1 > budget && dirs.len() > 1 {
            let targets: Vec<usize> = names.iter().map(|(_, i)| *i).collect();
            let command = command_for(src, &format!("^{}[^/]*$", regex::escape(dir)), &targets);
            counted.push(format!("{label}: {} paths{command}", names.len()));
            continue;
        }
        used += line.len() + 1;
        out.push(line);
    }
    if !counted.is_empty() {
        out.push(format!("{} more directories past the budget:", counted.len()));
        out.extend(counted);
    }
    out.extend(vendored_lines(&folded, "paths", src));
    out.extend(other);
    Some(out.join("\n") + "\n")
}

impl Filter for Ls {
    fn name(&self) -> &'static str {
        "ls"
    }

    fn lossless(&self) -> bool {
        true
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "ls" && (inv.has_short('l') || inv.has_short('R') || inv.has_flag("--recursive"))
    }

    fn summarize(&self, inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        ls(text, names_vendored(inv))
    }
}

/// `ls -l`/`-R`: per directory its header, `total`, then `name size` for
/// files and `name/` for directories; mode and owner shown only when they
/// differ from the listing's usual ones; dependency/cache folders counted.
fn ls(text: &str, named_vendored: bool) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let entries: Vec<Option<regex::Captures>> = lines.iter().map(|l| entry(l)).collect();
    let n_entries = entries.iter().filter(|e| e.is_some()).count();
    if n_entries < 5 {
        return None;
    }
    let common = |col: usize, kind: Option<char>| -> String {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for c in entries.iter().flatten() {
            if kind.is_none_or(|k| c[1].starts_with(k)) {
                *counts.entry(c[col].to_string()).or_default() += 1;
            }
        }
        // the most frequent, ties to the first name: a listing always reads the same
        counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(k, _)| k)
            .unwrap_or_default()
    };
    let (owner, group) = (common(2, None), common(3, None));
    let (file_mode, dir_mode) = (common(1, Some('-')), common(1, Some('d')));
    let mut usual_modes = Vec::new();
    if !file_mode.is_empty() {
        usual_modes.push(format!("files {file_mode}"));
    }
    if !dir_mode.is_empty() {
        usual_modes.push(format!("dirs {dir_mode}"));
    }
    let mut out =
        vec![format!("({}, owner {owner}:{group} unless shown; dates omitted)", usual_modes.join(", "))];
    let mut skipping: Option<(usize, String)> = None;
    let mut row: Vec<String> = Vec::new();
    let flush = |row: &mut Vec<String>, out: &mut Vec<String>| {
        if !row.is_empty() {
            out.push(row.join("  "));
            row.clear();
        }
    };
    // a row printed beside a message of the tool (the member a truncated
    // archive stopped at, between gzip's and tar's complaints) is that
    // message's context: quoted as printed
    let is_error = |k: usize| {
        let l = lines[k];
        entries[k].is_none() && !l.ends_with(':') && !l.starts_with("total ")
    };
    let beside_error = |i: usize| {
        let before = (0..i).rev().find(|&k| !lines[k].trim().is_empty());
        let after = (i + 1..lines.len()).find(|&k| !lines[k].trim().is_empty());
        before.is_some_and(is_error) || after.is_some_and(is_error)
    };
    for (i, (line, entry)) in lines.iter().zip(&entries).enumerate() {
        if entry.is_some() && beside_error(i) {
            flush(&mut row, &mut out);
            out.push(line.to_string());
            continue;
        }
        if line.ends_with(':') && entry.is_none() {
            flush(&mut row, &mut out);
            if let Some((n, dir)) = skipping.take() {
                out.push(format!("{dir} {n} entries (cache/dependency folder, not listed)"));
            }
            let dir = line.trim_end_matches(':');
            if !named_vendored && dir.split('/').any(|p| VENDORED.contains(&p)) {
                skipping = Some((0, line.to_string()));
            } else {
                out.push(line.to_string());
            }
            continue;
        }
        if let Some((n, _)) = skipping.as_mut() {
            if entry.is_some() {
                *n += 1;
            }
            continue;
        }
        let Some(c) = entry else {
            flush(&mut row, &mut out);
            if !line.trim().is_empty() {
                out.push(line.to_string());
            }
            continue;
        };
        let (mode, size, name) = (&c[1], &c[4], &c[6]);
        if name == "." || name == ".." {
            continue;
        }
        let mut item = if mode.starts_with('d') {
            format!("{}/", name.trim_end_matches('/'))
        } else if mode.starts_with('l') {
            name.to_string()
        } else {
            format!("{name} {size}")
        };
        let usual = if mode.starts_with('d') { mode == dir_mode } else { mode == file_mode };
        if !usual && !mode.starts_with('l') {
            item.push_str(&format!(" {mode}"));
        }
        if c[2] != *owner || c[3] != *group {
            item.push_str(&format!(" {}:{}", &c[2], &c[3]));
        }
        row.push(item);
        if row.len() == LS_PER_LINE {
            flush(&mut row, &mut out);
        }
    }
    flush(&mut row, &mut out);
    if let Some((n, dir)) = skipping {
        out.push(format!("{dir} {n} entries (cache/dependency folder, not listed)"));
    }
    Some(out.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::command::inv;
    use crate::text::guard::Owned;

    fn grep_of(cmd: &str, text: &str) -> String {
        let owned = Owned::new(text);
        grep(text, &inv(cmd), &owned.src()).unwrap()
    }

    #[test]
    fn a_long_listing_of_any_tool_keeps_every_name() {
        let mut tar = String::new();
        for i in 0..30 {
            let (mode, size, name) = match i % 3 {
                0 => ("drwxr-xr-x", 0, format!("./srv/app/d{i}/")),
                1 => ("-rw-r--r--", 100 + i, format!("./srv/app/d{}/f{i}.txt", i - 1)),
                _ => ("-rwxr-xr-x", 9000 + i, format!("./srv/app/bin/tool{i}")),
            };
            tar.push_str(&format!("{mode} root/staff {size:>8} 2024-05-01 10:{:02} {name}\n", i % 60));
        }
        let out = any_listing(&tar).expect("a listing");
        for line in tar.lines() {
            let name = line.rsplit(' ').next().unwrap().trim_end_matches('/');
            assert!(out.contains(name), "{name} lost:\n{out}");
        }
        assert!(out.contains("./srv/app/d0/f1.txt 101") && out.contains("./srv/app/d0/ "), "{out}");
        assert!(out.len() * 3 < tar.len() * 2, "{out}");
        // prose, a log, or a listing with much else: not a listing
        let log: String = (0..40).map(|i| format!("2024-05-01 10:00:{i:02} INFO item {i}\n")).collect();
        assert_eq!(any_listing(&log), None);
        let mixed = format!("{tar}{}", "some other line\n".repeat(10));
        assert_eq!(any_listing(&mixed), None);
        // the member a truncated archive stopped at stays as printed
        let last = "-rw-r--r-- root/staff    10588 2024-05-01 10:30 ./srv/app/cut.py";
        let cut =
            format!("{tar}gzip: stdin: unexpected end of file\n{last}\ntar: Unexpected EOF in archive\n");
        let out = any_listing(&cut).expect("a listing");
        assert!(
            out.contains(&format!("\ngzip: stdin: unexpected end of file\n{last}\ntar: Unexpected EOF")),
            "{out}"
        );
        let before = tar.lines().last().unwrap();
        assert!(out.contains(&format!("\n{before}\ngzip: stdin")), "{out}");
        assert!(out.contains("./srv/app/d27/f28.txt 128\n"), "{out}");
    }

    #[test]
    fn grep_keeps_every_hit_and_folds_dependencies_not_named() {
        let mut text = String::new();
        for i in 0..120 {
            text.push_str(&format!("./node_modules/pkg{}/index.js:{i}:  throw new Error()\n", i % 3));
        }
        for i in 0..15 {
            text.push_str(&format!("./src/app.js:{}:    throw new Error('x')\n", i * 10 + 1));
        }
        let out = grep_of("grep -rn Error .", &text);
        assert!(
            out.starts_with("135 matches in 4 files\n./src/app.js:1:    throw new Error('x')\n"),
            "{out}"
        );
        assert!(out.contains("\n./src/app.js:141:    throw new Error('x')\n"), "{out}");
        assert!(
            out.contains("./node_modules/ (dependencies, not listed): 120 matches: pkg0 40, pkg1 40, pkg2 40 (120 lines: tokensieve show abc123 --grep '^\\./node_modules/')"),
            "{out}"
        );
        assert_eq!(crate::text::guard::check(&out, &Owned::new(&text).src()), Ok(()));
        // searched inside node_modules: listed
        let named = grep_of("grep -rn Error node_modules src", &text);
        assert!(named.contains("\n./node_modules/pkg1/index.js:1:  throw new Error()\n"), "{named}");
    }

    #[test]
    fn grep_past_the_budget_counts_files_with_the_command() {
        let text: String = (0..40).map(|i| format!("src/m{}.rs:{i}:    let x{i} = 1;\n", i % 4)).collect();
        let owned = Owned::new(&text);
        let src = Source { budget: Some(400), ..owned.src() };
        let out = grep(&text, &inv("rg -n let"), &src).unwrap();
        assert!(out.contains("src/m0.rs:0:    let x0 = 1;\nsrc/m0.rs:4:    let x4 = 1;\n"), "{out}");
        assert!(
            out.contains("src/m3.rs: 10 matches (10 lines: tokensieve show abc123 --grep '^src/m3\\.rs:')"),
            "{out}"
        );
        assert!(out.len() < 700, "{out}");
    }

    #[test]
    fn rg_heading_passes_as_it_is() {
        let heading = "a.py\n3:    x = 1\n9:    y = 2\n\nb.py\n4:z = 3\n";
        assert_eq!(grep_of("rg --heading -n x", heading), heading);
    }

    #[test]
    fn find_keeps_paths_within_the_budget_and_groups_past_it() {
        let paths: String = (0..30).map(|i| format!("./src/mod{}/f{i}.rs\n", i % 2)).collect();
        let owned = Owned::new(&paths);
        let whole = find(&paths, &inv("find . -name *.rs"), &owned.src()).unwrap();
        assert_eq!(whole, paths);
        let tight = Source { budget: Some(300), ..owned.src() };
        let out = find(&paths, &inv("find . -name *.rs"), &tight).unwrap();
        assert!(out.starts_with("30 paths in 2 directories\n./src/mod0/ f0.rs f10.rs"), "{out}");
        assert!(out.contains(" f8.rs\n./src/mod1/ f1.rs"), "{out}");
        let deps: String =
            (0..60).map(|i| format!("node_modules/p{}/lib/f{i}.d.ts\n", i % 3)).collect::<String>() + &paths;
        let named = find(&deps, &inv("find node_modules -name *.d.ts"), &Owned::new(&deps).src()).unwrap();
        assert!(named.contains("\nnode_modules/p0/lib/f12.d.ts\n"), "{named}");
        let folded = find(&deps, &inv("find . -name *.ts"), &Owned::new(&deps).src()).unwrap();
        assert!(folded.starts_with("./src/mod0/f0.rs\n./src/mod1/f1.rs\n"), "{folded}");
        assert!(folded.contains("node_modules/ (dependencies, not listed): 60 paths: p0 20, p1 20, p2 20 (60 lines: tokensieve show abc123 --grep '^node_modules/')"), "{folded}");
    }

    #[test]
    fn ls_long_compacts_rows() {
        let text = "d:\ntotal 24\ndrwxr-xr-x 2 root root 4096 May  9  2026 .\ndrwxr-xr-x 9 root root 4096 May  9  2026 ..\n-rw-r--r-- 1 root root  120 May  9  2026 a.py\n-rwxr-xr-x 1 root root 7000 May  9  2026 run.sh\ndrwxr-xr-x 2 root root 4096 May  9  2026 sub\n-rw-r--r-- 1 dev  dev    10 May  9 12:00 b.py\n-rw-r--r-- 1 root root    5 May  9  2026 c.py\n";
        let out = ls(text, false).unwrap();
        assert_eq!(
            out,
            "(files -rw-r--r--, dirs drwxr-xr-x, owner root:root unless shown; dates omitted)\nd:\ntotal 24\na.py 120  run.sh 7000 -rwxr-xr-x  sub/  b.py 10 dev:dev  c.py 5\n"
        );
    }

    #[test]
    fn not_a_listing_declines() {
        let words = "just some words\nand more\n";
        assert!(grep(words, &inv("grep x"), &Owned::new(words).src()).is_none());
        assert!(ls("a.py\nb.py\n", false).is_none());
    }
}
