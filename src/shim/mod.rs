//! The shim: tokensieve called under another tool's name.

use std::ffi::OsString;
use std::process::ExitCode;

pub fn main(name: &str, _args: Vec<OsString>) -> ExitCode {
    eprintln!("tokensieve: shim mode for '{name}' is not built yet");
    ExitCode::from(127)
}
