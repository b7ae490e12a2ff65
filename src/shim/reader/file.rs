//! Stdout is a regular file: the agent's own capture, or a redirect?
//!
//! Some agents hand the command a file instead of a pipe: Claude Code's Bash
//! tool runs `bash -c` with stdout and stderr on one task output file it
//! opened, and reads the file afterwards (it does not keep it open). A
//! redirect inside the command (`aws ... > out.json`) also gives us a file.
//! They differ in who pointed fd 1 at the file:
//!
//! 1. Climb while the ancestor's fd 1 is the same file (device + inode). The
//!    first ancestor with another stdout made the file our stdout: a shell
//!    means a redirect in the command (`> out.json`, `( ... ) > f`, `sh -c
//!    ... > f`), any other program means the caller gave the whole command
//!    this file: an agent (or a harness) capturing it.
//! 2. A shell can also redirect its *own* stdout and then start us, which the
//!    climb alone cannot see:
//!    - `{ aws ...; } > out.json`: bash and dash keep the old stdout on a
//!      close-on-exec descriptor ≥ 10 for the duration. Such a descriptor on
//!      another file, that was an output (write-only, or the object stdin
//!      still is), in any shell of the chain → redirect. Descriptors the
//!      shell inherited are not close-on-exec; a saved stdin is read-only
//!      or, for a socket, no longer stdin. (A saved copy of
//!      *our* file is fine: `{ aws; } 2>/dev/null` saves stderr, not stdout.)
//!    - `exec > out.json`: nothing is saved. The shell's script (the `-c`
//!      text, or the script file it runs) holding `exec` followed by an
//!      output redirection → redirect.
//! 3. An agent's capture holds both streams: the outermost process on the
//!    file has stderr on it too (or saved aside, as above), and the file is
//!    open for appending (two streams into one file; Claude Code opens it
//!    `O_WRONLY|O_APPEND`). Stdout and stderr on different files, or a file
//!    opened to be overwritten, is a command that sent its output somewhere
//!    on purpose. This also covers the shell that ran `exec > f 2>&1` and
//!    then exec'd us as its last command (its script is gone with it).
//!
//! Anything unreadable stays raw. Known misses: `exec >> log 2>&1` in a file
//! a script sources (we read only the `-c` text or the script itself), and
//! `bash -c 'exec >> old.log 2>&1; aws ...'` where bash execs aws as its last
//! command: nothing of the shell is left to read.

use std::fs;
use std::io::Read;

use super::{
    FileId, MAX_DEPTH, Reader, appends_fd, comm, fd_flags, fd_id, is_shell, our_parent, parent_of, writable,
};

/// Bash, dash, zsh and ksh move a descriptor they save aside to 10 or above.
const SAVED_FD_BASE: u32 = 10;
/// How much of a shell's script file we read to look for `exec >`.
const SCRIPT_READ_LIMIT: u64 = 256 * 1024;

/// Decides who reads the regular file `ours` that is our stdout.
pub fn file_reader(ours: FileId) -> Reader {
    // Ancestors whose fd 1 is this file, nearest first.
    let mut chain: Vec<u32> = Vec::new();
    let mut pid = our_parent();
    let caller = loop {
        if pid == 0 || chain.len() >= MAX_DEPTH {
            return Reader::Unknown;
        }
        match stdout_of(pid) {
            Held::Unreadable => return Reader::Unknown,
            Held::File(id) if id == ours => chain.push(pid),
            Held::File(_) | Held::Closed => break pid,
        }
        match parent_of(pid) {
            Some(ppid) => pid = ppid,
            None => return Reader::Unknown,
        }
    };
    let name = comm(caller).unwrap_or_default();
    if is_shell(&name) {
        return Reader::Shell { pid: caller, name };
    }
    let mut stderr_saved = false;
    for &pid in &chain {
        let shell = comm(pid).unwrap_or_default();
        if !is_shell(&shell) {
            continue;
        }
        let Some(saved) = saved_descriptors(pid) else { return Reader::Unknown };
        let stdin = fd_id(pid, 0);
        if saved.iter().any(|s| s.id != ours && s.was_an_output(stdin)) {
            return Reader::Redirected(format!(
                "the shell '{shell}' (pid {pid}) redirected its own stdout to this file"
            ));
        }
        stderr_saved |= Some(&pid) == chain.last() && saved.iter().any(|s| s.id == ours);
        match script_of(pid) {
            None => return Reader::Unknown,
            Some(script) if execs_a_redirect(&script) => {
                return Reader::Redirected(format!("the script of '{shell}' (pid {pid}) runs `exec >`"));
            }
            Some(_) => {}
        }
    }
    let top = chain.last().copied().unwrap_or_else(std::process::id);
    if fd_id(top, 2) != Some(ours) && !stderr_saved {
        return Reader::Redirected("stdout and stderr go to different files".into());
    }
    if !appends_fd(1) {
        return Reader::Redirected("not opened for appending, as a capture of two streams is".into());
    }
    Reader::Program { pid: caller, name }
}

/// What an ancestor's fd 1 is, as far as we may look.
enum Held {
    File(FileId),
    Closed,
    Unreadable,
}

fn stdout_of(pid: u32) -> Held {
    match fd_id(pid, 1) {
        Some(id) => Held::File(id),
        // The fd table is readable but fd 1 is not in it: closed.
        None if fs::read_dir(format!("/proc/{pid}/fd")).is_ok() => Held::Closed,
        None => Held::Unreadable,
    }
}

/// A descriptor a shell moved aside while it redirects a standard one.
struct Saved {
    id: FileId,
    flags: u32,
}

