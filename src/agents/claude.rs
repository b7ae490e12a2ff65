//! Claude Code. Its Bash tool re-exports the PATH the `claude` process
//! started with after sourcing `~/.bashrc`, so the PATH block install.sh
//! writes only counts when `claude` itself was started from such a shell.
//! What it does honour, checked on the real CLI (2.1.197, `claude -p`): a
//! SessionStart hook may write `export` lines to the file named by
//! `$CLAUDE_ENV_FILE`, and every Bash tool command of the session sources
//! it. So `init claude` adds such a hook to `settings.json` (in
//! `$CLAUDE_CONFIG_DIR`, default `~/.claude`), and a short note for the
//! model (`tokensieve.md`, imported from the user memory file `CLAUDE.md`
//! with Claude Code's `@path` import).

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{Map, Value, json};

use super::block::{self, Markers};
use super::edit::Edit;
use super::rewrite;
use super::{Context, INSTRUCTIONS, sh_quote};

/// Every hook command we add ends with this comment: how we find it again.
const HOOK_MARK: &str = "# tokensieve init claude";
const EVENT: &str = "SessionStart";
const MEMORY_MARKERS: Markers =
    Markers { begin: "<!-- >>> tokensieve >>> -->", end: "<!-- <<< tokensieve <<< -->" };

/// `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn config_dir(ctx: &Context) -> PathBuf {
    match ctx.var("CLAUDE_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => ctx.user_home.join(".claude"),
    }
}

pub fn edits(ctx: &Context) -> Vec<Edit> {
    let dir = config_dir(ctx);
    let command = hook_command(&ctx.bin, ctx.explicit_home.as_deref());
    let note = dir.join("tokensieve.md");
    let import = format!("@{}\n", note.display());
    vec![
        Edit {
            path: dir.join("settings.json"),
            apply: Box::new(move |text| add_hook(text, &command)),
            remove: Box::new(remove_hook),
        },
        Edit {
            path: note,
            apply: Box::new(|_| Ok(INSTRUCTIONS.to_owned())),
            remove: Box::new(|_| Ok(String::new())),
        },
        Edit {
            path: dir.join("CLAUDE.md"),
            apply: Box::new(move |text| block::with_block(text, MEMORY_MARKERS, &import)),
            remove: Box::new(|text| block::without_block(text, MEMORY_MARKERS)),
        },
    ]
}

/// Where `claude mcp add --scope user` keeps user-scoped MCP servers:
/// `.claude.json` in `$CLAUDE_CONFIG_DIR`, else in the home folder (checked
/// on the real CLI, 2.1.197).
pub fn user_config(ctx: &Context) -> PathBuf {
    match ctx.var("CLAUDE_CONFIG_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join(".claude.json"),
        _ => ctx.user_home.join(".claude.json"),
    }
}

/// The name our MCP server is registered under.
pub const MCP_NAME: &str = "tokensieve";

/// `init claude --mcp`: `tokensieve mcp` as a user-scoped stdio MCP server,
/// the entry `claude mcp add --scope user tokensieve -- BIN mcp` writes.
pub fn mcp_edits(ctx: &Context) -> Vec<Edit> {
    let mut env = Map::new();
    if let Some(home) = &ctx.explicit_home {
        env.insert("TOKENSIEVE_HOME".into(), home.to_string_lossy().into_owned().into());
    }
    let server = json!({
        "type": "stdio",
        "command": ctx.bin.join("tokensieve").to_string_lossy(),
        "args": ["mcp"],
        "env": env,
    });
    vec![Edit {
        path: user_config(ctx),
        apply: Box::new(move |text| add_server(text, &server)),
        remove: Box::new(remove_server),
    }]
}

/// The `mcpServers` entry we registered, if any.
pub fn installed_server(text: &str) -> Option<Value> {
    rewrite::parse_object(text).ok()?.get("mcpServers")?.get(MCP_NAME).cloned()
}

fn add_server(text: &str, server: &Value) -> Result<String> {
    if installed_server(text).as_ref() == Some(server) {
        return Ok(text.to_owned());
    }
    let mut config = rewrite::parse_object(text)?;
    let servers = config.entry("mcpServers").or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else { anyhow::bail!("\"mcpServers\" is not an object") };
    servers.insert(MCP_NAME.into(), server.clone());
    Ok(rewrite::render(&config))
}

fn remove_server(text: &str) -> Result<String> {
    let mut config = rewrite::parse_object(text)?;
    let Some(servers) = config.get_mut("mcpServers").and_then(Value::as_object_mut) else {
        return Ok(text.to_owned());
    };
    if servers.remove(MCP_NAME).is_none() {
        return Ok(text.to_owned());
    }
    if servers.is_empty() {
        config.remove("mcpServers");
    }
    Ok(rewrite::render(&config))
}

