//! Settings, decided in one place: the environment, then the project's
//! `.tokensieve.toml` (found upward from the working directory), then the
//! user's `config.toml` in the home (`$TOKENSIEVE_HOME`, else
//! `~/.tokensieve`), then the defaults. Every setting has one key, which is
//! its variable's name without `TOKENSIEVE_`, lowercased (`budget` ↔
//! `TOKENSIEVE_BUDGET`); every value, from a file or a variable, goes
//! through the same check. `tokensieve config show` prints each effective
//! value and where it came from.
//!
//! A bad value, an unknown key or a file that does not parse never costs a
//! command its output: one warning line names the file, line and key, and
//! the next source down applies (in the end the default). Warnings are held
//! here and printed by whoever delivers output (`warn`); a passthrough
//! prints nothing, as it must leave stderr to the tool.
//!
//! Cost: with no file, loading is a few `stat`s (the home's `config.toml`
//! and `.tokensieve.toml` in each folder up from the working directory);
//! a file is read and parsed only when it exists. User filters' regexes are
//! compiled only when an output is rendered (`Config::settings`).
//!
//! # Design: Settings (`src/config/`, `src/userfilter.rs`, `src/cli/{settings,filter_test}.rs`)
//!
//! `config::get()` is the process's settings, loaded once: the environment,
//! then the nearest `.tokensieve.toml` from the working directory up, then
//! `config.toml` in the home, then the defaults (docs/config.md). `SPECS`
//! lists every setting (key = variable name without `TOKENSIEVE_`,
//! lowercased) with one check that both a variable's text and a file's value
//! go through; `Config::resolve` is the pure precedence (tests give it an
//! environment and parsed files), `Config::settings()` the `Settings` every
//! stage reads, and `store_max_bytes`, `capture_max_bytes`,
//! `text_wait_secs`, `tool_disabled`, `agent_present`, `is_live` the rest.
//! `file.rs` reads one file with `toml::de::DeTable` (spans → `file:line`
//! for every value, for `config show` and for warnings); a syntax error drops
//! the file, an unknown key or bad value drops that entry, each with one
//! warning line, held in the config and printed by `config::warn` when output
//! is delivered (never by a passthrough). `[[filter]]` tables are read with
//! serde derive (`deny_unknown_fields`) into `userfilter::Spec`s. Every file
//! is read through `untrusted::read` (a regular file off `/proc` and `/sys`,
//! checked on the opened descriptor, 1 MiB at most). A project file counts
//! only when the user (or root) owns it and nobody else may write it, and
//! then, until `trust.rs` finds its sha256 recorded under the home
//! (`tokensieve trust`), only its `UNTRUSTED_KEYS` and the tool switches
//! that turn compression off. The shim asks `agent_marked` (the
//! environment, then the user's file only) before it loads anything else,
//! so a passthrough never opens a project file. With no file the cost is a
//! few `stat`s; filters' regexes compile only when an output is rendered.
//!
//! `userfilter::UserFilter` is one compiled filter: matched on tool and
//! subcommand words (via `text::Invocation`) or a regex over the command line;
//! keep/drop, replace, fold, head/tail, `on_empty` in that order. `text::render`
//! tries it first and puts it through `guard::check` like any filter, so the
//! guard's fallback (built-in unless `builtin = false`, generic, cleaned
//! whole) keeps every signal line; a property test drives hostile filters over
//! noise with injected signal lines. `run_tests` runs a spec's inline
//! `[[filter.test]]`s through `pipeline::render` (`tokensieve filter test`);
//! `filter try` delivers a capture through `handoff::deliver` with a draft
//! first.

mod file;
pub mod markers;
pub mod trust;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use anyhow::{Result, bail};

use crate::auditor::{Encoding, ReceiptForm};
use crate::settings::{Dedup, Epoch, Settings};
use crate::userfilter::{self, UserFilter};

pub use file::{Layer, parse_layer};

/// The user's file, under the home.
pub const USER_FILE: &str = "config.toml";
/// The project's file, looked for in the working directory and upward.
pub const PROJECT_FILE: &str = ".tokensieve.toml";

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Default,
    Env(String),
    File { path: PathBuf, line: usize },
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::Env(var) => write!(f, "env {var}"),
            Source::File { path, line } => write!(f, "{}:{line}", path.display()),
        }
    }
}

