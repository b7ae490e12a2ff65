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

/// Whether any object in `json` (already known to be valid JSON) repeats a
/// key. Keys are compared as written, escapes and all.
fn has_duplicate_keys(json: &[u8]) -> bool {
    // One frame per open container: `Some(keys)` for an object.
    let mut stack: Vec<Option<HashSet<&[u8]>>> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'{' => {
                stack.push(Some(HashSet::new()));
                expect_key = true;
            }
            b'[' => {
                stack.push(None);
                expect_key = false;
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
            }
            b',' => expect_key = matches!(stack.last(), Some(Some(_))),
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < json.len() && json[i] != b'"' {
                    i += if json[i] == b'\\' { 2 } else { 1 };
                }
                if expect_key {
                    if let Some(Some(keys)) = stack.last_mut()
                        && !keys.insert(&json[start..i.min(json.len())])
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
