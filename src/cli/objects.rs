//! `tokensieve objects push|pull [REMOTE] [--backend lfs|git-ref|auto]`:
//! share the raw store with a team through the git remote it already uses
//! (the work is in `src/share/`).

use std::process::ExitCode;

use anyhow::Result;

use super::args::{ObjectsArgs, ObjectsVerb};
use super::out::outln;
use super::progress::Spinner;
use crate::share::{self, Backend};
use crate::store::{self, Store};

pub(crate) fn run(args: ObjectsArgs) -> Result<ExitCode> {
    let (verb, a) = match args.verb {
        ObjectsVerb::Push(a) => ("push", a),
        ObjectsVerb::Pull(a) => ("pull", a),
    };
    let backend = Backend::parse(&a.backend)?;
    let remote = a.remote.as_deref();
    let home = store::home();
    let raw = Store::new(home.clone(), crate::config::get().store_max_bytes());
    let git = share::repository(&std::env::current_dir()?)?;
    let remote = share::resolve_remote(&git, remote)?;
    match verb {
        "push" => {
            let spinner = Spinner::start("pushing raw outputs");
            let r = share::push(&git, &remote, backend, &raw, &home)?;
            drop(spinner);
            outln!(
                "pushed {} raw output(s) to {remote} ({}: {} sent, {} already there); {} manifest(s) in {} ({} new or updated)",
                r.objects,
                r.backend,
                r.sent,
                r.objects - r.sent,
                r.manifests.total,
                share::refs::MANIFESTS,
                r.manifests.changed
            )?;
            Ok(ExitCode::SUCCESS)
        }
        _ => {
            let spinner = Spinner::start("pulling raw outputs");
            let r = share::pull(&git, &remote, backend, &raw)?;
            drop(spinner);
            for f in &r.failures {
                super::usage::error_line("tokensieve objects pull", f);
            }
            for n in &r.notes {
                super::usage::error_line("tokensieve objects pull: note", n);
            }
            outln!(
                "pulled {} raw output(s) from {remote}: {} fetched, {} already here{}",
                r.listed,
                r.fetched,
                r.already,
                if r.failures.is_empty() { String::new() } else { format!(", {} failed", r.failures.len()) }
            )?;
            Ok(if r.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
    }
}
