//! The store and history through the shim: many agents calling a shimmed
//! tool at once, each call recorded once, raw output recallable, secrets in
//! the arguments kept out of every file.

mod common;

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use common::*;

const VPCS: &str = "fixtures/json/aws/ec2-describe-vpcs.json";

fn field(receipt: &str, name: &str) -> Option<String> {
    receipt
        .split(" | ")
        .find_map(|f| f.trim_start_matches("[TokenSieve] ").strip_prefix(name))
        .map(str::to_owned)
}

fn tokens(receipt: &str, name: &str) -> u64 {
    field(receipt, name).unwrap().trim_end_matches(" tok").parse().unwrap()
}

fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Waits for every child, reading its output on threads that keep the pipe
/// handles open until all are done: closing them while other shims scan our
/// fd table would make those scans race (a shim issue of its own; this test
/// is about the store and the history).
fn collect_keeping_pipes_open(children: Vec<Child>) -> Vec<Output> {
    fn drain<R: Read + Send + 'static>(mut r: R) -> std::thread::JoinHandle<(Vec<u8>, R)> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            r.read_to_end(&mut buf).unwrap();
            (buf, r)
        })
    }
    let mut running = Vec::new();
    for mut c in children {
        let out = drain(c.stdout.take().unwrap());
        let err = drain(c.stderr.take().unwrap());
        running.push((c, out, err));
    }
    let mut kept = Vec::new();
    let mut outs = Vec::new();
    for (c, out, err) in running {
        let status = wait_within(c, Duration::from_secs(120)).status;
        let (stdout, o) = out.join().unwrap();
        let (stderr, e) = err.join().unwrap();
        kept.push((o, e));
        outs.push(Output { status, stdout, stderr });
    }
    outs
}

#[test]
fn sixty_four_concurrent_shim_calls_make_sixty_four_rows() {
    let sb = Sandbox::new();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(VPCS);
    sb.shimmed("aws", &format!("#!/bin/sh\nexec cat '{}'\n", fixture.display()));
    // Each child waits for `go`, then becomes the shim (exec keeps its pid
    // and its parent: us, the agent reading its stdout). Releasing them all
    // at once after the last spawn makes the 64 calls overlap, and keeps our
    // fd table still while the shims read it to find their reader.
    let go = sb.path("go");
    let children: Vec<Child> = (0..64)
        .map(|_| {
            sb.agent("sh")
                .arg("-c")
                .arg("while [ ! -e \"$0\" ]; do sleep 0.01; done; exec \"$1\" ec2 describe-vpcs --secret-token hunter2xyz")
                .arg(&go)
                .arg(sb.shims.join("aws"))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    fs::write(&go, "").unwrap();
    let outs = collect_keeping_pipes_open(children);
    let (mut original, mut compressed) = (0, 0);
    let mut ids = Vec::new();
    for out in &outs {
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "only the receipt on stderr: {err}");
        let r = receipt(&out.stderr).unwrap();
        original += tokens(&r, "Original: ");
        compressed += tokens(&r, "Compressed: ");
        ids.push(field(&r, "raw: ").expect("a raw id"));
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "one output, stored once");

    let gain = sb.cmd(BIN).args(["gain", "--json"]).output().unwrap();
    assert!(gain.status.success());
    let g: serde_json::Value = serde_json::from_slice(&gain.stdout).unwrap();
    assert_eq!(g["calls"], 64);
    assert_eq!(g["original_tokens"], original);
    assert_eq!(g["compressed_tokens"], compressed);
    assert_eq!(g["by_command"][0]["command"], "aws ec2 describe-vpcs");

    let shown = sb.cmd(BIN).args(["show", &ids[0]]).output().unwrap();
    assert_eq!(shown.stdout, fs::read(&fixture).unwrap());

    let mut files = Vec::new();
    files_under(&sb.home, &mut files);
    for p in files {
        let bytes = fs::read(&p).unwrap();
        assert!(!bytes.windows(10).any(|w| w == b"hunter2xyz"), "secret found in {}", p.display());
    }
}
