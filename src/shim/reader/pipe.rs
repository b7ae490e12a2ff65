//! Stdout is a pipe: who holds its read end?
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

use std::fs;

use super::{MAX_DEPTH, Reader, comm, fd_flags, is_shell, our_parent, parent_of, readable};

/// Finds the first ancestor holding a read end of the pipe `inode`. The walk
/// only climbs past an ancestor whose own stdout is this same pipe (it handed
/// the pipe down to us); a pipe a shell made for `| jq` stops it at once.
pub fn pipe_reader(inode: u64) -> Reader {
    pipe_reader_of(1, inode)
}

/// `pipe_reader` for our descriptor `fd` (1 or 2): the walk climbs past
/// ancestors whose own `fd` is the pipe.
pub fn pipe_reader_of(fd: u32, inode: u64) -> Reader {
    let fd_name = fd.to_string();
    let link = format!("pipe:[{inode}]");
    let mut pid = our_parent();
    for _ in 0..MAX_DEPTH {
        if pid == 0 {
            break;
        }
        let Some(fds) = scan_fds(pid, &link, &fd_name) else { return Reader::Unknown };
        if fds.reads {
            let name = comm(pid).unwrap_or_default();
            return if is_shell(&name) { Reader::Shell { pid, name } } else { Reader::Program { pid, name } };
        }
        if !fds.walked_is_pipe {
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
    /// Its descriptor of the walk (fd 1, or 2) is the pipe.
    walked_is_pipe: bool,
}

/// Scans `/proc/PID/fd` for `link` (`pipe:[N]`); `walked` is the
/// descriptor the walk follows. `None` when the fd table cannot be read
/// (permissions, hidepid, a vanished process).
fn scan_fds(pid: u32, link: &str, walked: &str) -> Option<Held> {
    let mut held = Held { reads: false, walked_is_pipe: false };
    for entry in fs::read_dir(format!("/proc/{pid}/fd")).ok()? {
        // An fd can close while we scan (the parent is busy with pipes):
        // skip it rather than give up on the whole table.
        let Ok(entry) = entry else { continue };
        let Ok(target) = fs::read_link(entry.path()) else { continue };
        if target.as_os_str() != link {
            continue;
        }
        let fd = entry.file_name();
        if fd == walked {
            held.walked_is_pipe = true;
        }
        if fd_flags(pid, &fd.to_string_lossy()).is_some_and(readable) {
            held.reads = true;
            return Some(held);
        }
    }
    Some(held)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    #[test]
    fn a_pipe_we_read_ourselves_is_found_in_our_own_fd_table() {
        let mut fds = [0; 2];
        // SAFETY: pipe fills two fds; we close them below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let meta = fs::metadata(format!("/proc/self/fd/{}", fds[1])).unwrap();
        assert!(meta.file_type().is_fifo());
        let ino = meta.ino();
        let me = std::process::id();
        assert!(scan_fds(me, &format!("pipe:[{ino}]"), "1").unwrap().reads);
        // SAFETY: closing the read end we own.
        unsafe { libc::close(fds[0]) };
        assert!(!scan_fds(me, &format!("pipe:[{ino}]"), "1").unwrap().reads);
        // SAFETY: closing the write end we own.
        unsafe { libc::close(fds[1]) };
    }
}
