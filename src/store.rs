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
//! Every write goes through `homefs::Dir` (nothing planted in the home is
//! followed). Writes are atomic (a temp file in `objects/`, writeback
//! started, then renamed into place), identical outputs are stored once (an
//! existing copy is compared byte for byte first, and replaced when damaged),
//! and after every store the objects fit the size cap (oldest modification
//! time evicted first; storing an existing object again refreshes its time).
//!
//! # Design: Raw store and history (`src/store.rs`, `src/history.rs`)
//!
//! Everything lives under `store::home()`: `$TOKENSIEVE_HOME`, else
//! `~/.tokensieve` (folders 0700, files 0600).
//!
//! - **Writing under the home** (`src/homefs.rs`): every file tokensieve
//!   writes there goes through `homefs::Dir`, a folder held open by
//!   descriptor with names resolved one component at a time (`openat`,
//!   `mkdirat`, `renameat`, `unlinkat`). The home itself may be a symlink the
//!   user made; below it nothing is followed: `Dir::sub` refuses a folder that
//!   is a symlink (an `objects/ab` planted to point elsewhere), `Dir::open`
//!   opens files `O_NOFOLLOW` and checks the descriptor is a regular file.
//!   The writing accesses (`Write`, `Append`, `Lock`) own their name: a
//!   symlink or FIFO found there is unlinked (never followed) and replaced by
//!   a new 0600 file. Folders it creates get 0700 with `fchmod`, read back,
//!   whatever the umask. `Dir::temp` + `Dir::rename` is the atomic write.
//!   Use it for anything new under the home; nothing else there may call
//!   `std::fs` to write.
//! - **Objects** (`objects/ab/cdef…`): the raw stdout of each compressed call,
//!   named by its sha256; the receipt shows the first 12 hex digits and `show`
//!   accepts any unique prefix of 4 or more. Written to a temp file in
//!   `objects/`, writeback started (`sync_file_range`, no wait: an fsync costs
//!   ~7 ms per 200 KB here, as much as the whole call), then renamed into
//!   place: a reader sees all of an object or none of it. `Store::put(raw,
//!   obj)` stores bytes in memory; `Store::writer()` gives an `ObjectWriter`
//!   (`io::Write`, hashing as it goes) for output streamed to disk (the
//!   shim's capture past its memory limit), and `finish()` names it and keeps
//!   it, with the same lock, ledger and eviction; `reader()` reads back what
//!   was written, for a capture that must deliver the bytes itself when they
//!   cannot be kept. The same bytes are stored once: `put` compares an existing copy
//!   byte for byte, refreshes its modification time when intact and replaces
//!   it when damaged (emptied by a power cut, or a symlink). After each `put` the objects total at most
//!   `TOKENSIEVE_STORE_MAX_BYTES` (default 256 MiB; `64M`, `1G` accepted; `0`
//!   turns the store off, and with it every lossy rendering): oldest
//!   modification time goes first, and an output larger than the whole cap is
//!   not stored (so it is delivered whole). A running total in
//!   `objects.size`, kept exact under a lock on `objects.lock`, spares each call
//!   a walk over every object (10,000 objects: 45 ms per call walking, ~1 ms
//!   with the total); the store is walked when the total passes the cap, when
//!   the file is missing or garbled, and at least hourly (drift from objects
//!   removed by hand). Evicted hashes are appended to
//!   `evicted.log` (rotated to `evicted.log.1` at 1 MiB), so `show` answers
//!   "evicted" rather than "never stored"; the history's object ids back that up
//!   once the log has rotated. `show` checks the bytes against their hash
//!   before printing them.
//! - **History** (`history.db`, SQLite through rusqlite's bundled build): WAL
//!   so concurrent shims never block each other for long, `busy_timeout` 5 s,
//!   `synchronous=OFF` (no fsync: a crash of ours cannot damage the file, an
//!   OS crash or power cut can lose recent rows or rarely corrupt it, which
//!   the corrupt-database warning explains how to reset) and the default
//!   checkpoint when the last connection closes, so the next open has no WAL
//!   to recover. Measured over 1,200 consecutive calls: open 0.5 ms, row
//!   0.2 ms; leaving the WAL behind made every open re-read it (3.2 ms at
//!   steady state) and each fsync cost ~1 ms (docs/performance.md). The open
//!   runs beside the render. Schema versioned by `PRAGMA user_version` with an ordered list of migrations applied under
//!   `BEGIN IMMEDIATE`. Table `calls`: time (ms), tool, subcommand, original and
//!   compressed tokens, shape, exit code, duration (ms), object id, and
//!   (migration 3, below: status, cwd, typed result, findings)
//!   (migration 2) the tokens the agent's harness would have shown without us:
//!   the raw output cut to the budget, head and tail halves as Claude Code cuts
//!   (`budget::harness_tokens`; rows from before count their original tokens).
//!   `gain` reports savings against both. The
//!   subcommand is at most four words before the first flag, each a known
//!   subcommand of the tool's family at its place (`src/command/words.rs`:
//!   tables for aws, kubectl, gh, git, docker, cargo, npm, go, terraform,
//!   gcloud, az, redis-cli; common verbs such as `list` for any tool), so no
//!   flag value, path, name or password is kept: `redis-cli AUTH hunter2pass`
//!   is recorded as `redis-cli AUTH`. Learning a tool's subcommands from what
//!   is typed was left out: counting unknown words, even hashed, would keep a
//!   trace of each secret typed in that place.
//! - **Failure is never the agent's problem.** A store or history error
//!   (corrupt, locked past the timeout, unwritable, disk full, a symlink
//!   refused) is one `tokensieve: warning: …` line after the receipt; the
//!   exit code is unchanged. **Nothing is lost:** when the raw bytes of a
//!   compressed call cannot be kept (the store fails, the output is over the
//!   cap, or the store is off with cap `0`), the agent gets the raw bytes
//!   instead of the rendering (receipt `Shape: raw`), since what a rendering
//!   leaves out could not be recovered. `tokensieve gain` (`src/cli/gain.rs`) reads the same table
//!   per command and time window, and on a corrupt database says so and how to
//!   move it aside. `tokensieve show` is `src/cli/show.rs`; an id the store lacks may come
//!   from the team's remote (below).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::homefs::{Access, Dir, Kind, TEMP_PREFIX};

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

