//! The two kinds of `refs/tokensieve/*` on a remote: the manifest history
//! (one commit chain, fast-forward only) and, for the git-ref backend, one
//! ref per raw output named by its sha256 and pointing straight at a blob.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::fs::DirBuilderExt;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use super::git::Git;
use super::manifest::{self, Manifest};

pub const MANIFESTS: &str = "refs/tokensieve/manifests";
pub const BLOBS: &str = "refs/tokensieve/blobs/";
/// Refspecs per `git push`/`git fetch` (keeps the command line short).
const CHUNK: usize = 200;
/// The most `git ls-tree` of a remote's manifest tree may print (about
/// 250,000 manifests): past it the pull stops with one clear error.
pub const LISTING_MAX_BYTES: u64 = 32 << 20;
/// Tries of a manifest push that lost a race with another pusher.
const PUSH_TRIES: usize = 4;

/// Fetches the remote's manifest commit into the local ref of the same
/// name and returns it; `None` when the remote has none yet.
pub fn fetch_manifests(git: &Git, remote: &str) -> Result<Option<String>> {
    let listed = git.ls_remote(remote, MANIFESTS)?;
    let Some((_, oid)) = listed.into_iter().find(|(name, _)| name == MANIFESTS) else { return Ok(None) };
    let spec = format!("+{MANIFESTS}:{MANIFESTS}");
    git.run(&["fetch", "-q", "--no-tags", "--no-write-fetch-head", remote, &spec])?;
    Ok(Some(oid))
}

/// The local copy of the manifest commit, if any.
pub fn local_manifests(git: &Git) -> Option<String> {
    git.text(&["rev-parse", "-q", "--verify", &format!("{MANIFESTS}^{{commit}}")])
        .ok()
        .filter(|s| !s.is_empty())
}

/// `sha256 → blob id` of every manifest in `commit`'s tree.
pub fn manifest_entries(git: &Git, commit: &str) -> Result<HashMap<String, String>> {
    // the listing's size is the remote's to choose: bounded (~128 bytes a manifest)
    let listing =
        git.run_capped(&["ls-tree", "-r", commit, &format!("{}/", manifest::DIR)], LISTING_MAX_BYTES)?;
    let out = String::from_utf8_lossy(&listing);
    let mut entries = HashMap::new();
    for line in out.lines() {
        // "100644 blob <oid>\t<path>"
        let Some((meta, path)) = line.split_once('\t') else { continue };
        let Some(oid) = meta.split(' ').nth(2) else { continue };
        if let Some(sha) = manifest::sha256_of_path(path) {
            entries.insert(sha.to_owned(), oid.to_owned());
        }
    }
    Ok(entries)
}

/// The manifests of `commit` (files that do not parse are skipped).
pub fn read_manifests(git: &Git, commit: &str) -> Result<Vec<Manifest>> {
    let entries: Vec<(String, String)> = manifest_entries(git, commit)?.into_iter().collect();
    let oids: Vec<String> = entries.iter().map(|(_, oid)| oid.clone()).collect();
    let sizes = git.object_sizes(&oids)?;
    let total = sizes.iter().flatten().fold(0u64, |a, &s| a.saturating_add(s.min(manifest::MAX_BYTES)));
    if total > manifest::TOTAL_MAX_BYTES {
        bail!(
            "the manifests of {} total more than {} MiB; not read (a damaged or hostile remote?)",
            MANIFESTS,
            manifest::TOTAL_MAX_BYTES >> 20
        );
    }
    let mut out: Vec<Manifest> = git
        .read_objects(&oids, manifest::MAX_BYTES)?
        .into_iter()
        .zip(&entries)
        .filter_map(|(bytes, (sha, _))| Manifest::parse(&bytes?).filter(|m| &m.sha256 == sha))
        .collect();
    out.sort_by(|a, b| a.sha256.cmp(&b.sha256));
    Ok(out)
}

