//! The typed result (`--format json`, docs/FORMAT.md §9) over every text
//! fixture, through the real binary: it validates against the JSON Schema in
//! docs/, its status is the exit code's verdict, every finding's location is
//! on the raw line it names, and fingerprints survive shifted lines.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Every text fixture with the command and exit code its manifest gives.
fn fixtures() -> Vec<(PathBuf, String, i32)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text");
    let mut out = Vec::new();
    for (manifest, dir) in
        [(root.join("MANIFEST.tsv"), root.clone()), (root.join("local/MANIFEST.tsv"), root.join("local"))]
    {
        let text = std::fs::read_to_string(&manifest).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let (file, command, exit) = (col("file"), col("command"), col("exit_code"));
        let set = header.iter().position(|h| *h == "set");
        for row in lines.filter(|l| !l.trim().is_empty()) {
            let cells: Vec<&str> = row.split('\t').collect();
            let mut path = dir.clone();
            if let Some(s) = set.map(|i| cells[i]).filter(|s| !s.is_empty()) {
                path.push(s);
            }
            path.push(cells[file]);
            // the manifest quotes a command holding quotes, TSV-style
            let cmd = cells[command];
            let cmd = match cmd.strip_prefix('"').and_then(|c| c.strip_suffix('"')) {
                Some(inner) => inner.replace("\"\"", "\""),
                None => cmd.to_string(),
            };
            out.push((path, cmd, cells[exit].trim().parse().unwrap()));
        }
    }
    assert!(out.len() > 100, "{} fixtures", out.len());
    out
}

fn typed(home: &Path, cmd: &str, exit: i32, input: &[u8]) -> Value {
    let mut c = common::tokensieve_in(home);
    c.args(["--format", "json", "--cmd", cmd, "--exit", &exit.to_string()])
        .env_remove("TOKENSIEVE_FORMAT")
        .env_remove("TOKENSIEVE_BUDGET")
        .env_remove("BASH_MAX_OUTPUT_LENGTH");
    let out = common::output_with_stdin(&mut c, input);
    assert!(out.status.success(), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{cmd}: not JSON ({e})"))
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/typed-result.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("a valid schema")
}

/// The exit code's verdict, written out again here (docs/FORMAT.md §9).
fn verdict(tool: &str, code: i32) -> &'static str {
    match code {
        0 => "passed",
        126 | 127 => "error",
        c if !(0..=128).contains(&c) => "error",
        2..=4 if tool == "pytest" => "error",
        _ => "failed",
    }
}

/// The raw text without its colour codes (tsc --pretty paints `path`,
/// `:` and the line number apart).
fn uncoloured(raw: &str) -> String {
    regex::Regex::new("\x1b\\[[0-9;]*m").unwrap().replace_all(raw, "").into_owned()
}

/// Whether raw line `n` (1-based) prints `path` followed by line `line`
/// (`path:12`, `path(12,3)`, `"path", line 12`), colours aside.
fn located(raw: &str, n: usize, path: &str, line: u64) -> bool {
    let Some(text) = raw.split('\n').nth(n - 1) else { return false };
    let text = uncoloured(text);
    text.match_indices(path).any(|(at, _)| {
        let rest = &text[at + path.len()..];
        let rest = rest
            .strip_prefix(':')
            .or_else(|| rest.strip_prefix('('))
            .or_else(|| rest.strip_prefix("\", line "));
        rest.is_some_and(|r| r.split(|c: char| !c.is_ascii_digit()).next() == Some(&line.to_string()))
    })
}

#[test]
fn every_fixture_validates_and_states_the_exit_codes_verdict() {
    let validator = schema();
    let home = tempfile::tempdir().unwrap();
    let (mut findings, mut located_findings) = (0, 0);
    for (path, cmd, exit) in fixtures() {
        let raw = std::fs::read(&path).unwrap();
        let v = typed(home.path(), &cmd, exit, &raw);
        let errors: Vec<String> =
            validator.iter_errors(&v).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        let tool = v["tool"].as_str().unwrap();
        assert_eq!(v["status"], verdict(tool, exit), "{}", path.display());
        assert_eq!(v["exit_code"], exit);
        if v["anchors"] == false {
            assert!(
                v["findings"].as_array().unwrap().is_empty() && v["counts"].as_object().unwrap().is_empty()
            );
            assert!(v["note"].as_str().unwrap().contains("anchors"), "{}", path.display());
        }
        let raw = String::from_utf8_lossy(&raw);
        for f in v["findings"].as_array().unwrap() {
            findings += 1;
            if let (Some(p), Some(l)) = (f["path"].as_str(), f["line"].as_u64()) {
                located_findings += 1;
                let n = f["raw_line"].as_u64().unwrap() as usize;
                assert!(located(&raw, n, p, l), "{}: {p}:{l} is not on raw line {n}: {f}", path.display());
            }
        }
    }
    eprintln!("{findings} findings, {located_findings} with a path:line, all on their raw line");
    assert!(located_findings > 100, "{located_findings}");
}

