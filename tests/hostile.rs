//! Hostile repositories, remotes and clients (issue 25), with real
//! processes: a project file that is a `/proc` file, a FIFO, 100 MB, or
//! someone else's; a Git LFS server (tests/hostile/lfs_stub.py on
//! 127.0.0.1) that streams forever, stalls, names odd oids, answers for
//! objects nobody asked for, redirects with headers; an MCP client that
//! pings during a long `run`, cancels it, sends garbage, closes stdin and
//! kills the server. Every case: ends within its bound, peak RSS within
//! 64 MB of a trivial call's, no panic, no process left behind, the store
//! untouched, one clear stderr line.

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod common;
use common::*;

/// RSS a case may add over the baseline (a trivial call of the binary).
const RSS_SLACK_KB: i64 = 64 * 1024;

/// Kills a process group when dropped (a failed assertion included).
struct GroupGuard(i32);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        // SAFETY: signalling a process group this test created.
        unsafe { libc::kill(-self.0, libc::SIGKILL) };
    }
}

struct Measured {
    out: Output,
    rss_kb: i64,
    took: Duration,
}

impl Measured {
    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }

    fn stderr_lines(&self) -> Vec<String> {
        self.stderr().lines().map(str::to_owned).collect()
    }
}

/// Runs `cmd` in its own process group, measuring its peak RSS (wait4)
/// and time; past `limit` the group is killed and the test fails. No panic
/// (exit 101) is accepted.
// reaped by wait4 below, which std's `Child` does not know of
#[allow(clippy::zombie_processes)]
fn measured(cmd: &mut Command, limit: Duration) -> Measured {
    cmd.process_group(0).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap();
    let pid = child.id() as i32;
    let _group = GroupGuard(pid);
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let (status, rss_kb) = loop {
        let mut status = 0;
        // SAFETY: wait4 on our own child into zeroed memory.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break (status, usage.ru_maxrss);
        }
        assert!(started.elapsed() < limit, "still running after {limit:?}: {cmd:?}");
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = started.elapsed();
    drop(_group);
    use std::os::unix::process::ExitStatusExt;
    let out = Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    let m = Measured { out, rss_kb, took };
    assert_ne!(m.out.status.code(), Some(101), "a panic: {}", m.stderr());
    assert!(!m.stderr().contains("panicked"), "a panic: {}", m.stderr());
    m
}

/// Peak RSS of a trivial call of the binary.
fn baseline_kb(home: &Path) -> i64 {
    measured(tokensieve_in(home).args(["config", "path"]), Duration::from_secs(30)).rss_kb
}

fn assert_bounded(m: &Measured, base_kb: i64, limit: Duration, case: &str) {
    assert!(m.took <= limit, "{case}: took {:?} (bound {limit:?})", m.took);
    assert!(m.rss_kb <= base_kb + RSS_SLACK_KB, "{case}: peak RSS {} KiB, baseline {base_kb} KiB", m.rss_kb);
}

/// Pids whose command line holds `marker`.
fn processes_with(marker: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    for e in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(cmdline) = fs::read(e.path().join("cmdline")) else { continue };
        let stat = fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // a zombie has no command line left and holds nothing
        if stat.rsplit(')').next().is_some_and(|s| s.trim_start().starts_with('Z')) {
            continue;
        }
        if String::from_utf8_lossy(&cmdline).replace('\0', " ").contains(marker) {
            pids.push(pid);
        }
    }
    pids
}

