//! Stage 5: measure, don't guess. Every candidate encoding of the deduped
//! document is counted with the real tokenizer and the smallest wins.
//!
//! Candidates: minified JSON; seed 000's pick (Schema-YAML for a dense root
//! record array, else PVFN); PVFN itself; Outline (ours). Measured on the
//! corpus, PVFN alone is larger than minified JSON on deep one-off objects and
//! much smaller on record arrays, which is why nothing is picked by shape alone.

use serde_json::Value;

use super::{flatten, outline, pvfn, schema_yaml};
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
    out.push(Rendered { text: value.to_string(), shape: Shape::Json });
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

/// The candidate with the fewest tokens.
pub fn route(value: &Value, enc: Encoding) -> Rendered {
    candidates(value)
        .into_iter()
        .map(|r| (auditor::count(enc, &r.text), r))
        .min_by_key(|(n, _)| *n)
        .map(|(_, r)| r)
        .expect("at least one candidate")
}
