//! The parts of a text that `count` counts apart, and the memo that counts
//! a part repeated word for word once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::hash::{fmix64, key_hash};
use super::is_clean_point;

/// The first clean point (see `is_clean_point`) just after a `\n` at byte
/// `from` or later.
pub fn next_clean_point(text: &str, mut from: usize) -> Option<usize> {
    // A `\n` is never inside a character: the search may start at the next
    // character's first byte.
    while from < text.len() && !text.is_char_boundary(from) {
        from += 1;
    }
    // `str::find` of one ASCII char is a word-at-a-time memchr.
    while let Some(nl) = text.get(from..)?.find('\n') {
        let at = from + nl + 1;
        if is_clean_point(text.as_bytes(), at) {
            return Some(at);
        }
        from = at;
    }
    None
}

/// `text` cut at each clean point: the parts' counts add up to the whole's.
pub fn clean_parts(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let end = next_clean_point(text, start).unwrap_or(text.len());
        let part = &text[start..end];
        start = end;
        Some(part)
    })
}

/// Parts counted so far and their counts. After `PROBE` lookups with fewer
/// than one in `WORTH` found, it stops looking (and storing): a text whose
/// lines do not repeat pays for `PROBE` hashes only.
#[derive(Default)]
pub struct Seen<'t> {
    counts: HashMap<&'t str, usize, BuildHasherDefault<PartHasher>>,
    lookups: usize,
    found: usize,
    off: bool,
}

const PROBE: usize = 512;
const WORTH: usize = 8;
/// Shorter parts are cheaper to count than to look up.
const SHORTEST: usize = 6;

impl<'t> Seen<'t> {
    /// `part`'s count: remembered, or `pieces(part)`.
    pub fn count(&mut self, part: &'t str, pieces: &mut impl FnMut(&str) -> usize) -> usize {
        if self.off || part.len() < SHORTEST {
            return pieces(part);
        }
        self.lookups += 1;
        if let Some(&n) = self.counts.get(part) {
            self.found += 1;
            return n;
        }
        if self.lookups == PROBE && self.found * WORTH < PROBE {
            self.off = true;
            self.counts = HashMap::default();
            return pieces(part);
        }
        let n = pieces(part);
        self.counts.insert(part, n);
        n
    }
}

/// The vocabulary's key hash over a part's bytes (SipHash, the default,
/// costs several times more on lines of tens of bytes).
#[derive(Default)]
struct PartHasher(u64);

impl Hasher for PartHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = key_hash(bytes, self.0);
    }

    fn write_u8(&mut self, b: u8) {
        self.0 = fmix64(self.0 ^ b as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_text_in_order() {
        for text in ["", "a", "a\n", "a\nb\n", "a\n\n  b\n\tc", "x\n /y\n/z\n", "a\n \n b"] {
            let parts: Vec<&str> = clean_parts(text).collect();
            assert_eq!(parts.concat(), text);
            assert!(parts.iter().all(|p| !p.is_empty()), "{text:?}: {parts:?}");
        }
        let parts: Vec<&str> = clean_parts("{\n    \"a\": 1,\n    \"b\": 2\n}\n").collect();
        assert_eq!(parts, ["{\n", "    \"a\": 1,\n", "    \"b\": 2\n", "}\n"]);
    }

    #[test]
    fn the_next_clean_point_may_be_asked_from_inside_a_character() {
        let text = "ééé\nx\n\n  y\n";
        assert_eq!(next_clean_point(text, 1), Some(7));
        assert_eq!(next_clean_point(text, 7), Some(10));
        assert_eq!(next_clean_point(text, 11), None);
    }

    #[test]
    fn a_repeated_part_is_counted_once() {
        let text = "    \"State\": \"available\",\n".repeat(50);
        let mut seen = Seen::default();
        let mut calls = 0;
        let total: usize = clean_parts(&text)
            .map(|p| {
                seen.count(p, &mut |_| {
                    calls += 1;
                    7
                })
            })
            .sum();
        assert_eq!((total, calls), (350, 1));
    }

    #[test]
    fn lines_that_do_not_repeat_stop_the_lookups() {
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        let mut seen = Seen::default();
        for part in clean_parts(&text) {
            seen.count(part, &mut |p| p.len());
        }
        assert!(seen.off && seen.counts.is_empty());
        assert_eq!(seen.lookups, PROBE);
    }
}
