//! Filter mode on real CLI JSON (fixtures/json) and on hostile input, through
//! the built binary: goldens, the decode invariant, never-worse, bad input.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tokensieve"));
    let home = std::env::temp_dir().join(format!("ts-json-filter-{}", std::process::id()));
    // Lossless output: the budget's views are checked in tests/view.rs.
    c.env("TOKENSIEVE_HOME", home).env_remove("TOKENSIEVE_TOKENIZER").env("TOKENSIEVE_BUDGET", "off");
    // Lossless renderings: focus views are tests/focus.rs's.
    c.env("TOKENSIEVE_FOCUS", "off");
    c
}

fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child =
        bin().args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// (original, compressed, shape) from the receipt line.
fn receipt(out: &Output) -> (usize, usize, String) {
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("[TokenSieve]"))
        .unwrap_or_else(|| panic!("no receipt in {err:?}"));
    let num = |tag: &str| -> usize {
        line.split(tag).nth(1).unwrap().trim().split(' ').next().unwrap().parse().unwrap()
    };
    let shape = line.split("Shape: ").nth(1).unwrap().split(' ').next().unwrap().to_string();
    (num("Original:"), num("Compressed:"), shape)
}

fn fixtures() -> Vec<PathBuf> {
    common::json_fixtures()
}

#[test]
fn every_fixture_decodes_to_the_dedup_stage_and_is_never_worse() {
    // Includes the 1.3 MB and 5.8 MB files: the router's sampled path (above 32 KB).
    let mut checked = 0;
    for f in fixtures() {
        let data = std::fs::read(&f).unwrap();
        let out = run(&[], &data);
        assert!(out.status.success(), "{}", f.display());
        let (orig, comp, shape) = receipt(&out);
        assert!(comp <= orig, "{}: {comp} > {orig}", f.display());
        assert_ne!(shape, "raw", "{}: nothing beat the input", f.display());
        let decoded = run(&["decode"], &out.stdout);
        let dedup = run(&["inspect", "--stage", "dedup"], &data);
        let a: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&dedup.stdout).unwrap();
        assert_eq!(a, b, "{} ({shape}) does not decode to its dedup stage", f.display());
        checked += 1;
    }
    assert!(checked >= 70, "only {checked} fixtures found");
}

/// A failing command's JSON (`npm audit --json`, `go test -json`, `eslint -f
/// json` exit non-zero) states its status as the last line, like a text
/// summary, and still decodes to the document: in every shape the router
/// picks, and for JSON lines.
#[test]
fn a_failing_commands_json_states_its_exit_and_still_decodes() {
    let go_json = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/text/local/heldout/go-test-json.txt");
    let mut inputs: Vec<PathBuf> =
        fixtures().into_iter().filter(|f| std::fs::metadata(f).unwrap().len() < 200_000).collect();
    inputs.push(PathBuf::from(go_json));
    let mut shapes = std::collections::BTreeSet::new();
    for f in inputs {
        let data = std::fs::read(&f).unwrap();
        let out = run(&["--cmd", "tool --json", "--exit", "3"], &data);
        assert!(out.status.success(), "{}", f.display());
        let (_, _, shape) = receipt(&out);
        if shape == "raw" {
            continue;
        }
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        assert!(text.ends_with("\nexit 3\n"), "{} ({shape}): no status line at the end", f.display());
        let decoded = run(&["decode"], &out.stdout);
        assert!(
            decoded.status.success(),
            "{} ({shape}): {}",
            f.display(),
            String::from_utf8_lossy(&decoded.stderr)
        );
        let dedup = run(&["inspect", "--stage", "dedup"], &data);
        let a: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&dedup.stdout).unwrap();
        assert_eq!(a, b, "{} ({shape}) with its status does not decode to its dedup stage", f.display());
        shapes.insert(shape);
    }
    assert!(shapes.len() >= 3, "only {shapes:?} seen");
    // a zero exit adds nothing
    let out = run(&["--cmd", "tool --json", "--exit", "0"], &std::fs::read(go_json).unwrap());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("exit 0"));
}

