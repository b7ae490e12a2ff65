//! Stage 5: measure, don't guess. Every candidate encoding of the deduped
//! document is counted with the real tokenizer and the smallest wins.
//!
//! Candidates: minified JSON; Flow (unquoted JSON); seed 000's pick (Schema-YAML for a dense root
//! record array, else PVFN); PVFN itself; Outline (ours). Measured on the
//! corpus, PVFN alone is larger than minified JSON on deep one-off objects and
//! much smaller on record arrays, which is why nothing is picked by shape alone.

use serde_json::Value;

use super::{flatten, literal, outline, pvfn, schema_yaml};
use crate::auditor::{self, Encoding, Shape};
use crate::pipeline::Rendered;

/// All candidates for `value`, in a fixed order (ties go to the earlier one).
pub fn candidates(value: &Value) -> Vec<Rendered> {
    let mut out =
        vec![Rendered { text: outline::encode(value, outline::Tuning::default()), shape: Shape::Outline }];
    out.push(seed_pick(value));
    if out[1].shape != Shape::Pvfn {
        out.push(Rendered { text: pvfn::encode(value), shape: Shape::Pvfn });
    }
    out.push(Rendered { text: flow(value), shape: Shape::Flow });
    out.push(Rendered { text: value.to_string(), shape: Shape::Json });
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
    let len = approx_len(value);
    if len > SAMPLE_ABOVE {
        let sampled = sample(value);
        // Worth it only when the sample is much smaller than the document
        // (not for one long object, or arrays shorter than the sample).
        if approx_len(&sampled) * 2 < len {
            let winner = smallest(candidates(&sampled), enc).shape;
            return encode_as(&winner, value);
        }
    }
    smallest(candidates(value), enc)
}

/// A candidate this many times longer in bytes than the shortest one is not
/// counted: across our shapes bytes per token differ by at most ~1.4x.
const HOPELESS_BYTES: usize = 2;

fn smallest(cands: Vec<Rendered>, enc: Encoding) -> Rendered {
    let debug = std::env::var_os("TOKENSIEVE_DEBUG_ROUTER").is_some();
    let shortest = cands.iter().map(|r| r.text.len()).min().unwrap_or(0);
    cands
        .into_iter()
        .filter(|r| r.text.len() <= shortest.saturating_mul(HOPELESS_BYTES).max(64))
        .map(|r| {
            let n = auditor::count(enc, &r.text);
            if debug {
                eprintln!("router: {} {n} tok ({} bytes)", r.shape, r.text.len());
            }
            (n, r)
        })
        .min_by_key(|(n, _)| *n)
        .map(|(_, r)| r)
        .expect("at least one candidate")
}

/// The full document in the shape that won on the sample.
fn encode_as(shape: &Shape, value: &Value) -> Rendered {
    let text = match shape {
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
