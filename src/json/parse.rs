//! Stage 2: scrubbed text to one `Value`. A single document, or NDJSON /
//! concatenated documents (kubectl, docker `--format json`) as an array.
//! Anything else is "not JSON" and the caller falls through to text handling.
//! From 64 KB on, `check` (repeated keys, numbers as written) reads the text
//! on a thread of its own while serde_json parses it.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Deserializer, Value};

use super::literal::RESERVED_KEY;
use super::scrubber::scrub;

/// Parses `raw` as JSON. Only objects and arrays count: a bare scalar (a tool
/// printing `42`) is left to the text path untouched.
pub fn parse(raw: &[u8]) -> Option<Value> {
    parse_text(std::str::from_utf8(raw).ok()?)
}

/// `parse` for text already known to be UTF-8 (the pipeline validated it).
pub fn parse_text(text: &str) -> Option<Value> {
    let text = scrub(text);
    if !opens_container(&text) {
        return None;
    }
    let read = || read_values(Deserializer::from_str(&text));
    if text.len() < CHECK_BESIDE {
        let values = read()?;
        return finish(values, &check(text.as_bytes()));
    }
    // `check` reads the text apart from the parser: on the other core.
    let (checked, values) = crate::threads::both(|| check(text.as_bytes()), read);
    finish(values?, &checked)
}

/// From this size on `parse_text` runs `check` on a thread of its own
/// beside the parser: it is ~a quarter of the parse (2.9 of 10.7 M
/// instructions on 200 KB of AWS JSON), a thread costs tens of µs.
const CHECK_BESIDE: usize = 64 * 1024;

/// Whether `raw` is text the parser reads exactly as it is (UTF-8, nothing
/// for the scrubber to remove) and could be JSON: such bytes can be parsed
/// from a copy on disk (`parse_reader`) once `check` has read them.
pub fn readable_as_is(text: &str) -> bool {
    matches!(scrub(text), Cow::Borrowed(t) if t.len() == text.len()) && opens_container(text)
}

/// The documents of bytes `readable_as_is` accepted, read from `reader` (a
/// copy of them); `finish` with what `check` found in the bytes makes them
/// what `parse` gives.
pub fn documents_from(reader: impl std::io::Read) -> Option<Vec<Value>> {
    read_values(Deserializer::from_reader(std::io::BufReader::new(reader)))
}

fn opens_container(text: &str) -> bool {
    let trimmed = text.trim_start();
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

/// Every document of the input (one, or NDJSON / concatenated ones).
fn read_values<'de, R: serde_json::de::Read<'de>>(de: Deserializer<R>) -> Option<Vec<Value>> {
    de.into_iter::<Tight>().map(|item| item.ok().map(|t| t.0)).collect()
}

/// What the documents' text says that their tree does not: a repeated key,
/// the reserved key, numbers serde_json writes its own way.
pub struct Checked {
    scan: Scan,
    /// Every number literal in document order, when some must be restored.
    numbers: Option<Vec<String>>,
}

/// Reads `json` (valid JSON text, or `finish` refuses the parse anyway) for
/// what `finish` needs.
pub fn check(json: &[u8]) -> Checked {
    let scan = scan(json);
    let numbers = scan.rewritten_number.then(|| {
        number_literals(json).into_iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect()
    });
    Checked { scan, numbers }
}

/// The parsed documents as one value, unless their text repeats a key.
pub fn finish(mut values: Vec<Value>, checked: &Checked) -> Option<Value> {
    // A parser keeps one of two equal keys and silently loses the other:
    // such input is not ours to rewrite.
    if checked.scan.duplicate_key || checked.scan.reserved_key {
        return None;
    }
    if let Some(numbers) = &checked.numbers {
        restore_numbers(&mut values, numbers);
    }
    match values.len() {
        0 => None,
        1 => values.pop(),
        _ => Some(Value::Array(values)),
    }
}

/// A `Value` whose objects and arrays hold exactly their elements.
/// serde_json grows each map as keys arrive (an object of 1 key keeps room
/// for 3, one of 20 room for 28), which left minified JSON at ~13x its
/// size in memory; collecting each container first and building it at its
/// size hands the slack back to the allocator before the next one
/// (docs/performance.md, "single-line inputs").
struct Tight(Value);

impl<'de> serde::Deserialize<'de> for Tight {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TightVisitor).map(Tight)
    }
}

struct TightVisitor;

