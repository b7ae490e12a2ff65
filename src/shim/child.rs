//! Running the real tool. Passthrough is a plain `exec`: the tool replaces us.
//! Compression spawns it with stdin and stderr inherited and stdout piped,
//! forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT, sniffs the first bytes of stdout
//! and then either buffers them for the pipeline (JSON, or a command a text
//! filter claims) or streams them through live. Buffers are bounded: past the
//! byte cap, on binary bytes, or (text only) past the wait limit, what was
//! read is flushed and the rest streams byte for byte.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use super::policy::DEPTH_ENV;
use super::resolve::SHIMS_ENV;
use crate::json::scrubber::{Escape, escape_at};

/// Byte cap of a capture buffer (`TOKENSIEVE_CAPTURE_MAX_BYTES`).
pub const DEFAULT_CAPTURE_MAX: usize = 64 << 20;
/// How long a text filter may hold output back (`TOKENSIEVE_TEXT_WAIT_SECS`).
pub const DEFAULT_TEXT_WAIT: Duration = Duration::from_secs(120);

/// The real tool and how to call it.
pub struct Launch<'a> {
    pub real: &'a Path,
    /// What the tool sees as argv[0]: what our caller typed.
    pub argv0: &'a OsStr,
    pub args: &'a [OsString],
    /// `TOKENSIEVE_SHIMS` for the child (see `resolve`).
    pub shims: OsString,
}

impl Launch<'_> {
    /// `via_sh`: a file without `#!` (ENOEXEC) runs as a shell script, as
    /// the shell itself would have run it.
    fn command(&self, via_sh: bool) -> Command {
        let mut cmd = if via_sh {
            let mut sh = Command::new("/bin/sh");
            sh.arg(self.real);
            sh
        } else {
            let mut direct = Command::new(self.real);
            direct.arg0(self.argv0);
            direct
        };
        cmd.args(self.args).env(DEPTH_ENV, "1").env(SHIMS_ENV, &self.shims);
        cmd
    }
}

fn is_enoexec(err: &io::Error) -> bool {
    err.raw_os_error() == Some(libc::ENOEXEC)
}

/// Replaces this process with the real tool. Returns only on failure.
pub fn exec(launch: &Launch) -> io::Error {
    let err = launch.command(false).exec();
    if is_enoexec(&err) { launch.command(true).exec() } else { err }
}

/// Limits for one capture.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_bytes: usize,
    /// Wait limit for text a filter claimed (JSON has none: it is one document).
    pub text_wait: Duration,
}

impl Limits {
    pub fn from_env() -> Limits {
        let num = |k: &str| std::env::var(k).ok().and_then(|v| v.trim().parse::<u64>().ok());
        Limits {
            max_bytes: capture_max(std::env::var("TOKENSIEVE_CAPTURE_MAX_BYTES").ok().as_deref()),
            text_wait: num("TOKENSIEVE_TEXT_WAIT_SECS").map_or(DEFAULT_TEXT_WAIT, Duration::from_secs),
        }
    }
}