/// One setting: its key (in files), its variable, what it is.
pub struct Spec {
    pub key: &'static str,
    pub env: &'static str,
    pub about: &'static str,
    /// Checks a value (as text: numbers and lists are written out) and
    /// returns it normalised.
    check: fn(&str) -> Result<String>,
    /// Lists: a TOML array in files, comma-separated in the variable.
    pub list: bool,
}

/// Every setting. Tool switches (`[tool.NAME]`) and filters (`[[filter]]`)
/// are kept apart: they are maps and lists of tables, not single values.
pub static SPECS: &[Spec] = &[
    Spec {
        key: "tokenizer",
        env: "TOKENSIEVE_TOKENIZER",
        about: "token counts: cl100k or o200k",
        check: |v| Encoding::parse(v).map(|e| e.name().to_string()),
        list: false,
    },
    Spec {
        key: "budget",
        env: "TOKENSIEVE_BUDGET",
        about: "chars of stdout before a view replaces the output, or off",
        check: |v| crate::budget::parse(v).map(|b| b.map_or("off".into(), |n| n.to_string())),
        list: false,
    },
    Spec {
        key: "focus",
        env: "TOKENSIEVE_FOCUS",
        about: "tokens of JSON rendering above which a focus view is shown (record-like text: twice that), or off",
        check: |v| crate::budget::parse_focus(v).map(|b| b.map_or("off".into(), |n| n.to_string())),
        list: false,
    },
    Spec {
        key: "text_threshold",
        env: "TOKENSIEVE_TEXT_THRESHOLD",
        about: "chars above which a text output is summarised",
        check: |v| number(v, "characters"),
        list: false,
    },
    Spec {
        key: "dedup",
        env: "TOKENSIEVE_DEDUP",
        about: "JSON dedup: default, aggressive or off",
        check: |v| Dedup::parse(v).map(|d| d.name().to_string()),
        list: false,
    },
    Spec {
        key: "epoch",
        env: "TOKENSIEVE_EPOCH",
        about: "epoch-ms values under time keys: iso, keep, drop (auto: drop when aggressive)",
        check: |v| match v.trim() {
            "auto" => Ok("auto".into()),
            other => Epoch::parse(other).map(|e| e.name().to_string()),
        },
        list: false,
    },
    Spec {
        key: "receipt",
        env: "TOKENSIEVE_RECEIPT",
        about: "receipt form: short, long, or auto (short when an agent runs us)",
        check: |v| match v.trim() {
            "" | "auto" => Ok("auto".into()),
            "short" | "long" => Ok(v.trim().into()),
            other => bail!("must be short, long or auto, got '{other}'"),
        },
        list: false,
    },
    Spec {
        key: "format",
        env: "TOKENSIEVE_FORMAT",
        about: "stdout: the compressed text, or the typed result holding it: text, json or yaml",
        check: |v| crate::settings::Format::parse(v).map(|f| f.name().to_string()),
        list: false,
    },
    Spec {
        key: "store_max_bytes",
        env: "TOKENSIEVE_STORE_MAX_BYTES",
        about: "raw output store cap (bytes, K, M, G; 0: off)",
        check: |v| crate::store::parse_size(v).map(|_| v.trim().to_string()),
        list: false,
    },
    Spec {
        key: "capture_max_bytes",
        env: "TOKENSIEVE_CAPTURE_MAX_BYTES",
        about: "output held whole in memory at most (text: 8M at most)",
        check: |v| crate::store::parse_size(v).map(|_| v.trim().to_string()),
        list: false,
    },
    Spec {
        key: "text_wait_secs",
        env: "TOKENSIEVE_TEXT_WAIT_SECS",
        about: "stream text still coming after this long (0: never)",
        check: |v| number(v, "seconds"),
        list: false,
    },
    Spec {
        key: "agent_markers",
        env: "TOKENSIEVE_AGENT_MARKERS",
        about: "more variables that mean an agent runs the shell",
        check: |v| match v
            .split(',')
            .map(str::trim)
            .find(|m| !m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            Some(bad) => bail!("'{bad}' is not a variable name"),
            None => Ok(join_list(v)),
        },
        list: true,
    },
    Spec {
        key: "live",
        env: "TOKENSIEVE_LIVE",
        about: "more follow/interactive commands (flags, or subcommand words) passed through",
        check: |v| Ok(join_list(v)),
        list: true,
    },
];

