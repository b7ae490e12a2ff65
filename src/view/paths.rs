//! The outline of a view: every path of the document as the tool wrote it,
//! with its types, how often it occurs and a compact summary of its values.
//! Counted in one walk over the raw document; every figure is exact.

use std::collections::HashMap;
use std::fmt::Write;

use serde_json::Value;

use super::jq_key;

/// What the walk learned about one path (`.Items[].State.Name`).
pub struct PathStat<'a> {
    pub path: String,
    /// jq type names seen, in `TYPES` order.
    types: u8,
    /// Places the path occurs (every array element counts).
    pub count: usize,
    /// Elements of the arrays at this path, summed.
    items: usize,
    /// Each scalar value (type tag, text) → (occurrences, first seen).
    values: HashMap<(u8, &'a str), (usize, usize), Fast>,
    /// How many numbers (their values are in `values`, as written).
    numbers: usize,
    num_min: Option<(f64, &'a serde_json::Number)>,
    num_max: Option<(f64, &'a serde_json::Number)>,
    /// Strings: all timestamps so far, and their least and greatest.
    all_times: bool,
    str_min: Option<&'a str>,
    str_max: Option<&'a str>,
    /// Seen as an object with at least one key (its children are listed).
    has_children: bool,
}

const TYPES: [&str; 6] = ["string", "number", "boolean", "null", "object", "array"];
const STRING: u8 = 0;
const NUMBER: u8 = 1;
const BOOLEAN: u8 = 2;
const NULL: u8 = 3;
const OBJECT: u8 = 4;
const ARRAY: u8 = 5;

/// Scalar columns with at most this many distinct values list them (`top`)...
const TOP_DISTINCT: usize = 10;
/// ... the most frequent this many ...
const TOP_SHOWN: usize = 5;
/// ... when each is at most this long.
const TOP_VALUE_CHARS: usize = 40;

/// How much of each path's summary to write.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Detail {
    /// Path, types and count.
    Bare,
    /// ... distinct count, min/max.
    Short,
    /// ... and the top values of low-cardinality columns.
    Full,
}

/// Every path of `doc`, in first-seen order.
pub fn summarize(doc: &Value) -> Vec<PathStat<'_>> {
    let mut w = Walk { nodes: vec![Node::default()], stats: vec![PathStat::new(".")], seen: 0 };
    w.visit(doc, 0);
    w.stats
}

/// A lower bound, in chars, of any lossless rendering of the document
/// (every shape writes each string value of the sieved document at least
/// once, as itself or quoted): the distinct strings the sieve keeps as they
/// are, each counted once. Above the budget, the view is certain and the
/// full rendering need not be made.
pub fn text_floor(stats: &[PathStat]) -> usize {
    let mut seen: std::collections::HashSet<&str, Fast> = std::collections::HashSet::default();
    let mut floor = 0;
    for stat in stats {
        for &(tag, text) in stat.values.keys() {
            if tag != STRING || !seen.insert(text) {
                continue;
            }
            // Blobs and PEM blocks become short markers.
            if text.len() >= 32 && crate::json::sieve::redact(text.to_owned()) != text {
                continue;
            }
            floor += crate::budget::chars(text);
        }
    }
    floor
}

/// One path in the tree of paths: its children by key and its array
/// elements' path. A walk step looks up one short key, never a whole path.
#[derive(Default)]
struct Node<'a> {
    keys: HashMap<&'a str, usize, Fast>,
    elem: Option<usize>,
}

struct Walk<'a> {
    /// `nodes[i]` is the path of `stats[i]`.
    nodes: Vec<Node<'a>>,
    stats: Vec<PathStat<'a>>,
    seen: usize,
}

impl<'a> Walk<'a> {
    fn add(&mut self, path: String) -> usize {
        self.nodes.push(Node::default());
        self.stats.push(PathStat::new(&path));
        self.nodes.len() - 1
    }

    fn key_child(&mut self, node: usize, key: &'a str) -> usize {
        if let Some(&c) = self.nodes[node].keys.get(key) {
            return c;
        }
        let mut path = if node == 0 { String::new() } else { self.stats[node].path.clone() };
        jq_key(&mut path, key);
        let c = self.add(path);
        self.nodes[node].keys.insert(key, c);
        c
    }