/// What `publish` did.
#[derive(Debug, Default)]
pub struct Published {
    /// Manifests on the remote afterwards.
    pub total: usize,
    /// Manifests this push added or changed.
    pub changed: usize,
}

/// Adds (or merges) `local` into the remote's manifest tree: a new commit
/// on top of the remote's, pushed fast-forward; retried when someone else
/// pushed in between.
pub fn publish(git: &Git, remote: &str, local: &[Manifest]) -> Result<Published> {
    for _ in 0..PUSH_TRIES {
        let parent = fetch_manifests(git, remote)?;
        let theirs = match &parent {
            Some(c) => manifest_entries(git, c)?,
            None => HashMap::new(),
        };
        let (commit, published) = commit_tree(git, parent.as_deref(), &theirs, local)?;
        let Some(commit) = commit else { return Ok(published) };
        let spec = format!("{commit}:{MANIFESTS}");
        match git.run(&["push", "-q", "--no-verify", remote, &spec]) {
            Ok(_) => {
                git.run(&["update-ref", MANIFESTS, &commit])?;
                return Ok(published);
            }
            Err(e) if is_race(&e) => continue,
            Err(e) => return Err(e).context("cannot push the manifests"),
        }
    }
    bail!("cannot push the manifests: {remote} kept changing under us ({PUSH_TRIES} tries)")
}

fn is_race(e: &anyhow::Error) -> bool {
    let text = format!("{e:#}");
    ["non-fast-forward", "fetch first", "stale info", "cannot lock ref"].iter().any(|w| text.contains(w))
}

/// The commit that holds `theirs` plus `local` (merged where both have an
/// object), or `None` when that changes nothing.
fn commit_tree(
    git: &Git,
    parent: Option<&str>,
    theirs: &HashMap<String, String>,
    local: &[Manifest],
) -> Result<(Option<String>, Published)> {
    // Their version of each object we also have, to merge the calls.
    let shared: Vec<&Manifest> = local.iter().filter(|m| theirs.contains_key(&m.sha256)).collect();
    let shared_oids: Vec<String> = shared.iter().map(|m| theirs[&m.sha256].clone()).collect();
    let mut merged: HashMap<&str, Manifest> = HashMap::new();
    for (m, bytes) in shared.iter().zip(git.read_objects(&shared_oids, manifest::MAX_BYTES)?) {
        if let Some(other) = bytes.as_deref().and_then(Manifest::parse) {
            merged.insert(&m.sha256, manifest::merge(m, &other));
        }
    }
    let finals: Vec<&Manifest> = local.iter().map(|m| merged.get(m.sha256.as_str()).unwrap_or(m)).collect();

    // Blobs through files and one `hash-object --stdin-paths`: a process
    // per manifest would cost seconds for a store of thousands.
    let scratch = tempdir()?;
    let mut paths = Vec::with_capacity(finals.len());
    for (i, m) in finals.iter().enumerate() {
        let p = scratch.0.join(format!("{i}.json"));
        std::fs::write(&p, m.bytes()).with_context(|| format!("cannot write {}", p.display()))?;
        paths.push(p);
    }
    let oids = git.hash_files(&paths)?;
    let mut changed = 0;
    let mut info = String::new();
    for (m, oid) in finals.iter().zip(&oids) {
        if theirs.get(&m.sha256) != Some(oid) {
            changed += 1;
            info.push_str(&format!("100644 {oid}\t{}\n", m.path()));
        }
    }
    let total = theirs.len() + finals.iter().filter(|m| !theirs.contains_key(&m.sha256)).count();
    let published = Published { total, changed };
    if changed == 0 {
        return Ok((None, published));
    }
    let index = scratch.0.join("index");
    let env: [(&str, &OsStr); 1] = [("GIT_INDEX_FILE", index.as_os_str())];
    match parent {
        Some(p) => git.run_with(&["read-tree", p], None, &env)?,
        None => git.run_with(&["read-tree", "--empty"], None, &env)?,
    };
    git.run_with(&["update-index", "--add", "--index-info"], Some(info.as_bytes()), &env)?;
    let tree = String::from_utf8_lossy(&git.run_with(&["write-tree"], None, &env)?).trim().to_owned();
    let message = format!("tokensieve: {changed} manifest(s) added or updated");
    let mut args = vec!["commit-tree", tree.as_str(), "-m", message.as_str()];
    if let Some(p) = parent {
        args.extend(["-p", p]);
    }
    let ident = identity_env(git);
    let env: Vec<(&str, &OsStr)> = ident.iter().map(|(k, v)| (*k, OsStr::new(v.as_str()))).collect();
    let commit = String::from_utf8_lossy(&git.run_with(&args, None, &env)?).trim().to_owned();
    Ok((Some(commit), published))
}

