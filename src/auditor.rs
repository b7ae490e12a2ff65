//! Exact BPE token counts (cl100k_base by default, o200k_base selectable) and
//! the one-line receipt.
//!
//! Counts are what tiktoken's `encode_ordinary` gives: special-token strings
//! such as `<|endoftext|>` are counted as plain text, so any byte string has
//! one well-defined count, the same one an independent tiktoken count gives.
//!
//! The tokenizer is our own and costs nothing to start: build.rs lays both
//! vocabularies out as static perfect-hash tables (`vocab`), the split
//! patterns are hand-written scanners (`pretokenize`), and `merge` does
//! tiktoken's byte-pair merge, counting only. tests/auditor_exact.rs holds it
//! to tiktoken-rs on every fixture and on random text; docs/performance.md
//! has the measurements that chose this design.
//!
//! # Design: Token counts (`src/auditor.rs`, `src/auditor/`, `build.rs`)
//!
//! `auditor::count(enc, text)` is an exact cl100k_base / o200k_base count,
//! equal to tiktoken's `encode_ordinary(text).len()`, with no start-up cost:
//!
//! 1. `build.rs` reads every token of both vocabularies from tiktoken-rs (a
//!    build- and dev-dependency only) and writes static tables into `OUT_DIR`:
//!    a minimal perfect hash per encoding (`hash.rs`, shared by build.rs and the
//!    runtime: key hash → bucket → pilot → 6-byte slot of offset, length, rank)
//!    over one token blob where a token that is a prefix or suffix of another
//!    points into it. 2.9 MB in the binary; nothing is parsed at run time.
//! 2. `pretokenize`: the two split patterns as hand-written scanners, with the
//!    Unicode classes regex-syntax gives at build time (the ones fancy-regex
//!    uses), including the backtracking the regexes would do.
//! 3. `merge`: tiktoken's merge order (lowest rank, leftmost first), counting
//!    only; a heap for pieces over 96 bytes, and for texts over 16 KB a memo of
//!    pieces that are not tokens (camel-case JSON keys repeat on every record).
//!    A piece over 8 KB (a megabyte of letters, spaces or `=` is one piece) is
//!    merged in chunks of ~4 KB, cut where a small run around the cut ends a
//!    token. A cut is kept only when it is proved exact: until the pair across
//!    it merges, the whole piece's merges are the two chunks' merges
//!    interleaved by rank (ties to the left), so `cut_holds` replays that
//!    interleaving and fails if the pair across would ever be the next merge;
//!    a failed cut joins its chunks (and is checked again). Memory stays
//!    ~2.5× the input, time linear (docs/performance.md, "Single-line inputs").
//!    The memo is per thread; `count_bytes_shared` (the call's raw output,
//!    counted on the handoff's side thread) hands its memo over to threads
//!    starting later, which begin with a copy of it (one already counting takes its pieces into
//!    its empty slots), and `count_halves` counts a long text's
//!    halves on two threads, cut where `Tally` cuts (the counts add up).
//! 4. `lines`: past 4 KB a text is counted part by part, cut at the same
//!    clean points, and a part seen before (a line repeated word for word,
//!    as indented JSON repeats them) is looked up instead of counted again;
//!    after 512 parts with fewer than one in 8 found, it stops looking.
//!
//! `tests/auditor_exact.rs` compares with tiktoken-rs on every fixture and on
//! random text; `pretokenize`'s tests compare pieces with fancy-regex on
//! tiktoken-rs's own patterns. `warm(enc)` only pages the tables in. Figures
//! and the alternatives measured: `docs/performance.md`; benchmarks:
//! `benches/stages.rs` (divan, feature `bench`) and `scripts/bench.sh`.

mod hash;
mod lines;
mod merge;
mod pretokenize;
mod vocab;

use std::fmt;

use anyhow::{Result, bail};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    #[default]
    Cl100k,
    O200k,
}

impl Encoding {
    /// Parses `cl100k`, `cl100k_base`, `o200k`, `o200k_base`.
    pub fn parse(name: &str) -> Result<Encoding> {
        match name.trim() {
            "cl100k" | "cl100k_base" => Ok(Encoding::Cl100k),
            "o200k" | "o200k_base" => Ok(Encoding::O200k),
            other => bail!("unknown tokenizer '{other}' (use cl100k or o200k)"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cl100k => "cl100k",
            Encoding::O200k => "o200k",
        }
    }

    fn vocab(self) -> &'static vocab::Vocab {
        match self {
            Encoding::Cl100k => &vocab::CL100K,
            Encoding::O200k => &vocab::O200K,
        }
    }
}

