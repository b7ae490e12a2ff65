//! `tokensieve session compact` and `tokensieve discover` on the real
//! sessions in fixtures/sessions (Claude Code with subagents, Codex
//! rollouts from the real CLI): seed 003's byte-identity contract on every
//! line, every compacted tool result recoverable with `show`, the token
//! target, and discover's savings equal to `tokensieve --cmd` per output.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{output_with_stdin, tokensieve_in};
use proptest::prelude::*;
use serde_json::Value;
use tokensieve::transcript::spans::{self, Node};
use tokensieve::transcript::{Line, compact, events};

fn sessions() -> Vec<PathBuf> {
    let out = common::files_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sessions"), "jsonl");
    assert!(out.len() >= 15, "{out:?}");
    out
}

/// The raw text of each top-level member except `skip`.
fn members<'a>(line: &'a [u8], root: &Node, skip: &[&str]) -> BTreeMap<String, &'a [u8]> {
    match &root.kind {
        spans::Kind::Object(m) => m
            .iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), &line[v.range.clone()]))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// Seed 003's contract for one input line and its output line.
fn check_line(name: &str, no: usize, input: &[u8], output: &[u8]) {
    let at = || format!("{name}:{no}");
    let Some(root) = spans::index(input) else {
        assert_eq!(input, output, "{}: a line that is not JSON changed", at());
        return;
    };
    let out_root = spans::index(output).unwrap_or_else(|| panic!("{}: output is not JSON", at()));
    let v: Value = serde_json::from_slice(input).unwrap();
    let ty = v["type"].as_str().unwrap_or("");
    let content = &v["message"]["content"];
    let has_results = content.as_array().is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"));
    let payload_ty = v["payload"]["type"].as_str().unwrap_or("");
    let codex_result = ty == "response_item" && payload_ty.ends_with("_output");
    let assistant = ty == "assistant" || (ty == "response_item" && v["payload"]["role"] == "assistant");
    if v["kind"] == "assistant" || v["kind"] == "tool" {
        // Seed 003's entries: only `content` may change; tool_name,
        // tool_input, tool_mark and unknown members keep their bytes.
        assert_eq!(members(input, &root, &["content"]), members(output, &out_root, &["content"]), "{}", at());
        return;
    }
    if !assistant && !has_results && !codex_result {
        // Header entries and user turns: byte for byte.
        assert_eq!(
            input,
            output,
            "{}: a {} line changed",
            at(),
            if ty.is_empty() { &v["kind"] } else { &v["type"] }
        );
        return;
    }
    // Every member but the message (or payload) keeps its raw text, and no
    // member is lost or added.
    let editable = ["message", "payload"];
    assert_eq!(members(input, &root, &editable), members(output, &out_root, &editable), "{}", at());
    let body = |r: &Node| r.get("message").or_else(|| r.get("payload")).cloned();
    let (Some(msg_in), Some(msg_out)) = (body(&root), body(&out_root)) else { return };
    assert_eq!(
        members(input, &msg_in, &["content", "output"]),
        members(output, &msg_out, &["content", "output"]),
        "{}",
        at()
    );
    let blocks_in = msg_in.get("content").map(Node::items).unwrap_or(&[]);
    let blocks_out = msg_out.get("content").map(Node::items).unwrap_or(&[]);
    assert_eq!(blocks_in.len(), blocks_out.len(), "{}", at());
    for (b_in, b_out) in blocks_in.iter().zip(blocks_out) {
        let raw_in = &input[b_in.range.clone()];
        let raw_out = &output[b_out.range.clone()];
        let kind = b_in.get("type").and_then(|t| t.str(input)).unwrap_or_default().into_owned();
        let signed = b_in.get("signature").and_then(|s| s.str(input)).is_some_and(|s| !s.is_empty());
        match kind.as_str() {
            // Tool calls and signed thinking: byte for byte.
            "tool_use" | "function_call" => assert_eq!(raw_in, raw_out, "{}: a tool call changed", at()),
            "thinking" if signed => assert_eq!(raw_in, raw_out, "{}: signed thinking changed", at()),
            // Elsewhere only the text may change; every other member stays.
            _ => {
                let skip = ["text", "thinking", "content"];
                assert_eq!(members(input, b_in, &skip), members(output, b_out, &skip), "{}", at());
            }
        }
    }
}

/// Lines of a file, each with whether it ended with a newline.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|b| *b == b'\n').collect()
}

