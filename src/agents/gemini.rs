//! Gemini CLI. Its shell tool runs `bash -c CMD` with the environment the
//! `gemini` process started with: no rc file is read, no setting adds to
//! PATH, and `.gemini/.env` is only read when no `.env` is found first from
//! the working folder up (and never overrides a PATH that is set). What it
//! does honour, checked on the real CLI (0.61): a `BeforeTool` hook may
//! answer `hookSpecificOutput.tool_input`, which replaces the arguments of
//! the call before it runs. So `init gemini` adds such a hook for
//! `run_shell_command` to `settings.json` (in `$GEMINI_CLI_HOME/.gemini`,
//! default `~/.gemini`): `tokensieve hook gemini` puts the PATH line in
//! front of commands that name a shim (`rewrite`). Gemini CLI then adds one
//! line to that tool result saying a hook changed the command (about 20
//! tokens), which is why only those commands are rewritten. (The hook's
//! own PATH says nothing of the shell's: Node hands hooks a socket for
//! stdin, and bash then reads `~/.bashrc`, which the shell tool's bash,
//! stdin `/dev/null`, does not.) The note for the model goes inline into
//! the global memory file `GEMINI.md`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{Value, json};

use super::block::{self, Markers};
use super::edit::Edit;
use super::rewrite::{self, event_list, parse_object, render, runs, strip_event};
use super::{Context, INSTRUCTIONS, sh_quote};

/// Every hook command we add ends with this comment: how we find it again.
pub const HOOK_MARK: &str = "# tokensieve init gemini";
const EVENT: &str = "BeforeTool";
const SHELL_TOOL: &str = "run_shell_command";
const MEMORY_MARKERS: Markers =
    Markers { begin: "<!-- >>> tokensieve >>> -->", end: "<!-- <<< tokensieve <<< -->" };

/// `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
pub fn config_dir(ctx: &Context) -> PathBuf {
    match ctx.var("GEMINI_CLI_HOME") {
        Some(home) if !home.is_empty() => PathBuf::from(home).join(".gemini"),
        _ => ctx.user_home.join(".gemini"),
    }
}

pub fn edits(ctx: &Context) -> Vec<Edit> {
    let dir = config_dir(ctx);
    let command = hook_command(&ctx.bin);
    vec![
        Edit {
            path: dir.join("settings.json"),
            apply: Box::new(move |text| add_hook(text, &command)),
            remove: Box::new(remove_hook),
        },
        Edit {
            path: dir.join("GEMINI.md"),
            apply: Box::new(|text| block::with_block(text, MEMORY_MARKERS, INSTRUCTIONS)),
            remove: Box::new(|text| block::without_block(text, MEMORY_MARKERS)),
        },
    ]
}

/// The hook command: the installed binary, by its full path (the hook
/// runs with Gemini's PATH, which may not have the shims).
pub fn hook_command(bin: &Path) -> String {
    format!("{} hook gemini {HOOK_MARK}", sh_quote(&bin.join("tokensieve").to_string_lossy()))
}

/// Settings with our hook; unchanged when it is there as is.
fn add_hook(text: &str, command: &str) -> Result<String> {
    let mut settings = parse_object(text)?;
    if installed_hook(text).as_deref() == Some(command) {
        return Ok(text.to_owned());
    }
    strip_ours(&mut settings);
    event_list(&mut settings, EVENT)?.push(json!({
        "matcher": SHELL_TOOL,
        "hooks": [{ "name": "tokensieve", "type": "command", "command": command,
                    "description": "put the tokensieve shims first on PATH" }],
    }));
    Ok(render(&settings))
}

/// Settings without our hook (and without what that leaves empty).
fn remove_hook(text: &str) -> Result<String> {
    let mut settings = parse_object(text)?;
    Ok(if strip_ours(&mut settings) { render(&settings) } else { text.to_owned() })
}

/// Takes our hook out of every `BeforeTool` group, and the groups it
/// leaves empty.
fn strip_ours(settings: &mut serde_json::Map<String, Value>) -> bool {
    let mut found = false;
    strip_event(settings, EVENT, |group| {
        let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else { return false };
        let before = list.len();
        list.retain(|h| !runs(h, HOOK_MARK));
        found |= list.len() != before;
        list.is_empty() && before > 0
    });
    found
}

/// The command of our hook in these settings, if any.
pub fn installed_hook(text: &str) -> Option<String> {
    rewrite::find_command(text, EVENT, HOOK_MARK)
}

/// Why Gemini would not run our hook although it is there: hooks turned
/// off, or ours listed as disabled (by its name or its command).
pub fn switched_off(text: &str) -> Option<&'static str> {
    let settings = parse_object(text).ok()?;
    let config = settings.get("hooksConfig")?;
    if config.get("enabled") == Some(&Value::Bool(false)) {
        return Some("Gemini's hooks are turned off (hooksConfig.enabled: false)");
    }
    let ours = installed_hook(text)?;
    let disabled = config.get("disabled")?.as_array()?;
    disabled
        .iter()
        .filter_map(Value::as_str)
        .any(|d| d == "tokensieve" || d == ours)
        .then_some("our hook is in Gemini's hooksConfig.disabled")
}