/// The variable for tool switches: `aws=off,git log=off,kubectl=on`.
pub const TOOLS_ENV: &str = "TOKENSIEVE_TOOLS";

/// A whole number of `unit`, written out again.
fn number(v: &str, unit: &str) -> Result<String> {
    match v.trim().parse::<u64>() {
        Ok(n) => Ok(n.to_string()),
        Err(_) => bail!("must be a number of {unit}, got '{v}'"),
    }
}

fn join_list(v: &str) -> String {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(",")
}

/// A value and where it came from.
#[derive(Clone, Debug)]
pub struct Value {
    pub text: String,
    pub source: Source,
}

/// The effective configuration of this process.
#[derive(Debug, Default)]
pub struct Config {
    /// Per `SPECS` entry: the value in force, `None` for the default.
    values: Vec<Option<Value>>,
    /// `tool` or `tool sub words` → enabled, highest source first wins.
    tools: Vec<(String, bool, Source)>,
    /// Filter definitions, project first, then user, each with its origin.
    filters: Vec<userfilter::Spec>,
    /// The user's focus views (`[[view]]`), project first.
    views: Vec<crate::userview::View>,
    /// The files that were read (for `config path` and `show`).
    pub files: Vec<PathBuf>,
    /// One line each: problems found (printed by `warn`).
    pub warnings: Vec<String>,
    compiled: OnceLock<Arc<[UserFilter]>>,
}

/// The process's configuration, loaded on first use.
pub fn get() -> &'static Config {
    static CONFIG: OnceLock<Config> = OnceLock::new();
    CONFIG.get_or_init(load)
}

/// Prints the configuration's warnings on stderr, once per process.
pub fn warn() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        for w in &get().warnings {
            eprintln!("tokensieve: warning: {w}");
        }
    });
}

/// The settings from the environment and the settings files, their
/// warnings printed once (the CLI and the shim start from these).
pub fn settings() -> Settings {
    warn();
    get().settings()
}

/// The user's file: `config.toml` in the home.
pub fn user_path() -> PathBuf {
    crate::store::home().join(USER_FILE)
}

/// The nearest `.tokensieve.toml` from `dir` upward. Anything at that
/// name counts (a FIFO, a folder): reading it then says why it is ignored.
pub fn project_path_from(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().map(|d| d.join(PROJECT_FILE)).find(|p| p.exists())
}

/// The nearest `.tokensieve.toml` from the working directory upward.
pub fn project_path() -> Option<PathBuf> {
    project_path_from(&std::env::current_dir().ok()?)
}

/// Keys a project file sets without `tokensieve trust`: none of them can
/// cost the user data (the store's cap and place, the capture's memory) or
/// hide output (budget, receipt, thresholds, filters, formats, markers that
/// turn compression on). docs/config.md, "Project files".
pub const UNTRUSTED_KEYS: &[&str] = &["tokenizer", "live", "text_wait_secs"];

/// The user's file, read once per process (the shim asks it for agent
/// markers before deciding whether to read anything else).
fn user_layer() -> &'static (Option<Layer>, Vec<String>) {
    static USER: OnceLock<(Option<Layer>, Vec<String>)> = OnceLock::new();
    USER.get_or_init(|| {
        let mut layers = Vec::new();
        let mut warnings = Vec::new();
        let user = user_path();
        if user.exists() {
            read_layer(&user, false, &mut layers, &mut warnings);
        }
        (layers.pop(), warnings)
    })
}

