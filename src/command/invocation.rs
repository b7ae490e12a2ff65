//! Which tool a command line runs: the word that names the tool and its
//! subcommand, after env assignments (`RUST_BACKTRACE=1`), wrappers (`npx`,
//! `uv run`, `python -m`, `sudo`, `time`...) and global flags (`git -C dir`).

use std::path::Path;

/// A command line reduced to what the filter registry keys on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    /// The tool's name (`cargo`, `pytest`, `git`), lowercased basename.
    pub tool: String,
    /// The first non-flag word after the tool's global options, if any.
    pub sub: Option<String>,
    /// Every word after the tool.
    pub args: Vec<String>,
}

/// Wrappers that run the next word as the real command (their own flags skipped).
const WRAPPERS: &[&str] = &["npx", "pnpx", "bunx", "sudo", "time", "nice", "nohup", "env", "command", "exec"];
/// Two-word wrappers: `uv run pytest`, `poetry run mypy`, `npm exec eslint`.
const RUNNERS: &[(&str, &str)] = &[
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("npm", "exec"),
    ("pnpm", "exec"),
    ("pnpm", "dlx"),
    ("yarn", "dlx"),
    ("bundle", "exec"),
];
/// `yarn jest` / `pnpm vitest` run a binary directly when the word is a known tool.
const PKG_BIN_TOOLS: &[&str] = &["jest", "vitest", "tsc", "eslint", "mocha"];

/// Global flags that take a value, per tool, so `git -C dir status` finds `status`.
fn takes_value(tool: &str, flag: &str) -> bool {
    let list: &[&str] = match tool {
        "git" => &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"],
        "kubectl" | "oc" => &[
            "-n",
            "--namespace",
            "--context",
            "--kubeconfig",
            "--cluster",
            "--user",
            "-s",
            "--server",
            "--token",
        ],
        "docker" | "podman" => &["--context", "-c", "-H", "--host", "--config", "-l", "--log-level"],
        "cargo" => &["-Z", "--config", "-C", "--color"],
        "npm" | "pnpm" | "yarn" => &["--prefix", "-C", "--dir", "--filter", "-w", "--workspace", "--cwd"],
        "go" => &["-C"],
        "make" | "gmake" => &["-C", "-f", "--file", "--directory", "-j", "--jobs", "-l"],
        _ => &[],
    };
    list.contains(&flag)
}

/// Tools installed under a versioned name (`python3.11`, `pip3`, `node18`):
/// their version digits are not part of the name.
const VERSIONED: &[&str] = &[
    "python", "pip", "pypy", "ruby", "gem", "perl", "php", "lua", "node", "gcc", "g++", "cc", "c++", "clang",
    "clang++", "java", "javac", "go",
];

fn basename(word: &str) -> String {
    let base = Path::new(word).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let base = base.to_ascii_lowercase();
    // python3.11 → python; pip3 → pip; gcc-12 → gcc; but flake8 and k3s
    // are names: digits go only after a separator or from a versioned tool.
    let trimmed = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '-');
    let separated = base[trimmed.len()..].starts_with(['-', '.']);
    if trimmed.is_empty() || !(separated || VERSIONED.contains(&trimmed)) {
        base
    } else {
        trimmed.to_string()
    }
}

fn is_env_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

impl Invocation {
    /// Parses command words (tool first). `None` for an empty command.
    pub fn parse(command: &[String]) -> Option<Invocation> {
        let mut words: Vec<&str> =
            command.iter().map(|s| s.trim_matches(|c| c == '"' || c == '\'')).collect();
        loop {
            while words.first().is_some_and(|w| is_env_assignment(w)) {
                words.remove(0);
            }
            let first = basename(words.first()?);
            if WRAPPERS.contains(&first.as_str()) {
                words.remove(0);
                while words.first().is_some_and(|w| w.starts_with('-') || is_env_assignment(w)) {
                    words.remove(0);
                }
                continue;
            }
            if let Some(second) = words.get(1)
                && RUNNERS.iter().any(|(a, b)| *a == first && b == second)
            {
                words.drain(..2);
                while words.first().is_some_and(|w| w.starts_with('-')) {
                    words.remove(0);
                }
                continue;
            }
            if matches!(first.as_str(), "yarn" | "pnpm" | "bun")
                && let Some(second) = words.get(1)
                && PKG_BIN_TOOLS.contains(&basename(second).as_str())
            {
                words.remove(0);
                continue;
            }
            // python -m pytest → pytest; python -m pip → pip
            if (first == "python" || first == "py")
                && let Some(pos) = words.iter().position(|w| *w == "-m")
                && let Some(module) = words.get(pos + 1)
            {
                let mut rest: Vec<String> = vec![module.to_string()];
                rest.extend(words[pos + 2..].iter().map(|w| w.to_string()));
                return Some(Self::from_words(&rest));
            }
            break;
        }
        let owned: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        Some(Self::from_words(&owned))
    }

