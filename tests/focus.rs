//! Focus views (SPEC §6c) through the built binary, over every JSON
//! fixture: a view names what it left out with a `show --jq` command, and
//! that command prints exactly every value of those fields, while every
//! value of the document is either in the view's body or printed by it.
//! With `TOKENSIEVE_FOCUS=off` the output is the whole rendering.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::json_views::*;
use serde_json::Value;

fn run(home: &Path, file: &Path, cmd: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut c = common::tokensieve_in(home);
    c.env_remove("TOKENSIEVE_FOCUS")
        .env_remove("TOKENSIEVE_BUDGET")
        .env_remove("BASH_MAX_OUTPUT_LENGTH")
        .env("TOKENSIEVE_DEDUP", "off")
        .env("TOKENSIEVE_EPOCH", "keep");
    for (k, v) in env {
        c.env(k, v);
    }
    if let Some(cmd) = cmd {
        c.args(["--cmd", cmd]);
    }
    c.arg(file);
    common::output_within(&mut c, std::time::Duration::from_secs(300))
}

fn raw_doc(file: &Path) -> Value {
    let bytes = std::fs::read(file).unwrap();
    tokensieve::json::parse(&bytes).unwrap()
}

#[test]
fn every_view_names_what_it_left_out_and_its_command_prints_exactly_that() {
    let cmds = manifest_commands();
    let fixtures: Vec<PathBuf> = common::json_fixtures();
    assert!(fixtures.len() > 50);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json");
    let mut views = 0;
    for file in &fixtures {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let cmd = cmds.get(&rel).map(String::as_str);
        let sb = common::Sandbox::new();
        let out = run(&sb.home, file, cmd, &[]);
        assert!(out.status.success(), "{rel}: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let Some(first) = text.lines().next().filter(|l| l.starts_with("# view: focus on ")) else {
            continue;
        };
        views += 1;
        let id = common::receipt_raw_id(&out.stderr).unwrap_or_else(|| panic!("{rel}: a view keeps the raw"));
        let (_, program, slurp) = header(first);
        let mut args = vec![];
        if slurp {
            args.push("--slurp");
        }
        args.extend(["--jq", program.as_str()]);
        // What the command prints (as the agent reads it, decoded), by
        // generalised path of the document.
        let mut c = common::tokensieve_in(&sb.home);
        c.env("TOKENSIEVE_DEDUP", "off").env("TOKENSIEVE_EPOCH", "keep").env("TOKENSIEVE_BUDGET", "off");
        c.env_remove("TOKENSIEVE_FOCUS").arg("show").arg(&id).args(&args);
        let out = common::output_within(&mut c, std::time::Duration::from_secs(120));
        assert!(out.status.success(), "{rel}: show: {}", String::from_utf8_lossy(&out.stderr));
        let answer = String::from_utf8(out.stdout).unwrap();
        assert!(!answer.starts_with("# view"), "{rel}: the answer is a view:\n{answer}");
        let doc = raw_doc(file);
        check_focus(&rel, &doc, &text, decode(&sb, &answer));
        // A view is smaller than the whole rendering.
        let off = run(&sb.home, file, cmd, &[("TOKENSIEVE_FOCUS", "off")]);
        assert!(off.stdout.len() > text.len(), "{rel}: the view is not smaller");
        assert!(!String::from_utf8_lossy(&off.stdout).starts_with("# view: focus"), "{rel}");
    }
    assert!(views >= 15, "only {views} fixtures got a focus view");
}

fn decode(sb: &common::Sandbox, body: &str) -> Value {
    let mut c = common::tokensieve_in(&sb.home);
    c.arg("decode");
    let out = common::output_with_stdin(&mut c, body.as_bytes());
    assert!(out.status.success(), "decode: {}\n{body}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn decode_refuses_a_view_with_one_line() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json/aws/ec2-describe-subnets-fleet-moto.json");
    let sb = common::Sandbox::new();
    let out = run(&sb.home, &file, Some("aws ec2 describe-subnets"), &[]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# view: focus on .Subnets[] ("), "{text}");
    let mut c = common::tokensieve_in(&sb.home);
    c.arg("decode");
    let out = common::output_with_stdin(&mut c, text.as_bytes());
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("view"), "{err}");
}

#[test]
fn small_outputs_and_focus_off_stay_whole() {
    let sb = common::Sandbox::new();
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json/aws/ec2-describe-vpcs.json");
    let out = run(&sb.home, &small, Some("aws ec2 describe-vpcs"), &[]);
    assert!(!String::from_utf8_lossy(&out.stdout).starts_with("# view"));
    let big = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/json/aws/ec2-describe-instances-fleet-moto.json");
    let on = run(&sb.home, &big, Some("aws ec2 describe-instances"), &[]);
    assert!(String::from_utf8_lossy(&on.stdout).starts_with("# view: focus on .Reservations[]"));
    let off = run(&sb.home, &big, Some("aws ec2 describe-instances"), &[("TOKENSIEVE_FOCUS", "off")]);
    let mut c = common::tokensieve_in(&sb.home);
    c.arg("decode");
    let decoded = common::output_with_stdin(&mut c, &off.stdout);
    assert!(decoded.status.success(), "{}", String::from_utf8_lossy(&decoded.stderr));
}

#[test]
fn a_failing_command_states_its_exit_and_its_stopped_instance_shows_whole() {
    let sb = common::Sandbox::new();
    let big = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/json/aws/ec2-describe-instances-fleet-moto.json");
    let mut c = common::tokensieve_in(&sb.home);
    c.env_remove("TOKENSIEVE_FOCUS").args(["--cmd", "aws ec2 describe-instances", "--exit", "255"]).arg(&big);
    let out = common::output_within(&mut c, std::time::Duration::from_secs(120));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# view: focus on "), "{text}");
    assert!(text.ends_with("exit 255\n"), "{text}");
    assert!(text.lines().next().unwrap().contains("with signal shown whole"), "{text}");
    // The stopped instance keeps the fields the others leave out.
    let doc = raw_doc(&big);
    let stopped = doc["Reservations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["Instances"].as_array().unwrap())
        .find(|i| i["State"]["Name"] == "stopped")
        .unwrap();
    assert!(text.contains(stopped["PrivateDnsName"].as_str().unwrap()), "{text}");
}
