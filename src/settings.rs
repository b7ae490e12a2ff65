//! The plain types every stage shares, at the bottom of the crate: what we
//! know about the command (`Hint`), the knobs of one call (`Settings`, built
//! by `crate::config`), what the call knows of its raw output (`Call`: the
//! settings plus the raw id, note and excerpt, per call), the JSON
//! deduper's and epoch rules, an excerpt's
//! place in a larger output, and a candidate rendering (`Rendered`). No
//! logic above parsing a setting's value lives here.

use crate::auditor::{Encoding, ReceiptForm, Shape};

/// What we know about the command that produced the bytes.
#[derive(Clone, Debug, Default)]
pub struct Hint {
    /// The command line words, tool first (`["cargo", "test", "--all"]`).
    pub command: Vec<String>,
    /// The child's exit status (128+N for death by signal N).
    pub exit_code: i32,
}

/// Knobs shared by every stage.
#[derive(Clone, Debug)]
pub struct Settings {
    pub encoding: Encoding,
    /// How repeated JSON values are removed (`--aggressive`: the seed's
    /// value-only rule).
    pub dedup: Dedup,
    /// Epoch-ms values under time-like keys; `None`: ISO-8601, or deleted
    /// under the aggressive dedup.
    pub epoch: Option<Epoch>,
    /// Text above this many chars gets the large-output summary.
    pub text_threshold: usize,
    /// The receipt line's form: long for a person, short for an agent.
    pub receipt: ReceiptForm,
    /// Characters of stdout the agent's harness shows whole (`crate::budget`);
    /// a longer rendering becomes a view. `None`: no limit.
    pub budget: Option<usize>,
    /// What stdout carries: the compressed text, or the typed result with it
    /// as JSON or YAML (`--format`, `TOKENSIEVE_FORMAT`).
    pub format: Format,
    /// The user's `[[filter]]`s (`crate::userfilter`), tried before the
    /// built-in text filters.
    pub user_filters: std::sync::Arc<[crate::userfilter::UserFilter]>,
    /// Tokens of JSON rendering above which a focus view is tried
    /// (`crate::focus`, `TOKENSIEVE_FOCUS`; record-like text past
    /// `budget::record_focus` of it); `None`: off.
    pub focus: Option<usize>,
    /// The user's `[[view]]`s (`crate::userview`), tried before ours.
    pub user_views: std::sync::Arc<[crate::userview::View]>,
}

/// The JSON deduper's rule (`crate::json::deduper`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dedup {
    /// A string field dropped when an ancestor holds it under the same key.
    #[default]
    Default,
    /// Seed 000's value-only rule.
    Aggressive,
    Off,
}

impl Dedup {
    pub fn parse(v: &str) -> anyhow::Result<Dedup> {
        match v.trim() {
            "default" => Ok(Dedup::Default),
            "aggressive" => Ok(Dedup::Aggressive),
            "off" => Ok(Dedup::Off),
            other => anyhow::bail!("must be default, aggressive or off, got '{other}'"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dedup::Default => "default",
            Dedup::Aggressive => "aggressive",
            Dedup::Off => "off",
        }
    }
}

/// What becomes of epoch-millisecond integers under time-like keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Epoch {
    /// Written as ISO-8601 UTC.
    Iso,
    Keep,
    Drop,
}

impl Epoch {
    pub fn parse(v: &str) -> anyhow::Result<Epoch> {
        match v.trim() {
            "iso" => Ok(Epoch::Iso),
            "keep" => Ok(Epoch::Keep),
            "drop" => Ok(Epoch::Drop),
            other => anyhow::bail!("must be iso, keep, drop or auto, got '{other}'"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Epoch::Iso => "iso",
            Epoch::Keep => "keep",
            Epoch::Drop => "drop",
        }
    }
}

impl Settings {
    /// The epoch rule in force.
    pub fn epoch(&self) -> Epoch {
        self.epoch.unwrap_or(if self.dedup == Dedup::Aggressive { Epoch::Drop } else { Epoch::Iso })
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            encoding: Encoding::Cl100k,
            dedup: Dedup::Default,
            epoch: None,
            text_threshold: 4000,
            receipt: ReceiptForm::Long,
            budget: None,
            format: Format::Text,
            user_filters: std::sync::Arc::from(Vec::new()),
            focus: None,
            user_views: std::sync::Arc::from(Vec::new()),
        }
    }
}