/// Whether the environment or the user's own settings mark an agent: the
/// built-in markers, `TOKENSIEVE_AGENT_MARKERS`, the user file's
/// `agent_markers`. Reads no project file (one cannot turn tokensieve on).
pub fn agent_marked(get: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    if markers::agent_present(get) {
        return true;
    }
    let set =
        |v: &str| v.split(',').map(str::trim).any(|k| !k.is_empty() && get(k).is_some_and(|v| !v.is_empty()));
    if let Some(v) = get(SPECS.iter().find(|s| s.key == "agent_markers").map_or("", |s| s.env)) {
        let v = v.to_string_lossy();
        if !v.trim().is_empty() {
            return set(&v);
        }
    }
    user_layer().0.as_ref().and_then(|l| l.values.get("agent_markers")).is_some_and(|v| set(&v.text))
}

fn load() -> Config {
    let mut layers = Vec::new();
    let mut warnings = Vec::new();
    if let Some(path) = project_path() {
        read_layer(&path, true, &mut layers, &mut warnings);
    }
    let (user, user_warnings) = user_layer();
    warnings.extend(user_warnings.iter().cloned());
    if let Some(user) = user {
        layers.push(user.clone());
    }
    let mut cfg = Config::resolve(&|k| std::env::var(k).ok(), layers);
    warnings.append(&mut cfg.warnings);
    cfg.warnings = warnings;
    cfg
}

/// Reads and parses one file (at most `untrusted::SETTINGS_MAX_BYTES`, a
/// regular file). A project file counts only when it is the user's (or
/// root's) and nobody else may write it; of it, only `UNTRUSTED_KEYS` and
/// tool switches that turn compression off count until `tokensieve trust`
/// recorded its contents.
fn read_layer(path: &Path, project: bool, layers: &mut Vec<Layer>, warnings: &mut Vec<String>) {
    let (text, meta) = match crate::untrusted::read_text(path, crate::untrusted::SETTINGS_MAX_BYTES) {
        Ok(t) => t,
        Err(e) => {
            warnings.push(format!("{}: cannot read: {e}; ignored", path.display()));
            return;
        }
    };
    if project && let Some(why) = crate::untrusted::foreign(&meta) {
        warnings.push(format!(
            "{}: {why}; ignored (a project file counts only when it is yours and only you can write it)",
            path.display()
        ));
        return;
    }
    let mut layer = parse_layer(path, &text);
    if project {
        let needs = needs_trust(&layer);
        if !needs.is_empty() {
            match trust::check(path, &text) {
                trust::State::Trusted => {}
                state => {
                    warnings.push(format!(
                        "{} sets {} and is {}: those are ignored (`tokensieve trust` to use them)",
                        path.display(),
                        needs.join(", "),
                        if state == trust::State::Changed {
                            "changed since it was trusted"
                        } else {
                            "not trusted"
                        },
                    ));
                    layer.values.retain(|k, _| UNTRUSTED_KEYS.contains(k));
                    layer.filters.clear();
                    layer.views.clear();
                    layer.tools.retain(|t| !t.1);
                }
            }
        }
    }
    layers.push(layer);
}

/// What in a project file counts only once it is trusted, as words.
fn needs_trust(layer: &Layer) -> Vec<String> {
    let mut keys: Vec<String> =
        layer.values.keys().filter(|k| !UNTRUSTED_KEYS.contains(k)).map(|k| k.to_string()).collect();
    keys.sort();
    match layer.filters.len() {
        0 => {}
        1 => keys.push("a filter".into()),
        n => keys.push(format!("{n} filters")),
    }
    match layer.views.len() {
        0 => {}
        1 => keys.push("a view".into()),
        n => keys.push(format!("{n} views")),
    }
    if layer.tools.iter().any(|t| t.1) {
        keys.push("tools turned on".into());
    }
    keys
}

