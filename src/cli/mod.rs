//! The `tokensieve` command line: argument parsing and dispatch. Each
//! subcommand lives in its own file; parsing never does work.

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
mod recall;
mod run;
mod session;
mod settings;
mod show;

use std::ffi::OsString;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use lexopt::prelude::*;

use crate::auditor::Encoding;
use crate::settings::Format;
use crate::settings::{Dedup, Settings};

const HELP: &str = "\
tokensieve: compact, lossless-on-demand views of CLI output for AI agents

usage:
  tokensieve [OPTIONS] [FILE]           filter stdin or FILE
  tokensieve decode                     any emitted shape (stdin) back to JSON
  tokensieve inspect --stage STAGE      JSON after scrub|sieve|dedup (stdin)
  tokensieve run -- CMD [ARGS...]       run CMD, compress its stdout (shim behaviour)
  tokensieve fetch -- 'CMD1' 'CMD2'...  run each (sh -c), merge outputs, compress once
  tokensieve show ID [--lines A:B] [--grep RE] [--path]
                                        a call's raw output (ID from the receipt)
  tokensieve show ID --summary [--format json|yaml]
                                        the call's stored typed result (status, counts, findings)
  tokensieve show ID [--slurp] --jq FILTER
                                        a jq program over it (compact, within the budget)
  tokensieve objects push|pull [REMOTE] [--backend lfs|git-ref|auto]
                                        share raw outputs through the git remote (Git LFS
                                        or refs/tokensieve/*); show ID then fetches lazily
  tokensieve gain [--since 24h|7d|all] [--json]
                                        recorded savings per command
  tokensieve gain --markdown [--since-ref main]
                                        PR scorecard: tokens kept out of context per tool,
                                        calls in this repository since the branch left main
  tokensieve recall [--status passed|failed|error] [--tool T] [--file PATH] [--since 2d]
                  [--cwd] [--limit N] [--json]
                                        past captures by their typed result, newest first
  tokensieve mcp                        an MCP server on stdio: tools run, show, recall
  tokensieve install [TOOL...]          shim TOOLs (default: common agent CLIs on PATH)
  tokensieve uninstall [TOOL...]        remove shims (all, and the PATH lines, if none named)
  tokensieve doctor                     check PATH order, shims, real tools, agents
  tokensieve init [AGENT] [--uninstall] make AGENT's shell find the shims (claude, codex,
                                        gemini, cursor, opencode, copilot)
  tokensieve init claude --mcp [--uninstall]
                                        register `tokensieve mcp` as Claude Code's MCP server
  tokensieve hook gemini|cursor         the hook `init` installs there (JSON on stdin)
  tokensieve config show | config path  every setting, its value and where it comes from
  tokensieve trust [FILE]               let a project's .tokensieve.toml define filters
  tokensieve filter test [FILE|DIR]     run the inline tests of [[filter]]s
  tokensieve filter try FILE --cmd CMD  what a draft filter makes of a capture (stdin)
  tokensieve discover [--since 7d] [--json] [PATH...]
                                        shell commands in agent session logs, and what
                                        tokensieve saved or would have saved on each tool
  tokensieve session compact [OPTIONS] < in.jsonl > out.jsonl
                                        a transcript with fewer tokens (seed 003's transforms;
                                        --tool-results: outputs through the pipeline, raw stored)
  tokensieve help | --help | --version

options:
  --tokenizer cl100k|o200k   token counts for the receipt (env TOKENSIEVE_TOKENIZER)
  --aggressive               seed 000's value-only dedup and epoch deletion
  --cmd \"CMD ARGS\"           treat the input as this command's output
  --exit N                   ... with this exit status
  --format text|json|yaml    stdout: the compressed text (default), or the typed result
                             (status, counts, findings, raw id) holding it
                             (env TOKENSIEVE_FORMAT, for the shims too)

Called through a symlink named after a tool (aws, kubectl, gh, ...), it runs
the real tool and compresses its stdout when an agent reads it.

Settings: environment > .tokensieve.toml (here or above) > ~/.tokensieve/config.toml
> defaults; each variable below is also a key in those files (`config show`).

shim environment:
  TOKENSIEVE=on|off             compress as if an agent ran us / never compress
  TOKENSIEVE_HOME               shims, raw outputs, history (default ~/.tokensieve)
  TOKENSIEVE_CAPTURE_MAX_BYTES  hold at most this much output whole (64M, text 8M at most;
                                past it: head, tail and signal lines, all of it stored)
  TOKENSIEVE_TEXT_WAIT_SECS     stream text still coming after this long (default: never)
  TOKENSIEVE_STORE_MAX_BYTES    raw output store cap, oldest evicted first (256M; 0: off,
                                and then outputs are never compressed)
  TOKENSIEVE_BUDGET=N|off       chars of stdout before a view replaces the output (25000;
                                follows BASH_MAX_OUTPUT_LENGTH, keeping 1/6 of it free)
  TOKENSIEVE_DEBUG=1            print the compress/passthrough decision and its cost";

/// Options every subcommand understands.
#[derive(Debug, Default)]
pub(crate) struct Global {
    pub settings: Settings,
    pub cmd: Option<String>,
    pub exit: i32,
}

pub fn main(args: Vec<OsString>) -> ExitCode {
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tokensieve: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<OsString>) -> Result<ExitCode> {
    // A bad variable or settings file must not cost a pipeline its output
    // (`aws ... | tokensieve`): one warning each (printed once the
    // subcommand is known), and the next source down.
    let mut global = Global { settings: crate::config::get().settings(), ..Global::default() };
    let mut parser = lexopt::Parser::from_args(args);
    let mut positional: Vec<OsString> = Vec::new();
    let mut stage: Option<String> = None;
    let mut show_opts = show::Options::default();
    let mut gain_opts = gain::Options::default();
    let mut recall_opts = recall::Options::default();
    // Options that belong to one subcommand, as typed, to refuse them elsewhere.
    let mut specific: Vec<&'static str> = Vec::new();
    while let Some(arg) = parser.next()? {
        if let Long(name) = &arg
            && let Some(opt) = SUBCOMMAND_OPTIONS.iter().find(|(o, _)| o == name)
        {
            specific.push(opt.0);
        }
        match arg {
            Long("help") | Short('h') => {
                println!("{HELP}");
                return Ok(ExitCode::SUCCESS);
            }
            Long("version") | Short('V') => {
                println!("tokensieve {}", env!("CARGO_PKG_VERSION"));
                return Ok(ExitCode::SUCCESS);
            }
            Long("tokenizer") => global.settings.encoding = Encoding::parse(&text(&mut parser)?)?,
            Long("aggressive") => global.settings.dedup = Dedup::Aggressive,
            Long("format") => {
                global.settings.format = Format::parse(&text(&mut parser)?).context("--format")?
            }
            Long("cmd") => global.cmd = Some(text(&mut parser)?),
            Long("exit") => global.exit = parser.value()?.parse()?,
            Long("stage") => stage = Some(text(&mut parser)?),
            Long("lines") => show_opts.lines = Some(text(&mut parser)?),
            Long("grep") => show_opts.grep = Some(text(&mut parser)?),
            Long("path") => show_opts.path = true,
            Long("jq") => show_opts.jq = Some(text(&mut parser)?),
            Long("slurp") => show_opts.slurp = true,
            Long("summary") => show_opts.summary = true,
            Long("since") => gain_opts.since = Some(text(&mut parser)?),
            Long("json") => gain_opts.json = true,
            Long("markdown") => gain_opts.markdown = true,
            Long("since-ref") => gain_opts.since_ref = Some(text(&mut parser)?),
            Long("status") => recall_opts.status = Some(text(&mut parser)?),
            Long("tool") => recall_opts.tool = Some(text(&mut parser)?),
            Long("file") => recall_opts.file = Some(text(&mut parser)?),
            Long("cwd") => recall_opts.cwd = true,
            Long("limit") => recall_opts.limit = Some(text(&mut parser)?),
            Value(v) if positional.is_empty() && RAW_SUBCOMMANDS.contains(&v.to_str().unwrap_or("")) => {
                let rest: Vec<OsString> = parser.raw_args()?.collect();
                return raw_subcommand(&v.to_string_lossy(), rest, &global);
            }
            Value(v) => positional.push(v),
            other => return Err(other.unexpected().into()),
        }
    }
    let sub = positional.first().and_then(|s| s.to_str()).unwrap_or("");
    let sub_name =
        if matches!(sub, "decode" | "inspect" | "show" | "gain" | "recall" | "help") { sub } else { "" };
    for opt in specific {
        let mut owners = SUBCOMMAND_OPTIONS.iter().filter(|(o, _)| *o == opt).map(|(_, owner)| *owner);
        if !owners.clone().any(|o| o == sub_name) {
            let names: Vec<String> = owners.by_ref().map(|o| format!("`tokensieve {o}`")).collect();
            bail!("--{opt} is an option of {}", names.join(" and "));
        }
    }
    if matches!(sub, "decode" | "help") && positional.len() > 1 {
        bail!("unexpected argument '{}' ({sub} takes none)", positional[1].to_string_lossy());
    }
    crate::config::warn();
    match sub {
        "help" => {
            println!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        "decode" => inspect::decode(),
        "inspect" => inspect::inspect(stage.as_deref(), &global),
        "show" => show::run(&show::Args::new(&positional[1..], show_opts)?, &global),
        "gain" => gain::run(&gain::Args::new(&positional[1..], gain_opts)?),
        #[cfg(feature = "mcp")]
        "mcp" if positional.len() == 1 => {
            crate::mcp::serve()?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(not(feature = "mcp"))]
        "mcp" => bail!("this tokensieve was built without the `mcp` feature"),
        "recall" => {
            let q = recall::query(&recall_opts, gain_opts.since.as_deref())?;
            recall::run(&positional[1..], &q, gain_opts.json, &global)
        }
        _ if positional.len() > 1 => bail!("unexpected argument '{}'", positional[1].to_string_lossy()),
        _ => filter::run(positional.first(), &global),
    }
}

/// Options only some subcommands understand, and those subcommands.
const SUBCOMMAND_OPTIONS: &[(&str, &str)] = &[
    ("stage", "inspect"),
    ("lines", "show"),
    ("grep", "show"),
    ("path", "show"),
    ("jq", "show"),
    ("slurp", "show"),
    ("summary", "show"),
    ("since", "gain"),
    ("json", "gain"),
    ("markdown", "gain"),
    ("since-ref", "gain"),
    ("since", "recall"),
    ("json", "recall"),
    ("status", "recall"),
    ("tool", "recall"),
    ("file", "recall"),
    ("cwd", "recall"),
    ("limit", "recall"),
];

/// An option's value as UTF-8 text (every text-valued option reads it so).
fn text(parser: &mut lexopt::Parser) -> Result<String> {
    Ok(parser.value()?.string()?)
}

/// Subcommands that take the rest of the command line as it is (commands,
/// tool names): options after them are not ours.
const RAW_SUBCOMMANDS: &[&str] = &[
    "run",
    "fetch",
    "install",
    "uninstall",
    "doctor",
    "init",
    "hook",
    "config",
    "trust",
    "filter",
    "objects",
    "discover",
    "session",
];

fn raw_subcommand(sub: &str, mut rest: Vec<OsString>, global: &Global) -> Result<ExitCode> {
    if rest.first().is_some_and(|a| a == "--") {
        rest.remove(0);
    }
    // A hook answers an agent on stdout; what it prints on stderr may reach
    // the person: settings warnings are for the commands that deliver output.
    // (`trust` would only say the file it is trusting is not trusted yet.)
    if !matches!(sub, "hook" | "trust") {
        crate::config::warn();
    }
    match sub {
        "run" => run::run(rest, global),
        "fetch" => fetch::run(rest, global),
        "install" => install::install(rest),
        "uninstall" => install::uninstall(rest),
        "init" => init::run(rest),
        "hook" => hook::run(rest),
        "config" => settings::config(rest),
        "trust" => settings::trust(rest),
        "filter" => filter_test::run(rest),
        "objects" => objects::run(rest),
        "discover" => discover::run(rest),
        "session" => session::run(rest),
        _ => doctor::run(rest),
    }
}

/// The settings from the environment and the settings files, their
/// warnings printed once (`crate::config::settings`).
pub(crate) fn settings() -> Settings {
    crate::config::settings()
}
