//! One captured stdout in, the text the agent should read out (or `None`:
//! deliver the raw bytes). JSON goes through `json`, other text through `text`.
//!
//! A JSON document past the router's sample size and the focus size is
//! rendered whole while the focus view's gate (`focus::SampleGate`) works
//! on the sample on another thread (`render_beside_gate`); the gate takes
//! the whole rendering's count of the sample from the rendering's router
//! (`json::router::route_within_sampled`). Output identical to asking the
//! gate first; the machine's second core does the gate (docs/performance.md,
//! issue 23).

use crate::auditor::Shape;
use crate::budget;
use crate::json;
use crate::json::sniff::{SNIFF_LIMIT, Sniff, sniff};
use crate::settings::{Call, Hint, Rendered};
use crate::typed::TypedResult;

/// Renders `raw` for an agent. `None` means "pass the raw bytes through".
/// Never panics on any input (`handoff::deliver` also guards it).
pub fn render(raw: &[u8], hint: Option<&Hint>, call: &Call) -> Option<Rendered> {
    render_typed(raw, hint, call).0
}

/// `render`, and for text with a hint its typed result (`crate::typed`).
pub fn render_typed(raw: &[u8], hint: Option<&Hint>, call: &Call) -> (Option<Rendered>, Option<TypedResult>) {
    render_routed(route(raw, None, hint, call), hint, call)
}

/// `render_typed` for bytes whose `route` the caller already took (the
/// handoff, which asks it whether a document takes the large path).
pub fn render_routed(
    route: Route,
    hint: Option<&Hint>,
    call: &Call,
) -> (Option<Rendered>, Option<TypedResult>) {
    let text = match route {
        Route::Binary => return (None, None),
        Route::Json { text, .. } => match crate::json::parse::parse_text(text) {
            Some(value) => {
                let rendered = render_focused(value, text, hint, call);
                return (Some(crate::json::with_status(rendered, hint.map(|h| h.exit_code))), None);
            }
            None => text,
        },
        Route::Text(text) => {
            if crate::debug::enabled() && crate::json::parse::too_dense(text.as_bytes()) {
                eprintln!(
                    "tokensieve: JSON whose tree would take over {}x its {} bytes: rendered as text",
                    crate::json::parse::MAX_TREE_RATIO,
                    text.len()
                );
            }
            text
        }
    };
    let (rendered, result) = crate::text::render_typed(text, hint, call);
    (view_if_over_budget(text, rendered, hint, call), result)
}

/// `json::compress`, or above the budget a view of the document (`crate::view`).
/// `raw`: the input (no view is needed when it fits the budget itself).
pub fn render_json(value: serde_json::Value, raw: json::Source, call: &Call) -> Rendered {
    render_json_sampled(value, raw, call).0
}

/// `render_json`, with the sample its router picked the shape on (see
/// `json::router::route_within_sampled`).
fn render_json_sampled(
    value: serde_json::Value,
    raw: json::Source,
    call: &Call,
) -> (Rendered, json::router::Sampled) {
    // The view counts the document as the tool wrote it: measure it now,
    // before the sieve and deduper consume it.
    let started = std::time::Instant::now();
    let prep = call
        .budget
        .filter(|b| raw.len() > *b)
        .map(|_| crate::view::prepare(&value, json::slurped(raw, &value), call));
    let measured = started.elapsed();
    let reduced = json::reduce(value, call);
    let mut sampled = None;
    let (out, how) = match prep {
        // Certainly over the budget: no full rendering to throw away.
        Some(prep) if prep.certain => (crate::view::json(prep, &reduced, raw, call), "certain"),
        // Otherwise the rendering decides, and it stops as soon as it is
        // over the budget.
        prep => {
            let cap = prep.as_ref().and(call.budget);
            let (routed, sample) = json::router::route_within_sampled(&reduced, call.encoding, cap);
            sampled = sample;
            match (routed, prep) {
                (Some(rendered), _) => (rendered, "fits"),
                (None, Some(prep)) => (crate::view::json(prep, &reduced, raw, call), "measured"),
                (None, None) => (json::router::route(&reduced, call.encoding), "fits"),
            }
        }
    };
    if crate::debug::enabled() && raw.len() > call.budget.unwrap_or(usize::MAX) {
        eprintln!(
            "tokensieve: view prepared in {} ms, rendered in {} ms ({how})",
            measured.as_millis(),
            (started.elapsed() - measured).as_millis()
        );
    }
    call.let_go(reduced);
    (out, sampled)
}

