//! Issue 13: hostile input, a user's files, and "nothing lost" when the home
//! fails. Each test is named after a failure found by hand and runs the real
//! binary in a temp home.

mod common;

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{BIN, output_with_stdin, receipt_raw_id};

const VPCS: &str = "fixtures/json/aws/ec2-describe-vpcs.json";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn tokensieve(home: &Path) -> Command {
    common::tokensieve_in(home)
}

/// Filter mode on `input` with a command hint.
fn filter_bytes(home: &Path, input: &[u8], extra: &[(&str, &str)]) -> Output {
    let mut c = tokensieve(home);
    c.args(["--cmd", "aws ec2 describe-vpcs"]);
    for (k, v) in extra {
        c.env(k, v);
    }
    output_with_stdin(&mut c, input)
}

fn vpcs() -> Vec<u8> {
    fs::read(fixture(VPCS)).unwrap()
}

fn show(home: &Path, id: &str) -> Output {
    tokensieve(home).args(["show", id]).output().unwrap()
}

fn object_file(home: &Path, raw: &[u8]) -> PathBuf {
    let hex = tokensieve::store::hash_hex(raw);
    home.join("objects").join(&hex[..2]).join(&hex[2..])
}

/// A user's file outside the home, to plant symlinks at.
fn victim(dir: &Path) -> PathBuf {
    let p = dir.join("victim.txt");
    fs::write(&p, "the user's own file\n").unwrap();
    p
}

fn assert_untouched(p: &Path) {
    assert_eq!(fs::read_to_string(p).unwrap(), "the user's own file\n", "{} was written", p.display());
}

#[test]
fn a_size_ledger_planted_as_a_symlink_is_not_written_through() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    fs::create_dir(&home).unwrap();
    let user = victim(t.path());
    symlink(&user, home.join("objects.size")).unwrap();
    let out = filter_bytes(&home, &vpcs(), &[]);
    assert!(out.status.success());
    assert_untouched(&user);
    let id = receipt_raw_id(&out.stderr).expect("stored");
    assert_eq!(show(&home, &id).stdout, vpcs());
    assert!(fs::symlink_metadata(home.join("objects.size")).unwrap().is_file());
}

#[test]
fn an_eviction_log_planted_as_a_symlink_is_not_appended_to() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    fs::create_dir(&home).unwrap();
    let user = victim(t.path());
    symlink(&user, home.join("evicted.log")).unwrap();
    let cap = [("TOKENSIEVE_STORE_MAX_BYTES", "2000")];
    // Two different outputs under a cap that holds one: the first is evicted.
    let first = filter_bytes(&home, &vpcs(), &cap);
    let other = String::from_utf8(vpcs()).unwrap().replace("30.1.0.0", "30.2.0.0");
    let second = filter_bytes(&home, other.as_bytes(), &cap);
    assert!(first.status.success() && second.status.success());
    assert_untouched(&user);
    let log = fs::read_to_string(home.join("evicted.log")).unwrap();
    assert!(log.starts_with(&tokensieve::store::hash_hex(&vpcs())), "{log}");
}

#[test]
fn a_prefix_folder_planted_as_a_symlink_gets_no_object_written_outside_the_home() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let outside = t.path().join("outside");
    fs::create_dir_all(home.join("objects")).unwrap();
    fs::create_dir(&outside).unwrap();
    let hex = tokensieve::store::hash_hex(&vpcs());
    symlink(&outside, home.join("objects").join(&hex[..2])).unwrap();
    let out = filter_bytes(&home, &vpcs(), &[]);
    assert!(out.status.success());
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "an object was written outside the home");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tokensieve: warning: raw output not stored") && err.contains("does not follow"),
        "{err}"
    );
}

#[test]
fn a_symlink_at_the_object_path_is_replaced_and_show_gives_the_bytes() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let user = victim(t.path());
    let obj = object_file(&home, &vpcs());
    fs::create_dir_all(obj.parent().unwrap()).unwrap();
    symlink(&user, &obj).unwrap();
    let out = filter_bytes(&home, &vpcs(), &[]);
    assert_untouched(&user);
    let id = receipt_raw_id(&out.stderr).expect("stored");
    let shown = show(&home, &id);
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    assert_eq!(shown.stdout, vpcs());
}

