//! The real AWS CLI through an `aws` shim, against a local moto server.
//! scripts/test.sh builds the venv (awscli + moto[server]) once and exports
//! its bin folder as TOKENSIEVE_TEST_AWS_VENV. (A module of tests/shim.rs so
//! its slow Python start-ups overlap with the other shim tests.)

use std::process::{Command, Output};
use std::time::Duration;

use super::common::aws::{Moto, venv, with_aws_env};
use super::common::{Sandbox, output_within, receipt};

fn run(mut cmd: Command, sb: &Sandbox) -> Output {
    with_aws_env(&mut cmd, sb);
    output_within(&mut cmd, Duration::from_secs(120))
}

#[test]
fn the_real_aws_cli_through_the_shim() {
    let Some(venv) = venv() else { return };
    let moto = Moto::start(&venv);
    let sb = Sandbox::new();
    std::os::unix::fs::symlink(venv.join("aws"), sb.tools.join("aws")).unwrap();
    sb.shim("aws");
    let ep = &moto.endpoint;

    // A VPC next to moto's default one, made with the real CLI directly.
    let mut create = sb.cmd(venv.join("aws"));
    create.args([
        "ec2",
        "create-vpc",
        "--cidr-block",
        "10.1.0.0/16",
        "--endpoint-url",
        ep,
        "--output",
        "json",
    ]);
    let out = run(create, &sb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let vpc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids = [vpc["Vpc"]["VpcId"].as_str().unwrap().to_owned()];
    let describe = format!("aws ec2 describe-vpcs --endpoint-url {ep} --output json");

    // An agent reads: compressed, with a receipt, every VPC id still there.
    let out = run(sb.agent_bash(&describe), &sb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = receipt(&out.stderr).expect("a receipt");
    assert!(!line.ends_with("Shape: raw"), "describe-vpcs should compress: {line}");
    let seen = String::from_utf8_lossy(&out.stdout);
    for id in &ids {
        assert!(seen.contains(id.as_str()), "{id} missing from:\n{seen}");
    }

    // Piped into a program: the program gets real JSON.
    let out = run(sb.agent_bash(&format!("{describe} | python3 -m json.tool")), &sb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(receipt(&out.stderr), None);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(doc["Vpcs"].as_array().unwrap().len() >= 2);

    // A failing call: the CLI's own status and message.
    let failing = format!("{describe} --vpc-ids vpc-doesnotexist");
    let mut direct = sb.cmd("bash");
    direct.arg("-c").arg(failing.replacen("aws", venv.join("aws").to_str().unwrap(), 1));
    let expected = run(direct, &sb);
    let out = run(sb.agent_bash(&failing), &sb);
    assert_ne!(expected.status.code(), Some(0));
    assert_eq!(out.status.code(), expected.status.code());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("InvalidVpcID.NotFound"), "{err}");
    assert!(err.contains(String::from_utf8_lossy(&expected.stderr).trim()), "{err}");

    an_s3_listing_keeps_every_key_once(&sb, &venv, ep);
}

/// `aws s3 ls --recursive` of an upload bucket: keys that differ in a
/// size, a user and a file number fold, but no key may go missing from a
/// fold that stands for it, and no line may be shown twice. (Called by the
/// test above, on its moto server: two servers at once refuse connections
/// here.)
fn an_s3_listing_keeps_every_key_once(sb: &Sandbox, venv: &std::path::Path, ep: &str) {
    let seed = r#"
import sys, boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1])
s3.create_bucket(Bucket="uploads")
for u, user in enumerate(["u-1042", "u-2207", "u-3391"]):
    for i in range(1, 11):
        ext = "png" if (i + u) % 4 == 0 else "jpg"
        s3.put_object(Bucket="uploads", Key=f"originals/{user}/2026/04/img_{i:02}.{ext}", Body=b"x" * (1000 * u + 97 * i))
for size in (128, 512):
    for i in range(1, 6):
        s3.put_object(Bucket="uploads", Key=f"thumbs/{size}/u-1042/img_{i:02}.jpg", Body=b"y" * (size + i))
s3.put_object(Bucket="uploads", Key="quarantine/.keep", Body=b"")
"#;
    let mut py = sb.cmd(venv.join("python"));
    py.args(["-c", seed, ep]);
    let out = run(py, sb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let list = format!("aws s3 ls s3://uploads --recursive --endpoint-url {ep}");
    let mut direct = sb.cmd(venv.join("aws"));
    direct.args(["s3", "ls", "s3://uploads", "--recursive", "--endpoint-url", ep]);
    let raw = String::from_utf8(run(direct, sb).stdout).unwrap();
    let keys: Vec<&str> = raw.lines().filter_map(|l| l.split_whitespace().nth(3)).collect();
    assert_eq!(keys.len(), 41, "{raw}");

    let out = run(sb.agent_bash(&list), sb);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = String::from_utf8_lossy(&out.stdout);
    assert!(seen.len() <= raw.len(), "longer than the listing:\n{seen}");
    // every key as printed: a bucket's runs of a few files each keep their
    // own names (never `img_01,02,03.jpg`)
    for key in &keys {
        assert!(seen.lines().any(|l| l.ends_with(&format!(" {key}"))), "{key} missing from:\n{seen}");
    }
    let mut lines: Vec<&str> = seen.lines().map(|l| l.split_whitespace().nth(3).unwrap_or(l)).collect();
    let n = lines.len();
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines.len(), n, "a key shown twice:\n{seen}");
}
