//! Byte-pair merging of one piece, as tiktoken does it, but only counting:
//! repeatedly merge the adjacent pair whose concatenation has the lowest rank
//! (leftmost on ties) until no adjacent pair is a token.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::vocab::Vocab;

const NONE: u32 = u32::MAX;

/// Pieces up to this many bytes use the quadratic scan on the stack (fast for
/// the short pieces that make up almost all text); longer ones a heap.
const SMALL: usize = 96;

/// Counts pieces. Tool output repeats the same pieces (keys, indentation,
/// punctuation, camel-case words that need several merges) over and over,
/// and the router counts several renderings of one document, so each
/// thread keeps a small direct-mapped memo of piece counts keyed by the exact
/// bytes, shared by every count it makes with one vocabulary. The memo is
/// checked before the vocabulary: it stays in L2 where the vocabulary's
/// lookups (a pilot, a slot and the token bytes, spread over ~1.5 MB) miss.
pub struct Counter<'v, 'm> {
    v: &'v Vocab,
    memo: Option<&'m mut [Memo]>,
}

const MEMO_SLOTS: usize = 4096;
const MEMO_BYTES: usize = 30;

#[derive(Clone, Copy)]
struct Memo {
    len: u8,
    count: u8,
    bytes: [u8; MEMO_BYTES],
}

/// Texts shorter than this are counted without the memo, so a process that
/// only counts a few short texts never allocates its 128 KB.
pub const MEMO_MIN_TEXT: usize = 2048;

/// This thread's memo and the vocabulary its counts belong to.
struct ThreadMemo {
    vocab: *const Vocab,
    slots: Box<[Memo]>,
}

thread_local! {
    static MEMO: RefCell<Option<ThreadMemo>> = const { RefCell::new(None) };
}

/// Runs `f` with a counter for `v`, using this thread's memo when `text_len`
/// is large enough to pay for it.
pub fn with_counter<R>(v: &Vocab, text_len: usize, f: impl FnOnce(&mut Counter) -> R) -> R {
    if text_len < MEMO_MIN_TEXT {
        return f(&mut Counter { v, memo: None });
    }
    MEMO.with_borrow_mut(|slot| {
        let memo = match slot {
            Some(m) if std::ptr::eq(m.vocab, v) => m,
            _ => slot.insert(ThreadMemo {
                vocab: v,
                slots: vec![Memo { len: 0, count: 0, bytes: [0; MEMO_BYTES] }; MEMO_SLOTS].into_boxed_slice(),
            }),
        };
        f(&mut Counter { v, memo: Some(&mut memo.slots) })
    })
}

impl Counter<'_, '_> {
    /// Number of tokens `piece` encodes to.
    #[inline]
    pub fn piece(&mut self, piece: &[u8]) -> usize {
        let n = piece.len();
        if n <= 1 {
            return n;
        }
        let h = self.v.hash(piece);
        let Some(memo) = self.memo.as_deref_mut().filter(|_| n <= MEMO_BYTES) else {
            return uncached(self.v, piece, h);
        };
        let m = &mut memo[(h >> 32) as usize % MEMO_SLOTS];
        if m.len as usize == n && super::hash::same_bytes(&m.bytes[..n], piece) {
            return m.count as usize;
        }
        let count = uncached(self.v, piece, h);
        m.len = n as u8;
        m.count = count as u8; // at most n <= MEMO_BYTES tokens
        m.bytes[..n].copy_from_slice(piece);
        count
    }
}

/// Tokens in a piece of two or more bytes whose key hash is `h`.
#[inline]
fn uncached(v: &Vocab, piece: &[u8], h: u64) -> usize {
    if v.rank_hashed(piece, h).is_some() {
        1
    } else if piece.len() > SMALL {
        count_large(v, piece)
    } else {
        count_small(v, piece)
    }
}

/// Number of tokens `piece` encodes to.
#[cfg(test)]
fn count_piece(v: &Vocab, piece: &[u8]) -> usize {
    with_counter(v, 0, |c| c.piece(piece))
}

#[inline]
fn rank_or_none(v: &Vocab, bytes: &[u8]) -> u32 {
    v.rank(bytes).unwrap_or(NONE)
}

