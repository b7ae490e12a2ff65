//! The decoder on arbitrary text: an error is fine, a panic is not.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tokensieve::json::decode::decode(text);
    }
});
