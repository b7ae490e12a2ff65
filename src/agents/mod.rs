//! Getting the shims to each agent's shell, and a short note to its model.
//!
//! The shims only work when their folder comes first on the PATH of the
//! shell an agent runs commands in. Each agent builds that shell its own way
//! (see each module), so each needs its own setting; `tokensieve init AGENT`
//! writes it and `init AGENT --uninstall` takes it out again, byte for byte
//! (`edit`). `check` is what `doctor` reports: whether a command run the way
//! that agent runs it would find the shims.
//!
//! # Design: Agents (`src/agents/`, `src/cli/{init,hook}.rs`)
//!
//! The shims only work when their folder comes first on the PATH of the shell
//! an agent runs commands in, and each agent builds that shell its own way.
//! `tokensieve init AGENT` writes the setting that agent honours, plus a short
//! note for its model (what the receipt means, `tokensieve show ID`); `init
//! AGENT --uninstall` takes it out again. `edit.rs` makes every change
//! reversible to the byte: the file's bytes before our first change are kept
//! in `FILE.tokensieve.bak`, `--uninstall` puts them back when the file is
//! still what `init` made of it and otherwise removes only our part; every
//! edit of an agent is checked before the first is written, and a file we
//! cannot parse is left alone with one error line. `block.rs` is our lines
//! between marker lines in a person's text file (unpaired markers: an error).
//!
//! - `claude`: Claude Code's Bash tool re-exports the PATH `claude` started
//!   with, after sourcing `~/.bashrc`; what it honours is a SessionStart hook
//!   writing `export` lines to `$CLAUDE_ENV_FILE`, which every Bash command
//!   sources (checked on the real CLI). The hook goes in `settings.json`
//!   (`$CLAUDE_CONFIG_DIR`, default `~/.claude`), the note in `tokensieve.md`,
//!   imported from `CLAUDE.md` with `@path`.
//! - `codex`: (0.169.0) its shell tool runs `bash -c` with the environment of
//!   a login shell Codex captured at start, so `~/.profile` (where install.sh
//!   writes the PATH block) reaches it whatever PATH `codex` started with; then
//!   `[shell_environment_policy]` applies, and `inherit = "none"`, an
//!   `exclude`/`include_only` that leaves PATH out or a `set.PATH` of the
//!   user's own drop the entry (checked on the real CLI). `doctor` reads the
//!   policy (the `toml` crate) and names the setting to change; `init` does not
//!   rewrite it. The note goes inline in `$CODEX_HOME/AGENTS.md` (no import
//!   syntax).
//! - `gemini`, `cursor`: no setting reaches their shell's PATH, but a hook run
//!   before each shell command may rewrite it (`BeforeTool`
//!   `hookSpecificOutput.tool_input`; Cursor's `preToolUse` `updated_input`).
//!   `tokensieve hook gemini|cursor` is that hook (stdin event, stdout answer,
//!   `{}` and exit 0 on anything unexpected): `rewrite.rs` puts
//!   `export PATH='BIN':"$PATH"` in front of commands that name a shim. Cursor
//!   is built from its documentation only (not installable here).
//! - `opencode`: a plugin in the global plugin folder whose `shell.env` hook
//!   puts the shim folder first on the PATH handed to its bash tool; the note
//!   in its global `AGENTS.md`.
//! - `copilot`: it takes its environment from a `bash -l` login shell at
//!   start-up, so install.sh's `~/.profile` block reaches it; only the note
//!   (`$COPILOT_HOME/copilot-instructions.md`).
//!
//! `doctor` (and `init` with no agent) prints a line per agent: installed or
//! not, and whether a shell started the way that agent starts one (the hook's
//! env file sourced by `bash -c`; a login shell's environment, then Codex's
//! policy; the installed Gemini/Cursor hook fed a shell-tool event; the
//! OpenCode plugin run in OpenCode's own Bun) finds the shims first.
//! `tests/agents_e2e.rs` drives the real Claude Code and Codex
//! CLIs (npm, pinned and cached by scripts/test.sh) against a mock model
//! server (`tests/agents/model.rs`) through issue 10's cases; Gemini CLI,
//! OpenCode and Copilot CLI have an opt-in run, `scripts/agents-e2e/`. Per
//! agent, what was verified on which version: `docs/agents.md`.

mod block;
pub(crate) mod claude;
mod codex;
mod copilot;
pub mod cursor;
pub mod edit;
pub mod gemini;
mod opencode;
mod rewrite;

pub use rewrite::shim_names;

use std::ffi::OsString;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use edit::Edit;
use serde_json::{Value, json};

/// What the agents are told: every session pays for it, so it is kept
/// under `INSTRUCTIONS_MAX_TOKENS` (a test holds it there).
pub const INSTRUCTIONS: &str = "\
# tokensieve

