//! Cursor (the editor's agent and the `cursor-agent` CLI). Neither documents
//! a setting that adds to the PATH of its shell tool; the `env` a
//! `sessionStart` hook may return is documented for later hooks only. What
//! Cursor documents for this (`~/.cursor/hooks.json`, "preToolUse"): a hook
//! whose matcher names the `Shell` tool may answer `updated_input`, the tool
//! input to run instead. So `init cursor` adds such a hook:
//! `tokensieve hook cursor` puts the PATH line in front of commands that
//! name a shim (`rewrite`), and answers nothing else (no permission
//! decision: the user's approvals stay as they are).
//!
//! Not verified on Cursor itself: neither the editor nor `cursor-agent`
//! installs from a package registry this project can reach, so this follows
//! Cursor's hook documentation and `doctor` says so. Cursor has no global
//! instructions file (its User Rules live in the app's settings), so the
//! note for the model is printed for the user to paste there.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{Value, json};

use super::edit::Edit;
use super::rewrite::{self, event_list, parse_object, render, runs, strip_event};
use super::{Context, sh_quote};

/// Every hook command we add ends with this comment: how we find it again.
pub const HOOK_MARK: &str = "# tokensieve init cursor";
const EVENT: &str = "preToolUse";
const SHELL_TOOL: &str = "Shell";

/// `~/.cursor` (the editor and the CLI share it).
pub fn config_dir(ctx: &Context) -> PathBuf {
    ctx.user_home.join(".cursor")
}

pub fn edits(ctx: &Context) -> Vec<Edit> {
    let command = hook_command(&ctx.bin);
    vec![Edit {
        path: config_dir(ctx).join("hooks.json"),
        apply: Box::new(move |text| add_hook(text, &command)),
        remove: Box::new(remove_hook),
    }]
}

pub fn hook_command(bin: &Path) -> String {
    format!("{} hook cursor {HOOK_MARK}", sh_quote(&bin.join("tokensieve").to_string_lossy()))
}

fn add_hook(text: &str, command: &str) -> Result<String> {
    let mut settings = parse_object(text)?;
    if installed_hook(text).as_deref() == Some(command) {
        return Ok(text.to_owned());
    }
    strip_event(&mut settings, EVENT, |h| runs(h, HOOK_MARK));
    // A file of ours alone gets the version Cursor's examples start with.
    if text.trim().is_empty() {
        settings.insert("version".into(), json!(1));
    }
    event_list(&mut settings, EVENT)?.push(json!({ "command": command, "matcher": SHELL_TOOL }));
    Ok(render(&settings))
}

fn remove_hook(text: &str) -> Result<String> {
    let mut settings = parse_object(text)?;
    Ok(if strip_event(&mut settings, EVENT, |h| runs(h, HOOK_MARK)) {
        render(&settings)
    } else {
        text.to_owned()
    })
}

pub fn installed_hook(text: &str) -> Option<String> {
    rewrite::find_command(text, EVENT, HOOK_MARK)
}

/// The hook's answer to one `preToolUse` event: the whole tool input with
/// the command prefixed, or `{}`.
pub fn answer(input: &Value, ctx: &Context, shims: &[String]) -> Value {
    let is_shell = input.get("tool_name").and_then(Value::as_str) == Some(SHELL_TOOL);
    let Some(tool_input) = input.get("tool_input").and_then(Value::as_object) else { return json!({}) };
    let Some(command) = tool_input.get("command").and_then(Value::as_str) else { return json!({}) };
    let prefix = rewrite::prefix(&ctx.bin, ctx.explicit_home.as_deref());
    match rewrite::with_shims(command, &prefix, shims) {
        Some(new) if is_shell => {
            let mut updated = tool_input.clone();
            updated.insert("command".into(), Value::String(new));
            json!({ "updated_input": updated })
        }
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "'/h/.tokensieve/bin/tokensieve' hook cursor # tokensieve init cursor";

    #[test]
    fn the_hook_is_added_once_and_other_hooks_stay() {
        let theirs = r#"{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [{"command": "./hooks/block-git.sh"}],
    "preToolUse": [{"command": "./hooks/audit.sh", "matcher": "Shell"}]
  }
}"#;
        let with = add_hook(theirs, CMD).unwrap();
        assert_eq!(add_hook(&with, CMD).unwrap(), with);
        let v: Value = serde_json::from_str(&with).unwrap();
        assert_eq!(v["hooks"]["beforeShellExecution"][0]["command"], "./hooks/block-git.sh");
        assert_eq!(v["hooks"]["preToolUse"][0]["command"], "./hooks/audit.sh");
        assert_eq!(v["hooks"]["preToolUse"][1], json!({"command": CMD, "matcher": "Shell"}));
        let without: Value = serde_json::from_str(&remove_hook(&with).unwrap()).unwrap();
        assert_eq!(without, serde_json::from_str::<Value>(theirs).unwrap());
    }

    #[test]
    fn a_new_file_gets_a_version() {
        let ours = add_hook("", CMD).unwrap();
        let v: Value = serde_json::from_str(&ours).unwrap();
        assert_eq!(v["version"], 1);
        assert_eq!(installed_hook(&ours).as_deref(), Some(CMD));
        assert_eq!(remove_hook(&ours).unwrap(), "{\n  \"version\": 1\n}\n");
        assert!(add_hook("{\"hooks\": {\"preToolUse\": {}}}", CMD).is_err());
    }

    #[test]
    fn shell_calls_naming_a_shim_get_the_path_line() {
        let ctx = Context {
            user_home: PathBuf::from("/h"),
            bin: PathBuf::from("/h/.tokensieve/bin"),
            explicit_home: None,
            vars: Box::new(|_| None),
        };
        let shims = vec!["kubectl".to_owned()];
        let call = json!({"tool_name": "Shell", "tool_input": {"command": "kubectl get pods", "working_directory": "/p"}});
        let out = answer(&call, &ctx, &shims);
        assert_eq!(
            out["updated_input"]["command"],
            "export PATH='/h/.tokensieve/bin':\"$PATH\"\nkubectl get pods"
        );
        assert_eq!(out["updated_input"]["working_directory"], "/p");
        assert!(out.get("decision").is_none() && out.get("permission").is_none());
        let read = json!({"tool_name": "Read", "tool_input": {"command": "kubectl"}});
        assert_eq!(answer(&read, &ctx, &shims), json!({}));
    }
}
