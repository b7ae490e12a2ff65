//! The shim: tokensieve called under a tool's name (`aws`, `kubectl`, ...)
//! through a symlink, or explicitly as `tokensieve run -- CMD ARGS...`.
//!
//! `resolve` finds the real tool, `policy` decides compress or passthrough
//! from the environment and what fd 1 is (`reader`), `child` execs the tool or
//! runs it and captures stdout, and `handoff::deliver` writes the result and
//! the receipt. Nothing here parses JSON or counts tokens before the policy
//! said "compress".

mod capture;
mod child;
mod keep;
pub mod policy;
pub mod reader;
pub mod resolve;

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use capture::{Captured, Limits, Stop};
use child::Launch;
pub use child::exit_code as child_exit_code;
use policy::Decision;

use crate::settings::{Hint, Settings};
use crate::store::{self, Store};

/// Shim mode: `name` is the basename we were called as.
pub fn main(name: &str, args: Vec<OsString>) -> ExitCode {
    launch(name, None, &args, None)
}

/// `tokensieve run -- CMD ARGS...`: the shim's behaviour as if an agent
/// marker were set. `CMD` with a `/` is run as given; otherwise it is looked
/// up on `$PATH` like a shim would (skipping tokensieve itself). `settings`
/// come from the command line (`--tokenizer` before `run`).
pub fn run_explicit(cmd: &OsStr, args: &[OsString], settings: Settings) -> ExitCode {
    let path = Path::new(cmd);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let given = cmd.to_string_lossy().contains('/').then(|| path.to_path_buf());
    launch(&name, given, args, Some(settings))
}

/// `settings` is `Some` for `tokensieve run` (explicit: as if an agent
/// marker were set); a shim reads them from the environment when it needs them.
fn launch(name: &str, given: Option<PathBuf>, args: &[OsString], settings: Option<Settings>) -> ExitCode {
    let started = Instant::now();
    let skip = resolve::self_ids();
    let Some(real) = given.or_else(|| resolve::find(name, std::env::var_os("PATH").as_deref(), &skip)) else {
        eprintln!("{}", resolve::not_found_message(name));
        return ExitCode::from(127);
    };
    let decision = policy::decide(name, args, settings.is_some());
    if crate::debug::enabled() {
        let took = started.elapsed().as_micros();
        match &decision {
            Decision::Compress => eprintln!("tokensieve: {name}: compress [decided in {took} µs]"),
            Decision::Passthrough(why) => {
                eprintln!("tokensieve: {name}: passthrough, {why} [decided in {took} µs]")
            }
        }
    }
    let launch = Launch { real: &real, args, shims: resolve::ids_env_value(&skip) };
    match decision {
        Decision::Passthrough(_) => cannot_run(&real, &child::exec(&launch)),
        Decision::Compress => compress(name, &launch, settings, started),
    }
}

fn compress(name: &str, launch: &Launch, settings: Option<Settings>, started: Instant) -> ExitCode {
    let settings = settings.unwrap_or_else(crate::config::settings);
    let raw_store = Store::new(store::home(), crate::config::get().store_max_bytes());
    let merge = reader::stderr_joins_stdout();
    let outcome = match child::run(launch, merge, &Limits::from_env(), &raw_store, settings.encoding) {
        Ok(o) => o,
        Err(e) => return cannot_run(launch.real, &e),
    };
    let mut words = vec![name.to_owned()];
    words.extend(launch.args.iter().map(|a| a.to_string_lossy().into_owned()));
    let hint = Hint { command: words, exit_code: outcome.code };
    match outcome.captured {
        Captured::Whole(raw) => deliver_whole(raw, &hint, &settings, started),
        Captured::Kept(spooled) => deliver_or_raw(&spooled, &hint, &settings, started),
        Captured::Streamed => {}
    }
    if let Some(stop) = outcome.stop {
        stopped_note(stop, started);
    }
    ExitCode::from(outcome.code.clamp(0, 255) as u8)
}

