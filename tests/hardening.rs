//! Issue 13: hostile input, a user's files, and "nothing lost" when the home
//! fails. Each test is named after a failure found by hand and runs the real
//! binary in a temp home.

mod common;

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{BIN, receipt_raw_id};

const VPCS: &str = "fixtures/json/aws/ec2-describe-vpcs.json";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The binary with a private home and none of the user's tuning.
fn tokensieve(home: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE_STORE_MAX_BYTES")
        .env_remove("TOKENSIEVE_TOKENIZER")
        .env_remove("TOKENSIEVE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Filter mode on `input` with a command hint.
fn filter_bytes(home: &Path, input: &[u8], extra: &[(&str, &str)]) -> Output {
    let mut c = tokensieve(home);
    c.args(["--cmd", "aws ec2 describe-vpcs"]).stdin(Stdio::piped());
    for (k, v) in extra {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
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
