//! The shim: tokensieve called under a tool's name (`aws`, `kubectl`, ...)
//! through a symlink, or explicitly as `tokensieve run -- CMD ARGS...`.
//!
//! `resolve` finds the real tool, `policy` decides compress or passthrough
//! from the environment and what fd 1 is (`reader`), `child` execs the tool or
//! runs it and captures stdout, and `handoff::deliver` writes the result and
//! the receipt. Nothing here parses JSON or counts tokens before the policy
//! said "compress".
//!
//! # Design: The shim (`src/shim/`, `src/cli/{run,fetch,install,doctor}.rs`)
//!
//! Called as `aws` (a symlink in `~/.tokensieve/bin`, first on `$PATH`) or as
//! `tokensieve run -- CMD`:
//!
//! 1. `resolve`: walk `$PATH` in order and take the first executable of that
//!    name whose device+inode is not ours (`/proc/self/exe`) and not one listed
//!    in `TOKENSIEVE_SHIMS` (every shim adds its identity there for its child,
//!    so a *copied* binary in a second folder cannot bounce the call back).
//!    Nothing left: `tokensieve: real 'aws' not found on PATH ...`, exit 127.
//! 2. `policy`: `TOKENSIEVE_DEPTH` set (we are inside a tool) → exec;
//!    `TOKENSIEVE=off` → exec; then the settings are read (`config::get`,
//!    below): the tool or subcommand turned off there (`[tool.aws] enabled =
//!    false`) → exec; no agent marker, built-in or from `agent_markers` (and
//!    not `TOKENSIEVE=on`, not `run`) → exec; follow/watch flags and
//!    interactive subcommands, built-in or from `live` → exec; then fd 1
//!    (`reader`), by the table below.
//! 3. `reader` (Linux, `src/shim/reader/`): one `fstat` of fd 1, then a walk up
//!    our ancestors in `/proc` that asks who will read the bytes: the agent
//!    that started the command, or something the command set up itself.
//!    - `pipe.rs`: both ends of a pipe share an inode, `pipe:[N]` in
//!      `/proc/PID/fd`, and `/proc/PID/fdinfo/FD` says which end. Climb while
//!      the ancestor's own fd 1 is that same pipe; the first one that holds a
//!      read end decides: a shell (`x=$(aws ...)`, or the shell that is still
//!      setting up `aws | jq`) → exec, any other program (the agent that
//!      spawned `bash -c`, a harness, `subprocess.run(capture_output=True)`) →
//!      compress. A pipe made by the shell for `| jq`/`| head` stops the climb
//!      at once: not found → exec.
//!    - `file.rs` (Claude Code's Bash tool runs `bash -c` with stdout and
//!      stderr on one task output file it opened `O_WRONLY|O_APPEND` and reads
//!      afterwards): climb while the ancestor's fd 1 is the same file
//!      (device + inode). The first ancestor with another stdout made the file
//!      ours: a shell means a redirect in the command (`> out.json`, `( ... ) >
//!      f`), any other program is the caller. A shell can also redirect its own
//!      stdout and then start us: for `{ aws; } > f` bash and dash keep the old
//!      stdout on a close-on-exec descriptor ≥ 10, so a saved *output* (write-
//!      only, or the object stdin still is — a saved stdin is not one: Claude
//!      Code runs `eval '...' < /dev/null`) on another file → exec; for `exec >
//!      f` nothing is saved, so a shell whose `-c` text or script file runs
//!      `exec` with an output redirection → exec. Last, an agent's capture
//!      holds both streams: the outermost holder has stderr on the same file
//!      (or saved aside) and the file is open for appending; otherwise → exec.
//!      Known misses: `exec >> f 2>&1` in a file a script sources, and `bash -c
//!      'exec >> old.log 2>&1; aws ...'` when bash execs aws as its last
//!      command (nothing of the shell is left to read).
//!
//!    Process groups are not used (a child spawned without `setsid` shares the
//!    agent's group). Cost, measured by `scripts/shim-overhead.sh` (release,
//!    includes PATH resolution): 70 µs without a marker, 110–160 µs for a
//!    redirect, a pipe or `$(...)`, ~200 µs for an agent's pipe or capture file.
//!    **Elsewhere** (no `/proc`, `hidepid`, a setuid ancestor whose fd table we
//!    may not read): the reader is unknown and we pass through — transparency
//!    over savings; a tty or socket stdout still compresses. Known miss: ksh93
//!    builds pipelines from socketpairs, so `aws | jq` there looks like a socket.
//!
//!    | fd 1 | what the walk finds | decision |
//!    |---|---|---|
//!    | tty | a person, or a pty agent (the marker says which) | compress |
//!    | socket | Node agents' socketpairs (Gemini CLI, OpenCode) | compress |
//!    | pipe | read end held by an ancestor that is not a shell (the agent, a harness) | compress |
//!    | pipe | read end held by an ancestor shell (`$(...)`, a pipeline being set up) | exec |
//!    | pipe | reader is no ancestor (`\| jq`, `\| head`, `>(...)`, a FIFO) | exec |
//!    | regular file | the first ancestor on another stdout is a shell (`> f`, `>> f`, `( ) > f`, `sh -c ... > f`) | exec |
//!    | regular file | a shell of the chain saved an output aside (`{ ...; } > f`) or runs `exec >` | exec |
//!    | regular file | stderr on another file, or the file not open for appending | exec |
//!    | regular file | the caller is a program, both streams on the file, appending (Claude Code) | compress |
//!    | `/dev/null`, another device, closed | — | exec |
//!    | anything `/proc` cannot read | — | exec |
//! 4. `child`: passthrough is `exec` (the tool replaces us). argv[0] is the
//!    real tool's path, as version managers' shims do: an interpreter that
//!    finds its home from argv[0] (python and its venv's `pyvenv.cfg`) must
//!    not find our shim folder (tests/interpreters.rs).
//!    Compressing spawns the tool with stdin inherited, stdout piped, and
//!    stderr inherited unless our stderr is the same place as our stdout
//!    (`reader::stderr_joins_stdout`: one open file per `kcmp`, or the same
//!    pipe or pty: Claude Code's capture file, `2>&1`): then stdout and
//!    stderr are one pipe, the agent reads them in the tool's order and the
//!    merged text is what the filters treat (tests/stderr.rs); with an agent
//!    marker, a stderr that is a pipe of its own whose read end an ancestor
//!    program holds (`reader::stderr_read_apart`: Codex reads the two
//!    streams apart) gets the tool's stderr on a pipe of ours, gathered
//!    beside stdout (`apart`) and treated as text on its own once stdout is
//!    delivered, with its own receipt, by the same `handoff::deliver`
//!    writing to stderr (`deliver_apart`); `2>/dev/null`,
//!    `2>file` and a pipe into another program keep the tool's stderr where
//!    it was sent;
//!    `TOKENSIEVE_DEPTH=1`, pagers off, `PR_SET_PDEATHSIG`, and SIGINT, SIGTERM,
//!    SIGHUP, SIGQUIT forwarded (not terminal-generated ones: the tool got those
//!    itself; not ones our caller ignores, as under `nohup`: they stay ignored).
//!    The tool starts with our caller's signal mask. A tool file without `#!`
//!    runs through `/bin/sh`, as a shell would run it. The handler also writes
//!    the signal's number to a non-blocking self-pipe, so the capture learns
//!    that the harness is stopping us (below). Forwarding ends when the tool
//!    exits, so a signal while we render stops the shim.
//! 5. `capture` (agents do not watch output stream by: all of it is gathered).
//!    The first bytes decide: NUL → a byte-for-byte stream at once; a valid
//!    JSON prefix (after whitespace, BOM, ANSI) or any text → gathered, for
//!    every command, claimed by a filter or not. Up to a size the output is
//!    held whole and goes to `handoff::deliver` with the command as hint
//!    (`handoff::Output::Whole`; a large JSON document is stored first):
//!    JSON up to `TOKENSIEVE_CAPTURE_MAX_BYTES` (64 MiB; bytes or K/M/G, as the
//!    store cap), text up to 8 MiB (or that cap, if lower). Past it, `keep`
//!    holds the first 256 KiB of lines (head), a rolling last 1 MiB (tail) and,
//!    of the lines that fall out in between, those `text::is_signal_line`
//!    marks (256 KiB of them, the rest counted; lines cut at 64 KiB), while every
//!    byte goes to the raw store through `Store::writer()` and
//!    `auditor::Tally` counts its tokens exactly on the way. The excerpt is
//!    rendered as text (JSON lines too: it is not one document), like the
//!    whole: `settings::Excerpt` in the call (`settings::Call`) gives the summary
//!    (`guard::Source::line_no`) and the budget view the whole output's line
//!    numbers, sizes and `--lines` ranges, and the guard no id (a count over
//!    the excerpt is not what `show --grep` prints). A last line names the
//!    left-out lines and `tokensieve show ID --lines A:B`. Nothing
//!    that could not be shown again is dropped: binary bytes later on, a store
//!    that is off, unwritable or over its cap for this output, or the opt-in
//!    `TOKENSIEVE_TEXT_WAIT_SECS` passing, turn the capture into a byte-for-byte
//!    stream of everything (held bytes first, read back from the store's temp
//!    file when spooled) with one warning line. A stop signal (SIGTERM, SIGINT,
//!    SIGHUP, SIGQUIT) ends the gathering at EOF, when the tool has exited, or
//!    after a 2 s grace (a tool that ignores it, a background job holding the
//!    pipe): what was gathered is delivered, then `stopped by SIGTERM after
//!    N s` on stderr. Exit status is the tool's, 128+N for signal N; if the
//!    tool outlived the grace, 128+N for the signal we got.
//! 6. `fetch` runs each command with `sh -c` at once, merges the outputs into one
//!    object keyed by command (non-JSON as strings) and delivers it once.
//!    `install`/`uninstall`/`doctor` manage the symlinks; `install.sh` adds the
//!    PATH block between `# >>> tokensieve >>>` markers.
//!
//! `TOKENSIEVE_DEBUG=1` prints the decision, its reason and its cost on stderr.

