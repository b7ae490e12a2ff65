//! Compress or pass through (SPEC §3.2–3.4). Reads the environment, the
//! arguments and, only when everything else says "compress", what fd 1 is and
//! who reads it; nothing else is loaded before the answer (no regex, no
//! tokenizer, no database), so a passthrough costs one `exec`.
//!
//! Order: a nested call (`TOKENSIEVE_DEPTH`) → exec; `TOKENSIEVE=off` → exec;
//! no agent marker and no `TOKENSIEVE=on` → exec; a follow/watch flag or an
//! interactive subcommand → exec; stdout not where the agent reads → exec
//! (a pipe read by a shell or a pipeline peer, a file the command redirected
//! to, `/dev/null`).

use std::ffi::OsString;

use super::reader::{self, Reader, Stdout};

/// Set in every child we start: a shim that sees it is inside a tool.
pub const DEPTH_ENV: &str = "TOKENSIEVE_DEPTH";

// The markers are the settings' knowledge (`crate::config::markers`),
// named here too for the tests and tools that clear exactly these.
pub use crate::config::markers::{AGENT_MARKERS, CURSOR_ROLE, agent_present};

/// The decision and, for passthrough, why (shown with `TOKENSIEVE_DEBUG=1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Compress,
    Passthrough(String),
}

/// The whole decision for `tool args…`. `explicit` is `tokensieve run`: as if
/// an agent marker were set.
pub fn decide(tool: &str, args: &[OsString], explicit: bool) -> Decision {
    let get = |k: &str| std::env::var_os(k);
    if let Some(why) = early_gate(&get) {
        return Decision::Passthrough(why.into());
    }
    // The settings files are read only past the cheapest answers: with no
    // agent marker, only the user's own file (its `agent_markers`), never
    // a project's.
    if !explicit && !agent_or_on(&get) && !crate::config::agent_marked(&get) {
        return Decision::Passthrough("no agent marker in the environment".into());
    }
    let cfg = crate::config::get();
    let words: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    if let Some(source) = cfg.tool_disabled(tool, &words) {
        return Decision::Passthrough(format!("turned off in the settings ({source})"));
    }
    if is_live(tool, args) || cfg.is_live(tool, &words) {
        return Decision::Passthrough("follow/watch or interactive command".into());
    }
    match reader::stdout() {
        Stdout::Tty | Stdout::Socket => Decision::Compress,
        Stdout::Sink => Decision::Passthrough("stdout is /dev/null, a device or closed".into()),
        Stdout::Pipe(inode) => match reader::pipe_reader(inode) {
            Reader::Program { .. } => Decision::Compress,
            Reader::Shell { pid, name } => {
                Decision::Passthrough(format!("stdout is read by the shell '{name}' (pid {pid})"))
            }
            Reader::Redirected(why) => Decision::Passthrough(why),
            Reader::Unknown => Decision::Passthrough("stdout is a pipe into another program".into()),
        },
        Stdout::File(id) => match reader::file_reader(id) {
            Reader::Program { .. } => Decision::Compress,
            Reader::Shell { pid, name } => Decision::Passthrough(format!(
                "stdout is a file the shell '{name}' (pid {pid}) redirected to"
            )),
            Reader::Redirected(why) => Decision::Passthrough(format!("stdout is a file: {why}")),
            Reader::Unknown => Decision::Passthrough("stdout is a file and /proc cannot say whose".into()),
        },
    }
}

/// The environment half (built-in markers only): `Some(reason)` means pass
/// through.
pub fn env_gate(get: impl Fn(&str) -> Option<OsString>, explicit: bool) -> Option<&'static str> {
    if let Some(why) = early_gate(&get) {
        return Some(why);
    }
    if explicit || agent_or_on(&get) { None } else { Some("no agent marker in the environment") }
}

/// A nested call, or `TOKENSIEVE=off`.
fn early_gate(get: &dyn Fn(&str) -> Option<OsString>) -> Option<&'static str> {
    if get(DEPTH_ENV).is_some_and(|v| !v.is_empty()) {
        return Some("nested call inside a tool (TOKENSIEVE_DEPTH)");
    }
    match switch(get).as_deref() {
        Some("off" | "0" | "false" | "no") => Some("TOKENSIEVE=off"),
        _ => None,
    }
}