/// `render_json`, or above the focus size a focus view (`crate::focus`)
/// when it saves a quarter of the tokens or more; past the budget, the
/// focus view when it fits (every record, fewer fields), else the budget
/// view (every field, fewer records): one decision for both views.
/// (`text`: what `value` was parsed from, by `json::parse::parse_text`.)
pub fn render_focused(value: serde_json::Value, text: &str, hint: Option<&Hint>, call: &Call) -> Rendered {
    let raw = json::Source::Bytes(text.as_bytes());
    let Some(size) = call.focus else { return render_json(value, raw, call) };
    // Fewer bytes than the focus size in tokens: the rendering is smaller.
    // From 1 MiB on, the document is the large path's (`handoff::large`),
    // whose tree must not be copied: the budget view is its view.
    if raw.len() <= size || raw.len() >= LARGE_JSON {
        return render_json(value, raw, call);
    }
    let words = hint.map(|h| h.command.as_slice()).unwrap_or(&[]);
    // Within the budget (or none) the rendering is no budget view, so a
    // view must save tokens: when the router's sample shows it cannot,
    // the document is not even copied for it.
    let under_budget = call.budget.is_none_or(|b| raw.len() <= b);
    let (doc, full) = match under_budget {
        true => match render_beside_gate(value, text, words, call) {
            Gated::Whole(full) => return full,
            Gated::ForView(doc, full) => (doc, full),
        },
        false => (value.clone(), render_json(value, raw, call)),
    };
    let over_budget = matches!(full.shape, Shape::View { .. });
    let full_tokens = crate::auditor::count(call.encoding, &full.text);
    if !over_budget && full_tokens <= size {
        return full;
    }
    if !under_budget && !over_budget && !crate::focus::may_save(&doc, words, call) {
        return full;
    }
    let slurp = json::slurped(raw, &doc);
    // What the view must stay within to be chosen (past the budget: fit
    // it; under it: save a quarter of the tokens), known before it is made
    // so that it can give up before the costly part.
    let within = match over_budget {
        true => crate::focus::Within { chars: call.budget, tokens: None },
        false => crate::focus::Within {
            chars: None,
            tokens: Some((full_tokens as f64 * (1.0 - crate::focus::MIN_SAVING)) as usize),
        },
    };
    match crate::focus::view(&doc, words, slurp, call, within) {
        Some(v) if within.holds(&v.text, call) => v,
        _ => full,
    }
}

/// `render_json` of a document within the budget, with the focus view's
/// gate (`focus::may_save`) asked beside it on the other core. On
/// a document past the router's sample size the gate needs only the
/// sample, a copy, so the rendering may consume the tree meanwhile; when a
/// view may save after all, `text` is parsed again (the same tree) rather
/// than every tree copied up front. The gate was ~a quarter of the main
/// thread's time on 200 KB of AWS JSON (docs/performance.md, issue 23).
fn render_beside_gate(value: serde_json::Value, text: &str, words: &[String], call: &Call) -> Gated {
    let raw = json::Source::Bytes(text.as_bytes());
    let Some(sample) = json::router::sampled(&value) else {
        // No sample: the gate cannot tell, the view is tried.
        return Gated::ForView(value.clone(), render_json(value, raw, call));
    };
    // A panic of the gate's comes back here, for the delivery's guard.
    let (gate, (full, routed)) = crate::threads::both(
        || crate::focus::SampleGate::new(sample, words, call),
        || render_json_sampled(value, raw, call),
    );
    let may_save = gate.may_save(&routed, call);
    call.let_go((gate, routed));
    if !may_save {
        return Gated::Whole(full);
    }
    match json::parse::parse_text(text) {
        Some(doc) => Gated::ForView(doc, full),
        None => Gated::Whole(full),
    }
}

