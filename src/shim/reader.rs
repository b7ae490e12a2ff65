//! Who reads our stdout? One `fstat` of fd 1, and for a pipe a short walk up
//! our ancestors in `/proc` (Linux only).
//!
//! Both ends of a pipe share one inode (`pipe:[N]` in `/proc/PID/fd`); the
//! open mode in `/proc/PID/fdinfo/FD` tells the read end from the write end.
//! We look for the first ancestor that holds a read end of our stdout pipe,
//! climbing only through ancestors whose own stdout is that pipe:
//! - a shell (`x=$(aws ...)`, or the shell that built `aws ... | jq` before it
//!   forked `jq`) means a shell script consumes the bytes;
//! - any other program (an agent that spawned `bash -c`, a test harness, a
//!   Python `subprocess` capture) means a program that wanted the command's
//!   output for itself: the agent.
//!
//! A reader that is not an ancestor (`| jq`, `| head`, process substitution, a
//! named FIFO) is never found by the walk (the shell that made the pipe has
//! another stdout, so the walk stops there), and "not found" means passthrough.
//! So does anything `/proc` cannot answer (another OS, `hidepid`, a setuid
//! ancestor): when in doubt, stay transparent. Process groups are not used:
//! a child spawned without `setsid` shares the agent's group, so "same group"
//! cannot tell a pipeline peer from the agent.

use std::fs;

/// What fd 1 is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stdout {
    /// A terminal (a person, or an agent that gives commands a pty).
    Tty,
    /// A pipe with this inode.
    Pipe(u64),
    /// A socket (Node-based agents hand out socketpairs).
    Socket,
    /// A regular file, `/dev/null` or another device, or closed.
    Sink,
}

/// Who holds the read end of our stdout pipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reader {
    /// An ancestor that is a shell (command substitution, a pipeline being set up).
    Shell { pid: u32, name: String },
    /// An ancestor that is some other program: an agent, a harness.
    Program { pid: u32, name: String },
    /// Not found among our ancestors, or `/proc` could not tell.
    Unknown,
}

/// Classifies fd 1 with one `fstat` (and `isatty` for character devices).
pub fn stdout() -> Stdout {
    // SAFETY: fstat on fd 1 with a zeroed out-parameter; isatty has no preconditions.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        if libc::fstat(1, &mut st) != 0 {
            return Stdout::Sink;
        }
        match st.st_mode & libc::S_IFMT {
            libc::S_IFIFO => Stdout::Pipe(st.st_ino as u64),
            libc::S_IFSOCK => Stdout::Socket,
            libc::S_IFCHR if libc::isatty(1) == 1 => Stdout::Tty,
            _ => Stdout::Sink,
        }
    }
}

/// How many ancestors to look at before giving up (agents sit a few levels up:
/// agent → shell → make → shell → tool).
const MAX_DEPTH: usize = 16;

/// Finds the first ancestor holding a read end of the pipe `inode`. The walk
/// only climbs past an ancestor whose own stdout is this same pipe (it handed
/// the pipe down to us); a pipe a shell made for `| jq` stops it at once.
pub fn pipe_reader(inode: u64) -> Reader {
    let link = format!("pipe:[{inode}]");
    // SAFETY: getppid has no preconditions.
    let mut pid = unsafe { libc::getppid() } as u32;
    for _ in 0..MAX_DEPTH {
        if pid == 0 {
            break;
        }
        let Some(fds) = scan_fds(pid, &link) else { return Reader::Unknown };
        if fds.reads {
            let name = comm(pid).unwrap_or_default();
            return if is_shell(&name) { Reader::Shell { pid, name } } else { Reader::Program { pid, name } };
        }
        if !fds.stdout_is_pipe {
            break;
        }
        match parent_of(pid) {
            Some(ppid) => pid = ppid,
            None => break,
        }
    }
    Reader::Unknown
}

/// What one process holds of the pipe.
struct Held {
    /// A descriptor on the pipe opened for reading.
    reads: bool,
    /// Its fd 1 is the pipe.
    stdout_is_pipe: bool,
}

/// Scans `/proc/PID/fd` for `link` (`pipe:[N]`). `None` when the fd table
/// cannot be read (permissions, hidepid, a vanished process).
fn scan_fds(pid: u32, link: &str) -> Option<Held> {
    let mut held = Held { reads: false, stdout_is_pipe: false };
    for entry in fs::read_dir(format!("/proc/{pid}/fd")).ok()? {
        // An fd can close while we scan (the parent is busy with pipes):
        // skip it rather than give up on the whole table.
        let Ok(entry) = entry else { continue };
        let Ok(target) = fs::read_link(entry.path()) else { continue };
        if target.as_os_str() != link {
            continue;
        }
        let fd = entry.file_name();
        if fd == "1" {
            held.stdout_is_pipe = true;
        }
        let Ok(info) = fs::read_to_string(format!("/proc/{pid}/fdinfo/{}", fd.to_string_lossy())) else {
            continue;
        };
        if opened_for_reading(&info) {
            held.reads = true;
            return Some(held);
        }
    }
    Some(held)
}

/// Parses the octal `flags:` line of an fdinfo file: O_RDONLY or O_RDWR.
fn opened_for_reading(fdinfo: &str) -> bool {
    fdinfo
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .is_some_and(|flags| flags & libc::O_ACCMODE as u32 != libc::O_WRONLY as u32)
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

/// Shells that read command output in scripts (`$(...)`, pipelines).
fn is_shell(comm: &str) -> bool {
    const SHELLS: &[&str] = &[
        "sh", "bash", "rbash", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "loksh", "yash",
        "ash", "busybox", "fish", "tcsh", "csh", "elvish", "nu", "xonsh", "pwsh", "osh", "ysh",
    ];
    SHELLS.contains(&comm.trim_start_matches('-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    #[test]
    fn ppid_survives_odd_command_names() {
        assert_eq!(parse_ppid("123 (a) b (c) S 77 123 123 0"), Some(77));
        assert_eq!(parse_ppid("5 (bash) S 1 5 5"), Some(1));
        assert_eq!(parse_ppid("garbage"), None);
    }

    #[test]
    fn fdinfo_modes() {
        assert!(opened_for_reading("pos:\t0\nflags:\t0100000\nmnt_id:\t16\n"));
        assert!(opened_for_reading("flags:\t02\n"));
        assert!(!opened_for_reading("pos:\t0\nflags:\t01\n"));
        assert!(!opened_for_reading("pos:\t0\n"));
    }

    #[test]
    fn shells_by_comm() {
        assert!(is_shell("bash") && is_shell("-zsh") && is_shell("dash"));
        assert!(!is_shell("node") && !is_shell("claude") && !is_shell("python3"));
    }

    #[test]
    fn a_pipe_we_read_ourselves_is_found_in_our_own_fd_table() {
        let mut fds = [0; 2];
        // SAFETY: pipe fills two fds; we close them below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let meta = fs::metadata(format!("/proc/self/fd/{}", fds[1])).unwrap();
        assert!(meta.file_type().is_fifo());
        let ino = meta.ino();
        let me = std::process::id();
        assert!(scan_fds(me, &format!("pipe:[{ino}]")).unwrap().reads);
        // SAFETY: closing the read end we own.
        unsafe { libc::close(fds[0]) };
        assert!(!scan_fds(me, &format!("pipe:[{ino}]")).unwrap().reads);
        // SAFETY: closing the write end we own.
        unsafe { libc::close(fds[1]) };
    }
}