fn switch(get: &dyn Fn(&str) -> Option<OsString>) -> Option<String> {
    get("TOKENSIEVE").map(|v| v.to_string_lossy().trim().to_ascii_lowercase())
}

/// `TOKENSIEVE=on`, or a built-in agent marker.
fn agent_or_on(get: &dyn Fn(&str) -> Option<OsString>) -> bool {
    matches!(switch(get).as_deref(), Some("on" | "1" | "true" | "yes")) || agent_present(get)
}

/// Whether this process runs under an agent (a built-in marker or one the
/// settings add).
pub fn agent_marker_present() -> bool {
    crate::config::get().agent_present(&|k: &str| std::env::var_os(k))
}

/// Subcommand word sequences that are interactive or never end.
const LIVE_SUBCOMMANDS: &[&[&str]] = &[
    &["port-forward"],
    &["attach"],
    &["sso", "login"],
    &["configure"],
    &["auth", "login"],
    &["auth", "refresh"],
    &["login"],
    &["ssh"],
    &["start-session"],
    &["execute-command"],
    &["console"],
    &["edit"],
    &["proxy"],
    &["run", "watch"],
    &["cloud-shell"],
];

/// Flags that keep a command running and printing.
const LIVE_FLAGS: &[&str] = &["--follow", "--watch", "--watch-only", "--tty", "--stdin", "--interactive"];

/// Subcommands that are interactive when given `-i`/`-t` (`exec -it`, `run -it`).
const TTY_SUBCOMMANDS: &[&str] = &["exec", "run", "debug", "start", "attach"];

/// Whether `tool args…` follows, watches or talks to a person (SPEC §3.4).
/// Only words before `--` count: what follows belongs to another command.
pub fn is_live(tool: &str, args: &[OsString]) -> bool {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .take_while(|a| a != "--")
        .map(|a| a.split('=').next().unwrap_or_default().to_owned())
        .collect();
    // the words that may be subcommands: not flags, nor the value of a flag
    // that picks an output (`--reporters console`, `--logger console`)
    let words: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|&(k, a)| !(a.starts_with('-') || k > 0 && picks_output(&args[k - 1])))
        .map(|(_, a)| a.as_str())
        .collect();
    let has_word = |w: &str| words.contains(&w);
    let short = |c: char| args.iter().any(|a| is_short_cluster(a) && a.contains(c));

    if args.iter().any(|a| LIVE_FLAGS.contains(&a.as_str())) {
        return true;
    }
    if LIVE_SUBCOMMANDS.iter().any(|seq| words.windows(seq.len()).any(|w| w == *seq)) {
        return true;
    }
    // `logs -f`, `tail -f`/`-F`, `journalctl -f`
    if (has_word("logs") || has_word("tail") || tool == "journalctl" || tool == "tail")
        && (short('f') || short('F'))
    {
        return true;
    }
    // `kubectl get pods -w`
    if matches!(tool, "kubectl" | "oc" | "k" | "kubecolor") && short('w') {
        return true;
    }
    // `docker events`, and `docker stats` unless told not to stream
    if matches!(tool, "docker" | "podman" | "nerdctl")
        && (has_word("events") || has_word("stats") && !args.iter().any(|a| a == "--no-stream"))
    {
        return true;
    }
    TTY_SUBCOMMANDS.iter().any(|s| has_word(s)) && (short('i') || short('t'))
}

/// A long flag whose value names where or how results are written
/// (`--reporters`, `--format`, `--logger`, `--output`, `--output-format`):
/// its value is never a subcommand, even one that reads like `console`.
/// Its last word decides: `--log-http` and `--login` take no value, and the
/// word after them may be one (`gcloud --log-http cloud-shell ssh`).
fn picks_output(arg: &str) -> bool {
    const LAST_WORDS: &[&str] =
        &["report", "reporter", "reporters", "format", "formatter", "logger", "output"];
    arg.strip_prefix("--")
        .and_then(|name| name.rsplit('-').next())
        .is_some_and(|last| LAST_WORDS.contains(&last))
}

