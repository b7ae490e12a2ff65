//! Stage 2: scrubbed text to one `Value`. A single document, or NDJSON /
//! concatenated documents (kubectl, docker `--format json`) as an array.
//! Anything else is "not JSON" and the caller falls through to text handling.

use std::collections::HashSet;

use serde_json::{Deserializer, Value};

use super::scrubber::scrub;

/// Parses `raw` as JSON. Only objects and arrays count: a bare scalar (a tool
/// printing `42`) is left to the text path untouched.
pub fn parse(raw: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(raw).ok()?;
    let text = scrub(text);
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let mut values = Vec::new();
    for item in Deserializer::from_str(&text).into_iter::<Value>() {
        values.push(item.ok()?);
    }
    // A parser keeps one of two equal keys and silently loses the other:
    // such input is not ours to rewrite.
    if has_duplicate_keys(text.as_bytes()) {
        return None;
    }
    match values.len() {
        0 => None,
        1 => values.pop(),
        _ => Some(Value::Array(values)),
    }
}

/// Objects with up to this many keys are checked by comparing each new key
/// with the earlier ones; bigger ones get a hash set (most objects are small,
/// and hashing every key cost more than the comparisons).
const LINEAR_KEYS: usize = 24;

/// One open object: where its keys start in the shared key stack, and its
/// set once it outgrows `LINEAR_KEYS`.
struct OpenObject<'a> {
    first: usize,
    set: Option<HashSet<&'a [u8]>>,
}

/// Whether any object in `json` (already known to be valid JSON) repeats a
/// key. Keys are compared as written, escapes and all.
fn has_duplicate_keys(json: &[u8]) -> bool {
    // One frame per open container (`None` for an array); the keys of all
    // open objects share one stack.
    let mut frames: Vec<Option<OpenObject>> = Vec::new();
    let mut keys: Vec<&[u8]> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'{' => {
                frames.push(Some(OpenObject { first: keys.len(), set: None }));
                expect_key = true;
            }
            b'[' => {
                frames.push(None);
                expect_key = false;
            }
            b'}' | b']' => {
                if let Some(Some(obj)) = frames.pop() {
                    keys.truncate(obj.first);
                }
                expect_key = false;
            }
            b',' => expect_key = matches!(frames.last(), Some(Some(_))),
            b'"' => {
                let start = i + 1;
                i = string_end(json, start);
                if expect_key {
                    if let Some(Some(obj)) = frames.last_mut()
                        && !insert_key(obj, &mut keys, &json[start..i.min(json.len())])
                    {
                        return true;
                    }
                    expect_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Index of the quote closing the string whose body starts at `i`.
fn string_end(json: &[u8], mut i: usize) -> usize {
    while let Some(off) = json[i.min(json.len())..].iter().position(|&b| b == b'"' || b == b'\\') {
        i += off;
        if json[i] == b'"' {
            return i;
        }
        i += 2; // an escape: skip the escaped byte
    }
    json.len()
}

/// Records `key` in `obj`; `false` if it was already there.
fn insert_key<'a>(obj: &mut OpenObject<'a>, keys: &mut Vec<&'a [u8]>, key: &'a [u8]) -> bool {
    if let Some(set) = &mut obj.set {
        return set.insert(key);
    }
    let own = &keys[obj.first..];
    if own.contains(&key) {
        return false;
    }
    if own.len() < LINEAR_KEYS {
        keys.push(key);
    } else {
        let mut set: HashSet<&[u8]> = keys.drain(obj.first..).collect();
        set.insert(key);
        obj.set = Some(set);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ndjson_becomes_a_list() {
        let v = parse(b"{\"a\":1}\n{\"a\":2}\n").unwrap();
        assert_eq!(v, json!([{"a": 1}, {"a": 2}]));
    }

    #[test]
    fn concatenated_values_become_a_list() {
        assert_eq!(parse(b"{\"a\":1}{\"b\":2}").unwrap(), json!([{"a": 1}, {"b": 2}]));
    }

    #[test]
    fn not_json_is_none() {
        for bad in [&b"hello"[..], b"42", b"{\"a\":", b"", b"\xff\xfe", b"{} trailing"] {
            assert!(parse(bad).is_none(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn ten_thousand_deep_does_not_panic() {
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert!(parse(deep.as_bytes()).is_none());
    }

    #[test]
    fn duplicate_keys_are_not_rewritten() {
        assert!(parse(br#"{"a": 1, "b": {"c": 1, "c": 2}}"#).is_none());
        assert!(parse(br#"{"a": 1, "a": 1}"#).is_none());
        // Same key in sibling objects, or as a value, is fine.
        assert!(parse(br#"[{"a": 1}, {"a": 2}, {"b": "a", "a": "a\"b"}]"#).is_some());
    }

    #[test]
    fn duplicate_keys_in_big_and_nested_objects() {
        // Past LINEAR_KEYS the keys move to a set: a repeat is still found,
        // and the parent's keys are untouched by a child's.
        let many: Vec<String> = (0..100).map(|i| format!("\"k{i}\": {i}")).collect();
        let big = format!("{{{}}}", many.join(", "));
        assert!(parse(big.as_bytes()).is_some());
        let repeat = format!("{{{}, \"k7\": 0}}", many.join(", "));
        assert!(parse(repeat.as_bytes()).is_none());
        let nested = format!("{{\"a\": 1, \"o\": {big}, \"b\": [{big}, {{\"a\": 2}}], \"k1\": 3}}");
        assert!(parse(nested.as_bytes()).is_some());
        assert!(parse(format!("{{\"a\": 1, \"o\": {big}, \"a\": 2}}").as_bytes()).is_none());
        // Escapes are skipped: a key holding an escaped quote is one key.
        assert!(parse(br#"{"a\"b": 1, "a": 2, "a\\": 3}"#).is_some());
        assert!(parse(br#"{"a\"b": 1, "a\"b": 2}"#).is_none());
    }

    #[test]
    fn big_integers_stay_exact() {
        let v = parse(b"{\"n\": 123456789012345678901234567890}").unwrap();
        assert_eq!(v["n"].to_string(), "123456789012345678901234567890");
    }

    #[test]
    fn key_order_is_the_tools() {
        let v = parse(b"{\"z\":1,\"a\":2}").unwrap();
        assert_eq!(v.to_string(), "{\"z\":1,\"a\":2}");
    }
}
