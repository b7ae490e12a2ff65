//! User filters: `[[filter]]` tables in a settings file, for tools we have
//! no built-in filter for (or to replace one for some subcommand). A
//! filter names the commands it is for (`match = "wget"`, `match = "git
//! log"`, or a `regex` over the command line) and what to do with their
//! text output, in this order: keep / drop lines, replace, fold similar
//! lines, head / tail, `on_empty`. Inline `[[filter.test]]` tables give an
//! input and what the agent should read (`tokensieve filter test`).
//!
//! A user filter only proposes a rendering, like the built-ins: the guard
//! (`text::guard`) checks it against the signal ledger, and a rendering
//! that loses an error line is replaced by the next candidate (the
//! built-in filter unless `builtin = false`, the generic treatment, the
//! cleaned text). A user filter cannot make an error vanish.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use regex::{Regex, RegexSet};
use serde::Deserialize;

use crate::command::Invocation;

/// A filter as written in the file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Shown in the receipt (`text:user:NAME`); default: the match words.
    pub name: Option<String>,
    /// Tool and subcommand words: `wget`, `git log`, `aws s3 ls`.
    #[serde(rename = "match")]
    pub matches: Option<String>,
    /// Or a regex over the command line (words joined by spaces).
    pub regex: Option<String>,
    /// Work on the text with ANSI sequences and `\r` redraws removed
    /// (default), or on the raw lines.
    pub strip_ansi: Option<bool>,
    /// Lines matching any of these go.
    #[serde(default)]
    pub drop: Vec<String>,
    /// When set, only lines matching one of these stay.
    #[serde(default)]
    pub keep: Vec<String>,
    #[serde(default)]
    pub replace: Vec<Replace>,
    /// Runs of 3+ lines alike but for their numbers become the first line
    /// and a count.
    #[serde(default)]
    pub fold: bool,
    pub head: Option<usize>,
    pub tail: Option<usize>,
    /// Printed when nothing is left.
    pub on_empty: Option<String>,
    /// `false`: the built-in filter does not run for these commands (the
    /// generic treatment still does, after this filter).
    pub builtin: Option<bool>,
    #[serde(default)]
    pub test: Vec<Test>,
    /// `file:line` of the `[[filter]]` header (set by the reader).
    #[serde(skip)]
    pub origin: String,
    #[serde(skip)]
    pub source_file: Option<PathBuf>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Replace {
    pub pattern: String,
    /// The replacement (`$1` for groups).
    pub with: String,
}

/// One inline test.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Test {
    pub name: Option<String>,
    /// The command line the input came from (default: the match words).
    pub cmd: Option<String>,
    pub input: String,
    #[serde(default)]
    pub exit: i32,
    /// The whole rendering the agent reads.
    pub expected: Option<String>,
    /// Text the rendering must hold, and must not.
    #[serde(default)]
    pub contains: Vec<String>,
    #[serde(default)]
    pub absent: Vec<String>,
}

#[derive(Clone)]
enum Matcher {
    Words(Vec<String>),
    Regex(Regex),
}

/// A compiled filter.
#[derive(Clone)]
pub struct UserFilter {
    pub name: String,
    pub origin: String,
    matcher: Matcher,
    strip_ansi: bool,
    drop: Option<RegexSet>,
    keep: Option<RegexSet>,
    replace: Vec<(Regex, String)>,
    fold: bool,
    head: Option<usize>,
    tail: Option<usize>,
    on_empty: Option<String>,
    /// Whether the built-in filter may still run after this one.
    pub builtin: bool,
}

impl std::fmt::Debug for UserFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UserFilter({} at {})", self.name, self.origin)
    }
}

fn set(patterns: &[String], what: &str) -> Result<Option<RegexSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    RegexSet::new(patterns).map(Some).with_context(|| format!("{what}: not a regex"))
}