fn compact_file(home: &Path, path: &Path, args: &[&str], stats: &Path) -> Vec<u8> {
    let input = fs::read(path).unwrap();
    let mut cmd = tokensieve_in(home);
    cmd.args(["session", "compact"]).args(args).arg("--stats-json").arg(stats);
    let out = output_with_stdin(&mut cmd, &input);
    assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn the_contract_holds_on_every_line_of_the_real_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let (mut tokens_in, mut tokens_out) = (0u64, 0u64);
    let mut compacted = 0;
    for path in sessions() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let input = fs::read(&path).unwrap();
        for (args, tool_results) in [(&[][..], false), (&["--tool-results", "--synonyms"][..], true)] {
            let stats = dir.path().join("stats.json");
            let output = compact_file(dir.path(), &path, args, &stats);
            let (a, b) = (lines(&input), lines(&output));
            assert_eq!(a.len(), b.len(), "{name} {args:?}: line count");
            for (no, (li, lo)) in a.iter().zip(&b).enumerate() {
                assert_eq!(li.ends_with(b"\n"), lo.ends_with(b"\n"), "{name}:{}", no + 1);
                let (li, lo) = (li.strip_suffix(b"\n").unwrap_or(li), lo.strip_suffix(b"\n").unwrap_or(lo));
                if !tool_results {
                    // Without --tool-results, results are untouched too.
                    let v: Value = serde_json::from_slice(li).unwrap_or(Value::Null);
                    if v["type"] == "user" {
                        assert_eq!(li, lo, "{name}:{}", no + 1);
                    }
                }
                check_line(&name, no + 1, li, lo);
                if tool_results && li != lo {
                    compacted += recoverable(dir.path(), &name, no + 1, li, lo);
                }
            }
            let s: Value = serde_json::from_slice(&fs::read(&stats).unwrap()).unwrap();
            assert_eq!(s["entries_in"], s["entries_out"]);
            assert_eq!(s["entries_in"].as_u64().unwrap() as usize, a.len());
            if tool_results && path.to_string_lossy().contains("/claude/") {
                tokens_in += s["tokens_in"].as_u64().unwrap();
                tokens_out += s["tokens_out"].as_u64().unwrap();
            }
        }
    }
    let saved = 1.0 - tokens_out as f64 / tokens_in as f64;
    eprintln!(
        "--tool-results on the Claude sessions: {tokens_in} → {tokens_out} tok ({:.1} % fewer), {compacted} results compacted",
        saved * 100.0
    );
    assert!(saved >= 0.25, "only {:.1} % fewer tokens", saved * 100.0);
    assert!(compacted > 150, "{compacted}");
}

/// Every tool result that changed names its stored original, and `show`
/// gives it back exactly. Returns how many results changed.
fn recoverable(home: &Path, name: &str, no: usize, input: &[u8], output: &[u8]) -> usize {
    let (vi, vo): (Value, Value) =
        (serde_json::from_slice(input).unwrap(), serde_json::from_slice(output).unwrap());
    let pairs: Vec<(Value, Value)> = if vi["type"] == "response_item" {
        vec![(vi["payload"]["output"].clone(), vo["payload"]["output"].clone())]
    } else {
        let (a, b) = (
            vi["message"]["content"].as_array().cloned().unwrap_or_default(),
            vo["message"]["content"].as_array().cloned().unwrap_or_default(),
        );
        a.into_iter().zip(b).map(|(x, y)| (x["content"].clone(), y["content"].clone())).collect()
    };
    let mut changed = 0;
    for (before, after) in pairs {
        if before == after {
            continue;
        }
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Array(parts) => parts[0]["text"].as_str().unwrap().to_owned(),
            _ => panic!("{name}:{no}: {v}"),
        };
        let (original, compact) = (text(&before), text(&after));
        let id = common::receipt_raw_id(compact.as_bytes())
            .unwrap_or_else(|| panic!("{name}:{no}: no raw id in the compacted result:\n{compact}"));
        let out = common::output_within(tokensieve_in(home).args(["show", &id]), Duration::from_secs(60));
        assert!(out.status.success(), "{name}:{no}: show {id}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), original, "{name}:{no}: show {id}");
        changed += 1;
    }
    changed
}

