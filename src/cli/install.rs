//! `tokensieve install [TOOL...]` and `uninstall [TOOL...]`. A shim is a
//! symlink named after the tool in `$TOKENSIEVE_HOME/bin` (default
//! `~/.tokensieve/bin`) pointing at the `tokensieve` binary in that folder.
//! `install.sh` builds the binary, calls `install` and adds the PATH lines
//! (between the markers below) to the shell start-up files; `uninstall` with
//! no tools removes all of it again, but keeps the stored outputs and history.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use super::out::outln;

use crate::homefs::Dir;
use crate::shim::resolve::{self, FileId};

/// What `install` shims when no tool is named (those found on PATH).
pub(crate) const DEFAULT_TOOLS: &[&str] = &["aws", "kubectl", "gh", "docker", "gcloud", "az", "terraform"];

/// The lines install.sh adds to start-up files sit between these.
pub(crate) const BLOCK_BEGIN: &str = "# >>> tokensieve >>>";
pub(crate) const BLOCK_END: &str = "# <<< tokensieve <<<";
const RC_FILES: &[&str] = &[".profile", ".bash_profile", ".bashrc", ".zshrc"];

/// `$TOKENSIEVE_HOME`, or `~/.tokensieve` (the store's notion of home).
pub(crate) fn home() -> Result<PathBuf> {
    if std::env::var_os("TOKENSIEVE_HOME").is_none() && std::env::var_os("HOME").is_none() {
        anyhow::bail!("HOME is not set (set TOKENSIEVE_HOME to choose where tokensieve lives)");
    }
    Ok(crate::store::home())
}

/// Whether `path` is a shim of the binary `target`: the same file, or a
/// symlink to `tokensieve` (even a dangling one).
pub(crate) fn is_shim(path: &Path, target: &Path) -> bool {
    if let (Some(a), Some(b)) = (FileId::of(path), FileId::of(target))
        && a == b
    {
        return true;
    }
    fs::read_link(path).is_ok_and(|l| l.file_name().is_some_and(|n| n == "tokensieve"))
}

/// Identities a shim must not resolve to: the installed binary and ourselves.
pub(crate) fn shim_ids(target: &Path) -> Vec<FileId> {
    let mut ids = resolve::self_ids();
    if let Some(id) = FileId::of(target)
        && !ids.contains(&id)
    {
        ids.push(id);
    }
    ids
}

