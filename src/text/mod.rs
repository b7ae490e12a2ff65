//! Text outputs: tool-aware summaries and the generic treatment.
//! (Filters arrive with the text issue; until then text passes through.)

use crate::pipeline::{Hint, Rendered, Settings};

/// A summary of `text` for an agent, or `None` to pass it through.
pub fn render(_text: &str, _hint: Option<&Hint>, _settings: &Settings) -> Option<Rendered> {
    None
}

/// Whether a text filter wants the whole stdout of `command` (tool first) even
/// when it is not JSON: the shim then buffers it instead of streaming it live.
/// (The text filters replace this body; until then nothing is claimed.)
pub fn claims(_command: &[String]) -> bool {
    false
}