#[test]
fn a_history_database_planted_as_a_symlink_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    fs::create_dir(&home).unwrap();
    let target = t.path().join("empty.db");
    fs::write(&target, "").unwrap();
    symlink(&target, home.join("history.db")).unwrap();
    let out = filter_bytes(&home, &vpcs(), &[]);
    assert!(out.status.success());
    assert_eq!(fs::metadata(&target).unwrap().len(), 0, "SQLite wrote through the symlink");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("call not recorded"), "{err}");
}

#[test]
fn a_damaged_object_is_repaired_by_the_next_identical_output() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let first = filter_bytes(&home, &vpcs(), &[]);
    let id = receipt_raw_id(&first.stderr).unwrap();
    // What a power cut can leave: the name, no bytes.
    fs::write(object_file(&home, &vpcs()), "").unwrap();
    assert_eq!(show(&home, &id).status.code(), Some(1));
    let again = filter_bytes(&home, &vpcs(), &[]);
    assert_eq!(receipt_raw_id(&again.stderr).as_deref(), Some(id.as_str()));
    let shown = show(&home, &id);
    assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
    assert_eq!(shown.stdout, vpcs());
    // The size ledger counts the repaired object once.
    let ledger = fs::read_to_string(home.join("objects.size")).unwrap();
    assert_eq!(ledger.split(' ').next().unwrap(), vpcs().len().to_string());
}

#[test]
fn store_folders_and_files_are_private_under_umask_777() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let input = fixture(VPCS);
    let script = format!(
        "umask 777; TOKENSIEVE_HOME='{}' '{BIN}' --cmd 'aws x' < '{}' >/dev/null 2>&1",
        home.display(),
        input.display()
    );
    assert!(Command::new("sh").arg("-c").arg(&script).status().unwrap().success());
    let obj = object_file(&home, &vpcs());
    for dir in [home.clone(), home.join("objects"), obj.parent().unwrap().to_owned()] {
        let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }
    for file in [obj, home.join("history.db"), home.join("objects.size")] {
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", file.display());
    }
}

/// Runs the binary with `args` and `stdin`, in a temp home.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let t = tempfile::tempdir().unwrap();
    output_with_stdin(tokensieve(&t.path().join("home")).args(args).current_dir(t.path()), stdin)
}

/// Exit 2 and exactly one short stderr line starting `tokensieve: `.
fn assert_one_line_error(out: &Output, what: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    // `tokensieve: ` or, for a subcommand, `tokensieve SUB: `.
    let named = err.split_once(": ").is_some_and(|(who, _)| who.starts_with("tokensieve"));
    assert!(named && err.len() < 300, "{what}: {err}");
    err
}

#[test]
fn decode_of_a_hundred_thousand_open_brackets_is_one_error_line_not_a_crash() {
    let cases = [
        ("brackets", "[".repeat(100_000) + "\n"),
        ("objects", "{a:".repeat(100_000) + "\n"),
        ("closed brackets", "[".repeat(100_000) + &"]".repeat(100_000)),
        ("a path", vec!["a"; 100_000].join(".") + "=1\n"),
        ("sections", format!("[{}]\nx=1\n", vec!["a"; 100_000].join("."))),
        // Each part within the limit, the document over it.
        (
            "a section, a path and a value",
            format!(
                "[{}]\n{}={}\n",
                vec!["a"; 60].join("."),
                vec!["b"; 60].join("."),
                "[".repeat(60) + &"]".repeat(60)
            ),
        ),
    ];
    for (what, input) in cases {
        let err = assert_one_line_error(&run(&["decode"], input.as_bytes()), what);
        assert!(err.contains("nested deeper than 127"), "{what}: {err}");
    }
}

#[test]
fn decode_of_a_table_claiming_a_huge_row_count_is_an_error_not_an_abort() {
    let out = run(&["decode"], b"Items[99999999999]{a}:\n1\n");
    let err = assert_one_line_error(&out, "row count");
    assert!(err.contains("99999999999 rows"), "{err}");
}

