//! Edits of a user's own files that can be undone to the byte.
//!
//! An edit is a pair of pure functions over the file's text: `apply` adds
//! our part (and leaves text that already has it unchanged), `remove` takes
//! our part out of text a person may have changed since. `setup` keeps the
//! file as it was in `FILE.tokensieve.bak` before the first change; `undo`
//! puts those exact bytes back when the file is still what `setup` made of
//! them, and otherwise removes only our part (the person's later changes
//! stay). A file `setup` created is deleted again by `undo` on the same
//! terms, or when removing our part leaves it empty. A symlinked file (a
//! dotfiles repository) is edited where it points, and keeps its mode.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// A pure change of a file's text.
pub type TextChange = Box<dyn Fn(&str) -> Result<String>>;

/// What to do to one file.
pub struct Edit {
    pub path: PathBuf,
    /// Text with our part added; the same text when it is already there.
    pub apply: TextChange,
    /// Text without our part.
    pub remove: TextChange,
}

/// What happened to a file.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Created,
    Changed,
    Unchanged,
    Restored,
    Removed,
    Deleted,
    Absent,
}

impl Outcome {
    pub fn describe(&self) -> &'static str {
        match self {
            Outcome::Created => "created",
            Outcome::Changed => "updated (backup: .tokensieve.bak)",
            Outcome::Unchanged => "already set up",
            Outcome::Restored => "restored from its backup",
            Outcome::Removed => "our lines removed (later changes kept)",
            Outcome::Deleted => "removed (tokensieve created it)",
            Outcome::Absent => "nothing to undo",
        }
    }
}

/// The backup of `path`'s bytes before our first change.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tokensieve.bak");
    path.with_file_name(name)
}

impl Edit {
    /// Whether `setup` (or, `undoing`, `undo`) would go through, without
    /// writing: every edit of an agent is checked before the first is made,
    /// so a file we cannot understand leaves all of them untouched.
    pub fn check(&self, undoing: bool) -> Result<()> {
        let target = real_path(&self.path)?;
        let text = read_if_exists(&target)?.unwrap_or_default();
        let change = if undoing { &self.remove } else { &self.apply };
        change(&text).with_context(|| format!("{}: left unchanged", self.path.display()))?;
        Ok(())
    }

    /// Adds our part. Idempotent: a file that has it is not written.
    pub fn setup(&self) -> Result<Outcome> {
        let target = real_path(&self.path)?;
        let before = read_if_exists(&target)?;
        let current = before.as_deref().unwrap_or("");
        let after =
            (self.apply)(current).with_context(|| format!("{}: left unchanged", self.path.display()))?;
        if before.is_some() && after == current {
            return Ok(Outcome::Unchanged);
        }
        if let Some(text) = &before {
            let backup = backup_path(&target);
            if !backup.exists() {
                write_atomic(&backup, text.as_bytes(), mode_of(&target))?;
            }
        }
        write_atomic(&target, after.as_bytes(), mode_of(&target))?;
        Ok(if before.is_some() { Outcome::Changed } else { Outcome::Created })
    }

    /// Takes our part out again: the backup's bytes when nothing else
    /// changed since, else only our part.
    pub fn undo(&self) -> Result<Outcome> {
        let target = real_path(&self.path)?;
        let backup = backup_path(&target);
        let Some(current) = read_if_exists(&target)? else { return Ok(Outcome::Absent) };
        let original = read_if_exists(&backup)?;
        let as_setup_left_it = (self.apply)(original.as_deref().unwrap_or("")).ok();
        let outcome = if as_setup_left_it.as_deref() == Some(current.as_str()) {
            match &original {
                Some(text) => {
                    write_atomic(&target, text.as_bytes(), mode_of(&target))?;
                    Outcome::Restored
                }
                None => {
                    fs::remove_file(&target)
                        .with_context(|| format!("cannot remove {}", target.display()))?;
                    remove_empty_parents(&target);
                    Outcome::Deleted
                }
            }
        } else {
            let cleaned = (self.remove)(&current)
                .with_context(|| format!("{}: left unchanged", self.path.display()))?;
            if cleaned == current {
                Outcome::Absent
            } else if cleaned.is_empty() && original.is_none() {
                // Setup created it and nothing of the person's is left in it:
                // an empty file would still be read (a plugin folder).
                fs::remove_file(&target).with_context(|| format!("cannot remove {}", target.display()))?;
                remove_empty_parents(&target);
                Outcome::Deleted
            } else {
                write_atomic(&target, cleaned.as_bytes(), mode_of(&target))?;
                Outcome::Removed
            }
        };
        if original.is_some() {
            fs::remove_file(&backup).with_context(|| format!("cannot remove {}", backup.display()))?;
        }
        Ok(outcome)
    }
}

