//! `tokensieve decode` and `tokensieve inspect --stage`.

use std::ffi::OsString;
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

/// FILE's bytes, or stdin's when there is none (`-` is stdin too).
pub(super) fn read_input(file: Option<&OsString>) -> Result<Vec<u8>> {
    match file.filter(|f| *f != "-") {
        Some(path) => {
            std::fs::read(path).with_context(|| format!("cannot read '{}'", path.to_string_lossy()))
        }
        None => read_stdin(),
    }
}

/// Any emitted shape back to JSON.
pub(crate) fn decode(file: Option<&OsString>) -> Result<ExitCode> {
    let input = read_input(file)?;
    let text = String::from_utf8(input).context("input is not UTF-8")?;
    let value = json::decode::decode(&text)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{value}")?;
    Ok(ExitCode::SUCCESS)
}

/// The JSON after one stage.
pub(crate) fn inspect(stage: &str, file: Option<&OsString>, global: &Global) -> Result<ExitCode> {
    let input = read_input(file)?;
    let value = match json::stage(&input, stage, &global.settings)? {
        Some(v) => v,
        None => bail!("input is not JSON"),
    };
    writeln!(std::io::stdout().lock(), "{value}")?;
    Ok(ExitCode::SUCCESS)
}