/// The capture cap from its variable's value: bytes, or with a K, M or G
/// suffix like `TOKENSIEVE_STORE_MAX_BYTES`; unset or unreadable → 64 MiB.
fn capture_max(value: Option<&str>) -> usize {
    value
        .and_then(|v| crate::store::parse_size(v).ok())
        .map_or(DEFAULT_CAPTURE_MAX, |n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// What became of the child's stdout.
pub enum Captured {
    /// Everything, in memory, for the pipeline.
    Buffered(Vec<u8>),
    /// Already written to our stdout as it came.
    Streamed,
}

/// The child's stdout (handled per `Captured`) and its exit code (128+N for
/// death by signal N).
pub struct Outcome {
    pub captured: Captured,
    pub code: i32,
}

/// Runs the tool with stdout piped and returns what it printed, or what we
/// already streamed, with its exit code. `text_claimed`: a text filter wants
/// the whole output even when it is not JSON.
pub fn run(launch: &Launch, text_claimed: bool, limits: Limits) -> io::Result<Outcome> {
    // Signals our caller ignores (`nohup`, `cmd &` in a script) stay ignored:
    // no forwarder for them, and the tool inherits SIG_IGN through exec.
    let ignored = ignored_signals();
    let mut child = match spawn_forwarding(&mut prepare(launch, false, ignored), ignored) {
        Err(e) if is_enoexec(&e) => spawn_forwarding(&mut prepare(launch, true, ignored), ignored)?,
        other => other?,
    };
    let mut out = child.stdout.take().expect("stdout was piped");
    let captured = capture(&mut out, text_claimed, limits);
    // Closing our end first: a tool still writing gets SIGPIPE, as it would
    // have if its reader had gone away, and cannot block us in wait().
    drop(out);
    let status = child.wait();
    // The pid may be reused from here on, and a signal while we compress is
    // for us again: forwarding ends with the child.
    stop_forwarding(ignored);
    Ok(Outcome { captured: captured?, code: exit_code(status?) })
}

/// The tool's command for a capturing run: pagers off, stdout piped, and a
/// pre-exec hook that restores our caller's signal state and ties the
/// tool's life to ours.
fn prepare(launch: &Launch, via_sh: bool, ignored: [bool; 4]) -> Command {
    let mut cmd = launch.command(via_sh);
    cmd.env("AWS_PAGER", "").env("PAGER", "cat").env("GIT_PAGER", "cat").env("GH_PAGER", "cat");
    cmd.stdout(Stdio::piped());
    let parent = std::process::id();
    // The tool must start with the signal mask we were given, not the one
    // `spawn_forwarding` holds while it starts the child.
    // SAFETY: querying our own mask into a zeroed sigset.
    let original_mask = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut set);
        set
    };
    // SAFETY: the closure runs between fork and exec and only makes
    // async-signal-safe calls (signal, sigprocmask, prctl, getppid).
    unsafe {
        cmd.pre_exec(move || {
            for (sig, ignored) in FORWARDED.into_iter().zip(ignored) {
                if !ignored {
                    libc::signal(sig, libc::SIG_DFL);
                }
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &original_mask, std::ptr::null_mut());
            // No orphans: if we die, the tool hears about it.
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            if libc::getppid() as u32 != parent {
                return Err(io::Error::other("tokensieve exited before the tool started"));
            }
            Ok(())
        });
    }
    cmd
}

/// The shell's view of a status: the code, or 128+N for death by signal N.
pub fn exit_code(status: ExitStatus) -> i32 {
    status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0))
}

// --- signals -------------------------------------------------------------

const FORWARDED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];
static CHILD_PID: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to SA_SIGINFO handlers.
    let code = unsafe { (*info).si_code };
    // Ctrl-C at a terminal (SI_KERNEL) reaches the whole foreground group,
    // the child included: forwarding would deliver it twice.
    if code == libc::SI_KERNEL {
        return;
    }
    let pid = CHILD_PID.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe { libc::kill(pid, sig) };
    }
}

