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
    /// It holds a shared memo's pieces (`SEED`), or none was shared yet
    /// when it was made (`SEEDS` tells when one is).
    seeded: bool,
}

thread_local! {
    static MEMO: RefCell<Option<ThreadMemo>> = const { RefCell::new(None) };
}

/// A copy of the memo of a thread that counted a call's raw output
/// (`share_memo`): a thread that starts counting afterwards begins with it
/// instead of an empty one. Renderings of a document are made of its own
/// keys and values, so most of their pieces are found there; a rendering
/// counted on a fresh thread (`pipeline`'s gate beside the rendering) would
/// otherwise merge each of them again. Only speed depends on it: a slot
/// answers for its exact bytes.
static SEED: std::sync::Mutex<Option<(usize, Box<[Memo]>)>> = std::sync::Mutex::new(None);

/// Hands this thread's memo for `v` (if it has one) over to threads whose
/// first count comes later (`SEED`): the caller counts no more (a count
/// after it starts from the shared copy, as any thread's would), so the
/// memo is moved, not copied (128 KB on every call).
pub fn share_memo(v: &Vocab) {
    MEMO.with_borrow_mut(|slot| {
        if slot.as_ref().is_some_and(|m| std::ptr::eq(m.vocab, v))
            && let Ok(mut seed) = SEED.lock()
            && let Some(m) = slot.take()
        {
            *seed = Some((v as *const Vocab as usize, m.slots));
            SEEDS.fetch_add(1, std::sync::atomic::Ordering::Release);
        }
    })
}

/// How many memos were shared (`share_memo`): a thread whose memo was made
/// before the first takes the shared pieces in at its next count (`adopt`).
static SEEDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A new memo for `v`: a copy of the shared one, or an empty one.
fn new_memo(v: &Vocab) -> ThreadMemo {
    let seeded = SEED.lock().ok().and_then(|seed| {
        seed.as_ref().filter(|(of, _)| *of == v as *const Vocab as usize).map(|(_, slots)| slots.clone())
    });
    ThreadMemo { vocab: v, seeded: seeded.is_some(), slots: seeded.unwrap_or_else(empty_slots) }
}

/// A memo's slots, all empty.
fn empty_slots() -> Box<[Memo]> {
    vec![Memo { len: 0, count: 0, bytes: [0; MEMO_BYTES] }; MEMO_SLOTS].into_boxed_slice()
}

/// Fills the empty slots of a memo made before any was shared with the
/// shared one's pieces (the slots it filled itself stay).
fn adopt(memo: &mut ThreadMemo) {
    memo.seeded = true;
    let Ok(seed) = SEED.lock() else { return };
    let Some((_, shared)) = seed.as_ref().filter(|(of, _)| *of == memo.vocab as usize) else { return };
    for (mine, theirs) in memo.slots.iter_mut().zip(shared.iter()) {
        if mine.len == 0 {
            *mine = *theirs;
        }
    }
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
            _ => slot.insert(new_memo(v)),
        };
        if !memo.seeded && SEEDS.load(std::sync::atomic::Ordering::Acquire) > 0 {
            adopt(memo);
        }
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
        count_long(v, piece)
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

/// Pieces up to this many bytes are merged in one run; longer ones (a
/// megabyte of letters is one piece) in chunks of about `CHUNK` bytes, so
/// the work stays in cache and the memory small.
const CHUNK: usize = 4096;
/// Chunks whose cuts do not hold are merged; past this size the piece is
/// counted in one run after all (an input built to defeat every cut).
const MAX_UNION: usize = 1 << 20;
/// Chunks kept (with what a re-check of their right cut needs) before their
/// count is final.
const KEEP: usize = 16;

/// Tokens in a piece longer than `SMALL`: tiktoken's merge order exactly.
fn count_long(v: &Vocab, piece: &[u8]) -> usize {
    count_chunked(v, piece, CHUNK)
}

