//! Text outputs: tool-aware summaries and the generic treatment.
//! (Filters arrive with the text issue; until then text passes through.)

use crate::pipeline::{Hint, Rendered, Settings};

/// A summary of `text` for an agent, or `None` to pass it through.
pub fn render(_text: &str, _hint: Option<&Hint>, _settings: &Settings) -> Option<Rendered> {
    None
}
