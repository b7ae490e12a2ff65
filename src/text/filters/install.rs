//! Package installs (npm/pnpm/yarn/bun install|add|ci|update, pip/uv pip
//! install) and `npm ls` trees.
//!
//! Installs: download/progress/collecting lines and funding nags go; the
//! result line (`added 268 packages`, `Successfully installed ...`),
//! warnings (deduplicated), errors and vulnerability counts stay, as printed.
//! `npm ls`: the root and its direct dependencies stay, each with the count of
//! packages below it; problems (missing, invalid, extraneous) always stay.

use std::collections::HashSet;

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct Install;
pub struct NpmLs;
pub struct Apt;

static NOISE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"^\s*(?:Collecting |Downloading |Using cached |Looking in (?:indexes|links)|Obtaining |Preparing metadata|",
        r"Getting requirements|Installing build dependencies|Building wheels? for|Created wheel for|Stored in directory|",
        r"Installing collected packages|Attempting uninstall|Found existing installation|Uninstalling |Successfully uninstalled |",
        r"Requirement already satisfied|Building wheel for|Resolved \d+ packages?|Prepared \d+ packages?|Audited \d+ packages?|",
        r"Progress: resolved|Packages: [+-]|\[\d/\d\] |\d+ packages? (?:are|is) looking for funding|run `npm fund`|",
        r"npm http |npm timing |npm sill |npm verb |Downloaded \S+ |Downloading \S+ \(|\[notice\] )"
    ))
    .unwrap()
});
/// Progress bars drawn with block characters, or a line of `+`/`-` (pnpm).
static BAR: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\s*(?:[━╸╺█▉▊▋▌▍▎▏░▒▓][━╸╺█▉▊▋▌▍▎▏░▒▓ ]{4,}.*|\|[█#=> -]{5,}\|.*|[+\-]{5,})$").unwrap()
});
static RESULT: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"(?i)^(?:added \d+|removed \d+|changed \d+|up to date|audited \d+|Successfully installed|Installed \d+ packages?|done in|success |\+ \S+ \S+|found \d+ vulnerabilit|\d+ vulnerabilit)")
        .unwrap()
});
/// `Requirement already satisfied: NAME[<spec>] in PATH (from x) (VERSION)`
static SATISFIED: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^Requirement already satisfied: ([A-Za-z0-9_.\-\[\]]+).*? in \S+.*\(([^()]+)\)$").unwrap()
});
static TREE_NAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"[A-Za-z0-9@(]").unwrap());

impl Filter for Install {
    fn name(&self) -> &'static str {
        "install"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        let node = inv.is(&["npm", "pnpm", "yarn", "bun"])
            && matches!(
                inv.sub(),
                "install" | "i" | "add" | "ci" | "update" | "up" | "upgrade" | "remove" | "uninstall" | ""
            )
            && !(inv.tool == "npm" && inv.sub().is_empty());
        let pip =
            inv.is(&["pip", "pipx"]) && matches!(inv.sub(), "install" | "uninstall" | "download" | "wheel");
        let uv = inv.tool == "uv" && matches!(inv.sub(), "pip" | "add" | "sync" | "remove" | "lock");
        node || pip || uv
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        let mut out = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut dropped = 0usize;
        let mut anchored = false;
        let mut satisfied: Vec<String> = Vec::new();
        for line in text.lines() {
            if let Some(c) = SATISFIED.captures(line) {
                satisfied.push(format!("{} {}", &c[1], &c[2]));
            }
            if NOISE.is_match(line) || BAR.is_match(line) {
                dropped += 1;
                continue;
            }
            if RESULT.is_match(line.trim_start()) {
                anchored = true;
            }
            let t = line.trim_end();
            // the same warning from every package is one warning
            let lower = t.to_ascii_lowercase();
            if (lower.starts_with("npm warn") || lower.starts_with("warning")) && !seen.insert(t.to_string())
            {
                dropped += 1;
                continue;
            }
            out.push(t.to_string());
        }
        if !satisfied.is_empty() {
            let more = if satisfied.len() > 20 {
                format!(", +{} more", satisfied.len() - 20)
            } else {
                String::new()
            };
            out.push(format!("already satisfied: {}{more}", satisfied[..satisfied.len().min(20)].join(", ")));
        }
        (anchored || dropped > 0).then(|| tidy(&out))
    }
}

impl Filter for NpmLs {
    fn name(&self) -> &'static str {
        "npm-ls"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["npm", "pnpm", "yarn"]) && matches!(inv.sub(), "ls" | "list" | "la" | "ll")
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        npm_ls(text)
    }
}

impl Filter for Apt {
    fn name(&self) -> &'static str {
        "apt"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["apt-get", "apt"])
            && matches!(
                inv.sub(),
                "install" | "upgrade" | "dist-upgrade" | "full-upgrade" | "remove" | "purge"
            )
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        apt(text)
    }
}

