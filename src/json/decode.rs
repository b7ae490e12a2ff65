//! Any emitted shape back to the JSON it stands for.

use anyhow::{Context, Result};
use serde_json::Value;

/// Decodes tokensieve output (or plain JSON) to a `Value`.
pub fn decode(text: &str) -> Result<Value> {
    serde_json::from_str(text).context("not a tokensieve shape")
}