impl<'de> serde::de::Visitor<'de> for TightVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::from(n))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Tight(v)) = seq.next_element()? {
            items.push(v);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Some(first) = map.next_key::<String>()? else { return Ok(Value::Object(Default::default())) };
        // serde_json hands an exact number (feature arbitrary_precision)
        // over as a map of this one key.
        if first == RESERVED_KEY {
            let text: String = map.next_value()?;
            return text.parse().map(Value::Number).map_err(serde::de::Error::custom);
        }
        let Tight(v) = map.next_value()?;
        let mut entries = vec![(first, v)];
        while let Some((k, Tight(v))) = map.next_entry()? {
            entries.push((k, v));
        }
        // Repeated keys: the last wins, as in serde_json (`parse` refuses
        // such documents anyway).
        let mut m = serde_json::Map::with_capacity(entries.len());
        for (k, v) in entries {
            m.insert(k, v);
        }
        Ok(Value::Object(m))
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

/// One JSON value with every number exactly as written: serde_json's
/// parser writes exponents its own way (`1E+2` → `1e+2`, `1e400` →
/// `1e+400`), which `restore_numbers` undoes. Repeated keys are allowed
/// (the last wins), as in serde_json.
pub fn value_exact(text: &str) -> anyhow::Result<Value> {
    let mut v: Value = serde_json::from_str(text)?;
    let scan = scan(text.as_bytes());
    if scan.reserved_key {
        anyhow::bail!("the key {RESERVED_KEY:?} is reserved by the JSON library");
    }
    if scan.rewritten_number {
        let numbers = number_literals(text.as_bytes());
        restore_numbers(std::slice::from_mut(&mut v), &numbers);
    }
    Ok(v)
}

/// What one pass over valid JSON text found.
struct Scan {
    /// Some object repeats a key (compared as written, escapes and all).
    duplicate_key: bool,
    /// Some number has an exponent serde_json writes differently (`E`, or
    /// no sign after the `e`).
    rewritten_number: bool,
    /// Some key is `RESERVED_KEY` (serde_json read that object as a number).
    reserved_key: bool,
}

fn scan(json: &[u8]) -> Scan {
    // One frame per open container (`None` for an array); the keys of all
    // open objects share one stack.
    let mut frames: Vec<Option<OpenObject>> = Vec::new();
    let mut keys: Vec<&[u8]> = Vec::new();
    let mut expect_key = false;
    let mut rewritten_number = false;
    let mut reserved_key = false;
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
                    let key = &json[start..i.min(json.len())];
                    reserved_key |= is_reserved(key);
                    if let Some(Some(obj)) = frames.last_mut()
                        && !insert_key(obj, &mut keys, key)
                    {
                        return Scan { duplicate_key: true, rewritten_number, reserved_key };
                    }
                    expect_key = false;
                }
            }
            // Outside strings an `e` after a digit is an exponent (in `true`
            // and `false` it follows a letter).
            b'E' if i > 0 && json[i - 1].is_ascii_digit() => rewritten_number = true,
            b'e' if i > 0
                && json[i - 1].is_ascii_digit()
                && json.get(i + 1).is_some_and(u8::is_ascii_digit) =>
            {
                rewritten_number = true
            }
            _ => {}
        }
        i += 1;
    }
    Scan { duplicate_key: false, rewritten_number, reserved_key }
}

/// Whether a key as written (escapes and all) is `RESERVED_KEY`.
fn is_reserved(key: &[u8]) -> bool {
    if !key.contains(&b'\\') {
        return key == RESERVED_KEY.as_bytes();
    }
    // Escaped: compare what it stands for (`\u0024serde_json...`).
    let quoted = [&b"\""[..], key, b"\""].concat();
    serde_json::from_slice::<String>(&quoted).is_ok_and(|k| k == RESERVED_KEY)
}

/// Every number literal of `json` (valid JSON) in document order.
fn number_literals(json: &[u8]) -> Vec<&[u8]> {
    let mut literals = Vec::new();
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'"' => i = string_end(json, i + 1) + 1,
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < json.len() && matches!(json[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                    i += 1;
                }
                literals.push(&json[start..i]);
            }
            _ => i += 1,
        }
    }
    literals
}

/// Puts every number of `values` back as `literals` (from
/// `number_literals` of their source) wrote it. Numbers come in document
/// order on both sides: objects keep their keys in order (`preserve_order`)
/// and hold no repeated key here.
fn restore_numbers<L: AsRef<[u8]>>(values: &mut [Value], literals: &[L]) {
    let mut next = literals.iter();
    // Depth-first in document order, without recursion.
    let mut stack: Vec<&mut Value> = values.iter_mut().rev().collect();
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => {
                if let Some(lit) = next.next().and_then(|l| std::str::from_utf8(l.as_ref()).ok())
                    && let Some(exact) = super::literal::exact_number(lit)
                {
                    *n = exact;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut().rev()),
            Value::Object(map) => stack.extend(map.values_mut().rev()),
            _ => {}
        }
    }
}

/// Inputs from this size on are refused when their tree would pass
/// `MAX_TREE_RATIO` times their size: below it the tree is small whatever
/// its ratio (the process's own few MB dominate).
pub const DENSE_FROM: usize = 1 << 20;
/// A parsed tree may take this many times its text, at most. Minified
/// records of short values take more: `[1,1,1,…]` is ~40x as `Value`s
/// (80 bytes each for a 2-byte element), small records 20-30x, while
/// real CLI output, even minified, stays under 8x (the 5.8 MB instance
/// types list: 7.6x). The peak adds ~2x to the tree, hence 8 for a 10x
/// bound (issue 13, docs/performance.md).
pub const MAX_TREE_RATIO: usize = 8;

