//! `tokensieve recall` and `gain --markdown` over a history the real binary
//! recorded, calls made from different project directories.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text").join(name)).unwrap()
}

/// One call as `tokensieve --cmd CMD --exit N < fixture`, run in `dir`.
fn record(home: &Path, dir: &Path, cmd: &str, exit: i32, name: &str) {
    let mut c = common::tokensieve_in(home);
    c.current_dir(dir).args(["--cmd", cmd, "--exit", &exit.to_string()]).env_remove("TOKENSIEVE_FORMAT");
    let out = common::output_with_stdin(&mut c, &fixture(name));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn cli(home: &Path, dir: &Path, args: &[&str]) -> (bool, String, String) {
    let out = common::tokensieve_in(home).current_dir(dir).args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

fn recall(home: &Path, dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["recall", "--json"];
    all.extend(args);
    let (ok, out, err) = cli(home, dir, &all);
    assert!(ok, "{err}");
    serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().clone()
}

fn tools(found: &[Value]) -> Vec<&str> {
    found.iter().map(|r| r["tool"].as_str().unwrap()).collect()
}

#[test]
fn recall_by_status_tool_file_project_and_time() {
    let home = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sub = a.path().join("web");
    std::fs::create_dir(&sub).unwrap();
    record(home.path(), a.path(), "python -m pytest", 1, "pytest-fail.txt");
    record(home.path(), &sub, "npx tsc --noEmit", 2, "tsc-errors.txt");
    record(home.path(), b.path(), "cargo test", 0, "cargo-test-pass.txt");
    record(home.path(), b.path(), "cargo build", 101, "cargo-build-fail.txt");

    let here = a.path();
    assert_eq!(tools(&recall(home.path(), here, &[])), ["cargo", "cargo", "tsc", "pytest"]);
    let failed = recall(home.path(), here, &["--status", "failed"]);
    assert_eq!(tools(&failed), ["cargo", "tsc", "pytest"]);
    assert!(failed.iter().all(|r| r["status"] == "failed" && r["result"]["status"] == "failed"));
    assert_eq!(tools(&recall(home.path(), here, &["--status", "passed"])), ["cargo"]);
    assert_eq!(tools(&recall(home.path(), here, &["--tool", "pytest"])), ["pytest"]);
    // a finding's file: the path as printed, or its tail after a `/`
    for file in ["src/api.ts", "./src/api.ts", "api.ts"] {
        assert_eq!(tools(&recall(home.path(), here, &["--file", file])), ["tsc"], "{file}");
    }
    assert!(recall(home.path(), here, &["--file", "pi.ts"]).is_empty());
    assert_eq!(
        tools(&recall(home.path(), here, &["--file", "src/broken.rs", "--status", "failed"])),
        ["cargo"]
    );
    // the project: this directory and the ones below it
    assert_eq!(tools(&recall(home.path(), here, &["--cwd"])), ["tsc", "pytest"]);
    assert_eq!(tools(&recall(home.path(), &sub, &["--cwd"])), ["tsc"]);
    assert_eq!(recall(home.path(), here, &["--since", "1h"]).len(), 4);
    assert_eq!(recall(home.path(), here, &["--limit", "1"]).len(), 1);
    // the stored result comes back whole, raw id included
    let tsc = &recall(home.path(), here, &["--tool", "tsc"])[0];
    assert_eq!(tsc["result"]["raw"], tsc["id"]);
    assert_eq!(tsc["result"]["findings"].as_array().unwrap().len(), 8);

    let (ok, text, _) = cli(home.path(), here, &["recall", "--file", "src/api.ts"]);
    assert!(ok);
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let row = lines.next().unwrap();
    assert!(header.starts_with("id ") && header.contains("  status  command"), "{text}");
    // Aligned: each column starts where its header does.
    for col in ["time", "status", "command"] {
        let at = header.find(col).unwrap();
        assert_ne!(row.as_bytes()[at], b' ', "{col}: {text}");
        assert_eq!(row.as_bytes()[at - 1], b' ', "{col}: {text}");
    }
    assert!(row.contains("  failed  tsc ") && row.split_whitespace().nth(4) == Some("8"), "{text}");
    assert!(text.contains("\n  error src/api.ts:4 error TS2322:"), "{text}");
    let (ok, _, err) = cli(home.path(), here, &["recall", "--status", "broken"]);
    assert!(!ok && err.contains("invalid value 'broken' for '--status <STATUS>'"), "{err}");
    let (ok, _, err) = cli(home.path(), here, &["gain", "--status", "failed"]);
    assert!(!ok && err.starts_with("tokensieve gain: unexpected argument '--status'"), "{err}");
}

#[test]
fn recall_of_an_empty_history() {
    let home = tempfile::tempdir().unwrap();
    let (ok, text, _) = cli(home.path(), home.path(), &["recall", "--status", "failed"]);
    assert!(ok);
    assert_eq!(text, "no captures match\n");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_pr_scorecard_counts_this_repository_since_the_branch_point() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["commit", "-q", "--allow-empty", "-m", "base"]);
    git(repo.path(), &["checkout", "-q", "-b", "feature"]);
    record(home.path(), repo.path(), "python -m pytest", 1, "pytest-fail.txt");
    record(home.path(), repo.path(), "cargo test", 101, "cargo-test-fail.txt");
    record(home.path(), elsewhere.path(), "npx tsc", 2, "tsc-errors.txt");

    let (ok, md, err) = cli(home.path(), repo.path(), &["gain", "--markdown", "--since-ref", "main"]);
    assert!(ok, "{err}");
    assert!(
        md.starts_with(
            "#### tokensieve: tokens kept out of the agent's context, since this branch left `main` ("
        ),
        "{md}"
    );
    assert!(
        md.contains(
            "\n| tool | calls | tokens in | tokens out | kept out | saved |\n|---|---:|---:|---:|---:|---:|\n"
        ),
        "{md}"
    );
    assert!(md.contains("\n| `cargo` | 1 | ") && md.contains("\n| `pytest` | 1 | "), "{md}");
    assert!(!md.contains("tsc"), "a call outside the repository: {md}");
    assert!(md.lines().last().unwrap().starts_with("| **total** | 2 | "), "{md}");

    let (ok, _, err) = cli(home.path(), repo.path(), &["gain", "--markdown", "--since-ref", "no-such-ref"]);
    assert!(!ok && err.contains("no-such-ref"), "{err}");
    let (ok, _, err) = cli(home.path(), repo.path(), &["gain", "--since-ref", "main"]);
    assert!(!ok && err.contains("--since-ref goes with --markdown"), "{err}");
}
