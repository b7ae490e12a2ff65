//! The JSON pipeline: scrubber → parse → sieve → deduper → router →
//! Outline | PVFN | Schema-YAML | JSON. Every stage is a pure function over
//! text or `serde_json::Value`; `decode` reverses any emitted shape.
//!
//! # Design: JSON (`src/json/`)
//!
//! Every stage is a pure function; `json::compress(Value, &Settings)` is the
//! whole pipeline after parsing, and `json::stage` exposes each step for
//! `tokensieve inspect`.
//!
//! 1. `scrubber`: ANSI CSI/OSC sequences and a BOM removed (regex compiled once).
//! 2. `parse`: one document, or NDJSON / concatenated documents as a list. Not
//!    an object or array, not valid, deeper than serde_json's 128 levels, or an
//!    object with a repeated key (a parser would keep one and lose the other) →
//!    `None`: the text path decides, and without a filter the bytes pass as-is.
//!    Each object and array is built at its exact size (`Tight`: serde_json's
//!    growing maps left minified JSON at ~13× its size in memory).
//!    `documents_from` (a reader) + `finish` (with `check` of the bytes) give
//!    the same value for the large-JSON path above.
//! 3. `sieve`: bottom-up removal of `null`, `""`, `[]`, `{}`; base64 blobs
//!    (seed 000's content gate) and PEM blocks become `<base64 N chars>` /
//!    `<pem LABEL N chars>`.
//! 4. `deduper`: a string field dropped when a *strict ancestor* object has the
//!    same value under the same key name (case/`_`/`-`-insensitive); numbers and
//!    booleans never dropped; epoch-ms under time-like keys → ISO-8601 UTC.
//!    `--aggressive` switches to seed 000's value-only rule.
//! 5. `router`: builds every candidate — `outline` (ours: sections, record
//!    tables via `flatten`, constant columns hoisted into the header; a second
//!    outline with nested tables where records hold arrays of records at a
//!    path through objects, the largest records as the rows), `flow`
//!    (unquoted JSON), seed 000's pick (`schema_yaml` or `pvfn`), `pvfn`, and
//!    minified JSON — counts each with the real tokenizer and keeps the smallest. Above 32 KB
//!    it picks the shape on a sample (every array cut to 16 items), when that
//!    halves the document, and encodes only the winner in full; candidates
//!    twice the bytes of the shortest are not counted, and the others only
//!    as far as they could still win (the shortest first).
//!    `TOKENSIEVE_DEBUG_ROUTER=1` prints the candidates' counts.
//! 6. `literal` is the value/path grammar every text shape shares (bare or
//!    JSON-quoted scalars, inline containers, dotted paths); `decode` reads all
//!    shapes with it (docs/FORMAT.md). `tests/roundtrip.rs` (proptest) and
//!    `fuzz/` check decode(encode(x)) == x for every candidate.
//! 7. A failing command's rendering (any shape but `raw`, views too) ends with
//!    `exit N`, as a text summary does (`json::with_status`, called where the
//!    pipeline and the large-output path render); no shape ends with such a
//!    line, and `decode` reads past it (docs/FORMAT.md §6). JSON lines of test
//!    events (`go test -json`) stay on this path: every event is a fact and
//!    the outline keeps them all.

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
pub mod sniff;

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