#[test]
fn numbers_are_written_exactly_as_the_tool_wrote_them() {
    let doc = br#"{"big": 1e400, "upper": 1E+2, "neg": -2.50E-3, "plain": 1.0, "list": [1E5, 2e5, 3e+5, 4E-5, 5, 6, 7, 8, 9, 10, 11, 12], "name": "instance-one"}"#;
    let out = run(&["--cmd", "aws x"], doc);
    let text = String::from_utf8(out.stdout).unwrap();
    for lit in ["1e400", "1E+2", "-2.50E-3", "1.0", "1E5", "2e5", "3e+5", "4E-5"] {
        assert!(text.contains(lit), "{lit} rewritten: {text}");
    }
    let decoded = run(&["decode"], text.as_bytes());
    let dedup = run(&["inspect", "--stage", "dedup"], doc);
    assert_eq!(String::from_utf8_lossy(&decoded.stdout), String::from_utf8_lossy(&dedup.stdout));
    assert!(String::from_utf8_lossy(&dedup.stdout).contains(r#""upper":1E+2"#));
}

#[test]
fn show_with_a_bad_grep_pattern_says_so_in_one_line() {
    let out = run(&["show", "abcd1234", "--grep", "("], b"");
    let err = assert_one_line_error(&out, "--grep '('");
    assert!(err.contains("invalid --grep pattern '(': unclosed group"), "{err}");
}

#[test]
fn decode_with_extra_arguments_is_an_error() {
    // decode takes one FILE (or stdin): a second word is refused by name.
    let out = run(&["decode", "extra", "junk"], b"{\"a\":1}");
    assert!(assert_one_line_error(&out, "decode extra junk").contains("'junk'"));
    assert!(out.stdout.is_empty());
}

#[test]
fn filter_mode_rejects_the_options_of_other_subcommands() {
    for opt in
        [&["--lines", "1:2"][..], &["--grep", "x"], &["--path"], &["--since", "1h"], &["--stage", "sieve"]]
    {
        let out = run(opt, br#"{"a": 1}"#);
        let err = assert_one_line_error(&out, opt[0]);
        assert!(err.contains(&format!("unexpected argument '{}'", opt[0])), "{err}");
        assert!(out.stdout.is_empty());
    }
    // Where they belong they still work.
    assert!(run(&["inspect", "--stage", "sieve"], br#"{"a": 1}"#).status.success());
}

#[test]
fn tokensieve_help_is_the_help_not_a_file_named_help() {
    let out = run(&["help"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage: tokensieve"));
}

#[test]
fn every_rendering_ends_its_last_line_before_the_receipt() {
    let t = tempfile::tempdir().unwrap();
    let log: String = (0..3000).map(|i| format!("worker {i} finished job\n")).collect();
    let file = t.path().join("log.txt");
    fs::write(&file, &log).unwrap();
    // A text summary ending with the stored-file note, and a one-line Flow
    // document, as an agent that merges stderr into stdout reads them.
    for (cmd, input) in [
        ("journalctl -u web", file.clone()),
        ("aws eks describe-cluster", fixture("fixtures/json/aws/eks-describe-cluster.json")),
    ] {
        let script = format!(
            "TOKENSIEVE_HOME='{}' '{BIN}' --cmd '{cmd}' '{}' 2>&1",
            t.path().join("home").display(),
            input.display()
        );
        let out = Command::new("sh").arg("-c").arg(&script).output().unwrap();
        let merged = String::from_utf8(out.stdout).unwrap();
        let receipt = merged.lines().find(|l| l.contains("Original:")).unwrap();
        assert!(receipt.starts_with("[TokenSieve]"), "{cmd}: receipt glued to the output: {receipt}");
    }
}

/// A home that cannot take the raw bytes, three ways: under a regular file
/// (every write fails), on a "full" disk (files may not grow past 1 KB:
/// `ulimit -f 1`, SIGXFSZ ignored so writes fail with EFBIG), and with the
/// object's prefix folder planted as a symlink (refused).
fn failing_homes(t: &Path, raw: &[u8]) -> Vec<(&'static str, PathBuf, String)> {
    let blocker = t.join("a-file");
    fs::write(&blocker, "not a folder").unwrap();
    let planted = t.join("planted");
    let hex = tokensieve::store::hash_hex(raw);
    fs::create_dir_all(planted.join("objects")).unwrap();
    fs::create_dir_all(t.join("elsewhere")).unwrap();
    symlink(t.join("elsewhere"), planted.join("objects").join(&hex[..2])).unwrap();
    vec![
        ("unwritable", blocker.join("home"), String::new()),
        ("full", t.join("full"), "trap '' XFSZ; ulimit -f 1; ".into()),
        ("refused", planted, String::new()),
    ]
}

#[test]
fn when_the_raw_cannot_be_stored_the_agent_gets_the_raw_bytes() {
    let t = tempfile::tempdir().unwrap();
    let log: String = (0..400)
        .map(|i| format!("2024-01-01T00:00:{:02} INFO worker {i} processed item ok\n", i % 60))
        .collect();
    let log_file = t.path().join("log.txt");
    fs::write(&log_file, &log).unwrap();
    // A large one-line document is stored before it is parsed: the same
    // fallback when that fails.
    let large_file = t.path().join("large.json");
    fs::write(&large_file, large_minified("")).unwrap();
    for (input, cmd) in [
        (fixture(VPCS), "aws ec2 describe-vpcs"),
        (log_file, "myserver logs"),
        (large_file, "aws ec2 describe-instance-types"),
    ] {
        let raw = fs::read(&input).unwrap();
        // Filter mode, and the capture of `run` (which hands a large
        // document over once stored: here it never is).
        for (how, home, prefix) in failing_homes(t.path(), &raw) {
            for call in [
                format!("--cmd '{cmd}' < '{}'", input.display()),
                format!("run -- cat '{}'", input.display()),
            ] {
                let script = format!("{prefix}TOKENSIEVE_HOME='{}' exec '{BIN}' {call}", home.display());
                let out = Command::new("sh")
                    .arg("-c")
                    .arg(&script)
                    .env_remove("TOKENSIEVE")
                    .env("TOKENSIEVE_RECEIPT", "long")
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(0), "{how} {call}: {err}");
                assert!(
                    out.stdout == raw,
                    "{how} {call}: a lossy rendering was delivered with no raw kept: {err}"
                );
                let lines: Vec<&str> = err.lines().collect();
                assert_eq!(lines.len(), 2, "{how} {call}: {err}");
                assert!(lines[0].contains("Shape: raw") && !lines[0].contains("raw: "), "{how}: {err}");
                assert!(lines[1].starts_with("tokensieve: warning: raw output not stored"), "{how}: {err}");
            }
        }
        assert_eq!(fs::read_dir(t.path().join("elsewhere")).unwrap().count(), 0);
    }
}

#[test]
fn an_output_over_the_store_cap_is_delivered_whole() {
    let t = tempfile::tempdir().unwrap();
    let out = filter_bytes(&t.path().join("home"), &vpcs(), &[("TOKENSIEVE_STORE_MAX_BYTES", "1000")]);
    assert_eq!(out.stdout, vpcs());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("over the store cap of 1000"), "{err}");
    // The store turned off (cap 0) is the user's choice: whole output, no warning.
    let out = filter_bytes(&t.path().join("home"), &vpcs(), &[("TOKENSIEVE_STORE_MAX_BYTES", "0")]);
    assert_eq!(out.stdout, vpcs());
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
}

#[test]
fn a_short_positional_secret_never_reaches_the_history() {
    let sb = common::Sandbox::new();
    // A redis-cli that answers with something worth compressing.
    let json = String::from_utf8(vpcs()).unwrap().replace('\'', "");
    sb.shimmed("redis-cli", &format!("#!/bin/sh\ncat <<'EOF'\n{json}\nEOF\n"));
    sb.shimmed("mytool", &format!("#!/bin/sh\ncat <<'EOF'\n{json}\nEOF\n"));
    for line in
        ["redis-cli AUTH hunter2pass", "redis-cli -a x CONFIG GET maxmemory", "mytool correcthorse list"]
    {
        let out = sb.agent_bash(line).output().unwrap();
        assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(receipt_raw_id(&out.stderr).is_some(), "{line} was not compressed");
    }
    let mut files = Vec::new();
    for e in fs::read_dir(&sb.home).unwrap() {
        files.push(e.unwrap().path());
    }
    for p in files.iter().filter(|p| p.is_file()) {
        let bytes = fs::read(p).unwrap();
        for secret in [&b"hunter2pass"[..], b"correcthorse", b"maxmemory"] {
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret),
                "{} found in {}",
                String::from_utf8_lossy(secret),
                p.display()
            );
        }
    }
    let gain = tokensieve(&sb.home).args(["gain", "--json"]).output().unwrap();
    let gain = String::from_utf8_lossy(&gain.stdout);
    assert!(gain.contains("\"redis-cli AUTH\""), "{gain}");
}

#[test]
fn a_bad_tokensieve_variable_costs_a_warning_not_the_output() {
    let t = tempfile::tempdir().unwrap();
    for (var, value) in
        [("TOKENSIEVE_TEXT_THRESHOLD", "abc"), ("TOKENSIEVE_BUDGET", "zz"), ("TOKENSIEVE_TOKENIZER", "gpt2")]
    {
        let mut filter = tokensieve(&t.path().join("home"));
        filter.env(var, value);
        let out = output_with_stdin(&mut filter, &vpcs());
        assert_eq!(out.status.code(), Some(0), "{var}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{var}: the output was lost");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.lines().any(|l| l.starts_with("tokensieve: warning: ") && l.contains(var)), "{err}");
        let mut run = tokensieve(&t.path().join("home"));
        run.env(var, value).args(["run", "--", "echo", "ran"]);
        let out = run.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "ran\n", "{var}");
    }
}

#[test]
fn a_key_abbreviated_to_digits_does_not_hang_the_pipeline() {
    // Found by the decode fuzz target: PVFN looked for an abbreviation of
    // `0_______` among `0`, `02`, `03`... forever (digits read as indices).
    let t = tempfile::tempdir().unwrap();
    let mut c = tokensieve(&t.path().join("home"));
    let input = br#"{"a":{"0_______":1,"x":"some text"},"b":{"0_______":2,"x":"more text"}}"#;
    let file = t.path().join("in.json");
    fs::write(&file, input).unwrap();
    c.arg(&file);
    let out = common::output_within(&mut c, std::time::Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty());
}

#[test]
fn a_key_the_json_library_reads_as_a_number_is_not_rewritten() {
    // Found by the decode fuzz target: with exact big numbers on, serde_json
    // reads `{"$serde_json::private::Number":"12"}` as the number 12, so the
    // agent was told `a=12`.
    let doc = br#"{"a": {"$serde_json::private::Number": "12"}, "b": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]}"#;
    let out = run(&["--cmd", "aws x"], doc);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, doc, "{}", String::from_utf8_lossy(&out.stdout));
    let decoded = run(&["decode"], b"a.\"$serde_json::private::Number\"=12\n");
    assert!(assert_one_line_error(&decoded, "decode").contains("reserved"));
}

