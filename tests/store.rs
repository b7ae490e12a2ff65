//! The raw store, the history database and `show` / `gain`, through the real
//! binary: real processes, a real SQLite file, TOKENSIEVE_HOME in a temp dir.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};

mod common;

const VPCS: &str = "fixtures/json/aws/ec2-describe-vpcs.json";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The binary with a private home and none of the user's tuning.
fn tokensieve(home: &Path) -> Command {
    common::tokensieve_in(home)
}

/// Filter mode on a fixture file, as a separate process.
fn spawn_filter(home: &Path, cmd: &str, file: &str) -> Child {
    tokensieve(home).args(["--cmd", cmd]).stdin(fs::File::open(fixture(file)).unwrap()).spawn().unwrap()
}

fn filter(home: &Path, cmd: &str, file: &str) -> Output {
    spawn_filter(home, cmd, file).wait_with_output().unwrap()
}

fn stderr_lines(out: &Output) -> Vec<String> {
    String::from_utf8(out.stderr.clone()).unwrap().lines().map(str::to_owned).collect()
}

struct Receipt {
    original: u64,
    compressed: u64,
    raw_id: Option<String>,
}

fn receipt(out: &Output) -> Receipt {
    let lines = stderr_lines(out);
    let line = lines.iter().find(|l| l.starts_with("[TokenSieve]")).expect("a receipt line");
    let field = |name: &str| {
        line.split(" | ")
            .find_map(|f| f.trim_start_matches("[TokenSieve] ").strip_prefix(name))
            .map(str::to_owned)
    };
    let tokens = |name| field(name).unwrap().trim_end_matches(" tok").parse().unwrap();
    Receipt { original: tokens("Original: "), compressed: tokens("Compressed: "), raw_id: field("raw: ") }
}

fn gain_json(home: &Path) -> serde_json::Value {
    let out = tokensieve(home).args(["gain", "--json"]).output().unwrap();
    assert!(out.status.success(), "gain failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        out.push(p.clone());
        if p.is_dir() {
            all_files(&p, out);
        }
    }
}

fn objects_bytes(home: &Path) -> u64 {
    let mut files = Vec::new();
    all_files(&home.join("objects"), &mut files);
    files.iter().filter(|p| p.is_file()).map(|p| fs::metadata(p).unwrap().len()).sum()
}

#[test]
fn show_returns_the_raw_bytes_exactly() {
    let home = tempfile::tempdir().unwrap();
    let out = filter(home.path(), "aws ec2 describe-vpcs", VPCS);
    assert!(out.status.success());
    let raw = fs::read(fixture(VPCS)).unwrap();
    assert_ne!(out.stdout, raw, "the fixture should compress");
    let id = receipt(&out).raw_id.expect("a compressed call names its raw id");
    assert_eq!(id.len(), 12);

    let shown = tokensieve(home.path()).args(["show", &id]).output().unwrap();
    assert!(shown.status.success());
    assert_eq!(shown.stdout, raw);
    assert!(shown.stderr.is_empty());

    // --path names a file holding the same bytes; a longer prefix also works.
    let path = tokensieve(home.path()).args(["show", "--path", &id[..8]]).output().unwrap();
    let path = String::from_utf8(path.stdout).unwrap();
    assert_eq!(fs::read(path.trim_end()).unwrap(), raw);

    let lines = tokensieve(home.path()).args(["show", &id, "--lines", "2:3"]).output().unwrap();
    let want: Vec<&[u8]> = raw.split_inclusive(|&b| b == b'\n').skip(1).take(2).collect();
    assert_eq!(lines.stdout, want.concat());

    let grep = tokensieve(home.path()).args(["show", &id, "--grep", "\"VpcId\""]).output().unwrap();
    let grep = String::from_utf8(grep.stdout).unwrap();
    assert_eq!(grep.lines().count(), 2);
    assert!(grep.starts_with("7:") && grep.contains("vpc-0e9801d129EXAMPLE"), "{grep}");
    let none = tokensieve(home.path()).args(["show", &id, "--grep", "no such text"]).output().unwrap();
    assert_eq!(none.status.code(), Some(1));
}

#[test]
fn an_identical_output_is_stored_once() {
    let home = tempfile::tempdir().unwrap();
    let a = receipt(&filter(home.path(), "aws ec2 describe-vpcs", VPCS)).raw_id.unwrap();
    let b = receipt(&filter(home.path(), "aws ec2 describe-vpcs", VPCS)).raw_id.unwrap();
    assert_eq!(a, b);
    assert_eq!(objects_bytes(home.path()), fs::metadata(fixture(VPCS)).unwrap().len());
}