/// Counts `piece` in chunks of about `chunk` bytes. Each chunk is merged on
/// its own; a cut between two chunks is kept only when `cut_holds` proves
/// the whole piece's merge order never merges across it, so the sum of the
/// chunks' counts is the count of the whole. A cut that does not hold
/// joins its two chunks (and the joined chunk is checked against its left
/// neighbour again).
fn count_chunked(v: &Vocab, piece: &[u8], chunk: usize) -> usize {
    let n = piece.len();
    if n <= 2 * chunk {
        return heap_merge(&mut |b| rank_or_none(v, b), piece, |_, _, _| {}).0;
    }
    let mut cache = RankCache::new();
    let cache = &mut |b: &[u8]| cache.rank(v, b);
    let whole = |cache: &mut dyn FnMut(&[u8]) -> u32| heap_merge(&mut |b| cache(b), piece, |_, _, _| {}).0;
    let mut final_parts = 0;
    let mut finalized = false;
    let mut pending: Vec<Chunk> = Vec::new();
    let mut start = 0;
    while start < n {
        let end = if n - start <= chunk * 3 / 2 { n } else { cut_near(cache, piece, start + chunk) };
        let (mut cur, mut head) = Chunk::merge(cache, piece, start, end);
        loop {
            let Some(prev) = pending.last() else {
                if finalized {
                    // The left neighbour's record is gone: no proof possible.
                    return whole(cache);
                }
                break;
            };
            if cut_holds(cache, piece, &prev.tail, &head, cur.start) {
                break;
            }
            let prev = pending.pop().expect("checked above");
            (cur, head) = Chunk::merge(cache, piece, prev.start, cur.end);
            if cur.end - cur.start > MAX_UNION {
                return whole(cache);
            }
        }
        start = cur.end;
        pending.push(cur);
        if pending.len() > KEEP {
            final_parts += pending.remove(0).parts;
            finalized = true;
        }
    }
    final_parts + pending.iter().map(|c| c.parts).sum::<usize>()
}

/// One merged chunk `start..end` of a piece: its token count and what the
/// check of the cut at its end needs.
struct Chunk {
    start: usize,
    end: usize,
    parts: usize,
    tail: Side,
}

/// One side of a cut: the rank of every merge of its chunk in order, and
/// each time the part touching the cut grew: `(merges done, its far end)`.
#[derive(Default)]
struct Side {
    ranks: Vec<u32>,
    changes: Vec<(u32, u32)>,
}

impl Chunk {
    /// Merges `piece[start..end]`; returns the chunk and its head side
    /// (positions absolute in `piece`).
    fn merge(
        rank_of: &mut impl FnMut(&[u8]) -> u32,
        piece: &[u8],
        start: usize,
        end: usize,
    ) -> (Chunk, Side) {
        let len = end - start;
        let mut ranks = Vec::with_capacity(len);
        let (mut head, mut tail_changes) = (Vec::new(), Vec::new());
        let (parts, _) = heap_merge(rank_of, &piece[start..end], |rank, left, merged_end| {
            ranks.push(rank);
            let done = ranks.len() as u32;
            if left == 0 {
                head.push((done, (start + merged_end) as u32));
            }
            if merged_end == len {
                tail_changes.push((done, (start + left) as u32));
            }
        });
        let head = Side { ranks: ranks.clone(), changes: head };
        (Chunk { start, end, parts, tail: Side { ranks, changes: tail_changes } }, head)
    }
}

/// Whether, merging the whole piece in tiktoken's order, the last part of
/// the left chunk and the first part of the right chunk (meeting at `at`)
/// are never merged with each other. Until they are, the whole piece's
/// merges are exactly both chunks' merges interleaved by rank (ties to the
/// left, as tiktoken picks the leftmost), so replaying that interleaving
/// and asking at each step whether the pair across the cut would be the
/// next merge decides it exactly.
fn cut_holds(
    rank_of: &mut impl FnMut(&[u8]) -> u32,
    piece: &[u8],
    left: &Side,
    right: &Side,
    at: usize,
) -> bool {
    let (mut l, mut r) = (Replay::new(left, at - 1), Replay::new(right, at + 1));
    let mut across = rank_of(&piece[l.edge..r.edge]);
    loop {
        let (a, b) = (l.next_rank(), r.next_rank());
        // The pair across is left of every right pair and right of every left one.
        if across != NONE && across < a && across <= b {
            return false;
        }
        if a == NONE && b == NONE {
            return true;
        }
        let moved = if a <= b { l.step() } else { r.step() };
        if moved {
            across = rank_of(&piece[l.edge..r.edge]);
        }
    }
}

/// One side's merges replayed in order, and the far end of its part at the cut.
struct Replay<'s> {
    side: &'s Side,
    done: usize,
    change: usize,
    edge: usize,
}

impl<'s> Replay<'s> {
    fn new(side: &'s Side, edge: usize) -> Self {
        Replay { side, done: 0, change: 0, edge }
    }

    /// The rank of the next merge (`NONE` when there is none).
    fn next_rank(&self) -> u32 {
        self.side.ranks.get(self.done).copied().unwrap_or(NONE)
    }