/// What `render_beside_gate` found.
enum Gated {
    /// No view can save tokens: the whole rendering is the answer.
    Whole(Rendered),
    /// A view may: the document as parsed, and its whole rendering.
    ForView(serde_json::Value, Rendered),
}

/// Which path the bytes take, decided once, here: the empty, NUL and
/// UTF-8 checks, JSON or text, and the large path, one pass each.
pub enum Route<'a> {
    /// Empty, NUL bytes or invalid UTF-8: never touched.
    Binary,
    /// The JSON path when it parses (else text). `large`: `LARGE_JSON`
    /// bytes or more that the parser reads as they are, for `handoff`'s
    /// large path (parsed from a stored copy, the bytes let go first).
    Json {
        text: &'a str,
        large: bool,
    },
    Text(&'a str),
}

/// The route of `raw`, given the sniff of its first bytes when the caller
/// took it (the shim's capture; `None`: taken here). Only what opens like
/// JSON is parsed as JSON. An excerpt (JSON lines past the capture cap) is
/// some lines of a larger output: rendered as text, whose numbers speak of
/// the whole. So is a command's log written as JSON lines of records: a
/// log, its records quoted (`text::json_lines_log`).
pub fn route<'a>(raw: &'a [u8], first: Option<Sniff>, hint: Option<&Hint>, call: &Call) -> Route<'a> {
    if raw.is_empty() || raw.contains(&0) {
        return Route::Binary;
    }
    let Ok(text) = std::str::from_utf8(raw) else { return Route::Binary };
    let first = first.unwrap_or_else(|| sniff(&raw[..raw.len().min(SNIFF_LIMIT)]));
    // Past SNIFF_LIMIT bytes of whitespace and escapes the capture calls it
    // text; a caller that never sniffed lets the parser decide.
    let json = matches!(first, Sniff::Json | Sniff::NeedMore)
        && call.excerpt.is_none()
        && !(hint.is_some() && crate::text::json_lines_log(text))
        // a large document whose tree would pass the memory bound: read as
        // text, whose view shows its start and the jq command that asks it
        && !crate::json::parse::too_dense(raw);
    match json {
        true => {
            Route::Json { text, large: raw.len() >= LARGE_JSON && crate::json::parse::readable_as_is(text) }
        }
        false => Route::Text(text),
    }
}

/// Inputs from this size on take the JSON path from a stored copy when the
/// parser reads them as they are (`handoff`'s large path: the bytes are let
/// go before the tree is built). Below it the tree is small whatever its
/// ratio, and parsing from memory is faster.
pub const LARGE_JSON: usize = 1 << 20;

/// Past the budget, a view instead of the rendering (or of the text that
/// would pass as it is), under the guard like any rendering.
fn view_if_over_budget(
    text: &str,
    rendered: Option<Rendered>,
    hint: Option<&Hint>,
    call: &Call,
) -> Option<Rendered> {
    // Past the budget (the summary, or the text that would pass as it is):
    // a view by signal priority rather than the harness's blind cut.
    match rendered {
        Some(r) if !budget::fits(&r.text, call.budget) => {
            // A tool-aware summary keeps its facts in its own lines: view
            // those; the generic one is the raw output folded, view the raw.
            let summary = matches!(&r.shape, Shape::Text(name) if name != "generic").then(|| r.shape.clone());
            let of_summary = summary.is_some();
            let view = match summary {
                Some(shape) => crate::view::text(&r.text, Some(shape), hint, call),
                None => crate::view::text(text, None, hint, call),
            };
            checked_view(text, view, of_summary, Some(r), hint, call)
        }
        None if !budget::fits(text, call.budget) => {
            checked_view(text, crate::view::text(text, None, hint, call), false, None, hint, call)
        }
        other => other,
    }
}