    fn from_words(words: &[String]) -> Invocation {
        let tool = basename(&words[0]);
        let args: Vec<String> = words[1..].to_vec();
        let mut sub = None;
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if let Some(stripped) = a.strip_prefix('+')
                && tool == "cargo"
                && !stripped.is_empty()
            {
                i += 1;
                continue;
            }
            if a.starts_with('-') {
                i += if takes_value(&tool, a) { 2 } else { 1 };
                continue;
            }
            sub = Some(a.to_ascii_lowercase());
            break;
        }
        Invocation { tool, sub, args }
    }

    /// The subcommand, or `""`.
    pub fn sub(&self) -> &str {
        self.sub.as_deref().unwrap_or("")
    }

    /// Whether any argument is exactly `flag` or starts with `flag=`.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.args.iter().any(|a| a == flag || a.strip_prefix(flag).is_some_and(|r| r.starts_with('=')))
    }

    /// Whether a short flag letter appears in any `-abc` cluster (`ls -laR`).
    pub fn has_short(&self, letter: char) -> bool {
        self.args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a[1..].contains(letter))
    }

    /// True when the tool is one of `names`.
    pub fn is(&self, names: &[&str]) -> bool {
        names.contains(&self.tool.as_str())
    }
}

/// Test helper shared by the filters' tests: an invocation from a
/// space-separated command line.
#[cfg(test)]
pub(crate) fn inv(s: &str) -> Invocation {
    let words: Vec<String> = s.split_whitespace().map(str::to_owned).collect();
    Invocation::parse(&words).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_wrappers_and_paths_are_skipped() {
        let i = inv("RUST_BACKTRACE=1 cargo +nightly test --all");
        assert_eq!((i.tool.as_str(), i.sub()), ("cargo", "test"));
        assert_eq!(inv("npx --yes eslint lib").tool, "eslint");
        assert_eq!(inv("uv run --frozen pytest -q").tool, "pytest");
        assert_eq!(inv("./node_modules/.bin/jest").tool, "jest");
        assert_eq!(inv("sudo -E docker ps -a").sub(), "ps");
        assert_eq!(inv("yarn jest --ci").tool, "jest");
        assert_eq!(inv("yarn install").tool, "yarn");
    }

    #[test]
    fn python_dash_m_names_the_module() {
        let i = inv("python3.11 -m pytest -x tests");
        assert_eq!(i.tool, "pytest");
        assert_eq!(i.args, vec!["-x", "tests"]);
        assert_eq!(inv("python -m pip install requests").sub(), "install");
        assert_eq!(inv("python3 orders.py").tool, "python");
    }

    /// Issue 24: `flake8` was named `flake` (its digit taken for a
    /// version), so neither its filter nor `recall --tool flake8` found it.
    #[test]
    fn flake8_keeps_its_name_versions_still_go() {
        assert_eq!(inv("flake8 src").tool, "flake8");
        assert_eq!(inv("k3s kubectl get pods").tool, "k3s");
        assert_eq!(inv("g++ -c a.cc").tool, "g++");
        assert_eq!(inv("pip3 install x").tool, "pip");
        assert_eq!(inv("gcc-12 -c a.c").tool, "gcc");
        assert_eq!(inv("node18 app.js").tool, "node");
        assert_eq!(inv("python3.11 app.py").tool, "python");
    }

    #[test]
    fn global_flags_with_values() {
        assert_eq!(inv("git -C repo --no-pager log -3").sub(), "log");
        assert_eq!(inv("kubectl -n prod get pods").sub(), "get");
        assert_eq!(inv("make -C build").sub(), "");
    }

    #[test]
    fn flags_are_found() {
        let i = inv("ls -laR email");
        assert!(i.has_short('R') && i.has_short('l') && !i.has_short('x'));
        assert!(inv("git diff --stat=80").has_flag("--stat"));
        assert!(Invocation::parse(&[]).is_none());
    }
}
