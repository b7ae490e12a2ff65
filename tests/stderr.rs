//! stderr is part of what an agent reads (SPEC §3.6, issue 22): when the
//! command's stdout and stderr go to one place (Claude Code's capture file,
//! `2>&1` into the agent's pipe) the tool gets one pipe for both and the
//! agent reads them in the tool's order, treated together; when they go to
//! two pipes an agent reads (Codex), each is treated on its own; a stderr
//! sent elsewhere (`2>/dev/null`, `2>file`) and a person's terminal are
//! left alone. Real processes, real files and pipes.

mod common;

use std::fs::{self, OpenOptions};
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

const LIMIT: Duration = Duration::from_secs(120);
/// Writes by the interleaving tool, half on each stream.
const WRITES: usize = 1000;

/// A tool that alternates one unbuffered write on stdout and one on stderr,
/// `WRITES` in all, each line its own words (nothing for a rule to fold).
fn interleaving_tool(sb: &Sandbox) {
    let script = format!(
        "#!/usr/bin/env python3\n\
         import os\n\
         w = 'alpha bravo cedar delta ember fjord grove harbor ivory jungle kettle lantern'.split()\n\
         for i in range({}):\n    \
             words = ' '.join(w[(i * k + k) % len(w)] for k in range(1, 5))\n    \
             os.write(1, ('out %s %s\\n' % (words, w[i % 7])).encode())\n    \
             os.write(2, ('err %s %s\\n' % (w[i % 5], words)).encode())\n",
        WRITES / 2
    );
    sb.shimmed("mixer", &script);
}

/// What the interleaving tool prints, in its order.
fn interleaved(sb: &Sandbox) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("'{}' 2>&1", sb.tools.join("mixer").display()))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), WRITES);
    text
}

/// What the agent got, less the receipt, is the tool's merged stream; or,
/// when it was treated, the stored raw output is, byte for byte.
fn assert_in_order(sb: &Sandbox, got: &str, want: &str) {
    let body: String = got.split_inclusive('\n').filter(|l| !l.starts_with("[TokenSieve]")).collect();
    match receipt_raw_id(got.as_bytes()) {
        Some(id) => {
            let raw = show(sb, &id, &[]);
            assert!(raw == want.as_bytes(), "stored raw out of order:\n{}", String::from_utf8_lossy(&raw));
        }
        None => assert_eq!(body, want),
    }
    // Either way the agent reads both streams: the first and last of each.
    for l in [want.lines().next().unwrap(), want.lines().nth(1).unwrap(), want.lines().last().unwrap()] {
        assert!(got.contains(l.split(' ').nth(1).unwrap()), "{l} missing from\n{got}");
    }
}

/// Runs `bash -c script` as Claude Code does: stdout and stderr on one
/// task output file opened for appending, a socket as stdin. Returns the file.
fn claude_capture(sb: &Sandbox, script: &str) -> String {
    let path = sb.path("task.output");
    let file = OpenOptions::new().create(true).append(true).mode(0o600).open(&path).unwrap();
    let (stdin, _agent_end) = UnixStream::pair().unwrap();
    let mut cmd = sb.agent("bash");
    cmd.arg("-c").arg(script).current_dir(sb.dir.path()).stdin(OwnedFd::from(stdin));
    cmd.stdout(file.try_clone().unwrap()).stderr(file);
    let out = wait_within(cmd.spawn().unwrap(), LIMIT);
    assert!(out.status.success(), "{script}");
    let text = fs::read_to_string(&path).unwrap();
    fs::remove_file(&path).unwrap();
    text
}

#[test]
fn one_capture_file_for_both_streams_keeps_the_tools_order() {
    let sb = Sandbox::new();
    interleaving_tool(&sb);
    let want = interleaved(&sb);
    let got = claude_capture(&sb, "mixer");
    assert!(receipt(got.as_bytes()).is_some(), "not treated:\n{got}");
    assert_in_order(&sb, &got, &want);
}

