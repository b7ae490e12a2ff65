//! The two vocabularies as static tables laid out by build.rs: token bytes to
//! rank through a minimal perfect hash, with no parsing or allocation at
//! start-up (the tables are read-only data in the binary).

use super::hash;

#[allow(dead_code)] // sizes are read by the tests
mod tables {
    include!(concat!(env!("OUT_DIR"), "/vocab_tables.rs"));
}
pub use tables::{ASCII_FLAGS, CLASS_ENDS, CLASS_FLAGS, CLASS_STARTS, fold_contraction};

static BLOB: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/tokens.bin"));

/// One vocabulary: the perfect hash over its tokens.
pub struct Vocab {
    seed: u64,
    /// u16 little-endian, one per bucket.
    pilots: &'static [u8],
    /// `hash::SLOT_BYTES` per slot, plus padding so any slot reads as a u64.
    slots: &'static [u8],
    buckets: usize,
    nslots: usize,
    /// Number of ordinary tokens (ranks are `0..tokens`); the table test
    /// checks every one has its slot.
    #[allow(dead_code)]
    tokens: usize,
}

pub static CL100K: Vocab = Vocab {
    seed: tables::CL100K_SEED,
    pilots: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.pilots")),
    slots: include_bytes!(concat!(env!("OUT_DIR"), "/cl100k.slots")),
    buckets: tables::CL100K_BUCKETS,
    nslots: tables::CL100K_SLOTS,
    tokens: tables::CL100K_TOKENS,
};

pub static O200K: Vocab = Vocab {
    seed: tables::O200K_SEED,
    pilots: include_bytes!(concat!(env!("OUT_DIR"), "/o200k.pilots")),
    slots: include_bytes!(concat!(env!("OUT_DIR"), "/o200k.slots")),
    buckets: tables::O200K_BUCKETS,
    nslots: tables::O200K_SLOTS,
    tokens: tables::O200K_TOKENS,
};

impl Vocab {
    /// The rank of the token whose bytes are exactly `key`, if there is one.
    #[inline]
    pub fn rank(&self, key: &[u8]) -> Option<u32> {
        self.rank_hashed(key, self.hash(key))
    }

    /// The key hash `rank_hashed` wants (callers that also memoise reuse it).
    #[inline(always)]
    pub fn hash(&self, key: &[u8]) -> u64 {
        hash::key_hash(key, self.seed)
    }

    /// `rank` with the key's hash already computed.
    #[inline]
    pub fn rank_hashed(&self, key: &[u8], h: u64) -> Option<u32> {
        let b = hash::bucket(h, self.buckets) * 2;
        let pilot = u16::from_le_bytes([self.pilots[b], self.pilots[b + 1]]);
        let s = self.slot(hash::slot(h, pilot, self.nslots));
        let len = (s >> hash::LEN_SHIFT) as usize & 0xff;
        if len != key.len() {
            return None;
        }
        let off = s as usize & ((1 << hash::OFF_BITS) - 1);
        if !hash::same_bytes(&BLOB[off..off + len], key) {
            return None;
        }
        Some((s >> hash::RANK_SHIFT) as u32 & ((1 << hash::RANK_BITS) - 1))
    }

    /// The packed slot `i` (see `hash::pack`).
    #[inline(always)]
    fn slot(&self, i: usize) -> u64 {
        let at = i * hash::SLOT_BYTES;
        let word: [u8; 8] = self.slots[at..at + 8].try_into().expect("8 bytes");
        u64::from_le_bytes(word) & ((1 << (8 * hash::SLOT_BYTES)) - 1)
    }

    /// Reads one byte per page of the tables so a later count takes no page
    /// faults (cheap; meant for a background thread).
    pub fn prefault(&self) {
        fn touch(bytes: &[u8]) {
            let mut acc = 0u8;
            for i in (0..bytes.len()).step_by(4096) {
                acc ^= bytes[i];
            }
            std::hint::black_box(acc);
        }
        touch(self.pilots);
        touch(self.slots);
        touch(BLOB);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_is_slice_equality() {
        let a: Vec<u8> = (0..40u8).collect();
        for n in 0..a.len() {
            assert!(hash::same_bytes(&a[..n], &a[..n]));
            for i in 0..n {
                let mut b = a[..n].to_vec();
                b[i] ^= 0x20;
                assert!(!hash::same_bytes(&a[..n], &b), "len {n}, byte {i}");
            }
        }
    }

    /// Every rank sits in exactly one slot, and the tables have the sizes
    /// build.rs announced.
    #[test]
    fn tables_are_a_perfect_hash_of_all_ranks() {
        for (v, buckets, slots) in [
            (&CL100K, tables::CL100K_BUCKETS, tables::CL100K_SLOTS),
            (&O200K, tables::O200K_BUCKETS, tables::O200K_SLOTS),
        ] {
            assert_eq!(v.pilots.len(), buckets * 2);
            assert_eq!(v.slots.len(), slots * hash::SLOT_BYTES + 8 - hash::SLOT_BYTES);
            let mut seen = vec![false; v.tokens];
            for s in (0..slots).map(|i| v.slot(i)).filter(|&s| s != 0) {
                let rank = (s >> hash::RANK_SHIFT) as usize & ((1 << hash::RANK_BITS) - 1);
                let off = s as usize & ((1 << hash::OFF_BITS) - 1);
                let len = (s >> hash::LEN_SHIFT) as usize & 0xff;
                assert!(!seen[rank], "rank {rank} twice");
                seen[rank] = true;
                assert!(off + len <= tables::BLOB_LEN);
                assert_eq!(v.rank(&BLOB[off..off + len]), Some(rank as u32));
            }
            assert!(seen.iter().all(|&s| s), "a rank has no slot");
        }
    }
}