    fn elem_child(&mut self, node: usize) -> usize {
        if let Some(c) = self.nodes[node].elem {
            return c;
        }
        let path = if node == 0 { ".[]".to_owned() } else { format!("{}[]", self.stats[node].path) };
        let c = self.add(path);
        self.nodes[node].elem = Some(c);
        c
    }

    fn visit(&mut self, v: &'a Value, node: usize) {
        self.seen += 1;
        let seen = self.seen;
        let stat = &mut self.stats[node];
        stat.count += 1;
        match v {
            Value::Object(m) => {
                stat.types |= 1 << OBJECT;
                stat.has_children |= !m.is_empty();
                for (k, x) in m {
                    let c = self.key_child(node, k);
                    self.visit(x, c);
                }
            }
            Value::Array(a) => {
                stat.types |= 1 << ARRAY;
                stat.items += a.len();
                if !a.is_empty() {
                    let c = self.elem_child(node);
                    for x in a {
                        self.visit(x, c);
                    }
                }
            }
            Value::String(s) => {
                stat.types |= 1 << STRING;
                stat.value(STRING, s, seen);
                stat.all_times &= looks_like_time(s);
                stat.str_min = Some(stat.str_min.map_or(s.as_str(), |m| m.min(s.as_str())));
                stat.str_max = Some(stat.str_max.map_or(s.as_str(), |m| m.max(s.as_str())));
            }
            Value::Number(n) => {
                stat.types |= 1 << NUMBER;
                stat.numbers += 1;
                stat.value(NUMBER, n.as_str(), seen);
                let f = as_f64(n);
                if stat.num_min.is_none_or(|(m, _)| f < m) {
                    stat.num_min = Some((f, n));
                }
                if stat.num_max.is_none_or(|(m, _)| f > m) {
                    stat.num_max = Some((f, n));
                }
            }
            Value::Bool(b) => {
                stat.types |= 1 << BOOLEAN;
                stat.value(BOOLEAN, if *b { "true" } else { "false" }, seen);
            }
            Value::Null => {
                stat.types |= 1 << NULL;
                stat.value(NULL, "null", seen);
            }
        }
    }
}

/// A small fast hasher (multiply and rotate per word) for the walk's
/// maps: their keys are short strings from one document, not attacker-
/// chosen table sizes, and SipHash was most of the walk's time.
#[derive(Default, Clone, Copy)]
struct Fast;

impl std::hash::BuildHasher for Fast {
    type Hasher = FastHasher;
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ (rest.len() as u64) << 59);
    }
    fn write_u8(&mut self, n: u8) {
        self.add(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

impl FastHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

fn as_f64(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or_else(|| n.to_string().parse().unwrap_or(f64::NAN))
}

/// `2024-05-01T12:00:00Z`, `2024-05-01 12:00:00.123+00:00`: ISO-8601 date
/// and time, compared as text (same layout and zone sort in time order).
fn looks_like_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| r.clone().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    b.len() >= 16
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b' ')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
}

impl<'a> PathStat<'a> {
    fn new(path: &str) -> Self {
        PathStat {
            path: path.to_owned(),
            types: 0,
            count: 0,
            items: 0,
            values: HashMap::default(),
            numbers: 0,
            num_min: None,
            num_max: None,
            all_times: true,
            str_min: None,
            str_max: None,
            has_children: false,
        }
    }

    fn value(&mut self, tag: u8, text: &'a str, seen: usize) {
        self.values.entry((tag, text)).or_insert((0, seen)).0 += 1;
    }

    /// Objects with keys are described by their children's lines.
    pub fn listed(&self) -> bool {
        !(self.types == 1 << OBJECT && self.has_children)
    }

