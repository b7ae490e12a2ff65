//! Lays out the tokenizer at build time so nothing is parsed at start-up.
//!
//! For cl100k_base and o200k_base it takes every token (rank order) from
//! tiktoken-rs, the reference implementation our counts must equal, and writes
//! into OUT_DIR:
//! - `tokens.bin`: the token bytes of both vocabularies in one blob; a token
//!   that is a prefix of another is stored inside it, not again;
//! - `<enc>.pilots` / `<enc>.slots`: a minimal perfect hash over the tokens
//!   (see src/auditor/hash.rs, shared with the runtime), little-endian;
//! - `vocab_tables.rs`: sizes, seeds, the Unicode classes the pre-tokenizer
//!   needs (from regex-syntax, the tables fancy-regex itself uses), and the
//!   case folds of the contraction letters.
//!
//! The binary then maps these tables read-only: the first count costs a few
//! page faults instead of ~46 ms of vocabulary parsing.

#[path = "src/auditor/hash.rs"]
#[allow(dead_code)]
mod hash;

use std::collections::BTreeMap;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use regex_syntax::hir::{Class, HirKind};

/// Slots per key: 3 % empty slots make the perfect hash quick to find.
const LOAD: f64 = 0.97;
/// Keys per bucket on average.
const LAMBDA: usize = 4;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/auditor/hash.rs");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));

    let encodings = [
        ("CL100K", "cl100k", vocab(&tiktoken_rs::cl100k_base().expect("cl100k_base"))),
        ("O200K", "o200k", vocab(&tiktoken_rs::o200k_base().expect("o200k_base"))),
    ];

    let all: Vec<&[u8]> = encodings.iter().flat_map(|(_, _, v)| v.iter().map(|t| t.as_slice())).collect();
    let (blob, offset_of) = pack_blob(&all);
    fs::write(out.join("tokens.bin"), &blob).expect("write tokens.bin");

    let mut rs = String::new();
    writeln!(rs, "pub const BLOB_LEN: usize = {};", blob.len()).unwrap();
    for (upper, lower, tokens) in &encodings {
        let offsets: Vec<usize> = tokens.iter().map(|t| offset_of[t.as_slice()]).collect();
        let table = Mphf::build(tokens, &offsets);
        let pilots: Vec<u8> = table.pilots.iter().flat_map(|p| p.to_le_bytes()).collect();
        // Each slot is read as 8 bytes from its start: pad the last one.
        let mut slots: Vec<u8> =
            table.slots.iter().flat_map(|s| s.to_le_bytes()[..hash::SLOT_BYTES].to_vec()).collect();
        slots.extend_from_slice(&[0; 8 - hash::SLOT_BYTES]);
        write(&out, &format!("{lower}.pilots"), &pilots);
        write(&out, &format!("{lower}.slots"), &slots);
        writeln!(rs, "pub const {upper}_TOKENS: usize = {};", tokens.len()).unwrap();
        writeln!(rs, "pub const {upper}_SEED: u64 = {};", table.seed).unwrap();
        writeln!(rs, "pub const {upper}_BUCKETS: usize = {};", table.pilots.len()).unwrap();
        writeln!(rs, "pub const {upper}_SLOTS: usize = {};", table.slots.len()).unwrap();
    }
    rs.push_str(&unicode_tables());
    fs::write(out.join("vocab_tables.rs"), rs).expect("write vocab_tables.rs");
}

/// Every ordinary token's bytes, indexed by rank (ranks are 0..n, no gaps).
fn vocab(bpe: &tiktoken_rs::CoreBPE) -> Vec<Vec<u8>> {
    let mut tokens = Vec::new();
    while let Ok(bytes) = bpe.decode_bytes(&[tokens.len() as u32]) {
        tokens.push(bytes);
    }
    assert!(tokens.len() > 50_000, "vocabulary too small: {}", tokens.len());
    tokens
}

