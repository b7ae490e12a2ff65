//! `tokensieve mcp` driven by the official Python MCP client (`mcp` from
//! PyPI, in a venv scripts/test.sh makes once: TOKENSIEVE_TEST_MCP_VENV):
//! the tools are listed, each is called, answers and errors checked, and
//! `run` gives the same compressed text as the shim for the same command.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_tokensieve");

fn fixture() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/pytest-fail.txt"))
        .unwrap()
}

#[test]
fn the_python_client_lists_and_calls_every_tool() {
    let Some(venv) = common::prepared_dir("TOKENSIEVE_TEST_MCP_VENV", "MCP client test") else { return };
    let sb = common::Sandbox::new();
    let work = sb.dir.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    // a `pytest` that prints a real failing run and exits 1, and its shim
    let raw = sb.tools.join("pytest-fail.txt");
    std::fs::write(&raw, fixture()).unwrap();
    let shim = sb.shimmed("pytest", &format!("#!/bin/sh\ncat '{}'\nexit 1\n", raw.display()));
    let env = |c: &mut Command| {
        c.current_dir(&work)
            .env_remove("TOKENSIEVE_FORMAT")
            .env_remove("TOKENSIEVE_BUDGET")
            .env_remove("BASH_MAX_OUTPUT_LENGTH");
    };

    // the shim, as an agent's harness runs it (stdout a pipe we read)
    let mut shim = sb.cmd(&shim);
    env(&mut shim);
    let shim_out = shim.env("TOKENSIEVE", "on").stdin(Stdio::null()).output().unwrap();
    assert_eq!(shim_out.status.code(), Some(1));
    let shim_text = String::from_utf8(shim_out.stdout).unwrap();
    assert!(shim_text.contains("2 failed, 120 passed") && shim_text.len() < fixture().len(), "{shim_text}");

    let cases = json!([
        {"tool": "run", "arguments": {"command": "pytest"}},
        {"tool": "recall", "arguments": {"status": "failed"}},
        {"tool": "recall", "arguments": {"tool": "pytest", "file": "tests/test_reports.py"}},
        {"tool": "recall", "arguments": {"status": "passed"}},
        {"tool": "run", "arguments": {"command": "ls | sort", "cwd": sb.tools.to_str().unwrap()}},
        {"tool": "run", "arguments": {}},
        {"tool": "show", "arguments": {"id": "zz"}},
        {"tool": "recall", "arguments": {"status": "bogus"}},
        {"tool": "nope", "arguments": {}},
    ]);
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let mut py = sb.cmd(venv.join("python"));
    env(&mut py);
    let out = py.arg(&client).arg(BIN).arg(cases.to_string()).output().unwrap();
    assert!(out.status.success(), "client failed: {}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["server"], "tokensieve");
    assert_eq!(got["tools"], json!(["recall", "run", "show"]));
    assert_eq!(got["schemas"]["run"]["required"], json!(["command"]));
    let call = |i: usize| &got["calls"][i];

    // run: the shim's text, and the typed result
    assert_eq!(call(0)["is_error"], false, "{}", call(0));
    assert_eq!(call(0)["texts"][0], shim_text.as_str(), "MCP run and the shim differ");
    let result = &call(0)["structured"];
    assert_eq!(
        (result["status"].as_str(), result["tool"].as_str(), result["exit_code"].as_i64()),
        (Some("failed"), Some("pytest"), Some(1))
    );
    assert_eq!(result["counts"], json!({"passed": 120, "failed": 2}));
    let id = result["raw"].as_str().expect("a raw id").to_string();

    // recall: by status, by tool and file, nothing passed
    let captures = |i: usize| call(i)["structured"]["captures"].as_array().unwrap().clone();
    let failed = captures(1);
    assert!(failed.iter().any(|c| c["id"] == id.as_str()), "{failed:?}");
    assert!(failed.iter().all(|c| c["status"] == "failed"));
    assert!(captures(2).iter().any(|c| c["id"] == id.as_str()));
    assert!(captures(3).is_empty());
    // a command line that needs a shell
    assert_eq!(call(4)["is_error"], false, "{}", call(4));
    assert!(call(4)["texts"][0].as_str().unwrap().contains("pytest-fail.txt"), "{}", call(4));
    // errors: results with isError and one clear line; an unknown tool is a protocol error
    assert_eq!(call(5)["is_error"], true);
    assert!(call(5)["texts"][0].as_str().unwrap().contains("'command' is required"), "{}", call(5));
    assert_eq!(call(6)["is_error"], true);
    assert!(call(6)["texts"][0].as_str().unwrap().contains("is not a raw output id"), "{}", call(6));
    assert_eq!(call(7)["is_error"], true);
    assert!(
        call(7)["texts"][0].as_str().unwrap().contains("--status wants passed, failed or error"),
        "{}",
        call(7)
    );
    assert!(call(8)["protocol_error"].as_str().unwrap().contains("no tool named 'nope'"), "{}", call(8));

    // show, now that the id is known: the raw lines, the stored result
    let cases = json!([
        {"tool": "show", "arguments": {"id": id, "lines": "1:2"}},
        {"tool": "show", "arguments": {"id": &id[..8], "summary": true}},
        {"tool": "show", "arguments": {"id": id, "grep": "^FAILED"}},
    ]);
    let mut py = sb.cmd(venv.join("python"));
    env(&mut py);
    let out = py.arg(&client).arg(BIN).arg(cases.to_string()).output().unwrap();
    assert!(out.status.success(), "client failed: {}", String::from_utf8_lossy(&out.stderr));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first_two: String = fixture().split_inclusive('\n').take(2).collect();
    assert_eq!(got["calls"][0]["texts"][0], first_two.as_str());
    let summary = got["calls"][1]["texts"][0].as_str().unwrap();
    assert!(
        summary.starts_with(&format!("pytest: failed (exit 1) · 120 passed, 2 failed · raw {id}\n")),
        "{summary}"
    );
    let grep = got["calls"][2]["texts"][0].as_str().unwrap();
    assert_eq!(grep.lines().count(), 2, "{grep}");
}