Command output may be compacted: same facts, fewer tokens. `tokensieve show ID` \
prints the original behind a `[tokensieve … raw ID]` receipt (`--lines A:B` or \
`--grep RE`: part of it). Pipes, `$(…)` and redirects get the original; so does \
`TOKENSIEVE=off CMD`.
";
/// Issue 22: the note Claude Code imports into every session.
pub const INSTRUCTIONS_MAX_TOKENS: usize = 80;

/// The agents `init` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
    Gemini,
    Cursor,
    OpenCode,
    Copilot,
}

impl Agent {
    pub const ALL: &[Agent] =
        &[Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Cursor, Agent::OpenCode, Agent::Copilot];

    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::OpenCode => "opencode",
            Agent::Copilot => "copilot",
        }
    }

    pub fn parse(name: &str) -> Option<Agent> {
        let name = name.to_ascii_lowercase();
        let name = match name.as_str() {
            "claude-code" | "claude_code" => "claude",
            "openai-codex" => "codex",
            "gemini-cli" => "gemini",
            "cursor-agent" | "cursor-cli" => "cursor",
            "open-code" => "opencode",
            "copilot-cli" | "github-copilot" | "gh-copilot" => "copilot",
            other => other,
        };
        Agent::ALL.iter().copied().find(|a| a.name() == name)
    }

    /// The files `init` edits for this agent.
    pub fn edits(self, ctx: &Context) -> Vec<Edit> {
        match self {
            Agent::Claude => claude::edits(ctx),
            Agent::Codex => codex::edits(ctx),
            Agent::Gemini => gemini::edits(ctx),
            Agent::Cursor => cursor::edits(ctx),
            Agent::OpenCode => opencode::edits(ctx),
            Agent::Copilot => copilot::edits(ctx),
        }
    }

    /// The agent's own configuration folder.
    fn config_dir(self, ctx: &Context) -> PathBuf {
        match self {
            Agent::Claude => claude::config_dir(ctx),
            Agent::Codex => codex::config_dir(ctx),
            Agent::Gemini => gemini::config_dir(ctx),
            Agent::Cursor => cursor::config_dir(ctx),
            Agent::OpenCode => opencode::config_dir(ctx),
            Agent::Copilot => copilot::config_dir(ctx),
        }
    }

    /// The commands that start it.
    fn commands(self) -> &'static [&'static str] {
        match self {
            Agent::Claude => &["claude"],
            Agent::Codex => &["codex"],
            Agent::Gemini => &["gemini"],
            Agent::Cursor => &["cursor-agent", "cursor"],
            Agent::OpenCode => &["opencode"],
            Agent::Copilot => &["copilot"],
        }
    }

    /// Installed: its command is on PATH or its configuration folder exists.
    pub fn installed(self, ctx: &Context) -> bool {
        let path = ctx.var("PATH");
        self.config_dir(ctx).is_dir() || self.commands().iter().any(|c| on_path(c, path.as_deref()))
    }

    /// What `init` prints after setting an agent up, when something is left
    /// for the person to do.
    pub fn after_init(self) -> Option<String> {
        match self {
            Agent::Cursor => Some(format!(
                "cursor keeps its instructions in Cursor Settings > Rules (User Rules), not in a \
                 file: paste this there for the model:\n\n{INSTRUCTIONS}"
            )),
            _ => None,
        }
    }

    /// Whether a shell started the way this agent starts one puts the shim
    /// folder first on PATH, found by starting one. `Err` says why not.
    pub fn check(self, ctx: &Context) -> Result<&'static str, String> {
        let first = match self {
            Agent::Claude => {
                let settings = claude::config_dir(ctx).join("settings.json");
                let text = std::fs::read_to_string(&settings).unwrap_or_default();
                let Some(hook) = claude::installed_hook(&text) else {
                    return Err("no SessionStart hook (run: tokensieve init claude)".into());
                };
                claude_shell_path(&hook, ctx)
            }
            Agent::Codex => {
                let config =
                    std::fs::read_to_string(codex::config_dir(ctx).join("config.toml")).unwrap_or_default();
                if let Some(problem) = codex::policy_problem(&config, &ctx.bin) {
                    return Err(problem);
                }
                login_shell_path(ctx)
            }
            Agent::Copilot => login_shell_path(ctx),
            Agent::Gemini => hook_shell_path(
                {
                    let text = read(&gemini::config_dir(ctx).join("settings.json"));
                    if let Some(why) = gemini::switched_off(&text) {
                        return Err(why.into());
                    }
                    gemini::installed_hook(&text)
                },
                "no BeforeTool hook (run: tokensieve init gemini)",
                &json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                        "tool_input": {"command": PROBE}}),
                "/hookSpecificOutput/tool_input/command",
                "bash",
                ctx,
            )?,
            Agent::Cursor => hook_shell_path(
                cursor::installed_hook(&read(&cursor::config_dir(ctx).join("hooks.json"))),
                "no preToolUse hook (run: tokensieve init cursor)",
                &json!({"hook_event_name": "preToolUse", "tool_name": "Shell", "tool_input": {"command": PROBE}}),
                "/updated_input/command",
                &ctx.var("SHELL").filter(|s| !s.is_empty()).unwrap_or_else(|| "bash".into()),
                ctx,
            )?,
            Agent::OpenCode => opencode_shell_path(ctx),
        };
        let first = first.map_err(|e| format!("cannot check: {e}"))?;
        if Path::new(&first) == ctx.bin {
            Ok(match self {
                Agent::Claude => "its Bash tool finds the shims (SessionStart hook)",
                Agent::Codex => "its shell finds the shims (login environment, ~/.profile)",
                Agent::Copilot => {
                    "the login shell it takes its environment from finds the shims (~/.profile)"
                }
                Agent::Gemini => "its shell commands that name a shim find it (BeforeTool hook)",
                Agent::Cursor => {
                    "its preToolUse hook puts the shims first (as Cursor documents hooks; not checked on Cursor here)"
                }
                Agent::OpenCode => "its bash tool finds the shims (shell.env plugin)",
            })
        } else {
            Err(match self {
                Agent::Claude => format!("its Bash tool would start with {first} first on PATH"),
                Agent::Codex | Agent::Copilot => {
                    format!("a login shell starts with {first} first on PATH (run install.sh)")
                }
                _ => format!("its shell would start with {first} first on PATH"),
            })
        }
    }
}