/// Back to the default disposition for the signals we forwarded.
fn stop_forwarding(ignored: [bool; 4]) {
    CHILD_PID.store(0, Ordering::SeqCst);
    for (sig, ignored) in FORWARDED.into_iter().zip(ignored) {
        if !ignored {
            // SAFETY: resetting a disposition we installed.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }
}

/// Which of FORWARDED are set to SIG_IGN now.
fn ignored_signals() -> [bool; 4] {
    FORWARDED.map(|sig| {
        // SAFETY: querying a disposition into a zeroed struct.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
        }
    })
}

/// Spawns with our forwarding handlers in place. The signals stay blocked
/// until the child's pid is known, so one sent in between is forwarded, not
/// lost (the child restores the original mask in its pre-exec hook).
fn spawn_forwarding(cmd: &mut Command, ignored: [bool; 4]) -> io::Result<Child> {
    // SAFETY: plain libc signal-mask and sigaction calls on local, zeroed
    // structures; the handler only touches an atomic and calls kill.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in FORWARDED {
            libc::sigaddset(&mut set, sig);
        }
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        for sig in FORWARDED.into_iter().zip(ignored).filter(|(_, ign)| !ign).map(|(sig, _)| sig) {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = forward as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
        let spawned = cmd.spawn();
        if let Ok(child) = &spawned {
            CHILD_PID.store(child.id() as i32, Ordering::SeqCst);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        spawned
    }
}

// --- capture -------------------------------------------------------------

/// What the first bytes say.
#[derive(Debug, PartialEq, Eq)]
enum Sniff {
    /// Only whitespace, a BOM or an unfinished escape so far.
    NeedMore,
    /// A valid JSON prefix (one value, or several: NDJSON).
    Json,
    Text,
    Binary,
}

/// After this much undecided output (whitespace, escapes), call it text.
const SNIFF_LIMIT: usize = 4096;
const CHUNK: usize = 64 * 1024;

fn capture(out: &mut ChildStdout, text_claimed: bool, limits: Limits) -> io::Result<Captured> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = read_retrying(out, &mut chunk)?;
        if n == 0 {
            // Nothing but whitespace: nothing to compress.
            write_stdout(&buf);
            return Ok(Captured::Streamed);
        }
        buf.extend_from_slice(&chunk[..n]);
        match sniff(&buf) {
            Sniff::NeedMore if buf.len() < SNIFF_LIMIT => continue,
            Sniff::Json => return buffer(out, buf, None, limits.max_bytes, &mut chunk),
            Sniff::Text | Sniff::NeedMore if text_claimed => {
                let deadline = Instant::now() + limits.text_wait;
                return buffer(out, buf, Some(deadline), limits.max_bytes, &mut chunk);
            }
            _ => {
                stream(out, &buf, &mut chunk);
                return Ok(Captured::Streamed);
            }
        }
    }
}