/// Where a symlinked file really is (so the link stays a link).
fn real_path(path: &Path) -> Result<PathBuf> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let mut real = path.to_path_buf();
            for _ in 0..40 {
                let Ok(link) = fs::read_link(&real) else { break };
                real = real.parent().unwrap_or(Path::new("/")).join(link);
            }
            Ok(real)
        }
        Ok(meta) if !meta.is_file() => bail!("{} is not a regular file; left alone", path.display()),
        _ => Ok(path.to_path_buf()),
    }
}

fn read_if_exists(path: &Path) -> Result<Option<String>> {
    match fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(Some(text)),
            Err(_) => bail!("{} is not UTF-8 text; left alone", path.display()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The folders `setup` made for a file it created, once they are empty again
/// (`~/.config/opencode/plugin` and what held it): the file's own folder,
/// and above it those under the home folder, up to the first that holds
/// anything else. `remove_dir` only takes empty folders.
fn remove_empty_parents(file: &Path) {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    for (i, dir) in file.ancestors().skip(1).enumerate() {
        let under_home = home.as_deref().is_some_and(|h| dir.starts_with(h) && dir != h);
        if (i > 0 && !under_home) || fs::remove_dir(dir).is_err() {
            break;
        }
    }
}

/// The mode an existing file has (a new one gets 0644, as an editor would).
fn mode_of(path: &Path) -> u32 {
    fs::metadata(path).map(|m| m.permissions().mode() & 0o7777).unwrap_or(0o644)
}

/// Replaces the contents of the user's file `path` atomically: where a
/// symlink points (it stays a link), keeping its mode.
pub fn rewrite(path: &Path, bytes: &[u8]) -> Result<()> {
    let target = real_path(path)?;
    write_atomic(&target, bytes, mode_of(&target))
}

/// Writes through a temporary file in the same folder and a rename, so a
/// crash leaves the old file or the new one, never half of it. The temp
/// file is created with `O_EXCL|O_NOFOLLOW`: a file or symlink planted at
/// its name is never written through (another name is tried).
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut created = None;
    for n in 0..16u32 {
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(".tokensieve-tmp.{}", std::process::id()));
        if n > 0 {
            name.push(format!(".{n}"));
        }
        let tmp = dir.join(name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o600)
            .open(&tmp)
        {
            Ok(file) => {
                created = Some((file, tmp));
                break;
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot write {}", path.display())),
        }
    }
    let Some((mut file, tmp)) = created else {
        bail!("cannot write {}: its temporary names are all taken", path.display());
    };
    let written = (|| -> io::Result<()> {
        file.write_all(bytes)?;
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written.with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "ours\n";

    fn edit(path: PathBuf) -> Edit {
        Edit {
            path,
            apply: Box::new(|t: &str| Ok(if t.contains(LINE) { t.to_owned() } else { format!("{t}{LINE}") })),
            remove: Box::new(|t: &str| Ok(t.replace(LINE, ""))),
        }
    }

    #[test]
    fn a_symlink_planted_at_the_temp_name_is_not_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let victim = dir.path().join("victim");
        fs::write(&victim, "precious\n").unwrap();
        let planted = dir.path().join(format!("settings.json.tokensieve-tmp.{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_atomic(&path, b"new\n", 0o644).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        assert!(fs::symlink_metadata(&planted).unwrap().file_type().is_symlink());
    }

    #[test]
    fn round_trip_is_byte_identical_and_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rc");
        fs::write(&path, "no newline at end").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let e = edit(path.clone());
        assert_eq!(e.setup().unwrap(), Outcome::Changed);
        assert_eq!(e.setup().unwrap(), Outcome::Unchanged);
        assert_eq!(fs::read_to_string(&path).unwrap(), "no newline at endours\n");
        assert_eq!(e.undo().unwrap(), Outcome::Restored);
        assert_eq!(fs::read_to_string(&path).unwrap(), "no newline at end");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(!backup_path(&path).exists());
        assert_eq!(e.undo().unwrap(), Outcome::Absent);
    }

    #[test]
    fn a_file_we_created_goes_away_and_later_changes_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/new.md");
        let e = edit(path.clone());
        assert_eq!(e.setup().unwrap(), Outcome::Created);
        assert_eq!(e.undo().unwrap(), Outcome::Deleted);
        assert!(!path.exists());
        e.setup().unwrap();
        fs::write(&path, format!("{LINE}mine\n")).unwrap();
        assert_eq!(e.undo().unwrap(), Outcome::Removed);
        assert_eq!(fs::read_to_string(&path).unwrap(), "mine\n");
        fs::remove_file(&path).unwrap();
        e.setup().unwrap();
        fs::write(&path, format!("{LINE}{LINE}")).unwrap();
        assert_eq!(e.undo().unwrap(), Outcome::Deleted);
        assert!(!path.exists());
    }

    #[test]
    fn a_symlinked_file_stays_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-rc");
        fs::write(&real, "x\n").unwrap();
        let link = dir.path().join("rc");
        std::os::unix::fs::symlink("dotfiles-rc", &link).unwrap();
        let e = edit(link.clone());
        e.setup().unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "x\nours\n");
        e.undo().unwrap();
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(fs::read_to_string(&real).unwrap(), "x\n");
    }
}