/// One stderr line after the receipt: the output is what the tool printed
/// before the harness stopped it.
fn stopped_note(stop: Stop, started: Instant) {
    use std::io::Write;
    let name = match stop.signal {
        libc::SIGINT => "SIGINT".to_string(),
        libc::SIGTERM => "SIGTERM".to_string(),
        libc::SIGHUP => "SIGHUP".to_string(),
        libc::SIGQUIT => "SIGQUIT".to_string(),
        n => format!("signal {n}"),
    };
    let secs = stop.at.duration_since(started).as_secs_f64();
    let line = format!(
        "tokensieve: stopped by {name} after {secs:.1} s: the output is what the tool printed until then\n"
    );
    let _ = io::stderr().lock().write_all(line.as_bytes());
}

/// An output held whole. A large JSON document is stored first and then
/// handed over (`handoff::deliver_stored`), so that its bytes are let go
/// before its tree is complete, as in filter mode; from then on the stored
/// copy is what a failure falls back to. Anything else: `deliver_or_raw`.
fn deliver_whole(raw: Vec<u8>, hint: &Hint, settings: &Settings, started: Instant) {
    // A failure while storing leaves the bytes here: the ordinary path.
    let store = || crate::handoff::store_large(&raw, Some(hint), settings);
    let stored = std::panic::catch_unwind(std::panic::AssertUnwindSafe(store)).ok().flatten();
    let Some(stored) = stored else { return deliver_or_raw(&raw[..], hint, settings, started) };
    let object = stored.object().clone();
    guarded(
        move || crate::handoff::deliver_stored(raw, stored, Some(hint), settings, started),
        || {
            let _ = crate::handoff::write_stored(&object, &mut io::stdout().lock());
        },
    );
}

/// The agent gets its output whatever happens in our code: a failure before
/// anything was written falls back to the raw bytes (or, for an output too
/// large to hold, to the stored raw bytes).
fn deliver_or_raw<'a>(
    raw: impl Into<crate::handoff::Gathered<'a>>,
    hint: &Hint,
    settings: &Settings,
    started: Instant,
) {
    let gathered = raw.into();
    guarded(
        || crate::handoff::deliver_gathered(&gathered, Some(hint), settings, started),
        || {
            let _ = gathered.write_raw(&mut io::stdout().lock());
        },
    );
}

/// Runs `deliver`; if it panics, `write_raw` gives stdout the raw bytes.
fn guarded(deliver: impl FnOnce() -> io::Result<crate::auditor::Receipt>, write_raw: impl FnOnce()) {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(deliver)) {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => eprintln!("tokensieve: cannot write the output: {e}"),
        Err(_) => {
            eprintln!("tokensieve: internal error while compressing; raw output delivered");
            write_raw();
        }
    }
}

/// 126 when the tool exists but cannot be executed, 127 otherwise (the
/// shell's convention).
fn cannot_run(real: &Path, err: &io::Error) -> ExitCode {
    eprintln!("tokensieve: cannot run {}: {err}", real.display());
    ExitCode::from(if err.kind() == io::ErrorKind::PermissionDenied { 126 } else { 127 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_after_a_large_document_was_handed_over_delivers_its_stored_copy() {
        // `deliver_whole`'s fallback once the bytes are gone with the
        // delivery that took them: the stored copy, byte for byte.
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().to_path_buf(), u64::MAX);
        let raw: Vec<u8> = (0..20_000).flat_map(|i| format!("{{\"n\":{i}}},").into_bytes()).collect();
        let object = store.plan(&raw).unwrap();
        store.put(&raw, &object).unwrap();
        let want = raw.clone();
        let mut got = Vec::new();
        guarded(
            move || {
                drop(raw);
                panic!("a bug after the hand-over");
            },
            || crate::handoff::write_stored(&object, &mut got).unwrap(),
        );
        assert!(got == want, "{} of {} bytes", got.len(), want.len());
    }
}
