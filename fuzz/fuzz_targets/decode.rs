//! The decoder on arbitrary text (not only on encoder output): an error is
//! fine, a panic, a stack overflow or a huge allocation is not. What it
//! accepts is a JSON value that survives its own JSON text exactly, and
//! that every encoder writes back to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::json::{decode::decode, parse::value_exact, reduce, router};
use tokensieve::settings::Settings;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(value) = decode(text) else { return };
    let json = value.to_string();
    assert_eq!(value_exact(&json).expect("decode gave invalid JSON"), value, "{json}");
    let reduced = reduce(value, &Settings::default());
    for cand in router::candidates(&reduced) {
        let back = decode(&cand.text).unwrap_or_else(|e| panic!("{:?} does not decode: {e}\n{}", cand.shape, cand.text));
        assert_eq!(back, reduced, "{:?}:\n{}", cand.shape, cand.text);
    }
});
