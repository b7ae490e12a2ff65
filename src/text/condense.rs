//! Dense renderings (hundreds of findings) made short without losing a
//! signal line. Findings of one family — the same message once their
//! location and quoted names are set aside — keep their first line
//! as printed; the others become one line of ours that lists each one's
//! location (and names, when they differ) and ends with the command that
//! prints them all: `(N lines: tokensieve show ID --grep '…')`. The guard
//! checks that command like any other. Errors are never condensed: only
//! families of warnings, notes, conventions and the like.

use std::collections::HashMap;

use once_cell::sync::Lazy;
use regex::Regex;

use crate::text::guard::{self, Source};

/// Families smaller than this stay as they are.
const MIN_FAMILY: usize = 4;
/// A grep pattern is a literal part of the message at least this long.
const MIN_LITERAL: usize = 6;

/// `path:line[:col]:` or `path:line:col -` at the start of a finding.
static LOCATION: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\s*(\S+?:\d+(?::\d+)?)(?::| -)\s").expect("valid location regex"));
static QUOTED: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"‘[^’]*’|'[^']*'|"[^"]*"|`[^`]*`"#).expect("valid quote regex"));
/// A family of errors, not of warnings or conventions: `error`/`fatal` as a
/// word, or a checker's error code (`E1101`, `F0001`).
static SEVERE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"(?i:\b(?:error|fatal)\b)|\b[EF]\d{4}\b").expect("valid severity regex"));
/// Context lines a compiler prints before a finding (`a.c: In function ‘f’:`).
static CONTEXT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r": In (?:function|member function|constructor|destructor|instantiation of) .*:$|: At global scope:$",
    )
    .expect("valid context regex")
});

/// One finding line of a rendering.
struct Finding<'a> {
    /// Index in the rendering.
    at: usize,
    location: &'a str,
    quoted: Vec<&'a str>,
    /// Raw lines (0-based) with this text.
    raw: &'a [usize],
}

/// `body` with its large families of findings condensed, or `None` when
/// nothing was.
pub fn condense(body: &str, src: &Source) -> Option<String> {
    let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
    for e in &src.ledger.entries {
        if let Some(l) = src.cleaned.get(e.line) {
            by_text.entry(l.trim()).or_default().push(e.line);
        }
    }
    let lines: Vec<&str> = body.lines().collect();
    // per family: its key, whether it holds errors, its findings
    let mut families: Vec<(String, bool, Vec<Finding>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(raw) = by_text.get(line.trim()) else { continue };
        let Some(c) = LOCATION.captures(line) else { continue };
        let rest = &line[c.get(0).map_or(0, |m| m.end())..];
        // numbers in the message stay part of the key (`Too many arguments
        // (7/5)`): a member's values are its location and quoted names only
        let key = QUOTED.replace_all(rest, "‘’").into_owned();
        let finding = Finding {
            at,
            location: c.get(1).map_or("", |m| m.as_str()),
            quoted: QUOTED.find_iter(rest).map(|m| m.as_str()).collect(),
            raw,
        };
        let k = *index.entry(key.clone()).or_insert_with(|| {
            families.push((key, false, Vec::new()));
            families.len() - 1
        });
        families[k].1 |= SEVERE.is_match(rest);
        families[k].2.push(finding);
    }
    let mut drop = vec![false; lines.len()];
    let mut after: HashMap<usize, String> = HashMap::new();
    for (key, severe, members) in &families {
        // errors stay one by one: only the lesser findings are condensed
        if members.len() < MIN_FAMILY || *severe {
            continue;
        }
        let mut targets: Vec<usize> = members.iter().flat_map(|m| m.raw.iter().copied()).collect();
        targets.sort_unstable();
        targets.dedup();
        let Some(count) = literals(key).find_map(|lit| guard::count_line(src, &regex::escape(lit), &targets))
        else {
            continue;
        };
        let first = &members[0];
        let same_names = members.iter().all(|m| m.quoted == first.quoted);
        let places = places(&members[1..], same_names);
        for m in &members[1..] {
            drop[m.at] = true;
            // the context line that introduced only this finding goes with it
            if m.at > 0 && CONTEXT.is_match(lines[m.at - 1]) {
                drop[m.at - 1] = true;
            }
        }
        let indent: String = lines[first.at].chars().take_while(|c| c.is_whitespace()).collect();
        after.insert(first.at, format!("{indent}… {} more like it {places} {count}", members.len() - 1));
    }
    if after.is_empty() {
        return None;
    }
    let mut out = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if !drop[i] {
            out.push(line.to_string());
        }
        if let Some(more) = after.remove(&i) {
            out.push(more);
        }
    }
    Some(out.join("\n") + "\n")
}

