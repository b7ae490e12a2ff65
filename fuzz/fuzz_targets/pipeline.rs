//! parse → sieve → dedup → every encoder → decode, on arbitrary bytes: no
//! panic anywhere, and every candidate decodes back to the deduped document.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::json::{decode::decode, parse, reduce, router};
use tokensieve::settings::{Dedup, Settings};

fuzz_target!(|data: &[u8]| {
    let Some(value) = parse(data) else { return };
    for aggressive in [false, true] {
        let reduced = reduce(value.clone(), &Settings { dedup: if aggressive { Dedup::Aggressive } else { Dedup::Default }, ..Settings::default() });
        for cand in router::candidates(&reduced) {
            let back = decode(&cand.text).unwrap_or_else(|e| panic!("{:?} does not decode: {e}\n{}", cand.shape, cand.text));
            assert_eq!(back, reduced, "{:?}:\n{}", cand.shape, cand.text);
        }
    }
});