mod apart;
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
pub use child::exit_code as child_exit_code;
use child::{Launch, Streams};
use policy::Decision;

use crate::handoff::Sink;
use crate::settings::{Hint, Settings};
use crate::store::Store;

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
    // The call's one raw store: the capture spools into it, the handoff
    // keeps the raw bytes in it.
    let raw_store = crate::config::get().store();
    let streams = if reader::stderr_joins_stdout() {
        Streams::Merged
    } else if policy::agent_marker_present() && reader::stderr_read_apart() {
        Streams::Apart
    } else {
        Streams::Inherited
    };
    let outcome = match child::run(launch, streams, &Limits::from_env(), &raw_store, settings.encoding) {
        Ok(o) => o,
        Err(e) => return cannot_run(launch.real, &e),
    };
    let mut words = vec![name.to_owned()];
    words.extend(launch.args.iter().map(|a| a.to_string_lossy().into_owned()));
    let hint = Hint { command: words, exit_code: outcome.code };
    match outcome.captured {
        Captured::Whole(raw, first) => {
            deliver(crate::handoff::Output::Sniffed(raw, first), &hint, &settings, &raw_store, started)
        }
        Captured::Kept(spooled) => deliver((&spooled).into(), &hint, &settings, &raw_store, started),
        Captured::Streamed => {}
    }
    if let Some(stderr) = outcome.stderr.and_then(|g| g.finish(capture::STOP_GRACE)) {
        deliver_apart(stderr, &hint, &settings, &raw_store, started);
    }
    if let Some(stop) = outcome.stop {
        stopped_note(stop, started);
    }
    ExitCode::from(outcome.code.clamp(0, 255) as u8)
}