/// A command the hooks rewrite (it names `tokensieve`) that prints PATH.
const PROBE: &str = "command -v tokensieve >/dev/null; printf '%s' \"$PATH\"";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Runs the installed hook command (`Err(missing)` when there is none) the
/// way Gemini CLI and Cursor run hooks (`bash -c`, the event as JSON on
/// stdin), takes the rewritten command from its answer (at the JSON
/// `pointer`), and runs that in `shell -c`, all with a desktop launcher's
/// environment. `Ok` holds the outcome of that run: the first PATH entry.
fn hook_shell_path(
    hook: Option<String>,
    missing: &str,
    call: &Value,
    pointer: &str,
    shell: &str,
    ctx: &Context,
) -> Result<Result<String, String>, String> {
    let Some(hook) = hook else { return Err(missing.to_owned()) };
    Ok(hooked_shell_path(&hook, call, pointer, shell, ctx))
}

fn hooked_shell_path(
    hook: &str,
    call: &Value,
    pointer: &str,
    shell: &str,
    ctx: &Context,
) -> Result<String, String> {
    use std::io::Write;
    let mut child = bare(Command::new("bash").arg("-c").arg(hook), ctx)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run its hook: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(call.to_string().as_bytes());
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let answer: Value = serde_json::from_slice(&out.stdout)
        .map_err(|_| format!("its hook answered no JSON: {}", String::from_utf8_lossy(&out.stderr).trim()))?;
    let Some(command) = answer.pointer(pointer).and_then(Value::as_str) else {
        return Err("its hook left the command as it was".into());
    };
    first_entry(bare(Command::new(shell).arg("-c").arg(command), ctx).output())
}