/// Pages the encoder's tables in now (e.g. on a background thread while a
/// child runs) so the first `count` takes no page faults. There is nothing
/// to build: the tables are static data, so this is cheap from any thread.
pub fn warm(enc: Encoding) {
    enc.vocab().prefault();
}

/// Exact token count of `text`.
///
/// From `LINES_FROM` bytes on, a line that repeats word for word is counted
/// once: the text is cut at its clean points (see `Tally`: the counts of the
/// parts add up to the whole's), and a part seen before costs one lookup
/// instead of its pieces. Tool output repeats whole lines (awscli's indented
/// JSON: 157 of 205 KB of a `describe-images` are lines printed before);
/// where few lines repeat (logs, our renderings) the lookups stop.
pub fn count(enc: Encoding, text: &str) -> usize {
    count_within(enc, text, usize::MAX).expect("every count is within usize::MAX")
}

/// `count(enc, text)` when it is at most `limit`, else `None`; past
/// `LINES_FROM` bytes it stops at the first part that takes it over (the
/// router needs the exact count of the smallest candidate only).
pub fn count_within(enc: Encoding, text: &str, limit: usize) -> Option<usize> {
    merge::with_counter(enc.vocab(), text.len(), |counter| {
        let mut pieces = |part: &str| {
            let mut total = 0;
            match enc {
                Encoding::Cl100k => pretokenize::split_cl100k(part, |p| total += counter.piece(p)),
                Encoding::O200k => pretokenize::split_o200k(part, |p| total += counter.piece(p)),
            }
            total
        };
        if text.len() < LINES_FROM {
            return Some(pieces(text)).filter(|&n| n <= limit);
        }
        let mut seen = lines::Seen::default();
        lines::clean_parts(text)
            .try_fold(0, |total, part| Some(total + seen.count(part, &mut pieces)).filter(|&n| n <= limit))
    })
}

/// See `count`.
const LINES_FROM: usize = 4096;

/// Exact token count of raw bytes; invalid UTF-8 is counted as U+FFFD, as
/// tiktoken-based counters do.
pub fn count_bytes(enc: Encoding, bytes: &[u8]) -> usize {
    // from_utf8 first: it is several times faster than the lossy decoder's
    // chunk walk on the (usual) valid input.
    match std::str::from_utf8(bytes) {
        Ok(text) => count(enc, text),
        Err(_) => count(enc, &String::from_utf8_lossy(bytes)),
    }
}

/// `count`, a long text's two halves counted on two threads: it is cut at
/// the clean point nearest after its middle (a `\n` that `Tally` may cut
/// after: the counts of the two sides add up to the whole's). Below
/// `HALVES_FROM` bytes, or with no such point before three quarters of
/// the text, `count` as it is (a thread costs tens of µs).
pub fn count_halves(enc: Encoding, text: &str) -> usize {
    let len = text.len();
    let cut = (len >= HALVES_FROM).then(|| lines::next_clean_point(text, len / 2 - 1)).flatten();
    let Some(at) = cut.filter(|&at| at < len * 3 / 4) else { return count(enc, text) };
    let (head, tail) = text.split_at(at);
    let (tail, head) = crate::threads::both(|| count(enc, tail), || count(enc, head));
    head + tail
}

/// See `count_halves`.
const HALVES_FROM: usize = 32 * 1024;

/// `count_bytes`, and the pieces it counted are left for the threads that
/// count renderings of the same output afterwards (`merge::share_memo`):
/// for the call's raw output counted on a side thread.
pub fn count_bytes_shared(enc: Encoding, bytes: &[u8]) -> usize {
    let n = count_bytes(enc, bytes);
    merge::share_memo(enc.vocab());
    n
}

/// An exact count of bytes that arrive in pieces (the shim's capture of an
/// output too large to hold), in bounded memory.
///
/// In both encodings' split patterns a newline sits inside a piece only in a
/// whitespace run that ends with newlines (`\s*[\r\n]+`) or after
/// punctuation (`[\r\n]*`, o200k's `[\r\n/]*`). So no piece spans the
/// point just after a `\n` whose following run of ASCII blanks (maybe none)
/// ends in a character that is not whitespace, and not a `/` right after the
/// newline: the counts of the two sides add up to the count of the whole
/// (tested on every fixture, split at every such point). Pending bytes are counted up to the
/// last such point once they pass `batch`; without one in `4 × batch` bytes
/// they are split on a character boundary, where the sum may differ from the
/// whole's count by a token or so.
pub struct Tally {
    enc: Encoding,
    pending: Vec<u8>,
    /// `pending` before this was searched for a split point in vain (a
    /// point missed near the seam only delays the count).
    searched: usize,
    total: usize,
    batch: usize,
}

