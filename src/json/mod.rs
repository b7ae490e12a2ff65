//! The JSON pipeline: scrubber → parse → sieve → deduper → router →
//! Outline | PVFN | Schema-YAML | JSON. Every stage is a pure function over
//! text or `serde_json::Value`; `decode` reverses any emitted shape.

pub mod decode;
pub mod deduper;
pub mod flatten;
pub mod literal;
pub mod outline;
pub mod parse;
pub mod pvfn;
pub mod router;
pub mod schema_yaml;
pub mod scrubber;
pub mod sieve;

pub use parse::parse;

use anyhow::{Result, bail};
use serde_json::Value;

use crate::settings::{Rendered, Settings};

/// Sieve then dedup: the document every encoder receives.
pub fn reduce(value: Value, settings: &Settings) -> Value {
    deduper::dedup(sieve::sieve(value), settings.dedup, settings.epoch())
}

/// Compresses a parsed document: the smallest candidate by real token count.
pub fn compress(value: Value, settings: &Settings) -> Rendered {
    router::route(&reduce(value, settings), settings.encoding)
}

/// The text a document was parsed from, where `render` can read it again:
/// in memory, or a file holding the same bytes (a large input whose bytes
/// were let go while its tree was built, `crate::handoff`).
#[derive(Clone, Copy)]
pub enum Source<'a> {
    Bytes(&'a [u8]),
    File {
        path: &'a std::path::Path,
        len: usize,
        /// Its first bytes (up to `HEAD`).
        head: &'a [u8],
    },
}

impl Source<'_> {
    /// How many of its first bytes a `Source::File` keeps.
    pub const HEAD: usize = 256;

    pub fn len(&self) -> usize {
        match self {
            Source::Bytes(raw) => raw.len(),
            Source::File { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its first `HEAD` bytes (or all of it).
    fn head(&self) -> &[u8] {
        match self {
            Source::Bytes(raw) => &raw[..raw.len().min(Self::HEAD)],
            Source::File { head, .. } => head,
        }
    }

    /// The document parsed again (`None`: not JSON, or the file is gone).
    pub fn parse(&self) -> Option<Value> {
        match self {
            Source::Bytes(raw) => parse(raw),
            Source::File { path, .. } => std::fs::read(path).ok().and_then(|raw| parse(&raw)),
        }
    }
}

/// A failing command's JSON rendering ends with its status: `exit N` as the
/// last line, as a text summary does (docs/FORMAT.md §6). No shape has a
/// line of that form at its end, so `decode` reads past it; the raw bytes
/// passed through untouched carry none (the caller sees the tool's own
/// output and exit code).
pub fn with_status(mut rendered: Rendered, exit_code: Option<i32>) -> Rendered {
    if let Some(code) = exit_code.filter(|&c| c != 0)
        && rendered.shape != crate::auditor::Shape::Raw
    {
        if !rendered.text.is_empty() && !rendered.text.ends_with('\n') {
            rendered.text.push('\n');
        }
        rendered.text.push_str(&format!("exit {code}\n"));
    }
    rendered
}

/// Whether `parse` made `doc` from several documents (JSON lines): jq then
/// needs `--slurp` to see them as one array.
pub fn slurped(raw: Source, doc: &Value) -> bool {
    let start = String::from_utf8_lossy(raw.head()).into_owned();
    doc.is_array() && scrubber::scrub(&start).trim_start().starts_with('{')
}

/// The document after one named stage, for `tokensieve inspect`. `None`: not JSON.
pub fn stage(raw: &[u8], stage: &str, settings: &Settings) -> Result<Option<Value>> {
    let Some(value) = parse(raw) else { return Ok(None) };
    Ok(Some(match stage {
        "scrub" | "parse" => value,
        "sieve" => sieve::sieve(value),
        "dedup" => reduce(value, settings),
        other => bail!("unknown stage '{other}' (use scrub, sieve or dedup)"),
    }))
}
