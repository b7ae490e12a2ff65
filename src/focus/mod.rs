//! Focus views (SPEC §6c, docs/FORMAT.md §8): above the focus size, a JSON
//! output shows every record with its identifying and state-bearing
//! fields, its signal records whole, and one header line naming the fields
//! left out with the exact `tokensieve show ID --jq` that prints them.
//!
//! Which fields: a view for the command's shape (`library`: jq programs,
//! the user's `[[view]]`s first), else the generic ranking (`rank`). The
//! rest is pure and shared: what was left out (`paths::split`), the
//! program that prints it (`paths::program`), the rendering.
//!
//! Focus and budget are one mechanism, decided in one place
//! (`pipeline::render_focused`): the focus view is tried first; when even
//! it is over the budget, the budget view (`crate::view`) of the whole
//! document is used, which cuts rows instead of fields.

pub mod library;
pub mod paths;
pub mod rank;

use serde_json::Value;

use crate::auditor::Shape;
use crate::json::{router, sieve};
use crate::settings::{Call, Rendered};

use paths::{GPath, Step};

/// A view is used only when it saves at least this share of the tokens of
/// the whole rendering (else the whole rendering is worth its price).
pub const MIN_SAVING: f64 = 0.25;

/// What a focus view must stay within to be of use, known before it is
/// made (`pipeline::render_focused` decides; this only lets the view give
/// up early): chars of the budget, tokens under the whole rendering's.
#[derive(Clone, Copy, Debug, Default)]
pub struct Within {
    pub chars: Option<usize>,
    pub tokens: Option<usize>,
}

impl Within {
    /// Whether `text` stays within: the one test, for the body here and
    /// for the whole view in `pipeline::render_focused`.
    pub fn holds(&self, text: &str, call: &Call) -> bool {
        self.chars.is_none_or(|max| crate::budget::fits(text, Some(max)))
            && self.tokens.is_none_or(|max| crate::auditor::count(call.encoding, text) <= max)
    }
}

/// The focus view of `doc` (as parsed) for a command, `None` when it
/// would leave nothing out, or when its body alone is not `within` (the
/// fields it names and their command are then never worked out: on a
/// large document that is most of the cost). `slurp`: `doc` was read from
/// JSON lines (jq needs `--slurp` to see them as the one array).
pub fn view(doc: &Value, words: &[String], slurp: bool, call: &Call, within: Within) -> Option<Rendered> {
    let sieved = sieve::sieve(doc.clone());
    let (name, mut part) = part(&sieved, words, call);
    let signal = restore_signal(&sieved, &mut part);
    let (kept, left) = match paths::split(&sieved, &part) {
        Ok(split) => split,
        Err(e) => {
            if crate::debug::enabled() {
                eprintln!("tokensieve: view '{name}' refused: {e}");
            }
            part = generic(&sieved);
            restore_signal(&sieved, &mut part);
            paths::split(&sieved, &part).ok()?
        }
    };
    let body = router::route(&crate::json::reduce(part, call), call.encoding);
    if !within.holds(&body.text, call) {
        return None;
    }
    let all = paths::stats(&sieved);
    let identity = |p: &[Step]| rank::identity(&all, &kept, p);
    let (records, program) = paths::program(&left, &kept, &identity, &paths::kinds(doc))?;
    let at = parse_records(&records);
    let n = count(&sieved, &at);
    let cmd = show(call, &program, slurp);
    // How the printed records are matched with the shown ones.
    let how = match (at.last(), identity(&at)) {
        (Some(Step::Each), Some(id)) => format!(", each record with its {id}"),
        (Some(Step::Each), None) => ", record by record in order".to_string(),
        _ => String::new(),
    };
    let mut text = format!(
        "# view: focus on {records} ({n} records{}); left out{how}: {cmd}\n",
        if signal > 0 { format!(", {signal} with signal shown whole") } else { String::new() }
    );
    text.push_str(&body.text);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let shown = kept.difference(&left).count();
    let total = kept.union(&left).count();
    Some(Rendered { text, shape: Shape::View { of: Box::new(body.shape), shown, total, unit: "fields" } })
}

/// The view's part of the sieved document (before the signal records are
/// put back): the command's view from the library, else the generic one.
fn part(sieved: &Value, words: &[String], call: &Call) -> (String, Value) {
    match library::apply(&call.user_views, words, sieved) {
        Some((name, part)) => (name.to_string(), part),
        None => ("generic".to_string(), generic(sieved)),
    }
}

