//! `tokensieve init AGENT [--uninstall]` on a fake HOME, through the built
//! binary: what it writes, that running it twice changes nothing, that
//! undoing it gives back every file byte for byte, and that the user's own
//! settings survive.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::BIN;

struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home { dir: tempfile::tempdir().unwrap() }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    fn tokensieve(&self, args: &[&str]) -> Output {
        let out = Command::new(BIN)
            .args(args)
            .env_clear()
            .env("HOME", self.dir.path())
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        out
    }

    /// Every file under the home with its bytes.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
            for e in fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() { walk(&p, out) } else { out.push((p.clone(), fs::read(&p).unwrap())) }
            }
        }
        let mut files = Vec::new();
        walk(self.dir.path(), &mut files);
        files.sort();
        files
    }
}

const SETTINGS: &str = r#"{
    "model": "opus",
    "hooks": {
        "SessionStart": [
            { "matcher": "startup", "hooks": [ { "type": "command", "command": "echo welcome" } ] }
        ],
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "~/bin/guard.sh" } ] }
        ]
    }
}"#;

#[test]
fn init_then_uninstall_gives_back_every_file_byte_for_byte() {
    let home = Home::new();
    home.write(".claude/settings.json", SETTINGS);
    home.write(".claude/CLAUDE.md", "# Mine\n\nAlways run the linter."); // no final newline
    home.write(".codex/AGENTS.md", "Be brief.\n");
    let before = home.snapshot();

    home.tokensieve(&["init", "claude", "codex"]);
    let once = home.snapshot();
    assert_ne!(once, before);
    let again = home.tokensieve(&["init", "claude", "codex"]);
    assert_eq!(home.snapshot(), once, "a second init changed files");
    assert!(String::from_utf8_lossy(&again.stdout).contains("already set up"));

    // What it wrote: the hook next to the user's, the note, the import.
    let settings: serde_json::Value = serde_json::from_str(&home.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["model"], "opus");
    assert_eq!(settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "~/bin/guard.sh");
    let starts = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(starts[0]["hooks"][0]["command"], "echo welcome");
    let ours = starts[1]["hooks"][0]["command"].as_str().unwrap();
    assert!(ours.contains("CLAUDE_ENV_FILE") && ours.contains(".tokensieve/bin"), "{ours}");
    let note = home.path(".claude/tokensieve.md");
    assert!(home.read(".claude/CLAUDE.md").contains(&format!("@{}\n", note.display())));
    assert!(home.read(".claude/tokensieve.md").contains("tokensieve show ID"));
    assert!(home.read(".codex/AGENTS.md").starts_with("Be brief.\n\n<!-- >>> tokensieve >>> -->\n"));

    home.tokensieve(&["init", "claude", "codex", "--uninstall"]);
    assert_eq!(home.snapshot(), before);
}

#[test]
fn files_init_created_are_removed_and_later_edits_are_kept() {
    let home = Home::new();
    home.tokensieve(&["init", "claude"]);
    assert!(home.path(".claude/settings.json").exists());
    // The user adds a setting of their own after init.
    let mut settings: serde_json::Value = serde_json::from_str(&home.read(".claude/settings.json")).unwrap();
    settings["theme"] = "dark".into();
    home.write(".claude/settings.json", &settings.to_string());
    home.tokensieve(&["init", "claude", "--uninstall"]);
    let left: serde_json::Value = serde_json::from_str(&home.read(".claude/settings.json")).unwrap();
    assert_eq!(left, serde_json::json!({"theme": "dark"}));
    assert!(!home.path(".claude/CLAUDE.md").exists());
    assert!(!home.path(".claude/tokensieve.md").exists());
}

#[test]
fn claude_config_dir_is_respected_and_doctor_sees_the_hook() {
    let home = Home::new();
    let dir = home.path("elsewhere/claude");
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env_clear()
            .env("HOME", home.dir.path())
            .env("CLAUDE_CONFIG_DIR", &dir)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .output()
            .unwrap()
    };
    // Claude Code is installed there (and keeps files of its own).
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join(".claude.json"), "{}").unwrap();
    let out = run(&["init", "claude"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("its Bash tool finds the shims"));
    assert!(dir.join("settings.json").exists() && !home.path(".claude").exists());
    let doctor = String::from_utf8_lossy(&run(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("claude: installed; its Bash tool finds the shims"), "{doctor}");
    assert!(doctor.contains("codex: not installed"), "{doctor}");
    run(&["init", "claude", "--uninstall"]);
    let doctor = String::from_utf8_lossy(&run(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("claude: installed; PROBLEM: no SessionStart hook"), "{doctor}");
}

#[test]
fn a_file_it_cannot_understand_is_left_alone_with_one_clear_error() {
    let home = Home::new();
    let broken = "# Notes\n<!-- >>> tokensieve >>> -->\nmy own line\n";
    home.write(".claude/CLAUDE.md", broken);
    home.write(".claude/settings.json", "{ \"model\": ");
    let out = Command::new(BIN)
        .args(["init", "claude"])
        .env_clear()
        .env("HOME", home.dir.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("settings.json") && err.contains("left unchanged"), "{err}");
    assert_eq!(home.read(".claude/CLAUDE.md"), broken);
    assert_eq!(home.read(".claude/settings.json"), "{ \"model\": ");
    let unknown = Command::new(BIN).args(["init", "vim"]).env("HOME", home.dir.path()).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown agent 'vim'"));
}

#[test]
fn doctor_names_a_codex_policy_that_drops_path() {
    let home = Home::new();
    home.write(".codex/config.toml", "model = \"o3\"\n[shell_environment_policy]\ninherit = \"none\"\n");
    home.tokensieve(&["init", "codex"]);
    let out = Command::new(BIN)
        .arg("doctor")
        .env_clear()
        .env("HOME", home.dir.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let doctor = String::from_utf8_lossy(&out.stdout);
    assert!(
        doctor.contains("codex: installed; PROBLEM: config.toml has shell_environment_policy.inherit"),
        "{doctor}"
    );
    assert_eq!(out.status.code(), Some(1));
}