/// One line of minified JSON over 1 MiB, the size from which filter mode
/// parses a document from its stored copy while the raw bytes are let go
/// (`handoff/large.rs`): records with a constant column, an inner array of
/// records, numbers written with `E`, and `extra` at the end of the last
/// record.
fn large_minified(extra: &str) -> Vec<u8> {
    let records: Vec<String> = (0..4000)
        .map(|i| {
            let more = if i == 3999 { extra } else { "" };
            // a sentence per record keeps the tree under 8x the text (a
            // document denser than that is read as text: see below)
            format!(
                r#"{{"InstanceType":"m{i}.large","Family":"general","VCpus":{},"ValidCores":[1,2,3,4],"Price":{}E+2,"Cards":[{{"Index":0,"Max":{i}}}],"Note":"{}"{more}}}"#,
                i % 64,
                i % 97,
                format!("record {i} of the generated list, written out so that its text outweighs its tree; ").repeat(3)
            )
        })
        .collect();
    let doc = format!("{{\"InstanceTypes\":[{}]}}\n", records.join(","));
    assert!(doc.len() > 1 << 20 && doc.trim_end().lines().count() == 1);
    doc.into_bytes()
}

/// `text` with the object names of `from` (its id and its path under the
/// store) written as those of `to`.
fn renamed(text: &[u8], from: &[u8], to: &[u8]) -> String {
    let (from, to) = (tokensieve::store::hash_hex(from), tokensieve::store::hash_hex(to));
    String::from_utf8_lossy(text)
        .replace(&format!("{}/{}", &from[..2], &from[2..]), &format!("{}/{}", &to[..2], &to[2..]))
        .replace(&from[..12], &to[..12])
}