/// Runs OpenCode's `shell.env` hooks from the installed plugin in a
/// JavaScript runtime (OpenCode's own Bun when `opencode` is on PATH, else
/// bun or node), then `$SHELL -c` with the PATH they produce.
fn opencode_shell_path(ctx: &Context) -> Result<String, String> {
    let plugin = opencode::plugin_path(ctx);
    if !read(&plugin).contains("TOKENSIEVE_BIN") {
        return Err("no tokensieve plugin (run: tokensieve init opencode)".into());
    }
    let path = ctx.var("PATH");
    let find = |cmd: &str| {
        std::env::split_paths(path.as_deref().unwrap_or_default()).map(|d| d.join(cmd)).find(|p| p.is_file())
    };
    let dir = tempfile_dir().map_err(|e| e.to_string())?;
    let out = if let Some(exe) = find("opencode").or_else(|| find("bun")) {
        // A Bun single-file executable (OpenCode) acts as bun itself with
        // BUN_BE_BUN=1.
        let script = opencode::probe_script(&plugin);
        bare(Command::new(exe).arg("-e").arg(script), ctx).env("BUN_BE_BUN", "1").output()
    } else if let Some(node) = find("node") {
        // node reads a `.js` file outside a module package as CommonJS.
        let copy = dir.join("tokensieve.mjs");
        let _ = std::fs::copy(&plugin, &copy);
        let script = opencode::probe_script(&copy);
        bare(Command::new(node).args(["--input-type=module", "-e", &script]), ctx).output()
    } else {
        let _ = std::fs::remove_dir_all(&dir);
        return Err("no opencode, bun or node on PATH to run the plugin with".into());
    };
    let _ = std::fs::remove_dir_all(&dir);
    let out = out.map_err(|e| e.to_string())?;
    let path = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() || path.is_empty() {
        return Err(format!("the plugin did not run: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    let shell = ctx.var("SHELL").filter(|s| !s.is_empty()).unwrap_or_else(|| "bash".into());
    first_entry(
        bare(Command::new(shell).arg("-c").arg("printf '%s' \"$PATH\""), ctx).env("PATH", path).output(),
    )
}

/// Reads an environment variable.
type Lookup = Box<dyn Fn(&str) -> Option<OsString>>;

/// What every agent module needs to know about this installation.
pub struct Context {
    /// The user's home folder.
    pub user_home: PathBuf,
    /// The shim folder (`$TOKENSIEVE_HOME/bin`).
    pub bin: PathBuf,
    /// `$TOKENSIEVE_HOME` when set: the agent's shell needs it too.
    pub explicit_home: Option<PathBuf>,
    vars: Lookup,
}

impl Context {
    /// From this process's environment and the tokensieve home.
    pub fn from_env(home: &Path) -> Option<Context> {
        let user_home = std::env::home_dir().filter(|h| !h.as_os_str().is_empty())?;
        let explicit_home =
            std::env::var_os("TOKENSIEVE_HOME").filter(|h| !h.is_empty()).map(|_| home.to_owned());
        Some(Context {
            user_home,
            bin: home.join("bin"),
            explicit_home,
            vars: Box::new(|k| std::env::var_os(k)),
        })
    }

    pub fn var(&self, key: &str) -> Option<String> {
        (self.vars)(key).map(|v| v.to_string_lossy().into_owned())
    }
}

/// `s` as one POSIX shell word (single quotes, `'` written as `'\''`).
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn on_path(cmd: &str, path: Option<&str>) -> bool {
    std::env::split_paths(path.unwrap_or_default()).any(|d| d.join(cmd).is_file())
}

/// A PATH an agent might have been started with: the system folders only.
const BARE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The first PATH entry of `bash -c` after Claude Code's session env file,
/// written by `hook`, is sourced.
fn claude_shell_path(hook: &str, ctx: &Context) -> Result<String, String> {
    let dir = tempfile_dir().map_err(|e| e.to_string())?;
    let env_file = dir.join("claude-env.sh");
    let script = format!("{hook}\n. \"$CLAUDE_ENV_FILE\" && printf '%s' \"$PATH\"");
    let out =
        bare(Command::new("bash").arg("-c").arg(script), ctx).env("CLAUDE_ENV_FILE", &env_file).output();
    let _ = std::fs::remove_dir_all(&dir);
    first_entry(out)
}

/// The first PATH entry of a login shell (Codex captures one's environment
/// when it starts and runs every command with it).
fn login_shell_path(ctx: &Context) -> Result<String, String> {
    first_entry(bare(Command::new("bash").arg("-lc").arg("printf '%s' \"$PATH\""), ctx).output())
}

/// A shell with only HOME and a system PATH, as an agent started from a
/// desktop launcher would have.
fn bare<'a>(cmd: &'a mut Command, ctx: &Context) -> &'a mut Command {
    cmd.env_clear().env("HOME", &ctx.user_home).env("PATH", BARE_PATH).stdin(std::process::Stdio::null())
}

fn first_entry(out: std::io::Result<std::process::Output>) -> Result<String, String> {
    let out = out.map_err(|e| e.to_string())?;
    let path = String::from_utf8_lossy(&out.stdout);
    Ok(path.split(':').next().unwrap_or_default().to_owned())
}

/// A private scratch folder for one check.
fn tempfile_dir() -> std::io::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("tokensieve-check.{}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_names() {
        assert_eq!(Agent::parse("Claude"), Some(Agent::Claude));
        assert_eq!(Agent::parse("claude-code"), Some(Agent::Claude));
        assert_eq!(Agent::parse("codex"), Some(Agent::Codex));
        assert_eq!(Agent::parse("vim"), None);
    }

    #[test]
    fn the_note_for_the_model_is_short_and_names_show() {
        let n = crate::auditor::count(crate::auditor::Encoding::Cl100k, INSTRUCTIONS);
        assert!(n <= INSTRUCTIONS_MAX_TOKENS, "{n} tokens:\n{INSTRUCTIONS}");
        assert!(INSTRUCTIONS.contains("tokensieve show ID") && INSTRUCTIONS.contains("raw ID]"));
    }

    #[test]
    fn shell_quoting_survives_a_shell() {
        let word = "it's a \"path\" with $HOME and `x`";
        let out =
            Command::new("sh").arg("-c").arg(format!("printf '%s' {}", sh_quote(word))).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), word);
    }
}
