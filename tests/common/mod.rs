//! Shared set-up for the shim tests: a temp dir with a shim folder (symlinks
//! named like tools, pointing at the built binary) first on PATH, a folder of
//! small real tool scripts after it, and TOKENSIEVE_HOME inside the temp dir.
#![allow(dead_code)]

pub mod aws;
pub mod json_views;

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output};
use std::time::{Duration, Instant};

use tokensieve::shim::policy;

pub const BIN: &str = env!("CARGO_BIN_EXE_tokensieve");

/// A settings file with a syntax error, an unknown key and a bad value.
pub const BROKEN_CONFIG: &str = "budget = 9000\nbugdet = 1\ndedup = \"lots\"\n[tool.aws\nenabled = false\n";

/// Variables that would change the policy if the test runner had them:
/// the agent markers (the policy's own list) and ours.
fn policy_vars() -> impl Iterator<Item = &'static str> {
    let ours =
        ["TOKENSIEVE", "TOKENSIEVE_DEPTH", "TOKENSIEVE_SHIMS", "TOKENSIEVE_DEBUG", "TOKENSIEVE_RECEIPT"];
    policy::AGENT_MARKERS.iter().copied().chain([policy::CURSOR_ROLE]).chain(ours)
}

pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub shims: PathBuf,
    pub tools: PathBuf,
    pub home: PathBuf,
    /// Folders placed before `shims` on PATH (extra shim folders).
    pub front: Vec<PathBuf>,
}

/// A test that fails (or a tool that outlives its test) leaves nothing
/// running: every process whose command line names the sandbox (its tools
/// are scripts in it) is killed when the sandbox goes.
impl Drop for Sandbox {
    fn drop(&mut self) {
        let dir = self.dir.path().to_string_lossy().into_owned();
        let Ok(procs) = fs::read_dir("/proc") else { return };
        for e in procs.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else { continue };
            let Ok(cmdline) = fs::read(e.path().join("cmdline")) else { continue };
            if pid as u32 != std::process::id() && String::from_utf8_lossy(&cmdline).contains(&dir) {
                // SAFETY: ending a process this test started (it runs a
                // script of the test's own temporary folder).
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let shims = dir.path().join("shims");
        let tools = dir.path().join("tools");
        let home = dir.path().join("home");
        for d in [&shims, &tools, &home] {
            fs::create_dir_all(d).unwrap();
        }
        // `TOKENSIEVE_TEST_BROKEN_CONFIG=1 cargo test --test shim`: the same
        // matrix with a settings file that does not parse in every home
        // (scripts/test.sh runs it so): a bad file must never cost a command.
        if std::env::var_os("TOKENSIEVE_TEST_BROKEN_CONFIG").is_some() {
            fs::write(home.join("config.toml"), BROKEN_CONFIG).unwrap();
        }
        Sandbox { dir, shims, tools, home, front: Vec::new() }
    }

    /// `shims/NAME -> tokensieve`.
    pub fn shim(&self, name: &str) -> PathBuf {
        let link = self.shims.join(name);
        symlink(BIN, &link).unwrap();
        link
    }

    /// A real tool: an executable script `tools/NAME`.
    pub fn tool(&self, name: &str, script: &str) -> PathBuf {
        let path = self.tools.join(name);
        fs::write(&path, script).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// A tool script and its shim.
    pub fn shimmed(&self, name: &str, script: &str) -> PathBuf {
        self.tool(name, script);
        self.shim(name)
    }

    pub fn path_var(&self) -> OsString {
        let mut dirs: Vec<PathBuf> = self.front.clone();
        dirs.push(self.shims.clone());
        dirs.push(self.tools.clone());
        dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        std::env::join_paths(dirs).unwrap()
    }

    /// A command with our PATH and home, and no policy variables from outside.
    pub fn cmd(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        for v in policy_vars() {
            cmd.env_remove(v);
        }
        cmd.env("PATH", self.path_var()).env("TOKENSIEVE_HOME", &self.home);
        cmd
    }

    /// Same, as an agent would run it. The receipt is the long form, whose
    /// fields the tests read (`short_receipts` in tests/shim.rs checks what
    /// an agent gets by default).
    pub fn agent(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = self.cmd(program);
        cmd.env("CLAUDECODE", "1").env("TOKENSIEVE_RECEIPT", "long");
        cmd
    }

    /// `bash -c SCRIPT` as an agent (the agent reads bash's stdout).
    pub fn agent_bash(&self, script: &str) -> Command {
        let mut cmd = self.agent("bash");
        cmd.arg("-c").arg(script);
        cmd
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

/// `stderr` without the one warning line a broken settings file gives when
/// the matrix runs with one (`TOKENSIEVE_TEST_BROKEN_CONFIG`), which must
/// then be there exactly once; otherwise `stderr` as it is.
pub fn without_config_warning(stderr: &[u8]) -> Vec<u8> {
    if std::env::var_os("TOKENSIEVE_TEST_BROKEN_CONFIG").is_none() {
        return stderr.to_vec();
    }
    let text = String::from_utf8_lossy(stderr);
    let is_warning = |l: &str| l.starts_with("tokensieve: warning: ") && l.contains("config.toml:");
    assert_eq!(text.lines().filter(|l| is_warning(l)).count(), 1, "{text}");
    text.split_inclusive('\n').filter(|l| !is_warning(l)).collect::<String>().into_bytes()
}

/// A folder scripts/test.sh prepares once and names in `var` (the aws venv,
/// the agent CLIs). Unset: the test is skipped with a note, except under CI,
/// where it must be there.
pub fn prepared_dir(var: &str, what: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ if std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false") => {
            panic!("{var} is not set in CI: run the tests through scripts/test.sh")
        }
        _ => {
            eprintln!("note: {var} unset, {what} skipped (scripts/test.sh sets it)");
            None
        }
    }
}

/// The receipt line on stderr, if any: the long form a person reads, or
/// the short one an agent reads (`[tokensieve 728→238 raw 9439d8]`).
pub fn receipt(stderr: &[u8]) -> Option<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .find(|l| l.starts_with("[TokenSieve]") || l.starts_with("[tokensieve "))
        .map(str::to_owned)
}

/// One field of the receipt on `stderr` (`raw`, `Shape`, `Original`...),
/// as written after `NAME: `.
pub fn receipt_field(stderr: &str, name: &str) -> Option<String> {
    let line = receipt(stderr.as_bytes())?;
    let prefix = format!("{name}: ");
    line.trim_start_matches("[TokenSieve] ")
        .split(" | ")
        .find_map(|f| f.strip_prefix(&prefix))
        .map(str::to_owned)
}

/// Runs with a deadline (a looping shim must fail the test, not hang it).
pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    use std::process::Stdio;
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    wait_within(child, limit)
}