    /// `PATH TYPES COUNT [items=N] [distinct=D] [min=V max=V] [top=[[V,N],...]]`
    /// (docs/FORMAT.md §8); values are JSON.
    pub fn line(&self, detail: Detail) -> String {
        let types: Vec<&str> = (0..6).filter(|t| self.types & (1 << t) != 0).map(|t| TYPES[t]).collect();
        let mut out = format!("{} {} {}", self.path, types.join("|"), self.count);
        if self.types & (1 << ARRAY) != 0 {
            let _ = write!(out, " items={}", self.items);
        }
        if detail == Detail::Bare {
            return out;
        }
        let values = &self.values;
        let scalars: usize = values.values().map(|(n, _)| n).sum();
        if scalars >= 2 {
            let _ = write!(out, " distinct={}", values.len());
        }
        if let (Some((_, lo)), Some((_, hi))) = (self.num_min, self.num_max)
            && self.numbers >= 2
        {
            let _ = write!(out, " min={lo} max={hi}");
        } else if self.types & (1 << STRING) != 0
            && self.all_times
            && let (Some(lo), Some(hi)) = (self.str_min, self.str_max)
            && lo != hi
        {
            let _ = write!(out, " min={} max={}", Value::from(lo), Value::from(hi));
        }
        let repeats = values.len() < scalars;
        if detail == Detail::Full && repeats && values.len() <= TOP_DISTINCT {
            let mut top: Vec<_> = values.iter().collect();
            top.sort_by_key(|(_, (n, first))| (std::cmp::Reverse(*n), *first));
            top.truncate(TOP_SHOWN);
            if top.iter().all(|((_, t), _)| t.chars().count() <= TOP_VALUE_CHARS) {
                let cells: Vec<String> = top
                    .iter()
                    .map(|((tag, text), (n, _))| {
                        let v =
                            if *tag == STRING { Value::from(*text).to_string() } else { text.to_string() };
                        format!("[{v},{n}]")
                    })
                    .collect();
                let _ = write!(out, " top=[{}]", cells.join(","));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(doc: &Value) -> Vec<String> {
        summarize(doc).iter().filter(|s| s.listed()).map(|s| s.line(Detail::Full)).collect()
    }

    #[test]
    fn paths_counts_and_summaries() {
        let doc = json!({"Items": [
            {"id": 3, "state": {"name": "running"}, "tags": ["a"], "at": "2024-01-02T00:00:00Z"},
            {"id": 1, "state": {"name": "stopped"}, "at": "2024-01-01T00:00:00Z"},
            {"id": 2.5, "state": {"name": "running"}, "tags": [], "note": null}
        ]});
        assert_eq!(
            lines(&doc),
            vec![
                ".Items array 1 items=3",
                ".Items[].id number 3 distinct=3 min=1 max=3",
                ".Items[].state.name string 3 distinct=2 top=[[\"running\",2],[\"stopped\",1]]",
                ".Items[].tags array 2 items=1",
                ".Items[].tags[] string 1",
                ".Items[].at string 2 distinct=2 min=\"2024-01-01T00:00:00Z\" max=\"2024-01-02T00:00:00Z\"",
                ".Items[].note null 1",
            ]
        );
    }

    #[test]
    fn odd_keys_are_quoted_as_jq_wants() {
        let doc = json!({"metadata": {"labels": {"app.kubernetes.io/name": "x", "ok_1": true}}});
        let l = lines(&doc);
        assert_eq!(l[0], ".metadata.labels.\"app.kubernetes.io/name\" string 1");
        assert_eq!(l[1], ".metadata.labels.ok_1 boolean 1");
    }

    #[test]
    fn the_floor_counts_each_kept_string_once() {
        let blob = "QUJD".repeat(100);
        let doc = json!([{"a": "xyz", "b": "xyz", "c": 12345}, {"a": "héllo", "d": blob}]);
        assert_eq!(text_floor(&summarize(&doc)), 3 + 5);
    }

    #[test]
    fn less_detail_is_shorter() {
        let doc = json!([{"s": "a"}, {"s": "a"}, {"s": "b"}]);
        let s = &summarize(&doc)[2];
        assert_eq!(s.line(Detail::Bare), ".[].s string 3");
        assert_eq!(s.line(Detail::Short), ".[].s string 3 distinct=2");
        assert!(s.line(Detail::Full).ends_with("top=[[\"a\",2],[\"b\",1]]"));
    }
}