impl Tally {
    pub fn new(enc: Encoding) -> Tally {
        Tally::with_batch(enc, 1 << 20)
    }

    fn with_batch(enc: Encoding, batch: usize) -> Tally {
        Tally { enc, pending: Vec::new(), searched: 0, total: 0, batch }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        if self.pending.is_empty() && bytes.len() >= self.batch {
            // A large piece is counted where it lies (a capture hands over
            // its whole buffer once): only what follows its last split
            // point is copied.
            let at = self.split_point(bytes).unwrap_or(0);
            self.total += count_bytes(self.enc, &bytes[..at]);
            self.pending.extend_from_slice(&bytes[at..]);
            return;
        }
        self.pending.extend_from_slice(bytes);
        if self.pending.len() < self.batch {
            return;
        }
        let Some(at) = self.split_point(&self.pending) else {
            self.searched = self.pending.len();
            return;
        };
        self.total += count_bytes(self.enc, &self.pending[..at]);
        self.pending.drain(..at);
        self.searched = 0;
    }

    pub fn finish(self) -> usize {
        self.total + count_bytes(self.enc, &self.pending)
    }

    /// Where `p` may be cut: its last clean point (the search resumes near
    /// where the last one gave up), else, in a line of `4 × batch` bytes or
    /// more, its last character boundary.
    fn split_point(&self, p: &[u8]) -> Option<usize> {
        let from = self.searched.saturating_sub(64).max(1);
        let clean = (from..p.len()).rev().find(|&i| is_clean_point(p, i));
        clean.or_else(|| {
            (p.len() >= 4 * self.batch)
                .then(|| (1..p.len()).rev().find(|&i| p[i] & 0xC0 != 0x80).unwrap_or(p.len()))
        })
    }
}

/// Whether `p` may be cut before byte `i` (0 < i <= len) with the counts of
/// the two sides adding up: just after a `\n`, where `splits_cleanly`.
fn is_clean_point(p: &[u8], i: usize) -> bool {
    p[i - 1] == b'\n' && splits_cleanly(&p[i..])
}

/// Whether `rest`, which follows a `\n`, starts the way `Tally` needs to
/// split before it. `false` when the bytes that decide are not there yet.
fn splits_cleanly(rest: &[u8]) -> bool {
    let blanks = rest.iter().take_while(|&&b| matches!(b, b' ' | b'\t' | 0x0b | 0x0c)).count();
    let after = &rest[blanks..];
    // ASCII, the usual case: of `\s`, only `\n` and `\r` are left.
    match after.first() {
        Some(&b) if b.is_ascii() => return !matches!(b, b'\n' | b'\r') && (b != b'/' || blanks > 0),
        _ => {}
    }
    let end = after.len().min(4);
    let first = match std::str::from_utf8(&after[..end]) {
        Ok(s) => s.chars().next(),
        Err(e) => std::str::from_utf8(&after[..e.valid_up_to()]).ok().and_then(|s| s.chars().next()),
    };
    match first {
        None => false,
        Some('/') => blanks > 0,
        // `\s` is Unicode White_Space, as `char::is_whitespace`
        Some(c) => !c.is_whitespace(),
    }
}

/// What won the router (or `Raw` when nothing beat the input).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    Raw,
    Json,
    Pvfn,
    SchemaYaml,
    Outline,
    /// JSON with quotes only where a string needs them.
    Flow,
    /// A text summary, named by the filter that made it (`cargo-test`, `generic`...).
    Text(String),
    /// A budgeted view (`crate::view`): `shown` of `total` rows or lines,
    /// the body written in shape `of`.
    View {
        of: Box<Shape>,
        shown: usize,
        total: usize,
        unit: &'static str,
    },
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Raw => f.write_str("raw"),
            Shape::Json => f.write_str("JSON"),
            Shape::Pvfn => f.write_str("PVFN"),
            Shape::SchemaYaml => f.write_str("SchemaYAML"),
            Shape::Outline => f.write_str("Outline"),
            Shape::Flow => f.write_str("Flow"),
            Shape::Text(name) => write!(f, "text:{name}"),
            Shape::View { of, shown, total, unit } => write!(f, "{of} view {shown}/{total} {unit}"),
        }
    }
}