#[test]
fn calls_leave_no_wal_for_the_next_call_to_recover() {
    // A WAL left behind is re-read by every later open: at steady state that
    // was 3 ms a call (docs/performance.md). The last close folds it in.
    let home = tempfile::tempdir().unwrap();
    for _ in 0..5 {
        assert!(filter(home.path(), "aws ec2 describe-vpcs", VPCS).status.success());
    }
    let wal = home.path().join("history.db-wal");
    let left = fs::metadata(&wal).map(|m| m.len()).unwrap_or(0);
    assert_eq!(left, 0, "{} holds {left} bytes", wal.display());
    let rows = gain_json(home.path());
    assert!(rows.to_string().contains("\"calls\":5"), "{rows}");
}

#[test]
fn store_and_history_are_private() {
    let home = tempfile::tempdir().unwrap();
    fs::remove_dir(home.path()).unwrap(); // let tokensieve create its home
    let out = filter(home.path(), "aws ec2 describe-vpcs", VPCS);
    assert!(receipt(&out).raw_id.is_some());
    let mut files = vec![home.path().to_path_buf()];
    all_files(home.path(), &mut files);
    assert!(files.len() >= 4, "{files:?}");
    for p in files {
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        let want = if p.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode, want, "{} has mode {mode:o}", p.display());
    }
}

#[test]
fn concurrent_calls_each_get_a_row_and_gain_sums_the_receipts() {
    let home = tempfile::tempdir().unwrap();
    let jobs = [
        ("aws ec2 describe-vpcs", VPCS),
        ("aws ec2 describe-subnets", "fixtures/json/aws/ec2-describe-subnets.json"),
        ("aws iam list-roles", "fixtures/json/aws/iam-list-roles.json"),
        ("aws lambda get-function", "fixtures/json/aws/lambda-get-function.json"),
    ];
    // All 64 started before any is waited on, against a home with no
    // database yet: the first-run schema setup races too.
    let children: Vec<Child> =
        (0..64).map(|i| spawn_filter(home.path(), jobs[i % 4].0, jobs[i % 4].1)).collect();
    let outs: Vec<Output> = children.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    let (mut original, mut compressed) = (0, 0);
    for out in &outs {
        assert!(out.status.success());
        let lines = stderr_lines(out);
        assert_eq!(lines.len(), 1, "only the receipt on stderr, got {lines:?}");
        let r = receipt(out);
        assert!(r.raw_id.is_some());
        original += r.original;
        compressed += r.compressed;
    }
    let g = gain_json(home.path());
    assert_eq!(g["calls"], 64);
    assert_eq!(g["original_tokens"], original);
    assert_eq!(g["compressed_tokens"], compressed);
    assert_eq!(g["saved_tokens"], original - compressed);
    let by = g["by_command"].as_array().unwrap();
    assert_eq!(by.len(), 4);
    for row in by {
        assert_eq!(row["calls"], 16);
    }
    let cmds: Vec<&str> = by.iter().map(|r| r["command"].as_str().unwrap()).collect();
    for (cmd, _) in jobs {
        assert!(cmds.contains(&cmd), "{cmd} missing from {cmds:?}");
    }

    let table = tokensieve(home.path()).args(["gain", "--since", "24h"]).output().unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("aws iam list-roles") && table.contains('█'), "{table}");
    assert!(table.lines().last().unwrap().starts_with("total "));
}

