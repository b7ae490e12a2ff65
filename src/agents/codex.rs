//! OpenAI Codex. Checked on the real CLI (0.169.0): its shell tool runs
//! `bash -c` with the environment of a login shell Codex captured when it
//! started (so `~/.profile`, where install.sh puts the shim folder first on
//! PATH, reaches it whatever PATH `codex` itself was started with), after
//! applying `[shell_environment_policy]` from `$CODEX_HOME/config.toml`.
//! That policy can drop the entry: `inherit = "none"`, `exclude` or
//! `include_only` patterns that leave PATH out, or a `set.PATH` of the
//! user's own. `init codex` cannot fix those for the user without guessing;
//! `check` reads the policy and says which setting to change. The note for
//! the model goes inline into `$CODEX_HOME/AGENTS.md` (no import syntax).

use std::path::{Path, PathBuf};

use super::block::{self, Markers};
use super::edit::Edit;
use super::{Context, INSTRUCTIONS};

const MARKERS: Markers = Markers { begin: "<!-- >>> tokensieve >>> -->", end: "<!-- <<< tokensieve <<< -->" };

/// `$CODEX_HOME`, else `~/.codex`.
pub fn config_dir(ctx: &Context) -> PathBuf {
    match ctx.var("CODEX_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => ctx.user_home.join(".codex"),
    }
}

pub fn edits(ctx: &Context) -> Vec<Edit> {
    vec![Edit {
        path: config_dir(ctx).join("AGENTS.md"),
        apply: Box::new(|text| block::with_block(text, MARKERS, INSTRUCTIONS)),
        remove: Box::new(|text| block::without_block(text, MARKERS)),
    }]
}

/// Why Codex's `shell_environment_policy` keeps the shim folder off the
/// shell's PATH, if it does. An unreadable config says nothing (Codex would
/// refuse to start with it anyway).
pub fn policy_problem(config: &str, bin: &Path) -> Option<String> {
    let table: toml::Table = config.parse().ok()?;
    let policy = table.get("shell_environment_policy")?.as_table()?;
    let patterns = |key: &str| -> Vec<String> {
        policy
            .get(key)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|p| p.as_str().map(str::to_owned)).collect())
            .unwrap_or_default()
    };
    if let Some(path) = policy.get("set").and_then(|s| s.get("PATH")).and_then(|p| p.as_str()) {
        let first = path.split(':').next().unwrap_or_default();
        return (Path::new(first) != bin).then(|| {
            format!("config.toml sets shell_environment_policy.set.PATH; put {} first in it", bin.display())
        });
    }
    if policy.get("inherit").and_then(|v| v.as_str()) == Some("none") {
        return Some("config.toml has shell_environment_policy.inherit = \"none\" (PATH is dropped)".into());
    }
    if patterns("exclude").iter().any(|p| matches_name(p, "PATH")) {
        return Some("config.toml's shell_environment_policy.exclude removes PATH".into());
    }
    let only = patterns("include_only");
    if !only.is_empty() && !only.iter().any(|p| matches_name(p, "PATH")) {
        return Some("config.toml's shell_environment_policy.include_only leaves PATH out".into());
    }
    None
}

/// Codex's policy patterns: case-insensitive globs with `*` and `?`.
fn matches_name(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a.eq_ignore_ascii_case(b) => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIN: &str = "/home/u/.tokensieve/bin";

    fn problem(config: &str) -> Option<String> {
        policy_problem(config, Path::new(BIN))
    }

    #[test]
    fn policies_that_drop_path_are_named() {
        assert_eq!(problem("model = \"o3\"\n"), None);
        assert_eq!(problem("[shell_environment_policy]\ninherit = \"core\"\n"), None);
        assert_eq!(problem("[shell_environment_policy]\nexclude = [\"AWS_*\", \"*TOKEN*\"]\n"), None);
        assert!(problem("[shell_environment_policy]\ninherit = \"none\"\n").unwrap().contains("inherit"));
        assert!(problem("[shell_environment_policy]\nexclude = [\"pa?h\"]\n").unwrap().contains("exclude"));
        assert!(
            problem("[shell_environment_policy]\ninclude_only = [\"HOME\"]\n")
                .unwrap()
                .contains("include_only")
        );
        assert_eq!(problem("[shell_environment_policy]\ninclude_only = [\"HOME\", \"P*\"]\n"), None);
        let set = "[shell_environment_policy]\nset = { PATH = \"/usr/bin:/bin\" }\n";
        assert!(problem(set).unwrap().contains("set.PATH"));
        assert_eq!(problem(&set.replace("/usr/bin:/bin", &format!("{BIN}:/usr/bin"))), None);
        assert_eq!(problem("not toml ["), None);
    }
}
