//! The hashes behind the static vocabulary tables. build.rs includes this very
//! file to lay the tables out, and the auditor uses it to look tokens up, so
//! both sides agree bit for bit by construction.
//!
//! The tables are a minimal perfect hash (PTHash style): a key's hash picks a
//! bucket, the bucket's pilot number picks the key's slot. One pilot read and
//! one slot read per lookup; the slot's token bytes are compared with the
//! key, so membership is exact.

/// Final avalanche of MurmurHash3: every input bit affects every output bit.
#[inline(always)]
pub fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

const K: u64 = 0x9e37_79b9_7f4a_7c15;

/// Hash of a token's bytes (tokens are 1..=255 bytes, mostly under 8).
#[inline(always)]
pub fn key_hash(bytes: &[u8], seed: u64) -> u64 {
    let n = bytes.len();
    let mut h = seed ^ (n as u64).wrapping_mul(K);
    let mut rest = bytes;
    while rest.len() >= 8 {
        let (word, tail) = rest.split_at(8);
        let w = u64::from_le_bytes([word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7]]);
        h = (h ^ w).wrapping_mul(K).rotate_left(31);
        rest = tail;
    }
    // The last 1..=7 bytes in one word: two overlapping reads cover them all.
    let r = rest.len();
    let w = if r >= 4 {
        let lo = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as u64;
        let hi = u32::from_le_bytes([rest[r - 4], rest[r - 3], rest[r - 2], rest[r - 1]]) as u64;
        lo | (hi << 32)
    } else if r > 0 {
        rest[0] as u64 | (rest[r / 2] as u64) << 8 | (rest[r - 1] as u64) << 16
    } else {
        0
    };
    fmix64((h ^ w).wrapping_mul(K))
}

/// `a == b` for slices of equal length, without a `memcmp` call: token
/// compares are short (mostly under 8 bytes) and run once per piece.
#[allow(dead_code)] // the runtime's; build.rs includes this file too
#[inline(always)]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    debug_assert_eq!(n, b.len());
    let w8 = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let w4 = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if w8(a, i) != w8(b, i) {
                return false;
            }
            i += 8;
        }
        w8(a, n - 8) == w8(b, n - 8)
    } else if n >= 4 {
        w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4)
    } else {
        n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1])
    }
}

/// `x` scaled into `0..n` without a division (Lemire's fast range).
#[inline(always)]
pub fn fastrange(x: u64, n: usize) -> usize {
    ((x as u128 * n as u128) >> 64) as usize
}

/// Which bucket a key hash falls in.
#[inline(always)]
pub fn bucket(h: u64, buckets: usize) -> usize {
    fastrange(h, buckets)
}

/// Which slot a key hash lands on, given its bucket's pilot.
#[inline(always)]
pub fn slot(h: u64, pilot: u16, slots: usize) -> usize {
    fastrange(fmix64(h ^ (pilot as u64 + 1).wrapping_mul(K)), slots)
}

/// Slot layout, 6 bytes little-endian: byte offset of the token in the
/// shared blob (22 bits), its length (8 bits), its rank (18 bits). Zero =
/// empty (no token has length 0). Unknown keys are rejected by the length,
/// then by the bytes.
pub const SLOT_BYTES: usize = 6;
pub const OFF_BITS: u32 = 22;
pub const LEN_SHIFT: u32 = 22;
pub const RANK_SHIFT: u32 = 30;
pub const RANK_BITS: u32 = 18;

#[allow(dead_code)] // build.rs packs, the runtime only unpacks
#[inline(always)]
pub fn pack(off: usize, len: usize, rank: u32) -> u64 {
    off as u64 | (len as u64) << LEN_SHIFT | (rank as u64) << RANK_SHIFT
}