/// The guard's last word over a view (`text::check_rendering`): a view of
/// a summary that lost signal lines gives way to the raw output's view
/// (which counts what it cannot show), and one that still fails to
/// `checked`, the rendering the guard passed (`None`: the raw bytes) —
/// unless no count could be checked (see below).
fn checked_view(
    text: &str,
    view: Rendered,
    of_summary: bool,
    checked: Option<Rendered>,
    hint: Option<&Hint>,
    call: &Call,
) -> Option<Rendered> {
    let Err(why) = crate::text::check_rendering(text, &view.text, call) else { return Some(view) };
    if of_summary {
        let raw_view = crate::view::text(text, None, hint, call);
        if crate::text::check_rendering(text, &raw_view.text, call).is_ok() {
            return Some(raw_view);
        }
    }
    // Without the whole raw output stored (an excerpt of an output too
    // large to hold, or the store off) no count line can be checked: the
    // view, which states every gap, rather than a blind cut.
    let countable = call.raw_id.is_some() && call.excerpt.is_none();
    if crate::debug::enabled() {
        let instead =
            if countable { "the checked rendering" } else { "it all the same (nothing to count with)" };
        eprintln!("tokensieve: the view {why}; delivering {instead}");
    }
    if countable { checked } else { Some(view) }
}

/// `render`, with a panic anywhere in the pipeline turned into "the raw
/// bytes" and one stderr line: for callers that only measure a rendering
/// (`handoff::assess`, `session compact`); a delivery's guard is
/// `handoff::deliver`'s.
pub fn render_guarded(raw: &[u8], hint: Option<&Hint>, call: &Call) -> Option<Rendered> {
    let rendered = caught(|| render(raw, hint, call));
    if rendered.is_none() {
        eprintln!("tokensieve: internal error while compressing; raw output delivered");
    }
    rendered.flatten()
}

/// Runs `stage` with a panic turned into `None`, the panic's own message
/// kept off stderr (the caller writes the one line that says what it did).
pub fn caught<T>(stage: impl FnOnce() -> T) -> Option<T> {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(stage));
    std::panic::set_hook(prev);
    out.ok()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::settings::Settings;

    /// 400 records, past the router's sample size: with one-token etags a
    /// focus view keeps nearly every token (the gate says no), with long
    /// hashes it leaves most of them out (the gate says yes).
    fn records(etag: &dyn Fn(usize) -> String) -> String {
        let recs: Vec<Value> = (0..400)
            .map(|i| {
                json!({"InstanceId": format!("i-{i:017x}"), "State": "running", "Name": format!("web-{i}"),
                       "Zone": "us-east-1a", "Etag": etag(i)})
            })
            .collect();
        serde_json::to_string_pretty(&json!({"Items": recs})).unwrap()
    }

    #[test]
    fn the_gate_beside_the_rendering_decides_as_when_it_ran_first() {
        let call: Call = Call {
            raw_id: Some("abc123".into()),
            ..Call::from(Settings { focus: Some(10), budget: None, ..Settings::default() })
        };
        let words = ["tool".to_string()];
        let hint = Hint { command: words.to_vec(), exit_code: 0 };
        let parsed = |text: &str| json::parse::parse_text(text).expect("JSON");
        let short = |_| "ab".to_string();
        let hash = |i| format!("{i:064x}");
        let cases: [(&dyn Fn(usize) -> String, bool); 2] = [(&short, false), (&hash, true)];
        for (etag, view) in cases {
            let text = records(etag);
            let doc = parsed(&text);
            assert!(json::router::sampled(&doc).is_some(), "past the sample size");
            assert_eq!(crate::focus::may_save(&doc, &words, &call), view);
            let got = render_focused(parsed(&text), &text, Some(&hint), &call);
            let whole = render_json(parsed(&text), json::Source::Bytes(text.as_bytes()), &call);
            match view {
                // The tree the rendering consumed is parsed again for the view.
                true => {
                    let within = crate::focus::Within { chars: None, tokens: None };
                    let made = crate::focus::view(&doc, &words, false, &call, within).expect("a view");
                    assert_eq!(got.text, made.text);
                    assert!(got.text.len() < whole.text.len());
                }
                false => assert_eq!(got.text, whole.text),
            }
        }
    }
}

/// No user filter can drop a signal line the ledger marks, through the
/// whole rendering.
#[cfg(test)]
mod user_filter_properties {
    use proptest::prelude::*;