/// The SessionStart hook: `export` lines for the session's env file. With
/// no `$CLAUDE_ENV_FILE` (an older Claude Code) it does nothing.
pub fn hook_command(bin: &Path, explicit_home: Option<&Path>) -> String {
    let mut lines = vec![format!("export PATH={}:\"$PATH\"", sh_quote(&bin.to_string_lossy()))];
    if let Some(home) = explicit_home {
        lines.push(format!("export TOKENSIEVE_HOME={}", sh_quote(&home.to_string_lossy())));
    }
    let args: Vec<String> = lines.iter().map(|l| sh_quote(l)).collect();
    format!(
        "[ -z \"$CLAUDE_ENV_FILE\" ] || printf '%s\\n' {} >> \"$CLAUDE_ENV_FILE\" {HOOK_MARK}",
        args.join(" ")
    )
}

/// The command of our SessionStart hook in these settings, if any.
pub fn installed_hook(text: &str) -> Option<String> {
    rewrite::find_command(text, EVENT, HOOK_MARK)
}

/// Settings with our SessionStart hook; unchanged when it is there as is.
fn add_hook(text: &str, command: &str) -> Result<String> {
    if installed_hook(text).as_deref() == Some(command) {
        return Ok(text.to_owned());
    }
    let mut settings = rewrite::parse_object(text)?;
    strip_ours(&mut settings);
    rewrite::event_list(&mut settings, EVENT)?
        .push(json!({ "hooks": [{ "type": "command", "command": command }] }));
    Ok(rewrite::render(&settings))
}

/// Settings without our hook (and without the lists it leaves empty).
fn remove_hook(text: &str) -> Result<String> {
    let mut settings = rewrite::parse_object(text)?;
    if !strip_ours(&mut settings) {
        return Ok(text.to_owned());
    }
    Ok(rewrite::render(&settings))
}

/// Removes our hook commands, and the groups left empty by that. Whether
/// anything was ours.
fn strip_ours(settings: &mut Map<String, Value>) -> bool {
    let mut found = false;
    rewrite::strip_event(settings, EVENT, |group| {
        let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else { return false };
        let before = list.len();
        list.retain(|h| !rewrite::runs(h, HOOK_MARK));
        found |= list.len() != before;
        list.is_empty() && before > 0
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "[ -z \"$CLAUDE_ENV_FILE\" ] || printf x # tokensieve init claude";

    #[test]
    fn the_hook_is_added_once_and_other_hooks_stay() {
        let theirs = r#"{
  "model": "opus",
  "hooks": {
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]
  }
}"#;
        let with = add_hook(theirs, CMD).unwrap();
        assert_eq!(add_hook(&with, CMD).unwrap(), with);
        let v: Value = serde_json::from_str(&with).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(v["hooks"]["SessionStart"][0]["hooks"][0]["command"], "echo hi");
        assert_eq!(v["hooks"]["SessionStart"][1]["hooks"][0]["command"], CMD);
        assert_eq!(v["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "guard.sh");
        let without: Value = serde_json::from_str(&remove_hook(&with).unwrap()).unwrap();
        assert_eq!(without, serde_json::from_str::<Value>(theirs).unwrap());
    }

    #[test]
    fn a_moved_home_replaces_the_old_hook() {
        let old = add_hook("", &CMD.replace("printf x", "printf old")).unwrap();
        let new: Value = serde_json::from_str(&add_hook(&old, CMD).unwrap()).unwrap();
        assert_eq!(new["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
        assert_eq!(new["hooks"]["SessionStart"][0]["hooks"][0]["command"], CMD);
        assert_eq!(remove_hook(&add_hook("{}", CMD).unwrap()).unwrap(), "{}\n");
    }

    #[test]
    fn settings_that_are_not_an_object_are_refused() {
        assert!(add_hook("[1]", CMD).is_err());
        assert!(add_hook("{\"hooks\": 3}", CMD).is_err());
        assert!(add_hook("{ not json", CMD).is_err());
    }

    #[test]
    fn the_hook_writes_export_lines_a_shell_can_source() {
        let dir = tempfile::tempdir().unwrap();
        let env_file = dir.path().join("env.sh");
        let bin = Path::new("/opt/it's here/bin");
        let cmd = hook_command(bin, Some(Path::new("/data/ts home")));
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{cmd}\n. \"$CLAUDE_ENV_FILE\"; printf '%s|%s' \"$PATH\" \"$TOKENSIEVE_HOME\""))
            .env("CLAUDE_ENV_FILE", &env_file)
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "/opt/it's here/bin:/usr/bin:/bin|/data/ts home");
    }
}
