//! Text filters through the real command path: `tokensieve run -- git ...`
//! in a scratch repository (real git, real pipes), and a `git` shim symlink
//! with an agent marker set. Stdout is gathered and summarised (by the git
//! filter when one claims the command); the exit status is git's own.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tokensieve");

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_DATE", "2026-10-12T11:54:00Z")
        .env("GIT_COMMITTER_DATE", "2026-10-12T11:54:00Z")
        .stdout(Stdio::null())
        .status()
        .expect("git runs")
        .success();
    assert!(ok, "git {args:?}");
}

/// A repository of 30 commits (one file changed each), the `i`th by
/// `author(i)` with the message `message(i)` (subject, body).
fn repo_of(
    author: impl Fn(usize) -> &'static str,
    message: impl Fn(usize) -> (String, String),
) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    git(p, &["init", "-q", "-b", "main"]);
    for i in 0..30 {
        std::fs::write(p.join("notes.txt"), format!("line {i}\n")).unwrap();
        git(p, &["add", "notes.txt"]);
        let (subject, body) = message(i);
        let id = ["-c", "user.name=x", "-c", "user.email=x@example.com"];
        git(p, &[&id[..], &["commit", "-q", "--author", author(i), "-m", &subject, "-m", &body]].concat());
    }
    dir
}

/// A repository with 30 commits by two authors, one message template.
fn repo() -> tempfile::TempDir {
    repo_of(
        |i| if i % 3 == 0 { "Second Dev <second@example.com>" } else { "Dev One <dev@example.com>" },
        |i| (format!("Change number {i}"), "A body line that explains the change in some detail.".into()),
    )
}

fn tokensieve(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir).env("TOKENSIEVE_HOME", dir.join(".ts-home"));
    for var in ["CLAUDECODE", "TOKENSIEVE", "TOKENSIEVE_DEPTH", "TOKENSIEVE_SHIMS", "AGENT", "AI_AGENT"] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null()).output().expect("tokensieve runs")
}

#[test]
fn run_git_log_gets_the_log_summary() {
    let dir = repo();
    let out = tokensieve(dir.path(), BIN, &["run", "--", "git", "log"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.starts_with("# focus view: 30 commits"), "{stdout}");
    assert!(stdout.contains(" Dev One: Change number 29\n"), "{stdout}");
    assert_eq!(stdout.matches(": Change number ").count(), 30, "{stdout}");
    assert!(stderr.contains("Shape: text:git-log"), "{stderr}");
}

/// A log of written messages (every line its own words) is a document: with
/// focus off it reaches the agent whole, as git printed it; past the focus
/// size it gets the focus view, every commit in it, and `show` prints the
/// rest.
#[test]
fn run_git_log_of_written_messages_passes_whole() {
    // distinct letter-only words: no two message lines one word apart
    let word = |n: usize| -> String {
        let mut n = n * 7919 + 101;
        let mut w = String::new();
        while n > 0 {
            w.push((b'a' + (n % 26) as u8) as char);
            n /= 26;
        }
        w
    };
    let line = |k: usize| (0..8).map(|j| word(k * 8 + j)).collect::<Vec<_>>().join(" ");
    let dir = repo_of(
        |_| "Dev One <dev@example.com>",
        |i| (line(3 * i), format!("{}\n{}", line(3 * i + 1), line(3 * i + 2))),
    );
    let p = dir.path();
    let raw = Command::new("git").args(["log"]).current_dir(p).output().unwrap().stdout;
    assert!(raw.len() > 4_000, "{} bytes", raw.len());
    let out =
        tokensieve(p, BIN, &["run", "--", "git", "log"], &[("CLAUDECODE", "1"), ("TOKENSIEVE_FOCUS", "off")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&raw));
    let out = tokensieve(p, BIN, &["run", "--", "git", "log"], &[("CLAUDECODE", "1")]);
    let view = String::from_utf8_lossy(&out.stdout);
    assert!(view.starts_with("# focus view: 30 commits"), "{view}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let id: String = stderr
        .split("raw ")
        .nth(1)
        .expect("the raw output kept")
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    let shown = tokensieve(p, BIN, &["show", &id], &[]).stdout;
    assert_eq!(shown, raw);
}

#[test]
fn a_git_shim_under_an_agent_summarises_and_keeps_the_status() {
    let dir = repo();
    let shims = dir.path().join(".shims");
    std::fs::create_dir_all(&shims).unwrap();
    std::os::unix::fs::symlink(BIN, shims.join("git")).unwrap();
    let path = format!("{}:{}", shims.display(), std::env::var("PATH").unwrap_or_default());
    let out = tokensieve(dir.path(), "git", &["log"], &[("PATH", &path), ("CLAUDECODE", "1")]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("# focus view: 30 commits"));
    // a failing git keeps git's own exit status (stdout empty: nothing to summarise)
    let bad = tokensieve(dir.path(), "git", &["log", "no-such-ref"], &[("PATH", &path), ("CLAUDECODE", "1")]);
    assert_eq!(bad.status.code(), Some(128));
}

#[test]
fn an_unclaimed_command_is_treated_and_its_bytes_kept() {
    let dir = repo();
    let raw = Command::new("git").args(["rev-list", "HEAD"]).current_dir(dir.path()).output().unwrap().stdout;
    let out = tokensieve(dir.path(), BIN, &["run", "--", "git", "rev-list", "HEAD"], &[]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // No filter claims `git rev-list`: it went through the generic path all
    // the same (a receipt), and whatever the agent read, git's own bytes
    // are one `show` away.
    let receipt = stderr.lines().find(|l| l.starts_with("[TokenSieve]")).expect("a receipt");
    if out.stdout != raw {
        let id = receipt.rsplit("raw: ").next().unwrap();
        let home = dir.path().join(".ts-home");
        let shown =
            Command::new(BIN).args(["show", id]).env("TOKENSIEVE_HOME", &home).output().expect("show runs");
        assert_eq!(shown.stdout, raw);
    }
}