    use crate::settings::{Hint, Settings};
    use crate::userfilter::{Replace, Spec, UserFilter};

    /// Signal lines of several detector kinds.
    fn signal() -> impl Strategy<Value = String> {
        (0usize..10, 1u32..900).prop_map(|(kind, n)| match kind {
            0 => format!("src/app.c:{n}:3: error: expected ';' before '}}'"),
            1 => format!("error[E0{n:03}]: mismatched types"),
            2 => format!("FAILED tests/test_cart.py::test_total_{n} - assert 3 == 4"),
            3 => format!("--- FAIL: TestQueue{n} (0.01s)"),
            4 => format!("2026-01-01 12:00:{:02} ERROR payment {n} declined", n % 60),
            5 => format!("[{n}.000100] Out of memory: Killed process {n} (java)"),
            6 => format!("thread 'main' panicked at src/lib.rs:{n}:5:"),
            7 => format!("make: *** [Makefile:{n}: all] Error 2"),
            8 => format!("FATAL disk {n} unreadable"),
            _ => format!("{n} passed, 2 failed in 0.3s"),
        })
    }

    fn noise() -> impl Strategy<Value = String> {
        (0usize..4, 1u32..5000).prop_map(|(k, n)| match k {
            0 => format!("processing item {n} ok"),
            1 => format!("  inflating: lib/file{n}.txt"),
            2 => String::new(),
            _ => format!("fetched {n} bytes"),
        })
    }

    /// Filters that try hard to lose lines: drop all, keep nothing,
    /// erase the error words, cut to a line, fold, on_empty.
    fn hostile() -> impl Strategy<Value = Spec> {
        let drops = prop::sample::select(vec![vec![], vec!["."], vec!["(?i)error|fail|fatal|panic|memory"]]);
        let keeps = prop::sample::select(vec![vec![], vec!["^zzz"], vec!["ok$"]]);
        let erase = any::<bool>();
        (
            drops,
            keeps,
            erase,
            prop::option::of(0usize..3),
            prop::option::of(0usize..3),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(drop, keep, erase, head, tail, fold, builtin)| Spec {
                matches: Some("mytool run".into()),
                drop: drop.into_iter().map(String::from).collect(),
                keep: keep.into_iter().map(String::from).collect(),
                replace: if erase {
                    vec![Replace {
                        pattern: "(?i)error|failed|fatal|panicked|killed".into(),
                        with: "".into(),
                    }]
                } else {
                    vec![]
                },
                head,
                tail,
                fold,
                on_empty: Some("all good".into()),
                builtin: Some(builtin),
                ..Spec::default()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        /// No user filter can drop a signal line the ledger marks.
        #[test]
        fn no_user_filter_loses_a_signal_line(
            spec in hostile(),
            noise in prop::collection::vec(noise(), 0..300),
            signals in prop::collection::vec((signal(), any::<prop::sample::Index>()), 1..6),
        ) {
            let mut lines = noise;
            for (s, at) in &signals {
                let k = at.index(lines.len() + 1);
                lines.insert(k, s.clone());
            }
            let raw = lines.join("\n") + "\n";
            let ledger = crate::lines::ledger::scan(raw.split('\n'));
            let all: Vec<&str> = raw.split('\n').collect();
            let filter = UserFilter::compile(&spec).unwrap();
            let settings = Settings { user_filters: std::sync::Arc::from(vec![filter]), ..Settings::default() };
            let hint = Hint { command: vec!["mytool".into(), "run".into()], exit_code: 1 };
            let out = crate::pipeline::render(raw.as_bytes(), Some(&hint), &settings.into())
                .map_or_else(|| raw.clone(), |r| r.text);
            for (s, _) in &signals {
                let marked = all.iter().enumerate().any(|(i, l)| l == s && ledger.kind(i).is_some());
                prop_assert!(marked, "the ledger does not mark {:?}", s);
                prop_assert!(out.contains(s.as_str()), "lost {:?} with {:?}:\n{}", s, spec, out);
            }
        }
    }
}
