//! `tokensieve init claude --mcp [--uninstall]` against a fake HOME that
//! holds Claude Code's own `~/.claude.json`; and the real Claude Code CLI
//! (scripts/test.sh installs it) reading the entry and connecting to
//! `tokensieve mcp` (`claude mcp get`).

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_tokensieve");

fn tokensieve(home: &Path, args: &[&str]) -> Output {
    let out = Command::new(BIN)
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// A HOME with the installed binary and Claude Code's own state file.
fn home() -> (tempfile::TempDir, std::path::PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    fs::create_dir_all(home.join(".tokensieve/bin")).unwrap();
    symlink(BIN, home.join(".tokensieve/bin/tokensieve")).unwrap();
    let before = "{\n  \"numStartups\": 3,\n  \"projects\": {\"/src/app\": {\"allowedTools\": []}},\n  \"mcpServers\": {\"notes\": {\"type\": \"stdio\", \"command\": \"notes-mcp\", \"args\": [], \"env\": {}}}\n}\n";
    fs::write(home.join(".claude.json"), before).unwrap();
    (dir, home, before.to_string())
}

#[test]
fn init_claude_mcp_registers_the_server_and_uninstall_restores_the_file() {
    let (_dir, home, before) = home();
    let out = tokensieve(&home, &["init", "claude", "--mcp"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(".claude.json"), "{said}");
    let config: Value =
        serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(
        config["mcpServers"]["tokensieve"],
        json!({"type": "stdio", "command": home.join(".tokensieve/bin/tokensieve").to_str().unwrap(), "args": ["mcp"], "env": {}})
    );
    // the person's own servers and Claude Code's state are kept
    assert_eq!(config["mcpServers"]["notes"]["command"], "notes-mcp");
    assert_eq!(config["numStartups"], 3);
    // again: nothing to change
    let again = fs::read(home.join(".claude.json")).unwrap();
    tokensieve(&home, &["init", "claude", "--mcp"]);
    assert_eq!(fs::read(home.join(".claude.json")).unwrap(), again);
    // the shim hook is another edit: --mcp leaves settings.json alone
    assert!(!home.join(".claude/settings.json").exists());

    tokensieve(&home, &["init", "claude", "--mcp", "--uninstall"]);
    assert_eq!(fs::read_to_string(home.join(".claude.json")).unwrap(), before);
}

#[test]
fn uninstall_after_claude_rewrote_the_file_removes_only_our_entry() {
    let (_dir, home, _) = home();
    tokensieve(&home, &["init", "claude", "--mcp"]);
    // Claude Code rewrites its state file all the time
    let mut config: Value =
        serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    config["numStartups"] = json!(4);
    fs::write(home.join(".claude.json"), serde_json::to_string(&config).unwrap()).unwrap();
    tokensieve(&home, &["init", "claude", "--mcp", "--uninstall"]);
    let after: Value = serde_json::from_str(&fs::read_to_string(home.join(".claude.json")).unwrap()).unwrap();
    assert_eq!(after["numStartups"], 4);
    assert!(after["mcpServers"].get("tokensieve").is_none(), "{after}");
    assert_eq!(after["mcpServers"]["notes"]["command"], "notes-mcp");
}

#[test]
fn init_mcp_is_for_claude_only() {
    let (_dir, home, _) = home();
    let out = Command::new(BIN).args(["init", "codex", "--mcp"]).env("HOME", &home).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only claude"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The real CLI reads our entry and its health check connects: it starts
/// `tokensieve mcp` and completes the MCP handshake.
#[test]
fn real_claude_code_connects_to_the_registered_server() {
    let Some(agents) = common::prepared_dir("TOKENSIEVE_TEST_AGENTS", "Claude Code MCP check") else {
        return;
    };
    let (_dir, home, _) = home();
    tokensieve(&home, &["init", "claude", "--mcp"]);
    let out = Command::new(agents.join("claude"))
        .args(["mcp", "get", "tokensieve"])
        .env_clear()
        .env("HOME", &home)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .current_dir(&home)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Scope: User"), "{text}");
    assert!(text.contains("Connected"), "{text}");
    assert!(
        text.contains(&format!("Command: {}", home.join(".tokensieve/bin/tokensieve").display())),
        "{text}"
    );
}
