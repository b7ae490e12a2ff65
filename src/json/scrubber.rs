//! Stage 1: strip what breaks a JSON parse but carries no data: ANSI CSI/OSC
//! escape sequences (CLIs colour JSON when they think a terminal reads) and a
//! leading UTF-8 byte-order mark.

use std::borrow::Cow;

use once_cell::sync::Lazy;
use regex::Regex;

// CSI: ESC [ params final-byte; OSC: ESC ] ... (BEL | ESC \); plus lone
// two-byte escapes such as ESC ( B.
static ANSI: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[@-Z\\-_]")
        .expect("valid ANSI regex")
});

/// Removes a UTF-8 BOM and ANSI escape sequences. Borrows when nothing changes.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    ANSI.replace_all(text, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example_coloured_brace() {
        assert_eq!(scrub("\x1B[32m{\x1B[0m\"key\": 1}"), "{\"key\": 1}");
    }

    #[test]
    fn bom_and_osc_removed() {
        assert_eq!(scrub("\u{feff}[1]"), "[1]");
        assert_eq!(scrub("\x1b]8;;http://x\x07link\x1b]8;;\x07"), "link");
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(scrub("{\"a\": 1}"), Cow::Borrowed(_)));
    }
}
