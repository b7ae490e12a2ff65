//! Stage 5: measure, don't guess. Every candidate encoding of the deduped
//! document is counted with the real tokenizer and the smallest wins.
//!
//! Candidates: minified JSON; Flow (unquoted JSON); seed 000's pick (Schema-YAML for a dense root
//! record array, else PVFN); PVFN itself; Outline (ours), and Outline with
//! nested tables where the document has records holding records. Measured on the
//! corpus, PVFN alone is larger than minified JSON on deep one-off objects and
//! much smaller on record arrays, which is why nothing is picked by shape alone.

use serde_json::Value;

use super::{flatten, literal, outline, pvfn, schema_yaml};
use crate::auditor::{self, Encoding, Shape};
use crate::settings::Rendered;

/// All candidates for `value`, in a fixed order (ties go to the earlier one).
pub fn candidates(value: &Value) -> Vec<Rendered> {
    tagged(value).into_iter().map(|(r, _)| r).collect()
}

/// Outline with nested tables (records holding arrays of records as one
/// table of the inner ones, docs/FORMAT.md §2).
const NESTED: outline::Tuning = outline::Tuning {
    nested_tables: true,
    section_min_lines: 3,
    table_min_fill: 0.3,
    table_max_nested_share: 0.5,
};

/// The candidates, each with whether it is the nested-table Outline (which
/// is a candidate only where it differs from the plain one).
fn tagged(value: &Value) -> Vec<(Rendered, bool)> {
    let plain = Rendered { text: outline::encode(value, outline::Tuning::default()), shape: Shape::Outline };
    let mut out = vec![(plain, false)];
    if let (text, true) = outline::encode_counted(value, NESTED) {
        out.push((Rendered { text, shape: Shape::Outline }, true));
    }
    let seed = seed_pick(value);
    let seed_is_pvfn = seed.shape == Shape::Pvfn;
    out.push((seed, false));
    if !seed_is_pvfn {
        out.push((Rendered { text: pvfn::encode(value), shape: Shape::Pvfn }, false));
    }
    out.push((Rendered { text: flow(value), shape: Shape::Flow }, false));
    out.push((Rendered { text: value.to_string(), shape: Shape::Json }, false));
    out
}

/// Flow: the document on one line in the inline value grammar, i.e. JSON
/// whose keys and strings go unquoted where that is unambiguous.
pub fn flow(value: &Value) -> String {
    if !(value.is_object() || value.is_array()) {
        return value.to_string();
    }
    let mut out = String::new();
    literal::write_value(&mut out, value, literal::Ctx::Cell);
    out
}

/// Seed 000's decision tree: a root record array (or a single-key wrapper
/// around one) with union-schema fill ≥ 55 % → Schema-YAML, else PVFN.
pub fn seed_pick(value: &Value) -> Rendered {
    if let Some((wrapper, items)) = schema_yaml::root_records(value)
        && let Some(table) = flatten::flatten(items)
        && table.fill() >= schema_yaml::MIN_FILL
    {
        return Rendered { text: schema_yaml::encode_root(wrapper, &table), shape: Shape::SchemaYaml };
    }
    Rendered { text: pvfn::encode(value), shape: Shape::Pvfn }
}

/// Above this size the router picks the shape on a sample of the document
/// (every array cut to its first `SAMPLE_ITEMS` elements) and encodes only the
/// winner in full: five renderings of a large document cost more than the
/// choice is worth; the receipt still counts the output exactly. Checked on
/// all 158 real documents of fixtures/ and the shared corpus, routing every
/// one of them through its sample: samples of 8 or more items pick the same
/// shape as the full document on all of them (4 items: on 156).
const SAMPLE_ABOVE: usize = 32 * 1024;
const SAMPLE_ITEMS: usize = 16;

/// The candidate with the fewest tokens.
pub fn route(value: &Value, enc: Encoding) -> Rendered {
    route_within(value, enc, None).unwrap_or_else(|| smallest(tagged(value), enc).0)
}

/// `route`, or `None` when its text is longer than `cap` chars. A large
/// document's Outline stops being written as soon as it passes the cap
/// (the view replaces it: no need to finish it).
pub fn route_within(value: &Value, enc: Encoding, cap: Option<usize>) -> Option<Rendered> {
    route_within_sampled(value, enc, cap).0
}

