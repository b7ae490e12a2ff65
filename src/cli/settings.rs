//! `tokensieve config show|path` and `tokensieve trust [FILE]`: what the
//! settings are and where each comes from (`crate::config`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};

use crate::config::{self, Source};

pub(crate) fn config(args: Vec<OsString>) -> Result<ExitCode> {
    let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] | ["show"] => show(),
        ["path"] => path(),
        _ => bail!("usage: tokensieve config show | config path"),
    }
}

fn show() -> Result<ExitCode> {
    let cfg = config::get();
    let mut out = String::new();
    let rows = cfg.rows();
    let width = rows.iter().map(|r| r.0.key.len()).max().unwrap_or(0);
    let vwidth = rows.iter().map(|r| r.1.chars().count()).chain([8]).max().unwrap_or(0).min(24);
    for (spec, value, source) in &rows {
        let value = if value.is_empty() { "-" } else { value.as_str() };
        out.push_str(&format!("{:width$}  {value:vwidth$}  {}\n", spec.key, describe(source, spec.env)));
    }
    for (name, on, source) in cfg.tool_rows() {
        let key = format!("tool.{}", name.replace(' ', "."));
        let value = if *on { "enabled" } else { "disabled" };
        out.push_str(&format!("{key:width$}  {value:vwidth$}  {}\n", describe(source, config::TOOLS_ENV)));
    }
    for f in cfg.filter_specs() {
        let what =
            f.matches.clone().or_else(|| f.regex.as_ref().map(|r| format!("/{r}/"))).unwrap_or_default();
        out.push_str(&format!("{:width$}  {what:vwidth$}  {}\n", "filter", f.origin));
    }
    // (the warnings were printed when the settings were read)
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

/// `env TOKENSIEVE_X`, `FILE:LINE`, or `default (TOKENSIEVE_X)` so a reader
/// learns the variable either way.
fn describe(source: &Source, env: &str) -> String {
    match source {
        Source::Default => format!("default (env {env})"),
        other => other.to_string(),
    }
}

fn path() -> Result<ExitCode> {
    let user = config::user_path();
    let mark = |p: &PathBuf| if p.is_file() { "" } else { "  (none)" };
    println!("user     {}{}", user.display(), mark(&user));
    match config::project_path() {
        Some(p) => println!("project  {}", p.display()),
        None => println!("project  (no {} here or above)", config::PROJECT_FILE),
    }
    Ok(ExitCode::SUCCESS)
}

/// `tokensieve trust [FILE]`: FILE, or the project file found upward.
pub(crate) fn trust(args: Vec<OsString>) -> Result<ExitCode> {
    let file = match args.as_slice() {
        [] => match config::project_path() {
            Some(p) => p,
            None => bail!("no {} here or above to trust", config::PROJECT_FILE),
        },
        [one] => PathBuf::from(one),
        _ => bail!("usage: tokensieve trust [FILE]"),
    };
    let hash = config::trust::trust(&file)?;
    println!("trusted {} (sha256 {})", file.display(), &hash[..16]);
    Ok(ExitCode::SUCCESS)
}
