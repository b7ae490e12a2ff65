//! Generalised paths (`.Vpcs[].CidrBlock`: every array index written `[]`)
//! and what a focused document left out of the document it came from: the
//! fields, and the jq program that prints exactly them.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::Value;

use crate::view::jq_key;

/// A step of a generalised path: a key, or every element of an array.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    Key(String),
    Each,
}

pub type GPath = Vec<Step>;

/// jq for a generalised path relative to the current value (`.a[].b`).
pub fn jq(path: &[Step]) -> String {
    let mut out = String::new();
    for s in path {
        match s {
            Step::Key(k) => jq_key(&mut out, k),
            Step::Each => {
                if out.is_empty() {
                    out.push('.');
                }
                out.push_str("[]");
            }
        }
    }
    if out.is_empty() { ".".into() } else { out }
}

/// What is known of one generalised path's scalar values.
#[derive(Debug, Default)]
pub struct Stat {
    /// Occurrences (non-null scalars).
    pub n: usize,
    /// Their values' texts, up to `DISTINCT_CAP` different ones.
    pub values: HashMap<String, usize>,
    /// Chars of all occurrences.
    pub chars: usize,
    pub strings: usize,
    pub booleans: usize,
}

const DISTINCT_CAP: usize = 64;

impl Stat {
    /// The share of occurrences holding the most frequent value.
    pub fn top_share(&self) -> f64 {
        let top = self.values.values().copied().max().unwrap_or(0);
        if self.n == 0 { 0.0 } else { top as f64 / self.n as f64 }
    }

    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    pub fn mean_chars(&self) -> usize {
        self.chars / self.n.max(1)
    }
}

/// Every generalised leaf path of `v` with its statistics (in document order).
pub fn stats(v: &Value) -> Vec<(GPath, Stat)> {
    let mut order: Vec<GPath> = Vec::new();
    let mut map: HashMap<GPath, Stat> = HashMap::new();
    // Most leaves repeat a path seen in an earlier record and a value seen
    // before: look them up borrowed, copy only what is new.
    walk(v, &mut Vec::new(), &mut |path, leaf| {
        if !map.contains_key(path) {
            order.push(path.to_vec());
            map.insert(path.to_vec(), Stat::default());
        }
        let Some(stat) = map.get_mut(path) else { return };
        let number;
        let text = match leaf {
            Value::String(s) => s.as_str(),
            other => {
                number = other.to_string();
                number.as_str()
            }
        };
        stat.n += 1;
        stat.chars += text.chars().count();
        stat.strings += usize::from(leaf.is_string());
        stat.booleans += usize::from(leaf.is_boolean());
        let len = stat.values.len();
        if let Some(c) = stat.values.get_mut(text) {
            *c += 1;
        } else if len < DISTINCT_CAP {
            stat.values.insert(text.to_string(), 1);
        }
    });
    order
        .into_iter()
        .map(|p| {
            let stat = map.remove(&p).unwrap_or_default();
            (p, stat)
        })
        .collect()
}

/// Calls `f` with every value of `v` (containers too, before their
/// contents) and its generalised path: the one walk the focus views share.
pub fn visit(v: &Value, path: &mut GPath, f: &mut impl FnMut(&[Step], &Value)) {
    f(path, v);
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Step::Key(k.clone()));
                visit(x, path, f);
                path.pop();
            }
        }
        Value::Array(items) => {
            path.push(Step::Each);
            for x in items {
                visit(x, path, f);
            }
            path.pop();
        }
        _ => {}
    }
}

/// Calls `f` with every non-null scalar of `v` and its generalised path.
pub fn walk(v: &Value, path: &mut GPath, f: &mut impl FnMut(&[Step], &Value)) {
    visit(v, path, &mut |p, x| {
        if !(x.is_null() || x.is_object() || x.is_array()) {
            f(p, x)
        }
    });
}