/// The stderr receipt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Receipt {
    pub original: usize,
    pub compressed: usize,
    pub shape: Shape,
    pub raw_id: Option<String>,
    /// Tokens of the receipt line itself when an agent reads it (the short
    /// form): part of what the call costs the agent, 0 for a person.
    pub overhead: usize,
}

/// Who reads the receipt: a person at a terminal gets the long line, an
/// agent (which pays for stderr as much as stdout) the short one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReceiptForm {
    #[default]
    Long,
    Short,
}

/// Hex digits of the raw id in the short form (`show` takes any unique
/// prefix; `show` reports the rare ambiguous one).
const SHORT_ID: usize = 6;
/// What the short receipt may cost an agent (cl100k, with its newline): it
/// is read on every call, so it says only how much was saved and, when
/// something was left out, the id of the stored original.
pub const SHORT_MAX_TOKENS: usize = 12;
pub const SHORT_MAX_TOKENS_WITH_ID: usize = 16;

impl Receipt {
    /// The stderr line for `form`. `None` for the short form of an output
    /// delivered untouched: the agent read the tool's own bytes, there is
    /// nothing to tell it. The short form is `[tokensieve 4821→612]`, with
    /// ` raw ID` when the original was kept; a view says so in its own text.
    /// When the counts would take it over its limit (long numbers, an id
    /// that splits into many tokens) they go and the id stays.
    pub fn line(&self, form: ReceiptForm) -> Option<String> {
        match form {
            ReceiptForm::Long => Some(self.to_string()),
            ReceiptForm::Short if self.shape == Shape::Raw => None,
            ReceiptForm::Short => {
                let counts = format!("{}→{}", self.original, self.compressed);
                let Some(id) = &self.raw_id else { return Some(format!("[tokensieve {counts}]")) };
                let id = &id[..id.len().min(SHORT_ID)];
                let full = format!("[tokensieve {counts} raw {id}]");
                if count(Encoding::Cl100k, &format!("{full}\n")) <= SHORT_MAX_TOKENS_WITH_ID {
                    Some(full)
                } else {
                    Some(format!("[tokensieve raw {id}]"))
                }
            }
        }
    }

    /// Tokens the agent pays for the line of `form` (0 for a person).
    pub fn overhead_of(&self, form: ReceiptForm, enc: Encoding) -> usize {
        match (form, self.line(form)) {
            (ReceiptForm::Short, Some(line)) => count(enc, &format!("{line}\n")),
            _ => 0,
        }
    }
}

