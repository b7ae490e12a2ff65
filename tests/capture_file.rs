//! An agent that hands the command a regular file (Claude Code's Bash tool:
//! `bash -c` with stdout and stderr on one task output file it opened for
//! appending, read after the command ends). The test process plays that
//! agent: it opens the file, starts a real shell with both streams on it,
//! then reads it. Redirects the command makes itself must still get the raw
//! bytes, whatever shell syntax makes them.

mod common;

use std::fs::{self, File, OpenOptions};
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::process::Stdio;
use std::time::Duration;

use common::*;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/aws/ec2-describe-vpcs.json");
const LIMIT: Duration = Duration::from_secs(60);

/// A sandbox with `aws` shimmed; the real `aws` prints the fixture.
fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.shimmed("aws", &format!("#!/bin/sh\ncat '{FIXTURE}'\n"));
    sb
}

fn raw() -> Vec<u8> {
    fs::read(FIXTURE).unwrap()
}

/// How the agent opened its capture file.
#[derive(Clone, Copy)]
enum Capture {
    /// `O_WRONLY|O_CREAT|O_APPEND`, stdout and stderr both on it (Claude Code).
    Appending,
    /// Opened to be overwritten (`O_TRUNC`), both streams on it.
    Truncating,
    /// Stdout on the file, stderr on a pipe.
    StdoutOnly,
}

/// Runs `shell -c script` in the sandbox as an agent with a capture file;
/// returns what the agent finds in the file.
fn run_captured(sb: &Sandbox, shell: &str, script: &str, how: Capture) -> String {
    let path = sb.path("task.output");
    let mut opts = OpenOptions::new();
    opts.write(true).create(true);
    match how {
        Capture::Appending | Capture::StdoutOnly => opts.append(true),
        Capture::Truncating => opts.truncate(true),
    };
    let file: File = opts.mode(0o600).open(&path).unwrap();
    let mut cmd = sb.agent(shell);
    // Claude Code's shell gets a socket as stdin (and its wrapping runs the
    // command with `< /dev/null`, so bash keeps the socket aside).
    let (stdin, _agent_end) = UnixStream::pair().unwrap();
    cmd.arg("-c").arg(script).current_dir(sb.dir.path()).stdin(OwnedFd::from(stdin));
    cmd.stdout(file.try_clone().unwrap());
    match how {
        Capture::StdoutOnly => cmd.stderr(Stdio::piped()),
        _ => cmd.stderr(file),
    };
    let child = cmd.spawn().unwrap();
    let out = wait_within(child, LIMIT);
    assert!(out.status.success(), "{script}: {}", String::from_utf8_lossy(&out.stderr));
    let text = fs::read_to_string(&path).unwrap();
    fs::remove_file(&path).unwrap();
    text
}

fn assert_compressed(capture: &str, what: &str) {
    assert!(receipt(capture.as_bytes()).is_some(), "{what}: no receipt in\n{capture}");
    assert!(capture.contains("Vpcs[2]"), "{what}: not the compressed table:\n{capture}");
    assert!(!capture.contains("\"Vpcs\": ["), "{what}: raw JSON reached the agent");
}

fn assert_untouched(sb: &Sandbox, file: &str, what: &str) {
    let got = fs::read(sb.path(file)).unwrap_or_default();
    assert_eq!(got, raw(), "{what}: {file} does not hold the tool's bytes");
    fs::remove_file(sb.path(file)).unwrap();
}

#[test]
fn the_agents_own_capture_file_gets_the_compressed_form() {
    let sb = sandbox();
    for shell in ["bash", "sh"] {
        for script in [
            "aws ec2 describe-vpcs",
            // Claude Code's own wrapping: a snapshot sourced, then eval, then more.
            "true 2>/dev/null || true && eval 'aws ec2 describe-vpcs' < /dev/null && pwd -P >| cwd.txt",
            "{ aws ec2 describe-vpcs; } 2>/dev/null; true",
            "aws ec2 describe-vpcs 2>/dev/null; true",
            "timeout 20 aws ec2 describe-vpcs; true",
            "sh -c 'aws ec2 describe-vpcs'; true",
            "cd . && bash -c 'aws ec2 describe-vpcs' && true",
        ] {
            let capture = run_captured(&sb, shell, script, Capture::Appending);
            let what = format!("{shell}: {script}");
            if script.contains("2>/dev/null;") {
                // The receipt went where the command sent stderr.
                assert!(capture.starts_with("Vpcs[2]") && receipt(capture.as_bytes()).is_none(), "{what}");
            } else {
                assert_compressed(&capture, &what);
            }
        }
    }
}

