//! The raw store: every compressed call's stdout, byte for byte, so that
//! compression never loses anything for good.
//!
//! Layout under `$TOKENSIEVE_HOME` (default `~/.tokensieve`):
//! - `objects/ab/cdef…`: one file per distinct output, named by the sha256 of
//!   its bytes (first two hex digits are the folder). Folders 0700, files 0600.
//! - `evicted.log` (and `evicted.log.1`): full hashes of evicted objects, so
//!   `show` can tell "evicted" from "never stored".
//!
//! - `objects.size`, `objects.lock`: the running total of object bytes (so a
//!   call need not stat every object) and the lock that keeps it exact.
//!
//! Writes are atomic (temp file in the same folder, then rename), identical
//! outputs are stored once, and after every `put` the objects fit the size cap
//! (oldest modification time evicted first; storing an existing object again
//! refreshes its time).

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// Hex digits of the hash shown in receipts (48 bits: collisions are
/// negligible at any realistic store size; `show` still reports ambiguity).
pub const ID_LEN: usize = 12;
/// Shortest prefix `show` accepts.
pub const MIN_ID_LEN: usize = 4;
/// Default cap on the bytes of all objects together.
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// Eviction log size that triggers rotation to `evicted.log.1`.
const EVICTION_LOG_ROTATE: u64 = 1024 * 1024;
/// Temp files older than this were left by a crashed writer.
const STALE_TMP: Duration = Duration::from_secs(3600);
/// The size ledger is trusted for this long, then re-counted by a walk (it
/// can drift if objects are removed by hand or a writer dies mid-commit).
const LEDGER_MAX_AGE: Duration = Duration::from_secs(3600);

/// `$TOKENSIEVE_HOME`, else `~/.tokensieve`; always absolute.
pub fn home() -> PathBuf {
    let base = match std::env::var_os("TOKENSIEVE_HOME") {
        Some(h) if !h.is_empty() => PathBuf::from(h),
        _ => match std::env::home_dir() {
            Some(h) => h.join(".tokensieve"),
            None => PathBuf::from(".tokensieve"),
        },
    };
    if base.is_absolute() { base } else { std::env::current_dir().map(|d| d.join(&base)).unwrap_or(base) }
}

/// Creates `dir` and missing parents with mode 0700.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Parses a byte count: `1048576`, `512K`, `64M`, `1G` (binary units), `0`
/// disables the store.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let (digits, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m = match c.to_ascii_uppercase() {
                'K' => 1u64 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                _ => bail!("'{s}' is not a size (use bytes, or a K, M or G suffix)"),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let n: u64 = digits.trim().parse().map_err(|_| anyhow::anyhow!("'{s}' is not a size"))?;
    n.checked_mul(mult).with_context(|| format!("'{s}' is too large"))
}

/// The cap from `TOKENSIEVE_STORE_MAX_BYTES`, or the default.
pub fn max_bytes_from_env() -> Result<u64> {
    match std::env::var("TOKENSIEVE_STORE_MAX_BYTES") {
        Ok(v) if !v.trim().is_empty() => parse_size(&v).context("TOKENSIEVE_STORE_MAX_BYTES"),
        _ => Ok(DEFAULT_MAX_BYTES),
    }
}

/// Full lowercase hex sha256 of `bytes`.
pub fn hash_hex(bytes: &[u8]) -> String {
    hex_of(Sha256::digest(bytes).as_slice())
}

fn hex_of(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    // Two table look-ups per byte: deliver hashes every output, and a
    // `format!` per byte allocated 32 small strings each time.
    for b in digest.iter() {
        hex.push(DIGITS[(b >> 4) as usize] as char);
        hex.push(DIGITS[(b & 15) as usize] as char);
    }
    hex
}

/// `objects/ab/cdef…` for a full hash.
pub fn object_path(objects: &Path, hex: &str) -> PathBuf {
    objects.join(&hex[..2]).join(&hex[2..])
}

/// Normalises what a user typed as an id: trimmed, lowercase hex,
/// `MIN_ID_LEN..=64` digits.
pub fn parse_id(s: &str) -> Result<String> {
    let id = s.trim().to_ascii_lowercase();
    if id.len() < MIN_ID_LEN || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("'{s}' is not a raw output id (the hex after 'raw:' in a receipt)");
    }
    Ok(id)
}

/// Where one output will live, known before anything is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub hex: String,
    /// The short id printed in receipts.
    pub id: String,
    pub path: PathBuf,
}

/// What `find` learned about an id.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    Found { hex: String, path: PathBuf },
    Evicted,
    NeverStored,
    Ambiguous(usize),
}