/// One call's settings with what the call itself knows of its raw output:
/// where it is kept (set by the handoff once `Store::plan` named the
/// object) and, for an output too large to hold, which part of it the text
/// is. Per call, so not in `Settings`, which stay what the configuration
/// says; it derefs to them, so a stage that needs only the settings takes
/// `&Settings` and is handed a `&Call` as it is.
#[derive(Clone, Debug)]
pub struct Call<'a> {
    pub settings: std::borrow::Cow<'a, Settings>,
    /// `full output: tokensieve show ID  (file: PATH)`, for summaries that
    /// point the agent at the full text.
    pub raw_note: Option<String>,
    /// The id `tokensieve show` will know the raw bytes by (set with
    /// `raw_note`), for the commands a view prints.
    pub raw_id: Option<String>,
    /// Set when the text to render is part of a larger output (the shim
    /// holds only head, tail and signal lines of an output too large to
    /// hold whole): line numbers and sizes then speak of the whole output.
    pub excerpt: Option<Excerpt>,
    /// The process ends once this call is delivered (`handoff::deliver`,
    /// whose callers are one-shot front ends): a parsed document's tree is
    /// let go at the end of its rendering rather than freed node by node,
    /// which the exit does at once (~4% of the main thread's instructions
    /// on 200 KB of JSON). Not for callers that render many outputs.
    pub ends_process: bool,
}

impl<'a> Call<'a> {
    /// A call whose raw bytes are not stored (yet).
    pub fn new(settings: &'a Settings) -> Call<'a> {
        Call::from(std::borrow::Cow::Borrowed(settings))
    }

    /// Drops `tree` (a document's, or anything else this large), or when
    /// the process `ends_process` after this call, lets it go unfreed.
    pub fn let_go<T>(&self, tree: T) {
        match self.ends_process {
            true => std::mem::forget(tree),
            false => drop(tree),
        }
    }
}

impl<'a> From<std::borrow::Cow<'a, Settings>> for Call<'a> {
    fn from(settings: std::borrow::Cow<'a, Settings>) -> Call<'a> {
        Call { settings, raw_note: None, raw_id: None, excerpt: None, ends_process: false }
    }
}

/// A call that owns its settings (a test's, a front end's own).
impl From<Settings> for Call<'static> {
    fn from(settings: Settings) -> Call<'static> {
        Call::from(std::borrow::Cow::Owned(settings))
    }
}

impl std::ops::Deref for Call<'_> {
    type Target = Settings;
    fn deref(&self) -> &Settings {
        &self.settings
    }
}

/// Where an excerpt's lines sit in the whole output, its size, and what was
/// left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Excerpt {
    /// Per line of the excerpt, its 1-based number in the whole output.
    pub line_numbers: std::sync::Arc<[usize]>,
    /// Lines and characters of the whole output.
    pub lines: usize,
    pub chars: u64,
    pub gap: Option<Gap>,
}

impl Excerpt {
    /// The 1-based number, in the whole output, of the excerpt's line
    /// `index` (0-based).
    pub fn line_number(&self, index: usize) -> usize {
        self.line_numbers.get(index).copied().unwrap_or(index + 1)
    }
}

/// The stretch of lines between an excerpt's head and tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// First and last line (1-based) of the stretch.
    pub first: usize,
    pub last: usize,
    /// Its signal lines that are in the excerpt, and those over the budget.
    pub signals_kept: usize,
    pub signals_dropped: usize,
}

/// A candidate rendering of the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    pub shape: Shape,
}

/// How the typed result is printed (`--format`; the `format` setting,
/// `TOKENSIEVE_FORMAT`, in `crate::config`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The compressed text (the default; no typed result printed).
    #[default]
    Text,
    Json,
    Yaml,
}

impl Format {
    pub fn parse(s: &str) -> anyhow::Result<Format> {
        match s.trim() {
            "" | "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "yaml" => Ok(Format::Yaml),
            other => anyhow::bail!("must be text, json or yaml, got '{other}'"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Yaml => "yaml",
        }
    }
}
