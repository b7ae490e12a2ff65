//! For agents whose shell tool starts with the agent's own start-up PATH
//! and offers no setting for it (Gemini CLI, Cursor), a hook that runs
//! before each shell command may still rewrite the command. The rewrite
//! puts one line in front of it: `export PATH='BIN':"$PATH"` (and
//! `TOKENSIEVE_HOME` when it is not the default), so the rest of the
//! command finds the shims. It only does so when the command names a shim
//! (or `tokensieve` itself): other commands gain nothing, and an agent may
//! tell its model about every rewrite (Gemini CLI does).
//!
//! Also the JSON settings files these hooks live in: read as an object, and
//! written back pretty-printed.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use serde_json::{Map, Value};

use super::sh_quote;

/// The line put in front of a command.
pub fn prefix(bin: &Path, explicit_home: Option<&Path>) -> String {
    let mut line = format!("export PATH={}:\"$PATH\"", sh_quote(&bin.to_string_lossy()));
    if let Some(home) = explicit_home {
        line.push_str(&format!("; export TOKENSIEVE_HOME={}", sh_quote(&home.to_string_lossy())));
    }
    line.push('\n');
    line
}

/// `command` with the prefix, or `None` when it needs none: it names no
/// shim, or it already starts with the prefix.
pub fn with_shims(command: &str, prefix: &str, shims: &[String]) -> Option<String> {
    if command.starts_with(prefix) || !names_a_shim(command, shims) {
        return None;
    }
    Some(format!("{prefix}{command}"))
}

/// Whether a word of the command is the name of a shim. Words are split
/// at anything a tool name does not hold (spaces, `;|&()$'"/=`...), so
/// `x=$(aws ...)`, `cd d && kubectl get` and `/usr/bin/aws` all count.
fn names_a_shim(command: &str, shims: &[String]) -> bool {
    command
        .split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+')))
        .any(|word| !word.is_empty() && shims.iter().any(|s| s == word))
}

/// The names in the shim folder (tools and `tokensieve` itself).
pub fn shim_names(bin: &Path) -> Vec<String> {
    std::fs::read_dir(bin)
        .map(|d| d.flatten().filter_map(|e| e.file_name().to_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// A settings file's object (an empty file is an empty object).
pub fn parse_object(text: &str) -> Result<Map<String, Value>> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(text).context("not valid JSON")? {
        Value::Object(map) => Ok(map),
        _ => bail!("not a JSON object"),
    }
}

/// Pretty JSON with a final newline, as editors write it.
pub fn render(settings: &Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(settings).unwrap_or_default();
    text.push('\n');
    text
}

/// The list `settings.hooks.EVENT`, made when missing.
pub fn event_list<'a>(settings: &'a mut Map<String, Value>, event: &str) -> Result<&'a mut Vec<Value>> {
    let hooks = settings.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else { bail!("\"hooks\" is not an object") };
    let list = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
    let Some(list) = list.as_array_mut() else { bail!("\"hooks.{event}\" is not a list") };
    Ok(list)
}

/// Removes the entries of `settings.hooks.EVENT` that `drop` picks (after
/// `drop` took what it wants out of each), then the list and the `hooks`
/// object when that left them empty. Whether anything was removed.
pub fn strip_event(
    settings: &mut Map<String, Value>,
    event: &str,
    mut drop: impl FnMut(&mut Value) -> bool,
) -> bool {
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else { return false };
    let Some(list) = hooks.get_mut(event).and_then(Value::as_array_mut) else { return false };
    let before = list.len();
    list.retain_mut(|entry| !drop(entry));
    let found = list.len() != before;
    if found && list.is_empty() {
        hooks.remove(event);
        if hooks.is_empty() {
            settings.remove("hooks");
        }
    }
    found
}

/// The command of the first hook under `hooks.EVENT` holding `mark`: a
/// member of a group's `hooks` list (Gemini CLI, as Claude Code) or the
/// entry itself (Cursor).
pub fn find_command(text: &str, event: &str, mark: &str) -> Option<String> {
    let settings = parse_object(text).ok()?;
    let entries = settings.get("hooks")?.get(event)?.as_array()?;
    entries
        .iter()
        .flat_map(|e| match e.get("hooks").and_then(Value::as_array) {
            Some(members) => members.iter().collect::<Vec<_>>(),
            None => vec![e],
        })
        .find(|h| runs(h, mark))
        .and_then(|h| h.get("command").and_then(Value::as_str).map(str::to_owned))
}

/// Whether a hook entry (or group member) runs a command holding `mark`.
pub fn runs(entry: &Value, mark: &str) -> bool {
    entry.get("command").and_then(Value::as_str).is_some_and(|c| c.contains(mark))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn only_commands_naming_a_shim_are_rewritten_once() {
        let shims = names(&["aws", "kubectl", "tokensieve"]);
        let p = prefix(Path::new("/home/u/.tokensieve/bin"), None);
        assert_eq!(p, "export PATH='/home/u/.tokensieve/bin':\"$PATH\"\n");
        for cmd in
            ["aws ec2 describe-vpcs", "x=$(aws s3 ls)", "cd d && kubectl get pods", "tokensieve show ab12"]
        {
            let new = with_shims(cmd, &p, &shims).unwrap();
            assert_eq!(new, format!("{p}{cmd}"));
            assert_eq!(with_shims(&new, &p, &shims), None, "{cmd}");
        }
        for cmd in ["ls -la", "echo awsome", "git status", "cat aws.txt.bak"] {
            assert_eq!(with_shims(cmd, &p, &shims), None, "{cmd}");
        }
    }

    #[test]
    fn the_prefixed_command_finds_the_shims_first() {
        let p = prefix(Path::new("/opt/it's/bin"), Some(Path::new("/data/ts home")));
        let cmd =
            with_shims("aws --version; printf '%s|%s' \"$PATH\" \"$TOKENSIEVE_HOME\"", &p, &names(&["aws"]));
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(cmd.unwrap().replace("aws --version;", "true;"))
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "/opt/it's/bin:/usr/bin:/bin|/data/ts home");
    }

    #[test]
    fn hook_lists_are_made_and_emptied() {
        let mut s = parse_object("{\"model\": \"x\"}").unwrap();
        event_list(&mut s, "BeforeTool").unwrap().push(serde_json::json!({"command": "ours"}));
        assert!(strip_event(&mut s, "BeforeTool", |e| runs(e, "ours")));
        assert_eq!(render(&s), "{\n  \"model\": \"x\"\n}\n");
        assert!(!strip_event(&mut s, "BeforeTool", |_| true));
        assert!(parse_object("[1]").is_err());
        assert!(event_list(&mut parse_object("{\"hooks\": []}").unwrap(), "x").is_err());
    }
}
