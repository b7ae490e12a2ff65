//! Stage 1: strip what breaks a JSON parse but carries no data: ANSI CSI/OSC
//! escape sequences (CLIs colour JSON when they think a terminal reads) and a
//! leading UTF-8 byte-order mark.

use std::borrow::Cow;

/// What starts at an ESC byte.
#[derive(Debug, PartialEq, Eq)]
pub enum Escape {
    /// A whole escape sequence of this many bytes.
    Len(usize),
    /// The start of one, cut off by the end of the input (a stream may bring the rest).
    Unfinished,
    /// Not an escape sequence.
    NotOne,
}

/// The ANSI escape at the start of `s` (`s[0]` is ESC): CSI `ESC [` params,
/// intermediates, final byte; OSC `ESC ]` ... BEL or `ESC \`; charset
/// `ESC ( B`; or a two-byte `ESC @`..`ESC _`. One grammar for the scrubber
/// and the shim's first-bytes sniffing; a byte scan, so nothing is compiled.
pub fn escape_at(s: &[u8]) -> Escape {
    let Some(&kind) = s.get(1) else { return Escape::Unfinished };
    match kind {
        b'[' => {
            let mut j = 2;
            while s.get(j).is_some_and(|b| (0x30..=0x3f).contains(b)) {
                j += 1;
            }
            while s.get(j).is_some_and(|b| (0x20..=0x2f).contains(b)) {
                j += 1;
            }
            match s.get(j) {
                None => Escape::Unfinished,
                Some(b) if (0x40..=0x7e).contains(b) => Escape::Len(j + 1),
                Some(_) => Escape::NotOne,
            }
        }
        b']' => {
            for j in 2..s.len() {
                match s[j] {
                    0x07 => return Escape::Len(j + 1),
                    0x1b => {
                        return match s.get(j + 1) {
                            Some(b'\\') => Escape::Len(j + 2),
                            Some(_) => Escape::NotOne,
                            None => Escape::Unfinished,
                        };
                    }
                    _ => {}
                }
            }
            Escape::Unfinished
        }
        b'(' | b')' => match s.get(2) {
            None => Escape::Unfinished,
            Some(b) if b.is_ascii_alphanumeric() => Escape::Len(3),
            Some(_) => Escape::NotOne,
        },
        0x40..=0x5f => Escape::Len(2),
        _ => Escape::NotOne,
    }
}

/// Removes a UTF-8 BOM and ANSI escape sequences. Borrows when nothing changes.
pub fn scrub(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match strip_escapes(text.as_bytes()) {
        Cow::Borrowed(_) => Cow::Borrowed(text),
        // Escapes are whole ASCII sequences: what is left is still UTF-8.
        Cow::Owned(bytes) => Cow::Owned(String::from_utf8(bytes).expect("escapes are ASCII")),
    }
}

/// `bytes` without their ANSI escape sequences (an unfinished one at the
/// end stays). Borrows when there are none.
pub fn strip_escapes(bytes: &[u8]) -> Cow<'_, [u8]> {
    if !bytes.contains(&0x1b) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let (mut from, mut i) = (0, 0);
    while let Some(off) = bytes[i..].iter().position(|&b| b == 0x1b) {
        let at = i + off;
        match escape_at(&bytes[at..]) {
            Escape::Len(n) => {
                out.extend_from_slice(&bytes[from..at]);
                from = at + n;
                i = at + n;
            }
            Escape::Unfinished | Escape::NotOne => i = at + 1,
        }
    }
    out.extend_from_slice(&bytes[from..]);
    Cow::Owned(out)
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
    fn escape_grammar() {
        assert_eq!(escape_at(b"\x1b[1;32mX"), Escape::Len(7));
        assert_eq!(escape_at(b"\x1b[1;3"), Escape::Unfinished);
        assert_eq!(escape_at(b"\x1b(B"), Escape::Len(3));
        assert_eq!(escape_at(b"\x1b]0;t\x1b\\x"), Escape::Len(7));
        assert_eq!(escape_at(b"\x1b"), Escape::Unfinished);
        assert_eq!(escape_at("\x1bé".as_bytes()), Escape::NotOne);
        // A stray ESC stays: only whole sequences go.
        assert_eq!(scrub("a\x1bé\x1b[0mb"), "a\x1béb");
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(scrub("{\"a\": 1}"), Cow::Borrowed(_)));
    }
}