/// The generic view's part: the fields `rank` keeps.
fn generic(sieved: &Value) -> Value {
    let keep = rank::keep(sieved);
    paths::project(sieved, &keep, &mut Vec::new()).unwrap_or(Value::Null)
}

/// Past this share of the whole rendering's tokens on the sample, a view
/// is given up (it must stay under `1 - MIN_SAVING` of the whole).
const SAMPLE_GIVE_UP: f64 = 0.9;

/// Whether a view of `doc` (as parsed) that must save tokens can: on a
/// document large enough for the router to pick its shape on a sample
/// (`router::sampled`, its arrays cut to their first items), the view and
/// the whole rendering are first made on that sample, a fraction of the
/// cost of the view of the whole (ranking every path, projecting, encoding
/// the body). A view whose body keeps over `SAMPLE_GIVE_UP` of the
/// sample's tokens cannot save `MIN_SAVING` unless the records past the
/// sample differ wildly from the first ones. Measured over the JSON
/// fixtures and slices of the large AWS ones (fcd4a28): the sample's share
/// is within 0.05 of the whole's. `pipeline::render_focused` asks before it
/// copies the document for the view.
pub fn may_save(doc: &Value, words: &[String], call: &Call) -> bool {
    router::sampled(doc).is_none_or(|sample| {
        let gate = SampleGate::new(sample, words, call);
        gate.may_save(&None, call)
    })
}

/// `may_save` in two halves, for a sample (`router::sampled`) made
/// beforehand: `new` owns nothing of the document, so it can run beside
/// the document's own rendering (`pipeline::render_focused`), whose router
/// routes the same sample when it takes one; `may_save` then takes the
/// whole rendering's count from it instead of routing it again.
pub struct SampleGate {
    /// The sample as the whole rendering's router sees it (reduced).
    whole: Value,
    /// The view's body's token count on the sample.
    body: usize,
}

impl SampleGate {
    pub fn new(sample: Value, words: &[String], call: &Call) -> SampleGate {
        let sample = sieve::sieve(sample);
        let whole = crate::json::reduce(sample.clone(), call);
        let (_, mut part) = part(&sample, words, call);
        restore_signal(&sample, &mut part);
        let part = crate::json::reduce(part, call);
        let body = router::routed_tokens(&part, call.encoding);
        call.let_go((sample, part));
        SampleGate { whole, body }
    }

    /// The verdict; `routed`: a sample the whole rendering's router already
    /// counted (`router::route_within_sampled`).
    pub fn may_save(&self, routed: &router::Sampled, call: &Call) -> bool {
        let (whole, body) = (router::routed_tokens_known(&self.whole, routed, call.encoding), self.body);
        if crate::debug::enabled() {
            eprintln!("tokensieve: focus view on the sample: body {body} of {whole} tokens");
        }
        body as f64 <= whole as f64 * SAMPLE_GIVE_UP
    }
}

/// `tokensieve show ID --jq 'PROGRAM'`, or what to set when the output was
/// not stored.
fn show(call: &Call, program: &str, slurp: bool) -> String {
    let quoted = format!("'{}'", program.replace('\'', r"'\''"));
    let flag = if slurp { "--slurp --jq" } else { "--jq" };
    match call.raw_id.as_deref() {
        Some(id) => format!("tokensieve show {id} {flag} {quoted}"),
        None => format!("(not stored; TOKENSIEVE_FOCUS=off prints all) jq {quoted}"),
    }
}

/// The generalised path of a records expression (`.Vpcs[]`).
fn parse_records(jq: &str) -> GPath {
    // Written by `paths::jq`: keys, quoted keys and `[]`.
    let mut out = Vec::new();
    let mut rest = jq;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("[]") {
            out.push(Step::Each);
            rest = r;
        } else if let Some(r) = rest.strip_prefix(".\"") {
            let end = r.find('"').unwrap_or(r.len());
            out.push(Step::Key(r[..end].to_string()));
            rest = r.get(end + 1..).unwrap_or("");
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end > 0 {
                out.push(Step::Key(r[..end].to_string()));
            }
            rest = &r[end..];
        } else {
            break;
        }
    }
    out
}