/// Reads to the end into `buf`, unless it turns binary, outgrows `max`, or
/// the deadline passes: then flush and stream.
fn buffer(
    out: &mut ChildStdout,
    mut buf: Vec<u8>,
    deadline: Option<Instant>,
    max: usize,
    chunk: &mut [u8],
) -> io::Result<Captured> {
    let mut checked = 0;
    loop {
        if !still_text(&buf, &mut checked) || buf.len() > max {
            stream(out, &buf, chunk);
            return Ok(Captured::Streamed);
        }
        let n = match deadline {
            Some(d) => match read_before(out, chunk, d)? {
                Some(n) => n,
                None => {
                    stream(out, &buf, chunk);
                    return Ok(Captured::Streamed);
                }
            },
            None => read_retrying(out, chunk)?,
        };
        if n == 0 {
            return Ok(Captured::Buffered(buf));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Checks the bytes after `checked` for NUL and invalid UTF-8, leaving an
/// unfinished multi-byte character at the end for the next round.
fn still_text(buf: &[u8], checked: &mut usize) -> bool {
    let new = &buf[*checked..];
    if new.contains(&0) {
        return false;
    }
    match std::str::from_utf8(new) {
        Ok(_) => {
            *checked = buf.len();
            true
        }
        Err(e) if e.error_len().is_none() => {
            *checked += e.valid_up_to();
            true
        }
        Err(_) => false,
    }
}

/// Writes `first`, then copies the rest of `out` as it comes. Stops quietly
/// when our reader has gone (EPIPE): the caller closes `out` so the tool
/// learns the same.
fn stream(out: &mut ChildStdout, first: &[u8], chunk: &mut [u8]) {
    if !write_stdout(first) {
        return;
    }
    loop {
        match read_retrying(out, chunk) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if !write_stdout(&chunk[..n]) {
                    return;
                }
            }
        }
    }
}

/// Unbuffered write to fd 1 (std's stdout would hold a line without its
/// newline back: a prompt must show at once). `false` once nobody reads.
fn write_stdout(bytes: &[u8]) -> bool {
    // SAFETY: fd 1 stays open for the life of the process; ManuallyDrop keeps
    // this File from closing it.
    let mut fd1 = ManuallyDrop::new(unsafe { File::from_raw_fd(1) });
    fd1.write_all(bytes).is_ok()
}

fn read_retrying(out: &mut ChildStdout, chunk: &mut [u8]) -> io::Result<usize> {
    loop {
        match out.read(chunk) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// A read that gives up at `deadline` (`None`).
fn read_before(out: &mut ChildStdout, chunk: &mut [u8], deadline: Instant) -> io::Result<Option<usize>> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(None);
        }
        let mut pfd = libc::pollfd { fd: out.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        let ms = left.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd on a descriptor we own.
        let ready = unsafe { libc::poll(&mut pfd, 1, ms.max(1)) };
        if ready < 0 {
            let err = io::Error::last_os_error();
            if err.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(err);
        }
        if ready > 0 {
            return read_retrying(out, chunk).map(Some);
        }
    }
}

fn sniff(buf: &[u8]) -> Sniff {
    let mut i = 0;
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    if buf.starts_with(BOM) {
        i = BOM.len();
    } else if BOM.starts_with(buf) {
        return Sniff::NeedMore;
    }
    while i < buf.len() {
        match buf[i] {
            0 => return Sniff::Binary,
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            0x1b => match escape_at(&buf[i..]) {
                Escape::Len(len) => i += len,
                Escape::Unfinished => return Sniff::NeedMore,
                Escape::NotOne => return Sniff::Text,
            },
            b'{' | b'[' => return json_prefix(&buf[i..]),
            _ => return Sniff::Text,
        }
    }
    Sniff::NeedMore
}

/// Whether `bytes` (starting at `{` or `[`) is JSON so far: every value
/// parses, the last may be cut off. `[+] Running` or `[INFO] ...` is text.
fn json_prefix(bytes: &[u8]) -> Sniff {
    if bytes.contains(&0) {
        return Sniff::Binary;
    }
    let stream = serde_json::Deserializer::from_slice(bytes).into_iter::<serde_json::Value>();
    for item in stream {
        if let Err(e) = item {
            return if e.is_eof() { Sniff::Json } else { Sniff::Text };
        }
    }
    Sniff::Json
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_cap_takes_the_store_caps_units() {
        assert_eq!(capture_max(Some("1048576")), 1 << 20);
        assert_eq!(capture_max(Some("512K")), 512 << 10);
        assert_eq!(capture_max(Some(" 8m ")), 8 << 20);
        assert_eq!(capture_max(Some("1G")), 1 << 30);
        assert_eq!(capture_max(None), DEFAULT_CAPTURE_MAX);
        assert_eq!(capture_max(Some("lots")), DEFAULT_CAPTURE_MAX);
    }

    #[test]
    fn sniffing_first_bytes() {
        assert_eq!(sniff(b""), Sniff::NeedMore);
        assert_eq!(sniff(b"  \n"), Sniff::NeedMore);
        assert_eq!(sniff(b"\xEF\xBB"), Sniff::NeedMore);
        assert_eq!(sniff(b"\xEF\xBB\xBF{\"a\""), Sniff::Json);
        assert_eq!(sniff(b"\n  [\n  {\"Vpcs\": [1, 2"), Sniff::Json);
        assert_eq!(sniff(b"{\"a\":1}\n{\"b\":2}\n{\"c\""), Sniff::Json);
        assert_eq!(sniff(b"\x1b[1;32m{\"a\": 1}"), Sniff::Json);
        assert_eq!(sniff(b"\x1b]0;title\x07[1]"), Sniff::Json);
        assert_eq!(sniff(b"\x1b[1;3"), Sniff::NeedMore);
        assert_eq!(sniff(b"[+] Running 3/3"), Sniff::Text);
        assert_eq!(sniff(b"[INFO] starting"), Sniff::Text);
        assert_eq!(sniff(b"[2024-01-01 12:00] up"), Sniff::Text);
        assert_eq!(sniff(b"   Compiling foo"), Sniff::Text);
        assert_eq!(sniff(b"\x00\x01ELF"), Sniff::Binary);
    }

    #[test]
    fn text_check_waits_for_split_characters() {
        let mut checked = 0;
        let snow = "é".as_bytes();
        let mut buf = b"ab".to_vec();
        buf.push(snow[0]);
        assert!(still_text(&buf, &mut checked));
        assert_eq!(checked, 2);
        buf.push(snow[1]);
        assert!(still_text(&buf, &mut checked));
        assert_eq!(checked, buf.len());
        buf.extend_from_slice(b"\xff\xfe");
        assert!(!still_text(&buf, &mut checked));
        let mut checked = 0;
        assert!(!still_text(b"a\0b", &mut checked));
    }
}