/// Waits up to `limit` for no process to hold `marker`.
fn assert_no_process_with(marker: &str, limit: Duration, case: &str) {
    let started = Instant::now();
    while started.elapsed() < limit {
        if processes_with(marker).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = processes_with(marker);
    for p in &left {
        // SAFETY: ending what the case left, so the suite goes on clean.
        unsafe { libc::kill(*p, libc::SIGKILL) };
    }
    panic!("{case}: processes left behind: {left:?}");
}

/// Every object file in a home's store, with its bytes.
fn store_snapshot(home: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    let Ok(dirs) = fs::read_dir(home.join("objects")) else { return all };
    for d in dirs.flatten().filter(|d| d.path().is_dir()) {
        for f in fs::read_dir(d.path()).unwrap().flatten() {
            let name = format!("{}{}", d.file_name().to_string_lossy(), f.file_name().to_string_lossy());
            if name.len() == 64 {
                all.push((name, fs::read(f.path()).unwrap()));
            }
        }
    }
    all.sort();
    all
}

/// Stores `bytes` as a raw output in `home` (filter mode); its sha256.
fn capture(home: &Path, bytes: &[u8], extra: &[(&str, &str)]) -> String {
    let mut c = tokensieve_in(home);
    c.args(["--cmd", "aws ec2 describe-vpcs"]);
    for (k, v) in extra {
        c.env(k, v);
    }
    let out = pipe_through(&mut c, bytes);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    tokensieve::store::hash_hex(bytes)
}

fn pipe_through(c: &mut Command, bytes: &[u8]) -> Output {
    let mut child = c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let bytes = bytes.to_vec();
    let feed = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = wait_within(child, Duration::from_secs(60));
    let _ = feed.join();
    out
}

/// A JSON document of about `n` bytes, distinct per `seed`.
fn document(seed: usize, n: usize) -> Vec<u8> {
    let rows: Vec<String> =
        (0..n / 40).map(|i| format!("{{\"VpcId\":\"vpc-{seed}-{i:08}\",\"State\":\"ok\"}}")).collect();
    format!("{{\"Vpcs\":[{}]}}\n", rows.join(",")).into_bytes()
}

// --- project files -------------------------------------------------------

/// A project folder whose `.tokensieve.toml` is made by `plant`.
fn project(sb: &Sandbox, plant: impl FnOnce(&Path)) -> PathBuf {
    let dir = sb.path("project");
    fs::create_dir_all(&dir).unwrap();
    plant(&dir.join(".tokensieve.toml"));
    dir
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// `tokensieve run -- echo …` in a project with a hostile settings file:
/// the output, one warning line naming the file, bounded time and memory.
fn run_in_hostile_project(case: &str, plant: impl FnOnce(&Path), why: &str) {
    let sb = Sandbox::new();
    let base = baseline_kb(&sb.home);
    let dir = project(&sb, plant);
    let m = measured(
        sb.cmd(BIN).current_dir(&dir).args(["run", "--", "echo", "hello from the tool"]),
        Duration::from_secs(60),
    );
    assert_bounded(&m, base, Duration::from_secs(5), case);
    assert!(m.out.status.success(), "{case}: {}", m.stderr());
    assert!(String::from_utf8_lossy(&m.out.stdout).contains("hello from the tool"), "{case}");
    let warnings: Vec<String> =
        m.stderr_lines().into_iter().filter(|l| l.contains(".tokensieve.toml")).collect();
    assert_eq!(warnings.len(), 1, "{case}: one clear line: {}", m.stderr());
    assert!(warnings[0].contains(why), "{case}: {warnings:?}");
}

#[test]
fn a_project_file_linked_to_proc_self_pagemap_is_refused_in_one_line() {
    run_in_hostile_project(
        "pagemap",
        |p| std::os::unix::fs::symlink("/proc/self/pagemap", p).unwrap(),
        "kernel pseudo-file",
    );
}

#[test]
fn a_project_file_that_is_a_fifo_is_refused_without_blocking() {
    run_in_hostile_project("fifo", mkfifo, "not a regular file");
}

#[test]
fn a_project_file_of_a_hundred_megabytes_is_refused_unread() {
    run_in_hostile_project(
        "100 MB",
        |p| {
            let f = fs::File::create(p).unwrap();
            f.set_len(100 << 20).unwrap();
        },
        "larger than 1024 KiB",
    );
}

#[test]
fn a_group_writable_project_file_is_ignored_in_one_line() {
    run_in_hostile_project(
        "group-writable",
        |p| {
            fs::write(p, "tokenizer = \"o200k\"\n").unwrap();
            fs::set_permissions(p, fs::Permissions::from_mode(0o664)).unwrap();
        },
        "writable by others",
    );
}

#[test]
fn a_project_file_owned_by_another_user_is_ignored_in_one_line() {
    // SAFETY: getuid cannot fail.
    if unsafe { libc::getuid() } != 0 {
        eprintln!("note: not root, cannot give a file to another uid; case skipped");
        return;
    }
    run_in_hostile_project(
        "another uid",
        |p| {
            fs::write(p, "tokenizer = \"o200k\"\n").unwrap();
            std::os::unix::fs::chown(p, Some(65534), Some(65534)).unwrap();
        },
        "owned by uid 65534",
    );
}

/// With no agent marker (or `TOKENSIEVE=off`) a shim execs the tool
/// untouched and opens no settings file: a FIFO planted as the project
/// file is never opened (a writer waiting on it stays blocked).
#[test]
fn a_passthrough_opens_no_project_file() {
    let sb = Sandbox::new();
    sb.shimmed("greet", "#!/bin/sh\necho hello\n");
    let dir = project(&sb, mkfifo);
    let fifo = dir.join(".tokensieve.toml");
    for (case, env) in [("no agent marker", None), ("TOKENSIEVE=off", Some(("TOKENSIEVE", "off")))] {
        let mut c =
            if env.is_some() { sb.agent(sb.shims.join("greet")) } else { sb.cmd(sb.shims.join("greet")) };
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        // A writer's open returns only once someone opens the FIFO to read.
        let (tx, rx) = mpsc::channel();
        let path = fifo.clone();
        let writer = std::thread::spawn(move || {
            let f = fs::OpenOptions::new().write(true).open(&path);
            let _ = tx.send(());
            f.is_ok()
        });
        let m = measured(c.current_dir(&dir), Duration::from_secs(30));
        assert!(m.out.status.success(), "{case}: {}", m.stderr());
        assert_eq!(String::from_utf8_lossy(&m.out.stdout), "hello\n", "{case}");
        assert!(m.stderr().is_empty(), "{case}: {}", m.stderr());
        std::thread::sleep(Duration::from_millis(200));
        assert!(rx.try_recv().is_err(), "{case}: the shim opened the project file");
        // release the writer
        let _ = fs::OpenOptions::new().read(true).custom_flags_nonblock().open(&fifo);
        writer.join().unwrap();
    }
}

trait NonBlock {
    fn custom_flags_nonblock(&mut self) -> &mut Self;
}

impl NonBlock for fs::OpenOptions {
    fn custom_flags_nonblock(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(libc::O_NONBLOCK)
    }
}

/// Issue 25's case 5: an untrusted project file set `store_max_bytes =
/// "120K"` and evicted the user's store.
#[test]
fn an_untrusted_project_file_cannot_cap_the_store() {
    let sb = Sandbox::new();
    let ids: Vec<String> = (0..3).map(|i| capture(&sb.home, &document(i, 60_000), &[])).collect();
    let before = store_snapshot(&sb.home);
    assert_eq!(before.len(), 3);
    let dir = project(&sb, |p| {
        fs::write(p, "store_max_bytes = \"120K\"\nbudget = 10\ntokenizer = \"o200k\"\n").unwrap();
        fs::set_permissions(p, fs::Permissions::from_mode(0o644)).unwrap();
    });
    let big = sb.path("big.json");
    fs::write(&big, document(9, 60_000)).unwrap();
    let m = measured(
        sb.cmd(BIN).current_dir(&dir).args(["run", "--", "cat", big.to_str().unwrap()]),
        Duration::from_secs(60),
    );
    assert!(m.out.status.success(), "{}", m.stderr());
    let after = store_snapshot(&sb.home);
    for obj in &before {
        assert!(after.contains(obj), "object {} lost", &obj.0[..12]);
    }
    let lines: Vec<String> =
        m.stderr_lines().into_iter().filter(|l| l.contains(".tokensieve.toml")).collect();
    assert_eq!(lines.len(), 1, "{}", m.stderr());
    assert!(
        lines[0].contains("budget, store_max_bytes") && lines[0].contains("tokensieve trust"),
        "{lines:?}"
    );
    let shown = sb.cmd(BIN).current_dir(&dir).args(["config", "show"]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.lines().any(|l| l.starts_with("tokenizer") && l.contains("o200k")), "{text}");
    drop(ids);
}

/// `show` on an evicted id names the cap that evicted it, not the one in
/// force when it is asked.
#[test]
fn show_of_an_evicted_id_cites_the_cap_that_evicted_it() {
    let sb = Sandbox::new();
    let cap = [("TOKENSIEVE_STORE_MAX_BYTES", "120K")];
    let first = capture(&sb.home, &document(1, 60_000), &cap);
    for i in 2..5 {
        capture(&sb.home, &document(i, 60_000), &cap);
    }
    let out = tokensieve_in(&sb.home).args(["show", &first[..12]]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("was evicted") && err.contains("122880 byte cap"), "{err}");
}

// --- a hostile Git LFS server ------------------------------------------------

/// git as tests/share.rs runs it, with no stdin.
fn git(dir: &Path) -> Command {
    let mut c = common::isolated_git(dir);
    c.stdin(Stdio::null());
    c
}

fn run_git(dir: &Path, args: &[&str], input: Option<&[u8]>) -> String {
    let mut c = git(dir);
    c.args(args);
    let out = match input {
        Some(bytes) => pipe_through(&mut c, bytes),
        None => c.output().unwrap(),
    };
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A bare remote whose `refs/tokensieve/manifests` lists `manifests`
/// (`sha256, size, id`), and a clone-like repository `b` using it, with
/// `lfs.url` at `lfs`.
struct Remote {
    dir: tempfile::TempDir,
}

impl Remote {
    fn new(manifests: &[(&str, &str, &str)]) -> Remote {
        let dir = tempfile::tempdir().unwrap();
        let remote = dir.path().join("remote.git");
        run_git(dir.path(), &["init", "-q", "--bare", "remote.git"], None);
        let mut entries = String::new();
        for (sha, size, id) in manifests {
            let json = format!(
                "{{\"format\":\"tokensieve-manifest/1\",\"sha256\":\"{sha}\",\"size\":{size},\"id\":\"{id}\"}}\n"
            );
            let blob = run_git(&remote, &["hash-object", "-w", "--stdin"], Some(json.as_bytes()));
            entries.push_str(&format!("100644 blob {blob}\t{sha}.json\n"));
        }
        let sub = run_git(&remote, &["mktree"], Some(entries.as_bytes()));
        let top = run_git(&remote, &["mktree"], Some(format!("040000 tree {sub}\tmanifests\n").as_bytes()));
        let commit = run_git(&remote, &["commit-tree", &top, "-m", "manifests"], None);
        run_git(&remote, &["update-ref", "refs/tokensieve/manifests", &commit], None);
        Remote { dir }
    }

    fn repo(&self, lfs_url: &str) -> PathBuf {
        let p = self.dir.path().join("b");
        fs::create_dir_all(&p).unwrap();
        run_git(&p, &["init", "-q"], None);
        let url = format!("file://{}", self.dir.path().join("remote.git").display());
        run_git(&p, &["remote", "add", "origin", &url], None);
        run_git(&p, &["config", "lfs.url", lfs_url], None);
        p
    }
}

/// The stub server (tests/hostile/lfs_stub.py) in one mode, killed on drop.
struct Stub {
    child: Child,
    port: u16,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Drop for Stub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Stub {
    fn start(mode: &str) -> Stub {
        let dir = tempfile::tempdir().unwrap();
        let port_file = dir.path().join("port");
        let log = dir.path().join("log");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/lfs_stub.py");
        let child = Command::new("python3")
            .arg(script)
            .args([mode, port_file.to_str().unwrap(), log.to_str().unwrap()])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let port = loop {
            if let Ok(p) = fs::read_to_string(&port_file) {
                break p.trim().parse().unwrap();
            }
            assert!(started.elapsed() < Duration::from_secs(30), "the stub LFS server did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        Stub { child, port, log, _dir: dir }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/lfs", self.port)
    }

    fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// `objects pull --backend lfs` (or `show ID`) against the stub in `mode`,
/// from a home that already holds one object: bounded, the store kept.
fn pull_from(mode: &str, manifests: &[(&str, &str, &str)], show: Option<&str>) -> (Measured, Stub) {
    let stub = Stub::start(mode);
    let remote = Remote::new(manifests);
    let repo = remote.repo(&stub.url());
    let home = remote.dir.path().join("home");
    capture(&home, &document(7, 5_000), &[]);
    let before = store_snapshot(&home);
    let base = baseline_kb(&home);
    let mut c = tokensieve_in(&home);
    c.current_dir(&repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("TOKENSIEVE_NET_STALL_SECS", "2")
        .env("TOKENSIEVE_STORE_MAX_BYTES", "32M")
        .env_remove("HTTP_PROXY")
        .env_remove("http_proxy")
        .env_remove("ALL_PROXY")
        .env_remove("all_proxy");
    match show {
        Some(id) => {
            run_git(&repo, &["config", "tokensieve.remote", "origin"], None);
            run_git(&repo, &["config", "tokensieve.backend", "lfs"], None);
            c.args(["show", id]);
        }
        None => {
            c.args(["objects", "pull", "--backend", "lfs"]);
        }
    }
    let m = measured(&mut c, Duration::from_secs(60));
    assert_bounded(&m, base, Duration::from_secs(20), mode);
    assert_eq!(store_snapshot(&home), before, "{mode}: the store changed");
    (m, stub)
}

const SHA_A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

fn one_failure_line(m: &Measured, mode: &str, want: &str) {
    let lines: Vec<String> = m
        .stderr_lines()
        .into_iter()
        .filter(|l| l.starts_with("tokensieve") && !l.contains("note:"))
        .collect();
    assert_eq!(lines.len(), 1, "{mode}: one clear line: {}", m.stderr());
    assert!(lines[0].contains(want), "{mode}: {lines:?}");
    assert_eq!(m.out.status.code(), Some(1), "{mode}: {}", m.stderr());
}

#[test]
fn a_server_streaming_forever_behind_a_huge_manifest_size_is_cut_at_the_cap() {
    let (m, _s) = pull_from("forever", &[(SHA_A, "1000000000000000", "aaaaaaaaaaaa")], None);
    one_failure_line(&m, "forever", "does not fit the store's cap");
    // the manifest claims less than the cap: the stream is cut at its size
    let (m, _s) = pull_from("forever", &[(SHA_A, "20000000", "aaaaaaaaaaaa")], None);
    one_failure_line(&m, "forever", "more than the 20000000 bytes");
    // lazily, through `show`
    let (m, _s) = pull_from("forever", &[(SHA_A, "20000000", "aaaaaaaaaaaa")], Some("aaaaaaaaaaaa"));
    one_failure_line(&m, "forever (show)", "more than the 20000000 bytes");
}

#[test]
fn a_manifest_size_of_u64_max_is_refused_without_overflow() {
    let (m, _s) = pull_from("forever", &[(SHA_A, "18446744073709551615", "aaaaaaaaaaaa")], None);
    one_failure_line(&m, "u64::MAX", "does not fit the store's cap");
}

#[test]
fn a_server_that_stalls_after_its_headers_times_out() {
    let (m, _s) = pull_from("stall-batch", &[(SHA_A, "10", "aaaaaaaaaaaa")], None);
    let err = m.stderr();
    assert!(matches!(m.out.status.code(), Some(1 | 2)), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("timeout") || err.contains("timed out"), "{err}");
    let (m, _s) = pull_from("stall-body", &[(SHA_A, "100", "aaaaaaaaaaaa")], None);
    one_failure_line(&m, "stall-body", "cannot download aaaaaaaaaaaa");
    let (m, _s) = pull_from("stall-body", &[(SHA_A, "100", "aaaaaaaaaaaa")], Some("aaaaaaaaaaaa"));
    one_failure_line(&m, "stall-body (show)", "cannot download aaaaaaaaaaaa");
}

#[test]
fn short_and_non_hex_oids_from_a_server_cause_no_panic() {
    let (m, _s) = pull_from("bad-oids", &[(SHA_A, "10", "aaaaaaaaaaaa")], None);
    one_failure_line(&m, "bad-oids", "has no copy of raw output aaaaaaaaaaaa");
    let (m, _s) = pull_from("bad-oids", &[(SHA_A, "10", "aaaaaaaaaaaa")], Some("aaaa"));
    one_failure_line(&m, "bad-oids (show)", "has no copy of raw output aaaaaaaaaaaa");
}

#[test]
fn an_object_the_client_did_not_ask_for_is_ignored_with_a_note() {
    let (m, stub) = pull_from("unrequested", &[(SHA_A, "100", "aaaaaaaaaaaa")], None);
    assert!(!stub.log().contains("other fetched"), "the unrequested object was fetched");
    let notes: Vec<String> = m.stderr_lines().into_iter().filter(|l| l.contains("note:")).collect();
    assert_eq!(notes.len(), 1, "{}", m.stderr());
    assert!(notes[0].contains("did not ask for"), "{notes:?}");
}

#[test]
fn a_redirect_to_another_host_carries_no_header_of_the_action() {
    let (m, stub) = pull_from("redirect", &[(SHA_A, "100", "aaaaaaaaaaaa")], None);
    assert_eq!(m.out.status.code(), Some(1), "{}", m.stderr());
    let log = stub.log();
    assert!(log.contains("elsewhere"), "the redirect was not followed: {log}");
    assert!(!log.contains("secret-auth") && !log.contains("secret-custom"), "{log}");
}

#[test]
fn a_manifest_id_with_terminal_escapes_is_printed_escaped() {
    let (m, _s) = pull_from("bad-oids", &[(SHA_A, "10", "\\u001b]0;pwned\\u0007")], None);
    let err = m.stderr();
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
    assert!(err.contains("\\u{1b}]0;pwned"), "{err}");
}

#[test]
fn a_git_ref_blob_larger_than_its_manifest_is_not_read_whole() {
    // a 40 MB blob behind a 6-byte manifest, on the git-ref backend
    let big: Vec<u8> = (0..40u32 << 20).map(|i| (i % 251) as u8).collect();
    let sha = tokensieve::store::hash_hex(&big);
    let remote = Remote::new(&[(&sha, "6", &sha[..12])]);
    let bare = remote.dir.path().join("remote.git");
    let blob = run_git(&bare, &["hash-object", "-w", "--stdin"], Some(&big));
    run_git(&bare, &["update-ref", &format!("refs/tokensieve/blobs/{sha}"), &blob], None);
    drop(big);
    let repo = remote.repo("http://127.0.0.1:9/unused");
    let home = remote.dir.path().join("home");
    capture(&home, &document(3, 5_000), &[]);
    let before = store_snapshot(&home);
    let base = baseline_kb(&home);
    let mut c = tokensieve_in(&home);
    c.current_dir(&repo).env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").args([
        "objects",
        "pull",
        "--backend",
        "git-ref",
    ]);
    let m = measured(&mut c, Duration::from_secs(60));
    assert_bounded(&m, base, Duration::from_secs(30), "git-ref blob");
    one_failure_line(&m, "git-ref blob", "over the 6-byte cap");
    assert_eq!(store_snapshot(&home), before);
}

// --- a hostile MCP client ----------------------------------------------------

/// `tokensieve mcp` with a line-based JSON-RPC client.
struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    _home: tempfile::TempDir,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mcp {
    fn start() -> Mcp {
        let home = tempfile::tempdir().unwrap();
        let mut child = tokensieve_in(home.path())
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut m = Mcp { child, stdin, lines, _home: home };
        m.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#);
        m.reply(0, Duration::from_secs(30));
        m.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        m
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next message whose id is `id` (others are skipped).
    fn reply(&self, id: i64, limit: Duration) -> serde_json::Value {
        self.reply_matching(|v| v["id"] == id, limit)
    }

    fn reply_matching(
        &self,
        want: impl Fn(&serde_json::Value) -> bool,
        limit: Duration,
    ) -> serde_json::Value {
        let until = Instant::now() + limit;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| panic!("no answer within {limit:?}"));
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if want(&v) {
                return v;
            }
        }
    }

    fn run(&mut self, id: i64, command: &str) {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "run", "arguments": {"command": command}}});
        self.send(&call.to_string());
    }

    fn exited_within(&mut self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// A long command through `sh -c` (its own children included), named by
/// a marker no other process has.
fn long_command(marker: &str) -> String {
    format!("sleep {marker} | cat")
}

fn marker(case: u32) -> String {
    format!("{}.{case}{}", 400 + std::process::id() % 100, 1000 + case)
}

#[test]
fn mcp_answers_ping_and_tools_list_while_a_command_runs_and_cancel_ends_it() {
    let mut m = Mcp::start();
    let mark = marker(1);
    m.run(1, &long_command(&mark));
    std::thread::sleep(Duration::from_millis(500));
    let at = Instant::now();
    m.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    m.reply(2, Duration::from_secs(5));
    m.send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#);
    let tools = m.reply(3, Duration::from_secs(5));
    assert!(at.elapsed() < Duration::from_secs(5), "{:?}", at.elapsed());
    let run =
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "run").unwrap().clone();
    assert!(run["description"].as_str().unwrap().contains("with the user's rights"), "{run}");
    assert!(!processes_with(&mark).is_empty(), "the command is not running");
    m.send(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}"#,
    );
    assert_no_process_with(&mark, Duration::from_secs(10), "cancel");
    // still serving
    m.send(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    m.reply(4, Duration::from_secs(5));
}

#[test]
fn mcp_run_times_out_with_what_it_printed() {
    let mut m = Mcp::start();
    let mark = marker(2);
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "run", "arguments": {"command": format!("echo started; sleep {mark}"), "timeout_secs": 2}}});
    m.send(&call.to_string());
    let r = m.reply(1, Duration::from_secs(30));
    let text = r["result"]["content"].to_string();
    assert!(text.contains("started"), "{r}");
    assert!(text.contains("timed out after 2 s"), "{r}");
    assert_no_process_with(&mark, Duration::from_secs(10), "timeout");
}

