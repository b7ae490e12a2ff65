//! The `tokensieve` command line: clap definitions (`args`), dispatch, and
//! one file per subcommand; parsing never does work. Usage errors, help,
//! completions and the man page: `usage`; what the subcommands print:
//! `out`; progress bars: `progress`.
//!
//! # Design: The command line
//!
//! `cli::main` parses argv with clap (`src/cli/args.rs`: one derive struct per
//! subcommand, parsing only) and hands the typed struct to its subcommand's
//! file; the shim path (`shim::main`) never reaches clap. From the same
//! definitions come each subcommand's help (80 columns), usage errors
//! (`src/cli/usage.rs` folds clap's message into one line, `tokensieve SUB:
//! ... ; try 'tokensieve SUB --help'`, exit 2; a bare word that is neither a
//! subcommand nor a file is an unknown command, with the nearest name),
//! `tokensieve completions SHELL` (clap_complete) and `tokensieve man`
//! (clap_mangen; `docs/man/tokensieve.1`, checked current by tests/cli.rs).
//! Subcommands print through `src/cli/out.rs`: `outln!` returns the write's
//! error, and `cli::main` turns a broken pipe anywhere in the chain into a
//! quiet exit 0; numbers are grouped there (`group`) and coloured only on a
//! terminal (`--color`, `NO_COLOR`, `CLICOLOR=0`). `src/cli/progress.rs` draws
//! indicatif bars on stderr after a second of work, on a terminal only (a
//! spinner for `objects push|pull`, whose work happens inside git and the LFS
//! client).
//! Inspections and dry runs (`show --jq`, `filter try`) deliver through
//! `handoff` like a call but call `handoff::not_a_call` first, so the history
//! does not count them.

mod args;
mod discover;
mod doctor;
mod fetch;
mod filter;
mod filter_test;
mod gain;
mod hook;
mod init;
mod inspect;
mod install;
mod objects;
mod out;
mod progress;
mod recall;
mod run;
mod session;
mod settings;
mod show;
mod usage;

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use crate::settings::{Dedup, Settings};
use args::{Cli, Command, PipelineArgs};

/// What the commands that deliver output share: the settings, and in filter
/// mode the command the input came from.
#[derive(Debug, Default)]
pub(crate) struct Global {
    pub settings: Settings,
    pub cmd: Option<String>,
    pub exit: i32,
}

impl Global {
    /// The settings in force with the command line's own on top (`top`: given
    /// before the subcommand, `sub`: after it, which wins).
    fn new(top: &PipelineArgs, sub: Option<&PipelineArgs>) -> Global {
        let mut settings = crate::config::get().settings();
        for p in std::iter::once(top).chain(sub) {
            if let Some(e) = p.tokenizer {
                settings.encoding = e;
            }
            if p.aggressive {
                settings.dedup = Dedup::Aggressive;
            }
            if let Some(f) = p.format {
                settings.format = f;
            }
        }
        Global { settings, ..Global::default() }
    }
}

pub fn main(args: Vec<OsString>) -> ExitCode {
    let argv = std::iter::once(OsString::from("tokensieve")).chain(args.iter().cloned());
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => return usage::clap_error(e, &args),
    };
    out::set_color(cli.color);
    let path = match &cli.command {
        Some(c) => format!("tokensieve {}", c.name()),
        None => "tokensieve".to_owned(),
    };
    match dispatch(cli) {
        Ok(code) => code,
        // The reader closed early (`| head`): its choice, not an error.
        Err(e) if out::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            usage::error_line(&path, &format!("{e:#}"));
            ExitCode::from(usage::USAGE_EXIT)
        }
    }
}

fn dispatch(cli: Cli) -> Result<ExitCode> {
    let Some(command) = cli.command else { return filter_mode(cli) };
    if cli.file.is_some() || cli.cmd.is_some() || cli.exit.is_some() {
        let what = if cli.file.is_some() {
            "a FILE"
        } else if cli.cmd.is_some() {
            "--cmd"
        } else {
            "--exit"
        };
        anyhow::bail!(
            "{what} goes with filter mode (tokensieve [--cmd CMD --exit N] [FILE]), not with '{}'",
            command.name()
        );
    }
    // A hook answers an agent on stdout; what it prints on stderr may reach
    // the person: settings warnings are for the commands that deliver output.
    // (`trust` would only say the file it is trusting is not trusted yet.)
    if !matches!(command, Command::Hook(_) | Command::Trust(_) | Command::Completions(_) | Command::Man) {
        crate::config::warn();
    }
    let top = &cli.pipeline;
    match command {
        Command::Run(a) => run::run(a.command, &Global::new(top, Some(&a.pipeline))),
        Command::Fetch(a) => fetch::run(a.commands, &Global::new(top, Some(&a.pipeline))),
        Command::Show(a) => {
            let global = Global::new(top, Some(&a.pipeline));
            show::run(&show::Args::new(a)?, &global)
        }
        Command::Gain(a) => gain::run(&gain::Args::new(a)?),
        Command::Recall(a) => recall::run(a, &Global::new(top, None)),
        Command::Decode(a) => inspect::decode(a.file.as_ref()),
        Command::Inspect(a) => {
            let global = Global::new(top, Some(&a.pipeline));
            inspect::inspect(&a.stage, a.file.as_ref(), &global)
        }
        Command::Objects(a) => objects::run(a),
        #[cfg(feature = "mcp")]
        Command::Mcp => {
            crate::mcp::serve()?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(not(feature = "mcp"))]
        Command::Mcp => anyhow::bail!("this tokensieve was built without the `mcp` feature"),
        Command::Install(a) => install::install(a.tools),
        Command::Uninstall(a) => install::uninstall(a.tools),
        Command::Doctor(a) => doctor::run(a.json),
        Command::Init(a) => init::run(a),
        Command::Hook(a) => hook::run(&a.agent),
        Command::Config(a) => settings::config(a),
        Command::Trust(a) => settings::trust(a.file),
        Command::Filter(a) => filter_test::run(a),
        Command::Discover(a) => discover::run(a),
        Command::Session(a) => session::run(a),
        Command::Completions(a) => {
            usage::completions(a.shell)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            usage::man()?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `tokensieve [--cmd CMD --exit N] [FILE]`: filter stdin or FILE.
fn filter_mode(cli: Cli) -> Result<ExitCode> {
    let file = cli.file.filter(|f| f != "-");
    if let Some(word) = file.as_ref().and_then(|f| f.to_str())
        && !Path::new(word).exists()
        && !word.contains(['/', '.'])
    {
        return Ok(usage::unknown_command(word));
    }
    crate::config::warn();
    let mut global = Global::new(&cli.pipeline, None);
    global.cmd = cli.cmd;
    global.exit = cli.exit.unwrap_or(0);
    if file.is_none() && std::io::stdin().is_terminal() {
        // Someone typed `tokensieve` alone: say what we wait for.
        usage::error_line(
            "tokensieve",
            "reading the output to filter from stdin (end with Ctrl-D); `tokensieve --help` for the commands",
        );
    }
    filter::run(file.as_ref(), &global)
}

/// The settings from the environment and the settings files, their
/// warnings printed once (`crate::config::settings`).
pub(crate) fn settings() -> Settings {
    crate::config::settings()
}
