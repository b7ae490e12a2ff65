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

/// Above this many bytes, candidates are ranked on a sample (the receipt
/// still counts the winner exactly): counting every candidate of a 5.8 MB
/// document in full costs seconds.
const SAMPLE_ABOVE: usize = 256 * 1024;
const SAMPLE_BYTES: usize = 64 * 1024;

/// Tokens of `text`, or an estimate from a sample of its head scaled by size.
fn cost(enc: Encoding, text: &str) -> usize {
    if text.len() <= SAMPLE_ABOVE {
        return auditor::count(enc, text);
    }
    let mut cut = SAMPLE_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = auditor::count(enc, &text[..cut]);
    (head as f64 * text.len() as f64 / cut as f64) as usize
}

/// The candidate with the fewest tokens.
pub fn route(value: &Value, enc: Encoding) -> Rendered {
    let debug = std::env::var_os("TOKENSIEVE_DEBUG_ROUTER").is_some();
    candidates(value)
        .into_iter()
        .map(|r| {
            let n = cost(enc, &r.text);
            if debug {
                eprintln!("router: {} {n} tok ({} bytes)", r.shape, r.text.len());
            }
            (n, r)
        })
        .min_by_key(|(n, _)| *n)
        .map(|(_, r)| r)
        .expect("at least one candidate")
}
