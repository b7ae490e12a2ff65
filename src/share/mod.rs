//! Sharing raw outputs through git (`tokensieve objects push|pull`, and
//! `show ID` fetching what is missing): manifests travel as
//! `refs/tokensieve/manifests` (`refs`, `manifest`), raw bytes go to the
//! remote's Git LFS server (`lfs`) or, for remotes without one, to one git
//! ref per output (`refs`). Every downloaded blob is checked against its
//! sha256 before the store keeps it.
//!
//! # Design: Sharing through git (`src/share/`, `src/cli/objects.rs`)
//!
//! `tokensieve objects push|pull [REMOTE] [--backend lfs|git-ref|auto]` runs
//! inside a git repository and speaks to its remote through git itself (a
//! subprocess: the user's transports, `insteadOf`, ssh keys and credential
//! helpers all apply) plus, for Git LFS, one HTTP client (ureq with rustls:
//! the LFS server is https in practice).
//!
//! - `git.rs`: `Git::discover` (`rev-parse`), `run_with` (stdin fed from a
//!   thread, git's last stderr line as the error, `GIT_TERMINAL_PROMPT=0`),
//!   `ls-remote`, `hash-object --stdin-paths` and `cat-file --batch` (one
//!   process for many objects).
//! - `manifest.rs` (pure): store objects × history rows
//!   (`history::calls_with_objects`) → one manifest per object
//!   (docs/FORMAT.md §10); `merge` unions two machines' captures.
//! - `refs.rs`: `publish` fetches the remote's `refs/tokensieve/manifests`,
//!   builds the new tree in a temporary index (`GIT_INDEX_FILE`, `read-tree`
//!   of the remote commit, `update-index --index-info` of the changed files,
//!   `write-tree`, `commit-tree -p`), pushes it fast-forward and retries on a
//!   lost race; nothing is committed when no manifest changed. The git-ref
//!   backend is one ref per output, `refs/tokensieve/blobs/<sha256>` → blob,
//!   pushed and fetched 200 refspecs per git call, listed with `ls-remote`.
//! - `lfs.rs`: endpoint discovery as Git LFS does it (`remote.NAME.lfsurl`,
//!   `lfs.url`, `.lfsconfig`, else remote URL + `.git/info/lfs`; ssh remotes
//!   map to https on the host and ask `ssh HOST git-lfs-authenticate PATH
//!   OP` for headers), the Batch API in chunks of 100 (`basic` transfer,
//!   `hash_algo: sha256`), PUT uploads plus the optional `verify` action, GET
//!   downloads. Everything from the server is bounded: a batch answer at 8
//!   MiB; an answer whose oid is not 64 hex digits is left out, one for an
//!   object we did not ask for is ignored with a note (never fetched, never
//!   uploaded from our store); of an action's headers only `Authorization`
//!   is kept (ureq drops it on any redirect); each download is read through
//!   `untrusted::Capped` at `min(manifest size, store cap)` (more is an
//!   error) straight into the store's temp file; every request has a
//!   no-progress timeout on each read and write (30 s,
//!   `TOKENSIEVE_NET_STALL_SECS`) and a deadline (600 s,
//!   `TOKENSIEVE_NET_DEADLINE_SECS`); server text is escaped
//!   (`untrusted::printable`) before it reaches a terminal. `.lfsconfig` is
//!   read by us (`untrusted::read`, 1 MiB, a regular file) and handed to `git
//!   config --file -`. A 401 asks `git
//!   credential fill` once (Basic auth), then `approve`/`reject`. No server
//!   (connection refused, 404/405/501, a local remote) is the `NoLfs` error,
//!   the only one on which `--backend auto` falls back to git refs.
//! - `mod.rs`: `push` (blobs first, so a manifest never names a blob the
//!   remote lacks, then manifests), `pull` (manifests, then for every object
//!   the store lacks: git-ref blobs the remote lists, then LFS). A blob is
//!   streamed into a store temp file (`Store::writer`), hashed on the way,
//!   and kept (`ObjectWriter::finish_as`) only when its sha256 is its name;
//!   otherwise one line and nothing cached. A manifest whose size passes the
//!   store's cap is not fetched; a git-ref blob's size is asked first (`git
//!   cat-file --batch-check`) and its bytes read through the same cap;
//!   manifests are read at most 1 MiB each and 64 MiB in all. Both record
//!   `tokensieve.remote`/`tokensieve.backend` in the repository's config,
//!   which is what `show ID` reads (`fetch_missing`) to fetch an id the store
//!   lacks: the local copy of the manifests first, the remote's when the id is
//!   not there, then the blob, checked the same way. Outside a repository or
//!   without that setting, `show` never touches the network.