/// Full lowercase hex sha256 of `bytes`.
pub fn hash_hex(bytes: &[u8]) -> String {
    hex_of(&Sha256::digest(bytes))
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

impl Object {
    fn for_hex(objects: &Path, hex: String) -> Object {
        Object { id: hex[..ID_LEN].to_owned(), path: object_path(objects, &hex), hex }
    }
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

    /// The id and path `raw` will get, without touching the disk. `None` when
    /// it will not be stored: empty, store disabled (cap 0) or larger than
    /// the whole cap.
    pub fn plan(&self, raw: &[u8]) -> Option<Object> {
        if raw.is_empty() || raw.len() as u64 > self.max_bytes {
            return None;
        }
        Some(Object::for_hex(&self.objects_dir(), hash_hex(raw)))
    }

    /// The home and its `objects` folder, created (0700) when missing.
    fn open_dirs(&self) -> Result<(Dir, Dir)> {
        let home =
            Dir::home(&self.home, true).with_context(|| format!("cannot create {}", self.home.display()))?;
        let objects = home
            .sub("objects", true)
            .with_context(|| format!("cannot use {}", home.join("objects").display()))?;
        Ok((home, objects))
    }

    /// Stores `raw` at `obj` (from `plan(raw)`), then evicts the oldest
    /// objects until the store fits its cap. An intact copy already there is
    /// kept (and its age refreshed); a damaged one is replaced.
    pub fn put(&self, raw: &[u8], obj: &Object) -> Result<()> {
        let (home, objects) = self.open_dirs()?;
        let prefix = objects.sub(&obj.hex[..2], true).context("cannot use the object's folder")?;
        if holds(&prefix, &obj.hex[2..], raw) {
            return Ok(());
        }
        drop(prefix);
        // The slow part (writing the bytes) happens outside the lock.
        let mut pending = Pending::new(home, objects)?;
        pending.write(raw).with_context(|| format!("cannot write to {}", self.objects_dir().display()))?;
        self.commit(pending, &obj.hex)
    }

    /// A writer that streams an output into the store (for captures too big
    /// to hold): bytes go to a temp file in `objects/` as they come, hashed
    /// on the way; `ObjectWriter::finish` names and keeps them.
    pub fn writer(&self) -> Result<ObjectWriter<'_>> {
        let (home, objects) = self.open_dirs()?;
        Ok(ObjectWriter { store: self, pending: Pending::new(home, objects)?, hasher: Sha256::new() })
    }

    /// Under the store lock: renames the temp file into place (replacing a
    /// damaged copy) and keeps the size ledger, walking the store only when
    /// the cap may be exceeded or the ledger is missing, garbled or due for
    /// a re-count.
    fn commit(&self, mut pending: Pending, hex: &str) -> Result<()> {
        pending.start_writeback();
        let Pending { home, objects, .. } = &pending;
        let lock = home.open("objects.lock", Access::Lock).context("cannot open the store's lock file")?;
        lock.lock().context("cannot lock the raw store")?;
        let prefix = objects.sub(&hex[..2], true).context("cannot use the object's folder")?;
        // A file already at this name holds (or held, before damage) these
        // same bytes, so the ledger counted them: replacing it adds nothing.
        let replacing = prefix.stat(&hex[2..]).is_ok_and(|s| s.kind == Kind::File);
        objects
            .rename(&pending.tmp, &prefix, &hex[2..])
            .with_context(|| format!("cannot write {}", prefix.join(&hex[2..]).display()))?;
        pending.renamed = true;
        let size = pending.len;
        let (home, objects) = (&pending.home, &pending.objects);
        let (mut total, walked_at) = match read_ledger(home) {
            Some((total, at)) => (if replacing { total } else { total + size }, at),
            None => {
                (list(objects).context("cannot list the raw store")?.iter().map(|o| o.size).sum(), now_secs())
            }
        };
        if total > self.max_bytes {
            total = self.evict(home, objects, hex)?;
            write_ledger(home, total, now_secs())
        } else {
            write_ledger(home, total, walked_at)
        }
        .context("cannot write the store's size ledger")
    }

    /// Evicts oldest-first until the objects total at most the cap, never
    /// evicting `keep` (the object just stored). Returns the bytes left.
    fn evict(&self, home: &Dir, objects: &Dir, keep: &str) -> Result<u64> {
        let mut all = list(objects).context("cannot list the raw store")?;
        let mut total: u64 = all.iter().map(|o| o.size).sum();
        all.sort_by(|a, b| a.mtime.cmp(&b.mtime).then_with(|| a.hex.cmp(&b.hex)));
        let mut evicted = Vec::new();
        let mut prefixes: HashMap<String, Dir> = HashMap::new();
        for o in all {
            if total <= self.max_bytes {
                break;
            }
            if o.hex == keep {
                continue;
            }
            let (p, name) = o.hex.split_at(2);
            let dir = match prefixes.get(p) {
                Some(d) => d,
                None => {
                    let d = objects.sub(p, false).context("cannot open an object folder")?;
                    prefixes.entry(p.to_owned()).or_insert(d)
                }
            };
            match dir.remove(name) {
                Ok(()) => evicted.push(o.hex),
                // Removed by hand meanwhile: it no longer counts either.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot evict {}", dir.join(name).display()));
                }
            }
            total = total.saturating_sub(o.size);
        }
        log_evictions(home, &evicted, self.max_bytes).context("cannot write the eviction log")?;
        Ok(total)
    }

    /// Total bytes of all objects.
    pub fn total_bytes(&self) -> io::Result<u64> {
        match Dir::home(&self.home, false).and_then(|h| h.sub("objects", false)) {
            Ok(objects) => Ok(list(&objects)?.iter().map(|o| o.size).sum()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
            Err(e) => Err(e),
        }
    }

    /// Every stored object as `(full hash, size)`, sorted by hash.
    pub fn objects(&self) -> io::Result<Vec<(String, u64)>> {
        let mut all = match Dir::home(&self.home, false).and_then(|h| h.sub("objects", false)) {
            Ok(objects) => list(&objects)?.into_iter().map(|o| (o.hex, o.size)).collect(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        all.sort();
        Ok(all)
    }

    /// Resolves an id (any prefix of at least `MIN_ID_LEN` hex digits).
    pub fn find(&self, id: &str) -> Result<Lookup> {
        let id = parse_id(id)?;
        let dir = self.objects_dir().join(&id[..2]);
        let rest = &id[2..];
        let opened = Dir::home(&self.home, false)
            .and_then(|h| h.sub("objects", false))
            .and_then(|o| o.sub(&id[..2], false));
        let mut matches = Vec::new();
        match opened.and_then(|d| d.entries()) {
            Ok(files) => {
                for (name, kind) in files {
                    if kind == Kind::File && name.len() == 62 && is_hex(&name) && name.starts_with(rest) {
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

    /// The stored bytes of the object `hex` (not checked against the hash).
    pub fn read(&self, hex: &str) -> io::Result<Vec<u8>> {
        // A name from elsewhere (a server's answer) is checked before any slice.
        if hex.len() != 64 || !is_hex(hex) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a sha256 object name"));
        }
        let dir = Dir::home(&self.home, false)?.sub("objects", false)?.sub(&hex[..2], false)?;
        let mut bytes = Vec::new();
        dir.open(&hex[2..], Access::Read)?.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Whether a hash starting with `id` is in the eviction log.
    fn was_evicted(&self, id: &str) -> bool {
        self.eviction(id).is_some()
    }

    /// The cap that evicted the object `id` names, as the eviction log
    /// recorded it (`Some(None)`: evicted, by a cap an older version did
    /// not write down; `None`: not in the log).
    pub fn eviction(&self, id: &str) -> Option<Option<u64>> {
        let home = Dir::home(&self.home, false).ok()?;
        let mut found = None;
        for log in ["evicted.log.1", "evicted.log"] {
            let mut text = String::new();
            if home
                .open(log, Access::Read)
                .and_then(|f| f.take(2 * EVICTION_LOG_ROTATE).read_to_string(&mut text))
                .is_err()
            {
                continue;
            }
            for line in text.lines().filter(|l| l.starts_with(id)) {
                found = Some(line.split_once(' ').and_then(|(_, cap)| cap.trim().parse().ok()));
            }
        }
        found
    }
}

/// Streams one output into the store; see `Store::writer`. Dropped without
/// `finish`, it removes its temp file.
pub struct ObjectWriter<'s> {
    store: &'s Store,
    pending: Pending,
    hasher: Sha256,
}

impl ObjectWriter<'_> {
    /// Bytes written so far.
    pub fn len(&self) -> u64 {
        self.pending.len
    }

    pub fn is_empty(&self) -> bool {
        self.pending.len == 0
    }

    /// A second, read-only descriptor of the bytes being written, for
    /// whoever must give them back if they cannot be kept (it still reads
    /// after the temp file is removed).
    pub fn reader(&self) -> io::Result<File> {
        self.pending.objects.open(&self.pending.tmp, Access::Read)
    }

    /// Keeps what was written as an object (or finds it already stored) and
    /// evicts to fit the cap. `None`: not stored (empty, or larger than the cap).
    pub fn finish(self) -> Result<Option<Object>> {
        let ObjectWriter { store, pending, hasher } = self;
        if pending.len == 0 || pending.len > store.max_bytes {
            return Ok(None);
        }
        let obj = Object::for_hex(&store.objects_dir(), hex_of(&hasher.finalize()));
        store.commit(pending, &obj.hex)?;
        Ok(Some(obj))
    }

    /// `finish` for bytes that must be the object `expected` (a download):
    /// anything else is dropped unstored, and the error names both hashes.
    pub fn finish_as(self, expected: &str) -> Result<Option<Object>> {
        let ObjectWriter { store, pending, hasher } = self;
        let got = hex_of(&hasher.finalize());
        if got != expected {
            anyhow::bail!(Mismatch(got));
        }
        if pending.len == 0 || pending.len > store.max_bytes {
            return Ok(None);
        }
        let obj = Object::for_hex(&store.objects_dir(), got);
        store.commit(pending, &obj.hex)?;
        Ok(Some(obj))
    }
}

/// Bytes that hash to another name than the one asked for (their hash).
#[derive(Debug)]
pub struct Mismatch(pub String);

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "its bytes hash to {}", &self.0[..ID_LEN.min(self.0.len())])
    }
}

impl std::error::Error for Mismatch {}

impl Write for ObjectWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.pending.file.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.pending.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.pending.file.flush()
    }
}

