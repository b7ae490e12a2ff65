//! Listings: grep/rg hits, find/fd paths, ls -l / ls -R.
//!
//! Shared rules: hits and files inside dependency or build directories
//! (node_modules, site-packages, vendor, target, __pycache__...) are
//! summarised per package unless they are all there is; the rest is grouped
//! by file or directory. Every shown hit stays literally `path:line: text`
//! (agents copy it); when there are too many, each file or directory shows
//! its first entries and counts the rest (the raw output is stored).

use std::collections::{BTreeMap, HashMap, HashSet};

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::guard::Source;

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
/// Hits shown per file at most, and in total (the per-file cap shrinks first).
const HITS_PER_FILE: usize = 10;
const MAX_HITS: usize = 400;
/// File names shown in a `find` listing at most.
const MAX_NAMES: usize = 800;
const MAX_TEXT: usize = 160;
/// A large listing's summary aims at no more than this share of the raw size;
/// below `LARGE` chars (the default text threshold) nothing is capped by size.
const SHARE: f64 = 0.35;
const LARGE: usize = 4000;
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

/// The most chars a summary of `raw_len` chars of listing may take.
fn size_budget(raw_len: usize) -> usize {
    if raw_len > LARGE { (raw_len as f64 * SHARE) as usize } else { usize::MAX }
}

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

/// `root/: N <what> in M files — pkg1 n, pkg2 n, …` per vendored folder.
fn vendored_lines(hits: &[(String, String)], files: &HashMap<String, usize>, what: &str) -> Vec<String> {
    let mut per_root: BTreeMap<String, (usize, Vec<(String, usize)>)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for (root, pkg) in hits {
        let e = per_root.entry(root.clone()).or_insert_with(|| {
            order.push(root.clone());
            (0, Vec::new())
        });
        e.0 += 1;
        match e.1.iter_mut().find(|(p, _)| p == pkg) {
            Some(x) => x.1 += 1,
            None => e.1.push((pkg.clone(), 1)),
        }
    }
    let mut out = Vec::new();
    for root in order {
        let (n, mut pkgs) = per_root.remove(&root).unwrap_or_default();
        pkgs.sort_by_key(|p| std::cmp::Reverse(p.1));
        let shown: Vec<String> = pkgs.iter().take(12).map(|(p, c)| format!("{p} {c}")).collect();
        let more = if pkgs.len() > 12 { format!(", +{} more", pkgs.len() - 12) } else { String::new() };
        let nfiles = files.get(&root).copied().unwrap_or(0);
        let in_files = if what == "matches" { format!(" in {nfiles} files") } else { String::new() };
        out.push(format!(
            "{root}/ (dependencies, not listed): {n} {what}{in_files}: {}{more}",
            shown.join(", ")
        ));
    }
    out
}

impl Filter for Grep {
    fn name(&self) -> &'static str {
        "grep"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        let tool = inv.is(&["grep", "egrep", "fgrep", "rg", "ag", "ack"])
            || (inv.tool == "git" && inv.sub() == "grep");
        // counts (-c) and file lists (-l, -L) are not `path:line:text` hits
        let not_hits = ['c', 'l', 'L'].iter().any(|&f| inv.has_short(f))
            || ["--count", "--files-with-matches", "--files-without-match"].iter().any(|f| inv.has_flag(f));
        tool && !not_hits
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        grep(text)
    }
}

