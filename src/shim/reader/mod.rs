//! Who reads our stdout? One `fstat` of fd 1, then a short walk up our
//! ancestors in `/proc` (Linux only) for a pipe (`pipe`) or a regular file
//! (`file`).
//!
//! The question is always the same: is the program that will read these
//! bytes the agent that started the command, or something the command itself
//! set up (`| jq`, `$(...)`, `> out.json`)? Anything `/proc` cannot answer
//! (another OS, `hidepid`, a setuid ancestor, a process that vanished) means
//! passthrough: when in doubt, stay transparent. Process groups are not used:
//! a child spawned without `setsid` shares the agent's group, so "same group"
//! cannot tell a pipeline peer from the agent.

mod file;
mod pipe;

use std::fs;
use std::os::unix::fs::MetadataExt;

pub use file::file_reader;
pub use pipe::{pipe_reader, pipe_reader_of};

/// What fd 1 is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stdout {
    /// A terminal (a person, or an agent that gives commands a pty).
    Tty,
    /// A pipe with this inode.
    Pipe(u64),
    /// A socket (Node-based agents hand out socketpairs).
    Socket,
    /// A regular file: the agent's own capture file, or a redirect.
    File(FileId),
    /// `/dev/null` or another device, or closed.
    Sink,
}

/// A file's identity: device and inode (what `stat` reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

/// Who will read our stdout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reader {
    /// A shell: command substitution, a pipeline being set up, or a shell
    /// that pointed our stdout at a file of its own (`aws ... > out.json`).
    Shell { pid: u32, name: String },
    /// Some other program above the command: an agent, a harness.
    Program { pid: u32, name: String },
    /// The command redirected stdout itself in a way the walk sees (a shell
    /// that saved its old stdout, an `exec >` in its script, stdout and
    /// stderr on different files).
    Redirected(String),
    /// Not found among our ancestors, or `/proc` could not tell.
    Unknown,
}

/// Classifies fd 1 with one `fstat` (`own_fd`; `isatty` for character devices).
pub fn stdout() -> Stdout {
    let Some(st) = own_fd(1) else { return Stdout::Sink };
    match st.st_mode & libc::S_IFMT {
        libc::S_IFIFO => Stdout::Pipe(st.st_ino),
        libc::S_IFSOCK => Stdout::Socket,
        libc::S_IFREG => Stdout::File(FileId { dev: st.st_dev, ino: st.st_ino }),
        // SAFETY: isatty has no preconditions.
        libc::S_IFCHR if unsafe { libc::isatty(1) } == 1 => Stdout::Tty,
        _ => Stdout::Sink,
    }
}

/// Whether our stderr goes where our stdout goes: one open file (`2>&1`,
/// Claude Code's capture file opened once for both), one pipe or one pty.
/// Then the tool gets one pipe for both and the agent reads them in the
/// tool's order. `2>/dev/null`, `2>file`, a terminal of its own: no.
/// Asked only once the policy said "compress".
pub fn stderr_joins_stdout() -> bool {
    let (Some(out), Some(err)) = (own_fd(1), own_fd(2)) else { return false };
    if (out.st_dev, out.st_ino, out.st_rdev) != (err.st_dev, err.st_ino, err.st_rdev) {
        return false;
    }
    if out.st_mode & libc::S_IFMT != libc::S_IFREG {
        // The same pipe, socket or terminal: one stream whatever opened it.
        return true;
    }
    // A regular file: one open file description (`2>&1`, one `open` shared
    // by both), which `kcmp` tells for sure; where it cannot, two
    // descriptors that both append write in order too.
    match same_open_file(1, 2) {
        Some(same) => same,
        None => appends_fd(1) && appends_fd(2),
    }
}

/// Whether our stderr is a pipe of its own (not stdout's) whose read end
/// an ancestor program holds: an agent that captures the two streams
/// apart (Codex). A shell's pipe (`2> >(…)`, `$(…)`), a file, a terminal
/// or `/dev/null` are not. Asked only once the policy said "compress".
pub fn stderr_read_apart() -> bool {
    let Some(err) = own_fd(2) else { return false };
    err.st_mode & libc::S_IFMT == libc::S_IFIFO
        && !stderr_joins_stdout()
        && matches!(pipe_reader_of(2, err.st_ino), Reader::Program { .. })
}

/// `fstat` of one of our descriptors.
fn own_fd(fd: i32) -> Option<libc::stat> {
    // SAFETY: fstat into a zeroed out-parameter.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        (libc::fstat(fd, &mut st) == 0).then_some(st)
    }
}

/// Whether our descriptors `a` and `b` share one open file description
/// (`kcmp(KCMP_FILE)`); `None` when the kernel will not say.
fn same_open_file(a: i32, b: i32) -> Option<bool> {
    const KCMP_FILE: libc::c_long = 0;
    let pid = std::process::id() as libc::c_long;
    // SAFETY: kcmp only compares two of our own descriptors.
    let r =
        unsafe { libc::syscall(libc::SYS_kcmp, pid, pid, KCMP_FILE, a as libc::c_long, b as libc::c_long) };
    match r {
        0 => Some(true),
        1..=3 => Some(false),
        _ => None,
    }
}