/// tiktoken's `_byte_pair_merge`: `starts` holds the part boundaries (the last
/// one is the end of the piece), `ranks[i]` the rank of parts i and i+1 merged.
fn count_small(v: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len();
    let mut starts = [0u8; SMALL + 1];
    let mut ranks = [NONE; SMALL + 1];
    for (i, start) in starts[..=n].iter_mut().enumerate() {
        *start = i as u8;
    }
    for i in 0..n - 1 {
        ranks[i] = rank_or_none(v, &piece[i..i + 2]);
    }
    let mut len = n + 1;
    // Rank of part i merged with the part after it, were part i+1 gone.
    let merged = |starts: &[u8], len: usize, i: usize| -> u32 {
        if i + 3 < len { rank_or_none(v, &piece[starts[i] as usize..starts[i + 3] as usize]) } else { NONE }
    };
    loop {
        let (mut best, mut at) = (NONE, 0);
        for (i, &r) in ranks[..len - 1].iter().enumerate() {
            if r < best {
                best = r;
                at = i;
            }
        }
        if best == NONE {
            break;
        }
        if at > 0 {
            ranks[at - 1] = merged(&starts, len, at - 1);
        }
        ranks[at] = merged(&starts, len, at);
        starts.copy_within(at + 2..len, at + 1);
        ranks.copy_within(at + 2..len, at + 1);
        len -= 1;
    }
    len - 1
}

/// The same merge order with a heap of candidate merges (lowest rank, then
/// leftmost start), so long pieces (base64, long runs of one letter) stay
/// O(n log n). Parts are linked by their start byte.
fn count_large(v: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len();
    let mut end: Vec<usize> = (1..=n).collect();
    let mut prev: Vec<usize> = (0..n).map(|i| i.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    let mut rank = vec![NONE; n];
    let mut heap = BinaryHeap::with_capacity(n);
    for i in 0..n - 1 {
        rank[i] = rank_or_none(v, &piece[i..i + 2]);
        if rank[i] != NONE {
            heap.push(Reverse((rank[i], i)));
        }
    }
    let mut parts = n;
    while let Some(Reverse((r, i))) = heap.pop() {
        if !alive[i] || rank[i] != r {
            continue; // stale: the part changed since this was pushed
        }
        let j = end[i];
        let after = end[j];
        alive[j] = false;
        end[i] = after;
        parts -= 1;
        if after < n {
            prev[after] = i;
            rank[i] = rank_or_none(v, &piece[i..end[after]]);
            if rank[i] != NONE {
                heap.push(Reverse((rank[i], i)));
            }
        } else {
            rank[i] = NONE;
        }
        if i > 0 {
            let p = prev[i];
            rank[p] = rank_or_none(v, &piece[p..after]);
            if rank[p] != NONE {
                heap.push(Reverse((rank[p], p)));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auditor::vocab;

    #[test]
    fn memo_gives_the_same_counts() {
        let v = &vocab::CL100K;
        for _ in 0..3 {
            for p in
                ["DefaultEnaQueueCountPerInterface", "aGVsbG8gd29y", "NetworkPerformance", "xyzzyplugh", "ab"]
            {
                let memoised = with_counter(v, MEMO_MIN_TEXT, |c| c.piece(p.as_bytes()));
                assert_eq!(memoised, count_piece(v, p.as_bytes()), "{p}");
            }
        }
        assert!(count_piece(v, b"DefaultEnaQueueCountPerInterface") > 1);
    }

    #[test]
    fn memo_is_per_vocabulary() {
        let (cl, o) = (&vocab::CL100K, &vocab::O200K);
        let words =
            ["NetworkPerformance", "VolumeIdentifier", "InstanceTypeOffering", "xyzzyplugh", " Kubernetes"];
        let differing: Vec<&str> = words
            .into_iter()
            .filter(|w| count_piece(cl, w.as_bytes()) != count_piece(o, w.as_bytes()))
            .collect();
        assert!(!differing.is_empty(), "no test word counts differently in the two vocabularies");
        for w in differing {
            let p = w.as_bytes();
            // Fill this thread's memo with the cl100k count, then ask o200k.
            assert_eq!(with_counter(cl, MEMO_MIN_TEXT, |c| c.piece(p)), count_piece(cl, p));
            assert_eq!(with_counter(o, MEMO_MIN_TEXT, |c| c.piece(p)), count_piece(o, p), "{w}");
        }
    }

    #[test]
    fn small_and_large_paths_agree() {
        let v = &vocab::CL100K;
        let long = "aGVsbG8gd29ybGQhIHRoaXMgaXMgYmFzZTY0IGRhdGEgdGhhdCBnb2VzIG9uIGFuZCBvbiBhbmQgb24gYW5kIG9u";
        for end in 2..long.len() {
            let p = &long.as_bytes()[..end];
            if v.rank(p).is_none() {
                assert_eq!(count_small_or_large(v, p, true), count_small_or_large(v, p, false), "{end}");
            }
        }
    }

    fn count_small_or_large(v: &Vocab, p: &[u8], small: bool) -> usize {
        if small { count_small(v, p) } else { count_large(v, p) }
    }
}