#[test]
fn mcp_answers_malformed_json_with_a_parse_error() {
    let mut m = Mcp::start();
    m.send("{this is not json");
    let r = m.reply_matching(|v| v.get("error").is_some(), Duration::from_secs(5));
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(r["id"].is_null(), "{r}");
    m.send(r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    m.reply(5, Duration::from_secs(5));
}

#[test]
fn mcp_exits_when_stdin_closes_and_ends_a_running_command() {
    let mut m = Mcp::start();
    let mark = marker(3);
    m.run(1, &long_command(&mark));
    std::thread::sleep(Duration::from_millis(500));
    assert!(!processes_with(&mark).is_empty(), "the command is not running");
    drop(m.stdin.take());
    assert!(m.exited_within(Duration::from_secs(5)), "the server outlived its stdin");
    assert_no_process_with(&mark, Duration::from_secs(5), "stdin closed");
}

#[test]
fn mcp_killed_leaves_no_process_behind() {
    let mut m = Mcp::start();
    let mark = marker(4);
    m.run(1, &long_command(&mark));
    let started = Instant::now();
    while processes_with(&mark).is_empty() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!processes_with(&mark).is_empty(), "the command is not running");
    m.child.kill().unwrap();
    m.child.wait().unwrap();
    assert_no_process_with(&mark, Duration::from_secs(5), "server killed");
}