/// One blob holding every distinct token of both vocabularies. BPE builds
/// long tokens from short ones, so most tokens are a prefix or a suffix of a
/// longer one and point into it instead of being stored again (1.52 MB of
/// token bytes fit in 0.90 MB).
fn pack_blob<'a>(tokens: &[&'a [u8]]) -> (Vec<u8>, BTreeMap<&'a [u8], usize>) {
    let mut sorted: Vec<&[u8]> = tokens.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    // In sorted order a token is a prefix of some other token iff it is a
    // prefix of its successor; following successors ends at a token that is
    // nobody's prefix ("maximal").
    let mut prefix_host = vec![0usize; sorted.len()];
    for i in (0..sorted.len()).rev() {
        let shared = i + 1 < sorted.len() && sorted[i + 1].starts_with(sorted[i]);
        prefix_host[i] = if shared { prefix_host[i + 1] } else { i };
    }
    // The same trick on the reversed maximal tokens finds the suffixes.
    let mut maximal: Vec<(Vec<u8>, usize)> = (0..sorted.len())
        .filter(|&i| prefix_host[i] == i)
        .map(|i| (sorted[i].iter().rev().copied().collect(), i))
        .collect();
    maximal.sort_unstable();
    let mut suffix_host = vec![0usize; maximal.len()];
    for k in (0..maximal.len()).rev() {
        let shared = k + 1 < maximal.len() && maximal[k + 1].0.starts_with(&maximal[k].0);
        suffix_host[k] = if shared { suffix_host[k + 1] } else { k };
    }
    let mut blob = Vec::new();
    let mut at = vec![usize::MAX; sorted.len()];
    for k in 0..maximal.len() {
        if suffix_host[k] == k {
            at[maximal[k].1] = blob.len();
            blob.extend_from_slice(sorted[maximal[k].1]);
        }
    }
    for k in 0..maximal.len() {
        let (host, me) = (maximal[suffix_host[k]].1, maximal[k].1);
        at[me] = at[host] + sorted[host].len() - sorted[me].len();
    }
    let map: BTreeMap<&[u8], usize> =
        sorted.iter().enumerate().map(|(i, t)| (*t, at[prefix_host[i]])).collect();
    for (t, off) in &map {
        assert_eq!(&blob[*off..*off + t.len()], *t, "blob layout");
    }
    assert!(blob.len() < 1 << hash::OFF_BITS, "token blob too large");
    (blob, map)
}

struct Mphf {
    seed: u64,
    pilots: Vec<u16>,
    slots: Vec<u64>,
}

impl Mphf {
    fn build(tokens: &[Vec<u8>], offsets: &[usize]) -> Mphf {
        let n = tokens.len();
        let nslots = (n as f64 / LOAD).ceil() as usize;
        let nbuckets = n.div_ceil(LAMBDA);
        'seed: for seed in 0u64.. {
            let seed = hash::fmix64(seed + 0x5eed);
            let hashes: Vec<u64> = tokens.iter().map(|t| hash::key_hash(t, seed)).collect();
            let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); nbuckets];
            for (i, h) in hashes.iter().enumerate() {
                buckets[hash::bucket(*h, nbuckets)].push(i);
            }
            let mut order: Vec<usize> = (0..nbuckets).collect();
            order.sort_by_key(|b| std::cmp::Reverse(buckets[*b].len()));
            let mut taken = vec![false; nslots];
            let mut pilots = vec![0u16; nbuckets];
            let mut places = Vec::new();
            for b in order {
                let keys = &buckets[b];
                if keys.is_empty() {
                    break;
                }
                let found = (0..=u16::MAX).find(|&p| {
                    places.clear();
                    for &k in keys {
                        let s = hash::slot(hashes[k], p, nslots);
                        if taken[s] || places.contains(&s) {
                            return false;
                        }
                        places.push(s);
                    }
                    true
                });
                let Some(p) = found else { continue 'seed };
                pilots[b] = p;
                for &s in &places {
                    taken[s] = true;
                }
            }
            let mut slots = vec![0u64; nslots];
            for (rank, t) in tokens.iter().enumerate() {
                let h = hashes[rank];
                let s = hash::slot(h, pilots[hash::bucket(h, nbuckets)], nslots);
                assert!(t.len() < 256 && rank < 1 << hash::RANK_BITS);
                slots[s] = hash::pack(offsets[rank], t.len(), rank as u32);
            }
            return Mphf { seed, pilots, slots };
        }
        unreachable!()
    }
}

