//! Stage 2: scrubbed text to one `Value`. A single document, or NDJSON /
//! concatenated documents (kubectl, docker `--format json`) as an array.
//! Anything else is "not JSON" and the caller falls through to text handling.

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
    match values.len() {
        0 => None,
        1 => values.pop(),
        _ => Some(Value::Array(values)),
    }
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