/// A transcript whose second line is `len` bytes of one JSON string (no
/// line end when `len` is `None`: written forever into a FIFO).
fn transcript_case(case: &str, verb: &[&str], long: Option<usize>) {
    let sb = Sandbox::new();
    let base = baseline_kb(&sb.home);
    let path = sb.dir.path().join("session.jsonl");
    let first = r#"{"type":"user","message":{"role":"user","content":"hello"}}"#;
    let script = match long {
        Some(len) => {
            let mut f = std::io::BufWriter::new(fs::File::create(&path).unwrap());
            writeln!(f, "{first}").unwrap();
            f.write_all(br#"{"type":"user","message":{"role":"user","content":""#).unwrap();
            let chunk = vec![b'a'; 1 << 20];
            for _ in 0..len >> 20 {
                f.write_all(&chunk).unwrap();
            }
            f.write_all(b"\"}}\n").unwrap();
            writeln!(f, "{first}").unwrap();
            f.flush().unwrap();
            r#"exec "$0" "$@" < "$TRANSCRIPT""#
        }
        None => {
            mkfifo(&path);
            // the writer streams one endless line into the FIFO
            r#"(printf '%s\n' "$FIRST"; yes a | tr -d '\n') > "$TRANSCRIPT" & exec "$0" "$@" < "$TRANSCRIPT""#
        }
    };
    let mut cmd = sb.cmd("sh");
    cmd.arg("-c").arg(script).arg(BIN).args(verb).env("TRANSCRIPT", &path).env("FIRST", first);
    let m = measured(&mut cmd, Duration::from_secs(60));
    assert_bounded(&m, base, Duration::from_secs(30), case);
    let notes: Vec<String> =
        m.stderr_lines().into_iter().filter(|l| l.contains("line 2 of the transcript")).collect();
    assert_eq!(notes.len(), 1, "{case}: one clear line: {}", m.stderr());
    match long {
        Some(_) => {
            assert!(notes[0].contains("longer than 16 MiB: skipped"), "{case}: {}", m.stderr());
            assert!(m.out.status.success(), "{case}: {}", m.stderr());
        }
        None => {
            assert!(notes[0].contains("without a line end: stopped"), "{case}: {}", m.stderr());
            assert!(!m.out.status.success(), "{case}: {}", m.stderr());
        }
    }
}

#[test]
fn session_compact_skips_a_100_mb_transcript_line() {
    transcript_case("session compact, 100 MB line", &["session", "compact"], Some(100 << 20));
}

#[test]
fn session_compact_stops_on_an_endless_line_from_a_fifo() {
    transcript_case("session compact, endless FIFO line", &["session", "compact"], None);
}
