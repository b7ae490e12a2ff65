//! `tokensieve run -- CMD ARGS...`: one command through the shim, as if an
//! agent marker were set (the other passthrough rules still apply).

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::Global;

pub(crate) fn run(rest: Vec<OsString>, global: &Global) -> Result<ExitCode> {
    let Some((cmd, args)) = rest.split_first() else {
        bail!("missing command (tokensieve run -- CMD ARGS...)");
    };
    Ok(crate::shim::run_explicit(cmd, args, global.settings.clone()))
}
