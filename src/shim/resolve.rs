//! Finding the real tool behind a shim: walk `$PATH` in order and take the
//! first executable named like the tool that is not a tokensieve binary.
//!
//! "Not tokensieve" is decided by file identity (device + inode, after
//! following symlinks), never by folder name: a second shim folder, a
//! symlinked shim folder or a hard link all share our identity and are
//! skipped. A *copied* binary has its own inode, so every shim also passes the
//! identities it ran as down to its child in `TOKENSIEVE_SHIMS`; a copy further
//! down `$PATH` then skips all of them and two installations cannot bounce a
//! call back and forth.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Internal: identities (`dev:ino,...`) of the tokensieve binaries a call
/// already went through.
pub const SHIMS_ENV: &str = "TOKENSIEVE_SHIMS";

/// A file's identity, stable across symlinks and hard links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

impl FileId {
    /// The identity of the file `path` finally points to.
    pub fn of(path: &Path) -> Option<FileId> {
        std::fs::metadata(path).ok().map(|m| FileId { dev: m.dev(), ino: m.ino() })
    }
}

/// Identities never to run as "the real tool": the executable we are running
/// as, plus every tokensieve binary named in `TOKENSIEVE_SHIMS`.
pub fn self_ids() -> Vec<FileId> {
    let mut ids: Vec<FileId> = std::env::var_os(SHIMS_ENV).map(|v| parse_ids(&v)).unwrap_or_default();
    if let Some(own) = FileId::of(Path::new("/proc/self/exe"))
        .or_else(|| std::env::current_exe().ok().and_then(|p| FileId::of(&p)))
        && !ids.contains(&own)
    {
        ids.push(own);
    }
    ids
}

/// `TOKENSIEVE_SHIMS` value for a child: the identities we skip.
pub fn ids_env_value(ids: &[FileId]) -> OsString {
    let parts: Vec<String> = ids.iter().map(|id| format!("{}:{}", id.dev, id.ino)).collect();
    OsString::from(parts.join(","))
}

fn parse_ids(value: &OsStr) -> Vec<FileId> {
    let text = String::from_utf8_lossy(value.as_bytes());
    text.split(',')
        .filter_map(|part| {
            let (dev, ino) = part.trim().split_once(':')?;
            Some(FileId { dev: dev.parse().ok()?, ino: ino.parse().ok()? })
        })
        .collect()
}

/// The first executable `name` on `path_var` (a `$PATH` value) whose identity
/// is not in `skip`. Empty `$PATH` entries mean the current folder, as in the
/// shell.
pub fn find(name: &str, path_var: Option<&OsStr>, skip: &[FileId]) -> Option<PathBuf> {
    candidates(name, path_var?).find(|cand| FileId::of(cand).is_some_and(|id| !skip.contains(&id)))
}

/// Every executable file named `name` on `path_var`, in `$PATH` order,
/// tokensieve or not (`doctor` shows them all).
pub fn candidates<'a>(name: &'a str, path_var: &'a OsStr) -> impl Iterator<Item = PathBuf> + 'a {
    std::env::split_paths(path_var).filter_map(move |dir| {
        let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
        let cand = dir.join(name);
        is_executable(&cand).then_some(cand)
    })
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The one line printed (exit 127) when only shims answer to `name`.
pub fn not_found_message(name: &str) -> String {
    format!("tokensieve: real '{name}' not found on PATH (after ~/.tokensieve/bin)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_the_env_value() {
        let ids = vec![FileId { dev: 2049, ino: 77 }, FileId { dev: 1, ino: u64::MAX }];
        assert_eq!(parse_ids(&ids_env_value(&ids)), ids);
    }

    #[test]
    fn garbage_in_the_env_value_is_ignored() {
        assert_eq!(parse_ids(OsStr::new("x,1:2,3:,:4")), vec![FileId { dev: 1, ino: 2 }]);
    }
}
