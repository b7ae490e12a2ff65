//! Every file tokensieve writes under its home goes through a `Dir`: a folder
//! held open by descriptor, with names resolved one component at a time
//! relative to it (`openat` and friends), so nothing planted inside the home
//! can send a write elsewhere.
//!
//! - The home itself is opened as the user named it (it may be a symlink
//!   they made: `~/.tokensieve -> /data/ts`). Below it, nothing is followed:
//!   a folder that is a symlink is refused, a file name that is a symlink or
//!   a special file is never opened for writing (`O_NOFOLLOW`, then a check
//!   that the descriptor is a regular file).
//! - Folders we create are 0700 whatever the umask (mode set with `fchmod`
//!   and read back); files are 0600.
//! - Writers that own a name (a ledger, a log, a lock) replace whatever
//!   foreign thing sits there (`Access::Write`, `Append`, `Lock`): the
//!   symlink or FIFO is unlinked, never followed, and a new file made.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Mode of every folder we create.
pub const DIR_MODE: u32 = 0o700;
/// Mode of every file we create (the binary and its shims aside).
pub const FILE_MODE: u32 = 0o600;
/// Names of temp files start with this; `temp` makes them.
pub const TEMP_PREFIX: &str = ".tmp-";

/// An open folder under (or at) the home.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

/// How `Dir::open` opens a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read an existing file; a symlink or special file is an error.
    Read,
    /// Create or truncate, then write.
    Write,
    /// Create if missing, every write at the end.
    Append,
    /// Create if missing, keep the contents (a file to `flock`).
    Lock,
}

/// What `Dir::entries` and `Dir::stat` report about a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Other,
}

/// `Dir::stat` of one name, never following a symlink.
#[derive(Clone, Copy, Debug)]
pub struct Stat {
    pub kind: Kind,
    pub size: u64,
    pub mtime: SystemTime,
    /// Permission bits (`0o7777`).
    pub mode: u32,
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(r) }
}

/// A single path component as a C string: no `/`, not empty, not `.`/`..`.
fn component(name: &str) -> io::Result<CString> {
    if name.is_empty() || name == "." || name == ".." || name.contains('/') || name.contains('\0') {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("'{name}' is not a file name")));
    }
    Ok(CString::new(name).expect("no NUL checked above"))
}

fn fstat(fd: libc::c_int) -> io::Result<libc::stat> {
    // SAFETY: `st` is plain old data that fstat fills in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    cvt(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st)
}

fn kind_of(mode: libc::mode_t) -> Kind {
    match mode & libc::S_IFMT {
        libc::S_IFREG => Kind::File,
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFLNK => Kind::Symlink,
        _ => Kind::Other,
    }
}

fn stat_of(st: &libc::stat) -> Stat {
    let mtime =
        UNIX_EPOCH + Duration::new(st.st_mtime.max(0) as u64, st.st_mtime_nsec.clamp(0, 999_999_999) as u32);
    Stat { kind: kind_of(st.st_mode), size: st.st_size.max(0) as u64, mtime, mode: st.st_mode & 0o7777 }
}

/// The error for a name that is a symlink or not the kind we expect.
fn refused(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is {what}; tokensieve does not follow it", path.display()),
    )
}

/// Sets `fd` (a folder we just made) to 0700 and checks that it took.
fn make_private(fd: libc::c_int, path: &Path) -> io::Result<()> {
    cvt(unsafe { libc::fchmod(fd, DIR_MODE as libc::mode_t) })?;
    let mode = fstat(fd)?.st_mode & 0o7777;
    if mode != DIR_MODE {
        return Err(io::Error::other(format!("{} is mode {mode:o}, not {DIR_MODE:o}", path.display())));
    }
    Ok(())
}

