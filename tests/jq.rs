//! `show ID --jq FILTER`: jaq's answers equal the real `jq` (/usr/bin/jq) on
//! the same raw fixtures, compared as JSON values; and the CLI delivers them
//! through the pipeline, with clear errors for bad filters and non-JSON.

mod common;

use std::path::Path;
use std::process::Command;

use common::{BIN, receipt_field};
use serde_json::Value;

/// (fixture under fixtures/json, filter). Paths, select, map, group_by,
/// length, keys, arithmetic, string functions, reductions.
const CASES: &[(&str, &str)] = &[
    ("aws/ec2-describe-instances.json", "."),
    ("aws/ec2-describe-instances.json", ".Reservations[0].Instances[0].InstanceId"),
    (
        "aws/ec2-describe-instances.json",
        ".Reservations[].Instances[] | {id: .InstanceId, type: .InstanceType}",
    ),
    (
        "aws/ec2-describe-instances.json",
        ".Reservations[].Instances[].Tags | map(select(.Key == \"Name\")) | .[0].Value",
    ),
    ("aws/ec2-describe-instances.json", ".Reservations[].Instances[].BlockDeviceMappings | length"),
    ("aws/ec2-describe-instances.json", ".Reservations[0].Instances[0] | keys"),
    ("aws/ec2-describe-instances.json", ".Reservations[0].Instances[0] | to_entries | map(.key) | length"),
    ("aws/ec2-describe-instances.json", "[paths(type == \"number\")] | length"),
    ("aws/ec2-describe-instances.json", ".Reservations[].Instances[].State.Name | ascii_upcase"),
    (
        "aws/ec2-describe-instances.json",
        ".Reservations[].Instances[].NetworkInterfaces[].PrivateIpAddresses[].PrivateIpAddress",
    ),
    ("aws/ec2-describe-instances.json", "[.. | strings | select(startswith(\"sg-\"))] | unique"),
    (
        "aws/ec2-describe-instances.json",
        ".Reservations[].Instances[] | .CpuOptions.CoreCount * .CpuOptions.ThreadsPerCore",
    ),
    (
        "aws/ec2-describe-instances.json",
        "del(.Reservations[].Instances[].NetworkInterfaces) | .Reservations[0].Instances[0].InstanceType",
    ),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | length"),
    ("aws/s3api-list-objects-v2-120-objects.json", "[.Contents[].Size] | add"),
    ("aws/s3api-list-objects-v2-120-objects.json", "[.Contents[].Size] | max"),
    ("aws/s3api-list-objects-v2-120-objects.json", "[.Contents[].Size] | min"),
    ("aws/s3api-list-objects-v2-120-objects.json", "[.Contents[].Size] | add / length | floor"),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | map(select(.Size > 1000)) | length"),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | sort_by(.Size) | .[0].Key"),
    (
        "aws/s3api-list-objects-v2-120-objects.json",
        ".Contents | sort_by(.Size) | reverse | .[:3] | map(.Key)",
    ),
    (
        "aws/s3api-list-objects-v2-120-objects.json",
        ".Contents | group_by(.StorageClass) | map({class: .[0].StorageClass, n: length})",
    ),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | map(.Key | split(\"/\")[0]) | unique"),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents[10:13] | map(.Key)"),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents[-1].Key"),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | map(.Size % 7) | .[:10]"),
    (
        "aws/s3api-list-objects-v2-120-objects.json",
        ".Contents[] | select(.Key | test(\"\\\\.json$\")) | .Key",
    ),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | map(.Key | length) | add"),
    (
        "aws/s3api-list-objects-v2-120-objects.json",
        ".Contents | map(.ETag | ltrimstr(\"\\\"\") | rtrimstr(\"\\\"\")) | .[:2]",
    ),
    ("aws/s3api-list-objects-v2-120-objects.json", "reduce .Contents[] as $o (0; . + $o.Size)"),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | first, last | .Key"),
    ("aws/s3api-list-objects-v2-120-objects.json", ".Contents | any(.Size == 0), all(.Size >= 0)"),
    ("aws/s3api-list-objects-v2-120-objects.json", "[.Contents[].LastModified[:10]] | unique | length"),
    ("aws/iam-list-roles.json", ".Roles | map(.RoleName)"),
    ("aws/iam-list-roles.json", ".Roles[] | select(.MaxSessionDuration >= 3600) | .Arn"),
    (
        "aws/iam-list-roles.json",
        ".Roles | map(.AssumeRolePolicyDocument.Statement[].Principal | keys[]) | unique",
    ),
    ("aws/iam-list-roles.json", ".Roles[0] | has(\"Path\"), has(\"Nope\")"),
    ("aws/iam-list-roles.json", ".Roles | map(.RoleName | ascii_downcase | explode | length)"),
    ("aws/iam-list-roles.json", ".Roles | map(.Arn | sub(\"arn:aws:iam::\"; \"\")) | .[0]"),
    ("aws/iam-list-roles.json", ".Roles[] | \"\\(.RoleName) lives at \\(.Path)\""),
    ("aws/iam-list-roles.json", ".Roles | map({(.RoleName): .MaxSessionDuration}) | add"),
    ("aws/iam-list-roles.json", ".Roles | map(.CreateDate | .[0:4] | tonumber) | max"),
    ("gh/api-repos-issues.json", "length"),
    ("gh/api-repos-issues.json", "map(.number)"),
    ("gh/api-repos-issues.json", "map(select(.state == \"open\")) | length"),
    ("gh/api-repos-issues.json", "map(.user.login) | unique"),
    ("gh/api-repos-issues.json", "map(.labels | map(.name)) | flatten | unique"),
    ("gh/api-repos-issues.json", "group_by(.state) | map({state: .[0].state, count: length})"),
    ("gh/api-repos-issues.json", ".[] | {n: .number, t: .title} | select(.n > 0)"),
    ("gh/api-repos-issues.json", "map(.comments) | add"),
    ("gh/api-repos-issues.json", ".[0] | to_entries | map(select(.value == null)) | map(.key)"),
    ("gh/api-repos-issues.json", "map(.title | split(\" \") | length)"),
    ("gh/api-repos-issues.json", "[.[] | .body // \"none\" | length]"),
    ("gh/api-repos-issues.json", "map(.created_at) | sort | first"),
    (
        "gh/api-repos-issues.json",
        ".[0].reactions | del(.url) | to_entries | map(select(.value > 0)) | from_entries",
    ),
    ("gh/api-repos-issues.json", "map(.number * 2 - 1)"),
    ("gh/api-repos-issues.json", "[.[].title | ascii_downcase | contains(\"bug\")]"),
    ("gh/api-repos-issues.json", "map(.id | tostring | length)"),
    ("gh/api-repos-issues.json", "[.[] | .user | {login, id}] | unique_by(.login)"),
    ("kubectl/get-pods-default.json", ".items | length"),
    ("kubectl/get-pods-default.json", ".items[].metadata.name"),
    ("kubectl/get-pods-default.json", ".items[] | {name: .metadata.name, phase: .status.phase}"),
    ("kubectl/get-pods-default.json", ".items[].spec.containers[] | .image"),
    ("kubectl/get-pods-default.json", ".items | map(.spec.containers | length)"),
    ("kubectl/get-pods-default.json", ".items[0].metadata.labels | keys"),
    ("kubectl/get-pods-default.json", ".items | map(.status.containerStatuses[]?.restartCount) | add"),
    ("kubectl/get-pods-default.json", ".items[] | select(.status.phase != \"Running\") | .metadata.name"),
    ("kubectl/get-pods-default.json", ".items[0] | [paths] | length"),
    ("kubectl/get-pods-default.json", ".items[0] | [paths(scalars) | map(tostring) | join(\".\")] | .[:5]"),
    ("kubectl/get-pods-default.json", ".items | map(.metadata.name | ascii_upcase | .[0:3])"),
    ("kubectl/get-pods-default.json", ".items[0].spec | with_entries(select(.value | type == \"string\"))"),
    ("kubectl/get-pods-default.json", "[.items[].metadata.namespace] | unique | join(\",\")"),
    ("kubectl/get-pods-default.json", ".items | map(.metadata.creationTimestamp | fromdateiso8601) | max"),
    ("kubectl/get-pods-default.json", "[.. | numbers] | length"),
    ("kubectl/get-pods-default.json", ".items | map(.kind) | join(\"+\")"),
];