pub mod git;
pub mod lfs;
pub mod manifest;
pub mod refs;

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::store::{self, Lookup, Store};
use git::Git;
use manifest::Manifest;

/// Where raw bytes go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Lfs,
    GitRef,
    /// LFS when the remote has a server, else git refs.
    Auto,
}

impl Backend {
    pub fn parse(s: &str) -> Result<Backend> {
        match s {
            "lfs" => Ok(Backend::Lfs),
            "git-ref" => Ok(Backend::GitRef),
            "auto" => Ok(Backend::Auto),
            _ => bail!("--backend is lfs, git-ref or auto, got '{s}'"),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Backend::Lfs => "lfs",
            Backend::GitRef => "git-ref",
            Backend::Auto => "auto",
        }
    }
}

/// The remote's config keys that `show` reads to fetch lazily.
const REMOTE_KEY: &str = "tokensieve.remote";
const BACKEND_KEY: &str = "tokensieve.backend";

/// The repository around the current directory, or a clear error.
pub fn repository(cwd: &Path) -> Result<Git> {
    Git::discover(cwd).context("objects push|pull shares through git: run it inside a git repository")
}

/// The remote named, else the one a previous push/pull used, else
/// `origin`, else the only remote.
pub fn resolve_remote(git: &Git, named: Option<&str>) -> Result<String> {
    if let Some(r) = named {
        return Ok(r.to_owned());
    }
    if let Some(r) = git.config(REMOTE_KEY) {
        return Ok(r);
    }
    let remotes = git.remotes();
    if remotes.iter().any(|r| r == "origin") {
        return Ok("origin".into());
    }
    match remotes.as_slice() {
        [only] => Ok(only.clone()),
        [] => bail!("this repository has no remote to share with (git remote add NAME URL)"),
        _ => bail!("this repository has several remotes; name one (tokensieve objects push REMOTE)"),
    }
}

/// What a push did, for its summary line.
#[derive(Debug, Default)]
pub struct PushReport {
    pub objects: usize,
    pub sent: usize,
    pub backend: &'static str,
    pub manifests: refs::Published,
}

/// Raw bytes first (a manifest never names a blob the remote lacks), then
/// the manifests.
pub fn push(git: &Git, remote: &str, backend: Backend, raw: &Store, home: &Path) -> Result<PushReport> {
    let manifests = manifest::build(raw, home, git.top.as_deref()).context("cannot list the raw store")?;
    let objects: Vec<(String, u64)> = manifests.iter().map(|m| (m.sha256.clone(), m.size)).collect();
    let read = |sha: &str| -> Result<Vec<u8>> {
        raw.read(sha)
            .with_context(|| format!("cannot read raw output {}", crate::untrusted::printable(sha, 64)))
    };
    let (sent, used) = match backend {
        Backend::Lfs => (lfs_push(git, remote, &objects, &read)?, "lfs"),
        Backend::GitRef => (gitref_push(git, remote, raw, &objects)?, "git-ref"),
        Backend::Auto => match lfs_push(git, remote, &objects, &read) {
            Ok(n) => (n, "lfs"),
            Err(e) if e.downcast_ref::<lfs::NoLfs>().is_some() => {
                (gitref_push(git, remote, raw, &objects)?, "git-ref")
            }
            Err(e) => return Err(e),
        },
    };
    let published = refs::publish(git, remote, &manifests)?;
    remember(git, remote, backend);
    Ok(PushReport { objects: objects.len(), sent, backend: used, manifests: published })
}

fn lfs_push(
    git: &Git,
    remote: &str,
    objects: &[(String, u64)],
    read: &dyn Fn(&str) -> Result<Vec<u8>>,
) -> Result<usize> {
    let endpoint = lfs::endpoint(git, remote, "upload")?;
    lfs::Client::new(git, endpoint).upload(objects, read)
}