impl Dir {
    /// Opens the home folder `path`, creating it (and missing parents) when
    /// `create` is set. A folder created here is 0700 whatever the umask.
    pub fn home(path: &Path, create: bool) -> io::Result<Dir> {
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path with a NUL byte"))?;
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC;
        // SAFETY: a valid C string; the descriptor is owned right away.
        let open =
            || cvt(unsafe { libc::open(c.as_ptr(), flags) }).map(|fd| unsafe { OwnedFd::from_raw_fd(fd) });
        match open() {
            Ok(fd) => Ok(Dir { fd, path: path.to_owned() }),
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::os::unix::fs::DirBuilderExt::mode(
                        std::fs::DirBuilder::new().recursive(true),
                        DIR_MODE,
                    )
                    .create(parent)?;
                }
                let made = match cvt(unsafe { libc::mkdir(c.as_ptr(), DIR_MODE as libc::mode_t) }) {
                    Ok(_) => true,
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
                    Err(e) => return Err(e),
                };
                let fd = open()?;
                if made {
                    make_private(fd.as_raw_fd(), path)?;
                }
                Ok(Dir { fd, path: path.to_owned() })
            }
            Err(e) => Err(e),
        }
    }

    /// The folder `name` inside this one, created 0700 when missing and
    /// `create` is set. A symlink (or anything but a folder) is refused.
    pub fn sub(&self, name: &str, create: bool) -> io::Result<Dir> {
        let c = component(name)?;
        let path = self.path.join(name);
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        let open = || {
            cvt(unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags) })
                .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) })
        };
        let not_a_folder = |e: io::Error| match e.raw_os_error() {
            Some(libc::ELOOP) | Some(libc::ENOTDIR) => refused(&path, "a symlink or not a folder"),
            _ => e,
        };
        match open() {
            Ok(fd) => Ok(Dir { fd, path }),
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                let made = match cvt(unsafe {
                    libc::mkdirat(self.fd.as_raw_fd(), c.as_ptr(), DIR_MODE as libc::mode_t)
                }) {
                    Ok(_) => true,
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
                    Err(e) => return Err(e),
                };
                let fd = open().map_err(not_a_folder)?;
                if made {
                    make_private(fd.as_raw_fd(), &path)?;
                }
                Ok(Dir { fd, path })
            }
            Err(e) => Err(not_a_folder(e)),
        }
    }

    /// Where this folder is (for messages and for readers that take paths).
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Sets this folder to 0700 (checked), e.g. one `install` found lax.
    pub fn make_private(&self) -> io::Result<()> {
        make_private(self.fd.as_raw_fd(), &self.path)
    }

    /// This folder's own permission bits and owner.
    pub fn mode_and_owner(&self) -> io::Result<(u32, u32)> {
        let st = fstat(self.fd.as_raw_fd())?;
        Ok((st.st_mode & 0o7777, st.st_uid))
    }

    /// Opens the file `name` without following a symlink. Writing accesses
    /// create it 0600 when missing, and replace a symlink or special file
    /// found at the name (removed, not followed) with a new file.
    pub fn open(&self, name: &str, access: Access) -> io::Result<File> {
        let c = component(name)?;
        let base = libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK;
        let flags = base
            | match access {
                Access::Read => libc::O_RDONLY,
                Access::Write => libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
                Access::Append => libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND,
                Access::Lock => libc::O_WRONLY | libc::O_CREAT,
            };
        let attempt = |flags: libc::c_int| -> io::Result<File> {
            let fd = cvt(unsafe {
                libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags, FILE_MODE as libc::c_uint)
            })?;
            // SAFETY: a descriptor we just opened and own.
            let file = unsafe { File::from_raw_fd(fd) };
            let st = fstat(fd)?;
            if kind_of(st.st_mode) != Kind::File {
                return Err(refused(&self.join(name), "not a regular file"));
            }
            if access != Access::Read && st.st_mode & 0o7777 != FILE_MODE {
                // Made under a umask that took our own bits away.
                cvt(unsafe { libc::fchmod(fd, FILE_MODE as libc::mode_t) })?;
            }
            Ok(file)
        };
        match attempt(flags) {
            Ok(f) => Ok(f),
            Err(e) if access == Access::Read => match e.raw_os_error() {
                Some(libc::ELOOP) => Err(refused(&self.join(name), "a symlink")),
                _ => Err(e),
            },
            Err(e) if is_foreign(&e) => {
                // Not ours to follow: drop the entry itself and make our file.
                self.remove(name)?;
                attempt(flags | libc::O_EXCL)
            }
            Err(e) => Err(e),
        }
    }

    /// Creates `name` (0600) only if nothing is there; `Ok(None)` if something is.
    pub fn create_new(&self, name: &str) -> io::Result<Option<File>> {
        let c = component(name)?;
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        match cvt(unsafe { libc::openat(self.fd.as_raw_fd(), c.as_ptr(), flags, FILE_MODE as libc::c_uint) })
        {
            Ok(fd) => {
                // SAFETY: a descriptor we just created and own.
                let file = unsafe { File::from_raw_fd(fd) };
                // The umask may have taken our own bits away.
                cvt(unsafe { libc::fchmod(fd, FILE_MODE as libc::mode_t) })?;
                Ok(Some(file))
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// A new temp file (0600) in this folder, and its name. Rename it into
    /// place with `rename`, or `remove` it.
    pub fn temp(&self) -> io::Result<(File, String)> {
        static SEQ: AtomicU64 = AtomicU64::new(0);
        loop {
            let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
            let name = format!(
                "{TEMP_PREFIX}{}-{nanos}-{}",
                std::process::id(),
                SEQ.fetch_add(1, Ordering::Relaxed)
            );
            if let Some(f) = self.create_new(&name)? {
                return Ok((f, name));
            }
        }
    }

    /// Renames `from` in this folder to `to` in `dest` (same file system),
    /// replacing what is there (a symlink is replaced, not followed).
    pub fn rename(&self, from: &str, dest: &Dir, to: &str) -> io::Result<()> {
        let (a, b) = (component(from)?, component(to)?);
        cvt(unsafe { libc::renameat(self.fd.as_raw_fd(), a.as_ptr(), dest.fd.as_raw_fd(), b.as_ptr()) })
            .map(drop)
    }

    /// Removes the file or symlink `name` (a symlink itself, never its target).
    pub fn remove(&self, name: &str) -> io::Result<()> {
        let c = component(name)?;
        cvt(unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0) }).map(drop)
    }

    /// Removes the empty folder `name`.
    pub fn remove_dir(&self, name: &str) -> io::Result<()> {
        let c = component(name)?;
        cvt(unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) }).map(drop)
    }

    /// Makes the symlink `name -> target` in this folder.
    pub fn symlink(&self, target: &str, name: &str) -> io::Result<()> {
        let (t, c) = (CString::new(target).map_err(io::Error::other)?, component(name)?);
        cvt(unsafe { libc::symlinkat(t.as_ptr(), self.fd.as_raw_fd(), c.as_ptr()) }).map(drop)
    }

    /// What `name` is, without following a symlink.
    pub fn stat(&self, name: &str) -> io::Result<Stat> {
        let c = component(name)?;
        // SAFETY: `st` is plain old data that fstatat fills in.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        cvt(unsafe { libc::fstatat(self.fd.as_raw_fd(), c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) })?;
        Ok(stat_of(&st))
    }

    /// The names in this folder (not `.` and `..`) with their kinds.
    pub fn entries(&self) -> io::Result<Vec<(String, Kind)>> {
        let fd = cvt(unsafe { libc::fcntl(self.fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 0) })?;
        // SAFETY: fdopendir takes over the duplicate; closedir below frees both.
        let dir = unsafe { libc::fdopendir(fd) };
        if dir.is_null() {
            let e = io::Error::last_os_error();
            unsafe { libc::close(fd) };
            return Err(e);
        }
        unsafe { libc::rewinddir(dir) };
        let mut out = Vec::new();
        loop {
            // SAFETY: readdir's entry is valid until the next readdir/closedir.
            let ent = unsafe { libc::readdir(dir) };
            if ent.is_null() {
                break;
            }
            let name = unsafe { std::ffi::CStr::from_ptr((*ent).d_name.as_ptr()) };
            let Ok(name) = name.to_str() else { continue };
            if name == "." || name == ".." {
                continue;
            }
            let kind = match unsafe { (*ent).d_type } {
                libc::DT_REG => Kind::File,
                libc::DT_DIR => Kind::Dir,
                libc::DT_LNK => Kind::Symlink,
                libc::DT_UNKNOWN => self.stat(name).map(|s| s.kind).unwrap_or(Kind::Other),
                _ => Kind::Other,
            };
            out.push((name.to_owned(), kind));
        }
        unsafe { libc::closedir(dir) };
        Ok(out)
    }
}