#[derive(Clone, Debug)]
pub struct Store {
    home: PathBuf,
    max_bytes: u64,
}

impl Store {
    pub fn new(home: PathBuf, max_bytes: u64) -> Store {
        Store { home, max_bytes }
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    pub fn objects_dir(&self) -> PathBuf {
        self.home.join("objects")
    }

    fn eviction_log(&self) -> PathBuf {
        self.home.join("evicted.log")
    }

    /// The id and path `raw` will get, without touching the disk. `None` when
    /// it will not be stored: empty, store disabled (cap 0) or larger than
    /// the whole cap.
    pub fn plan(&self, raw: &[u8]) -> Option<Object> {
        if raw.is_empty() || raw.len() as u64 > self.max_bytes {
            return None;
        }
        let hex = hash_hex(raw);
        let path = object_path(&self.objects_dir(), &hex);
        Some(Object { id: hex[..ID_LEN].to_owned(), hex, path })
    }

    /// Stores `raw` at `obj` (from `plan(raw)`), then evicts the oldest
    /// objects until the store fits its cap.
    pub fn put(&self, raw: &[u8], obj: &Object) -> Result<()> {
        let dir = obj.path.parent().expect("object paths have a folder");
        create_private_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        if obj.path.exists() {
            touch(&obj.path);
            return Ok(());
        }
        // The slow part (writing the bytes) happens outside the lock.
        let tmp = write_temp(dir, raw).with_context(|| format!("cannot write to {}", dir.display()))?;
        let result = self.commit(&tmp, obj, raw.len() as u64);
        let _ = fs::remove_file(&tmp); // gone after a rename; left over otherwise
        result
    }

    /// Under the store lock: renames the temp file into place and keeps the
    /// size ledger, walking the store only when the cap may be exceeded or
    /// the ledger is missing, garbled or due for a re-count.
    fn commit(&self, tmp: &Path, obj: &Object, size: u64) -> Result<()> {
        let lock = self.home.join("objects.lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&lock)
            .with_context(|| format!("cannot open {}", lock.display()))?;
        lock.lock().context("cannot lock the raw store")?;
        if obj.path.exists() {
            // A concurrent call stored the same bytes first.
            touch(&obj.path);
            return Ok(());
        }
        fs::rename(tmp, &obj.path).with_context(|| format!("cannot write {}", obj.path.display()))?;
        let ledger = self.read_ledger();
        let (mut total, walked_at) = match ledger {
            Some((total, at)) => (total + size, at),
            None => {
                (self.list().context("cannot list the raw store")?.iter().map(|o| o.size).sum(), now_secs())
            }
        };
        if total > self.max_bytes {
            total = self.evict(&obj.path)?;
            self.write_ledger(total, now_secs())
        } else {
            self.write_ledger(total, walked_at)
        }
        .context("cannot write the store's size ledger")
    }

    /// `(total bytes, when last counted by a walk)`, if fresh and readable.
    fn read_ledger(&self) -> Option<(u64, u64)> {
        let text = fs::read_to_string(self.home.join("objects.size")).ok()?;
        let (total, at) = text.trim().split_once(' ')?;
        let (total, at): (u64, u64) = (total.parse().ok()?, at.parse().ok()?);
        let age = now_secs().checked_sub(at)?;
        (age <= LEDGER_MAX_AGE.as_secs()).then_some((total, at))
    }

    fn write_ledger(&self, total: u64, walked_at: u64) -> io::Result<()> {
        let mut f = OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(true)
            .mode(0o600)
            .open(self.home.join("objects.size"))?;
        f.write_all(format!("{total} {walked_at}\n").as_bytes())
    }

    /// Evicts oldest-first until the objects total at most the cap, never
    /// evicting `keep` (the object just stored). Returns the bytes left.
    fn evict(&self, keep: &Path) -> Result<u64> {
        let mut objects = self.list().context("cannot list the raw store")?;
        let mut total: u64 = objects.iter().map(|o| o.size).sum();
        objects.sort_by(|a, b| a.mtime.cmp(&b.mtime).then_with(|| a.path.cmp(&b.path)));
        let mut evicted = Vec::new();
        for o in objects {
            if total <= self.max_bytes {
                break;
            }
            if o.path == keep {
                continue;
            }
            match fs::remove_file(&o.path) {
                Ok(()) => evicted.push(o.hex),
                // Removed by hand meanwhile: it no longer counts either.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| format!("cannot evict {}", o.path.display())),
            }
            total = total.saturating_sub(o.size);
        }
        self.log_evictions(&evicted).context("cannot write the eviction log")?;
        Ok(total)
    }

    fn log_evictions(&self, hexes: &[String]) -> io::Result<()> {
        if hexes.is_empty() {
            return Ok(());
        }
        let log = self.eviction_log();
        if fs::metadata(&log).map(|m| m.len() > EVICTION_LOG_ROTATE).unwrap_or(false) {
            let _ = fs::rename(&log, self.home.join("evicted.log.1"));
        }
        let mut text = String::with_capacity(hexes.len() * 65);
        for h in hexes {
            text.push_str(h);
            text.push('\n');
        }
        // One O_APPEND write: lines from concurrent evictors never interleave.
        let mut f = OpenOptions::new().create(true).append(true).mode(0o600).open(&log)?;
        f.write_all(text.as_bytes())
    }

    /// Every stored object (and removes temp files left by crashed writers).
    fn list(&self) -> io::Result<Vec<Entry>> {
        let mut out = Vec::new();
        let objects = self.objects_dir();
        let dirs = match fs::read_dir(&objects) {
            Ok(d) => d,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(e),
        };
        for dir in dirs {
            let dir = dir?;
            let prefix = dir.file_name().to_string_lossy().into_owned();
            if prefix.starts_with(".tmp-") {
                // a spool (see `Spool`) left by a writer that was killed
                remove_if_stale(&dir.path());
                continue;
            }
            if prefix.len() != 2 || !is_hex(&prefix) || !dir.file_type()?.is_dir() {
                continue;
            }
            let files = match fs::read_dir(dir.path()) {
                Ok(f) => f,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            for file in files {
                let file = file?;
                let name = file.file_name().to_string_lossy().into_owned();
                let Ok(meta) = file.metadata() else { continue };
                let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                if name.starts_with(".tmp-") {
                    remove_if_stale(&file.path());
                    continue;
                }
                if name.len() != 62 || !is_hex(&name) {
                    continue;
                }
                out.push(Entry {
                    hex: format!("{prefix}{name}"),
                    path: file.path(),
                    size: meta.len(),
                    mtime,
                });
            }
        }
        Ok(out)
    }

    /// Total bytes of all objects.
    pub fn total_bytes(&self) -> io::Result<u64> {
        Ok(self.list()?.iter().map(|o| o.size).sum())
    }

    /// Resolves an id (any prefix of at least `MIN_ID_LEN` hex digits).
    pub fn find(&self, id: &str) -> Result<Lookup> {
        let id = parse_id(id)?;
        let dir = self.objects_dir().join(&id[..2]);
        let rest = &id[2..];
        let mut matches = Vec::new();
        match fs::read_dir(&dir) {
            Ok(files) => {
                for f in files {
                    let name = f?.file_name().to_string_lossy().into_owned();
                    if name.len() == 62 && is_hex(&name) && name.starts_with(rest) {
                        matches.push(name);
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
        }
        match matches.len() {
            0 if self.was_evicted(&id) => Ok(Lookup::Evicted),
            0 => Ok(Lookup::NeverStored),
            1 => {
                let hex = format!("{}{}", &id[..2], matches[0]);
                Ok(Lookup::Found { path: dir.join(&matches[0]), hex })
            }
            n => Ok(Lookup::Ambiguous(n)),
        }
    }

    /// Whether a hash starting with `id` is in the eviction log.
    fn was_evicted(&self, id: &str) -> bool {
        [self.home.join("evicted.log.1"), self.eviction_log()].iter().any(|log| {
            let mut text = String::new();
            File::open(log).and_then(|mut f| f.read_to_string(&mut text)).is_ok()
                && text.lines().any(|l| l.starts_with(id))
        })
    }
}

struct Entry {
    hex: String,
    path: PathBuf,
    size: u64,
    mtime: SystemTime,
}

/// Temp files untouched for `STALE_TMP` were left by a writer that died.
fn remove_if_stale(tmp: &Path) {
    let age = fs::symlink_metadata(tmp).and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
    if age.is_some_and(|age| age > STALE_TMP) {
        let _ = fs::remove_file(tmp);
    }
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Refreshes an object's age: storing the same bytes again counts as use.
fn touch(path: &Path) {
    let f = OpenOptions::new().write(true).open(path);
    let _ = f.and_then(|f| f.set_modified(SystemTime::now()));
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// A fresh 0600 temp file in `dir`, open for reading and writing; renamed
/// into place later, so readers see a whole object or none.
fn create_temp(dir: &Path) -> io::Result<(PathBuf, File)> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let tmp =
        dir.join(format!(".tmp-{}-{}-{}", std::process::id(), nanos, SEQ.fetch_add(1, Ordering::Relaxed)));
    let file = OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&tmp)?;
    Ok((tmp, file))
}

/// Writes `bytes` to a fresh temp file in `dir` (see `create_temp`).
fn write_temp(dir: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let (tmp, mut file) = create_temp(dir)?;
    match file.write_all(bytes) {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// An output written to the store while it is still arriving (the shim's
/// capture of an output too large to hold in memory): the bytes go to a temp
/// file in `objects/` as they come, hashed on the way, and `commit` names
/// the object by that hash. Until then `copy_to` gives every byte back.
/// Dropped without `commit`, the temp file goes.
pub struct Spool {
    store: Store,
    tmp: PathBuf,
    file: File,
    hasher: Sha256,
    len: u64,
}

impl Store {
    /// Starts a spool. Fails when the store is off (cap 0) or its folder
    /// cannot be written.
    pub fn spool(&self) -> Result<Spool> {
        if self.max_bytes == 0 {
            bail!("the raw store is off (TOKENSIEVE_STORE_MAX_BYTES=0)");
        }
        let dir = self.objects_dir();
        create_private_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let (tmp, file) = create_temp(&dir).with_context(|| format!("cannot write to {}", dir.display()))?;
        Ok(Spool { store: self.clone(), tmp, file, hasher: Sha256::new(), len: 0 })
    }
}

impl Spool {
    /// Appends `bytes`. Fails (and keeps nothing of them) past the store's
    /// cap, since such an output could not be kept anyway, or on a write
    /// error; `len` then still counts the bytes safely written.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        let len = self.len + bytes.len() as u64;
        if len > self.store.max_bytes {
            bail!("the output is larger than the raw store's cap ({} bytes)", self.store.max_bytes);
        }
        self.file.write_all(bytes).with_context(|| format!("cannot write {}", self.tmp.display()))?;
        self.hasher.update(bytes);
        self.len = len;
        Ok(())
    }

    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Writes the first `len()` bytes to `out`, read through the open file
    /// (so a temp file removed meanwhile still reads back).
    pub fn copy_to(&self, out: &mut dyn Write) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut buf = vec![0u8; 1 << 16];
        let mut at = 0u64;
        while at < self.len {
            let want = (self.len - at).min(buf.len() as u64) as usize;
            let n = self.file.read_at(&mut buf[..want], at)?;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the spool file is shorter"));
            }
            out.write_all(&buf[..n])?;
            at += n as u64;
        }
        Ok(())
    }

    /// Moves the bytes into place as an object (then evicts as `put` does).
    /// On an error the bytes are still there for `copy_to`.
    pub fn commit(&mut self) -> Result<Object> {
        let hex = hex_of(self.hasher.clone().finalize().as_slice());
        let path = object_path(&self.store.objects_dir(), &hex);
        let obj = Object { id: hex[..ID_LEN].to_owned(), hex, path };
        let dir = obj.path.parent().expect("object paths have a folder");
        create_private_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        self.store.commit(&self.tmp, &obj, self.len)?;
        Ok(obj)
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        // Gone after a commit's rename; left over otherwise.
        let _ = fs::remove_file(&self.tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_matches_known_sha256() {
        assert_eq!(hash_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn plan_is_pure_and_names_the_object() {
        let store = Store::new(PathBuf::from("/nonexistent/home"), 1024);
        let obj = store.plan(b"abc").unwrap();
        assert_eq!(obj.id, "ba7816bf8f01");
        assert_eq!(
            obj.path,
            PathBuf::from(
                "/nonexistent/home/objects/ba/7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            )
        );
        assert!(!Path::new("/nonexistent").exists());
    }

    #[test]
    fn plan_declines_empty_disabled_and_oversized() {
        assert_eq!(Store::new("/h".into(), 1024).plan(b""), None);
        assert_eq!(Store::new("/h".into(), 0).plan(b"x"), None);
        assert_eq!(Store::new("/h".into(), 3).plan(b"abcd"), None);
        assert!(Store::new("/h".into(), 4).plan(b"abcd").is_some());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1048576").unwrap(), 1 << 20);
        assert_eq!(parse_size("64M").unwrap(), 64 << 20);
        assert_eq!(parse_size(" 2k ").unwrap(), 2048);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("0").unwrap(), 0);
        assert!(parse_size("ten").is_err());
        assert!(parse_size("5X").is_err());
        assert!(parse_size("-1").is_err());
    }

    #[test]
    fn ids() {
        assert_eq!(parse_id(" BA7816BF8F01 ").unwrap(), "ba7816bf8f01");
        assert!(parse_id("abc").is_err());
        assert!(parse_id("../etc/passwd").is_err());
        assert!(parse_id(&"a".repeat(65)).is_err());
    }
}