impl Saved {
    /// Whether this was a stdout or stderr rather than a stdin. Write-only
    /// says so. Read-write (a socket, a terminal) is ambiguous: Claude Code
    /// runs `eval '...' < /dev/null` and bash keeps the socket it got as
    /// stdin here. It cannot be a saved stdin if stdin is still that same
    /// object (a terminal agent's `{ ...; } > f`).
    fn was_an_output(&self, stdin_now: Option<FileId>) -> bool {
        self.flags & libc::O_ACCMODE as u32 == libc::O_WRONLY as u32 || stdin_now == Some(self.id)
    }
}

/// The descriptors ≥ 10 a shell holds open for writing, close-on-exec:
/// where it keeps a standard descriptor it redirected for a while. `None`
/// when the fd table cannot be read.
fn saved_descriptors(pid: u32) -> Option<Vec<Saved>> {
    let mut saved = Vec::new();
    for entry in fs::read_dir(format!("/proc/{pid}/fd")).ok()? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(fd) = name.parse::<u32>() else { continue };
        if fd < SAVED_FD_BASE {
            continue;
        }
        // Saved copies are close-on-exec (the shell's children must not get
        // them); a descriptor the shell inherited is not, and says nothing.
        let Some(flags) = fd_flags(pid, &name) else { continue };
        if !writable(flags) || flags & libc::O_CLOEXEC as u32 == 0 {
            continue;
        }
        // A descriptor that closed while we looked saves nothing.
        if let Some(id) = fd_id(pid, fd) {
            saved.push(Saved { id, flags });
        }
    }
    Some(saved)
}

/// The text a shell runs: its `-c` argument, or the start of the script
/// file it was given. Empty for an interactive shell or one reading stdin.
fn script_of(pid: u32) -> Option<String> {
    let cmdline = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    match script_source(&args) {
        Source::Inline(text) => Some(text.to_owned()),
        Source::File(path) => {
            let mut text = String::new();
            let file = fs::File::open(path).ok()?;
            file.take(SCRIPT_READ_LIMIT).read_to_string(&mut text).ok()?;
            Some(text)
        }
        Source::None => Some(String::new()),
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Source<'a> {
    Inline(&'a str),
    File(&'a str),
    None,
}

/// Where a shell's command line says its script is: `sh -c TEXT`, `bash
/// -lc TEXT`, `bash -e script.sh`, or nothing (interactive, `-s`).
fn script_source(args: &[String]) -> Source<'_> {
    let mut inline = false;
    for arg in args.iter().skip(1) {
        if arg == "--" {
            continue;
        }
        if let Some(flags) = arg.strip_prefix('-').filter(|f| !f.starts_with('-')) {
            if flags.contains('c') {
                inline = true;
            }
            if flags.contains('s') {
                return Source::None;
            }
            continue;
        }
        if arg.starts_with("--") || arg.starts_with('+') {
            continue;
        }
        return if inline { Source::Inline(arg) } else { Source::File(arg) };
    }
    Source::None
}

/// Whether a script holds `exec` followed by an output redirection
/// (`exec > f`, `exec >>f 2>&1`, `exec 1>f`, `exec &>f`): the shell then
/// writes its own stdout to that file with nothing saved to tell us.
/// Conservative on purpose: a comment or a string that says so counts too.
fn execs_a_redirect(script: &str) -> bool {
    let bytes = script.as_bytes();
    let mut from = 0;
    while let Some(at) = script[from..].find("exec").map(|i| from + i) {
        from = at + 4;
        let before_ok = at == 0 || !is_word_byte(bytes[at - 1]);
        let rest = &script[at + 4..];
        if !before_ok || !rest.starts_with(|c: char| c.is_ascii_whitespace()) {
            continue;
        }
        let rest = rest.trim_start_matches([' ', '\t']);
        let redirect = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if redirect.starts_with('>') {
            return true;
        }
    }
    false
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'$')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> Vec<String> {
        line.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn where_the_script_is() {
        assert_eq!(script_source(&args(&["bash", "-c", "echo hi"])), Source::Inline("echo hi"));
        assert_eq!(script_source(&args(&["/bin/bash", "-lc", "ls", "name"])), Source::Inline("ls"));
        assert_eq!(script_source(&args(&["bash", "-e", "-c", "ls"])), Source::Inline("ls"));
        assert_eq!(script_source(&args(&["bash", "--norc", "run.sh", "a"])), Source::File("run.sh"));
        assert_eq!(script_source(&args(&["sh", "-x", "./build.sh"])), Source::File("./build.sh"));
        assert_eq!(script_source(&args(&["-bash"])), Source::None);
        assert_eq!(script_source(&args(&["bash", "-s", "x"])), Source::None);
    }

    #[test]
    fn exec_redirections_are_found() {
        for s in [
            "exec > out.json; aws ec2 describe-vpcs",
            "set -e\nexec >>log 2>&1\naws s3 ls",
            "eval 'exec 1>f && aws sts get-caller-identity'",
            "x=1; exec &> all.log",
            "exec\t>f",
        ] {
            assert!(execs_a_redirect(s), "{s}");
        }
    }

    #[test]
    fn other_execs_and_lookalikes_are_not() {
        for s in [
            "exec aws ec2 describe-vpcs > out.json",
            "exec 3<input.txt",
            "docker exec web ls > f",
            "aws ecs execute-command > f",
            "echo $exec > f",
            "source snap.sh && eval 'aws ec2 describe-vpcs' && pwd -P >| /tmp/cwd",
            "",
        ] {
            assert!(!execs_a_redirect(s), "{s}");
        }
    }
}
