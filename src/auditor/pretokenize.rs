//! The split of text into pieces before BPE, written out by hand instead of
//! run through a backtracking regex engine. Each function below is the exact
//! leftmost-first, backtracking meaning of tiktoken's pattern for that
//! encoding (quoted above it); the Unicode classes come from regex-syntax at
//! build time. tests/auditor_exact.rs checks the counts against tiktoken-rs.

use super::vocab::{ASCII_FLAGS, CLASS_ENDS, CLASS_FLAGS, CLASS_STARTS, fold_contraction};

// Class bits, as laid out by build.rs.
const WS: u8 = 1; // \s
const L: u8 = 2; // \p{L}
const N: u8 = 4; // \p{N}
const UP: u8 = 8; // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
const LO: u8 = 16; // [\p{Ll}\p{Lm}\p{Lo}\p{M}]

#[inline(always)]
fn class_of(c: u32) -> u8 {
    if c < 128 {
        return ASCII_FLAGS[c as usize];
    }
    let i = CLASS_STARTS.partition_point(|&s| s <= c);
    if i > 0 && c <= CLASS_ENDS[i - 1] { CLASS_FLAGS[i - 1] } else { 0 }
}

/// The char starting at byte `i` of valid UTF-8: (code point, byte length).
#[inline(always)]
fn decode(s: &[u8], i: usize) -> (u32, usize) {
    let b0 = s[i];
    if b0 < 0x80 {
        (b0 as u32, 1)
    } else if b0 < 0xe0 {
        ((b0 as u32 & 0x1f) << 6 | (s[i + 1] as u32 & 0x3f), 2)
    } else if b0 < 0xf0 {
        ((b0 as u32 & 0x0f) << 12 | (s[i + 1] as u32 & 0x3f) << 6 | (s[i + 2] as u32 & 0x3f), 3)
    } else {
        let c = (b0 as u32 & 0x07) << 18
            | (s[i + 1] as u32 & 0x3f) << 12
            | (s[i + 2] as u32 & 0x3f) << 6
            | (s[i + 3] as u32 & 0x3f);
        (c, 4)
    }
}

/// (code point, byte length, class bits) of the char at `i`.
#[inline(always)]
fn at(s: &[u8], i: usize) -> (u32, usize, u8) {
    let b = s[i];
    if b < 0x80 {
        return (b as u32, 1, ASCII_FLAGS[b as usize]);
    }
    let (c, n) = decode(s, i);
    (c, n, class_of(c))
}

/// End of the run of chars whose class meets `mask`, starting at `i`.
#[inline(always)]
fn run(s: &[u8], mut i: usize, mask: u8) -> usize {
    while i < s.len() {
        let b = s[i];
        if b < 0x80 {
            if ASCII_FLAGS[b as usize] & mask == 0 {
                break;
            }
            i += 1;
        } else {
            let (c, n) = decode(s, i);
            if class_of(c) & mask == 0 {
                break;
            }
            i += n;
        }
    }
    i
}

/// End of the run of `[^\s\p{L}\p{N}]` chars at `i`.
#[inline(always)]
fn punct_run(s: &[u8], mut i: usize) -> usize {
    while i < s.len() {
        let (_, n, f) = at(s, i);
        if f & (WS | L | N) != 0 {
            break;
        }
        i += n;
    }
    i
}