/// The user's identity when git has one; otherwise a neutral one, so a
/// machine without `user.email` can still share.
fn identity_env(git: &Git) -> Vec<(&'static str, String)> {
    if git.run(&["var", "GIT_COMMITTER_IDENT"]).is_ok() && git.run(&["var", "GIT_AUTHOR_IDENT"]).is_ok() {
        return Vec::new();
    }
    let (name, email) = ("tokensieve".to_owned(), "tokensieve@localhost".to_owned());
    vec![
        ("GIT_AUTHOR_NAME", name.clone()),
        ("GIT_AUTHOR_EMAIL", email.clone()),
        ("GIT_COMMITTER_NAME", name),
        ("GIT_COMMITTER_EMAIL", email),
    ]
}

/// `sha256 → git blob id` of the raw outputs the remote holds as refs.
pub fn remote_blobs(git: &Git, remote: &str) -> Result<HashMap<String, String>> {
    Ok(git
        .ls_remote(remote, &format!("{BLOBS}*"))?
        .into_iter()
        .filter_map(|(name, oid)| {
            let sha = name.strip_prefix(BLOBS)?;
            manifest::is_sha256(sha).then(|| (sha.to_owned(), oid))
        })
        .collect())
}

/// Pushes each `(sha256, file)` as a blob ref. Returns how many.
pub fn push_blobs(git: &Git, remote: &str, files: &[(String, PathBuf)]) -> Result<usize> {
    for chunk in files.chunks(CHUNK) {
        let paths: Vec<PathBuf> = chunk.iter().map(|(_, p)| p.clone()).collect();
        let oids = git.hash_files(&paths)?;
        let specs: Vec<String> =
            chunk.iter().zip(&oids).map(|((sha, _), oid)| format!("{oid}:{BLOBS}{sha}")).collect();
        let mut args = vec!["push", "-q", "--no-verify", remote];
        args.extend(specs.iter().map(String::as_str));
        git.run(&args).context("cannot push the raw outputs")?;
    }
    Ok(files.len())
}

/// Fetches the blob refs of `wanted` (sha256s the remote lists) into the
/// local repository; their bytes are then read one by one, through a cap
/// (`Git::stream_blob`).
pub fn fetch_blobs(git: &Git, remote: &str, wanted: &[String]) -> Result<()> {
    for chunk in wanted.chunks(CHUNK) {
        let specs: Vec<String> = chunk.iter().map(|sha| format!("{BLOBS}{sha}")).collect();
        let mut args = vec!["fetch", "-q", "--no-tags", "--no-write-fetch-head", remote];
        args.extend(specs.iter().map(String::as_str));
        git.run(&args).context("cannot fetch the raw outputs")?;
    }
    Ok(())
}

/// A scratch folder removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir() -> Result<TempDir> {
    let base = std::env::temp_dir();
    for n in 0..100u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let p = base.join(format!("tokensieve-share.{}.{nanos}.{n}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&p) {
            Ok(()) => return Ok(TempDir(p)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", p.display())),
        }
    }
    bail!("cannot create a scratch folder in {}", base.display())
}
