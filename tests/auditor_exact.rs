//! Our token counts against tiktoken-rs, the reference implementation, for
//! both encodings: every JSON and text fixture, special-token text counted as
//! ordinary text, and random strings over the character classes the split
//! patterns care about.

use std::path::Path;

use proptest::prelude::*;
use tiktoken_rs::CoreBPE;
use tokensieve::auditor::{self, Encoding};

fn reference(enc: Encoding) -> &'static CoreBPE {
    match enc {
        Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        Encoding::O200k => tiktoken_rs::o200k_base_singleton(),
    }
}

fn expected(enc: Encoding, text: &str) -> usize {
    reference(enc).encode_ordinary(text).len()
}

fn check(enc: Encoding, text: &str) {
    assert_eq!(auditor::count(enc, text), expected(enc, text), "{enc:?} on {text:?}");
}

fn fixture_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            fixture_files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_fixture_counts_like_tiktoken() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files = Vec::new();
    fixture_files(&root, &mut files);
    assert!(files.len() > 20, "fixtures missing");
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for enc in [Encoding::Cl100k, Encoding::O200k] {
            let ours = auditor::count_bytes(enc, &bytes);
            assert_eq!(ours, expected(enc, &text), "{enc:?} on {}", f.display());
            // From 32 KB on, counted in two halves on two threads.
            assert_eq!(auditor::count_halves(enc, &text), ours, "{enc:?} in halves on {}", f.display());
        }
    }
}

#[test]
fn special_tokens_count_as_text() {
    for enc in [Encoding::Cl100k, Encoding::O200k] {
        for t in ["<|endoftext|>", "a<|endoftext|>b", "<|fim_prefix|><|endofprompt|>", "<|im_start|>user"] {
            check(enc, t);
            assert!(auditor::count(enc, t) > 1);
        }
    }
}

#[test]
fn tricky_boundaries() {
    let cases = [
        "",
        " ",
        "\n",
        "a\n  ",
        "a \n \n b",
        "x  \t\u{a0}y",
        "it's THEY'RE we'LL I'd ſ 'ſ 'S",
        "\u{301}A\u{301}b ǅemal ʰello 中文ｶﾀｶﾅ",
        "٣٤٥٦ ²³ ⅫⅩ 1234567",
        "a/\n/b //\r\n/",
        "  \u{2028}\u{3000}x",
        "🙂🙂 🙂x",
        "\r\n\r\n\t",
    ];
    for enc in [Encoding::Cl100k, Encoding::O200k] {
        for c in cases {
            check(enc, c);
        }
    }
}

#[test]
fn long_pieces_take_the_heap_path_exactly() {
    let b64: String = (0..4000u32).map(|i| (b'A' + ((i * 7 + i / 13) % 26) as u8) as char).collect();
    for enc in [Encoding::Cl100k, Encoding::O200k] {
        check(enc, &b64);
        check(enc, &"a".repeat(3000));
        check(enc, &" ".repeat(3000));
        check(enc, &"!?".repeat(1000));
    }
}

/// Pieces long enough to be counted in chunks (over 8 KB): each cut
/// between chunks must change nothing.
#[test]
fn pieces_counted_in_chunks_count_like_tiktoken() {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let random = |alphabet: &[u8], n: usize, next: &mut dyn FnMut() -> u64| -> String {
        (0..n).map(|_| alphabet[(next() % alphabet.len() as u64) as usize] as char).collect()
    };
    let pieces = [
        "a".repeat(12_000),
        "abc".repeat(4_100),
        "ab".repeat(6_100),
        random(b"abcdefghijklmnopqrstuvwxyz", 12_500, &mut next),
        random(b"etaoinshr", 12_500, &mut next),
        random(b"ab", 12_500, &mut next),
        " ".repeat(12_000),
        random(b"=-*#.", 12_000, &mut next),
        "ж".repeat(6_000),
    ];
    for enc in [Encoding::Cl100k, Encoding::O200k] {
        for p in &pieces {
            assert_eq!(auditor::count(enc, p), expected(enc, p), "{enc:?} on {:?}…", &p[..30]);
        }
    }
}

/// Characters the patterns treat differently: letters of each case class,
/// marks, digits of several scripts, the whitespace kinds, apostrophes and
/// contraction letters, slashes, emoji.
fn alphabet() -> Vec<char> {
    "aAsStTlLdDmMrReEvVzZ09 '\t\n\r/\\\"{}:,.-_=<|>\u{a0}\u{2028}\u{3000}\u{b}\u{c}\u{85}\
     ſéÉǅʰ中あ\u{301}\u{64b}٣²Ⅻ🙂ß\u{fffd}"
        .chars()
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_text_counts_like_tiktoken(idx in prop::collection::vec(0usize..1000, 0..60)) {
        let a = alphabet();
        let text: String = idx.iter().map(|i| a[i % a.len()]).collect();
        for enc in [Encoding::Cl100k, Encoding::O200k] {
            prop_assert_eq!(auditor::count(enc, &text), expected(enc, &text), "{:?} on {:?}", enc, text);
        }
    }

    /// Past 4 KB `count` counts a line that repeats once: random lines of
    /// the tricky characters (newlines, blanks, slashes among them), drawn
    /// again and again until the text is long enough.
    #[test]
    fn repeated_random_lines_count_like_tiktoken(
        lines in prop::collection::vec(prop::collection::vec(0usize..1000, 0..24), 1..10),
        order in prop::collection::vec(0usize..10, 1..80),
    ) {
        let a = alphabet();
        let lines: Vec<String> = lines.iter().map(|l| l.iter().map(|i| a[i % a.len()]).collect()).collect();
        let mut text = String::new();
        while text.len() < 5000 {
            for i in &order {
                text.push_str(&lines[i % lines.len()]);
                text.push('\n');
            }
        }
        for enc in [Encoding::Cl100k, Encoding::O200k] {
            prop_assert_eq!(auditor::count(enc, &text), expected(enc, &text), "{:?} on {:?}", enc, text);
        }
    }

    #[test]
    fn random_unicode_counts_like_tiktoken(text in "\\PC{0,40}") {
        for enc in [Encoding::Cl100k, Encoding::O200k] {
            prop_assert_eq!(auditor::count(enc, &text), expected(enc, &text), "{:?} on {:?}", enc, text);
        }
    }
}