/// The sample a shape was picked on (`sampled`) and its winner's token
/// count: what `routed_tokens` gives for that sample, already known.
pub type Sampled = Option<(Value, usize)>;

/// `route_within`, with the sample it picked the shape on, if it took one.
pub fn route_within_sampled(value: &Value, enc: Encoding, cap: Option<usize>) -> (Option<Rendered>, Sampled) {
    let fits = |r: Rendered| crate::budget::fits(&r.text, cap).then_some(r);
    if let Some(sampled) = sampled(value) {
        let (tokens, (winner, nested)) = smallest_counted(tagged(&sampled), enc);
        let rendered = match (cap, &winner.shape) {
            (Some(cap), Shape::Outline) => {
                let tuning = if nested { NESTED } else { outline::Tuning::default() };
                outline::encode_within(value, tuning, cap)
                    .map(|text| Rendered { text, shape: Shape::Outline })
            }
            _ => fits(encode_as(&winner.shape, nested, value)),
        };
        return (rendered, Some((sampled, tokens)));
    }
    (fits(smallest(tagged(value), enc).0), None)
}

/// The sample the router picks `value`'s shape on, `None` when it takes
/// the whole document: not past `SAMPLE_ABOVE`, or a sample not much
/// smaller than the document (one long object, or arrays shorter than the
/// sample).
pub fn sampled(value: &Value) -> Option<Value> {
    let len = approx_len(value);
    if len <= SAMPLE_ABOVE {
        return None;
    }
    let sampled = sample(value);
    (approx_len(&sampled) * 2 < len).then_some(sampled)
}

/// The smallest candidate's token count, every candidate made on the
/// whole `value` (no sample).
pub fn routed_tokens(value: &Value, enc: Encoding) -> usize {
    smallest_counted(tagged(value), enc).0
}

/// `routed_tokens` of `value`, taken from `known` (a sample already routed,
/// `route_within_sampled`) when that is the same tree, keys in the same
/// order (serde_json's map equality ignores the order, the encodings do not).
pub fn routed_tokens_known(value: &Value, known: &Sampled, enc: Encoding) -> usize {
    match known {
        Some((tree, tokens)) if same_tree(tree, value) => *tokens,
        _ => routed_tokens(value, enc),
    }
}

/// `a == b`, object keys compared in order.
fn same_tree(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| ka == kb && same_tree(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_tree(p, q))
        }
        _ => a == b,
    }
}

/// A candidate this many times longer in bytes than the shortest one is not
/// counted: across our shapes bytes per token differ by at most ~1.4x.
const HOPELESS_BYTES: usize = 2;

fn smallest(cands: Vec<(Rendered, bool)>, enc: Encoding) -> (Rendered, bool) {
    smallest_counted(cands, enc).1
}

/// `smallest`, with its token count: the first of the candidates with the
/// fewest tokens. The shortest in bytes is counted first (usually the
/// winner); each other one only as far as it could still win.
fn smallest_counted(cands: Vec<(Rendered, bool)>, enc: Encoding) -> (usize, (Rendered, bool)) {
    let debug = std::env::var_os("TOKENSIEVE_DEBUG_ROUTER").is_some();
    let shortest = cands.iter().map(|(r, _)| r.text.len()).min().unwrap_or(0);
    let mut cands: Vec<(usize, (Rendered, bool))> = cands
        .into_iter()
        .filter(|(r, _)| r.text.len() <= shortest.saturating_mul(HOPELESS_BYTES).max(64))
        .enumerate()
        .collect();
    cands.sort_by_key(|(_, (r, _))| r.text.len());
    // (tokens, place in the candidates' order, candidate)
    let mut best: Option<(usize, usize, (Rendered, bool))> = None;
    for (place, (r, nested)) in cands {
        // To win, fewer tokens than the best so far, or as many from an
        // earlier place (ties go to the first candidate).
        let limit = match &best {
            None => Some(usize::MAX),
            Some((n, at, _)) if place < *at => Some(*n),
            Some((n, _, _)) => n.checked_sub(1),
        };
        let n = limit.and_then(|limit| auditor::count_within(enc, &r.text, limit));
        if debug {
            let tag = if nested { " (nested tables)" } else { "" };
            let tokens = n.map_or_else(|| "more".to_owned(), |n| n.to_string());
            eprintln!("router: {}{tag} {tokens} tok ({} bytes)", r.shape, r.text.len());
        }
        if let Some(n) = n {
            best = Some((n, place, (r, nested)));
        }
    }
    let (n, _, winner) = best.expect("at least one candidate");
    (n, winner)
}