    /// Does the next merge; whether it grew the part at the cut.
    fn step(&mut self) -> bool {
        self.done += 1;
        match self.side.changes.get(self.change) {
            Some(&(step, edge)) if step as usize == self.done => {
                self.edge = edge as usize;
                self.change += 1;
                true
            }
            _ => false,
        }
    }
}

/// A cut near `target` where a small run around it ends a token: most
/// likely where the whole piece's merges end one too, so `cut_holds` rarely
/// has to reject it.
fn cut_near(rank_of: &mut impl FnMut(&[u8]) -> u32, piece: &[u8], target: usize) -> usize {
    const SIDE: usize = 64;
    let (from, to) = (target.saturating_sub(SIDE), (target + SIDE).min(piece.len()));
    let (_, ends) = heap_merge(rank_of, &piece[from..to], |_, _, _| {});
    let mut best: Option<usize> = None;
    let mut at = ends.first().map_or(usize::MAX, |&e| e as usize);
    while at < ends.len() {
        let cut = from + at;
        if best.is_none_or(|b| cut.abs_diff(target) < b.abs_diff(target)) {
            best = Some(cut);
        }
        at = ends[at] as usize;
    }
    best.unwrap_or(target)
}

/// Ranks of keys up to 8 bytes, direct-mapped, in front of the vocabulary
/// for one long piece: its chunks look the same short byte strings up over
/// and over, and each vocabulary miss costs two cache misses.
struct RankCache {
    slots: Vec<(u64, u32)>,
}

const RANK_CACHE_SLOTS: usize = 1 << 14;

impl RankCache {
    fn new() -> RankCache {
        RankCache { slots: vec![(0, 0); RANK_CACHE_SLOTS] }
    }

    #[inline]
    fn rank(&mut self, v: &Vocab, bytes: &[u8]) -> u32 {
        if bytes.len() > 7 {
            return rank_or_none(v, bytes);
        }
        // The bytes and their length in one word (never 0: the length is >= 2).
        let mut key = bytes.len() as u64;
        for &b in bytes {
            key = (key << 8) | u64::from(b);
        }
        let slot = &mut self.slots[(key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 50) as usize];
        if slot.0 == key {
            return slot.1;
        }
        let r = rank_or_none(v, bytes);
        *slot = (key, r);
        r
    }
}