/// Whether our descriptor `fd` was opened with `O_APPEND`.
pub(crate) fn appends_fd(fd: i32) -> bool {
    // SAFETY: F_GETFL on one of our own descriptors has no preconditions.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    flags != -1 && flags & libc::O_APPEND != 0
}

/// How many ancestors to look at before giving up (agents sit a few levels up:
/// agent → shell → make → shell → tool).
const MAX_DEPTH: usize = 16;

/// The identity of what `pid`'s descriptor `fd` points at (`stat` follows
/// the `/proc/PID/fd/N` link, deleted files included). `None` when the table
/// cannot be read or the descriptor is closed.
fn fd_id(pid: u32, fd: u32) -> Option<FileId> {
    let meta = fs::metadata(format!("/proc/{pid}/fd/{fd}")).ok()?;
    Some(FileId { dev: meta.dev(), ino: meta.ino() })
}

/// The open flags of `pid`'s descriptor `fd` (the octal `flags:` line of
/// `/proc/PID/fdinfo/FD`).
fn fd_flags(pid: u32, fd: &str) -> Option<u32> {
    let info = fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).ok()?;
    parse_flags(&info)
}

fn parse_flags(fdinfo: &str) -> Option<u32> {
    fdinfo.lines().find_map(|l| l.strip_prefix("flags:")).and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
}

/// O_RDONLY or O_RDWR.
fn readable(flags: u32) -> bool {
    flags & libc::O_ACCMODE as u32 != libc::O_WRONLY as u32
}

/// O_WRONLY or O_RDWR.
fn writable(flags: u32) -> bool {
    flags & libc::O_ACCMODE as u32 != libc::O_RDONLY as u32
}

/// The parent pid from `/proc/PID/stat` (field 4, after the parenthesised
/// command name, which may itself contain spaces and parentheses).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_ppid(&stat)
}

fn parse_ppid(stat: &str) -> Option<u32> {
    stat_fields(stat)?.nth(1)?.parse().ok()
}

/// The fields of a `/proc/PID/stat` line after the command name (field 3,
/// `state`, first). `doctor` reads the start time from them too.
pub(crate) fn stat_fields(stat: &str) -> Option<std::str::SplitWhitespace<'_>> {
    Some(stat[stat.rfind(')')? + 1..].split_whitespace())
}

/// `/proc/PID/comm` without its newline.
pub(crate) fn comm(pid: u32) -> Option<String> {
    Some(fs::read_to_string(format!("/proc/{pid}/comm")).ok()?.trim_end().to_owned())
}

/// Our parent (never 0 for a live process; 0 means "no parent to ask").
fn our_parent() -> u32 {
    // SAFETY: getppid has no preconditions.
    unsafe { libc::getppid() as u32 }
}

/// Shells that read command output in scripts (`$(...)`, pipelines).
pub(crate) fn is_shell(comm: &str) -> bool {
    const SHELLS: &[&str] = &[
        "sh", "bash", "rbash", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "loksh", "yash",
        "ash", "busybox", "fish", "tcsh", "csh", "elvish", "nu", "xonsh", "pwsh", "osh", "ysh",
    ];
    SHELLS.contains(&comm.trim_start_matches('-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ppid_survives_odd_command_names() {
        assert_eq!(parse_ppid("123 (a) b (c) S 77 123 123 0"), Some(77));
        assert_eq!(parse_ppid("5 (bash) S 1 5 5"), Some(1));
        assert_eq!(parse_ppid("garbage"), None);
    }

    #[test]
    fn fdinfo_modes() {
        let flags = |s| parse_flags(s).unwrap_or(0);
        assert!(readable(flags("pos:\t0\nflags:\t0100000\nmnt_id:\t16\n")));
        assert!(readable(flags("flags:\t02\n")) && writable(flags("flags:\t02\n")));
        assert!(!readable(flags("pos:\t0\nflags:\t01\n")));
        assert!(writable(flags("pos:\t0\nflags:\t0502001\n")));
        assert!(!writable(flags("flags:\t0100000\n")));
        assert_eq!(parse_flags("pos:\t0\n"), None);
    }

    #[test]
    fn shells_by_comm() {
        assert!(is_shell("bash") && is_shell("-zsh") && is_shell("dash"));
        assert!(!is_shell("node") && !is_shell("claude") && !is_shell("python3"));
    }

    #[test]
    fn our_own_descriptors_have_identities() {
        let file = tempfile::tempfile().unwrap();
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd() as u32;
        let meta = file.metadata().unwrap();
        let id = fd_id(std::process::id(), fd).unwrap();
        assert_eq!(id, FileId { dev: meta.dev(), ino: meta.ino() });
        assert!(readable(fd_flags(std::process::id(), &fd.to_string()).unwrap()));
    }
}
