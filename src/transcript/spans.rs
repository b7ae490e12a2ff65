//! Where each value of one JSON line sits in its bytes. Compaction edits a
//! line by replacing the bytes of a few string values and nothing else, so
//! every other byte (unknown fields, number spellings, key order, escapes)
//! is the input's own.

use std::ops::Range;

/// One JSON value and the byte range of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub range: Range<usize>,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Members in order, keys decoded.
    Object(Vec<(String, Node)>),
    Array(Vec<Node>),
    String,
    /// Numbers, `true`, `false`, `null`.
    Scalar,
}

impl Node {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The elements of an array (none for anything else).
    pub fn items(&self) -> &[Node] {
        match &self.kind {
            Kind::Array(items) => items,
            _ => &[],
        }
    }

    /// The decoded string, when this is a string.
    pub fn str<'a>(&self, line: &'a [u8]) -> Option<std::borrow::Cow<'a, str>> {
        if self.kind != Kind::String {
            return None;
        }
        decode_string(&line[self.range.clone()])
    }
}

/// Indexes one JSON document (a transcript line). `None` when it is not
/// valid JSON (the line is then kept as it is).
pub fn index(line: &[u8]) -> Option<Node> {
    let mut p = Parser { b: line, i: 0 };
    p.ws();
    let node = p.value(0)?;
    p.ws();
    (p.i == line.len()).then_some(node)
}

/// The text of a JSON string literal (quotes included) decoded; borrowed
/// when it holds no escape.
pub fn decode_string(literal: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let inner = literal.get(1..literal.len().checked_sub(1)?)?;
    if !inner.contains(&b'\\') {
        return std::str::from_utf8(inner).ok().map(std::borrow::Cow::Borrowed);
    }
    serde_json::from_slice::<String>(literal).ok().map(std::borrow::Cow::Owned)
}

/// `s` as a JSON string literal, escaped as JSON.stringify does (control
/// characters and `"`/`\` only; everything else as UTF-8).
pub fn encode_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Applies non-overlapping replacements (ranges into `line`) in one pass.
pub fn splice(line: &[u8], mut edits: Vec<(Range<usize>, String)>) -> Vec<u8> {
    edits.sort_by_key(|(r, _)| r.start);
    let mut out = Vec::with_capacity(line.len());
    let mut at = 0;
    for (range, text) in edits {
        if range.start < at {
            continue; // overlapping edit: the first one wins
        }
        out.extend_from_slice(&line[at..range.start]);
        out.extend_from_slice(text.as_bytes());
        at = range.end;
    }
    out.extend_from_slice(&line[at..]);
    out
}

/// serde_json's own nesting limit: deeper lines are kept as they are.
const MAX_DEPTH: usize = 128;

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.i;
        let kind = match *self.b.get(self.i)? {
            b'{' => {
                let mut members = Vec::new();
                self.sequence(b'}', |p| {
                    let k = p.string()?;
                    let key = decode_string(&p.b[k])?.into_owned();
                    p.ws();
                    (p.b.get(p.i) == Some(&b':')).then_some(())?;
                    p.i += 1;
                    p.ws();
                    members.push((key, p.value(depth + 1)?));
                    Some(())
                })?;
                Kind::Object(members)
            }
            b'[' => {
                let mut items = Vec::new();
                self.sequence(b']', |p| {
                    items.push(p.value(depth + 1)?);
                    Some(())
                })?;
                Kind::Array(items)
            }
            b'"' => {
                let r = self.string()?;
                // Validated here so `str` can trust every string node.
                decode_string(&self.b[r])?;
                Kind::String
            }
            _ => {
                while self.i < self.b.len()
                    && matches!(self.b[self.i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' | b'a'..=b'z')
                {
                    self.i += 1;
                }
                let word = &self.b[start..self.i];
                let ok = matches!(word, b"true" | b"false" | b"null")
                    || serde_json::from_slice::<serde_json::Number>(word).is_ok();
                ok.then_some(())?;
                Kind::Scalar
            }
        };
        Some(Node { range: start..self.i, kind })
    }

    /// The comma-separated elements after an opening bracket, up to and
    /// including `close`; `element` reads one (whitespace around it skipped).
    fn sequence(&mut self, close: u8, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
            return Some(());
        }
        loop {
            self.ws();
            element(self)?;
            self.ws();
            match *self.b.get(self.i)? {
                b',' => self.i += 1,
                c if c == close => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A string literal's range (quotes included), escapes skipped over.
    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.i;
        (self.b.get(self.i) == Some(&b'"')).then_some(())?;
        self.i += 1;
        loop {
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(start..self.i);
                }
                b'\\' => self.i += 2,
                c if c < 0x20 => return None,
                _ => self.i += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_point_at_the_values_own_text() {
        let line = br#"{"a": 1.50, "b":{"c":"x\"y","d":[true,null]},"e":"\u00e9"}"#;
        let root = index(line).unwrap();
        let a = root.get("a").unwrap();
        assert_eq!(&line[a.range.clone()], b"1.50");
        let c = root.get("b").unwrap().get("c").unwrap();
        assert_eq!(c.str(line).unwrap(), "x\"y");
        assert_eq!(root.get("b").unwrap().get("d").unwrap().items().len(), 2);
        assert_eq!(root.get("e").unwrap().str(line).unwrap(), "é");
    }

    #[test]
    fn splicing_one_value_keeps_every_other_byte() {
        let line = br#"{"z":  1e3 ,"t":"old","u":{"k":"\u00e9"}}"#;
        let root = index(line).unwrap();
        let t = root.get("t").unwrap().range.clone();
        let out = splice(line, vec![(t, encode_string("new\n"))]);
        assert_eq!(out, br#"{"z":  1e3 ,"t":"new\n","u":{"k":"\u00e9"}}"#);
    }

    #[test]
    fn invalid_json_is_refused() {
        for bad in [&b"{"[..], b"{\"a\":}", b"[1,]", b"{\"a\":1} x", b"\"\x01\"", b"tru", b"{\"a\":01x}"] {
            assert!(index(bad).is_none(), "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