/// Lines shifted (blank lines above, every location's line number moved):
/// each finding keeps its fingerprint.
#[test]
fn fingerprints_survive_line_shifts() {
    let home = tempfile::tempdir().unwrap();
    let mut compared = 0;
    for (path, cmd, exit) in fixtures() {
        let raw = uncoloured(&std::fs::read_to_string(&path).unwrap_or_default());
        let v = typed(home.path(), &cmd, exit, raw.as_bytes());
        let found = v["findings"].as_array().unwrap();
        if !found.iter().any(|f| f["line"].is_u64()) {
            continue;
        }
        let mut shifted = raw.clone();
        let paths: BTreeMap<&str, ()> =
            found.iter().filter_map(|f| f["path"].as_str()).map(|p| (p, ())).collect();
        for p in paths.keys() {
            // the whole path, not the tail of a longer one (`inventory.py`
            // inside `tests/test_inventory.py:31`): that line moves once
            let re = regex::Regex::new(&format!(
                r#"(?m)(^|[^\w/.-])({}(?::|\(|", line ))(\d+)"#,
                regex::escape(p)
            ))
            .unwrap();
            shifted = re
                .replace_all(&shifted, |c: &regex::Captures| {
                    format!("{}{}{}", &c[1], &c[2], c[3].parse::<u64>().unwrap() + 7)
                })
                .into_owned();
        }
        let shifted = format!("\n\n\n{shifted}");
        let w = typed(home.path(), &cmd, exit, shifted.as_bytes());
        let prints = |v: &Value| -> Vec<(String, Option<u64>)> {
            v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["fingerprint"].to_string(), f["line"].as_u64()))
                .collect()
        };
        let (before, after) = (prints(&v), prints(&w));
        assert_eq!(before.len(), after.len(), "{}", path.display());
        for ((fa, la), (fb, lb)) in before.iter().zip(&after) {
            assert_eq!(fa, fb, "{}: fingerprint moved with the line", path.display());
            assert_eq!(la.map(|l| l + 7), *lb, "{}: the line itself did move", path.display());
        }
        compared += 1;
    }
    assert!(compared >= 20, "{compared} fixtures with located findings");
}

/// The result is stored with the capture: `show ID --summary` prints it,
/// `--format json` gives the stored JSON, which the schema accepts.
#[test]
fn show_summary_prints_the_stored_result() {
    let home = tempfile::tempdir().unwrap();
    let raw =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/tsc-errors.txt")).unwrap();
    let v = typed(home.path(), "npx tsc --noEmit", 2, &raw);
    let id = v["raw"].as_str().expect("stored raw").to_string();
    let show = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
            .args(["show", &id[..8]])
            .args(args)
            .env("TOKENSIEVE_HOME", home.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = show(&["--summary"]);
    assert!(text.starts_with(&format!("tsc: failed (exit 2) · raw {id}\n")), "{text}");
    assert!(text.contains("error src/api.ts:4:"), "{text}");
    let stored: Value = serde_json::from_str(&show(&["--summary", "--format", "json"])).unwrap();
    let mut printed = v.clone();
    printed.as_object_mut().unwrap().remove("output");
    assert_eq!(stored, printed);
    assert!(schema().is_valid(&stored));
}

/// `--format yaml` is the same document as YAML (checked by parsing it
/// back with the YAML reader the aws venv already has, when it is there).
#[test]
fn yaml_format_is_the_same_document() {
    let home = tempfile::tempdir().unwrap();
    let raw =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/pytest-fail.txt")).unwrap();
    let json = typed(home.path(), "pytest", 1, &raw);
    let mut c = common::tokensieve_in(home.path());
    c.args(["--cmd", "pytest", "--exit", "1"]).env("TOKENSIEVE_FORMAT", "yaml");
    let out = common::output_with_stdin(&mut c, &raw);
    let yaml = String::from_utf8(out.stdout).unwrap();
    assert!(yaml.starts_with("\"v\": 1\n\"status\": \"failed\"\n"), "{yaml}");
    let Some(venv) = common::aws::venv() else {
        eprintln!("skipped the YAML parse: no aws venv (scripts/test.sh makes it)");
        return;
    };
    let mut py = Command::new(venv.join("python"));
    py.args(["-c", "import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let parsed = common::output_with_stdin(&mut py, yaml.as_bytes());
    assert!(parsed.status.success(), "{}", String::from_utf8_lossy(&parsed.stderr));
    let back: Value = serde_json::from_slice(&parsed.stdout).unwrap();
    assert_eq!(back, json);
}