/// The full document in the shape that won on the sample.
fn encode_as(shape: &Shape, nested: bool, value: &Value) -> Rendered {
    let text = match shape {
        Shape::Outline if nested => outline::encode(value, NESTED),
        Shape::Outline => outline::encode(value, outline::Tuning::default()),
        Shape::Flow => flow(value),
        Shape::SchemaYaml => return seed_pick(value),
        Shape::Pvfn => pvfn::encode(value),
        _ => value.to_string(),
    };
    Rendered { text, shape: shape.clone() }
}

/// Roughly the minified length, without building it.
fn approx_len(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.iter().map(|(k, x)| k.len() + 4 + approx_len(x)).sum::<usize>() + 2,
        Value::Array(a) => a.iter().map(|x| approx_len(x) + 1).sum::<usize>() + 2,
        Value::String(s) => s.len() + 2,
        _ => 8,
    }
}

/// `v` with every array cut to its first `SAMPLE_ITEMS` elements.
fn sample(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), sample(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().take(SAMPLE_ITEMS).map(sample).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The first candidate with the fewest tokens, whatever order their
    /// byte lengths put them in; the winner's count is exact.
    #[test]
    fn the_smallest_candidate_wins_ties_to_the_first() {
        let enc = Encoding::Cl100k;
        let cand = |text: String| (Rendered { text, shape: Shape::Json }, false);
        let row = |i: usize| format!("row {i} of the table, id-{:08x}\n", i * 7919);
        let long: String = (0..400).map(row).collect();
        let n = auditor::count(enc, &long);
        // As many tokens from more bytes (` this` and ` the` are one token each).
        let wider = long.replace(" the ", " this ");
        assert_eq!(auditor::count(enc, &wider), n);
        let short = long.replace(" of the table", "");
        let cases: [Vec<String>; 4] = [
            vec![long.clone(), short.clone(), wider.clone()],
            vec![wider.clone(), long.clone(), short.clone()],
            vec![long.clone(), wider.clone()],
            vec![wider.clone(), long.clone()],
        ];
        for texts in cases {
            let naive = texts
                .iter()
                .enumerate()
                .map(|(i, t)| (auditor::count(enc, t), i))
                .min_by_key(|(n, _)| *n)
                .unwrap();
            let (tokens, (winner, _)) = smallest_counted(texts.iter().cloned().map(cand).collect(), enc);
            assert_eq!((tokens, winner.text.as_str()), (naive.0, texts[naive.1].as_str()));
        }
        assert!(auditor::count(enc, &short) < n);
    }

    #[test]
    fn a_routed_sample_answers_for_the_same_tree_only() {
        let enc = Encoding::Cl100k;
        let recs: Vec<Value> =
            (0..1000).map(|i| json!({"Id": format!("i-{i:08x}"), "State": "running", "Size": i})).collect();
        let doc = json!({"Items": recs});
        let (rendered, known) = route_within_sampled(&doc, enc, None);
        assert_eq!(rendered.map(|r| r.text), route_within(&doc, enc, None).map(|r| r.text));
        let (tree, tokens) = known.clone().expect("a sample past SAMPLE_ABOVE");
        assert_eq!(tokens, routed_tokens(&tree, enc));
        // Known: the count is taken, not made (a planted one shows it).
        let planted = Some((tree.clone(), 7));
        assert_eq!(routed_tokens_known(&tree, &planted, enc), 7);
        // The same members in another order encode differently: counted.
        let mut items = tree["Items"].as_array().unwrap().clone();
        let first = items[0].as_object().unwrap();
        let swapped: serde_json::Map<String, Value> =
            first.iter().rev().map(|(k, v)| (k.clone(), v.clone())).collect();
        items[0] = Value::Object(swapped);
        let reordered = json!({"Items": items});
        assert_eq!(reordered, tree, "serde_json's equality ignores the order");
        assert_eq!(routed_tokens_known(&reordered, &planted, enc), routed_tokens(&reordered, enc));
        // A small document is routed whole: no sample.
        assert!(route_within_sampled(&json!({"a": 1}), enc, None).1.is_none());
    }
}