#[inline(always)]
fn is_punct(f: u8) -> bool {
    f & (WS | L | N) == 0
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i` (where `s[i]` is `'`): its end.
#[inline]
fn contraction(s: &[u8], i: usize) -> Option<usize> {
    let j = i + 1;
    if j >= s.len() {
        return None;
    }
    let (c1, n1, _) = at(s, j);
    let k = j + n1;
    let second = |want: u8| -> Option<usize> {
        if k < s.len() {
            let (c2, n2, _) = at(s, k);
            if fold_contraction(c2) == want {
                return Some(k + n2);
            }
        }
        None
    };
    match fold_contraction(c1) {
        b's' | b'd' | b'm' | b't' => Some(k),
        b'l' => second(b'l'),
        b'r' | b'v' => second(b'e'),
        _ => None,
    }
}

/// Whitespace run at `i`: (end, end after its last `\r`/`\n` if any, start
/// of its last char, number of chars).
#[inline]
fn whitespace(s: &[u8], i: usize) -> (usize, Option<usize>, usize, usize) {
    let (mut k, mut last_nl, mut last, mut chars) = (i, None, i, 0);
    while k < s.len() {
        let (c, n, f) = at(s, k);
        if f & WS == 0 {
            break;
        }
        if c == b'\r' as u32 || c == b'\n' as u32 {
            last_nl = Some(k + n);
        }
        last = k;
        k += n;
        chars += 1;
    }
    (k, last_nl, last, chars)
}

/// The two branches both patterns share, after the letter cases: up to three
/// digits (`\p{N}{1,3}`), or an optional space and a punctuation run followed
/// by the pattern's own trailing bytes (`[\r\n]*`, plus `/` in o200k).
/// `i` is the piece's start, `j` the end of its first char (`c0`, class `f0`).
fn digits_or_punct(
    s: &[u8],
    i: usize,
    j: usize,
    c0: u32,
    f0: u8,
    trailing: impl Fn(u8) -> bool,
) -> Option<usize> {
    if f0 & N != 0 {
        let mut end = j;
        for _ in 0..2 {
            if end < s.len() && at(s, end).2 & N != 0 {
                end += at(s, end).1;
            }
        }
        return Some(end);
    }
    let start = if c0 == b' ' as u32 && j < s.len() && is_punct(at(s, j).2) {
        Some(j)
    } else if is_punct(f0) {
        Some(i)
    } else {
        None
    }?;
    let mut end = punct_run(s, start);
    while end < s.len() && trailing(s[end]) {
        end += 1;
    }
    Some(end)
}

/// Calls `f` with each piece of `text` as cl100k_base splits it:
/// `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|
///  ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`
pub fn split_cl100k(text: &str, mut f: impl FnMut(&[u8])) {
    let s = text.as_bytes();
    let mut i = 0;
    while i < s.len() {
        let end = cl100k_piece(s, i);
        f(&s[i..end]);
        i = end;
    }
}

#[inline]
fn cl100k_piece(s: &[u8], i: usize) -> usize {
    let (c0, n0, f0) = at(s, i);
    let j = i + n0;
    if c0 == b'\'' as u32
        && let Some(end) = contraction(s, i)
    {
        return end;
    }
    if f0 & L != 0 {
        return run(s, j, L);
    }
    // One char that is not a letter, digit or line break may lead a word.
    if c0 != b'\r' as u32 && c0 != b'\n' as u32 && f0 & N == 0 && j < s.len() && at(s, j).2 & L != 0 {
        return run(s, j, L);
    }
    if let Some(end) = digits_or_punct(s, i, j, c0, f0, |b| matches!(b, b'\r' | b'\n')) {
        return end;
    }
    // Whitespace.
    let (end, last_nl, last, chars) = whitespace(s, i);
    if end == s.len() {
        end
    } else if let Some(nl) = last_nl {
        nl
    } else if chars >= 2 {
        last
    } else {
        end
    }
}

/// Calls `f` with each piece of `text` as o200k_base splits it:
/// `[^\r\n\p{L}\p{N}]?[UP]*[LO]+C?|[^\r\n\p{L}\p{N}]?[UP]+[LO]*C?|
/// \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
/// with UP = `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, LO = `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
/// and C = `(?i:'s|'t|'re|'ve|'m|'ll|'d)`.
pub fn split_o200k(text: &str, mut f: impl FnMut(&[u8])) {
    let s = text.as_bytes();
    let mut i = 0;
    while i < s.len() {
        let end = o200k_piece(s, i);
        f(&s[i..end]);
        i = end;
    }
}

/// `[UP]*[LO]+` at `i`, with the backtracking a regex engine would do: when
/// no LO char follows the UP run, the run gives back chars until the last one
/// that is also LO.
#[inline]
fn upper_star_lower_plus(s: &[u8], i: usize) -> Option<usize> {
    let (mut k, mut last_lo_end) = (i, None);
    while k < s.len() {
        let (_, n, f) = at(s, k);
        if f & UP == 0 {
            if f & LO != 0 {
                return Some(run(s, k, LO));
            }
            break;
        }
        k += n;
        if f & LO != 0 {
            last_lo_end = Some(k);
        }
    }
    last_lo_end
}

/// `[UP]+[LO]*` at `i`.
#[inline]
fn upper_plus_lower_star(s: &[u8], i: usize) -> Option<usize> {
    if i >= s.len() || at(s, i).2 & UP == 0 {
        return None;
    }
    Some(run(s, run(s, i, UP), LO))
}

#[inline]
fn with_contraction(s: &[u8], end: usize) -> usize {
    if end < s.len() && s[end] == b'\'' { contraction(s, end).unwrap_or(end) } else { end }
}

#[inline]
fn o200k_piece(s: &[u8], i: usize) -> usize {
    let (c0, n0, f0) = at(s, i);
    let j = i + n0;
    let lead = c0 != b'\r' as u32 && c0 != b'\n' as u32 && f0 & (L | N) == 0;
    if f0 & (UP | LO) != 0 || lead {
        let word = None
            .or_else(|| if lead { upper_star_lower_plus(s, j) } else { None })
            .or_else(|| upper_star_lower_plus(s, i))
            .or_else(|| if lead { upper_plus_lower_star(s, j) } else { None })
            .or_else(|| upper_plus_lower_star(s, i));
        if let Some(end) = word {
            return with_contraction(s, end);
        }
    }
    if let Some(end) = digits_or_punct(s, i, j, c0, f0, |b| matches!(b, b'\r' | b'\n' | b'/')) {
        return end;
    }
    // Whitespace.
    let (end, last_nl, last, chars) = whitespace(s, i);
    if let Some(nl) = last_nl {
        nl
    } else if end == s.len() || chars < 2 {
        end
    } else {
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cl(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        split_cl100k(text, |p| out.push(String::from_utf8(p.to_vec()).unwrap()));
        out
    }

    fn o2(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        split_o200k(text, |p| out.push(String::from_utf8(p.to_vec()).unwrap()));
        out
    }

    /// tiktoken-rs's cl100k_base pattern, verbatim.
    const CL100K_PATTERN: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

    fn by_regex(re: &fancy_regex::Regex, text: &str) -> Vec<String> {
        re.find_iter(text).map(|m| m.unwrap().as_str().to_string()).collect()
    }

    /// Chars each branch of the patterns cares about (see tests/auditor_exact.rs).
    const ALPHABET: &str = "aAsStTlLdDmMrReEvVz09 '\t\n\r/\"{}:,.-_<|>\u{a0}\u{2028}\u{3000}\u{b}\u{85}ſéÉǅʰ中\u{301}\u{64b}٣²Ⅻ🙂";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        #[test]
        fn pieces_match_the_reference_patterns(idx in proptest::collection::vec(0usize..1000, 0..40)) {
            let a: Vec<char> = ALPHABET.chars().collect();
            let text: String = idx.iter().map(|i| a[i % a.len()]).collect();
            static RE: once_cell::sync::Lazy<[fancy_regex::Regex; 2]> = once_cell::sync::Lazy::new(|| {
                [CL100K_PATTERN, tiktoken_rs::O200K_BASE_PAT_STR].map(|p| fancy_regex::Regex::new(p).unwrap())
            });
            proptest::prop_assert_eq!(cl(&text), by_regex(&RE[0], &text), "cl100k {:?}", text);
            proptest::prop_assert_eq!(o2(&text), by_regex(&RE[1], &text), "o200k {:?}", text);
        }
    }

    #[test]
    fn cl100k_whitespace_rules() {
        assert_eq!(cl("a  b"), ["a", " ", " b"]);
        assert_eq!(cl("a\n\n  b"), ["a", "\n\n", " ", " b"]);
        // Trailing whitespace is one piece, newlines included (`\s++$`).
        assert_eq!(cl("a\n  "), ["a", "\n  "]);
        assert_eq!(cl("x'S 're"), ["x", "'S", " '", "re"]);
        assert_eq!(cl("12345"), ["123", "45"]);
        assert_eq!(cl("{\"a\": [1]}\n"), ["{\"", "a", "\":", " [", "1", "]}\n"]);
    }

    #[test]
    fn o200k_word_rules() {
        assert_eq!(o2("HelloWorld's"), ["Hello", "World's"]);
        assert_eq!(o2("a\n  "), ["a", "\n", "  "]);
        assert_eq!(o2("x/\n/y"), ["x", "/\n/", "y"]);
        assert_eq!(o2("ABC def"), ["ABC", " def"]);
    }
}