impl Config {
    /// The effective values from `env` (a variable's value) over `layers`
    /// (highest first: project, then user). Pure: tests give both.
    pub fn resolve(env: &dyn Fn(&str) -> Option<String>, layers: Vec<Layer>) -> Config {
        let mut cfg = Config { values: vec![None; SPECS.len()], ..Config::default() };
        for (i, spec) in SPECS.iter().enumerate() {
            if let Some(v) = env(spec.env).filter(|v| !v.trim().is_empty()) {
                match (spec.check)(&v) {
                    Ok(text) => {
                        cfg.values[i] = Some(Value { text, source: Source::Env(spec.env.into()) });
                        continue;
                    }
                    Err(e) => cfg.warnings.push(format!("{}: {e:#}; ignored", spec.env)),
                }
            }
            cfg.values[i] = layers.iter().find_map(|l| l.values.get(spec.key).cloned());
        }
        if let Some(v) = env(TOOLS_ENV) {
            for item in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                match parse_switch(item) {
                    Some((name, on)) => cfg.tools.push((name, on, Source::Env(TOOLS_ENV.into()))),
                    None => cfg.warnings.push(format!("{TOOLS_ENV}: '{item}' is not NAME=on|off; ignored")),
                }
            }
        }
        for layer in layers {
            cfg.tools.extend(layer.tools);
            cfg.filters.extend(layer.filters);
            cfg.views.extend(layer.views);
            cfg.warnings.extend(layer.warnings);
            cfg.files.push(layer.path);
        }
        cfg
    }

    fn value(&self, key: &str) -> Option<&Value> {
        let i = SPECS.iter().position(|s| s.key == key)?;
        self.values[i].as_ref()
    }

    fn text(&self, key: &str) -> Option<&str> {
        self.value(key).map(|v| v.text.as_str())
    }

    /// Whether some source (variable or file) sets `key` to a value other
    /// than `auto`.
    pub fn is_set(&self, key: &str) -> bool {
        self.text(key).is_some_and(|v| v != "auto")
    }

    /// Every setting with its effective value and source, for `config show`.
    pub fn rows(&self) -> Vec<(&'static Spec, String, Source)> {
        SPECS
            .iter()
            .zip(&self.values)
            .map(|(spec, v)| match v {
                Some(v) => (spec, v.text.clone(), v.source.clone()),
                None => (spec, default_text(spec.key), Source::Default),
            })
            .collect()
    }

    /// Tool switches in force (the highest source for each name).
    pub fn tool_rows(&self) -> Vec<&(String, bool, Source)> {
        let mut seen: Vec<&str> = Vec::new();
        let mut out = Vec::new();
        for t in &self.tools {
            if !seen.contains(&t.0.as_str()) {
                seen.push(&t.0);
                out.push(t);
            }
        }
        out
    }

    /// The user's focus views in force (`[[view]]`), project first.
    pub fn view_specs(&self) -> &[crate::userview::View] {
        &self.views
    }

    /// The filter definitions in force, with where each was defined.
    pub fn filter_specs(&self) -> &[userfilter::Spec] {
        &self.filters
    }

    /// The settings every stage reads.
    pub fn settings(&self) -> Settings {
        let dedup = self.text("dedup").and_then(|v| Dedup::parse(v).ok()).unwrap_or_default();
        Settings {
            encoding: self
                .text("tokenizer")
                .and_then(|v| Encoding::parse(v).ok())
                .unwrap_or(Encoding::Cl100k),
            dedup,
            epoch: self.text("epoch").and_then(|v| Epoch::parse(v).ok()),
            text_threshold: self.text("text_threshold").and_then(|v| v.parse().ok()).unwrap_or(4000),
            budget: match self.text("budget") {
                Some(v) => crate::budget::parse(v).unwrap_or(Some(crate::budget::DEFAULT)),
                None => {
                    crate::budget::harness_default(std::env::var("BASH_MAX_OUTPUT_LENGTH").ok().as_deref())
                }
            },
            receipt: match self.text("receipt") {
                Some("short") => ReceiptForm::Short,
                Some("long") => ReceiptForm::Long,
                _ if self.agent_present(&|k| std::env::var_os(k)) => ReceiptForm::Short,
                _ => ReceiptForm::Long,
            },
            user_filters: self.user_filters(),
            user_views: Arc::from(self.views.clone()),
            focus: match self.text("focus") {
                Some(v) => crate::budget::parse_focus(v).unwrap_or(Some(crate::budget::FOCUS_DEFAULT)),
                None => Some(crate::budget::FOCUS_DEFAULT),
            },
            format: self
                .text("format")
                .and_then(|v| crate::settings::Format::parse(v).ok())
                .unwrap_or_default(),
        }
    }

    /// The compiled user filters (once per process); a filter that does
    /// not compile is left out with a warning.
    pub fn user_filters(&self) -> Arc<[UserFilter]> {
        self.compiled
            .get_or_init(|| {
                let mut out = Vec::new();
                for spec in &self.filters {
                    match UserFilter::compile(spec) {
                        Ok(f) => out.push(f),
                        Err(e) => eprintln!("tokensieve: warning: {}: {e:#}; filter ignored", spec.origin),
                    }
                }
                out.into()
            })
            .clone()
    }

    /// The raw store's cap in bytes.
    pub fn store_max_bytes(&self) -> u64 {
        self.text("store_max_bytes")
            .and_then(|v| crate::store::parse_size(v).ok())
            .unwrap_or(crate::store::DEFAULT_MAX_BYTES)
    }

    /// The capture's memory cap, if set.
    pub fn capture_max_bytes(&self) -> Option<u64> {
        self.text("capture_max_bytes").and_then(|v| crate::store::parse_size(v).ok())
    }

    /// The raw store of one call (its home, this cap): built once by the
    /// front end and handed down.
    pub fn store(&self) -> crate::store::Store {
        crate::store::Store::new(crate::store::home(), self.store_max_bytes())
    }

    /// Seconds after which text still coming is streamed (`None`: never).
    pub fn text_wait_secs(&self) -> Option<u64> {
        self.text("text_wait_secs").and_then(|v| v.parse().ok()).filter(|&s| s > 0)
    }

    fn list(&self, key: &str) -> Vec<&str> {
        self.text(key).map(|v| v.split(',').filter(|s| !s.is_empty()).collect()).unwrap_or_default()
    }

    /// Whether an agent runs this shell: the built-in markers or ours.
    pub fn agent_present(&self, get: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> bool {
        markers::agent_present(get)
            || self.list("agent_markers").iter().any(|k| get(k).is_some_and(|v| !v.is_empty()))
    }

    /// The extra agent markers set.
    pub fn agent_markers(&self) -> Vec<&str> {
        self.list("agent_markers")
    }

    /// Whether the settings name `args` as a follow/interactive command: a
    /// flag among the arguments, or subcommand words in order at the start
    /// of the non-flag words (`logs tail`, or `tool logs tail`).
    pub fn is_live(&self, tool: &str, args: &[String]) -> bool {
        let args: Vec<&str> = args.iter().map(String::as_str).take_while(|a| *a != "--").collect();
        let words: Vec<&str> = args.iter().copied().filter(|a| !a.starts_with('-')).collect();
        self.list("live").iter().any(|pat| {
            if pat.starts_with('-') {
                return args.iter().any(|a| a == pat || a.split('=').next() == Some(pat));
            }
            let want: Vec<&str> = pat.split_whitespace().collect();
            match want.split_first() {
                Some((first, rest)) if *first == tool => words.starts_with(rest),
                Some(_) => words.starts_with(&want),
                None => false,
            }
        })
    }

    /// `Some(source)` when the settings turn this tool (or this subcommand
    /// of it) off: the shim passes it through.
    pub fn tool_disabled(&self, tool: &str, args: &[String]) -> Option<&Source> {
        let words: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
        // The most specific switch that matches decides (`git log` over `git`);
        // for one name, the highest source (first in `tools`).
        let mut best: Option<(usize, &(String, bool, Source))> = None;
        for t in &self.tools {
            let mut parts = t.0.split_whitespace();
            if parts.next() != Some(tool) {
                continue;
            }
            let sub: Vec<&str> = parts.collect();
            if !words.starts_with(&sub) {
                continue;
            }
            if best.is_none_or(|(n, _)| sub.len() > n) {
                best = Some((sub.len(), t));
            }
        }
        best.and_then(|(_, t)| (!t.1).then_some(&t.2))
    }
}

