//! `tokensieve install [TOOL...]` and `uninstall [TOOL...]`. A shim is a
//! symlink named after the tool in `$TOKENSIEVE_HOME/bin` (default
//! `~/.tokensieve/bin`) pointing at the `tokensieve` binary in that folder.
//! `install.sh` builds the binary, calls `install` and adds the PATH lines
//! (between the markers below) to the shell start-up files; `uninstall` with
//! no tools removes all of it again, but keeps the stored outputs and history.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

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

pub(crate) fn install(tools: Vec<OsString>) -> Result<ExitCode> {
    let bin = home()?.join("bin");
    fs::create_dir_all(&bin).with_context(|| format!("cannot create {}", bin.display()))?;
    let target = bin.join("tokensieve");
    place_binary(&target)?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let skip = shim_ids(&target);
    let tools: Vec<String> = if tools.is_empty() {
        let found: Vec<String> = DEFAULT_TOOLS
            .iter()
            .filter(|t| resolve::find(t, Some(&path), &skip).is_some())
            .map(|t| t.to_string())
            .collect();
        if found.is_empty() {
            println!(
                "none of {} is on PATH; name tools: tokensieve install TOOL...",
                DEFAULT_TOOLS.join(" ")
            );
        }
        found
    } else {
        tools.iter().map(|t| t.to_string_lossy().into_owned()).collect()
    };
    for tool in &tools {
        if tool.is_empty() || tool.contains('/') || tool.starts_with('.') || tool == "tokensieve" {
            bail!("'{tool}' is not a tool name");
        }
        let link = bin.join(tool);
        if fs::symlink_metadata(&link).is_ok() {
            if !is_shim(&link, &target) {
                bail!("{} exists and is not a tokensieve shim; left alone", link.display());
            }
            fs::remove_file(&link).with_context(|| format!("cannot replace {}", link.display()))?;
        }
        symlink("tokensieve", &link).with_context(|| format!("cannot create {}", link.display()))?;
        match resolve::find(tool, Some(&path), &skip) {
            Some(real) => println!("shimmed {tool} -> {}", real.display()),
            None => {
                println!("shimmed {tool} (no real '{tool}' on PATH yet: it exits 127 until one is installed)")
            }
        }
    }
    let first = std::env::split_paths(&path).next();
    if first.as_deref().and_then(FileId::of) != FileId::of(&bin) {
        println!("put {} first on PATH (install.sh does it for bash, zsh and login shells)", bin.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Copies the running binary to `target` unless it already is that file.
/// Copy to a temporary name, then rename: a shim running right now keeps its
/// old file.
fn place_binary(target: &Path) -> Result<()> {
    let me = std::env::current_exe().context("cannot find the running tokensieve binary")?;
    if FileId::of(&me).is_some() && FileId::of(&me) == FileId::of(target) {
        return Ok(());
    }
    let tmp = target.with_extension(format!("tmp.{}", std::process::id()));
    fs::copy(&me, &tmp).with_context(|| format!("cannot copy {} to {}", me.display(), tmp.display()))?;
    fs::set_permissions(&tmp, fs::Permissions::from_mode(0o755))?;
    fs::rename(&tmp, target).with_context(|| format!("cannot install {}", target.display()))?;
    Ok(())
}

pub(crate) fn uninstall(tools: Vec<OsString>) -> Result<ExitCode> {
    let home = home()?;
    let bin = home.join("bin");
    let target = bin.join("tokensieve");
    if !tools.is_empty() {
        for tool in tools {
            let link = bin.join(&tool);
            if fs::symlink_metadata(&link).is_err() {
                println!("{} is not shimmed", tool.to_string_lossy());
            } else if !is_shim(&link, &target) {
                bail!("{} is not a tokensieve shim; left alone", link.display());
            } else {
                fs::remove_file(&link).with_context(|| format!("cannot remove {}", link.display()))?;
                println!("removed the {} shim", tool.to_string_lossy());
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Ok(entries) = fs::read_dir(&bin) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path != target && is_shim(&path, &target) {
                fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
                println!("removed the {} shim", entry.file_name().to_string_lossy());
            }
        }
    }
    if fs::symlink_metadata(&target).is_ok() {
        fs::remove_file(&target).with_context(|| format!("cannot remove {}", target.display()))?;
    }
    let _ = fs::remove_dir(&bin);
    if let Some(user) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        for rc in RC_FILES {
            let file = Path::new(&user).join(rc);
            let Ok(text) = fs::read_to_string(&file) else { continue };
            let cleaned = without_block(&text);
            if cleaned != text {
                fs::write(&file, cleaned).with_context(|| format!("cannot update {}", file.display()))?;
                println!("removed the PATH lines from {}", file.display());
            }
        }
    }
    println!("stored outputs and history are kept in {} (delete it to remove them)", home.display());
    Ok(ExitCode::SUCCESS)
}

/// `text` without the lines from BLOCK_BEGIN to BLOCK_END (inclusive).
fn without_block(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == BLOCK_BEGIN {
            inside = true;
        } else if inside && bare == BLOCK_END {
            inside = false;
        } else if !inside {
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_removal_keeps_everything_else() {
        let text = format!("a\n{BLOCK_BEGIN}\nexport PATH=x\n{BLOCK_END}\nb\n");
        assert_eq!(without_block(&text), "a\nb\n");
        assert_eq!(without_block("no block\n"), "no block\n");
    }
}
