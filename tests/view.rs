//! The budget (SPEC §6b) through the built binary: every fixture fits the
//! default budget, every figure a view shows is recomputed here from the raw
//! document, rows shown are the raw's rows, signal rows come first, and the
//! commands a view prints give the rest.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::json_views::*;
use common::receipt_field;
use serde_json::Value;
use tokensieve::settings::Settings;

fn run(home: &Path, args: &[&str], env: &[(&str, &str)], input: &[u8]) -> Output {
    let mut cmd = Command::new(common::BIN);
    cmd.args(args)
        .env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE_BUDGET")
        .env_remove("BASH_MAX_OUTPUT_LENGTH")
        .env_remove("TOKENSIEVE_TOKENIZER")
        // The budget view of the whole document; the focus view (which
        // takes its place when it fits) is tests/focus.rs's.
        .env("TOKENSIEVE_FOCUS", "off");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn fixtures() -> Vec<PathBuf> {
    common::json_fixtures()
}

#[test]
fn every_fixture_fits_the_default_budget_and_views_are_true() {
    let home = tempfile::tempdir().unwrap();
    let (mut views, mut tables) = (0, 0);
    for f in fixtures() {
        let raw = std::fs::read(&f).unwrap();
        let out = run(home.path(), &[], &[], &raw);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let name = f.display().to_string();
        assert!(text.chars().count() <= 25_000, "{name}: {} chars", text.chars().count());
        let shape = receipt_field(&String::from_utf8(out.stderr).unwrap(), "Shape").unwrap();
        if shape.contains(" view ") {
            assert!(shape.starts_with("Outline view ") && shape.ends_with(" rows"), "{shape}");
            tables += check_view(&name, &raw, &text);
            views += 1;
        }
    }
    // describe-instance-types and describe-images are far over it.
    assert!(views >= 2, "{views} views");
    assert!(tables >= 2, "{tables} table headers checked");
}

#[test]
fn budget_off_is_the_lossless_output() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/json/aws/ec2-describe-images-owners-amazon.json"),
    )
    .unwrap();
    let off = run(home.path(), &[], &[("TOKENSIEVE_BUDGET", "off")], &raw);
    let text = String::from_utf8(off.stdout).unwrap();
    assert!(text.chars().count() > 100_000);
    let shape = receipt_field(&String::from_utf8(off.stderr).unwrap(), "Shape").unwrap();
    assert!(!shape.contains("view"), "{shape}");
    let decoded = tokensieve::json::decode::decode(&text).unwrap();
    let settings = Settings::default();
    assert_eq!(decoded, tokensieve::json::reduce(tokensieve::json::parse(&raw).unwrap(), &settings));
    // The same bytes as the library's compression (what every release before
    // the budget printed).
    assert_eq!(text, tokensieve::json::compress(tokensieve::json::parse(&raw).unwrap(), &settings).text);
}

#[test]
fn the_harness_cap_sets_the_budget() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/json/aws/s3api-list-objects-v2-120-objects.json"),
    )
    .unwrap();
    // 6,000 chars of harness cap → a 5,000-char budget.
    let out = run(home.path(), &[], &[("BASH_MAX_OUTPUT_LENGTH", "6000")], &raw);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# view: this output is over the 5000-char budget"), "{}", &text[..200]);
    assert!(text.chars().count() <= 5_000);
    check_view("s3 at 5000", &raw, &text);
    // Our own setting wins.
    let out =
        run(home.path(), &[], &[("BASH_MAX_OUTPUT_LENGTH", "6000"), ("TOKENSIEVE_BUDGET", "off")], &raw);
    assert!(!String::from_utf8(out.stdout).unwrap().starts_with("# view"));
    // A bad value is one warning and the defaults: a pipeline keeps its output.
    let out = run(home.path(), &[], &[("TOKENSIEVE_BUDGET", "lots")], &raw);
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty());
    assert!(String::from_utf8(out.stderr).unwrap().contains("warning: TOKENSIEVE_BUDGET: must be"));
}

/// A service's JSON-lines log: thousands of requests, one error among them.
fn service_log(lines: usize, error_at: usize) -> String {
    let mut out = String::new();
    for i in 0..lines {
        let (level, msg, status) = if i == error_at {
            ("error", "upstream timeout talking to billing", 504)
        } else {
            ("info", "request completed", 200)
        };
        out.push_str(&format!(
            "{{\"ts\":\"2025-11-23T10:{:02}:{:02}.{:03}Z\",\"level\":\"{level}\",\"service\":\"orders\",\"msg\":\"{msg}\",\"method\":\"GET\",\"path\":\"/v1/orders/{}\",\"status\":{status},\"latency_ms\":{},\"request_id\":\"req-{:06x}\"}}\n",
            (i / 60) % 60,
            i % 60,
            i % 1000,
            10_000 + i * 7 % 5000,
            3 + i * 13 % 200,
            i * 7919 % 0xffffff
        ));
    }
    out
}

