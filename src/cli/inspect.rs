//! `tokensieve decode` and `tokensieve inspect --stage`.

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use super::Global;
use crate::json;

/// All of stdin (decode, inspect and filter mode read it the same way).
pub(super) fn read_stdin() -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    std::io::stdin().lock().read_to_end(&mut buf).context("cannot read stdin")?;
    Ok(buf)
}

/// Any emitted shape back to JSON.
pub(crate) fn decode() -> Result<ExitCode> {
    let input = read_stdin()?;
    let text = String::from_utf8(input).context("input is not UTF-8")?;
    let value = json::decode::decode(&text)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{value}")?;
    Ok(ExitCode::SUCCESS)
}

/// The JSON after one stage.
pub(crate) fn inspect(stage: Option<&str>, global: &Global) -> Result<ExitCode> {
    let input = read_stdin()?;
    let Some(stage) = stage else { bail!("inspect needs --stage scrub|sieve|dedup") };
    let value = match json::stage(&input, stage, &global.settings)? {
        Some(v) => v,
        None => bail!("input is not JSON"),
    };
    writeln!(std::io::stdout().lock(), "{value}")?;
    Ok(ExitCode::SUCCESS)
}