/// The hook's answer to one `BeforeTool` event: the shell command with the
/// PATH line in front, or `{}` (run it as it is).
pub fn answer(input: &Value, ctx: &Context, shims: &[String]) -> Value {
    let command = input.get("tool_input").and_then(|t| t.get("command")).and_then(Value::as_str);
    let is_shell = input.get("tool_name").and_then(Value::as_str) == Some(SHELL_TOOL);
    let prefix = rewrite::prefix(&ctx.bin, ctx.explicit_home.as_deref());
    match command {
        Some(cmd) if is_shell => match rewrite::with_shims(cmd, &prefix, shims) {
            Some(new) => json!({
                "hookSpecificOutput": { "hookEventName": EVENT, "tool_input": { "command": new } }
            }),
            None => json!({}),
        },
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "'/h/.tokensieve/bin/tokensieve' hook gemini # tokensieve init gemini";

    #[test]
    fn the_hook_is_added_once_and_other_hooks_stay() {
        let theirs = r#"{
  "general": {"vimMode": true},
  "hooks": {
    "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit.sh"}]}],
    "AfterTool": [{"hooks": [{"type": "command", "command": "log.sh"}]}]
  }
}"#;
        let with = add_hook(theirs, CMD).unwrap();
        assert_eq!(add_hook(&with, CMD).unwrap(), with);
        let v: Value = serde_json::from_str(&with).unwrap();
        assert_eq!(v["general"]["vimMode"], true);
        assert_eq!(v["hooks"]["BeforeTool"][0]["hooks"][0]["command"], "audit.sh");
        assert_eq!(v["hooks"]["BeforeTool"][1]["matcher"], "run_shell_command");
        assert_eq!(v["hooks"]["BeforeTool"][1]["hooks"][0]["command"], CMD);
        assert_eq!(v["hooks"]["AfterTool"][0]["hooks"][0]["command"], "log.sh");
        assert_eq!(installed_hook(&with).as_deref(), Some(CMD));
        let without: Value = serde_json::from_str(&remove_hook(&with).unwrap()).unwrap();
        assert_eq!(without, serde_json::from_str::<Value>(theirs).unwrap());
        assert_eq!(remove_hook(theirs).unwrap(), theirs);
    }

    #[test]
    fn a_hook_gemini_will_not_run_is_named() {
        let with = add_hook("{}", CMD).unwrap();
        assert_eq!(switched_off(&with), None);
        let mut v: Value = serde_json::from_str(&with).unwrap();
        v["hooksConfig"] = json!({"disabled": ["tokensieve"]});
        assert_eq!(switched_off(&v.to_string()), Some("our hook is in Gemini's hooksConfig.disabled"));
        v["hooksConfig"] = json!({"enabled": false});
        assert!(switched_off(&v.to_string()).unwrap().contains("turned off"));
        v["hooksConfig"] = json!({"enabled": true, "disabled": ["other.sh"]});
        assert_eq!(switched_off(&v.to_string()), None);
    }

    #[test]
    fn a_moved_home_replaces_the_old_hook_and_empty_settings_stay_empty() {
        let old = add_hook("", &CMD.replace("/h/", "/old/")).unwrap();
        let new: Value = serde_json::from_str(&add_hook(&old, CMD).unwrap()).unwrap();
        assert_eq!(new["hooks"]["BeforeTool"].as_array().unwrap().len(), 1);
        assert_eq!(remove_hook(&add_hook("{}", CMD).unwrap()).unwrap(), "{}\n");
        assert!(add_hook("{\"hooks\": {\"BeforeTool\": 1}}", CMD).is_err());
    }

    fn ctx(bin: &str) -> Context {
        Context {
            user_home: PathBuf::from("/h"),
            bin: PathBuf::from(bin),
            explicit_home: None,
            vars: Box::new(|_| None),
        }
    }

    #[test]
    fn shell_calls_naming_a_shim_get_the_path_line() {
        let c = ctx("/h/.tokensieve/bin");
        let shims = vec!["aws".to_owned(), "tokensieve".to_owned()];
        let call = |tool: &str, cmd: &str| json!({"tool_name": tool, "tool_input": {"command": cmd, "description": "d"}});
        let out = answer(&call("run_shell_command", "aws s3 ls"), &c, &shims);
        assert_eq!(
            out["hookSpecificOutput"]["tool_input"]["command"],
            "export PATH='/h/.tokensieve/bin':\"$PATH\"\naws s3 ls"
        );
        assert_eq!(out["hookSpecificOutput"]["hookEventName"], "BeforeTool");
        assert_eq!(answer(&call("run_shell_command", "ls"), &c, &shims), json!({}));
        assert_eq!(answer(&call("read_file", "aws"), &c, &shims), json!({}));
        assert_eq!(answer(&json!({"nonsense": 1}), &c, &shims), json!({}));
    }
}