/// `-it`, `-f`: one dash, then only letters.
fn is_short_cluster(arg: &str) -> bool {
    arg.len() >= 2
        && arg.starts_with('-')
        && !arg.starts_with("--")
        && arg[1..].chars().all(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn gate(vars: &[(&str, &str)], explicit: bool) -> Option<&'static str> {
        let map: HashMap<String, OsString> = vars.iter().map(|(k, v)| (k.to_string(), v.into())).collect();
        env_gate(|k| map.get(k).cloned(), explicit)
    }

    fn live(tool: &str, line: &str) -> bool {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        is_live(tool, &args)
    }

    #[test]
    fn agents_are_recognised_by_their_markers() {
        assert_eq!(gate(&[], false), Some("no agent marker in the environment"));
        assert_eq!(gate(&[("CLAUDECODE", "1")], false), None);
        assert_eq!(gate(&[("CODEX_SANDBOX", "seatbelt")], false), None);
        assert_eq!(gate(&[("CURSOR_EXTENSION_HOST_ROLE", "agent-exec")], false), None);
        assert!(gate(&[("CURSOR_EXTENSION_HOST_ROLE", "user")], false).is_some());
        assert!(gate(&[("CLAUDECODE", "")], false).is_some());
        assert_eq!(gate(&[("TOKENSIEVE", "on")], false), None);
        assert_eq!(gate(&[], true), None);
    }

    #[test]
    fn off_and_nesting_win() {
        assert_eq!(gate(&[("CLAUDECODE", "1"), ("TOKENSIEVE", "off")], false), Some("TOKENSIEVE=off"));
        assert_eq!(gate(&[("TOKENSIEVE", "off")], true), Some("TOKENSIEVE=off"));
        assert!(gate(&[("CLAUDECODE", "1"), ("TOKENSIEVE_DEPTH", "1")], true).unwrap().contains("nested"));
    }

    #[test]
    fn live_commands() {
        assert!(live("kubectl", "logs -f pod/x"));
        assert!(live("kubectl", "-n prod logs my-pod --follow=true"));
        assert!(live("docker", "logs -tf web"));
        assert!(live("kubectl", "get pods -w"));
        assert!(live("kubectl", "get pods --watch"));
        assert!(live("kubectl", "port-forward svc/x 8080:80"));
        assert!(live("aws", "sso login"));
        assert!(live("aws", "configure"));
        assert!(live("aws", "logs tail /aws/lambda/f --follow"));
        assert!(live("kubectl", "exec -it pod -- sh"));
        assert!(live("docker", "run --rm -it alpine"));
        assert!(live("docker", "attach web"));
        assert!(live("gh", "auth login"));
        assert!(live("gh", "run watch 123"));
        assert!(live("docker", "stats"));
        assert!(live("docker", "events --format json"));
        assert!(live("tail", "-f app.log"));
    }

    #[test]
    fn ordinary_commands_are_not_live() {
        assert!(!live("aws", "ec2 describe-instances --output json"));
        assert!(!live("kubectl", "get pods -o json"));
        assert!(!live("kubectl", "apply -f deploy.yaml"));
        assert!(!live("docker", "build -f Dockerfile ."));
        assert!(!live("kubectl", "logs pod/x"));
        assert!(!live("kubectl", "exec pod -- ls -lt"));
        assert!(!live("docker", "stats --no-stream"));
        assert!(!live("gh", "pr list --json number"));
        assert!(!live("cargo", "metadata --format-version 1"));
        assert!(!live("kubectl", "get events -o json"));
        // a flag's value that reads like a live subcommand
        assert!(!live("jscpd", "--min-lines 4 --reporters console src"));
        assert!(!live("dotnet", "test --logger console"));
        assert!(!live("eslint", "--format console ."));
        assert!(!live("eslint", "--output-format console ."));
        // a flag that merely mentions logs or output takes no value here
        assert!(live("gcloud", "--log-http cloud-shell ssh"));
        assert!(live("rails", "--login console"));
        assert!(live("rails", "console"));
        assert!(live("heroku", "run --app shop console"));
    }
}
