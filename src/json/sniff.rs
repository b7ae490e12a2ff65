//! JSON or text, from the first bytes of an output: the one sniff, taken
//! by the shim's capture as the bytes come (it decides how much to hold)
//! and handed down to `pipeline::route`, which takes it again only for
//! callers that never sniffed (filter mode, `fetch`, `show`).

use super::scrubber::{Escape, escape_at, strip_escapes};

/// After this much undecided output (whitespace, escapes), call it text.
pub const SNIFF_LIMIT: usize = 4096;

/// What the first bytes say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sniff {
    /// Only whitespace, a BOM or an unfinished escape so far.
    NeedMore,
    /// A valid JSON prefix (one value, or several: NDJSON).
    Json,
    Text,
    Binary,
}

pub fn sniff(buf: &[u8]) -> Sniff {
    let mut i = 0;
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    if buf.starts_with(BOM) {
        i = BOM.len();
    } else if BOM.starts_with(buf) {
        return Sniff::NeedMore;
    }
    while i < buf.len() {
        match buf[i] {
            0 => return Sniff::Binary,
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            0x1b => match escape_at(&buf[i..]) {
                Escape::Len(len) => i += len,
                Escape::Unfinished => return Sniff::NeedMore,
                Escape::NotOne => return Sniff::Text,
            },
            b'{' | b'[' => return json_prefix(&buf[i..]),
            _ => return Sniff::Text,
        }
    }
    Sniff::NeedMore
}

/// Whether `bytes` (starting at `{` or `[`) is JSON so far: every value
/// parses, the last may be cut off. `[+] Running` or `[INFO] ...` is text.
fn json_prefix(bytes: &[u8]) -> Sniff {
    if bytes.contains(&0) {
        return Sniff::Binary;
    }
    // Colour inside the document (`jq -C`, a coloured brace) is scrubbed
    // before the parse, as `json::parse` does.
    let bytes = strip_escapes(bytes);
    // An escape cut off by the end of what came so far is more to come.
    let end = match bytes.iter().rposition(|&b| b == 0x1b) {
        Some(at) if matches!(escape_at(&bytes[at..]), Escape::Unfinished) => at,
        _ => bytes.len(),
    };
    let stream = serde_json::Deserializer::from_slice(&bytes[..end]).into_iter::<serde_json::Value>();
    for item in stream {
        if let Err(e) = item {
            return if e.is_eof() { Sniff::Json } else { Sniff::Text };
        }
    }
    Sniff::Json
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffing_first_bytes() {
        assert_eq!(sniff(b""), Sniff::NeedMore);
        assert_eq!(sniff(b"  \n"), Sniff::NeedMore);
        assert_eq!(sniff(b"\xEF\xBB"), Sniff::NeedMore);
        assert_eq!(sniff(b"\xEF\xBB\xBF{\"a\""), Sniff::Json);
        assert_eq!(sniff(b"\n  [\n  {\"Vpcs\": [1, 2"), Sniff::Json);
        assert_eq!(sniff(b"{\"a\":1}\n{\"b\":2}\n{\"c\""), Sniff::Json);
        assert_eq!(sniff(b"\x1b[1;32m{\"a\": 1}"), Sniff::Json);
        assert_eq!(sniff(b"\x1b]0;title\x07[1]"), Sniff::Json);
        assert_eq!(sniff(b"\x1b[32m{\x1b[0m\"key\": 1, \"b\": \x1b[1;34m\"v\x1b[0m\"}"), Sniff::Json);
        assert_eq!(sniff(b"{\"a\": 1, \x1b[3"), Sniff::Json);
        assert_eq!(sniff(b"\x1b[1;3"), Sniff::NeedMore);
        assert_eq!(sniff(b"[+] Running 3/3"), Sniff::Text);
        assert_eq!(sniff(b"[INFO] starting"), Sniff::Text);
        assert_eq!(sniff(b"[2024-01-01 12:00] up"), Sniff::Text);
        assert_eq!(sniff(b"   Compiling foo"), Sniff::Text);
        assert_eq!(sniff(b"\x00\x01ELF"), Sniff::Binary);
    }

    #[test]
    fn a_prefix_cut_inside_a_character_or_an_escape_is_still_json() {
        // A read (or the route's 4 KiB) can end anywhere in the document.
        let doc = "{\"name\": \"caf\u{e9} \u{1F600}\", \"esc\": \"a\\u00e9b\", \"n\": -1.5e3}";
        for cut in 1..doc.len() {
            assert_eq!(
                sniff(&doc.as_bytes()[..cut]),
                Sniff::Json,
                "cut at {cut}: {:?}",
                &doc.as_bytes()[..cut]
            );
        }
    }

    mod properties {
        use proptest::prelude::*;
        use serde_json::Value;

        use super::super::{Sniff, sniff};

        fn json() -> impl Strategy<Value = Value> {
            let scalar = prop_oneof![
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(|n| Value::Number(n.into())),
                "[a-z é€😀\\\"\u{1b}]{0,12}".prop_map(Value::String),
                Just(Value::Null),
            ];
            scalar.prop_recursive(4, 48, 5, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                    prop::collection::vec(("[a-z]{1,6}", inner), 0..5)
                        .prop_map(|kv| Value::Object(kv.into_iter().collect())),
                ]
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            /// Any bytes: an answer, never a panic.
            #[test]
            fn any_bytes_get_an_answer(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
                let _ = sniff(&bytes);
            }

            /// Every prefix of a document (compact or pretty, coloured or
            /// not) that reaches its first bracket is JSON: a read, or the
            /// route's 4 KiB, can end anywhere.
            #[test]
            fn every_prefix_of_a_document_is_json(
                doc in prop::collection::vec(json(), 1..3).prop_map(Value::Array),
                pretty in any::<bool>(),
                colour in any::<bool>(),
            ) {
                let mut text = if pretty { serde_json::to_string_pretty(&doc) } else { serde_json::to_string(&doc) }.unwrap();
                let lead = if colour { "\u{1b}[1;39m" } else { "" };
                if colour {
                    text = text.replace(",", ",\u{1b}[0m").replace(": ", ": \u{1b}[32m");
                }
                let text = format!("{lead}{text}");
                let bytes = text.as_bytes();
                // Past the document's own opening bracket.
                let open = lead.len() + 1;
                for cut in open..=bytes.len() {
                    prop_assert_eq!(sniff(&bytes[..cut]), Sniff::Json, "{:?}", String::from_utf8_lossy(&bytes[..cut]));
                }
            }
        }
    }
}
