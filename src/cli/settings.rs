//! `tokensieve config show|path` and `tokensieve trust [FILE]`: what the
//! settings are and where each comes from (`crate::config`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::out::outln;

use super::args::{ConfigArgs, ConfigWhat};
use crate::config::{self, Source};

pub(crate) fn config(args: ConfigArgs) -> Result<ExitCode> {
    match args.what {
        None => show(false),
        Some(ConfigWhat::Show(a)) => show(a.json),
        Some(ConfigWhat::Path) => path(),
    }
}

fn show(json: bool) -> Result<ExitCode> {
    let cfg = config::get();
    if json {
        super::out::text(&format!("{:#}\n", to_json(cfg)))?;
        return Ok(ExitCode::SUCCESS);
    }
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
    super::out::text(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The same rows for programs: key, value, source (and the variable).
fn to_json(cfg: &config::Config) -> serde_json::Value {
    let mut rows: Vec<serde_json::Value> = cfg
        .rows()
        .iter()
        .map(|(spec, value, source)| {
            serde_json::json!({"key": spec.key, "value": value, "source": source.to_string(), "env": spec.env})
        })
        .collect();
    for (name, on, source) in cfg.tool_rows() {
        rows.push(serde_json::json!({
            "key": format!("tool.{}", name.replace(' ', ".")),
            "value": if *on { "enabled" } else { "disabled" },
            "source": source.to_string(),
            "env": config::TOOLS_ENV,
        }));
    }
    let filters: Vec<_> = cfg
        .filter_specs()
        .iter()
        .map(|f| serde_json::json!({"matches": f.matches, "regex": f.regex, "origin": f.origin}))
        .collect();
    serde_json::json!({"settings": rows, "filters": filters})
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
    outln!("user     {}{}", user.display(), mark(&user))?;
    match config::project_path() {
        Some(p) => outln!("project  {}", p.display())?,
        None => outln!("project  (no {} here or above)", config::PROJECT_FILE)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `tokensieve trust [FILE]`: FILE, or the project file found upward.
pub(crate) fn trust(file: Option<PathBuf>) -> Result<ExitCode> {
    let file = match file {
        Some(f) => f,
        None => match config::project_path() {
            Some(p) => p,
            None => bail!("no {} here or above to trust", config::PROJECT_FILE),
        },
    };
    let hash = config::trust::trust(&file)?;
    outln!("trusted {} (sha256 {})", file.display(), &hash[..16])?;
    Ok(ExitCode::SUCCESS)
}