/// tiktoken's merge order with a heap of candidate merges (lowest rank,
/// then leftmost start), O(n log n). `on_merge(rank, left, merged_end)` is
/// told each merge: the part at `left` absorbed the next one and now ends
/// at `merged_end`. Returns the number of parts and, per part start, its
/// end (parts linked from 0). 20 bytes per input byte, so long pieces go
/// through `count_chunked`.
fn heap_merge(
    rank_of: &mut impl FnMut(&[u8]) -> u32,
    piece: &[u8],
    mut on_merge: impl FnMut(u32, usize, usize),
) -> (usize, Vec<u32>) {
    let n = piece.len();
    let mut end: Vec<u32> = (1..=n as u32).collect();
    let mut prev: Vec<u32> = (0..n as u32).map(|i| i.wrapping_sub(1)).collect();
    let mut rank = vec![NONE; n];
    // (rank, start) packed so the smallest key is the lowest rank, leftmost.
    let key = |r: u32, i: usize| Reverse((u64::from(r) << 32) | i as u64);
    let mut heap = BinaryHeap::new();
    for i in 0..n.saturating_sub(1) {
        rank[i] = rank_of(&piece[i..i + 2]);
        if rank[i] != NONE {
            heap.push(key(rank[i], i));
        }
    }
    let mut parts = n;
    while let Some(Reverse(k)) = heap.pop() {
        let (r, i) = ((k >> 32) as u32, (k & 0xffff_ffff) as usize);
        if rank[i] != r || end[i] == 0 {
            continue; // stale: the part changed since this was pushed
        }
        let j = end[i] as usize;
        let after = end[j] as usize;
        end[j] = 0; // j is gone
        end[i] = after as u32;
        parts -= 1;
        on_merge(r, i, after);
        if after < n {
            prev[after] = i as u32;
            rank[i] = rank_of(&piece[i..end[after] as usize]);
            if rank[i] != NONE {
                heap.push(key(rank[i], i));
            }
        } else {
            rank[i] = NONE;
        }
        if i > 0 {
            let p = prev[i] as usize;
            rank[p] = rank_of(&piece[p..after]);
            if rank[p] != NONE {
                heap.push(key(rank[p], p));
            }
        }
    }
    (parts, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auditor::vocab;

    #[test]
    fn a_new_thread_starts_with_the_shared_memo() {
        let v = &vocab::CL100K;
        const PIECE: &[u8] = b"QuuxFrobnicatorWidgetKey";
        let piece = PIECE;
        let holds = move |slots: &[Memo]| {
            let m = &slots[(v.hash(piece) >> 32) as usize % MEMO_SLOTS];
            &m.bytes[..m.len as usize] == piece
        };
        assert!(!holds(&empty_slots()));
        // Another test's delivery may share its own memo in between: a few
        // tries (without sharing, none holds the piece).
        let shared = (0..5).any(|_| {
            std::thread::spawn(move || {
                with_counter(v, MEMO_MIN_TEXT, |c| c.piece(piece));
                share_memo(v);
                std::thread::spawn(move || holds(&new_memo(v).slots)).join().unwrap()
            })
            .join()
            .unwrap()
        });
        assert!(shared);
    }

    #[test]
    fn a_memo_made_before_any_was_shared_takes_the_shared_pieces_in() {
        let v = &vocab::CL100K;
        const SHARED: &[u8] = b"ZorblaxQuantumWidgetKey";
        let slot_of = |piece: &[u8]| (v.hash(piece) >> 32) as usize % MEMO_SLOTS;
        let holds = |slots: &[Memo], piece: &[u8]| {
            let m = &slots[slot_of(piece)];
            &m.bytes[..m.len as usize] == piece
        };
        // A slot this thread filled itself, in the shared piece's slot.
        let mine = Memo { len: 2, count: 1, bytes: [b'q'; MEMO_BYTES] };
        // Another test's delivery may share its own memo in between: a few tries.
        let adopted = (0..5).any(|_| {
            std::thread::spawn(move || {
                with_counter(v, MEMO_MIN_TEXT, |c| c.piece(SHARED));
                share_memo(v);
            })
            .join()
            .unwrap();
            let mut memo = ThreadMemo { vocab: v, slots: empty_slots(), seeded: false };
            let other = (slot_of(SHARED) + 1) % MEMO_SLOTS;
            memo.slots[other] = mine;
            adopt(&mut memo);
            assert!(memo.seeded);
            assert_eq!(memo.slots[other].bytes, mine.bytes, "its own slot stays");
            holds(&memo.slots, SHARED)
        });
        assert!(adopted);
    }

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

    /// Pieces that stress the cuts: random letters from alphabets of 2 to
    /// 26, periodic runs of every period up to 7, one letter repeated,
    /// spaces, punctuation, multi-byte letters.
    fn long_pieces(seed: u64) -> Vec<Vec<u8>> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut out = Vec::new();
        for alphabet in [2u64, 3, 5, 26] {
            let len = 3000 + (next() % 3000) as usize;
            out.push((0..len).map(|_| b'a' + (next() % alphabet) as u8).collect());
        }
        for period in 1..=7 {
            let unit: Vec<u8> = (0..period).map(|_| b'a' + (next() % 26) as u8).collect();
            out.push(unit.iter().copied().cycle().take(2500 + (next() % 2500) as usize).collect());
        }
        out.push(vec![b' '; 4000 + (next() % 500) as usize]);
        out.push((0..4000).map(|_| b"=-_*#."[(next() % 6) as usize]).collect());
        let cyr: Vec<char> = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя".chars().collect();
        let s: String = (0..2000).map(|_| cyr[(next() % cyr.len() as u64) as usize]).collect();
        out.push(s.into_bytes());
        out
    }

    #[test]
    fn chunked_counts_equal_one_run_over_the_whole_piece() {
        for v in [&vocab::CL100K, &vocab::O200K] {
            for seed in 1..=4 {
                for p in long_pieces(seed) {
                    let whole = heap_merge(&mut |b| rank_or_none(v, b), &p, |_, _, _| {}).0;
                    for chunk in [130, 257, 1000] {
                        assert_eq!(
                            count_chunked(v, &p, chunk),
                            whole,
                            "seed {seed}, chunk {chunk}, {:?}",
                            String::from_utf8_lossy(&p[..40])
                        );
                    }
                }
            }
        }
    }

    fn count_small_or_large(v: &Vocab, p: &[u8], small: bool) -> usize {
        if small { count_small(v, p) } else { heap_merge(&mut |b| rank_or_none(v, b), p, |_, _, _| {}).0 }
    }
}
