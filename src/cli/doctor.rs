//! `tokensieve doctor`: is the installation doing what the user thinks?
//! PATH order, each shim and the real binary it runs, shims shadowed by an
//! earlier folder, tools that resolve to nothing, a second tokensieve copy in
//! the chain, a hint when this shell may still have an old path hashed, and
//! for each agent installed whether the shell it runs commands in finds the
//! shims.
//! Exit 0 when healthy, 1 otherwise.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::Result;

use super::init::status_line;
use super::install::{home, is_shim, shim_ids};
use crate::agents::{Agent, Context};
use crate::shim::reader;
use crate::shim::resolve::{self, FileId};

/// Bytes that every tokensieve binary contains (this literal is compiled in),
/// so a copy elsewhere on PATH can be recognised.
const BINARY_MARK: &[u8] = b"tokensieve-binary-mark:4f2c9e71";

pub(crate) fn run(_args: Vec<OsString>) -> Result<ExitCode> {
    let home = home()?;
    let bin = home.join("bin");
    let target = bin.join("tokensieve");
    let mut problems = 0;
    let mut problem = |msg: String| {
        problems += 1;
        println!("  PROBLEM: {msg}");
    };
    println!("tokensieve {} (home {})", env!("CARGO_PKG_VERSION"), home.display());
    if FileId::of(&target).is_none() {
        problem(format!("no tokensieve binary at {} (run install.sh)", target.display()));
    }

    let path = std::env::var_os("PATH").unwrap_or_default();
    let bin_id = FileId::of(&bin);
    println!("PATH, in order:");
    let mut bin_pos = None;
    for (i, dir) in std::env::split_paths(&path).enumerate() {
        let ours = bin_id.is_some() && FileId::of(&dir) == bin_id;
        if ours && bin_pos.is_none() {
            bin_pos = Some(i);
        }
        println!("  {:>2}. {}{}", i + 1, dir.display(), if ours { "   <- tokensieve shims" } else { "" });
    }
    if bin_pos.is_none() {
        problem(format!("{} is not on PATH: no shim is ever called", bin.display()));
    }

    let skip = shim_ids(&target);
    let mut shims: Vec<(String, PathBuf)> = fs::read_dir(&bin)
        .map(|d| d.flatten().map(|e| (e.file_name().to_string_lossy().into_owned(), e.path())).collect())
        .unwrap_or_default();
    shims.retain(|(name, p)| name != "tokensieve" && is_shim(p, &target));
    shims.sort();
    println!("shims:");
    if shims.is_empty() {
        println!("  none (tokensieve install TOOL...)");
    }
    for (tool, link) in &shims {
        let first = resolve::find(tool, Some(&path), &[]);
        match resolve::find(tool, Some(&path), &skip) {
            None => problem(format!("{tool}: real '{tool}' not found on PATH (calls exit 127)")),
            Some(real) if is_tokensieve(&real) => problem(format!(
                "{tool}: resolves to {}, another tokensieve binary (two installations)",
                real.display()
            )),
            Some(real) => println!("  {tool} -> {}", real.display()),
        }
        if let Some(first) = first
            && FileId::of(&first).is_none_or(|id| !skip.contains(&id))
        {
            problem(format!("{tool}: {} comes first on PATH, the shim is never called", first.display()));
        }
        if let Some(hint) = hash_hint(tool, link) {
            println!("  hint: {hint}");
        }
    }
    println!("agents:");
    if let Some(ctx) = Context::from_env(&home) {
        for agent in Agent::ALL {
            let line = status_line(*agent, &ctx);
            println!("{line}");
            if line.contains("PROBLEM:") {
                problems += 1;
            }
        }
    }
    if problems == 0 {
        println!("healthy");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{problems} problem(s)");
        Ok(ExitCode::from(1))
    }
}

/// A file on PATH that is some tokensieve build (a copy, another version).
fn is_tokensieve(path: &Path) -> bool {
    fs::read(path).is_ok_and(|bytes| bytes.windows(BINARY_MARK.len()).any(|w| w == BINARY_MARK))
}

/// Shells remember where they found a command. If the shell that runs us
/// started before the shim existed, it may still call the old path.
fn hash_hint(tool: &str, link: &Path) -> Option<String> {
    let created = fs::symlink_metadata(link).ok()?.modified().ok()?;
    // SAFETY: getppid has no preconditions.
    let ppid = unsafe { libc::getppid() };
    let shell = reader::comm(ppid as u32)?;
    if !matches!(shell.as_str(), "bash" | "zsh" | "sh" | "dash" | "ksh" | "mksh") {
        return None;
    }
    let started = process_start(ppid as u32)?;
    // Boot time has one-second resolution: allow for it.
    (started + Duration::from_secs(2) < created).then(|| {
        let cmd = if shell == "zsh" { "rehash" } else { "hash -r" };
        format!(
            "this {shell} (pid {ppid}) is older than the {tool} shim; if it ran {tool} before, run `{cmd}`"
        )
    })
}

/// When a process started: boot time (`/proc/stat` btime) plus its start
/// tick (`/proc/PID/stat` field 22).
fn process_start(pid: u32) -> Option<SystemTime> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let ticks: u64 = reader::stat_fields(&stat)?.nth(19)?.parse().ok()?;
    let boot: u64 = fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(boot) + Duration::from_millis(ticks * 1000 / hz))
}