/// `doc` reduced to the leaves whose generalised path is in `keep`
/// (objects and arrays that keep nothing are left out; array elements
/// keep their places, an emptied one as `null`).
pub fn project(doc: &Value, keep: &HashSet<GPath>, path: &mut GPath) -> Option<Value> {
    match doc {
        Value::Object(m) => {
            let mut out = serde_json::Map::new();
            for (k, x) in m {
                path.push(Step::Key(k.clone()));
                if let Some(v) = project(x, keep, path) {
                    out.insert(k.clone(), v);
                }
                path.pop();
            }
            (!out.is_empty()).then_some(Value::Object(out))
        }
        Value::Array(items) => {
            path.push(Step::Each);
            let out: Vec<Value> =
                items.iter().map(|x| project(x, keep, path).unwrap_or(Value::Null)).collect();
            path.pop();
            out.iter().any(|v| !v.is_null()).then_some(Value::Array(out))
        }
        Value::Null => None,
        leaf => keep.contains(path.as_slice()).then(|| leaf.clone()),
    }
}

/// The generalised paths of `doc`'s leaves that `focused` does not hold at
/// the same place with the same value, and of those it does. `Err`: the
/// focused document holds a value `doc` does not have there (a view that
/// is not a part of the document).
pub fn split(doc: &Value, focused: &Value) -> Result<(BTreeSet<GPath>, BTreeSet<GPath>), String> {
    let (mut kept, mut left) = (BTreeSet::new(), BTreeSet::new());
    compare(doc, Some(focused), &mut Vec::new(), &mut kept, &mut left);
    check_part(focused, Some(doc), &mut Vec::new())?;
    Ok((kept, left))
}

fn compare(
    d: &Value,
    f: Option<&Value>,
    path: &mut GPath,
    kept: &mut BTreeSet<GPath>,
    left: &mut BTreeSet<GPath>,
) {
    match d {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Step::Key(k.clone()));
                compare(x, f.and_then(|f| f.get(k)), path, kept, left);
                path.pop();
            }
        }
        Value::Array(items) => {
            path.push(Step::Each);
            for (i, x) in items.iter().enumerate() {
                compare(x, f.and_then(|f| f.get(i)), path, kept, left);
            }
            path.pop();
        }
        Value::Null => {}
        leaf => {
            // A path repeats in every record: copied once.
            let set = if f == Some(leaf) { kept } else { left };
            if !set.contains(path.as_slice()) {
                set.insert(path.clone());
            }
        }
    }
}

fn check_part(f: &Value, d: Option<&Value>, path: &mut GPath) -> Result<(), String> {
    match f {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Step::Key(k.clone()));
                check_part(x, d.and_then(|d| d.get(k)), path)?;
                path.pop();
            }
        }
        Value::Array(items) => {
            path.push(Step::Each);
            for (i, x) in items.iter().enumerate() {
                check_part(x, d.and_then(|d| d.get(i)), path)?;
            }
            path.pop();
        }
        Value::Null => {}
        leaf if d == Some(leaf) => {}
        _ => return Err(format!("{} is not the document's value there", jq(path))),
    }
    Ok(())
}

/// The left-out fields as a tree: a field is named whole when nothing
/// under it is shown anywhere.
#[derive(Debug, Default)]
struct Node {
    whole: bool,
    keys: BTreeMap<String, Node>,
    /// Keys in the document's order (BTreeMap sorts).
    order: Vec<String>,
    each: Option<Box<Node>>,
}

fn build(left: &[&GPath], kept: &BTreeSet<GPath>, prefix: &mut GPath) -> Node {
    let here = left.iter().any(|p| p.len() == prefix.len());
    let kept_under = kept.iter().any(|k| k.len() > prefix.len() && k.starts_with(prefix));
    if here || !kept_under {
        return Node { whole: true, ..Node::default() };
    }
    let mut node = Node::default();
    let mut groups: Vec<(Step, Vec<&GPath>)> = Vec::new();
    for p in left {
        let step = p[prefix.len()].clone();
        match groups.iter_mut().find(|(s, _)| *s == step) {
            Some((_, g)) => g.push(p),
            None => groups.push((step, vec![p])),
        }
    }
    for (step, group) in groups {
        prefix.push(step.clone());
        let child = build(&group, kept, prefix);
        prefix.pop();
        match step {
            Step::Key(k) => {
                node.order.push(k.clone());
                node.keys.insert(k, child);
            }
            Step::Each => node.each = Some(Box::new(child)),
        }
    }
    node
}