#[test]
fn rows_keep_the_subcommand_and_exit_code_but_never_flag_values() {
    let home = tempfile::tempdir().unwrap();
    assert!(filter(home.path(), "aws ec2 describe-vpcs", VPCS).status.success());
    // Hold the database open so the WAL file survives for inspection.
    let db = rusqlite::Connection::open(home.path().join("history.db")).unwrap();
    let _: i64 = db.query_row("SELECT count(*) FROM calls", [], |r| r.get(0)).unwrap();
    let out = tokensieve(home.path())
        .args(["--cmd", "aws ec2 describe-vpcs --secret-token hunter2xyz --key=hunter2xyz", "--exit", "3"])
        .stdin(fs::File::open(fixture(VPCS)).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let bare = tokensieve(home.path()).stdin(fs::File::open(fixture(VPCS)).unwrap()).output().unwrap();
    assert!(bare.status.success());

    let mut files = Vec::new();
    all_files(home.path(), &mut files);
    assert!(files.iter().any(|p| p.to_string_lossy().ends_with("-wal")), "{files:?}");
    for p in files.iter().filter(|p| p.is_file()) {
        let bytes = fs::read(p).unwrap();
        assert!(!bytes.windows(10).any(|w| w == b"hunter2xyz"), "secret found in {}", p.display());
    }
    let rows: Vec<(String, String, i64)> = db
        .prepare("SELECT tool, subcommand, exit_code FROM calls ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        rows,
        vec![
            ("aws".into(), "ec2 describe-vpcs".into(), 0),
            ("aws".into(), "ec2 describe-vpcs".into(), 3),
            ("-".into(), "".into(), 0),
        ]
    );
}

#[test]
fn a_corrupt_history_costs_one_warning_and_gain_says_how_to_fix_it() {
    let clean = tempfile::tempdir().unwrap();
    let expected = filter(clean.path(), "aws ec2 describe-vpcs", VPCS);

    let home = tempfile::tempdir().unwrap();
    let garbage: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    fs::write(home.path().join("history.db"), &garbage).unwrap();
    let out = filter(home.path(), "aws ec2 describe-vpcs", VPCS);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, expected.stdout);
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("[TokenSieve]") && lines[0].contains("raw: "), "{lines:?}");
    assert!(lines[1].starts_with("tokensieve: warning: ") && lines[1].contains("corrupt"), "{lines:?}");

    for args in [&["gain"][..], &["gain", "--json"]] {
        let g = tokensieve(home.path()).args(args).output().unwrap();
        assert_eq!(g.status.code(), Some(1));
        assert!(g.stdout.is_empty());
        let err = stderr_lines(&g);
        assert_eq!(err.len(), 1, "{err:?}");
        assert!(err[0].contains("corrupt") && err[0].contains("move it aside"), "{err:?}");
    }
    // The fix works: move it aside and the next call starts a new history.
    fs::rename(home.path().join("history.db"), home.path().join("history.db.corrupt")).unwrap();
    assert_eq!(stderr_lines(&filter(home.path(), "aws ec2 describe-vpcs", VPCS)).len(), 1);
    assert_eq!(gain_json(home.path())["calls"], 1);
}

#[test]
fn an_unwritable_home_costs_one_warning_not_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("a-file");
    fs::write(&blocker, "not a folder").unwrap();
    let home = blocker.join("home");
    let out = filter(&home, "aws ec2 describe-vpcs", VPCS);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, fs::read(fixture(VPCS)).unwrap(), "nothing kept, so nothing left out");
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(!lines[0].contains("raw: "), "nothing was stored: {lines:?}");
    assert!(lines[1].starts_with("tokensieve: warning: "), "{lines:?}");
}

