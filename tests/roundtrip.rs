//! decode(encode(x)) == x for every document the sieve and deduper can leave,
//! for every shape the router can emit: a property test over arbitrary JSON
//! with hostile strings and keys.

use proptest::prelude::*;
use serde_json::{Map, Number, Value};
use tokensieve::json::{decode::decode, reduce, router};
use tokensieve::settings::{Dedup, Settings};

fn nasty_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_-]{1,10}",
        "\\PC{0,12}",
        ".{0,6}[,=:\\[\\]{}\".\\\\ ]{1,3}.{0,6}",
        Just("true".to_string()),
        Just("null".to_string()),
        Just("-".to_string()),
        Just("1e5".to_string()),
        Just("0123".to_string()),
        Just(" lead".to_string()),
        Just("trail ".to_string()),
        Just("line\nbreak".to_string()),
        Just("schema:".to_string()),
        Just("@map".to_string()),
        Just("- [x]".to_string()),
        Just("[section]".to_string()),
        Just("a=b".to_string()),
        Just("\u{1b}[0m".to_string()),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| Value::Number(n.into())),
        (-1e12f64..1e12).prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        nasty_string().prop_map(Value::String),
        Just(Value::Null),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((nasty_string(), inner.clone()), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            // Record arrays, so tables and Schema-YAML get exercised.
            prop::collection::vec(
                prop::collection::vec(
                    (prop::sample::select(vec!["id", "name", "a.b", "7", "Tags"]), inner.clone()),
                    1..4
                ),
                2..5
            )
            .prop_map(|rows| Value::Array(
                rows.into_iter()
                    .map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
                    .collect()
            )),
            // Records that hold records (reservations of instances), so
            // nested tables get exercised.
            prop::collection::vec(
                (
                    prop::collection::vec(
                        (prop::sample::select(vec!["id", "owner", "a.b"]), inner.clone()),
                        0..3
                    ),
                    prop::collection::vec(
                        prop::collection::vec((prop::sample::select(vec!["x", "name", "7"]), inner), 1..3),
                        1..4
                    ),
                ),
                2..4
            )
            .prop_map(|parents| Value::Array(
                parents
                    .into_iter()
                    .map(|(fields, kids)| {
                        let mut m: Map<String, Value> =
                            fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                        let kids = kids
                            .into_iter()
                            .map(|kv| {
                                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                            })
                            .collect();
                        m.insert("Items".into(), Value::Array(kids));
                        Value::Object(m)
                    })
                    .collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn every_candidate_decodes_to_the_deduped_document(doc in json(), aggressive in any::<bool>()) {
        let dedup = if aggressive { Dedup::Aggressive } else { Dedup::Default };
        let settings = Settings { dedup, ..Settings::default() };
        let reduced = reduce(doc, &settings);
        for cand in router::candidates(&reduced) {
            let back = decode(&cand.text);
            prop_assert!(back.is_ok(), "{:?} failed to decode: {:?}\n{}", cand.shape, back.err(), cand.text);
            prop_assert_eq!(back.unwrap(), reduced.clone(), "shape {:?}:\n{}", cand.shape, cand.text);
        }
    }
}
