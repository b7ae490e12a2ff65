//! Running the real tool. Passthrough is a plain `exec`: the tool replaces us.
//! Compression spawns it with stdin inherited and stdout piped, forwards
//! SIGINT/SIGTERM/SIGHUP/SIGQUIT, and hands its stdout to `capture`. Its
//! stderr is inherited, unless our stderr goes where our stdout goes
//! (`reader::stderr_joins_stdout`): then both are one pipe, so the agent
//! reads them in the tool's order and the merged text is treated.
//! A forwarded signal also tells the capture to stop gathering (the harness
//! is stopping us): what was gathered is then delivered before we exit.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use super::apart::{self, Gatherer};
use super::capture::{self, Captured, Limits, Source, Stop};
use super::policy::DEPTH_ENV;
use super::resolve::SHIMS_ENV;
use crate::auditor::Encoding;
use crate::store::Store;

/// The real tool and how to call it.
pub struct Launch<'a> {
    /// Also the tool's argv[0]: where the shell would have found it (see
    /// `command`).
    pub real: &'a Path,
    pub args: &'a [OsString],
    /// `TOKENSIEVE_SHIMS` for the child (see `resolve`).
    pub shims: OsString,
}

impl Launch<'_> {
    /// `via_sh`: a file without `#!` (ENOEXEC) runs as a shell script, as
    /// the shell itself would have run it. argv[0] is the real path, as
    /// version managers' shims do: an interpreter that finds its home from
    /// argv[0] (python reads `pyvenv.cfg` beside itself, searching `$PATH`
    /// for a bare name) would otherwise find our shim folder first and
    /// lose its virtualenv.
    fn command(&self, via_sh: bool) -> Command {
        let mut cmd = if via_sh {
            let mut sh = Command::new("/bin/sh");
            sh.arg(self.real);
            sh
        } else {
            Command::new(self.real)
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

/// What became of the child's stdout (per `Captured`), its exit code (128+N
/// for death by signal N), and the stop signal if one came.
pub struct Outcome {
    pub captured: Captured,
    pub code: i32,
    pub stop: Option<Stop>,
    /// The tool's stderr, gathered apart (`Streams::Apart`).
    pub stderr: Option<Gatherer>,
}

/// Where the tool's stderr goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Streams {
    /// Where ours goes (a terminal, `2>/dev/null`, `2>file`).
    Inherited,
    /// Onto the stdout pipe: one stream in the tool's order.
    Merged,
    /// A pipe of its own, gathered beside stdout (`apart`).
    Apart,
}

/// The child's status once it has exited, waiting at most until `deadline`.
/// Its stdout reaches end of file a moment before it can be reaped (a
/// process closes its files, then becomes a zombie): one `try_wait` at end
/// of file would take a tool that is exiting for one that is not.
fn wait_until(child: &mut Child, deadline: Instant) -> io::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs the tool with stdout piped and gathers what it prints (`capture`).
/// Stopped by a signal, the exit code is the tool's if it has exited by the
/// end of the grace, else 128+N for the signal we got.
/// `streams`: where the tool's stderr goes.
pub fn run(
    launch: &Launch,
    streams: Streams,
    limits: &Limits,
    store: &Store,
    enc: Encoding,
) -> io::Result<Outcome> {
    // Signals our caller ignores (`nohup`, `cmd &` in a script) stay ignored:
    // no forwarder for them, and the tool inherits SIG_IGN through exec.
    let ignored = ignored_signals();
    let (stop_rd, stop_wr) = pipe(libc::O_NONBLOCK)?;
    // Ours: the read end; the write end goes to the tool as fd 1 and 2 and
    // is closed here once it has started (the `Command` holding it is gone
    // with the statement), so the end of its output is seen.
    let joined = if streams == Streams::Merged { Some(pipe(0)?) } else { None };
    let spawn = |via_sh| -> io::Result<Child> {
        let mut cmd = prepare(launch, via_sh, ignored);
        if let Some((_, wr)) = &joined {
            cmd.stdout(Stdio::from(wr.try_clone()?)).stderr(Stdio::from(wr.try_clone()?));
        }
        if streams == Streams::Apart {
            cmd.stderr(Stdio::piped());
        }
        spawn_forwarding(&mut cmd, ignored)
    };
    STOP_FD.store(stop_wr.as_raw_fd(), Ordering::SeqCst);
    let spawned = match spawn(false) {
        Err(e) if is_enoexec(&e) => spawn(true),
        other => other,
    };
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) => {
            stop_forwarding(ignored);
            return Err(e);
        }
    };
    let stderr = child.stderr.take().map(apart::start);
    let out = match joined {
        Some((rd, wr)) => {
            drop(wr);
            File::from(rd)
        }
        None => File::from(OwnedFd::from(child.stdout.take().expect("stdout was piped"))),
    };
    let mut src = Source { out, stop_fd: stop_rd.as_raw_fd(), child: &mut child, stop: None };
    let captured = capture::capture(&mut src, limits, store, enc);
    let Source { out, stop, .. } = src;
    // Closing our end first: a tool still writing gets SIGPIPE, as it would
    // have if its reader had gone away, and cannot block us in wait().
    drop(out);
    let status = match stop {
        // A tool that outlives the grace is left to SIGPIPE and the
        // parent-death signal.
        Some(stop) => wait_until(&mut child, stop.at + capture::STOP_GRACE),
        None => child.wait().map(Some),
    };
    // The pid may be reused from here on, and a signal while we compress is
    // for us again: forwarding ends with the child.
    stop_forwarding(ignored);
    drop(stop_wr);
    let code = match status? {
        Some(status) => exit_code(status),
        None => 128 + stop.map_or(0, |s| s.signal),
    };
    Ok(Outcome { captured: captured?, code, stop, stderr })
}

/// A close-on-exec pipe (read end, write end): the one a forwarded signal
/// is announced on (`O_NONBLOCK`: the handler must never block; the tool
/// must not hold it), or the one stdout and stderr share.
fn pipe(flags: libc::c_int) -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors that we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | flags) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fresh descriptors from pipe2, owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
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
/// Write end of the stop pipe (-1: none).
static STOP_FD: AtomicI32 = AtomicI32::new(-1);

extern "C" fn forward(sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: errno is thread-local; the handler must leave it as it found it.
    let errno = unsafe { *libc::__errno_location() };
    // The capture learns that we are being stopped (one byte: the signal).
    let fd = STOP_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        let byte = sig as u8;
        // SAFETY: write is async-signal-safe; the pipe is non-blocking.
        unsafe { libc::write(fd, (&byte as *const u8).cast(), 1) };
    }
    // SAFETY: the kernel hands a valid siginfo to SA_SIGINFO handlers.
    let code = unsafe { (*info).si_code };
    // Ctrl-C at a terminal (SI_KERNEL) reaches the whole foreground group,
    // the child included: forwarding would deliver it twice.
    let pid = CHILD_PID.load(Ordering::SeqCst);
    if code != libc::SI_KERNEL && pid > 0 {
        // SAFETY: kill is async-signal-safe.
        unsafe { libc::kill(pid, sig) };
    }
    // SAFETY: restoring the value read above.
    unsafe { *libc::__errno_location() = errno };
}

/// Back to the default disposition for the signals we forwarded.
fn stop_forwarding(ignored: [bool; 4]) {
    CHILD_PID.store(0, Ordering::SeqCst);
    STOP_FD.store(-1, Ordering::SeqCst);
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
