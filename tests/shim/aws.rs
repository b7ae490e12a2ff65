//! The real AWS CLI through an `aws` shim, against a local moto server.
//! scripts/test.sh builds the venv (awscli + moto[server]) once and exports
//! its bin folder as TOKENSIEVE_TEST_AWS_VENV. (A module of tests/shim.rs so
//! its slow Python start-ups overlap with the other shim tests.)

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::common::{Sandbox, output_within, receipt};

fn venv() -> Option<PathBuf> {
    match std::env::var_os("TOKENSIEVE_TEST_AWS_VENV") {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ if std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false") => {
            panic!("TOKENSIEVE_TEST_AWS_VENV is not set in CI: run the tests through scripts/test.sh")
        }
        _ => {
            eprintln!(
                "note: TOKENSIEVE_TEST_AWS_VENV unset, real-AWS-CLI test skipped (scripts/test.sh sets it)"
            );
            None
        }
    }
}

/// A moto server on a free local port, stopped by pid when dropped.
struct Moto {
    child: Child,
    endpoint: String,
}

impl Moto {
    fn start(venv: &std::path::Path) -> Moto {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(venv.join("moto_server"))
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server starts");
        let moto = Moto { child, endpoint: format!("http://127.0.0.1:{port}") };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < Duration::from_secs(60), "moto_server did not listen on {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        moto
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        // SAFETY: signalling the server process we started, by its pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let _ = self.child.wait();
    }
}

fn with_aws_env(cmd: &mut Command, sb: &Sandbox) {
    cmd.env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .env("AWS_CONFIG_FILE", sb.path("aws-config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", sb.path("aws-credentials"));
}

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
}
