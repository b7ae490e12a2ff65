//! The `tokensieve` command line as clap definitions: one typed struct per
//! subcommand. Help, usage errors, suggestions, completions and the man page
//! all come from these. Parsing only: nothing here does work (the shim path
//! never reaches this module).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::auditor::Encoding;
use crate::settings::Format;

const ABOUT: &str = "Compact, lossless-on-demand views of CLI output for AI agents";

const LONG_ABOUT: &str = "\
Compact, lossless-on-demand views of CLI output for AI agents.

With no subcommand, filters stdin (or FILE): JSON is compressed, text passes
through unless --cmd names the command it came from. Called through a symlink
named after a tool (aws, kubectl, gh, ...), the same binary runs the real tool
and compresses its stdout when an agent reads it.";

const AFTER_LONG_HELP: &str = "\
Settings: environment > .tokensieve.toml (here or above) >
~/.tokensieve/config.toml > defaults (`tokensieve config show`).

Environment:
  TOKENSIEVE=on|off             compress as if an agent ran us / never
  TOKENSIEVE_HOME               shims, raw outputs, history (~/.tokensieve)
  TOKENSIEVE_CAPTURE_MAX_BYTES  hold at most this much output whole (64M)
  TOKENSIEVE_TEXT_WAIT_SECS     stream text still coming after this long
  TOKENSIEVE_STORE_MAX_BYTES    raw output store cap (256M; 0: off)
  TOKENSIEVE_BUDGET=N|off       chars of stdout before a view replaces it
  TOKENSIEVE_DEBUG=1            print the compress/passthrough decision
  NO_COLOR, CLICOLOR=0          no colour (also --color never)";

#[derive(Debug, Parser)]
#[command(
    name = "tokensieve",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_long_help = AFTER_LONG_HELP,
    max_term_width = 80,
    propagate_version = false
)]
pub(crate) struct Cli {
    /// File to filter (default or `-`: stdin)
    #[arg(value_name = "FILE")]
    pub file: Option<OsString>,

    #[command(flatten)]
    pub pipeline: PipelineArgs,

    /// Treat the input as this command's output
    #[arg(long, value_name = "CMD")]
    pub cmd: Option<String>,

    /// ... which exited with this status
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub exit: Option<i32>,

    /// When to colour human output
    #[arg(long, value_enum, value_name = "WHEN", global = true, default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// How the pipeline renders what it delivers (filter mode, run, fetch,
/// show --jq, inspect).
#[derive(Debug, Default, Clone, Args)]
pub(crate) struct PipelineArgs {
    /// Tokenizer for the receipt's counts [env TOKENSIEVE_TOKENIZER]
    #[arg(long, value_name = "NAME", value_parser = parse_encoding)]
    pub tokenizer: Option<Encoding>,

    /// Seed 000's value-only dedup and epoch deletion
    #[arg(long)]
    pub aggressive: bool,