#[test]
fn redirects_inside_the_command_keep_the_raw_bytes() {
    let sb = sandbox();
    for shell in ["bash", "sh"] {
        for script in [
            "aws ec2 describe-vpcs > out.json",
            "aws ec2 describe-vpcs >> out.json; true",
            "aws ec2 describe-vpcs > out.json 2>&1",
            "{ aws ec2 describe-vpcs; } > out.json",
            "{ aws ec2 describe-vpcs; } > out.json 2>&1; true",
            "{ aws ec2 describe-vpcs; } >> out.json 2>&1; true",
            "{ aws ec2 describe-vpcs; } >> out.json 2>&1 < /dev/null; true",
            "( aws ec2 describe-vpcs ) > out.json; true",
            "sh -c 'aws ec2 describe-vpcs' > out.json; true",
            "exec > out.json; aws ec2 describe-vpcs; true",
            "exec >> out.json 2>&1; aws ec2 describe-vpcs; true",
            "exec > out.json 2>&1; aws ec2 describe-vpcs",
            "aws ec2 describe-vpcs | tee out.json > /dev/null",
        ] {
            let capture = run_captured(&sb, shell, script, Capture::Appending);
            assert!(receipt(capture.as_bytes()).is_none(), "{shell}: {script}: a receipt in\n{capture}");
            assert_untouched(&sb, "out.json", &format!("{shell}: {script}"));
        }
    }
}

#[test]
fn command_substitution_and_pipes_still_get_raw_json() {
    let sb = sandbox();
    let capture =
        run_captured(&sb, "bash", "x=$(aws ec2 describe-vpcs); echo \"$x\" | head -3", Capture::Appending);
    assert_eq!(capture.lines().collect::<Vec<_>>(), ["{", "    \"Vpcs\": [", "        {"]);
    let count =
        "aws ec2 describe-vpcs | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[\"Vpcs\"]))'";
    assert_eq!(run_captured(&sb, "bash", count, Capture::Appending), "2\n");
}

#[test]
fn a_script_that_redirects_its_own_stdout_keeps_the_raw_bytes() {
    let sb = sandbox();
    fs::write(sb.path("job.sh"), "exec >> out.json 2>&1\naws ec2 describe-vpcs\necho done\n").unwrap();
    let capture = run_captured(&sb, "bash", "bash ./job.sh; true", Capture::Appending);
    assert!(capture.is_empty(), "{capture}");
    let got = fs::read_to_string(sb.path("out.json")).unwrap();
    assert_eq!(got.as_bytes(), [raw(), b"done\n".to_vec()].concat());
}

#[test]
fn files_that_are_not_a_capture_of_both_streams_stay_raw() {
    let sb = sandbox();
    for how in [Capture::Truncating, Capture::StdoutOnly] {
        let capture = run_captured(&sb, "bash", "aws ec2 describe-vpcs; true", how);
        assert_eq!(capture.as_bytes(), raw());
    }
}

#[test]
fn without_a_marker_the_capture_file_gets_the_raw_bytes() {
    let sb = sandbox();
    let path = sb.path("task.output");
    let file = OpenOptions::new().append(true).create(true).open(&path).unwrap();
    let mut cmd = sb.cmd("bash");
    cmd.arg("-c").arg("aws ec2 describe-vpcs; true");
    cmd.stdout(file.try_clone().unwrap()).stderr(file);
    let out = wait_within(cmd.spawn().unwrap(), LIMIT);
    assert!(out.status.success());
    assert_eq!(fs::read(&path).unwrap(), raw());
}

#[test]
fn the_decision_is_explained_with_debug_on() {
    let sb = sandbox();
    let capture = run_captured(
        &sb,
        "bash",
        "{ TOKENSIEVE_DEBUG=1 aws ec2 describe-vpcs; } > out.json 2>&1; true",
        Capture::Appending,
    );
    assert!(capture.is_empty());
    let out = fs::read_to_string(sb.path("out.json")).unwrap();
    assert!(out.starts_with("tokensieve: aws: passthrough, stdout is a file: the shell 'bash'"), "{out}");
}