#[test]
fn a_json_lines_log_shows_its_one_error_record() {
    let home = tempfile::tempdir().unwrap();
    let log = service_log(7203, 5150);
    let out = run(home.path(), &[], &[], log.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(text.chars().count() <= 25_000);
    let request = format!("req-{:06x}", 5150 * 7919 % 0xffffff);
    assert!(text.contains(&request) && text.contains("upstream timeout talking to billing"), "{text}");
    assert!(text.contains(".[].level string 7203 distinct=2 top=[[\"info\",7202],[\"error\",1]]"), "{text}");
    let note = text.lines().find(|l| l.starts_with("# rows .: ")).unwrap();
    assert!(
        note.contains("of 7203 shown") && note.contains(",5150") && note.contains("signal rows: 1"),
        "{note}"
    );
    check_view("service log", log.as_bytes(), &text);
    let shape = receipt_field(&err, "Shape").unwrap();
    assert!(shape.starts_with("Outline view ") && shape.ends_with("/7203 rows"), "{shape}");

    // The rest, with the command the view gives (JSON lines: --slurp).
    let id = receipt_field(&err, "raw").unwrap();
    let rest = note.split("rest: ").nth(1).unwrap();
    let filter = rest.split(" --jq '").nth(1).unwrap().trim_end_matches('\'');
    assert!(rest.starts_with(&format!("tokensieve show {id} --slurp --jq '.[")), "{rest}");
    let from: usize = filter.trim_start_matches(".[").trim_end_matches(":]").parse().unwrap();
    let out = run(home.path(), &["show", &id, "--slurp", "--jq", &format!("{filter} | length")], &[], b"");
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), (7203 - from).to_string());
}

/// The same log as a command's output (a hint: `--cmd`, a shim, `run`) is a
/// log like any other: its error record and its last record quoted as
/// printed, not re-rendered as table rows.
#[test]
fn a_commands_json_lines_log_quotes_its_records() {
    let home = tempfile::tempdir().unwrap();
    let log = service_log(7203, 5150);
    let out = run(home.path(), &["--cmd", "node server.js"], &[], log.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert!(text.contains(lines[5150]), "{text}");
    assert!(text.contains(lines[7202]), "{text}");
    assert_eq!(receipt_field(&err, "Shape").as_deref(), Some("text:generic"), "{err}");
    assert!(text.chars().count() < 5_000, "{}", text.chars().count());
}

#[test]
fn a_long_text_output_is_a_view_by_signal_priority() {
    let home = tempfile::tempdir().unwrap();
    let mut log: Vec<String> =
        (0..9000).map(|i| format!("2025-11-23 10:00:{:02} GET /static/{i}.css 200", i % 60)).collect();
    log[6001] = "2025-11-23 10:00:21 ERROR worker 3 crashed: out of memory".into();
    let raw = log.join("\n") + "\n";
    // Without a hint text passes as it is: past the budget, a view of it.
    let out = run(home.path(), &[], &[], raw.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(text.chars().count() <= 25_000);
    assert!(text.contains(&log[6001]), "{text}");
    assert!(text.starts_with("# view: 9000 lines, "), "{}", &text[..100]);
    let shape = receipt_field(&err, "Shape").unwrap();
    assert!(shape.ends_with("/9000 lines"), "{shape}");
    // A gap's command prints exactly the lines it stands for.
    let id = receipt_field(&err, "raw").unwrap();
    let gap = text.lines().find(|l| l.starts_with("… lines ")).unwrap();
    let range = gap.split("--lines ").nth(1).unwrap();
    let (a, b) = range.split_once(':').unwrap();
    let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
    let out = run(home.path(), &["show", &id, "--lines", range], &[], b"");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        log[a - 1..b].iter().map(|l| format!("{l}\n")).collect::<String>()
    );
}

#[test]
fn gain_counts_savings_against_what_the_harness_would_have_shown() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/json/aws/ec2-describe-images-owners-amazon.json"),
    )
    .unwrap();
    let out = run(home.path(), &[], &[], &raw);
    let err = String::from_utf8(out.stderr).unwrap();
    let original: u64 = receipt_field(&err, "Original").unwrap().trim_end_matches(" tok").parse().unwrap();
    let shown: u64 = receipt_field(&err, "Compressed").unwrap().trim_end_matches(" tok").parse().unwrap();
    // What a harness keeping 25,000 chars (head and tail) would have shown.
    let text = String::from_utf8(raw.clone()).unwrap();
    let chars: Vec<char> = text.chars().collect();
    let head: String = chars[..12_500].iter().collect();
    let tail: String = chars[chars.len() - 12_500..].iter().collect();
    let enc = tokensieve::auditor::Encoding::Cl100k;
    let harness = (tokensieve::auditor::count(enc, &head) + tokensieve::auditor::count(enc, &tail)) as u64;
    let gain = run(home.path(), &["gain", "--json"], &[], b"");
    let v: Value = serde_json::from_slice(&gain.stdout).unwrap();
    assert_eq!(v["original_tokens"], original);
    assert_eq!(v["harness_tokens"], harness);
    assert_eq!(v["saved_vs_harness_tokens"], harness as i64 - shown as i64);
    assert!(harness < original / 10);
}
