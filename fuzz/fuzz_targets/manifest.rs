//! The manifest reader on arbitrary bytes (a manifest comes from a remote):
//! no panic, and what it accepts names a sha256 (64 lowercase hex digits,
//! so every slice of it is safe), survives its own file bytes, and merges
//! with itself into itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::share::manifest::{self, Manifest};

fuzz_target!(|data: &[u8]| {
    let Some(m) = Manifest::parse(data) else { return };
    assert!(manifest::is_sha256(&m.sha256), "{:?}", m.sha256);
    assert_eq!(manifest::sha256_of_path(&m.path()), Some(m.sha256.as_str()));
    let again = Manifest::parse(&m.bytes()).expect("a manifest reads its own bytes");
    assert_eq!(again, m);
    let merged = manifest::merge(&m, &m);
    assert_eq!((merged.sha256.as_str(), merged.size), (m.sha256.as_str(), m.size));
});