/// apt-get: the `Inst`/`Remv` plan lines, the package lists they do not
/// repeat, `Setting up` results, warnings, errors and the `N upgraded, N
/// newly installed` line stay as printed; `Conf` lines (one per `Inst`),
/// the suggested/recommended lists, download and unpack progress are counted.
fn apt(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    if !lines.iter().any(|l| APT_TOTALS.is_match(l)) {
        return None;
    }
    let planned = lines.iter().any(|l| l.starts_with("Inst "));
    let mut out = Vec::new();
    let mut counted: Vec<(&str, usize)> = Vec::new();
    let mut count = |what: &'static str| match counted.iter_mut().find(|c| c.0 == what) {
        Some(c) => c.1 += 1,
        None => counted.push((what, 1)),
    };
    let mut skipping: Option<&'static str> = None;
    for line in &lines {
        if let Some(what) = skipping {
            if line.starts_with("  ") {
                count(what);
                continue;
            }
            skipping = None;
        }
        if line.starts_with("Suggested packages:") || line.starts_with("Recommended packages:") {
            skipping = Some("suggested/recommended list lines");
            count("suggested/recommended list lines");
        } else if planned && line.starts_with("The following ") && line.ends_with(" will be installed:") {
            // the Inst lines below name each of them
            skipping = Some("package list lines repeated by the Inst lines");
            count("package list lines repeated by the Inst lines");
        } else if line.starts_with("Conf ") {
            count("Conf lines (one per Inst)");
        } else if APT_PROGRESS.is_match(line) {
            count("download/unpack progress lines");
        } else {
            out.push(line.to_string());
        }
    }
    for (what, n) in counted {
        out.push(format!("({n} {what} not shown)"));
    }
    Some(tidy(&out))
}

static APT_TOTALS: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\d+ upgraded, \d+ newly installed, \d+ to remove").unwrap());
static APT_PROGRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(?:Reading package lists|Building dependency tree|Reading state information|Get:\d+ |Selecting previously unselected|\(Reading database|Preparing to unpack|Unpacking |Processing triggers for )").unwrap()
});

/// Depth of an `npm ls` tree line: 0 for the root, 1 for direct dependencies.
fn depth(line: &str) -> Option<usize> {
    let pos = TREE_NAME.find(line)?.start();
    let prefix = &line[..pos];
    if prefix.is_empty() {
        return Some(0);
    }
    if !prefix.chars().all(|c| "│├└─┬ `|+-".contains(c)) {
        return None;
    }
    Some((prefix.chars().count() / 2).saturating_sub(1))
}

fn npm_ls(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    if !lines.iter().any(|l| l.contains("├─") || l.contains("└─")) {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    let mut below = 0usize;
    let mut last_direct: Option<usize> = None;
    for line in &lines {
        let d = depth(line);
        let problem = ["UNMET", "invalid", "extraneous", "missing", "ERR!", "npm error"]
            .iter()
            .any(|p| line.contains(p));
        match d {
            Some(d) if d >= 2 && !problem => below += 1,
            _ => {
                if let Some(k) = last_direct.take()
                    && below > 0
                {
                    out[k].push_str(&format!(" (+{below} below)"));
                }
                below = 0;
                out.push(line.to_string());
                if d == Some(1) {
                    last_direct = Some(out.len() - 1);
                }
            }
        }
    }
    if let Some(k) = last_direct
        && below > 0
    {
        out[k].push_str(&format!(" (+{below} below)"));
    }
    Some(tidy(&out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::inv;

    #[test]
    fn pip_keeps_result_and_errors() {
        let text = "Collecting rich\n  Downloading rich-15.0.0-py3-none-any.whl (310 kB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 310.2/310.2 kB 5.1 MB/s eta 0:00:00\nInstalling collected packages: rich\nSuccessfully installed rich-15.0.0\n";
        assert_eq!(
            Install
                .summarize(&inv("pip install rich"), text, &crate::text::guard::Owned::new(text).src())
                .unwrap(),
            "Successfully installed rich-15.0.0\n"
        );
    }

    #[test]
    fn pip_names_what_was_already_there() {
        let text = "Requirement already satisfied: pytest in ./v/lib/python3.11/site-packages (9.2.0)\nRequirement already satisfied: pluggy<2,>=1.6 in ./v/lib/python3.11/site-packages (from pytest) (1.7.0)\n";
        assert_eq!(
            Install
                .summarize(&inv("pip install pytest"), text, &crate::text::guard::Owned::new(text).src())
                .unwrap(),
            "already satisfied: pytest 9.2.0, pluggy 1.7.0\n"
        );
    }

    #[test]
    fn npm_ls_keeps_direct_dependencies() {
        let text = "app@1.0.0 /x\n├─┬ a@1.0.0\n│ └─┬ b@2.0.0\n│   └── c@3.0.0\n└── d@4.0.0\n";
        assert_eq!(npm_ls(text).unwrap(), "app@1.0.0 /x\n├─┬ a@1.0.0 (+2 below)\n└── d@4.0.0\n");
    }

    #[test]
    fn apt_keeps_the_plan_and_counts_the_rest() {
        let text = "Reading package lists...\nThe following NEW packages will be installed:\n  sl tl\nSuggested packages:\n  fonts-x\n1 upgraded, 2 newly installed, 0 to remove and 3 not upgraded.\nInst sl (5.02 Debian:12 [amd64])\nInst tl (1.0 Debian:12 [amd64])\nConf sl (5.02 Debian:12 [amd64])\nConf tl (1.0 Debian:12 [amd64])\n";
        assert_eq!(
            Apt.summarize(
                &inv("apt-get -s install sl tl"),
                text,
                &crate::text::guard::Owned::new(text).src()
            )
            .unwrap(),
            "1 upgraded, 2 newly installed, 0 to remove and 3 not upgraded.\nInst sl (5.02 Debian:12 [amd64])\nInst tl (1.0 Debian:12 [amd64])\n(1 download/unpack progress lines not shown)\n(2 package list lines repeated by the Inst lines not shown)\n(2 suggested/recommended list lines not shown)\n(2 Conf lines (one per Inst) not shown)\n"
        );
    }

    #[test]
    fn claims() {
        assert!(Install.claims(&inv("npm install express")));
        assert!(Install.claims(&inv("python -m pip install -r req.txt")));
        assert!(!Install.claims(&inv("npm run build")));
        assert!(NpmLs.claims(&inv("npm ls --all")));
    }
}