#[test]
fn a_large_minified_document_parsed_from_its_stored_copy_renders_as_from_memory() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let doc = large_minified("");
    // A byte-order mark keeps the same document on the in-memory path (the
    // stored copy must be the text the parser reads, scrubbed of nothing).
    let marked = [&b"\xef\xbb\xbf"[..], &doc].concat();
    for budget in ["25000", "off"] {
        let large = filter_bytes(&home, &doc, &[("TOKENSIEVE_BUDGET", budget)]);
        let in_memory = filter_bytes(&home, &marked, &[("TOKENSIEVE_BUDGET", budget)]);
        let err = String::from_utf8_lossy(&large.stderr);
        assert_eq!(large.status.code(), Some(0), "{err}");
        assert!(err.contains("Shape: Outline"), "budget {budget}: {err}");
        assert_eq!(
            String::from_utf8_lossy(&large.stdout),
            renamed(&in_memory.stdout, &marked, &doc),
            "{budget}"
        );
        // Numbers as the tool wrote them, and the raw bytes kept whole.
        assert!(String::from_utf8_lossy(&large.stdout).contains("E+2"));
        assert_eq!(show(&home, &receipt_raw_id(&large.stderr).unwrap()).stdout, doc);
        let tokens = tokensieve::auditor::count_bytes(tokensieve::auditor::Encoding::Cl100k, &doc);
        assert_eq!(common::receipt_original(&large.stderr), Some(tokens));
    }
}