fn fixture(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json").join(rel)
}

/// JSON values with every number as f64, so `1.0` and `1` (jq 1.6 and jaq
/// print some numbers differently) compare equal.
fn norm(v: Value) -> Value {
    match v {
        Value::Number(n) => {
            let f: f64 = n.to_string().parse().unwrap();
            serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(norm).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, norm(v))).collect()),
        other => other,
    }
}

fn values(lines: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(lines).into_iter::<Value>().map(|v| norm(v.unwrap())).collect()
}

#[test]
fn jaq_equals_jq_on_the_fixtures() {
    assert!(CASES.len() >= 50);
    let mut failures = Vec::new();
    for (file, filter) in CASES {
        let path = fixture(file);
        let real =
            Command::new("jq").arg("-c").arg(filter).arg(&path).output().expect("jq (Debian package) runs");
        assert!(real.status.success(), "jq refused {filter:?}: {}", String::from_utf8_lossy(&real.stderr));
        let expected = values(&String::from_utf8(real.stdout).unwrap());
        let raw = std::fs::read(&path).unwrap();
        match tokensieve::jq::run(filter, &raw, false) {
            Ok(ours) => {
                let ours = values(&ours.join("\n"));
                if ours != expected {
                    failures.push(format!("{file} {filter}: jq {expected:?}\n   ours {ours:?}"));
                }
            }
            Err(e) => failures.push(format!("{file} {filter}: {e:#}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), CASES.len(), failures.join("\n"));
}

/// Stores `raw` through filter mode and returns the receipt's raw id.
fn store(home: &Path, raw: &[u8]) -> String {
    let out = run_with(home, &[], Some(raw));
    let err = String::from_utf8(out.stderr).unwrap();
    receipt_field(&err, "raw").unwrap_or_else(|| panic!("no raw id in {err}"))
}

fn run_with(home: &Path, args: &[&str], stdin: Option<&[u8]>) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE_BUDGET")
        .env_remove("BASH_MAX_OUTPUT_LENGTH")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

#[test]
fn show_jq_delivers_a_compact_answer_with_a_receipt() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(fixture("aws/s3api-list-objects-v2-120-objects.json")).unwrap();
    let id = store(home.path(), &raw);
    let out = run_with(home.path(), &["show", &id, "--jq", ".Contents[:20] | map({Key, Size})"], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    // Compact: a table, not JSON; and it decodes to jq's answer.
    assert!(text.starts_with("[20]{Key,Size"), "{text}");
    let decoded = tokensieve::json::decode::decode(&text).unwrap();
    let expected = tokensieve::jq::run(".Contents[:20] | map({Key, Size})", &raw, false).unwrap();
    assert_eq!(decoded, serde_json::from_str::<Value>(&expected[0]).unwrap());
    assert!(String::from_utf8(out.stderr).unwrap().contains("Shape: Outline"));
    // A scalar answer passes as it is.
    let out = run_with(home.path(), &["show", &id, "--jq", ".Contents | length"], None);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "120\n");
}

#[test]
fn show_jq_errors_are_one_clear_line() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(fixture("aws/s3api-list-objects-v2-120-objects.json")).unwrap();
    let id = store(home.path(), &raw);
    let out = run_with(home.path(), &["show", &id, "--jq", ".Contents[ | x"], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("tokensieve show: invalid jq filter"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());

    // A text output stored by a summary: not JSON.
    let text: String = (0..400).map(|i| format!("line {i} of a log\n")).collect();
    let out = run_with(home.path(), &["--cmd", "make"], Some(text.as_bytes()));
    let id = receipt_field(&String::from_utf8(out.stderr).unwrap(), "raw").unwrap();
    let out = run_with(home.path(), &["show", &id, "--jq", "."], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is not JSON"), "{err}");
}
