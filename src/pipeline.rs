//! One captured stdout in, the text the agent should read out (or `None`:
//! deliver the raw bytes). JSON goes through `json`, other text through `text`.

use crate::auditor::{Encoding, ReceiptForm, Shape};
use crate::budget;
use crate::typed::{Format, TypedResult};

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
    /// Where the raw bytes of this call are kept (set by the handoff when the
    /// raw store is on), for summaries that point the agent at the full text.
    pub raw_note: Option<String>,
    /// Set when the text to render is part of a larger output (the shim
    /// holds only head, tail and signal lines of an output too large to
    /// hold whole): line numbers and sizes then speak of the whole output.
    pub excerpt: Option<Excerpt>,
    /// The receipt line's form: long for a person, short for an agent.
    pub receipt: ReceiptForm,
    /// The id `tokensieve show` will know the raw bytes by (set with
    /// `raw_note`), for the commands a view prints.
    pub raw_id: Option<String>,
    /// Characters of stdout the agent's harness shows whole (`crate::budget`);
    /// a longer rendering becomes a view. `None`: no limit.
    pub budget: Option<usize>,
    /// Tokens of rendering past which structured output gets a focus view
    /// (`crate::budget::FOCUS_DEFAULT`, `TOKENSIEVE_FOCUS`). `None`: off,
    /// every rendering whole (the default of `Settings::default()`).
    pub focus: Option<usize>,
    /// What stdout carries: the compressed text, or the typed result with it
    /// as JSON or YAML (`--format`, `TOKENSIEVE_FORMAT`).
    pub format: Format,
    /// The user's `[[filter]]`s (`crate::userfilter`), tried before the
    /// built-in text filters.
    pub user_filters: std::sync::Arc<[crate::userfilter::UserFilter]>,
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
            raw_note: None,
            excerpt: None,
            receipt: ReceiptForm::Long,
            raw_id: None,
            budget: None,
            focus: None,
            format: Format::Text,
            user_filters: std::sync::Arc::from(Vec::new()),
        }
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

/// Renders `raw` for an agent. `None` means "pass the raw bytes through".
/// Never panics on any input (callers also guard with catch_unwind).
pub fn render(raw: &[u8], hint: Option<&Hint>, settings: &Settings) -> Option<Rendered> {
    render_typed(raw, hint, settings).0
}

/// `render`, and for text with a hint its typed result (`crate::typed`).
pub fn render_typed(
    raw: &[u8],
    hint: Option<&Hint>,
    settings: &Settings,
) -> (Option<Rendered>, Option<TypedResult>) {
    if raw.is_empty() || is_binary(raw) {
        return (None, None);
    }
    if json_candidate(raw, hint, settings)
        && let Some(value) = crate::json::parse(raw)
    {
        let rendered = crate::json::render(value, crate::json::Source::Bytes(raw), settings);
        return (Some(crate::json::with_status(rendered, hint.map(|h| h.exit_code))), None);
    }
    let Ok(text) = std::str::from_utf8(raw) else { return (None, None) };
    if crate::handoff::debug() && crate::json::parse::too_dense(raw) {
        eprintln!(
            "tokensieve: JSON whose tree would take over {}x its {} bytes: rendered as text",
            crate::json::parse::MAX_TREE_RATIO,
            raw.len()
        );
    }
    let (rendered, result) = crate::text::render_typed(text, hint, settings);
    (view_if_over_budget(text, rendered, hint, settings), result)
}

/// Whether `raw` takes the JSON path when it parses. An excerpt (JSON lines
/// past the capture cap) is some lines of a larger output: rendered as
/// text, whose numbers speak of the whole. So is a command's log written as
/// JSON lines of records: a log, its records quoted (`text::json_lines_log`).
pub fn json_candidate(raw: &[u8], hint: Option<&Hint>, settings: &Settings) -> bool {
    settings.excerpt.is_none()
        && !(hint.is_some() && std::str::from_utf8(raw).is_ok_and(crate::text::json_lines_log))
        // a large document whose tree would pass the memory bound: read as
        // text, whose view shows its start and the jq command that asks it
        && !crate::json::parse::too_dense(raw)
}

/// Past the budget, a view instead of the rendering (or of the text that
/// would pass as it is).
fn view_if_over_budget(
    text: &str,
    rendered: Option<Rendered>,
    hint: Option<&Hint>,
    settings: &Settings,
) -> Option<Rendered> {
    // Past the budget (the summary, or the text that would pass as it is):
    // a view by signal priority rather than the harness's blind cut.
    match rendered {
        Some(r) if !budget::fits(&r.text, settings.budget) => {
            // A tool-aware summary keeps its facts in its own lines: view
            // those; the generic one is the raw output folded, view the raw.
            let summary = matches!(&r.shape, Shape::Text(name) if name != "generic").then_some(r.shape);
            match summary {
                Some(shape) => Some(crate::view::text(&r.text, Some(shape), hint, settings)),
                None => Some(crate::view::text(text, None, hint, settings)),
            }
        }
        None if !budget::fits(text, settings.budget) => Some(crate::view::text(text, None, hint, settings)),
        other => other,
    }
}

/// NUL bytes or invalid UTF-8 mean binary: never touched.
pub fn is_binary(raw: &[u8]) -> bool {
    raw.contains(&0) || std::str::from_utf8(raw).is_err()
}

/// `render`, with a panic anywhere in the pipeline turned into "deliver raw":
/// a bug of ours must never cost the agent its output.
pub fn render_guarded(raw: &[u8], hint: Option<&Hint>, settings: &Settings) -> Option<Rendered> {
    render_guarded_typed(raw, hint, settings).0
}

/// `render_typed` under the same guard (a panic: raw bytes, no result).
pub fn render_guarded_typed(
    raw: &[u8],
    hint: Option<&Hint>,
    settings: &Settings,
) -> (Option<Rendered>, Option<TypedResult>) {
    guarded(|| render_typed(raw, hint, settings)).unwrap_or((None, None))
}

/// Runs a stage of the pipeline with a panic turned into `None` and one
/// stderr line (the caller then delivers the raw bytes).
pub fn guarded<T>(stage: impl FnOnce() -> T) -> Option<T> {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(stage));
    std::panic::set_hook(prev);
    if out.is_err() {
        eprintln!("tokensieve: internal error while compressing; raw output delivered");
    }
    out.ok()
}
