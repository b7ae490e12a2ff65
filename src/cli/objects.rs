//! `tokensieve objects push|pull [REMOTE] [--backend lfs|git-ref|auto]`:
//! share the raw store with a team through the git remote it already uses
//! (the work is in `src/share/`).

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::{Result, bail};
use lexopt::prelude::*;

use crate::share::{self, Backend};
use crate::store::{self, Store};

const USAGE: &str = "usage: tokensieve objects push|pull [REMOTE] [--backend lfs|git-ref|auto]";

pub(crate) fn run(args: Vec<OsString>) -> Result<ExitCode> {
    let mut parser = lexopt::Parser::from_args(args);
    let mut positional: Vec<String> = Vec::new();
    let mut backend = Backend::Auto;
    while let Some(arg) = parser.next()? {
        match arg {
            Long("backend") => backend = Backend::parse(&parser.value()?.string()?)?,
            Long("help") | Short('h') => {
                println!("{USAGE}");
                return Ok(ExitCode::SUCCESS);
            }
            Value(v) => positional.push(v.string()?),
            other => return Err(other.unexpected().into()),
        }
    }
    let (verb, remote) = match positional.as_slice() {
        [verb] => (verb.as_str(), None),
        [verb, remote] => (verb.as_str(), Some(remote.as_str())),
        [] => bail!("{USAGE}"),
        [_, _, extra, ..] => bail!("unexpected argument '{extra}' ({USAGE})"),
    };
    let home = store::home();
    let raw = Store::new(home.clone(), crate::config::get().store_max_bytes());
    let git = share::repository(&std::env::current_dir()?)?;
    let remote = share::resolve_remote(&git, remote)?;
    match verb {
        "push" => {
            let r = share::push(&git, &remote, backend, &raw, &home)?;
            println!(
                "pushed {} raw output(s) to {remote} ({}: {} sent, {} already there); {} manifest(s) in {} ({} new or updated)",
                r.objects,
                r.backend,
                r.sent,
                r.objects - r.sent,
                r.manifests.total,
                share::refs::MANIFESTS,
                r.manifests.changed
            );
            Ok(ExitCode::SUCCESS)
        }
        "pull" => {
            let r = share::pull(&git, &remote, backend, &raw)?;
            for f in &r.failures {
                eprintln!("tokensieve: {f}");
            }
            for n in &r.notes {
                eprintln!("tokensieve: note: {n}");
            }
            println!(
                "pulled {} raw output(s) from {remote}: {} fetched, {} already here{}",
                r.listed,
                r.fetched,
                r.already,
                if r.failures.is_empty() { String::new() } else { format!(", {} failed", r.failures.len()) }
            );
            Ok(if r.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        other => bail!("unknown objects command '{other}' ({USAGE})"),
    }
}