fn grep(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let numbered = lines.iter().filter(|l| HIT.is_match(l)).count();
    let hits: Vec<Option<(String, String, String)>> = if numbered * 10 >= lines.len() * 9 {
        lines
            .iter()
            .map(|l| HIT.captures(l).map(|c| (c[1].to_string(), c[2].to_string(), c[3].to_string())))
            .collect()
    } else {
        lines
            .iter()
            .map(|l| HIT_NO_LINE.captures(l).map(|c| (c[1].to_string(), String::new(), c[2].to_string())))
            .collect()
    };
    let matched = hits.iter().filter(|h| h.is_some()).count();
    // only `path:line:text` or `path:text` output (grep -rn, rg): anything else is not ours
    if matched < 2 || matched * 10 < lines.len() * 9 {
        return None;
    }
    // each path's vendored root, worked out once for the count and the fold
    let roots: Vec<Option<(String, String)>> =
        hits.iter().map(|h| h.as_ref().and_then(|(p, _, _)| vendored_root(p))).collect();
    let vendored_count = roots.iter().flatten().count();
    let fold_vendored = vendored_count >= VENDORED_MIN && vendored_count < matched;
    let mut files: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut vend_hits: Vec<(String, String)> = Vec::new();
    let mut vend_files: HashMap<String, usize> = HashMap::new();
    let mut seen_vend_file: HashSet<String> = HashSet::new();
    let mut other: Vec<String> = Vec::new();
    for ((line, hit), vend) in lines.iter().zip(hits).zip(roots) {
        let Some((path, num, body)) = hit else {
            other.push(line.to_string());
            continue;
        };
        if fold_vendored && let Some((root, pkg)) = vend {
            if seen_vend_file.insert(path.clone()) {
                *vend_files.entry(root.clone()).or_default() += 1;
            }
            vend_hits.push((root, pkg));
            continue;
        }
        push_grouped(&mut files, &mut index, path, (num, body));
    }
    let budget = size_budget(text.len());
    let size = |cap: usize| -> usize {
        files
            .iter()
            .map(|(p, hs)| {
                hs.iter()
                    .take(cap)
                    .map(|(n, b)| p.len() + n.len() + 3 + b.trim().len().min(MAX_TEXT))
                    .sum::<usize>()
            })
            .sum()
    };
    let mut cap = if text.len() > LARGE { HITS_PER_FILE } else { usize::MAX };
    while cap > 1
        && (files.iter().map(|f| f.1.len().min(cap)).sum::<usize>() > MAX_HITS || size(cap) > budget)
    {
        cap -= 1;
    }
    let mut out = vec![format!("{matched} matches in {} files", files.len() + seen_vend_file.len())];
    let mut shown = 0usize;
    for (k, (path, hs)) in files.iter().enumerate() {
        if shown >= MAX_HITS {
            out.push(format!("… {} more files with matches", files.len() - k));
            break;
        }
        for (num, body) in hs.iter().take(cap) {
            let at = if num.is_empty() { String::new() } else { format!(":{num}") };
            out.push(format!("{path}{at}: {}", clip(body.trim())));
            shown += 1;
        }
        if hs.len() > cap {
            let rest: Vec<&str> = hs[cap..].iter().map(|(n, _)| n.as_str()).collect();
            if rest[0].is_empty() {
                out.push(format!("{path}: +{} more matches", rest.len()));
            } else {
                out.push(format!("{path}: +{} more at lines {}", rest.len(), rest.join(",")));
            }
        }
    }
    out.extend(vendored_lines(&vend_hits, &vend_files, "matches"));
    out.extend(other);
    Some(out.join("\n") + "\n")
}

fn clip(s: &str) -> String {
    if s.chars().count() <= MAX_TEXT {
        return s.to_string();
    }
    let head: String = s.chars().take(MAX_TEXT).collect();
    format!("{head}…")
}

impl Filter for Find {
    fn name(&self) -> &'static str {
        "find"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["find", "fd", "fdfind"])
            && !inv.args.iter().any(|a| a == "-ls" || a == "-printf" || a == "-exec")
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        find(text)
    }
}

fn find(text: &str) -> Option<String> {
    let paths: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    // a short listing is already what the agent wants to read
    if paths.len() < 20 {
        return None;
    }
    let roots: Vec<Option<(String, String)>> = paths.iter().map(|p| vendored_root(p)).collect();
    let vendored_count = roots.iter().flatten().count();
    let fold_vendored = vendored_count >= VENDORED_MIN && vendored_count < paths.len();
    let mut dirs: Vec<(String, Vec<String>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut vend: Vec<(String, String)> = Vec::new();
    let mut other = Vec::new();
    for (p, vend_root) in paths.iter().zip(roots) {
        if p.starts_with("find: ") {
            other.push(p.to_string());
            continue;
        }
        if fold_vendored && let Some(root) = vend_root {
            vend.push(root);
            continue;
        }
        let (dir, name) = match p.rsplit_once('/') {
            Some((d, n)) => (format!("{d}/"), n.to_string()),
            None => (String::new(), p.to_string()),
        };
        push_grouped(&mut dirs, &mut index, dir, name);
    }
    for (_, names) in &mut dirs {
        names.sort();
    }
    // names per directory: as many as fit both the name count and the size budget
    let budget = size_budget(text.len());
    let fits = |cap: usize| {
        let names: usize = dirs.iter().map(|d| d.1.len().min(cap)).sum();
        let chars: usize = dirs
            .iter()
            .map(|d| d.0.len() + 12 + d.1.iter().take(cap).map(|n| n.len() + 1).sum::<usize>())
            .sum();
        names <= MAX_NAMES && chars <= budget
    };
    let mut cap = usize::MAX;
    if !fits(cap) {
        cap = 1;
        while fits(cap + 1) {
            cap += 1;
        }
    }
    let mut out = vec![format!("{} paths in {} directories", paths.len(), dirs.len())];
    for (dir, names) in &dirs {
        let label = if dir.is_empty() { "." } else { dir.as_str() };
        let more =
            if names.len() > cap { format!(" … +{} more", names.len() - cap) } else { String::new() };
        let shown: Vec<&str> = names.iter().take(cap).map(String::as_str).collect();
        out.push(format!("{label} {}{more}", shown.join(" ")));
    }
    out.extend(vendored_lines(&vend, &HashMap::new(), "paths"));
    out.extend(other);
    Some(out.join("\n") + "\n")
}

impl Filter for Ls {
    fn name(&self) -> &'static str {
        "ls"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "ls" && (inv.has_short('l') || inv.has_short('R') || inv.has_flag("--recursive"))
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        ls(text)
    }
}

