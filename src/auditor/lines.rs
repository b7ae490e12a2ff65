//! The parts of a text that `count` counts apart, and the memo that counts
//! a part repeated word for word once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::hash::{fmix64, key_hash};
use super::splits_cleanly;

/// `text` cut at each clean point (just after a `\n` where `splits_cleanly`
/// holds): the parts' counts add up to the whole's.
pub fn clean_parts(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut from = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        // `str::find` of one ASCII char is a word-at-a-time memchr.
        while let Some(nl) = text[from..].find('\n') {
            let at = from + nl + 1;
            from = at;
            if splits_cleanly(&bytes[at..]) {
                let part = &text[start..at];
                start = at;
                return Some(part);
            }
        }
        from = bytes.len();
        let part = &text[start..];
        start = bytes.len();
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