/// Reviewed outputs: a format change shows up as a diff here. Regenerate with
/// `UPDATE_GOLDEN=1 cargo test --test json_filter goldens` and review it.
#[test]
fn goldens() {
    let names = [
        "aws/ec2-describe-instances.json",
        "aws/ec2-describe-vpcs.json",
        "aws/eks-describe-cluster.json",
        "aws/s3api-list-objects-v2.json",
        "aws/sts-get-caller-identity.json",
        "gh/api-repos-labels.json",
        "kubectl/get-pod.json",
        "other/terraform-show-json-state-sensitive.json",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in names {
        let data = std::fs::read(root.join("fixtures/json").join(name)).unwrap();
        let out = run(&[], &data);
        let golden = root.join("tests/golden").join(name.replace('/', "__").replace(".json", ".out"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&golden, &out.stdout).unwrap();
        }
        let want = std::fs::read(&golden).unwrap_or_else(|_| panic!("missing {}", golden.display()));
        assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&want), "{name}");
    }
}

#[test]
fn certificate_blob_and_pem_are_redacted_in_the_output() {
    // An EKS-shaped document with a real base64-encoded PEM certificate.
    let pem = format!(
        "-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n",
        "MIIC5zCCAc+gAwIBAgIBADANBgkqhkiG9w0BAQsFADAVMRMwEQYDVQQDEwprdWJlcm5ldGVz".repeat(6)
    );
    let b64 = base64_encode(pem.as_bytes());
    let doc = serde_json::json!({"cluster": {"name": "prod", "certificateAuthority": {"data": b64}, "status": "ACTIVE",
        "caPem": pem}});
    let out = String::from_utf8(run(&[], doc.to_string().as_bytes()).stdout).unwrap();
    assert!(out.contains(&format!("<base64 {} chars>", b64.len())), "{out}");
    assert!(out.contains("<pem CERTIFICATE "), "{out}");
    assert!(!out.contains("LS0tLS1CRUdJTi") && !out.contains("MIIC5zCC"), "{out}");
}

fn base64_encode(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn ansi_coloured_json_is_scrubbed_then_compressed() {
    let input = b"\x1b[32m{\x1b[0m\"key\": 1, \"other\": \"value\", \"list\": [1, 2, 3]}\n";
    let out = run(&[], input);
    assert_ne!(receipt(&out).2, "raw");
    let decoded = run(&["decode"], &out.stdout);
    let v: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
    assert_eq!(v, serde_json::json!({"key": 1, "other": "value", "list": [1, 2, 3]}));
}

#[test]
fn ndjson_is_compressed_as_a_list() {
    let input = b"{\"name\": \"a\", \"status\": \"Running\"}\n{\"name\": \"b\", \"status\": \"Running\"}\n{\"name\": \"c\", \"status\": \"Failed\"}\n";
    let out = run(&[], input);
    let decoded = run(&["decode"], &out.stdout);
    let v: serde_json::Value = serde_json::from_slice(&decoded.stdout).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(3));
}

#[test]
fn file_argument_and_stdin_agree() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/aws/ec2-describe-vpcs.json");
    let from_file = bin().arg(path).output().unwrap();
    let from_stdin = run(&[], &std::fs::read(path).unwrap());
    assert_eq!(from_file.stdout, from_stdin.stdout);
    assert_eq!(from_file.stderr, from_stdin.stderr);
}

#[test]
fn o200k_changes_both_counts() {
    let data =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/kubectl/get-pod.json")).unwrap();
    let cl = receipt(&run(&[], &data));
    let o2 = receipt(&run(&["--tokenizer", "o200k"], &data));
    assert_ne!((cl.0, cl.1), (o2.0, o2.1));
    let env = bin().env("TOKENSIEVE_TOKENIZER", "o200k").stdin(Stdio::null()).arg("-").output();
    drop(env);
    let mut c = bin();
    c.env("TOKENSIEVE_TOKENIZER", "o200k");
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(&data).unwrap();
    let via_env = receipt(&child.wait_with_output().unwrap());
    assert_eq!(via_env.0, o2.0);
}

#[test]
fn stdout_comes_before_the_receipt_and_receipt_is_one_line() {
    let data =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/aws/ec2-describe-vpcs.json"))
            .unwrap();
    let out = run(&[], &data);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("[TokenSieve] Original: "));
}