/// Lines that exercise every transform: odd whitespace, zero-width and
/// decomposed characters in assistant text, stop words in unsigned
/// thinking, signed thinking, tool calls, user turns and unknown fields with
/// unusual number spellings.
fn synthetic_line() -> impl Strategy<Value = String> {
    let text = proptest::collection::vec(
        prop_oneof![
            Just("the ".to_owned()),
            Just("  ".to_owned()),
            Just("\u{200B}".to_owned()),
            Just("e\u{301}".to_owned()),
            Just("\u{00A0}".to_owned()),
            Just("\n\n\n".to_owned()),
            Just("in order to ".to_owned()),
            "[a-z]{1,8}".prop_map(|s| s + " "),
        ],
        0..20,
    )
    .prop_map(|v| v.concat());
    (text.clone(), text, 0..5u8, "[1-9][0-9]{0,2}").prop_map(|(a, b, kind, n)| {
        let (a, b) = (serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        let extra = format!(r#""x_unknown":{{"n":{n}.0e+1,"s":"\u00e9"}}"#);
        match kind {
            0 => format!(r#"{{"type":"user","message":{{"role":"user","content":{a}}},{extra}}}"#),
            1 => format!(r#"{{"type":"assistant",{extra},"message":{{"content":[{{"type":"text","text":{a}}},{{"type":"tool_use","id":"t1","name":"Bash","input":{{"command":{b}}}}}]}}}}"#),
            2 => format!(r#"{{"type":"assistant","message":{{"content":[{{"type":"thinking","thinking":{a},"signature":"sig"}},{{"type":"thinking","thinking":{b}}}]}},{extra}}}"#),
            3 => format!(r#"{{"kind":"assistant","content":{a},"tool_name":"Bash","tool_input":{{"command":{b}}},"tool_mark":{{"brief":{b}}},{extra}}}"#),
            _ => format!(r#"{{"kind":"header","note":{a},{extra}}}"#),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_contract_holds_on_synthetic_lines(line in synthetic_line()) {
        let opts = compact::Options { synonyms: Some(tokensieve::transcript::strip::default_synonyms()), ..Default::default() };
        let mut session = compact::Session::default();
        let input = Line { no: 1, bytes: line.clone().into_bytes(), newline: true };
        let out = session.compact_line(&input, &opts, &mut |_| None);
        check_line("synthetic", 1, line.as_bytes(), &out);
        let v: Value = serde_json::from_slice(&out).unwrap();
        // Seed entries: the tool scaffolding and the unknown field as they were.
        if v["kind"] == "assistant" {
            let root = spans::index(line.as_bytes()).unwrap();
            let out_root = spans::index(&out).unwrap();
            prop_assert_eq!(members(line.as_bytes(), &root, &["content"]), members(&out, &out_root, &["content"]));
        }
        // Signed thinking stays; text outside thinking keeps its words.
        if v["type"] == "assistant" && line.contains("\"signature\"") {
            let vi: Value = serde_json::from_str(&line).unwrap();
            prop_assert_eq!(&vi["message"]["content"][0], &v["message"]["content"][0]);
        }
        if line.contains("\"text\":") {
            let vi: Value = serde_json::from_str(&line).unwrap();
            let words = |s: &str| s.split_whitespace().filter(|w| !w.chars().all(|c| c == '\u{200B}')).count() > 0;
            let before = vi["message"]["content"][0]["text"].as_str().unwrap_or("");
            let after = v["message"]["content"][0]["text"].as_str().unwrap_or("");
            prop_assert_eq!(words(before), words(after));
            prop_assert!(after.matches("the").count() == before.matches("the").count());
        }
    }
}

/// `tokensieve discover --json` on the fixtures, and every recorded shell
/// output run through `tokensieve --cmd CMD --exit N` as an agent would
/// (short receipt): per tool, the same savings to the token.
#[test]
fn discover_savings_equal_running_each_output_through_the_filter() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/sessions");
    let mut cmd = tokensieve_in(home);
    cmd.env("TOKENSIEVE_RECEIPT", "short").args(["discover", "--json"]).arg(&root);
    let out = common::output_within(&mut cmd, Duration::from_secs(600));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reported: BTreeMap<String, (u64, u64)> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["tool"].as_str().unwrap().to_owned(),
                (t["calls"].as_u64().unwrap(), t["tokens_would_save"].as_u64().unwrap()),
            )
        })
        .collect();

    // The same pairs, read here with serde_json, each through the filter.
    let mut expected: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for path in sessions() {
        let mut calls: BTreeMap<String, String> = BTreeMap::new();
        for line in fs::read_to_string(&path).unwrap().lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
            let mut results: Vec<(String, String)> = Vec::new();
            for b in v["message"]["content"].as_array().into_iter().flatten() {
                if b["type"] == "tool_use" && b["name"] == "Bash" {
                    calls.insert(
                        b["id"].as_str().unwrap().into(),
                        b["input"]["command"].as_str().unwrap().into(),
                    );
                }
                if b["type"] == "tool_result"
                    && let Some(text) = b["content"].as_str()
                {
                    results.push((b["tool_use_id"].as_str().unwrap().into(), text.into()));
                }
            }
            let p = &v["payload"];
            if p["type"] == "function_call" {
                let args: Value = serde_json::from_str(p["arguments"].as_str().unwrap()).unwrap();
                calls.insert(p["call_id"].as_str().unwrap().into(), args["cmd"].as_str().unwrap().into());
            }
            if p["type"] == "function_call_output" {
                results.push((p["call_id"].as_str().unwrap().into(), p["output"].as_str().unwrap().into()));
            }
            for (id, text) in results {
                let Some(command) = calls.remove(&id) else { continue };
                let hint = events::hint_command(&command);
                let words: Vec<&str> = hint.split_whitespace().collect();
                let tool = tokensieve::command::Invocation::parse(
                    &words.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
                )
                .map_or(words.first().map(|w| w.to_string()).unwrap_or_default(), |i| i.tool);
                let entry = expected.entry(tool).or_default();
                entry.0 += 1;
                if text.contains("[tokensieve ") || text.contains("[TokenSieve]") {
                    continue; // handled: ran through a shim
                }
                let (exit, output) = events::split_exit(&text);
                let mut filter = tokensieve_in(home);
                filter.env("TOKENSIEVE_RECEIPT", "short").args(["--cmd", &hint, "--exit", &exit.to_string()]);
                let out = output_with_stdin(&mut filter, output.as_bytes());
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                entry.1 += saved_by(&out.stderr);
            }
        }
    }
    assert_eq!(reported, expected);
    let total: u64 = expected.values().map(|(_, s)| s).sum();
    assert!(total > 0);
}

/// What the short receipt says was saved, less the tokens of the receipt
/// line itself (the agent reads it); nothing when there is no receipt (the
/// output went through untouched).
fn saved_by(stderr: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    let Some(line) = text.lines().find(|l| l.starts_with("[tokensieve ")) else { return 0 };
    let original = common::receipt_original(stderr).unwrap() as u64;
    let compressed: u64 = line.split('→').nth(1).unwrap().split([' ', ']']).next().unwrap().parse().unwrap();
    let receipt = tiktoken_rs::cl100k_base_singleton().encode_ordinary(&format!("{line}\n")).len() as u64;
    original - compressed - receipt
}

/// A line that is not JSON is reported and kept, a line far over 64 KB
/// reads whole, signed thinking stays unless asked, and then the stats say
/// the session can no longer be resumed.
#[test]
fn malformed_and_huge_lines_are_kept_and_signed_thinking_is_only_stripped_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let big = "word  ".repeat(40_000); // 240 KB of assistant text, double spaces
    let signed = r#"{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"I think the fix is here","signature":"EsQCsig"}]}}"#;
    let input = format!(
        "{signed}\nnot json {{\n{{\"type\":\"assistant\",\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{big}\"}}]}}}}\n"
    );
    let stats = dir.path().join("stats.json");
    let run = |args: &[&str]| {
        let mut cmd = tokensieve_in(dir.path());
        cmd.args(["session", "compact"]).args(args).arg("--stats-json").arg(&stats);
        let out = output_with_stdin(&mut cmd, input.as_bytes());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let s: Value = serde_json::from_slice(&fs::read(&stats).unwrap()).unwrap();
        (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), s)
    };
    let (out, err, s) = run(&[]);
    let lines: Vec<&str> = out.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], format!("{signed}\n"));
    assert_eq!(lines[1], "not json {\n");
    assert!(err.contains("line 2: not a transcript entry (kept as it is)"), "{err}");
    assert_eq!(s["malformed_lines"], serde_json::json!([2]));
    let text: Value = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(text["message"]["content"][0]["text"].as_str().unwrap(), "word ".repeat(40_000).trim_end());
    assert_eq!(
        (s["resumable"].as_bool(), s["transforms"]["signed_thinking_kept"].as_u64()),
        (Some(true), Some(1))
    );

    let (out, _, s) = run(&["--strip-signed-thinking"]);
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["message"]["content"][0]["thinking"], "");
    assert_eq!(first["message"]["content"][0]["signature"], "EsQCsig");
    assert_eq!(s["resumable"], false);
    assert_eq!(s["transforms"]["signed_thinking_stripped"], 1);
}