impl fmt::Display for Receipt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let saved = self.original as i64 - self.compressed as i64;
        let pct = if self.original == 0 { 0.0 } else { saved as f64 * 100.0 / self.original as f64 };
        write!(
            f,
            "[TokenSieve] Original: {} tok | Compressed: {} tok | Saved: {} ({:.1}%) | Shape: {}",
            self.original, self.compressed, saved, pct, self.shape
        )?;
        if let Some(id) = &self.raw_id {
            write!(f, " | raw: {id}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_within_a_limit_stops_past_it() {
        let text: String = (0..500).map(|i| format!("line {i}: {}\n", "ab ".repeat(i % 7))).collect();
        for enc in [Encoding::Cl100k, Encoding::O200k] {
            let n = count(enc, &text);
            assert_eq!(count_within(enc, &text, n), Some(n));
            assert_eq!(count_within(enc, &text, n - 1), None);
            assert_eq!(count_within(enc, "a few words", 1), None);
            assert_eq!(count_within(enc, "a few words", 3), Some(3));
        }
    }

    #[test]
    fn receipt_format_matches_spec() {
        let r = Receipt { original: 4821, compressed: 612, shape: Shape::Pvfn, raw_id: None, overhead: 0 };
        assert_eq!(
            r.to_string(),
            "[TokenSieve] Original: 4821 tok | Compressed: 612 tok | Saved: 4209 (87.3%) | Shape: PVFN"
        );
        assert_eq!(r.line(ReceiptForm::Long), Some(r.to_string()));
    }

    #[test]
    fn the_short_receipt_stays_within_its_limits() {
        // Counts up to a million tokens, and ids whose hex splits into many
        // tokens as well as few (every 6-digit prefix of 4,096 hashes).
        let limit = |r: &Receipt| {
            let line = r.line(ReceiptForm::Short).unwrap();
            let n = r.overhead_of(ReceiptForm::Short, Encoding::Cl100k);
            let max = if r.raw_id.is_some() { SHORT_MAX_TOKENS_WITH_ID } else { SHORT_MAX_TOKENS };
            assert!(n <= max, "{n} tokens: {line}");
            line
        };
        let r = Receipt {
            original: 987_654,
            compressed: 123_456,
            shape: Shape::Outline,
            raw_id: None,
            overhead: 0,
        };
        assert_eq!(limit(&r), "[tokensieve 987654→123456]");
        let with_id =
            Receipt { raw_id: Some("9439d8b8a1b2".to_owned()), original: 4821, compressed: 612, ..r.clone() };
        assert_eq!(limit(&with_id), "[tokensieve 4821→612 raw 9439d8]");
        let mut dropped_counts = 0;
        for k in 0..4096u64 {
            let hex = format!("{:012x}", k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 16);
            let line = limit(&Receipt { raw_id: Some(hex.clone()), ..r.clone() });
            // The id is always there, as `show` needs it.
            assert!(line.ends_with(&format!(" raw {}]", &hex[..6])), "{line}");
            dropped_counts += usize::from(!line.contains('→'));
        }
        assert!(dropped_counts < 4096, "the counts fit beside most ids");
        // A view says so in its own text; the receipt stays short.
        let view = Shape::View { of: Box::new(Shape::Outline), shown: 120, total: 1183, unit: "rows" };
        assert_eq!(limit(&Receipt { shape: view, ..with_id.clone() }), "[tokensieve 4821→612 raw 9439d8]");
        assert_eq!(r.overhead_of(ReceiptForm::Long, Encoding::Cl100k), 0);
        let untouched = Receipt { shape: Shape::Raw, raw_id: None, ..r };
        assert_eq!(untouched.line(ReceiptForm::Short), None);
        assert!(untouched.line(ReceiptForm::Long).unwrap().ends_with("Shape: raw"));
    }

    #[test]
    fn counts_are_exact_cl100k() {
        // "hello world" is two cl100k tokens; special tokens count as text.
        assert_eq!(count(Encoding::Cl100k, "hello world"), 2);
        assert!(count(Encoding::Cl100k, "<|endoftext|>") > 1);
        assert_eq!(count(Encoding::Cl100k, ""), 0);
    }

    fn tally_texts() -> Vec<Vec<u8>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text");
        let mut texts: Vec<Vec<u8>> =
            vec!["a.\n/b\r\n\r\nc  \n\n  d\n/e\n \u{a0}\n\u{85}x\n├─ y\n".repeat(40).into_bytes()];
        for dir in [root.clone(), root.join("local")] {
            for entry in std::fs::read_dir(dir).unwrap() {
                let p = entry.unwrap().path();
                if p.extension().is_some_and(|e| e == "txt") {
                    texts.push(std::fs::read(&p).unwrap());
                }
            }
        }
        texts
    }

    #[test]
    fn every_clean_point_splits_the_count_exactly() {
        for enc in [Encoding::Cl100k, Encoding::O200k] {
            for text in tally_texts().iter().filter(|t| t.len() < 8_000) {
                let whole = count_bytes(enc, text);
                for i in (1..text.len()).filter(|&i| is_clean_point(text, i)) {
                    let sum = count_bytes(enc, &text[..i]) + count_bytes(enc, &text[i..]);
                    assert_eq!(sum, whole, "{enc:?} at {i}: {:?}", String::from_utf8_lossy(&text[i - 1..]));
                }
            }
        }
    }

    #[test]
    fn a_tally_in_pieces_equals_the_whole_count() {
        let texts = tally_texts();
        for enc in [Encoding::Cl100k, Encoding::O200k] {
            for text in &texts {
                // Lines up to 4 × 2 KB: split at clean points only. Small
                // pieces, and a large first piece counted where it lies.
                let whole = count_bytes(enc, text);
                let (head, rest) = text.split_at(text.len() / 2);
                for pieces in [text.chunks(37).collect::<Vec<_>>(), vec![head, rest]] {
                    let mut tally = Tally::with_batch(enc, 2048);
                    for piece in pieces {
                        tally.push(piece);
                    }
                    assert_eq!(tally.finish(), whole, "{enc:?} {}", String::from_utf8_lossy(&text[..60]));
                }
            }
        }
    }

    #[test]
    fn encoding_names() {
        assert_eq!(Encoding::parse("o200k_base").unwrap(), Encoding::O200k);
        assert!(Encoding::parse("gpt2").is_err());
    }
}