#[test]
fn two_to_one_into_the_agents_pipe_keeps_the_tools_order() {
    let sb = Sandbox::new();
    interleaving_tool(&sb);
    let want = interleaved(&sb);
    // The agent (this process) reads one pipe that is the command's stdout
    // and stderr.
    let (mut reader, writer) = std::io::pipe().unwrap();
    let mut cmd = sb.agent(sb.shims.join("mixer"));
    cmd.stdout(writer.try_clone().unwrap()).stderr(writer).stdin(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    drop(cmd);
    let mut got = String::new();
    reader.read_to_string(&mut got).unwrap();
    assert!(child.wait().unwrap().success());
    assert!(receipt(got.as_bytes()).is_some(), "not treated:\n{got}");
    assert_in_order(&sb, &got, &want);
}

#[test]
fn a_stderr_sent_elsewhere_is_left_alone() {
    let sb = Sandbox::new();
    let listing: String = (0..400).map(|i| format!("item-{i} ready\n")).collect();
    fs::write(sb.path("listing.txt"), &listing).unwrap();
    sb.shimmed(
        "lister",
        &format!(
            "#!/bin/sh\necho 'lister: deprecated flag ignored' >&2\ncat '{}'\n",
            sb.path("listing.txt").display()
        ),
    );
    // `2>/dev/null`: the agent never sees the tool's stderr, stdout is treated.
    let got = claude_capture(&sb, "lister 2>/dev/null");
    assert!(!got.contains("deprecated flag"), "{got}");
    // (the receipt went where stderr goes)
    assert!(got.len() < listing.len() / 2 && got.contains("item-399 ready"), "stdout not treated:\n{got}");
    // `2>file`: the file gets the tool's stderr as written.
    let got = claude_capture(&sb, "lister 2>err.log");
    assert!(!got.contains("deprecated flag"), "{got}");
    let err = String::from_utf8(without_config_warning(&fs::read(sb.path("err.log")).unwrap())).unwrap();
    assert!(err.starts_with("lister: deprecated flag ignored\n"), "{err}");
}

#[test]
fn a_persons_terminal_is_left_alone() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("note: no `script` here to give the command a terminal, skipped");
        return;
    }
    let sb = Sandbox::new();
    interleaving_tool(&sb);
    let want = interleaved(&sb);
    // A person (no agent marker) at a pty: the tool's bytes as it wrote them.
    let log = sb.path("typescript");
    let out =
        sb.cmd("script").args(["-q", "-e", "-c", "mixer"]).arg(&log).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(got.contains(&want), "{got}");
    assert!(receipt(got.as_bytes()).is_none(), "{got}");
}