/// `aws=off` → (`aws`, false); `git log=on` → (`git log`, true).
fn parse_switch(item: &str) -> Option<(String, bool)> {
    let (name, v) = item.rsplit_once('=')?;
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let on = match v.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => true,
        "off" | "false" | "0" | "no" => false,
        _ => return None,
    };
    (!name.is_empty()).then_some((name, on))
}

/// What a setting is when nothing sets it, as `config show` prints it.
fn default_text(key: &str) -> String {
    match key {
        "tokenizer" => "cl100k".into(),
        "budget" => {
            match crate::budget::harness_default(std::env::var("BASH_MAX_OUTPUT_LENGTH").ok().as_deref()) {
                Some(n) if n != crate::budget::DEFAULT => format!("{n} (from BASH_MAX_OUTPUT_LENGTH)"),
                Some(n) => n.to_string(),
                None => "off".into(),
            }
        }
        "text_threshold" => "4000".into(),
        "focus" => crate::budget::FOCUS_DEFAULT.to_string(),
        "dedup" => "default".into(),
        "epoch" | "receipt" => "auto".into(),
        "format" => "text".into(),
        "store_max_bytes" => "256M".into(),
        "capture_max_bytes" => "64M".into(),
        "text_wait_secs" => "0".into(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(name: &str, text: &str) -> Layer {
        parse_layer(Path::new(name), text)
    }

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn env_over_project_over_user_over_default() {
        let user = layer("u.toml", "budget = 9000\ntokenizer = \"o200k\"\n");
        let project = layer("p.toml", "\nbudget = 5000\n");
        let cfg = Config::resolve(&env(&[]), vec![project, user]);
        let row =
            |k: &str| cfg.rows().into_iter().find(|r| r.0.key == k).map(|r| (r.1, r.2.to_string())).unwrap();
        assert_eq!(row("budget"), ("5000".into(), "p.toml:2".into()));
        assert_eq!(row("tokenizer"), ("o200k".into(), "u.toml:2".into()));
        assert_eq!(row("dedup"), ("default".into(), "default".into()));
        let user = layer("u.toml", "budget = 9000\n");
        let cfg = Config::resolve(&env(&[("TOKENSIEVE_BUDGET", "off")]), vec![user]);
        assert_eq!(cfg.settings().budget, None);
        assert_eq!(cfg.rows()[1].2, Source::Env("TOKENSIEVE_BUDGET".into()));
    }

    #[test]
    fn a_bad_value_falls_to_the_next_source_with_one_warning() {
        let user = layer("u.toml", "budget = 9000\n");
        let cfg = Config::resolve(&env(&[("TOKENSIEVE_BUDGET", "lots")]), vec![user]);
        assert_eq!(cfg.settings().budget, Some(9000));
        assert_eq!(cfg.warnings.len(), 1, "{:?}", cfg.warnings);
        assert!(cfg.warnings[0].starts_with("TOKENSIEVE_BUDGET: must be"), "{:?}", cfg.warnings);
    }

    #[test]
    fn tool_switches_most_specific_and_highest_source_win() {
        let user = layer("u.toml", "[tool.aws]\nenabled = false\n[tool.git.log]\nenabled = false\n");
        let cfg = Config::resolve(&env(&[("TOKENSIEVE_TOOLS", "kubectl=off")]), vec![user]);
        let a = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        assert!(cfg.tool_disabled("aws", &a("s3 ls")).is_some());
        assert!(cfg.tool_disabled("git", &a("log -3")).is_some());
        assert!(cfg.tool_disabled("git", &a("status")).is_none());
        assert!(cfg.tool_disabled("kubectl", &a("get pods")).is_some());
        let cfg = Config::resolve(
            &env(&[("TOKENSIEVE_TOOLS", "aws=on")]),
            vec![layer("u.toml", "[tool.aws]\nenabled = false\n")],
        );
        assert!(cfg.tool_disabled("aws", &a("s3 ls")).is_none());
    }

    #[test]
    fn live_patterns_match_flags_and_words() {
        let cfg = Config::resolve(&env(&[("TOKENSIEVE_LIVE", "--stream, logs tail,stern")]), vec![]);
        let a = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        assert!(cfg.is_live("aws", &a("logs tail /x")));
        assert!(cfg.is_live("aws", &a("logs tail --follow")));
        assert!(!cfg.is_live("aws", &a("logs describe")));
        assert!(cfg.is_live("foo", &a("--stream=1")));
        assert!(cfg.is_live("stern", &a("pod")));
    }
}