/// Character classes of the two split patterns, as sorted ranges with flag
/// bits, plus the case folds `(?i)` gives the contraction letters.
fn unicode_tables() -> String {
    // Flag bits; keep in sync with src/auditor/pretokenize.rs.
    let classes = [
        (1u8, r"\s"),
        (2, r"\p{L}"),
        (4, r"\p{N}"),
        (8, r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]"),
        (16, r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"),
    ];
    let classes: Vec<(u8, Vec<(u32, u32)>)> = classes.iter().map(|(f, p)| (*f, ranges(p))).collect();
    let mut cuts: Vec<u32> = vec![0, 0x11_0000];
    for (_, rs) in &classes {
        for (a, b) in rs {
            cuts.push(*a);
            cuts.push(b + 1);
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let flags_at = |c: u32| -> u8 {
        classes
            .iter()
            .filter(|(_, rs)| rs.iter().any(|(a, b)| *a <= c && c <= *b))
            .fold(0, |acc, (f, _)| acc | f)
    };
    // (start, end inclusive, flags), adjacent equal flags merged, zero dropped.
    let mut segs: Vec<(u32, u32, u8)> = Vec::new();
    for w in cuts.windows(2) {
        let f = flags_at(w[0]);
        match segs.last_mut() {
            Some(last) if last.2 == f && last.1 + 1 == w[0] => last.1 = w[1] - 1,
            _ => segs.push((w[0], w[1] - 1, f)),
        }
    }
    segs.retain(|s| s.2 != 0);
    let mut rs = String::new();
    let ascii: Vec<String> = (0u32..128).map(|c| flags_at(c).to_string()).collect();
    writeln!(rs, "pub static ASCII_FLAGS: [u8; 128] = [{}];", ascii.join(",")).unwrap();
    let list = |f: &dyn Fn(&(u32, u32, u8)) -> String| segs.iter().map(f).collect::<Vec<_>>().join(",");
    let n = segs.len();
    writeln!(rs, "pub static CLASS_STARTS: [u32; {n}] = [{}];", list(&|s| s.0.to_string())).unwrap();
    writeln!(rs, "pub static CLASS_ENDS: [u32; {n}] = [{}];", list(&|s| s.1.to_string())).unwrap();
    writeln!(rs, "pub static CLASS_FLAGS: [u8; {n}] = [{}];", list(&|s| s.2.to_string())).unwrap();

    rs.push_str("/// The ASCII letter `c` matches under `(?i)`, for the contraction letters.\n");
    rs.push_str("#[inline]\npub fn fold_contraction(c: u32) -> u8 {\n    match c {\n");
    for letter in "sdmtlver".chars() {
        let arms: Vec<String> = ranges(&format!("(?i:{letter})"))
            .iter()
            .map(|(a, b)| if a == b { format!("{a}") } else { format!("{a}..={b}") })
            .collect();
        writeln!(rs, "        {} => b'{letter}',", arms.join(" | ")).unwrap();
    }
    rs.push_str("        _ => 0,\n    }\n}\n");
    rs
}

fn ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::Parser::new().parse(pattern).expect("class pattern");
    match hir.kind() {
        HirKind::Class(Class::Unicode(c)) => {
            c.ranges().iter().map(|r| (r.start() as u32, r.end() as u32)).collect()
        }
        HirKind::Literal(lit) => {
            let c = std::str::from_utf8(&lit.0).expect("utf8").chars().next().expect("char") as u32;
            vec![(c, c)]
        }
        other => panic!("{pattern}: unexpected {other:?}"),
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
}
