//! The Git LFS batch-response reader on arbitrary bytes (a server's
//! answer): no panic; every answer it keeps names a sha256 (checked before
//! any slice); the only header it keeps is `Authorization`; text it keeps
//! for the terminal has no control characters.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::share::{lfs, manifest};

fuzz_target!(|data: &[u8]| {
    for operation in ["download", "upload"] {
        let Ok(answers) = lfs::parse_batch(data, operation) else { continue };
        for a in answers {
            assert!(manifest::is_sha256(&a.oid), "{:?}", a.oid);
            for (_, headers) in a.action.iter().chain(a.verify.iter()) {
                assert!(headers.iter().all(|(k, _)| k.eq_ignore_ascii_case("authorization")), "{headers:?}");
            }
            if let Some(e) = &a.error {
                assert!(!e.chars().any(char::is_control), "{e:?}");
            }
        }
    }
});