/// Picks the field that names each element of the array at `path`.
pub type Identity<'a> = &'a dyn Fn(&[Step]) -> Option<String>;

/// Value kinds found at a generalised path (bits: object, array, other
/// non-null), on the document as the tool wrote it: the sieve removed its
/// empty values (`[]` where others hold an object), which a jq program run
/// over the stored raw output still meets.
pub type Kinds = HashMap<GPath, u8>;
pub const OBJECT: u8 = 1;
pub const ARRAY: u8 = 2;
pub const OTHER: u8 = 4;

/// The kinds of every path of `v`.
pub fn kinds(v: &Value) -> Kinds {
    let mut out = Kinds::new();
    visit(v, &mut Vec::new(), &mut |path, x| {
        let bit = match x {
            Value::Object(_) => OBJECT,
            Value::Array(_) => ARRAY,
            Value::Null => return,
            _ => OTHER,
        };
        match out.get_mut(path) {
            Some(bits) => *bits |= bit,
            None => {
                out.insert(path.to_vec(), bit);
            }
        }
    });
    out
}

/// The jq program that prints every left-out value, each record's with
/// its identifying field (`identity`), and the fields it names (relative
/// to the records it streams, e.g. `.Vpcs[]`): `(records, program)`.
pub fn program(
    left: &BTreeSet<GPath>,
    kept: &BTreeSet<GPath>,
    identity: Identity,
    kinds: &Kinds,
) -> Option<(String, String)> {
    if left.is_empty() {
        return None;
    }
    let refs: Vec<&GPath> = left.iter().collect();
    let root = build(&refs, kept, &mut Vec::new());
    // Stream the records: down through single keys and arrays while the
    // left-out fields all sit below one path.
    let mut node = &root;
    let mut path: GPath = Vec::new();
    loop {
        if node.whole {
            break;
        }
        match (&node.each, node.keys.len()) {
            (Some(each), 0) if kinds.get(&path).is_none_or(|k| *k == ARRAY) => {
                path.push(Step::Each);
                node = each;
            }
            (None, 1)
                if (path.last() != Some(&Step::Each) || identity(&path).is_none())
                    && kinds.get(&path).is_none_or(|k| *k == OBJECT) =>
            {
                let k = node.order[0].clone();
                path.push(Step::Key(k.clone()));
                node = &node.keys[&k];
            }
            _ => break,
        }
    }
    let body = value(node, &mut path.clone(), identity, kinds);
    let records = jq(&path);
    let prog = if path.is_empty() { body } else { format!("{records} | {body}") };
    Some((records, prog))
}

/// jq printing `node`'s left-out values of the current value (`path`).
/// Where the raw document holds other kinds of values than the part
/// expects, the program guards (`arrays`, `objects // {}`) so jq runs over
/// all of it.
fn value(node: &Node, path: &mut GPath, identity: Identity, kinds: &Kinds) -> String {
    if node.whole {
        return ".".into();
    }
    let mixed = |bit: u8| kinds.get(path.as_slice()).is_some_and(|k| *k != bit);
    if node.keys.is_empty()
        && let Some(each) = &node.each
    {
        let guard = if mixed(ARRAY) { "arrays | " } else { "" };
        path.push(Step::Each);
        let inner = value(each, path, identity, kinds);
        path.pop();
        return format!("[{guard}.[]? | {inner}]");
    }
    let guard = if mixed(OBJECT) { "objects // {} | " } else { "" };
    let mut fields = Vec::new();
    if path.last() == Some(&Step::Each)
        && let Some(id) = identity(path)
        && !node.keys.contains_key(&id)
    {
        fields.push(field(&id, None));
    }
    for k in &node.order {
        let child = &node.keys[k];
        path.push(Step::Key(k.clone()));
        let inner = (!child.whole).then(|| value(child, path, identity, kinds));
        path.pop();
        fields.push(field(k, inner));
    }
    format!("{guard}{{{}}}", fields.join(", "))
}