/// How many values `path` reaches in `v`.
fn count(v: &Value, path: &[Step]) -> usize {
    match path.split_first() {
        None => 1,
        Some((Step::Key(k), rest)) => v.get(k).map_or(0, |x| count(x, rest)),
        Some((Step::Each, rest)) => v.as_array().map_or(0, |a| a.iter().map(|x| count(x, rest)).sum()),
    }
}

/// Puts back whole every record of `doc` (an object in an array) that
/// carries signal, into `part` at the same place. Returns how many.
fn restore_signal(doc: &Value, part: &mut Value) -> usize {
    match (doc, part) {
        (Value::Array(items), Value::Array(out)) => {
            let mut n = 0;
            for (i, x) in items.iter().enumerate() {
                let Some(slot) = out.get_mut(i) else { continue };
                if x.is_object() && is_signal(x) {
                    *slot = x.clone();
                    n += 1;
                } else {
                    n += restore_signal(x, slot);
                }
            }
            n
        }
        (Value::Object(m), Value::Object(out)) => {
            let mut n = 0;
            for (k, x) in m {
                match out.get_mut(k) {
                    Some(slot) => n += restore_signal(x, slot),
                    // An array the view left out whole: its signal
                    // records still show.
                    None if x.is_array() => {
                        let mut empty = Value::Array(vec![Value::Null; x.as_array().map_or(0, Vec::len)]);
                        let found = restore_signal(x, &mut empty);
                        if found > 0 {
                            out.insert(k.clone(), empty);
                            n += found;
                        }
                    }
                    None => {}
                }
            }
            n
        }
        (Value::Array(items), slot @ Value::Null) => {
            let mut empty = Value::Array(vec![Value::Null; items.len()]);
            let found = restore_signal(doc, &mut empty);
            if found > 0 {
                *slot = empty;
            }
            found
        }
        _ => 0,
    }
}

/// Words of a state, status or phase that mean "not running as it should".
const NOT_OK: &[&str] = &[
    "stopped",
    "stopping",
    "terminated",
    "shutting-down",
    "unhealthy",
    "impaired",
    "degraded",
    "crashloopbackoff",
    "imagepullbackoff",
    "errimagepull",
    "evicted",
    "oomkilled",
    "unavailable",
    "notready",
    "rollback_complete",
    "cancelled",
    "timed_out",
    "timedout",
];

/// A record with an error, a failed or non-running state, a failed
/// condition (`crate::view::signal` and the words above; nested objects
/// count, arrays inside the record do not).
pub fn is_signal(record: &Value) -> bool {
    if crate::view::signal::trigger(record).is_some() {
        return true;
    }
    let Value::Object(m) = record else { return false };
    let state_key = |k: &str| {
        let k = k.to_ascii_lowercase();
        k.ends_with("state") || k.ends_with("status") || k.ends_with("phase") || k == "name" || k == "reason"
    };
    // A condition that is not met: {"type": "Ready", "status": "False"}.
    if m.get("type").is_some_and(Value::is_string) && m.get("status").and_then(Value::as_str) == Some("False")
    {
        return true;
    }
    let mut stack: Vec<(&serde_json::Map<String, Value>, bool)> = vec![(m, false)];
    while let Some((m, in_state)) = stack.pop() {
        for (k, v) in m {
            match v {
                Value::String(s) if state_key(k) && (in_state || !k.eq_ignore_ascii_case("name")) => {
                    let s = s.to_ascii_lowercase();
                    if NOT_OK.iter().any(|w| s == *w) {
                        return true;
                    }
                }
                Value::Object(child) => stack.push((child, state_key(k))),
                _ => {}
            }
        }
    }
    false
}