#[test]
fn eviction_keeps_the_store_under_its_cap() {
    let home = tempfile::tempdir().unwrap();
    let files = [
        "fixtures/json/aws/ec2-describe-vpcs.json",
        "fixtures/json/aws/ec2-describe-subnets.json",
        "fixtures/json/aws/iam-list-roles.json",
        "fixtures/json/aws/lambda-get-function.json",
        "fixtures/json/aws/iam-list-users.json",
        "fixtures/json/aws/cloudwatch-describe-alarms.json",
    ];
    let cap: u64 = 4000;
    let mut ids = Vec::new();
    for f in files {
        let out = tokensieve(home.path())
            .env("TOKENSIEVE_STORE_MAX_BYTES", cap.to_string())
            .args(["--cmd", "aws x"])
            .stdin(fs::File::open(fixture(f)).unwrap())
            .output()
            .unwrap();
        assert_eq!(stderr_lines(&out).len(), 1, "{:?}", stderr_lines(&out));
        ids.push(receipt(&out).raw_id.unwrap());
        let used = objects_bytes(home.path());
        assert!(used <= cap, "store holds {used} bytes, cap {cap}");
    }
    let first = tokensieve(home.path()).args(["show", &ids[0]]).output().unwrap();
    assert_eq!(first.status.code(), Some(1));
    assert!(first.stdout.is_empty());
    let err = String::from_utf8(first.stderr).unwrap();
    assert!(err.contains(&ids[0]) && err.contains("evicted"), "{err}");
    assert_eq!(err.lines().count(), 1);

    let last = tokensieve(home.path()).args(["show", ids.last().unwrap()]).output().unwrap();
    assert!(last.status.success());
    assert_eq!(last.stdout, fs::read(fixture(files[files.len() - 1])).unwrap());

    let unknown = tokensieve(home.path()).args(["show", "0123456789ab"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(1));
    let err = String::from_utf8(unknown.stderr).unwrap();
    assert!(err.contains("never stored"), "{err}");

    // Larger than the whole cap: not stored, so delivered whole (nothing
    // left out that could not be recovered), and a warning says why.
    let big = tokensieve(home.path())
        .env("TOKENSIEVE_STORE_MAX_BYTES", "100")
        .stdin(fs::File::open(fixture(VPCS)).unwrap())
        .output()
        .unwrap();
    assert_eq!(big.stdout, fs::read(fixture(VPCS)).unwrap());
    assert_eq!(stderr_lines(&big).len(), 2);
    assert!(receipt(&big).raw_id.is_none());
}

#[test]
fn an_evicted_id_is_known_even_without_the_eviction_log() {
    let home = tempfile::tempdir().unwrap();
    let id = receipt(&filter(home.path(), "aws ec2 describe-vpcs", VPCS)).raw_id.unwrap();
    // Removed behind our back (or its log rotated away): history still knows.
    fs::remove_dir_all(home.path().join("objects")).unwrap();
    let out = tokensieve(home.path()).args(["show", &id]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().contains("evicted"));
}

#[test]
fn show_rejects_what_is_not_an_id() {
    let home = tempfile::tempdir().unwrap();
    let out = tokensieve(home.path()).args(["show", "../../etc/passwd"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr).unwrap().contains("not a raw output id"));
    let out = tokensieve(home.path()).args(["gain", "--since", "yesterday"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_large_text_summary_points_at_the_stored_raw_output() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("server.log");
    let mut text: String = (0..400)
        .map(|i| format!("2024-01-01T00:00:{:02} INFO worker {i} processed item {} ok\n", i % 60, i * 7))
        .collect();
    text.push_str("ERROR: disk quota exceeded on /var/data\n");
    fs::write(&log, &text).unwrap();
    let out = tokensieve(home.path())
        .args(["--cmd", "myserver logs"])
        .stdin(fs::File::open(&log).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let id = receipt(&out).raw_id.expect("summarised text keeps its raw output");
    let summary = String::from_utf8(out.stdout).unwrap();
    let note = summary.lines().find(|l| l.starts_with("full output: ")).expect("a pointer to the raw output");
    assert!(note.starts_with(&format!("full output: tokensieve show {id}  (file: ")), "{note}");
    let path = note.rsplit_once("(file: ").unwrap().1.trim_end_matches(')');
    assert_eq!(fs::read_to_string(path).unwrap(), text);
}

#[test]
fn the_size_ledger_matches_the_objects_and_a_garbled_one_is_recounted() {
    let home = tempfile::tempdir().unwrap();
    let files = [
        "fixtures/json/aws/ec2-describe-vpcs.json",
        "fixtures/json/aws/ec2-describe-subnets.json",
        "fixtures/json/aws/iam-list-roles.json",
    ];
    let ledger = home.path().join("objects.size");
    let run = |f: &str| {
        let out = tokensieve(home.path())
            .env("TOKENSIEVE_STORE_MAX_BYTES", "3000")
            .args(["--cmd", "aws x"])
            .stdin(fs::File::open(fixture(f)).unwrap())
            .output()
            .unwrap();
        assert_eq!(stderr_lines(&out).len(), 1, "{:?}", stderr_lines(&out));
    };
    let counted =
        || -> u64 { fs::read_to_string(&ledger).unwrap().split(' ').next().unwrap().parse().unwrap() };
    run(files[0]);
    run(files[1]);
    assert_eq!(counted(), objects_bytes(home.path()));
    fs::write(&ledger, "not a number").unwrap();
    run(files[2]);
    assert_eq!(counted(), objects_bytes(home.path()));
    assert!(objects_bytes(home.path()) <= 3000);
}

#[test]
fn a_locked_history_costs_one_warning_after_the_busy_timeout() {
    let home = tempfile::tempdir().unwrap();
    let first = filter(home.path(), "aws ec2 describe-vpcs", VPCS);
    assert_eq!(stderr_lines(&first).len(), 1);
    // Another writer holds the database past our 5 s busy timeout.
    let db = rusqlite::Connection::open(home.path().join("history.db")).unwrap();
    db.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let out = filter(home.path(), "aws ec2 describe-vpcs", VPCS);
    db.execute_batch("ROLLBACK").unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, first.stdout);
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].starts_with("tokensieve: warning: ") && lines[1].contains("locked"), "{lines:?}");
    assert_eq!(gain_json(home.path())["calls"], 1);
}

#[test]
fn an_uncompressed_call_is_recorded_but_not_stored() {
    let home = tempfile::tempdir().unwrap();
    let input = home.path().join("small.txt");
    fs::write(&input, "merged pull request #7\n").unwrap();
    let out = tokensieve(home.path())
        .args(["--cmd", "gh api"])
        .stdin(fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"merged pull request #7\n");
    let r = receipt(&out);
    assert!(r.raw_id.is_none(), "the agent saw every byte: nothing to keep");
    assert_eq!(r.original, r.compressed);
    assert!(!home.path().join("objects").exists());
    let g = gain_json(home.path());
    assert_eq!((g["calls"].as_u64(), g["saved_tokens"].as_u64()), (Some(1), Some(0)));
    assert_eq!(g["by_command"][0]["command"], "gh api");
}