/// A temp file in `objects/` on its way to becoming an object.
struct Pending {
    home: Dir,
    objects: Dir,
    file: File,
    tmp: String,
    len: u64,
    renamed: bool,
}

impl Pending {
    fn new(home: Dir, objects: Dir) -> Result<Pending> {
        let (file, tmp) =
            objects.temp().with_context(|| format!("cannot write to {}", objects.path().display()))?;
        Ok(Pending { home, objects, file, tmp, len: 0, renamed: false })
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Starts writing the bytes to disk without waiting (no fsync: ~7 ms per
    /// 200 KB here, as much as the whole call). Begun before the rename, the
    /// blocks are allocated before the rename commits, so a power cut on a
    /// journaling file system rarely leaves an empty object; one that does
    /// is found by `show`'s hash check and replaced by the next `put` of the
    /// same bytes.
    fn start_writeback(&self) {
        #[cfg(target_os = "linux")]
        // SAFETY: a plain syscall on a descriptor we own; failure is harmless.
        unsafe {
            libc::sync_file_range(self.file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = self.objects.remove(&self.tmp);
        }
    }
}

/// Whether `dir/name` is a regular file holding exactly `raw`; if so its
/// age is refreshed (storing the same bytes again counts as use).
fn holds(dir: &Dir, name: &str, raw: &[u8]) -> bool {
    let Ok(mut f) = dir.open(name, Access::Read) else { return false };
    if f.metadata().map(|m| m.len()).ok() != Some(raw.len() as u64) {
        return false;
    }
    // On the stack: a heap buffer this large made malloc consolidate every
    // small block the rendering had freed (~0.1 ms on 200 KB of JSON).
    let mut buf = [0u8; 16 * 1024];
    let mut at = 0;
    while at < raw.len() {
        let want = buf.len().min(raw.len() - at);
        match f.read(&mut buf[..want]) {
            Ok(0) | Err(_) => return false,
            Ok(n) if buf[..n] != raw[at..at + n] => return false,
            Ok(n) => at += n,
        }
    }
    let _ = f.set_modified(SystemTime::now());
    true
}

/// `(total bytes, when last counted by a walk)`, if fresh and readable.
fn read_ledger(home: &Dir) -> Option<(u64, u64)> {
    let mut text = String::new();
    home.open("objects.size", Access::Read).ok()?.read_to_string(&mut text).ok()?;
    let (total, at) = text.trim().split_once(' ')?;
    let (total, at): (u64, u64) = (total.parse().ok()?, at.parse().ok()?);
    let age = now_secs().checked_sub(at)?;
    (age <= LEDGER_MAX_AGE.as_secs()).then_some((total, at))
}

fn write_ledger(home: &Dir, total: u64, walked_at: u64) -> io::Result<()> {
    home.open("objects.size", Access::Write)?.write_all(format!("{total} {walked_at}\n").as_bytes())
}

/// One line per object, `HEX CAP`: the cap in force, so `show` can say
/// which cap evicted it (not the one in force when it is asked).
fn log_evictions(home: &Dir, hexes: &[String], cap: u64) -> io::Result<()> {
    if hexes.is_empty() {
        return Ok(());
    }
    if home.stat("evicted.log").is_ok_and(|s| s.size > EVICTION_LOG_ROTATE) {
        let _ = home.rename("evicted.log", home, "evicted.log.1");
    }
    let mut text = String::with_capacity(hexes.len() * 65);
    for h in hexes {
        text.push_str(&format!("{h} {cap}\n"));
    }
    // One O_APPEND write: lines from concurrent evictors never interleave.
    home.open("evicted.log", Access::Append)?.write_all(text.as_bytes())
}

struct Entry {
    hex: String,
    size: u64,
    mtime: SystemTime,
}

/// Every stored object (regular files with a hash name; a symlink is not
/// one), and removes temp files left by crashed writers.
fn list(objects: &Dir) -> io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    let remove_if_stale = |dir: &Dir, name: &str| {
        if dir.stat(name).is_ok_and(|s| s.mtime.elapsed().is_ok_and(|age| age > STALE_TMP)) {
            let _ = dir.remove(name);
        }
    };
    for (prefix, kind) in objects.entries()? {
        if prefix.starts_with(TEMP_PREFIX) && kind == Kind::File {
            remove_if_stale(objects, &prefix);
            continue;
        }
        if prefix.len() != 2 || !is_hex(&prefix) || kind != Kind::Dir {
            continue;
        }
        let dir = match objects.sub(&prefix, false) {
            Ok(d) => d,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for (name, kind) in dir.entries()? {
            if kind != Kind::File {
                continue;
            }
            if name.starts_with(TEMP_PREFIX) {
                remove_if_stale(&dir, &name);
                continue;
            }
            if name.len() != 62 || !is_hex(&name) {
                continue;
            }
            let Ok(st) = dir.stat(&name) else { continue };
            out.push(Entry { hex: format!("{prefix}{name}"), size: st.size, mtime: st.mtime });
        }
    }
    Ok(out)
}

fn is_hex(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
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
