//! `tokensieve doctor`: is the installation doing what the user thinks?
//! PATH order, each shim and the real binary it runs, shims shadowed by an
//! earlier folder, tools that resolve to nothing, a second tokensieve copy in
//! the chain, a hint when this shell may still have an old path hashed, and
//! for each agent installed whether the shell it runs commands in finds the
//! shims.
//! Exit 0 when healthy, 1 otherwise.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use anyhow::Result;

use super::out::{Stream, Style, outln, paint};
use serde_json::json;

use super::install::{home, is_shim, shim_ids};
use crate::agents::{Agent, Context};
use crate::shim::reader;
use crate::shim::resolve::{self, FileId};

/// Bytes that every tokensieve binary contains (this literal is compiled in),
/// so a copy elsewhere on PATH can be recognised.
const BINARY_MARK: &[u8] = b"tokensieve-binary-mark:4f2c9e71";

/// What doctor found, in the order the text prints it.
#[derive(Default)]
struct Report {
    home: PathBuf,
    /// PATH's folders, and whether each is the shim folder.
    path: Vec<(PathBuf, bool)>,
    /// Each shim: the real tool it runs (None: not found).
    shims: Vec<(String, Option<PathBuf>)>,
    /// `(section, message)`: "" (the binary), "PATH", a shim's name, "agents".
    problems: Vec<(String, String)>,
    hints: Vec<(String, String)>,
    /// `(agent, installed, how or why not)`.
    agents: Vec<(&'static str, bool, Result<&'static str, String>)>,
}

pub(crate) fn run(json: bool) -> Result<ExitCode> {
    let report = examine(home()?);
    let problems = report.problems.len();
    if json {
        super::out::text(&format!("{:#}\n", report.to_json()))?;
    } else {
        report.print()?;
    }
    Ok(if problems == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn examine(home: PathBuf) -> Report {
    let bin = home.join("bin");
    let target = bin.join("tokensieve");
    let mut r = Report { home: home.clone(), ..Report::default() };
    if FileId::of(&target).is_none() {
        r.problems
            .push((String::new(), format!("no tokensieve binary at {} (run install.sh)", target.display())));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let bin_id = FileId::of(&bin);
    for dir in std::env::split_paths(&path) {
        let ours = bin_id.is_some() && FileId::of(&dir) == bin_id;
        r.path.push((dir, ours));
    }
    if !r.path.iter().any(|(_, ours)| *ours) {
        r.problems.push(("PATH".into(), format!("{} is not on PATH: no shim is ever called", bin.display())));
    }

    let skip = shim_ids(&target);
    let mut shims: Vec<(String, PathBuf)> = fs::read_dir(&bin)
        .map(|d| d.flatten().map(|e| (e.file_name().to_string_lossy().into_owned(), e.path())).collect())
        .unwrap_or_default();
    shims.retain(|(name, p)| name != "tokensieve" && is_shim(p, &target));
    shims.sort();
    for (tool, link) in &shims {
        let first = resolve::find(tool, Some(&path), &[]);
        let real = resolve::find(tool, Some(&path), &skip);
        match &real {
            None => r
                .problems
                .push((tool.clone(), format!("{tool}: real '{tool}' not found on PATH (calls exit 127)"))),
            Some(real) if is_tokensieve(real) => r.problems.push((
                tool.clone(),
                format!(
                    "{tool}: resolves to {}, another tokensieve binary (two installations)",
                    real.display()
                ),
            )),
            Some(_) => {}
        }
        r.shims.push((tool.clone(), real));
        if let Some(first) = first
            && FileId::of(&first).is_none_or(|id| !skip.contains(&id))
        {
            r.problems.push((
                tool.clone(),
                format!("{tool}: {} comes first on PATH, the shim is never called", first.display()),
            ));
        }
        if let Some(hint) = hash_hint(tool, link) {
            r.hints.push((tool.clone(), hint));
        }
    }
    if let Some(ctx) = Context::from_env(&home) {
        for agent in Agent::ALL {
            let installed = agent.installed(&ctx);
            let check = agent.check(&ctx);
            if installed && let Err(why) = &check {
                r.problems.push(("agents".into(), format!("{}: {why}", agent.name())));
            }
            r.agents.push((agent.name(), installed, check));
        }
    }
    r
}

impl Report {
    fn print(&self) -> Result<()> {
        let problem = |section: &str| -> Result<()> {
            for (_, msg) in self.problems.iter().filter(|(s, _)| s == section) {
                outln!("  {}: {msg}", paint("PROBLEM", Style::Bad, Stream::Stdout))?;
            }
            Ok(())
        };
        outln!("tokensieve {} (home {})", env!("CARGO_PKG_VERSION"), self.home.display())?;
        problem("")?;
        outln!("PATH, in order:")?;
        for (i, (dir, ours)) in self.path.iter().enumerate() {
            outln!("  {:>2}. {}{}", i + 1, dir.display(), if *ours { "   <- tokensieve shims" } else { "" })?;
        }
        problem("PATH")?;
        outln!("shims:")?;
        if self.shims.is_empty() {
            outln!("  none (tokensieve install TOOL...)")?;
        }
        for (tool, real) in &self.shims {
            match real {
                Some(real) if !self.problems.iter().any(|(s, _)| s == tool) => {
                    outln!("  {tool} -> {}", real.display())?
                }
                _ => {}
            }
            problem(tool)?;
            for (_, hint) in self.hints.iter().filter(|(s, _)| s == tool) {
                outln!("  hint: {hint}")?;
            }
        }
        outln!("agents:")?;
        for (name, installed, check) in &self.agents {
            match (installed, check) {
                (false, _) => outln!("  {name}: not installed")?,
                (true, Ok(how)) => outln!("  {name}: installed; {how}")?,
                (true, Err(why)) => {
                    outln!("  {name}: installed; {}: {why}", paint("PROBLEM", Style::Bad, Stream::Stdout))?
                }
            }
        }
        match self.problems.len() {
            0 => outln!("{}", paint("healthy", Style::Good, Stream::Stdout))?,
            n => outln!("{n} problem(s)")?,
        }
        Ok(())
    }

    fn to_json(&self) -> serde_json::Value {
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "home": self.home,
            "healthy": self.problems.is_empty(),
            "path": self.path.iter().map(|(d, ours)| json!({"dir": d, "shims": ours})).collect::<Vec<_>>(),
            "shims": self.shims.iter().map(|(t, real)| json!({"tool": t, "real": real})).collect::<Vec<_>>(),
            "problems": self.problems.iter().map(|(_, m)| m).collect::<Vec<_>>(),
            "hints": self.hints.iter().map(|(_, h)| h).collect::<Vec<_>>(),
            "agents": self.agents.iter().map(|(name, installed, check)| json!({
                "agent": name,
                "installed": installed,
                "ok": check.is_ok(),
                "detail": match check { Ok(how) => how.to_string(), Err(why) => why.clone() },
            })).collect::<Vec<_>>(),
        })
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