/// `ls -l`/`-R`: per directory its header, `total`, then `name size` for
/// files and `name/` for directories; mode and owner shown only when they
/// differ from the listing's usual ones; dependency/cache folders counted.
fn ls(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let entries: Vec<Option<regex::Captures>> = lines.iter().map(|l| LS_ENTRY.captures(l)).collect();
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
    for (line, entry) in lines.iter().zip(&entries) {
        if line.ends_with(':') && entry.is_none() {
            flush(&mut row, &mut out);
            if let Some((n, dir)) = skipping.take() {
                out.push(format!("{dir} {n} entries (cache/dependency folder, not listed)"));
            }
            let dir = line.trim_end_matches(':');
            if dir.split('/').any(|p| VENDORED.contains(&p)) {
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
            format!("{name}/")
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

    #[test]
    fn grep_keeps_literal_locations_and_folds_dependencies() {
        // large enough (> LARGE chars) for the per-file cap to apply
        let mut text = String::new();
        for i in 0..120 {
            text.push_str(&format!("./node_modules/pkg{}/index.js:{i}:  throw new Error()\n", i % 3));
        }
        for i in 0..15 {
            text.push_str(&format!("./src/app.js:{}:    throw new Error('x')\n", i * 10 + 1));
        }
        let out = grep(&text).unwrap();
        assert!(out.contains("./src/app.js:1: throw new Error('x')"), "{out}");
        assert!(out.contains("./src/app.js:91: throw"));
        assert!(out.contains("./src/app.js: +5 more at lines 101,111,121,131,141"));
        assert!(
            out.contains("./node_modules/ (dependencies, not listed): 120 matches in 3 files: pkg0 40"),
            "{out}"
        );
    }

    #[test]
    fn grep_without_line_numbers() {
        let text: String = (0..14).map(|i| format!("src/m{}.rs:    let x{i} = 1;\n", i % 2)).collect();
        let out = grep(&text).unwrap();
        assert!(out.starts_with("14 matches in 2 files\nsrc/m0.rs: let x0 = 1;\n"), "{out}");
        assert!(out.contains("src/m0.rs: let x10 = 1;"), "{out}");
    }

    #[test]
    fn find_groups_by_directory() {
        let paths: String = (0..30).map(|i| format!("./src/mod{}/f{i}.rs\n", i % 2)).collect();
        let out = find(&paths).unwrap();
        assert!(out.starts_with("30 paths in 2 directories\n./src/mod0/ f0.rs f10.rs"), "{out}");
    }

    #[test]
    fn ls_long_compacts_rows() {
        let text = "d:\ntotal 24\ndrwxr-xr-x 2 root root 4096 May  9  2026 .\ndrwxr-xr-x 9 root root 4096 May  9  2026 ..\n-rw-r--r-- 1 root root  120 May  9  2026 a.py\n-rwxr-xr-x 1 root root 7000 May  9  2026 run.sh\ndrwxr-xr-x 2 root root 4096 May  9  2026 sub\n-rw-r--r-- 1 dev  dev    10 May  9 12:00 b.py\n-rw-r--r-- 1 root root    5 May  9  2026 c.py\n";
        let out = ls(text).unwrap();
        assert_eq!(
            out,
            "(files -rw-r--r--, dirs drwxr-xr-x, owner root:root unless shown; dates omitted)\nd:\ntotal 24\na.py 120  run.sh 7000 -rwxr-xr-x  sub/  b.py 10 dev:dev  c.py 5\n"
        );
    }

    #[test]
    fn not_a_listing_declines() {
        assert!(grep("just some words\nand more\n").is_none());
        assert!(ls("a.py\nb.py\n").is_none());
    }
}