fn gitref_push(git: &Git, remote: &str, raw: &Store, objects: &[(String, u64)]) -> Result<usize> {
    let there = refs::remote_blobs(git, remote)?;
    let missing: Vec<(String, std::path::PathBuf)> = objects
        .iter()
        .filter(|(sha, _)| !there.contains_key(sha))
        .map(|(sha, _)| (sha.clone(), store::object_path(&raw.objects_dir(), sha)))
        .collect();
    refs::push_blobs(git, remote, &missing)
}

/// Records the remote (and backend) so `show ID` can fetch from it later.
fn remember(git: &Git, remote: &str, backend: Backend) {
    let _ = git.set_config(REMOTE_KEY, remote);
    let _ = git.set_config(BACKEND_KEY, backend.name());
}

/// What a pull did.
#[derive(Debug, Default)]
pub struct PullReport {
    pub listed: usize,
    pub already: usize,
    pub fetched: usize,
    /// One line per blob that could not be had or did not match its hash.
    pub failures: Vec<String>,
    /// One line per thing the server did that we ignored (an object we
    /// did not ask for).
    pub notes: Vec<String>,
}

/// Every object the remote's manifests list and the store lacks,
/// downloaded, checked and stored.
pub fn pull(git: &Git, remote: &str, backend: Backend, raw: &Store) -> Result<PullReport> {
    let Some(commit) = refs::fetch_manifests(git, remote)? else {
        bail!(
            "{remote} has no shared raw outputs yet ({} is missing; run tokensieve objects push there)",
            refs::MANIFESTS
        );
    };
    let manifests = refs::read_manifests(git, &commit)?;
    let mut report = PullReport { listed: manifests.len(), ..PullReport::default() };
    let missing: Vec<&Manifest> = manifests.iter().filter(|m| !has(raw, &m.sha256)).collect();
    report.already = manifests.len() - missing.len();
    let (fetched, failures, notes) = download(git, remote, backend, raw, &missing)?;
    report.fetched = fetched;
    report.failures = failures;
    report.notes = notes;
    remember(git, remote, backend);
    Ok(report)
}

fn has(raw: &Store, sha: &str) -> bool {
    matches!(raw.find(sha), Ok(Lookup::Found { .. }))
}

/// Downloads `wanted` through the backend, keeps what matches its hash.
/// Returns how many were stored, one line per failure and one per note.
///
/// Each object is read through a cap of `min(its manifest's size, the
/// store's cap)` straight into the store's temp file, hashed on the way,
/// and kept only when the hash is its name: neither a manifest's `size`
/// nor a server's stream decides how much we hold.
fn download(
    git: &Git,
    remote: &str,
    backend: Backend,
    raw: &Store,
    wanted: &[&Manifest],
) -> Result<(usize, Vec<String>, Vec<String>)> {
    let mut stored = 0;
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    if wanted.is_empty() {
        return Ok((0, failures, notes));
    }
    let cap = raw.max_bytes();
    let mut left: Vec<&Manifest> = Vec::with_capacity(wanted.len());
    for m in wanted {
        if m.size > cap {
            failures.push(format!(
                "raw output {} ({} bytes) does not fit the store's cap ({cap} bytes, TOKENSIEVE_STORE_MAX_BYTES); not fetched",
                &m.sha256[..store::ID_LEN],
                m.size
            ));
        } else {
            left.push(m);
        }
    }
    let mut keep =
        |sha: &str, body: &mut dyn std::io::Read| -> Result<()> { store_checked(raw, sha, body, remote) };
    let mut tally = |got: Result<()>, failures: &mut Vec<String>| match got {
        Ok(()) => stored += 1,
        Err(e) => failures.push(format!("{e:#}")),
    };
    if backend != Backend::Lfs && !left.is_empty() {
        let listed = refs::remote_blobs(git, remote)?;
        let here: Vec<&Manifest> = left.iter().copied().filter(|m| listed.contains_key(&m.sha256)).collect();
        let shas: Vec<String> = here.iter().map(|m| m.sha256.clone()).collect();
        refs::fetch_blobs(git, remote, &shas)?;
        for m in &here {
            let limit = m.size.min(cap);
            let got = (|| -> Result<()> {
                let mut writer = raw.writer()?;
                git.stream_blob(&listed[&m.sha256], limit, &mut writer)
                    .with_context(|| format!("the blob of {} on {remote}", &m.sha256[..store::ID_LEN]))?;
                finish_checked(writer, &m.sha256, remote)
            })();
            tally(got, &mut failures);
        }
        let done: HashSet<&str> = here.iter().map(|m| m.sha256.as_str()).collect();
        left.retain(|m| !done.contains(m.sha256.as_str()));
    }
    if !left.is_empty() && backend != Backend::GitRef {
        let objects: Vec<(String, u64)> = left.iter().map(|m| (m.sha256.clone(), m.size)).collect();
        let client = lfs::endpoint(git, remote, "download").map(|e| lfs::Client::new(git, e));
        match client {
            Ok(mut c) => match c.download(&objects, cap, &mut keep) {
                Ok((answers, more)) => {
                    let mut seen = HashSet::new();
                    for (sha, got) in answers {
                        seen.insert(sha);
                        tally(got, &mut failures);
                    }
                    notes.extend(more);
                    left.retain(|m| !seen.contains(&m.sha256));
                }
                Err(e) if backend == Backend::Lfs || e.downcast_ref::<lfs::NoLfs>().is_none() => {
                    return Err(e);
                }
                Err(_) => {}
            },
            Err(e) if backend == Backend::Lfs => return Err(e),
            Err(_) => {}
        }
    }
    for m in left {
        failures.push(format!(
            "{remote} has no copy of raw output {} ({} backend)",
            crate::untrusted::printable(m.json["id"].as_str().unwrap_or(&m.sha256), 80),
            backend.name()
        ));
    }
    Ok((stored, failures, notes))
}