/// An open that failed because the name is a symlink (or, opened
/// non-blocking for writing, a FIFO nobody reads).
fn is_foreign(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::ENXIO))
        || (e.kind() == io::ErrorKind::InvalidInput && e.raw_os_error().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::fs::{PermissionsExt, symlink};

    #[test]
    fn created_folders_are_0700() {
        // Under any umask: tests/store.rs runs the binary under umask 000 and 777.
        let t = tempfile::tempdir().unwrap();
        let h = Dir::home(&t.path().join("a/home"), true).unwrap();
        let sub = h.sub("objects", true).unwrap();
        assert_eq!(h.mode_and_owner().unwrap().0, 0o700);
        assert_eq!(sub.mode_and_owner().unwrap().0, 0o700);
    }

    #[test]
    fn a_symlinked_folder_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let home = Dir::home(&t.path().join("home"), true).unwrap();
        symlink(&elsewhere, home.join("objects")).unwrap();
        let err = home.sub("objects", true).unwrap_err();
        assert!(err.to_string().contains("does not follow"), "{err}");
    }

    #[test]
    fn writers_replace_a_planted_symlink_and_never_touch_its_target() {
        let t = tempfile::tempdir().unwrap();
        let victim = t.path().join("victim");
        std::fs::write(&victim, "precious\n").unwrap();
        let home = Dir::home(&t.path().join("home"), true).unwrap();
        for (name, access) in [("w", Access::Write), ("a", Access::Append), ("l", Access::Lock)] {
            symlink(&victim, home.join(name)).unwrap();
            home.open(name, access).unwrap().write_all(b"ours").unwrap();
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
            assert!(std::fs::symlink_metadata(home.join(name)).unwrap().is_file());
            assert_eq!(std::fs::metadata(home.join(name)).unwrap().permissions().mode() & 0o777, 0o600);
        }
        symlink(&victim, home.join("r")).unwrap();
        assert!(home.open("r", Access::Read).is_err());
    }

    #[test]
    fn a_fifo_is_replaced_not_waited_on() {
        let t = tempfile::tempdir().unwrap();
        let home = Dir::home(&t.path().join("home"), true).unwrap();
        let fifo = CString::new(home.join("f").as_os_str().as_bytes()).unwrap();
        cvt(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }).unwrap();
        home.open("f", Access::Write).unwrap().write_all(b"x").unwrap();
        let mut s = String::new();
        home.open("f", Access::Read).unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "x");
    }

    #[test]
    fn temp_rename_and_entries() {
        let t = tempfile::tempdir().unwrap();
        let home = Dir::home(&t.path().join("home"), true).unwrap();
        let sub = home.sub("s", true).unwrap();
        let (mut f, name) = home.temp().unwrap();
        f.write_all(b"data").unwrap();
        home.rename(&name, &sub, "final").unwrap();
        assert_eq!(sub.entries().unwrap(), vec![("final".to_owned(), Kind::File)]);
        assert_eq!(sub.stat("final").unwrap().size, 4);
        assert!(home.sub("../x", true).is_err());
    }
}