impl UserFilter {
    pub fn compile(spec: &Spec) -> Result<UserFilter> {
        let matcher = match (&spec.matches, &spec.regex) {
            (Some(words), None) => {
                let words: Vec<String> = words.split_whitespace().map(str::to_owned).collect();
                let Some(first) = words.first() else { bail!("match: empty") };
                let tool = Invocation::parse(std::slice::from_ref(first)).map(|i| i.tool).unwrap_or_default();
                let mut all = vec![tool];
                all.extend(
                    words[1..]
                        .iter()
                        .map(|w| if w.starts_with('-') { w.clone() } else { w.to_ascii_lowercase() }),
                );
                Matcher::Words(all)
            }
            (None, Some(re)) => Matcher::Regex(Regex::new(re).context("regex: not a regex")?),
            _ => bail!("needs one of `match` (tool and subcommand words) or `regex`"),
        };
        let name = spec
            .name
            .clone()
            .or_else(|| spec.matches.as_ref().map(|m| m.split_whitespace().collect::<Vec<_>>().join("-")))
            .unwrap_or_else(|| "regex".into());
        let replace = spec
            .replace
            .iter()
            .map(|r| Ok((Regex::new(&r.pattern).context("replace: not a regex")?, r.with.clone())))
            .collect::<Result<Vec<_>>>()?;
        Ok(UserFilter {
            name,
            origin: spec.origin.clone(),
            matcher,
            strip_ansi: spec.strip_ansi.unwrap_or(true),
            drop: set(&spec.drop, "drop")?,
            keep: set(&spec.keep, "keep")?,
            replace,
            fold: spec.fold,
            head: spec.head,
            tail: spec.tail,
            on_empty: spec.on_empty.clone(),
            builtin: spec.builtin.unwrap_or(true),
        })
    }

    /// Whether this filter is for `command` (tool first).
    pub fn matches(&self, command: &[String]) -> bool {
        match &self.matcher {
            Matcher::Regex(re) => re.is_match(&command.join(" ")),
            Matcher::Words(words) => {
                let Some(inv) = Invocation::parse(command) else { return false };
                if inv.tool != words[0] {
                    return false;
                }
                // flags anywhere (`dpkg -l`), other words as the subcommand
                // and the words after it, in order
                let (flags, subs): (Vec<&String>, Vec<&String>) =
                    words[1..].iter().partition(|w| w.starts_with('-'));
                if !flags
                    .iter()
                    .all(|f| inv.has_flag(f) || (f.len() == 2 && inv.has_short(f.as_bytes()[1] as char)))
                {
                    return false;
                }
                if subs.is_empty() {
                    return true;
                }
                let Some(sub) = &inv.sub else { return false };
                let at = inv.args.iter().position(|a| a.eq_ignore_ascii_case(sub)).unwrap_or(0);
                let rest =
                    inv.args[at..].iter().filter(|a| !a.starts_with('-')).map(|a| a.to_ascii_lowercase());
                subs.iter().zip(rest.chain(std::iter::repeat(String::new()))).all(|(w, a)| **w == a)
            }
        }
    }

    /// Whether the filter changes anything (a table with only `match` and
    /// `builtin = false` turns the built-in off and leaves the rest alone).
    pub fn transforms(&self) -> bool {
        self.drop.is_some()
            || self.keep.is_some()
            || !self.replace.is_empty()
            || self.fold
            || self.head.is_some()
            || self.tail.is_some()
            || self.on_empty.is_some()
    }

    /// The filter's text for `raw` (`cleaned`: ANSI-free, redraws resolved).
    pub fn apply(&self, raw: &str, cleaned: &str) -> String {
        let text = if self.strip_ansi { cleaned } else { raw };
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| self.keep.as_ref().is_none_or(|k| k.is_match(l)))
            .filter(|l| self.drop.as_ref().is_none_or(|d| !d.is_match(l)))
            .map(|l| {
                let mut l = l.to_string();
                for (re, with) in &self.replace {
                    l = re.replace_all(&l, with.as_str()).into_owned();
                }
                l
            })
            .collect();
        if self.fold {
            lines = fold(lines);
        }
        let (head, tail) = (self.head.unwrap_or(0), self.tail.unwrap_or(0));
        if (self.head.is_some() || self.tail.is_some()) && lines.len() > head + tail {
            let cut = lines.len() - head - tail;
            let mut out: Vec<String> = lines[..head].to_vec();
            out.push(format!("… {cut} lines left out"));
            out.extend(lines[lines.len() - tail..].iter().cloned());
            lines = out;
        }
        if lines.iter().all(|l| l.trim().is_empty())
            && let Some(msg) = &self.on_empty
        {
            return format!("{msg}\n");
        }
        let mut out = lines.join("\n");
        out.push('\n');
        out
    }
}