/// Streams `body` into the store and keeps it only when its sha256 is
/// `sha` (the name it was asked by).
fn store_checked(raw: &Store, sha: &str, body: &mut dyn std::io::Read, remote: &str) -> Result<()> {
    let mut writer = raw.writer()?;
    std::io::copy(body, &mut writer).with_context(|| format!("cannot download {}", &sha[..store::ID_LEN]))?;
    finish_checked(writer, sha, remote)
}

fn finish_checked(writer: store::ObjectWriter<'_>, sha: &str, remote: &str) -> Result<()> {
    let size = writer.len();
    match writer.finish_as(sha) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => bail!(
            "raw output {} ({size} bytes) from {remote} is empty or does not fit the store's cap; not stored",
            &sha[..store::ID_LEN]
        ),
        Err(e) if e.downcast_ref::<store::Mismatch>().is_some() => bail!(
            "rejected raw output {} from {remote}: {e} instead (damaged or tampered with); not stored",
            &sha[..store::ID_LEN]
        ),
        Err(e) => Err(e),
    }
}

/// `show ID` for an id the store lacks: when the current repository has
/// shared through a remote before (push/pull set `tokensieve.remote`), find
/// the id in its manifests and download the blob. `Ok(None)`: not shared
/// here (nothing printed); an error is one line for the user.
pub fn fetch_missing(raw: &Store, id: &str) -> Result<Option<String>> {
    let Ok(cwd) = std::env::current_dir() else { return Ok(None) };
    let Some(git) = Git::discover(&cwd) else { return Ok(None) };
    let Some(remote) = git.config(REMOTE_KEY) else { return Ok(None) };
    let backend = git.config(BACKEND_KEY).and_then(|b| Backend::parse(&b).ok()).unwrap_or(Backend::Auto);
    let find = |commit: &str| -> Result<Vec<Manifest>> {
        Ok(refs::read_manifests(&git, commit)?.into_iter().filter(|m| m.sha256.starts_with(id)).collect())
    };
    let mut found = match refs::local_manifests(&git) {
        Some(c) => find(&c)?,
        None => Vec::new(),
    };
    if found.is_empty() {
        match refs::fetch_manifests(&git, &remote)? {
            Some(c) => found = find(&c)?,
            None => return Ok(None),
        }
    }
    match found.as_slice() {
        [] => Ok(None),
        [m] => {
            let (stored, failures, notes) = download(&git, &remote, backend, raw, &[m])?;
            for n in notes {
                eprintln!("tokensieve: note: {n}");
            }
            if let Some(f) = failures.into_iter().next() {
                bail!(f);
            }
            Ok((stored == 1).then(|| m.sha256.clone()))
        }
        many => bail!("id {id} matches {} shared outputs on {remote}; give more of its digits", many.len()),
    }
}