/// Where the members of a family are, every location kept but each path
/// written once: the folder all of them share first (`in src/ at`), then
/// each file with its `line:col`s (`a.c:5:3, 9:1; b.c:7:2`), the quoted
/// names after each location when they differ between members.
fn places(members: &[Finding], same_names: bool) -> String {
    let split = |loc: &'_ str| -> (usize, usize) {
        // the path ends at the first `:digit`
        let b = loc.as_bytes();
        let end = (0..b.len().saturating_sub(1))
            .find(|&k| b[k] == b':' && b[k + 1].is_ascii_digit())
            .unwrap_or(loc.len());
        (end, (end + 1).min(loc.len()))
    };
    let paths: Vec<&str> = members.iter().map(|m| &m.location[..split(m.location).0]).collect();
    let mut folder = paths.first().map_or("", |p| &p[..p.rfind('/').map_or(0, |k| k + 1)]);
    for p in &paths {
        while !p.starts_with(folder) {
            folder = &folder[..folder[..folder.len() - 1].rfind('/').map_or(0, |k| k + 1)];
        }
    }
    // a short shared folder is not worth its own words
    if paths.len() < 2 || folder.len() < 8 {
        folder = "";
    }
    let mut out = if folder.is_empty() { "at ".to_string() } else { format!("in {folder} at ") };
    let mut last: Option<&str> = None;
    for (m, path) in members.iter().zip(&paths) {
        let at = &m.location[split(m.location).1..];
        if last == Some(path) {
            out.push_str(", ");
        } else {
            if last.is_some() {
                out.push_str("; ");
            }
            out.push_str(&path[folder.len()..]);
            if !at.is_empty() {
                out.push(':');
            }
        }
        out.push_str(at);
        if !same_names && !m.quoted.is_empty() {
            out.push(' ');
            out.push_str(&m.quoted.join(" "));
        }
        last = Some(path);
    }
    out
}

/// The literal parts of a family key, longest first.
fn literals(key: &str) -> impl Iterator<Item = &str> {
    let mut parts: Vec<&str> =
        key.split(['#', '‘', '’']).map(str::trim).filter(|p| p.len() >= MIN_LITERAL).collect();
    parts.sort_by_key(|p| std::cmp::Reverse(p.len()));
    parts.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::guard::Owned;

    #[test]
    fn a_family_keeps_its_first_line_and_lists_the_rest() {
        let mut raw = String::from("[ 3%] Building C object a.o\n");
        for i in 1..=6 {
            raw.push_str(&format!("src/t{i}.c: In function ‘t{i}_weight’:\n"));
            raw.push_str(&format!(
                "src/t{i}.c:5:32: warning: unused parameter ‘unused_{i}’ [-Wunused-parameter]\n"
            ));
        }
        raw.push_str("src/main.c:9:3: error: expected ‘;’ before ‘}’ token\n");
        let owned = Owned::new(&raw);
        let body: String = raw.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let out = condense(&body, &owned.src()).unwrap();
        assert_eq!(
            out,
            "src/t1.c: In function ‘t1_weight’:\n\
             src/t1.c:5:32: warning: unused parameter ‘unused_1’ [-Wunused-parameter]\n\
             … 5 more like it at src/t2.c:5:32 ‘unused_2’; src/t3.c:5:32 ‘unused_3’; src/t4.c:5:32 ‘unused_4’; src/t5.c:5:32 ‘unused_5’; src/t6.c:5:32 ‘unused_6’ \
             (6 lines: tokensieve show abc123 --grep 'warning: unused parameter')\n\
             src/main.c:9:3: error: expected ‘;’ before ‘}’ token\n"
        );
        assert_eq!(crate::text::guard::check(&out, &owned.src()), Ok(()));
    }

    #[test]
    fn small_families_and_unstored_outputs_stay() {
        let raw = "a.c:1:1: warning: x is odd\na.c:2:1: warning: x is odd\nb.c:3:1: error: y\n";
        let owned = Owned::new(raw);
        assert!(condense(raw, &owned.src()).is_none());
        let many: String = (1..9).map(|i| format!("a.c:{i}:1: warning: x is odd\n")).collect();
        let owned = Owned::new(&many);
        let src = Source { id: None, ..owned.src() };
        assert!(condense(&many, &src).is_none());
    }
}