/// Runs of 3+ lines of one shape: the first line and `(×N similar)`.
fn fold(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let s = crate::values::shape(&lines[i]);
        let mut j = i + 1;
        while j < lines.len() && crate::values::shape(&lines[j]) == s {
            j += 1;
        }
        if j - i >= 3 {
            out.push(format!("{} (×{} similar)", lines[i], j - i));
        } else {
            out.extend(lines[i..j].iter().cloned());
        }
        i = j;
    }
    out
}

/// The first filter for `command`, if any.
pub fn pick<'a>(filters: &'a [UserFilter], command: &[String]) -> Option<&'a UserFilter> {
    filters.iter().find(|f| f.matches(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(toml_text: &str) -> Spec {
        toml::from_str(toml_text).unwrap()
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn matching_by_words_and_regex() {
        let f = UserFilter::compile(&spec("match = \"git log\"\ndrop=[\"x\"]")).unwrap();
        assert!(f.matches(&words("git log -3")));
        assert!(f.matches(&words("git -C repo log --oneline")));
        assert!(!f.matches(&words("git status")));
        assert!(!f.matches(&words("git")));
        let f = UserFilter::compile(&spec("match = \"aws s3 ls\"\ndrop=[\"x\"]")).unwrap();
        assert!(f.matches(&words("aws s3 ls s3://b --recursive")));
        assert!(!f.matches(&words("aws s3 cp a b")));
        let f = UserFilter::compile(&spec("match = \"wget\"\ndrop=[\"x\"]")).unwrap();
        assert!(f.matches(&words("wget -q http://x")));
        assert!(f.matches(&words("/usr/bin/wget http://x")));
        let f = UserFilter::compile(&spec("match = \"dpkg -l\"\ndrop=[\"x\"]")).unwrap();
        assert!(f.matches(&words("dpkg -l")));
        assert!(f.matches(&words("dpkg -l 'lib*'")));
        assert!(!f.matches(&words("dpkg -s bash")));
        let f = UserFilter::compile(&spec("regex = \"^make .*-j\"\ndrop=[\"x\"]")).unwrap();
        assert!(f.matches(&words("make all -j4")));
        assert!(UserFilter::compile(&spec("drop=[\"x\"]")).is_err());
    }

    #[test]
    fn the_stages_in_order() {
        let f = UserFilter::compile(&spec(
            "match = \"t\"\ndrop = [\"^skip\"]\nreplace = [{pattern = \"(\\\\d+)ms\", with = \"$1 ms\"}]\n\
             fold = true\nhead = 2\ntail = 1\n",
        ))
        .unwrap();
        let input = "a 1ms\nskip me\nrow 1\nrow 2\nrow 3\nb\nc\nz\n";
        assert_eq!(f.apply(input, input), "a 1 ms\nrow 1 (×3 similar)\n… 2 lines left out\nz\n");
        // similar as every fold means it (`values::shape`): hex ids too
        let f = UserFilter::compile(&spec("match = \"t\"\nfold = true")).unwrap();
        let ids = "freed 0xdeadbeef\nfreed 0x1f\nfreed 0xc0ffee\nfreed 3f2a\nend\n";
        assert_eq!(f.apply(ids, ids), "freed 0xdeadbeef (×4 similar)\nend\n");
        let f = UserFilter::compile(&spec("match = \"t\"\nkeep = [\"ERR\"]\non_empty = \"t: ok\"")).unwrap();
        assert_eq!(f.apply("a\nb\n", "a\nb\n"), "t: ok\n");
        assert_eq!(f.apply("a\nERR x\n", "a\nERR x\n"), "ERR x\n");
    }
}
