//! `tokensieve init gemini|cursor|opencode|copilot` and `--uninstall`, run
//! as the built binary against a fake HOME that already holds the person's
//! own settings, hooks, plugins and instructions; and `tokensieve hook`,
//! the command the Gemini CLI and Cursor hooks run.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_tokensieve");

struct Home {
    _dir: tempfile::TempDir,
    home: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        fs::create_dir_all(home.join(".tokensieve/bin")).unwrap();
        // The installed binary and one shim, as install.sh leaves them.
        symlink(BIN, home.join(".tokensieve/bin/tokensieve")).unwrap();
        symlink("tokensieve", home.join(".tokensieve/bin/aws")).unwrap();
        Home { _dir: dir, home }
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.home.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.home.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn tokensieve(&self, args: &[&str]) -> Output {
        let out = Command::new(BIN)
            .args(args)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    }

    /// Every file under HOME but the shim folder, with its bytes.
    fn files(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for entry in fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.starts_with(root.join(".tokensieve")) {
                    continue;
                }
                if path.is_dir() {
                    walk(&path, root, out);
                } else {
                    out.insert(path.strip_prefix(root).unwrap().to_owned(), fs::read(&path).unwrap());
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.home, &self.home, &mut out);
        out
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A HOME where each agent already has the person's own configuration.
fn lived_in_home() -> Home {
    let h = Home::new();
    h.write(
        ".gemini/settings.json",
        "{\n  \"general\": { \"vimMode\": true },\n  \"hooks\": {\n    \"BeforeTool\": [\n      { \"matcher\": \"write_file\", \"hooks\": [ { \"type\": \"command\", \"command\": \"./lint.sh\" } ] }\n    ]\n  }\n}",
    );
    h.write(".gemini/GEMINI.md", "# My notes\n\nAlways answer in French.");
    h.write(
        ".cursor/hooks.json",
        "{\"version\":1,\"hooks\":{\"beforeShellExecution\":[{\"command\":\"./hooks/block-git.sh\"}],\"preToolUse\":[{\"command\":\"./hooks/audit.sh\"}]}}\n",
    );
    h.write(".config/opencode/opencode.json", "{\"$schema\": \"https://opencode.ai/config.json\"}\n");
    h.write(".config/opencode/plugins/notify.js", "export const Notify = async () => ({});\n");
    h.write(".config/opencode/AGENTS.md", "Use tabs.\n");
    h.write(".copilot/copilot-instructions.md", "Prefer small commits.\n\n");
    h.write(".copilot/config.json", "{\"trusted_folders\": [\"/src\"]}\n");
    h
}

#[test]
fn init_and_uninstall_leave_every_file_byte_identical() {
    let h = lived_in_home();
    let before = h.files();
    for agent in ["gemini", "cursor", "opencode", "copilot"] {
        let first = stdout(&h.tokensieve(&["init", agent]));
        assert!(first.contains("updated (backup: .tokensieve.bak)") || first.contains("created"), "{first}");
        let again = stdout(&h.tokensieve(&["init", agent]));
        assert!(!again.contains("updated") && !again.contains("created"), "{agent} twice: {again}");
    }
    // Ours is there, theirs is kept.
    let gemini: Value = serde_json::from_str(&h.read(".gemini/settings.json")).unwrap();
    assert_eq!(gemini["general"]["vimMode"], true);
    assert_eq!(gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"], "./lint.sh");
    let ours = gemini["hooks"]["BeforeTool"][1]["hooks"][0]["command"].as_str().unwrap();
    assert!(ours.ends_with("/.tokensieve/bin/tokensieve' hook gemini # tokensieve init gemini"), "{ours}");
    assert!(
        h.read(".gemini/GEMINI.md")
            .starts_with("# My notes\n\nAlways answer in French.\n\n<!-- >>> tokensieve")
    );
    let cursor: Value = serde_json::from_str(&h.read(".cursor/hooks.json")).unwrap();
    assert_eq!(cursor["hooks"]["beforeShellExecution"][0]["command"], "./hooks/block-git.sh");
    assert_eq!(cursor["hooks"]["preToolUse"][0]["command"], "./hooks/audit.sh");
    assert_eq!(cursor["hooks"]["preToolUse"][1]["matcher"], "Shell");
    assert!(h.read(".config/opencode/plugins/tokensieve.js").contains("\"shell.env\""));
    assert_eq!(h.read(".config/opencode/plugins/notify.js"), "export const Notify = async () => ({});\n");
    assert!(h.read(".config/opencode/AGENTS.md").starts_with("Use tabs.\n\n<!-- >>> tokensieve"));
    assert!(h.read(".copilot/copilot-instructions.md").contains("tokensieve show ID"));
    assert!(h.home.join(".gemini/settings.json.tokensieve.bak").exists());

    for agent in ["gemini", "cursor", "opencode", "copilot"] {
        h.tokensieve(&["init", agent, "--uninstall"]);
    }
    assert_eq!(h.files(), before, "every file as it was, no backup left, nothing added");
}

#[test]
fn later_changes_of_the_person_survive_uninstall() {
    let h = lived_in_home();
    h.tokensieve(&["init", "gemini"]);
    h.tokensieve(&["init", "opencode"]);
    // The person edits both files after init.
    let mut settings: Value = serde_json::from_str(&h.read(".gemini/settings.json")).unwrap();
    settings["ui"] = json!({"theme": "GitHub"});
    h.write(".gemini/settings.json", &serde_json::to_string_pretty(&settings).unwrap());
    let plugin = h.read(".config/opencode/plugins/tokensieve.js");
    h.write(".config/opencode/plugins/tokensieve.js", &format!("// mine\n{plugin}"));
    let out = stdout(&h.tokensieve(&["init", "gemini", "--uninstall"]));
    assert!(out.contains("our lines removed (later changes kept)"), "{out}");
    h.tokensieve(&["init", "opencode", "--uninstall"]);
    let after: Value = serde_json::from_str(&h.read(".gemini/settings.json")).unwrap();
    assert_eq!(after["ui"]["theme"], "GitHub");
    assert_eq!(after["hooks"]["BeforeTool"].as_array().unwrap().len(), 1);
    assert_eq!(h.read(".config/opencode/plugins/tokensieve.js"), "// mine\n");
}

#[test]
fn a_fresh_home_is_left_empty_again() {
    let h = Home::new();
    for agent in ["gemini", "cursor", "opencode", "copilot"] {
        h.tokensieve(&["init", agent]);
    }
    assert_eq!(h.files().len(), 6, "{:?}", h.files().keys().collect::<Vec<_>>());
    for agent in ["gemini", "cursor", "opencode", "copilot"] {
        h.tokensieve(&["init", agent, "--uninstall"]);
    }
    assert!(h.files().is_empty(), "{:?}", h.files().keys().collect::<Vec<_>>());
}

#[test]
fn settings_that_are_not_json_are_left_alone() {
    let h = Home::new();
    h.write(".gemini/settings.json", "{ // a comment\n}");
    let out = Command::new(BIN).args(["init", "gemini"]).env("HOME", &h.home).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("settings.json: left unchanged"));
    assert_eq!(h.read(".gemini/settings.json"), "{ // a comment\n}");
}

/// Runs the hook command `init` wrote into the agent's settings, the way
/// the agent runs it: `bash -c`, the event on stdin, a bare environment.
fn run_hook(h: &Home, command: &str, event: &Value, path: &str) -> Value {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(command)
        .env_clear()
        .env("HOME", &h.home)
        .env("PATH", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(event.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_installed_hooks_put_the_shims_first_for_commands_that_name_one() {
    let h = Home::new();
    h.tokensieve(&["init", "gemini"]);
    h.tokensieve(&["init", "cursor"]);
    let bin = h.home.join(".tokensieve/bin");
    let gemini: Value = serde_json::from_str(&h.read(".gemini/settings.json")).unwrap();
    let gemini_hook = gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    let cursor: Value = serde_json::from_str(&h.read(".cursor/hooks.json")).unwrap();
    let cursor_hook = cursor["hooks"]["preToolUse"][0]["command"].as_str().unwrap().to_owned();
    let bare = "/usr/bin:/bin";
    let cmd = "command -v aws; printf '%s' \"$PATH\"";

    let call = json!({"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                      "tool_input": {"command": cmd, "description": "list"}});
    let answer = run_hook(&h, &gemini_hook, &call, bare);
    let new = answer["hookSpecificOutput"]["tool_input"]["command"].as_str().unwrap();
    let ran = Command::new("bash").arg("-c").arg(new).env_clear().env("PATH", bare).output().unwrap();
    let expect = format!("{}\n{}:{bare}", bin.join("aws").display(), bin.display());
    assert_eq!(String::from_utf8_lossy(&ran.stdout), expect);
    // Nothing to do: a command naming no shim, or another tool.
    let ls = json!({"tool_name": "run_shell_command", "tool_input": {"command": "ls -la"}});
    assert_eq!(run_hook(&h, &gemini_hook, &ls, bare), json!({}));
    let read = json!({"tool_name": "read_file", "tool_input": {"path": "aws"}});
    assert_eq!(run_hook(&h, &gemini_hook, &read, bare), json!({}));
    // Input that is not JSON: the command stays as it was, the agent goes on.
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(&gemini_hook)
        .env("HOME", &h.home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"not json").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "{}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("command left as it was"));

    let call = json!({"hook_event_name": "preToolUse", "tool_name": "Shell",
                      "tool_input": {"command": cmd, "working_directory": "/tmp"}});
    let answer = run_hook(&h, &cursor_hook, &call, bare);
    assert_eq!(answer["updated_input"]["working_directory"], "/tmp");
    let new = answer["updated_input"]["command"].as_str().unwrap();
    let ran = Command::new("bash").arg("-c").arg(new).env_clear().env("PATH", bare).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&ran.stdout), expect);
}

#[test]
fn a_custom_tokensieve_home_reaches_the_rewritten_command() {
    let h = Home::new();
    let custom = h.home.join("tools/ts");
    fs::create_dir_all(custom.join("bin")).unwrap();
    symlink(BIN, custom.join("bin/tokensieve")).unwrap();
    let out = Command::new(BIN)
        .args(["init", "gemini"])
        .env("HOME", &h.home)
        .env("TOKENSIEVE_HOME", &custom)
        .output()
        .unwrap();
    assert!(out.status.success());
    let gemini: Value = serde_json::from_str(&h.read(".gemini/settings.json")).unwrap();
    let hook = gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"].as_str().unwrap().to_owned();
    assert!(hook.contains("/tools/ts/bin/tokensieve'"), "{hook}");
    // Gemini runs the hook without TOKENSIEVE_HOME: it still knows.
    let call = json!({"tool_name": "run_shell_command", "tool_input": {"command": "tokensieve gain"}});
    let answer = run_hook(&h, &hook, &call, "/usr/bin:/bin");
    let new = answer["hookSpecificOutput"]["tool_input"]["command"].as_str().unwrap();
    assert!(new.contains(&format!("export TOKENSIEVE_HOME='{}'", custom.display())), "{new}");
}

fn doctor(h: &Home) -> String {
    let out = Command::new(BIN)
        .arg("doctor")
        .env_clear()
        .env("HOME", &h.home)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    stdout(&out)
}

#[test]
fn doctor_reports_each_agent() {
    let h = Home::new();
    // Gemini installed (its folder exists) but not set up.
    h.write(".gemini/settings.json", "{}\n");
    let text = doctor(&h);
    assert!(
        text.contains("gemini: installed; PROBLEM: no BeforeTool hook (run: tokensieve init gemini)"),
        "{text}"
    );
    assert!(text.contains("cursor: not installed"), "{text}");
    h.tokensieve(&["init", "gemini"]);
    h.tokensieve(&["init", "copilot"]);
    let text = doctor(&h);
    assert!(text.contains("gemini: installed; its shell commands that name a shim find it"), "{text}");
    // Gemini with its hooks turned off would never run ours.
    let mut settings: Value = serde_json::from_str(&h.read(".gemini/settings.json")).unwrap();
    settings["hooksConfig"] = json!({"enabled": false});
    h.write(".gemini/settings.json", &settings.to_string());
    assert!(doctor(&h).contains("gemini: installed; PROBLEM: Gemini's hooks are turned off"));
    // No install.sh PATH block in ~/.profile: Copilot's login shell lacks it.
    assert!(text.contains("copilot: installed; PROBLEM: a login shell starts with"), "{text}");
}
