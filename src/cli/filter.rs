//! `tokensieve [FILE]`: filter stdin or a file (pipe-filter mode).

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::Result;

use super::Global;
use crate::handoff;
use crate::settings::Hint;

pub(crate) fn run(file: Option<&OsString>, global: &Global) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    let raw = super::inspect::read_input(file)?;
    let hint = global
        .cmd
        .as_ref()
        .map(|c| Hint { command: c.split_whitespace().map(str::to_owned).collect(), exit_code: global.exit });
    handoff::deliver(
        handoff::Sink::Stdout,
        handoff::Output::Whole(raw),
        hint.as_ref(),
        &global.settings,
        &crate::config::get().store(),
        started,
    )?;
    Ok(ExitCode::SUCCESS)
}