/// The kept fields' set for tests.
#[cfg(test)]
fn kept_of(doc: &Value, part: &Value) -> std::collections::HashSet<GPath> {
    paths::split(doc, part).map(|(k, _)| k.into_iter().collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;
    use serde_json::json;

    fn settings() -> Call<'static> {
        Call {
            raw_id: Some("abc123".into()),
            ..Call::from(Settings { focus: Some(10), ..Settings::default() })
        }
    }

    #[test]
    fn non_running_records_show_whole() {
        assert!(is_signal(&json!({"InstanceId": "i-1", "State": {"Code": 80, "Name": "stopped"}})));
        assert!(!is_signal(&json!({"InstanceId": "i-1", "State": {"Code": 16, "Name": "running"}})));
        assert!(!is_signal(&json!({"Name": "stopped-cluster"})));
        assert!(is_signal(&json!({"type": "Ready", "status": "False"})));
        assert!(is_signal(&json!({"status": {"phase": "Failed"}})));
    }

    #[test]
    fn a_view_gives_up_when_its_body_cannot_be_within() {
        let recs: Vec<Value> = (0..40)
            .map(|i| json!({"Id": format!("i-{i:017x}"), "State": "running", "Etag": format!("{i:064x}")}))
            .collect();
        let doc = json!({"Items": recs});
        let words = ["tool".to_string()];
        let made = view(&doc, &words, false, &settings(), Within::default()).expect("a view");
        let body_chars = made.text.lines().skip(1).map(|l| l.chars().count() + 1).sum::<usize>();
        let too_few = Within { chars: Some(body_chars / 2), tokens: None };
        assert!(view(&doc, &words, false, &settings(), too_few).is_none());
        let tokens = crate::auditor::count(settings().encoding, &made.text);
        let too_few = Within { chars: None, tokens: Some(tokens / 3) };
        assert!(view(&doc, &words, false, &settings(), too_few).is_none());
        let enough = Within { chars: Some(made.text.len()), tokens: Some(tokens) };
        assert_eq!(view(&doc, &words, false, &settings(), enough).map(|v| v.text), Some(made.text));
    }

    #[test]
    fn a_large_view_that_saves_little_is_given_up_on_the_sample() {
        // Past the router's sample size (~32 KB): every field but a one-token
        // Etag is kept, so the body is nearly the whole rendering.
        let doc = |etag: &dyn Fn(usize) -> String| {
            let recs: Vec<Value> = (0..400)
                .map(|i| {
                    json!({"InstanceId": format!("i-{i:017x}"), "State": "running", "Name": format!("web-{i}"),
                           "Zone": "us-east-1a", "Etag": etag(i)})
                })
                .collect();
            json!({"Items": recs})
        };
        let words = ["tool".to_string()];
        let small = doc(&|_| "ab".to_string());
        assert!(view(&small, &words, false, &settings(), Within::default()).is_some(), "a view exists");
        assert!(!may_save(&small, &words, &settings()));
        // Long hashes left out: the sample shows the saving.
        assert!(may_save(&doc(&|i| format!("{i:064x}")), &words, &settings()));
        // Under the router's sample size nothing is given up early.
        let few = json!({"Items": [{"InstanceId": "i-1", "Etag": "ab"}]});
        assert!(may_save(&few, &words, &settings()));
    }

    #[test]
    fn a_view_names_its_left_out_fields_and_the_command_prints_them() {
        let recs: Vec<Value> = (0..8)
            .map(|i| {
                json!({"VolumeId": format!("vol-{i:017x}"), "Size": 8 + i, "State": if i == 5 {"error"} else {"in-use"},
                       "CreateTime": format!("2024-05-0{}T10:00:00.000Z", i % 9 + 1),
                       "SnapshotId": "snap-0123456789abcdef0", "Etag": format!("\"{i:032x}\"")})
            })
            .collect();
        let doc = json!({"Volumes": recs});
        let v = view(
            &doc,
            &["aws".into(), "ec2".into(), "describe-volumes".into()],
            false,
            &settings(),
            Within::default(),
        )
        .unwrap();
        let first = v.text.lines().next().unwrap();
        assert!(
            first.starts_with("# view: focus on .Volumes[] (8 records, 1 with signal shown whole)"),
            "{first}"
        );
        let program = first.split("--jq '").nth(1).unwrap().trim_end_matches('\'');
        assert_eq!(program, ".Volumes[] | {VolumeId, CreateTime, Etag}");
        // The signal record's left-out fields are in the body too.
        assert!(v.text.contains("2024-05-06T10:00:00.000Z"), "{}", v.text);
        assert!(!v.text.contains("2024-05-01T10:00:00.000Z"), "{}", v.text);
        assert!(kept_of(&doc, &doc).len() == 6);
    }

    #[test]
    fn records_paths_read_back() {
        assert_eq!(
            parse_records(".Reservations[].Instances[]"),
            vec![Step::Key("Reservations".into()), Step::Each, Step::Key("Instances".into()), Step::Each]
        );
        assert_eq!(parse_records(".\"a b\"[]"), vec![Step::Key("a b".into()), Step::Each]);
        assert_eq!(parse_records("."), Vec::<Step>::new());
    }
}