#[test]
fn a_large_document_with_a_repeated_key_is_not_rewritten() {
    let t = tempfile::tempdir().unwrap();
    let home = t.path().join("home");
    let doc = large_minified(r#","Family":"again""#);
    let out = filter_bytes(&home, &doc, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("Outline") && !out.stdout.starts_with(b"InstanceTypes["), "{err}");
    if let Some(id) = receipt_raw_id(&out.stderr) {
        assert_eq!(show(&home, &id).stdout, doc);
    } else {
        assert_eq!(out.stdout, doc);
    }
}

/// The calls that capture a tool's output, on `file` (`cat FILE` as an
/// agent runs it): through a shim named `cat`, and `tokensieve run`.
fn captured_cat(sb: &common::Sandbox, file: &Path) -> [Command; 2] {
    let mut shim = sb.agent(sb.shims.join("cat"));
    shim.arg(file);
    let mut run = sb.agent(BIN);
    run.args(["run", "--", "cat"]).arg(file);
    [shim, run]
}

#[test]
fn a_large_document_captured_from_a_tool_renders_as_in_filter_mode_and_is_stored_whole() {
    // The shim and `run` hand a large document over once it is stored, as
    // filter mode does; what the agent reads and what is kept are the same.
    let sb = common::Sandbox::new();
    sb.shim("cat");
    let doc = large_minified("");
    let file = sb.path("types.json");
    fs::write(&file, &doc).unwrap();
    let mut filter = sb.agent(BIN);
    filter.args(["--cmd", &format!("cat {}", file.display())]);
    filter.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let filtered = output_with_stdin(&mut filter, &doc);
    let err = String::from_utf8_lossy(&filtered.stderr);
    assert!(err.contains("Shape: Outline"), "{err}");
    let tokens = tokensieve::auditor::count_bytes(tokensieve::auditor::Encoding::Cl100k, &doc);
    for mut call in captured_cat(&sb, &file) {
        let out = common::output_within(&mut call, std::time::Duration::from_secs(120));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("Shape: Outline"), "{err}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&filtered.stdout));
        assert_eq!(common::receipt_original(&out.stderr), Some(tokens));
        let id = receipt_raw_id(&out.stderr).expect("a raw id");
        assert!(common::show(&sb, &id, &[]) == doc, "the stored copy is not the tool's bytes");
    }
}

#[test]
fn a_large_document_captured_from_a_tool_is_not_held_beside_its_tree() {
    // Filter mode lets a large document's bytes go before its tree is
    // complete (handoff/large.rs); the capture now does too, so its peak
    // is filter mode's, not the input's size more (as it was). The real
    // instance types, minified and doubled (5.6 MB on one line): a
    // document whose peak comes at the end of the parse.
    let sb = common::Sandbox::new();
    sb.shim("cat");
    let mut value: serde_json::Value = serde_json::from_slice(
        &fs::read(fixture("fixtures/json/aws/ec2-describe-instance-types-all.json")).unwrap(),
    )
    .unwrap();
    let types = value["InstanceTypes"].as_array_mut().unwrap();
    types.extend(types.clone());
    let mut doc = serde_json::to_vec(&value).unwrap();
    doc.push(b'\n');
    assert!(doc.len() > 5_000_000);
    let file = sb.path("types.json");
    fs::write(&file, &doc).unwrap();
    let peak = |mut cmd: Command, stdin: Option<&Path>| {
        if let Some(p) = stdin {
            cmd.stdin(fs::File::open(p).unwrap());
        }
        let out = common::output_within(&mut cmd, std::time::Duration::from_secs(300));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && err.contains("Shape: Outline"), "{err}");
        common::peak_rss_kb(&out.stderr) as usize
    };
    let mut filter = common::with_peak_rss(&sb, Path::new(BIN));
    filter.args(["--cmd", &format!("cat {}", file.display())]);
    let filtered = peak(filter, Some(&file));
    let mut shim = common::with_peak_rss(&sb, &sb.shims.join("cat"));
    shim.arg(&file);
    let mut run = common::with_peak_rss(&sb, Path::new(BIN));
    run.args(["run", "--", "cat"]).arg(&file);
    for (how, cmd) in [("shim", shim), ("run", run)] {
        let kb = peak(cmd, None);
        eprintln!("{} bytes: peak RSS {kb} kB through the {how}, {filtered} kB in filter mode", doc.len());
        assert!(kb <= filtered + doc.len() / 1024 / 2, "{how}: {kb} kB, filter mode {filtered} kB");
    }
}

