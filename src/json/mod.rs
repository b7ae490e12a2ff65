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

use crate::pipeline::{Rendered, Settings};

/// Sieve then dedup: the document every encoder receives.
pub fn reduce(value: Value, settings: &Settings) -> Value {
    deduper::dedup(sieve::sieve(value), settings.aggressive)
}

/// Compresses a parsed document: the smallest candidate by real token count.
pub fn compress(value: Value, settings: &Settings) -> Rendered {
    router::route(&reduce(value, settings), settings.encoding)
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