/// The tool's stderr, read apart from stdout (`Streams::Apart`), delivered
/// to our stderr by the one delivery path (`handoff::deliver`): treated
/// as text on its own, with its own receipt, its raw bytes kept when
/// something was left out, as printed on any failure. The exit code stays
/// with stdout's rendering (no status line here), and so does the call's
/// history row.
fn deliver_apart(raw: Vec<u8>, hint: &Hint, settings: &Settings, raw_store: &Store, started: Instant) {
    if raw.is_empty() {
        return;
    }
    let hint = Hint { command: hint.command.clone(), exit_code: 0 };
    let output = crate::handoff::Output::Whole(raw);
    if let Err(e) = crate::handoff::deliver(Sink::Stderr, output, Some(&hint), settings, raw_store, started) {
        eprintln!("tokensieve: cannot write the tool's stderr: {e}");
    }
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

/// `handoff::deliver`, whose guard writes the raw bytes if our code fails;
/// an error here is stdout's own (the agent went away, a full disk).
fn deliver(
    output: crate::handoff::Output,
    hint: &Hint,
    settings: &Settings,
    raw_store: &Store,
    started: Instant,
) {
    if let Err(e) = crate::handoff::deliver(Sink::Stdout, output, Some(hint), settings, raw_store, started) {
        eprintln!("tokensieve: cannot write the output: {e}");
    }
}

/// 126 when the tool exists but cannot be executed, 127 otherwise (the
/// shell's convention).
fn cannot_run(real: &Path, err: &io::Error) -> ExitCode {
    eprintln!("tokensieve: cannot run {}: {err}", real.display());
    ExitCode::from(if err.kind() == io::ErrorKind::PermissionDenied { 126 } else { 127 })
}