/// Whether `json` is at least `DENSE_FROM` long and its tree would take
/// more than `MAX_TREE_RATIO` times its size (`tree_estimate`): such a
/// document is read as text rather than held as a tree.
pub fn too_dense(json: &[u8]) -> bool {
    // a large text that is not JSON costs one byte's look, not a pass
    let opens = || json.iter().find(|b| !b.is_ascii_whitespace()).is_some_and(|b| matches!(b, b'[' | b'{'));
    json.len() >= DENSE_FROM && opens() && tree_estimate(json) > MAX_TREE_RATIO * json.len()
}

/// Bytes the parsed tree of `json` (JSON text, or anything: the count is
/// only an estimate) would take, from one pass over its bytes: a `Value`
/// per element, member and document, an entry and a key allocation per
/// member, and each string's bytes plus its allocation.
pub fn tree_estimate(json: &[u8]) -> usize {
    const ALLOCATION: usize = 16; // the allocator's header and rounding
    // an object member's slot besides its `Value`: hash, key `String`, index
    const ENTRY: usize = 8 + std::mem::size_of::<String>() + 9;
    let (mut values, mut members, mut strings, mut string_bytes) = (1usize, 0usize, 0usize, 0usize);
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b',' | b'[' | b'{' => values += 1,
            b':' => members += 1,
            b'"' => {
                let end = string_end(json, i + 1);
                strings += 1;
                string_bytes += end - (i + 1).min(end);
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    values * std::mem::size_of::<Value>() + members * ENTRY + strings * ALLOCATION + string_bytes
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
    fn the_tree_estimate_tells_dense_records_from_real_output() {
        // a 2-byte element becomes a whole `Value`
        let ones = format!("[{}1]", "1,".repeat(600_000));
        assert!(too_dense(ones.as_bytes()), "{}", tree_estimate(ones.as_bytes()) / ones.len());
        let records = format!("[{}]", vec![r#"{"a":1,"b":"x"}"#; 80_000].join(","));
        assert!(too_dense(records.as_bytes()));
        // real output: the instance types list, minified
        let real: Value = serde_json::from_str(include_str!(
            "../../fixtures/json/aws/ec2-describe-instance-types-all.json"
        ))
        .unwrap();
        let minified = serde_json::to_vec(&real).unwrap();
        assert!(minified.len() >= DENSE_FROM && !too_dense(&minified));
        // under the floor, any density passes
        assert!(!too_dense(b"[1,1,1,1,1,1,1,1]"));
        // commas, colons and brackets inside strings are not structure
        assert_eq!(tree_estimate(br#"["a,b:[{"]"#), tree_estimate(br#"["abcdef"]"#));
    }

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
    fn numbers_stay_as_the_tool_wrote_them() {
        let text = br#"{"a": 1e400, "b": [1E+2, -0.5e-3, 2E5], "c": {"d": "1E9", "e": 3e7}, "f": true}
            [0.0e0, 10, 1e1]"#;
        let v = parse(text).unwrap();
        assert_eq!(
            v.to_string(),
            r#"[{"a":1e400,"b":[1E+2,-0.5e-3,2E5],"c":{"d":"1E9","e":3e7},"f":true},[0.0e0,10,1e1]]"#
        );
        assert_eq!(value_exact("[1E+2, 5]").unwrap().to_string(), "[1E+2,5]");
    }

    #[test]
    fn the_key_serde_json_reads_as_a_number_is_not_rewritten() {
        // With arbitrary_precision this object parses as the number 12.
        for doc in [
            &br#"{"a": {"$serde_json::private::Number": "12"}, "b": 1}"#[..],
            br#"{"a": {"\u0024serde_json::private::Number": "12"}}"#,
            br#"[{"$serde_json::private::Number": "x"}]"#,
        ] {
            assert!(parse(doc).is_none(), "{}", String::from_utf8_lossy(doc));
        }
        assert!(value_exact(r#"{"$serde_json::private::Number": "12"}"#).is_err());
        assert!(parse(br#"{"a": "$serde_json::private::Number"}"#).is_some(), "as a value it is only text");
    }

    #[test]
    fn a_large_text_checked_beside_the_parser_gets_the_same_answers() {
        // Past CHECK_BESIDE `check` runs on its own thread: a repeated key
        // still refuses the parse, numbers are still restored as written.
        let filler = r#"{"k": "a value long enough to fill the text"},"#.repeat(2000);
        let big = |doc: &str| format!("[{filler}{doc}]");
        assert!(big("").len() >= CHECK_BESIDE);
        assert!(parse_text(&big(r#"{"a": 1, "a": 2}"#)).is_none());
        let v = parse_text(&big(r#"{"a": 1e400, "b": [1E+2, 2E5]}"#)).unwrap();
        assert!(
            v.to_string().ends_with(r#"{"a":1e400,"b":[1E+2,2E5]}]"#),
            "{}",
            &v.to_string()[v.to_string().len() - 60..]
        );
        assert!(parse_text(&big(r#"{"a": "#)).is_none());
    }

    #[test]
    fn key_order_is_the_tools() {
        let v = parse(b"{\"z\":1,\"a\":2}").unwrap();
        assert_eq!(v.to_string(), "{\"z\":1,\"a\":2}");
    }
}
