//! Trust of project files that define filters. A `.tokensieve.toml` comes
//! with a checkout, written by whoever wrote the repository; its filters
//! decide what the agent reads of every matching command, so they count
//! only after `tokensieve trust` recorded the file's sha256 in the home
//! (`trusted`: one `SHA256 PATH` line per file). Any change to the file
//! changes the hash: it must be trusted again.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context, Result};

use crate::homefs::{Access, Dir};

/// The record in the home.
const RECORD: &str = "trusted";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Trusted,
    /// Trusted once, with other contents.
    Changed,
    Unknown,
}

/// Recorded (hash, path) pairs.
fn records(home: &Path) -> Vec<(String, String)> {
    let mut text = String::new();
    let read = Dir::home(home, false).and_then(|d| d.open(RECORD, Access::Read)).and_then(|mut f| {
        f.read_to_string(&mut text)?;
        Ok(())
    });
    if read.is_err() {
        return Vec::new();
    }
    text.lines().filter_map(|l| l.split_once(' ')).map(|(h, p)| (h.to_string(), p.to_string())).collect()
}

/// Whether `path` with these contents is trusted.
pub fn check(path: &Path, contents: &str) -> State {
    check_in(&crate::store::home(), path, contents)
}

fn check_in(home: &Path, path: &Path, contents: &str) -> State {
    let hash = crate::store::hash_hex(contents.as_bytes());
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let key = path.to_string_lossy();
    let mut state = State::Unknown;
    for (h, p) in records(home) {
        if p == key {
            if h == hash {
                return State::Trusted;
            }
            state = State::Changed;
        }
    }
    state
}

/// Records `path`'s current contents as trusted (replacing an older record
/// of the same path). Returns the hash.
pub fn trust(path: &Path) -> Result<String> {
    trust_in(&crate::store::home(), path)
}

fn trust_in(home: &Path, path: &Path) -> Result<String> {
    let path = std::fs::canonicalize(path).with_context(|| format!("cannot read {}", path.display()))?;
    let (contents, _) = crate::untrusted::read(&path, crate::untrusted::SETTINGS_MAX_BYTES)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let hash = crate::store::hash_hex(&contents);
    let key = path.to_string_lossy().into_owned();
    anyhow::ensure!(!key.contains('\n'), "a path with a newline cannot be trusted");
    let mut kept: Vec<(String, String)> = records(home).into_iter().filter(|(_, p)| *p != key).collect();
    kept.push((hash.clone(), key));
    let dir = Dir::home(home, true).with_context(|| format!("cannot open {}", home.display()))?;
    let (mut file, temp) = dir.temp()?;
    let body: String = kept.iter().map(|(h, p)| format!("{h} {p}\n")).collect();
    file.write_all(body.as_bytes())?;
    dir.rename(&temp, &dir, RECORD)?;
    Ok(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trusted_until_changed() {
        let home = tempfile::tempdir().unwrap();
        let proj = tempfile::tempdir().unwrap();
        let file = proj.path().join(".tokensieve.toml");
        std::fs::write(&file, "[[filter]]\nmatch = \"x\"\n").unwrap();
        let canon = std::fs::canonicalize(&file).unwrap();
        let read = |p: &Path| std::fs::read_to_string(p).unwrap();
        assert_eq!(check_in(home.path(), &canon, &read(&file)), State::Unknown);
        trust_in(home.path(), &file).unwrap();
        assert_eq!(check_in(home.path(), &canon, &read(&file)), State::Trusted);
        std::fs::write(&file, "[[filter]]\nmatch = \"y\"\n").unwrap();
        assert_eq!(check_in(home.path(), &canon, &read(&file)), State::Changed);
        trust_in(home.path(), &file).unwrap();
        assert_eq!(check_in(home.path(), &canon, &read(&file)), State::Trusted);
        assert_eq!(records(home.path()).len(), 1);
    }
}
