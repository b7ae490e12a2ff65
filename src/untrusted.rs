//! Reading a file we did not write (a settings file, `.lfsconfig`) without
//! trusting its size or its kind: the descriptor is checked after `open`
//! (`fstat`, `fstatfs`), not the path before it, so a symlink swapped in
//! between changes nothing; the read goes through `take()` and stops past
//! the cap. A FIFO is opened non-blocking so `open` itself cannot hang.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Settings files (`config.toml`, `.tokensieve.toml`): docs/config.md.
pub const SETTINGS_MAX_BYTES: u64 = 1 << 20;

/// `procfs` and `sysfs`: their files say "regular" and have no end
/// (`/proc/self/pagemap`) or change under the reader.
const PSEUDO_FS: &[i64] = &[0x9fa0, 0x6265_6572];

/// The bytes of `path` (at most `cap`) and its metadata, or one line
/// saying why not: not a regular file, a kernel pseudo-file, over the cap.
pub fn read(path: &Path, cap: u64) -> io::Result<(Vec<u8>, Metadata)> {
    let file = open_regular(path)?;
    let meta = file.metadata()?;
    if meta.len() > cap {
        return Err(too_big(cap));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&file).take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_big(cap));
    }
    Ok((bytes, meta))
}

/// `read`, as UTF-8 text.
pub fn read_text(path: &Path, cap: u64) -> io::Result<(String, Metadata)> {
    let (bytes, meta) = read(path, cap)?;
    let text =
        String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))?;
    Ok((text, meta))
}

/// Opens `path` for reading when the opened descriptor is a regular file
/// on a real file system.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    // SAFETY: fstatfs on a descriptor we own, into a zeroed struct.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut fs) } == 0 && PSEUDO_FS.contains(&(fs.f_type as i64)) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "a kernel pseudo-file, not a settings file"));
    }
    // Blocking again for the read itself (a regular file never blocks, but
    // a reader should not see EAGAIN surprises).
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
    Ok(file)
}

/// Why a project file is not honoured (git's `safe.directory` reasoning):
/// someone else owns it, or others may write it. `None`: it is the
/// user's (or root's) and only its owner can change it.
pub fn foreign(meta: &Metadata) -> Option<String> {
    // SAFETY: getuid cannot fail.
    let me = unsafe { libc::getuid() };
    if meta.uid() != me && meta.uid() != 0 {
        return Some(format!("owned by uid {}, not you", meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Some(format!("writable by others (mode {:o})", meta.mode() & 0o777));
    }
    None
}

/// A reader of at most `left` bytes that fails, rather than stops, when
/// its source has more: a download that overruns what it announced is an
/// error, not a truncated object.
pub struct Capped<R> {
    inner: R,
    left: u64,
    cap: u64,
}

impl<R: Read> Capped<R> {
    pub fn new(inner: R, cap: u64) -> Capped<R> {
        Capped { inner, left: cap, cap }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("more than the {} bytes it may be", self.cap),
                )),
            };
        }
        let want = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.left -= n as u64;
        Ok(n)
    }
}

/// Text from elsewhere (a server, a manifest) made safe for a terminal:
/// control characters escaped (`\u{1b}`), at most `max` characters.
pub fn printable(s: &str, max: usize) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

fn too_big(cap: u64) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("larger than {} KiB, not a settings file", cap >> 10))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proc_file_a_fifo_a_folder_and_an_oversized_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let pagemap = dir.path().join("pagemap");
        std::os::unix::fs::symlink("/proc/self/pagemap", &pagemap).unwrap();
        let e = read(&pagemap, SETTINGS_MAX_BYTES).unwrap_err();
        assert!(e.to_string().contains("pseudo-file"), "{e}");
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(read(&fifo, SETTINGS_MAX_BYTES).unwrap_err().to_string().contains("not a regular file"));
        assert!(read(dir.path(), SETTINGS_MAX_BYTES).is_err());
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'#'; 2048]).unwrap();
        assert!(read(&big, 1024).unwrap_err().to_string().contains("larger than 1 KiB"));
        assert_eq!(read(&big, 4096).unwrap().0.len(), 2048);
    }

    #[test]
    fn a_capped_reader_fails_past_its_cap_and_passes_up_to_it() {
        let mut out = Vec::new();
        assert!(Capped::new(&b"abcdef"[..], 5).read_to_end(&mut out).is_err());
        out.clear();
        Capped::new(&b"abcde"[..], 5).read_to_end(&mut out).unwrap();
        assert_eq!(out, b"abcde");
        let mut endless = Capped::new(io::repeat(b'x'), 1 << 20);
        assert!(io::copy(&mut endless, &mut io::sink()).is_err());
    }

    #[test]
    fn terminal_escapes_from_a_remote_are_printed_escaped() {
        assert_eq!(printable("id\u{1b}]0;pwned\u{7}x", 100), "id\\u{1b}]0;pwned\\u{7}x");
        assert_eq!(printable("abcdef", 3), "abc…");
    }
}