/// Minified JSON of tiny values (`[1,1,1,…]`, 5 MB on one line) would take
/// ~40 times its size as a tree (265 MB): it is read as text instead. The
/// agent gets a view of its start with the jq command that asks the stored
/// document, the stored bytes are the input's, and the peak RSS stays
/// within 10x the input.
#[test]
fn json_too_dense_for_a_tree_is_read_as_text_within_ten_times_its_size() {
    let sb = common::Sandbox::new();
    let doc = format!("[{}1]\n", "1,".repeat(2_500_000));
    let file = sb.path("ones.json");
    fs::write(&file, &doc).unwrap();
    let mut cmd = common::with_peak_rss(&sb, Path::new(BIN));
    cmd.stdin(fs::File::open(&file).unwrap());
    let out = common::output_within(&mut cmd, std::time::Duration::from_secs(300));
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && stderr.contains("Shape: text:view"), "{stderr}");
    assert!(stdout.starts_with("# view: 1 lines, ") && stdout.contains("\n[1,1,1,1,"), "{stdout}");
    let hex = tokensieve::store::hash_hex(doc.as_bytes());
    assert!(stdout.contains("--jq '.[0:20]'") && stdout.contains(&hex[..12]), "{stdout}");
    assert_eq!(fs::read(object_file(&sb.home, doc.as_bytes())).unwrap(), doc.as_bytes());
    let kb = common::peak_rss_kb(&out.stderr) as usize;
    assert!(kb * 1024 <= 10 * doc.len(), "peak RSS {kb} kB for {} bytes", doc.len());
}
