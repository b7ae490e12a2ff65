//! Every captured dev-tool run in fixtures/text (the shared corpus) and
//! fixtures/text/local (runs captured on this machine, see its README) goes
//! through the real binary as `tokensieve --cmd CMD --exit N`: every
//! `must_keep` string survives, a non-zero status is stated as `exit N`, and
//! the receipt never shows more tokens out than in; outputs of 2,000+ tokens
//! are at least halved and each set saves 80 % overall.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Outcome {
    stdout: String,
    original: usize,
    compressed: usize,
    shape: String,
}

fn run(cmd: &str, exit: i64, input: &[u8], home: &Path) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .args(["--cmd", cmd, "--exit", &exit.to_string()])
        .env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE")
        .env_remove("CLAUDECODE")
        .env_remove("TOKENSIEVE_BUDGET")
        .env_remove("BASH_MAX_OUTPUT_LENGTH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tokensieve runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "tokensieve failed for {cmd}: {}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let receipt = stderr.lines().find(|l| l.starts_with("[TokenSieve]")).expect("a receipt line").to_string();
    let field = |name: &str| -> String {
        let at = receipt.find(name).unwrap_or_else(|| panic!("{name} in {receipt}")) + name.len();
        receipt[at..].trim_start().split([' ', '|']).next().unwrap().to_string()
    };
    Outcome {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        original: field("Original:").parse().unwrap(),
        compressed: field("Compressed:").parse().unwrap(),
        shape: field("Shape:"),
    }
}

fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

fn check_dir(dir: &Path, min: usize) {
    let home = tempfile::tempdir().unwrap();
    let files = fixtures(dir);
    assert!(files.len() >= min, "expected at least {min} fixtures in {}", dir.display());
    let mut problems = Vec::new();
    let (mut total_in, mut total_out) = (0usize, 0usize);
    for txt in &files {
        let sidecar = txt.with_extension("signal.json");
        let sig: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
        let cmd = sig["command"].as_str().unwrap();
        let exit = sig["exit_code"].as_i64().unwrap();
        let raw = std::fs::read(txt).unwrap();
        let o = run(cmd, exit, &raw, home.path());
        let name = txt.file_name().unwrap().to_string_lossy();
        for keep in sig["must_keep"].as_array().unwrap() {
            let keep = keep.as_str().unwrap();
            if !o.stdout.contains(keep) {
                problems.push(format!("{name}: lost {keep:?}"));
            }
        }
        // a non-zero status is stated, unless the output went through raw
        // (tiny or not compressible: stating it would cost more than raw)
        if exit != 0 && !o.stdout.contains(&format!("exit {exit}")) && o.shape != "raw" {
            problems.push(format!("{name}: exit {exit} not stated"));
        }
        if o.compressed > o.original {
            problems.push(format!("{name}: {} tokens out > {} in", o.compressed, o.original));
        }
        if o.original >= 2000 && o.compressed * 2 > o.original {
            problems.push(format!("{name}: large output not halved ({} → {})", o.original, o.compressed));
        }
        // The default budget (SPEC §6b): what the agent reads fits the window.
        if o.stdout.chars().count() > tokensieve::budget::DEFAULT {
            problems.push(format!("{name}: {} chars of stdout, over the budget", o.stdout.chars().count()));
        }
        if o.shape == "raw" {
            assert_eq!(o.stdout.as_bytes(), &raw[..], "{name}: raw shape must deliver the exact bytes");
        }
        total_in += o.original;
        total_out += o.compressed;
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let saved = 1.0 - total_out as f64 / total_in as f64;
    assert!(saved >= 0.80, "{}: saved only {:.1}%", dir.display(), saved * 100.0);
}

#[test]
fn shared_corpus_keeps_signal_and_saves_tokens() {
    check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text"), 39);
}

#[test]
fn local_captures_keep_signal_and_save_tokens() {
    check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/local"), 1);
}

#[test]
fn without_a_hint_text_passes_through() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/cargo-test-fail.txt"))
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .env("TOKENSIEVE_HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(&raw)?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.stdout, raw);
}