/// A crate with warnings, built by the real cargo through the shim: what an
/// agent reads of it (it all goes to stderr) is at most half the raw build
/// output.
#[test]
fn cargo_build_warnings_are_treated_and_halved() {
    let sb = Sandbox::new();
    sb.shim("cargo");
    let krate = sb.path("warned");
    fs::create_dir_all(krate.join("src")).unwrap();
    fs::write(
        krate.join("Cargo.toml"),
        "[package]\nname = \"warned\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    // Ordinary code with the warnings a change in progress leaves: unused
    // imports, variables and `mut`s, dead functions and fields.
    let mut src =
        String::from("use std::collections::HashMap;\nuse std::fmt::Write;\nuse std::io::Read;\n\n");
    for i in 0..8 {
        src.push_str(&format!(
            "pub struct Reading{i} {{\n    pub sensor_name: String,\n    pub measured_value: f64,\n    recorded_at_ms: u64,\n}}\n\n\
             pub fn average_for_sensor_{i}(readings: &[Reading{i}], wanted_sensor: &str) -> f64 {{\n    \
             let skipped_readings_counter = readings.len() * {i};\n    \
             let mut matching_values: Vec<f64> = Vec::new();\n    \
             let total: f64 = readings.iter().filter(|r| r.sensor_name == wanted_sensor).map(|r| r.measured_value).sum();\n    \
             total / readings.len().max(1) as f64\n}}\n\n\
             fn format_reading_for_log_{i}(reading: &Reading{i}, precision: usize) -> String {{\n    \
             format!(\"{{}}={{:.*}}\", reading.sensor_name, precision, reading.measured_value)\n}}\n\n"
        ));
    }
    fs::write(krate.join("src/lib.rs"), src).unwrap();
    let target = sb.path("target");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The raw output, as `cargo build 2>&1` prints it (cargo replays a
    // fresh build's warnings on every run, so both runs print them).
    let raw = Command::new(&cargo)
        .arg("build")
        .current_dir(&krate)
        .env("CARGO_TARGET_DIR", &target)
        .env("CARGO_TERM_COLOR", "never")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(raw.status.success());
    let raw = String::from_utf8(raw.stderr).unwrap();
    assert!(raw.matches("warning: unused variable").count() >= 8, "{raw}");
    let mut path = Vec::from([sb.shims.clone()]);
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    if let Some(dir) = Path::new(&cargo).parent().filter(|d| !d.as_os_str().is_empty()) {
        path.insert(1, dir.to_path_buf());
    }
    let script = format!(
        "export PATH='{}' CARGO_TARGET_DIR='{}' CARGO_TERM_COLOR=never; cd '{}' && cargo build",
        std::env::join_paths(path).unwrap().to_string_lossy(),
        target.display(),
        krate.display()
    );
    let got = claude_capture(&sb, &script);
    assert!(receipt(got.as_bytes()).is_some(), "not treated:\n{got}");
    // every warning's location is still there
    for l in raw.lines().filter(|l| l.trim_start().starts_with("--> ")) {
        let place = l.trim_start().trim_start_matches("--> ");
        assert!(got.contains(place), "{place} missing:\n{got}");
    }
    let tokens = |t: &str| tiktoken_rs::cl100k_base_singleton().encode_ordinary(t).len();
    assert!(tokens(&got) * 2 <= tokens(&raw), "{} of {} tokens:\n{got}", tokens(&got), tokens(&raw));
}

/// Runs `cmd` as an agent that reads its stdout and stderr on two pipes of
/// its own (as Codex captures a command): both read at once, as an agent
/// does. Returns (stdout, stderr, exit code).
fn two_pipes(mut cmd: Command) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    let (mut out_rd, out_wr) = std::io::pipe().unwrap();
    let (mut err_rd, err_wr) = std::io::pipe().unwrap();
    cmd.stdout(out_wr).stderr(err_wr).stdin(Stdio::null());
    let child = cmd.spawn().unwrap();
    drop(cmd);
    let errs = std::thread::spawn(move || {
        let mut v = Vec::new();
        err_rd.read_to_end(&mut v).unwrap();
        v
    });
    let mut out = Vec::new();
    out_rd.read_to_end(&mut out).unwrap();
    let done = wait_within(child, LIMIT);
    (out, errs.join().unwrap(), done.status.code())
}

#[test]
fn two_pipes_an_agent_reads_are_treated_each_on_its_own() {
    let sb = Sandbox::new();
    // stdout: a short answer with nothing to fold; stderr: a long run of
    // deprecation warnings, written interleaved with it
    let script = "#!/usr/bin/env python3\n\
         import os, sys\n\
         for i in range(300):\n    \
             if i % 50 == 0:\n        \
                 os.write(1, ('row %d: %s\\n' % (i, 'abcdefghij'[i % 10] * (i % 7 + 1))).encode())\n    \
             os.write(2, ('warning: option --legacy-%d is deprecated, use --modern-%d (config line %d)\\n' % (i, i, 3 * i)).encode())\n\
         sys.exit(3)\n";
    sb.shimmed("noisy", script);
    let direct = Command::new(sb.tools.join("noisy")).stdin(Stdio::null()).output().unwrap();
    assert_eq!(direct.status.code(), Some(3));
    let (out, err, code) = two_pipes(sb.agent(sb.shims.join("noisy")));
    assert_eq!(code, Some(3));
    // stdout: the tool's bytes, untouched and in order
    assert!(out == direct.stdout, "stdout changed:\n{}", String::from_utf8_lossy(&out));
    // stderr: treated on its own, with its own receipt; the stored raw is
    // the tool's stderr byte for byte
    // (its receipt comes last: stdout's, if any, was written first)
    let last = err.split(|&b| b == b'\n').rfind(|l| !l.is_empty()).unwrap_or_default();
    let id = receipt_raw_id(last)
        .unwrap_or_else(|| panic!("stderr not treated:\n{}", String::from_utf8_lossy(&err)));
    assert!(err.len() * 2 < direct.stderr.len(), "{}", String::from_utf8_lossy(&err));
    assert!(show(&sb, &id, &[]) == direct.stderr, "stored stderr differs");
    let text = String::from_utf8_lossy(&err);
    assert!(text.contains("--legacy-0 ") && text.contains(&format!("show {id} --grep")), "{text}");
    // One call, one history row: stdout's (`recall` must find stdout there);
    // the stderr half, delivered by the same path, adds none.
    let gain = output_within(sb.cmd(BIN).args(["gain", "--json"]), Duration::from_secs(60));
    let gain: serde_json::Value = serde_json::from_slice(&gain.stdout).unwrap();
    assert_eq!(gain["calls"], 1, "{gain}");

    // Without an agent marker (a program, not an agent, reads the pipes):
    // both streams as the tool wrote them.
    let (out, err, code) = two_pipes(sb.cmd(sb.shims.join("noisy")));
    assert_eq!(code, Some(3));
    assert!(out == direct.stdout && without_config_warning(&err) == direct.stderr);

    // stderr into another program (`2> >(grep …)`): it gets every line.
    let (out, _, _) = two_pipes(sb.agent_bash("noisy 2> >(grep -c -- '^warning: option --legacy-')"));
    let out = String::from_utf8_lossy(&out);
    assert!(out.lines().any(|l| l.trim() == "300"), "{out}");
}