#[test]
fn bad_input_passes_through_unchanged() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let huge_number = format!("{{\"n\": 1{}}}", "0".repeat(400));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("invalid utf-8", b"{\"a\": \"\xff\xfe\"}".to_vec()),
        ("binary", vec![0u8, 1, 2, 255, 0, 10]),
        ("truncated", b"{\"Vpcs\": [{\"VpcId\": \"vpc-1\", \"State\": \"avail".to_vec()),
        ("deep", deep.into_bytes()),
        ("duplicate keys", b"{\"a\": \"first value here\", \"a\": \"second value here\"}".to_vec()),
        ("plain text", b"hello, this is not json\n".to_vec()),
    ];
    for (name, input) in cases {
        let out = run(&[], &input);
        assert!(out.status.success(), "{name}: exit {:?}", out.status);
        assert_eq!(out.stdout, input, "{name}: output differs");
        assert_eq!(receipt(&out).2, "raw", "{name}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{name}");
    }
    // A huge integer is JSON: compressed, and exact through decode.
    let out = run(&[], huge_number.as_bytes());
    let decoded = run(&["decode"], &out.stdout);
    assert!(String::from_utf8_lossy(&decoded.stdout).contains(&format!("1{}", "0".repeat(400))));
}

#[test]
fn decode_of_garbage_is_one_clear_error() {
    let out = run(&["decode"], b"this = [is not, {valid\n[x");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("tokensieve decode: "), "{err}");
}

/// Ten reservations of five instances (the real AWS CLI against moto,
/// scripts/capture/ec2-describe-instances-10x5.sh): one nested table of the
/// instances with each reservation's fields costs at least 15 % fewer tokens
/// than a section and a table per reservation, and decodes exactly.
#[test]
fn reservations_of_instances_are_one_nested_table() {
    use tokensieve::auditor::{Encoding, count};
    use tokensieve::json::{outline, parse, reduce, router};
    let raw = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/json/aws/ec2-describe-instances-10x5-moto.json"
    ))
    .unwrap();
    let settings = tokensieve::settings::Settings::default();
    let reduced = reduce(parse(&raw).unwrap(), &settings);
    let before = count(Encoding::Cl100k, &outline::encode(&reduced, outline::Tuning::default()));
    let chosen = router::route(&reduced, Encoding::Cl100k);
    assert!(chosen.text.starts_with("Reservations[10]{ReservationId,"), "{}", &chosen.text[..200]);
    let after = count(Encoding::Cl100k, &chosen.text);
    assert!(after as f64 <= before as f64 * 0.85, "{after} tokens vs {before} per reservation");
    assert_eq!(tokensieve::json::decode::decode(&chosen.text).unwrap(), reduced);
}

/// kubectl lists of pods with their containers: one nested table of the
/// containers with each pod's fields as columns (the children are the
/// largest records a pod holds, not its conditions or tolerations), chosen
/// because it is smaller than a section per pod, and decoded exactly.
#[test]
fn pods_of_containers_are_one_nested_table() {
    use tokensieve::auditor::{Encoding, count};
    use tokensieve::json::{outline, parse, reduce, router};
    for (name, pods, containers) in [("get-pods-default.json", 2, 2), ("get-pods-assembled.json", 5, 5)] {
        let raw =
            std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json/kubectl").join(name))
                .unwrap();
        let settings = tokensieve::settings::Settings::default();
        let reduced = reduce(parse(&raw).unwrap(), &settings);
        let plain = count(Encoding::Cl100k, &outline::encode(&reduced, outline::Tuning::default()));
        let chosen = router::route(&reduced, Encoding::Cl100k);
        let header = chosen.text.lines().find(|l| l.starts_with("items[")).unwrap_or("");
        assert!(header.starts_with(&format!("items[{pods}]{{")), "{name}: {}", &chosen.text[..300]);
        assert!(header.contains(&format!("}}.spec.containers[{containers}]{{image,")), "{name}: {header}");
        let after = count(Encoding::Cl100k, &chosen.text);
        assert!(after < plain, "{name}: {after} tokens vs {plain} as sections");
        assert_eq!(tokensieve::json::decode::decode(&chosen.text).unwrap(), reduced, "{name}");
    }
}
