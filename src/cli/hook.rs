//! `tokensieve hook gemini|cursor`: the hook `init` installs in those
//! agents. Reads one hook event (JSON) on stdin and answers on stdout with
//! the shell command rewritten to find the shims (`agents::rewrite`), or
//! `{}`. It never stops the agent: bad input, or anything else going wrong,
//! answers `{}` with exit 0 and one line on stderr.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use super::out::outln;
use serde_json::{Value, json};

use super::install::home;
use crate::agents::{Context, cursor, gemini};

/// More than any shell command an agent sends; the rest is not read.
const MAX_INPUT: u64 = 8 << 20;

pub(crate) fn run(agent: &str) -> Result<ExitCode> {
    let answer = match answer(agent) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("tokensieve hook {agent}: {e:#}; command left as it was");
            json!({})
        }
    };
    outln!("{answer}")?;
    Ok(ExitCode::SUCCESS)
}

fn answer(agent: &str) -> Result<Value> {
    let mut text = String::new();
    std::io::stdin().take(MAX_INPUT).read_to_string(&mut text)?;
    let input: Value = serde_json::from_str(&text)?;
    let ctx = context()?;
    let shims = crate::agents::shim_names(&ctx.bin);
    match agent {
        "gemini" => Ok(gemini::answer(&input, &ctx, &shims)),
        "cursor" => Ok(cursor::answer(&input, &ctx, &shims)),
        other => anyhow::bail!("unknown agent '{other}' (gemini, cursor)"),
    }
}

/// The shim folder is where this binary was started from (the hook runs it
/// by its full path, with the agent's environment, which may lack
/// `TOKENSIEVE_HOME`); the home is named in the PATH line only when it is
/// not the default.
fn context() -> Result<Context> {
    let argv0 = std::env::args_os().next().map(PathBuf::from);
    let bin = match argv0.as_deref().filter(|p| p.is_absolute()).and_then(Path::parent) {
        Some(dir) => dir.to_owned(),
        None => home()?.join("bin"),
    };
    let home = bin.parent().unwrap_or(&bin).to_owned();
    let default = std::env::home_dir().map(|h| h.join(".tokensieve"));
    let mut ctx = Context::from_env(&home).ok_or_else(|| anyhow::anyhow!("HOME is not set"))?;
    ctx.bin = bin;
    ctx.explicit_home = (default.as_deref() != Some(home.as_path())).then_some(home);
    Ok(ctx)
}