pub fn wait_within(child: Child, limit: Duration) -> Output {
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    let watchdog = std::thread::spawn(move || {
        let start = Instant::now();
        while start.elapsed() < limit {
            if flag.load(std::sync::atomic::Ordering::SeqCst) {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // SAFETY: signalling a child we spawned.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        true
    });
    let out = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    assert!(
        !watchdog.join().unwrap(),
        "timed out after {limit:?}; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status.code().unwrap_or_else(|| 128 + status.signal().unwrap())
}

pub fn wait_for_file(path: &Path, limit: Duration) {
    let start = Instant::now();
    while !path.exists() {
        assert!(start.elapsed() < limit, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The raw id a receipt names (`| raw: ID` in the long form, `raw ID]` in
/// the short one), from the whole stderr.
pub fn receipt_raw_id(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = receipt_line(&text)?;
    let at = line.find("raw: ").map(|i| i + 5).or_else(|| line.find("raw ").map(|i| i + 4))?;
    let id: String = line[at..].chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    (!id.is_empty()).then_some(id)
}

/// The binary as a CLI with a private home and none of the user's tuning,
/// stdout and stderr piped.
pub fn tokensieve_in(home: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE_STORE_MAX_BYTES")
        .env_remove("TOKENSIEVE_TOKENIZER")
        .env_remove("TOKENSIEVE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    c
}

/// Runs `cmd` with `input` on its stdin, fed from a thread so a large input
/// cannot deadlock against a full stdout pipe.
pub fn output_with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    let mut child = cmd.stdin(std::process::Stdio::piped()).spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

/// Every file under `dir` whose name ends with `.ext`, sorted.
pub fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
        for e in fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, ext, out);
            } else if p.extension().is_some_and(|x| x == ext) {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, ext, &mut out);
    out.sort();
    out
}

/// Every `*.json` under fixtures/json, sorted.
pub fn json_fixtures() -> Vec<PathBuf> {
    files_under(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json"), "json")
}

/// The original token count a receipt states (`Original: N tok` in the long
/// form, `[tokensieve N→M` in the short one).
pub fn receipt_original(stderr: &[u8]) -> Option<usize> {
    let text = String::from_utf8_lossy(stderr);
    let line = receipt_line(&text)?;
    let rest = match line.find("Original: ") {
        Some(i) => &line[i + 10..],
        None => line.strip_prefix("[tokensieve ")?,
    };
    rest.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// `tokensieve show ID [ARGS...]` in the sandbox's home: its stdout.
pub fn show(sb: &Sandbox, id: &str, args: &[&str]) -> Vec<u8> {
    let out = output_within(sb.cmd(BIN).arg("show").arg(id).args(args), Duration::from_secs(120));
    assert!(out.status.success(), "show {id}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// The receipt, from its marker on: a tool's stderr that did not end its
/// last line (Maven leaves an unterminated colour reset) runs into it.
fn receipt_line(stderr: &str) -> Option<&str> {
    stderr.lines().find_map(|l| {
        let at = l.find("[TokenSieve]").or_else(|| l.find("[tokensieve "))?;
        Some(&l[at..])
    })
}

/// `program` run as an agent would run it, under a python parent that
/// waits for it and prints `maxrss_kb=N` (the peak RSS of its children) on
/// stderr; see `peak_rss_kb`.
pub fn with_peak_rss(sb: &Sandbox, program: &Path) -> Command {
    let rss = "import resource, subprocess, sys\np = subprocess.run(sys.argv[1:])\n\
               sys.stderr.write('maxrss_kb=%d\\n' % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n\
               sys.exit(p.returncode)\n";
    let mut cmd = sb.agent("python3");
    cmd.arg("-c").arg(rss).arg(program);
    cmd
}

/// The peak RSS (kB) a `with_peak_rss` run printed.
pub fn peak_rss_kb(stderr: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    text.lines().find_map(|l| l.strip_prefix("maxrss_kb=")).expect("a maxrss_kb line").parse().unwrap()
}

/// git with nothing from the user's or the system's config, and a fixed
/// author (tests/share.rs, tests/hostile.rs).
pub fn isolated_git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid");
    c
}