/// One entry of an object construction: `Key`, `"a b": ."a b"`, or
/// `Key: (.Key | INNER)`.
fn field(k: &str, inner: Option<String>) -> String {
    let ident = k.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let name = if ident { k.to_string() } else { Value::from(k).to_string() };
    let mut get = String::new();
    jq_key(&mut get, k);
    match inner {
        None if ident => name,
        None => format!("{name}: {get}"),
        Some(inner) => format!("{name}: ({get} | {inner})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(k: &str) -> Step {
        Step::Key(k.into())
    }

    #[test]
    fn split_and_program() {
        let doc = json!({"Vpcs": [
            {"VpcId": "vpc-1", "OwnerId": "1", "Cidr": [{"Block": "10.0.0.0/16", "Assoc": "a-1"}]},
            {"VpcId": "vpc-2", "OwnerId": "1", "Cidr": [{"Block": "10.1.0.0/16", "Assoc": "a-2"}]}
        ], "Next": "t"});
        let focused = json!({"Vpcs": [
            {"VpcId": "vpc-1", "Cidr": [{"Block": "10.0.0.0/16"}]},
            {"VpcId": "vpc-2", "Cidr": [{"Block": "10.1.0.0/16"}]}
        ], "Next": "t"});
        let (kept, left) = split(&doc, &focused).unwrap();
        assert_eq!(left.len(), 2);
        assert!(kept.contains(&vec![key("Next")]));
        let id = |p: &[Step]| (p == [key("Vpcs"), Step::Each]).then(|| "VpcId".to_string());
        let (records, prog) = program(&left, &kept, &id, &kinds(&doc)).unwrap();
        assert_eq!(records, ".Vpcs[]");
        assert_eq!(prog, ".Vpcs[] | {VpcId, Cidr: (.Cidr | [.[]? | {Assoc}]), OwnerId}");
        let out = crate::jq::run_value(&prog, &doc).unwrap();
        assert_eq!(out[1], json!({"VpcId": "vpc-2", "OwnerId": "1", "Cidr": [{"Assoc": "a-2"}]}));
        // A raw `[]` where other records hold an object: guarded.
        let raw = json!({"R": [{"id": "a", "P": {"x": 1, "y": 2}}, {"id": "b", "P": []}]});
        let part = json!({"R": [{"id": "a", "P": {"x": 1}}, {"id": "b"}]});
        let sieved = json!({"R": [{"id": "a", "P": {"x": 1, "y": 2}}, {"id": "b"}]});
        let (kept, left) = split(&sieved, &part).unwrap();
        let id = |p: &[Step]| (p == [key("R"), Step::Each]).then(|| "id".to_string());
        let (_, prog) = program(&left, &kept, &id, &kinds(&raw)).unwrap();
        assert_eq!(prog, ".R[] | {id, P: (.P | objects // {} | {y})}");
        assert_eq!(crate::jq::run_value(&prog, &raw).unwrap().len(), 2);
    }

    #[test]
    fn a_view_that_invents_a_value_is_refused() {
        let doc = json!({"a": [{"b": 1}]});
        assert!(split(&doc, &json!({"a": [{"b": 2}]})).is_err());
        assert!(split(&doc, &json!({"a": [{"c": 1}]})).is_err());
    }

    #[test]
    fn project_keeps_places() {
        let doc = json!({"a": [{"b": 1, "c": 2}, {"c": 3}]});
        let keep: HashSet<GPath> = [vec![key("a"), Step::Each, key("b")]].into_iter().collect();
        assert_eq!(project(&doc, &keep, &mut Vec::new()), Some(json!({"a": [{"b": 1}, null]})));
    }
}