    /// Stdout: the compressed text, or the typed result holding it
    /// [env TOKENSIEVE_FORMAT]
    #[arg(long, value_name = "FORM", value_parser = parse_format)]
    pub format: Option<Format>,
}

fn parse_encoding(s: &str) -> Result<Encoding, String> {
    Encoding::parse(s).map_err(|_| "use cl100k or o200k".to_owned())
}

fn parse_format(s: &str) -> Result<Format, String> {
    Format::parse(s).map_err(|_| "use text, json or yaml".to_owned())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run a command, compress its stdout (the shim's behaviour)
    Run(RunArgs),
    /// Run commands (sh -c), merge their outputs, compress once
    Fetch(FetchArgs),
    /// A call's raw output back (ID from the receipt)
    Show(ShowArgs),
    /// Recorded savings per command
    Gain(GainArgs),
    /// Past captures by their typed result, newest first
    Recall(RecallArgs),
    /// Any emitted shape (stdin) back to JSON
    Decode(DecodeArgs),
    /// The JSON (stdin) after one pipeline stage
    Inspect(InspectArgs),
    /// Share raw outputs through the git remote
    Objects(ObjectsArgs),
    /// An MCP server on stdio: tools run, show, recall
    Mcp,
    /// Shim tools (default: common agent CLIs on PATH)
    Install(InstallArgs),
    /// Remove shims (all, and the PATH lines, if none named)
    Uninstall(UninstallArgs),
    /// Check PATH order, shims, real tools, agents
    Doctor(DoctorArgs),
    /// Make an agent's shell find the shims
    Init(InitArgs),
    /// The hook `init` installs in an agent (JSON on stdin)
    Hook(HookArgs),
    /// Every setting, its value and where it comes from
    Config(ConfigArgs),
    /// Let a project's .tokensieve.toml define filters
    Trust(TrustArgs),
    /// Test or try [[filter]]s
    Filter(FilterArgs),
    /// Shell commands in agent session logs, and what was saved
    Discover(DiscoverArgs),
    /// Agent transcripts with fewer tokens
    Session(SessionArgs),
    /// Shell completions from this command line's definitions
    Completions(CompletionsArgs),
    /// The man page (roff) from this command line's definitions
    Man,
}

impl Command {
    /// The subcommand's name, for error lines (`tokensieve NAME: ...`).
    pub fn name(&self) -> &'static str {
        match self {
            Command::Run(_) => "run",
            Command::Fetch(_) => "fetch",
            Command::Show(_) => "show",
            Command::Gain(_) => "gain",
            Command::Recall(_) => "recall",
            Command::Decode(_) => "decode",
            Command::Inspect(_) => "inspect",
            Command::Objects(_) => "objects",
            Command::Mcp => "mcp",
            Command::Install(_) => "install",
            Command::Uninstall(_) => "uninstall",
            Command::Doctor(_) => "doctor",
            Command::Init(_) => "init",
            Command::Hook(_) => "hook",
            Command::Config(_) => "config",
            Command::Trust(_) => "trust",
            Command::Filter(_) => "filter",
            Command::Discover(_) => "discover",
            Command::Session(_) => "session",
            Command::Completions(_) => "completions",
            Command::Man => "man",
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// The command and its arguments (everything after it is its own)
    #[arg(value_name = "CMD", required = true, trailing_var_arg = true)]
    pub command: Vec<OsString>,
}

#[derive(Debug, Args)]
#[command(after_help = "Example: tokensieve fetch -- 'aws s3api list-buckets' 'gh api user'")]
pub(crate) struct FetchArgs {
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Commands, one per argument, each run with sh -c (all at once)
    #[arg(value_name = "CMD", required = true, trailing_var_arg = true)]
    pub commands: Vec<OsString>,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The raw output's id (the hex after `raw:` in a receipt)
    #[arg(value_name = "ID")]
    pub id: String,
    /// Only lines A to B (1-based: A:B, A:, :B or N)
    #[arg(long, value_name = "A:B")]
    pub lines: Option<String>,
    /// Only lines matching RE, numbered (exit 1 when none)
    #[arg(long, value_name = "RE")]
    pub grep: Option<String>,
    /// Print the stored file's path
    #[arg(long)]
    pub path: bool,
    /// A jq program over the output (compact, within the budget)
    #[arg(long, value_name = "FILTER")]
    pub jq: Option<String>,
    /// With --jq: every JSON value of the output in one array
    #[arg(long)]
    pub slurp: bool,
    /// The call's stored typed result (status, counts, findings)
    #[arg(long)]
    pub summary: bool,
    /// With --summary: the stored result as JSON
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Debug, Args)]
pub(crate) struct GainArgs {
    /// Window: all, or a span like 30m, 24h, 7d, 2w
    #[arg(long, value_name = "SPAN")]
    pub since: Option<String>,
    /// Machine-readable report
    #[arg(long)]
    pub json: bool,
    /// PR scorecard: tokens kept out of context per tool (Markdown)
    #[arg(long)]
    pub markdown: bool,
    /// With --markdown: calls here since the branch left REF
    #[arg(long, value_name = "REF")]
    pub since_ref: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Status {
    Passed,
    Failed,
    Error,
}

#[derive(Debug, Args)]
pub(crate) struct RecallArgs {
    /// Only captures with this status
    #[arg(long, value_enum, value_name = "STATUS")]
    pub status: Option<Status>,
    /// Only calls of this tool
    #[arg(long, value_name = "TOOL")]
    pub tool: Option<String>,
    /// Only captures with a finding on this file (and those findings)
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Window: a span like 30m, 24h, 2d, 2w, or all
    #[arg(long, value_name = "SPAN")]
    pub since: Option<String>,
    /// Only calls made in this directory
    #[arg(long)]
    pub cwd: bool,
    /// At most N captures
    #[arg(long, value_name = "N", default_value_t = crate::history::query::DEFAULT_LIMIT)]
    pub limit: usize,
    /// Machine-readable list
    #[arg(long)]
    pub json: bool,
    /// (old spelling of --json; yaml for the same document as YAML)
    #[arg(long, value_name = "FORM", value_parser = parse_format, hide = true)]
    pub format: Option<Format>,
}

#[derive(Debug, Args)]
pub(crate) struct DecodeArgs {
    /// Input (default or `-`: stdin)
    #[arg(value_name = "FILE")]
    pub file: Option<OsString>,
}

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    /// The stage to stop after
    #[arg(long, value_name = "STAGE", value_parser = ["scrub", "sieve", "dedup"])]
    pub stage: String,
    /// Input (default or `-`: stdin)
    #[arg(value_name = "FILE")]
    pub file: Option<OsString>,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Debug, Args)]
#[command(subcommand_required = true)]
pub(crate) struct ObjectsArgs {
    #[command(subcommand)]
    pub verb: ObjectsVerb,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ObjectsVerb {
    /// Send the raw store to the remote (Git LFS or refs/tokensieve/*)
    Push(ShareArgs),
    /// Fetch what teammates pushed (show ID also fetches lazily)
    Pull(ShareArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ShareArgs {
    /// The git remote (default: the branch's, else origin)
    #[arg(value_name = "REMOTE")]
    pub remote: Option<String>,
    /// Where the objects go
    #[arg(long, value_name = "BACKEND", value_parser = ["lfs", "git-ref", "auto"], default_value = "auto")]
    pub backend: String,
}

#[derive(Debug, Args)]
pub(crate) struct InstallArgs {
    /// Tools to shim (default: aws kubectl gh docker gcloud az terraform, if on PATH)
    #[arg(value_name = "TOOL")]
    pub tools: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct UninstallArgs {
    /// Shims to remove (default: all of them, the binary and the PATH lines)
    #[arg(value_name = "TOOL")]
    pub tools: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Machine-readable report
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
#[command(after_help = "Agents: claude, codex, gemini, cursor, opencode, copilot. \
                        Without AGENT: each agent and whether it is set up.")]
pub(crate) struct InitArgs {
    /// Agents to set up
    #[arg(value_name = "AGENT")]
    pub agents: Vec<String>,
    /// Undo what init did
    #[arg(long)]
    pub uninstall: bool,
    /// Register `tokensieve mcp` as the agent's MCP server (claude)
    #[arg(long)]
    pub mcp: bool,
    /// The agent listing, machine-readable
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct HookArgs {
    /// The agent calling (gemini or cursor)
    #[arg(value_name = "AGENT")]
    pub agent: String,
}

#[derive(Debug, Args)]
pub(crate) struct ConfigArgs {
    #[command(subcommand)]
    pub what: Option<ConfigWhat>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConfigWhat {
    /// Every setting, its value and its source (the default)
    Show(ConfigShowArgs),
    /// Where the settings files are
    Path,
}

#[derive(Debug, Default, Args)]
pub(crate) struct ConfigShowArgs {
    /// Machine-readable list
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// The project file (default: the .tokensieve.toml found upward)
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(subcommand_required = true)]
pub(crate) struct FilterArgs {
    #[command(subcommand)]
    pub verb: FilterVerb,
}

#[derive(Debug, Subcommand)]
pub(crate) enum FilterVerb {
    /// Run the inline tests of [[filter]]s (default: those in force)
    Test(FilterTestArgs),
    /// What a draft filter makes of a capture (stdin), with the receipt
    Try(FilterTryArgs),
}

#[derive(Debug, Args)]
pub(crate) struct FilterTestArgs {
    /// A settings file, or a folder of *.toml
    #[arg(value_name = "FILE|DIR")]
    pub target: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct FilterTryArgs {
    /// The settings file holding the draft [[filter]]
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The command the capture came from
    #[arg(long, value_name = "CMD", required = true)]
    pub cmd: String,
    /// ... and its exit status
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true)]
    pub exit: i32,
}

#[derive(Debug, Args)]
pub(crate) struct DiscoverArgs {
    /// Only session files changed within this span (e.g. 7d)
    #[arg(long, value_name = "SPAN")]
    pub since: Option<String>,
    /// Machine-readable report
    #[arg(long)]
    pub json: bool,
    /// Session files or folders (default: ~/.claude/projects, ~/.codex/sessions)
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Args)]
#[command(subcommand_required = true)]
pub(crate) struct SessionArgs {
    #[command(subcommand)]
    pub verb: SessionVerb,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SessionVerb {
    /// A transcript (stdin) with fewer tokens (stdout)
    Compact(CompactArgs),
}

#[derive(Debug, Args)]
#[command(after_help = "Usage: tokensieve session compact [OPTIONS] < in.jsonl > out.jsonl")]
pub(crate) struct CompactArgs {
    /// Stop words dropped inside thinking: en (default), fr, de, es, none
    #[arg(long, value_name = "LANG")]
    pub stopwords: Option<String>,
    /// Replace long phrases inside thinking
    #[arg(long)]
    pub synonyms: bool,
    /// The phrase table (phrase<TAB>replacement lines); implies --synonyms
    #[arg(long, value_name = "FILE")]
    pub synonym_table: Option<PathBuf>,
    /// Drop the text of signed thinking blocks (no resuming then)
    #[arg(long)]
    pub strip_signed_thinking: bool,
    /// Tool outputs through the pipeline, originals in the raw store
    #[arg(long)]
    pub tool_results: bool,
    /// What was done, with exact token counts
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}