pub(crate) fn install(tools: Vec<String>) -> Result<ExitCode> {
    let home_path = home()?;
    let home =
        Dir::home(&home_path, true).with_context(|| format!("cannot create {}", home_path.display()))?;
    let bin =
        home.sub("bin", true).with_context(|| format!("cannot create {}", home.join("bin").display()))?;
    make_private(&home, looks_like_ours(&home))?;
    make_private(&bin, true)?;
    let bin_path = bin.path().to_owned();
    let target = bin.join("tokensieve");
    place_binary(&bin)?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let skip = shim_ids(&target);
    let tools: Vec<String> = if tools.is_empty() {
        let found: Vec<String> = DEFAULT_TOOLS
            .iter()
            .filter(|t| resolve::find(t, Some(&path), &skip).is_some())
            .map(|t| t.to_string())
            .collect();
        if found.is_empty() {
            outln!("none of {} is on PATH; name tools: tokensieve install TOOL...", DEFAULT_TOOLS.join(" "))?;
        }
        found
    } else {
        tools
    };
    for tool in &tools {
        if tool.is_empty() || tool.contains('/') || tool.starts_with('.') || tool == "tokensieve" {
            bail!("'{tool}' is not a tool name");
        }
        let link = bin.join(tool);
        if bin.stat(tool).is_ok() {
            if !is_shim(&link, &target) {
                bail!("{} exists and is not a tokensieve shim; left alone", link.display());
            }
            bin.remove(tool).with_context(|| format!("cannot replace {}", link.display()))?;
        }
        bin.symlink("tokensieve", tool).with_context(|| format!("cannot create {}", link.display()))?;
        match resolve::find(tool, Some(&path), &skip) {
            Some(real) => outln!("shimmed {tool} -> {}", real.display())?,
            None => {
                outln!("shimmed {tool} (no real '{tool}' on PATH yet: it exits 127 until one is installed)")?
            }
        }
    }
    let first = std::env::split_paths(&path).next();
    if first.as_deref().and_then(FileId::of) != FileId::of(&bin_path) {
        outln!(
            "put {} first on PATH (install.sh does it for bash, zsh and login shells)",
            bin_path.display()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What tokensieve itself keeps in its home.
const HOME_ENTRIES: &[&str] = &[
    "bin",
    "objects",
    "objects.size",
    "objects.lock",
    "evicted.log",
    "evicted.log.1",
    "history.db",
    "history.db-wal",
    "history.db-shm",
    "history.db-journal",
];

/// Whether the home holds nothing but what tokensieve puts there (so making
/// it private cannot surprise anyone: `TOKENSIEVE_HOME` may name a folder
/// the user shares on purpose).
fn looks_like_ours(home: &Dir) -> bool {
    home.entries().is_ok_and(|e| e.iter().all(|(name, _)| HOME_ENTRIES.contains(&name.as_str())))
}

/// Makes `dir` 0700 when it is open to others, if it is `ours`; otherwise
/// says why it was left.
fn make_private(dir: &Dir, ours: bool) -> Result<()> {
    let (mode, owner) = dir.mode_and_owner()?;
    if mode & 0o077 == 0 {
        return Ok(());
    }
    // SAFETY: getuid cannot fail.
    if ours && owner == unsafe { libc::getuid() } {
        dir.make_private().with_context(|| format!("cannot make {} private", dir.path().display()))?;
        outln!("made {} private (mode {mode:o} -> 700)", dir.path().display())?;
    } else {
        outln!(
            "note: {} is mode {mode:o} and holds files that are not tokensieve's; left as it is",
            dir.path().display()
        )?;
    }
    Ok(())
}

/// Copies the running binary to `bin/tokensieve` unless it already is that
/// file. Copy to a temporary name, then rename: a shim running right now
/// keeps its old file.
fn place_binary(bin: &Dir) -> Result<()> {
    let target = bin.join("tokensieve");
    let me = std::env::current_exe().context("cannot find the running tokensieve binary")?;
    if FileId::of(&me).is_some() && FileId::of(&me) == FileId::of(&target) {
        return Ok(());
    }
    let (mut tmp, name) = bin.temp().with_context(|| format!("cannot write to {}", bin.path().display()))?;
    let copied = fs::File::open(&me)
        .and_then(|mut src| std::io::copy(&mut src, &mut tmp))
        .and_then(|_| tmp.set_permissions(fs::Permissions::from_mode(0o755)))
        .and_then(|_| bin.rename(&name, bin, "tokensieve"));
    if copied.is_err() {
        let _ = bin.remove(&name);
    }
    copied.with_context(|| format!("cannot install {} to {}", me.display(), target.display()))
}

pub(crate) fn uninstall(tools: Vec<String>) -> Result<ExitCode> {
    let home_path = home()?;
    let bin = match Dir::home(&home_path, false).and_then(|h| h.sub("bin", false).map(|b| (h, b))) {
        Ok(dirs) => Some(dirs),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e).with_context(|| format!("cannot open {}", home_path.join("bin").display())),
    };
    let target = home_path.join("bin").join("tokensieve");
    if !tools.is_empty() {
        for tool in tools {
            let name = tool.as_str();
            let link = home_path.join("bin").join(&tool);
            match &bin {
                Some((_, bin)) if bin.stat(name).is_ok() => {
                    if !is_shim(&link, &target) {
                        bail!("{} is not a tokensieve shim; left alone", link.display());
                    }
                    bin.remove(name).with_context(|| format!("cannot remove {}", link.display()))?;
                    outln!("removed the {name} shim")?;
                }
                _ => outln!("{name} is not shimmed")?,
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some((home, bin)) = &bin {
        for (name, _) in bin.entries().unwrap_or_default() {
            if name != "tokensieve" && is_shim(&bin.join(&name), &target) {
                bin.remove(&name).with_context(|| format!("cannot remove {}", bin.join(&name).display()))?;
                outln!("removed the {name} shim")?;
            }
        }
        if bin.stat("tokensieve").is_ok() {
            bin.remove("tokensieve").with_context(|| format!("cannot remove {}", target.display()))?;
        }
        let _ = home.remove_dir("bin");
    }
    let mut code = ExitCode::SUCCESS;
    if let Some(user) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        for rc in RC_FILES {
            let file = Path::new(&user).join(rc);
            let Ok(text) = fs::read_to_string(&file) else { continue };
            match without_block(&text) {
                Block::Absent => {}
                // Temp file and rename where it points: a symlinked
                // start-up file stays a symlink and keeps its mode, and a
                // crash leaves the old file or the new one.
                Block::Removed(cleaned) => {
                    crate::agents::edit::rewrite(&file, cleaned.as_bytes())
                        .with_context(|| format!("cannot update {}", file.display()))?;
                    outln!("removed the PATH lines from {}", file.display())?;
                }
                Block::Unclosed(line) => {
                    eprintln!(
                        "tokensieve: left {} alone: line {line} opens the tokensieve block ({BLOCK_BEGIN}) but no \
                         {BLOCK_END} line closes it; remove the tokensieve lines by hand",
                        file.display()
                    );
                    code = ExitCode::from(1);
                }
            }
        }
    }
    outln!("stored outputs and history are kept in {} (delete it to remove them)", home_path.display())?;
    Ok(code)
}

/// A start-up file's tokensieve block.
#[derive(Debug, PartialEq, Eq)]
enum Block {
    Absent,
    /// The text without the lines from BLOCK_BEGIN to BLOCK_END (inclusive).
    Removed(String),
    /// A begin marker (at this line number) with no end marker after it:
    /// where the block ends is a guess, and a wrong guess deletes the
    /// user's own lines.
    Unclosed(usize),
}

fn without_block(text: &str) -> Block {
    let mut out = String::with_capacity(text.len());
    let mut open_at = None;
    let mut found = false;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let bare = line.trim_end();
        if open_at.is_none() && bare == BLOCK_BEGIN {
            open_at = Some(n + 1);
            found = true;
        } else if open_at.is_some() && bare == BLOCK_END {
            open_at = None;
        } else if open_at.is_none() {
            out.push_str(line);
        }
    }
    match (open_at, found) {
        (Some(line), _) => Block::Unclosed(line),
        (None, true) => Block::Removed(out),
        (None, false) => Block::Absent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_removal_keeps_everything_else() {
        let text = format!("a\n{BLOCK_BEGIN}\nexport PATH=x\n{BLOCK_END}\nb\n");
        assert_eq!(without_block(&text), Block::Removed("a\nb\n".into()));
        assert_eq!(without_block("no block\n"), Block::Absent);
    }

    #[test]
    fn a_block_without_its_end_marker_is_not_guessed() {
        let text = format!("export A=1\n{BLOCK_BEGIN}\nPATH=/x:$PATH\nalias important=keep\nexport B=2\n");
        assert_eq!(without_block(&text), Block::Unclosed(2));
    }
}
