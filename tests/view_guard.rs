//! The guard has the last word over every byte the agent reads, views
//! included: every text fixture (fixtures/text, its `.signal.json` giving
//! the command and exit code) rendered under every budget from 2,000 to
//! 25,000 chars, and the guard's verdict (`text::check_rendering`: every
//! signal line of the ledger present verbatim, or counted by a
//! `tokensieve show ID --grep` line whose grep prints what it says) taken
//! on the bytes delivered. What is delivered must also fit the budget.
//! (A fixture that is a JSON document takes the JSON path: lossless up to
//! its view, which keeps whole rows; the text guard does not apply.)
//!
//! JSON views get the same treatment: every JSON fixture (fixtures/json,
//! with its MANIFEST command as hint) under every budget from 2,000 to
//! 25,000 chars, and what is delivered must fit and be true — a budget
//! view's figures and rows are the raw's (`common::json_views::check_view`),
//! a focus view's command prints exactly the fields it leaves out
//! (`check_focus`, the command run by `tokensieve::jq` over the raw bytes).

mod common;

use std::path::{Path, PathBuf};

use common::json_views::{check_focus, check_view, header, manifest_commands};
use tokensieve::auditor::Shape;
use tokensieve::settings::{Call, Dedup, Epoch, Hint, Settings};

/// The id the raw output is stored under (any hex: the guard runs the
/// count lines' greps over the raw text itself).
const ID: &str = "0123456789ab";

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            fixtures(&path, out);
        } else if path.extension().is_some_and(|e| e == "txt") && path.with_extension("signal.json").exists()
        {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_under_every_budget_passes_the_guard() {
    let mut files = Vec::new();
    fixtures(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text"), &mut files);
    files.sort();
    assert!(files.len() > 200, "{} fixtures", files.len());
    let mut problems = Vec::new();
    let mut views = 0;
    for file in &files {
        let Ok(raw) = std::fs::read_to_string(file) else { continue };
        let sig: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file.with_extension("signal.json")).unwrap())
                .unwrap();
        let hint = Hint {
            command: sig["command"].as_str().unwrap().split_whitespace().map(str::to_owned).collect(),
            exit_code: sig["exit_code"].as_i64().unwrap() as i32,
        };
        let chars = raw.chars().count();
        for budget in (2_000..=25_000).step_by(1_000) {
            // A text that fits its budget with room to spare is never a
            // view: its renderings are checked where they are made.
            if chars * 2 < budget {
                continue;
            }
            let settings = Call {
                raw_id: Some(ID.into()),
                raw_note: Some(format!("full output: tokensieve show {ID}")),
                ..Call::from(Settings { budget: Some(budget), ..Settings::default() })
            };
            let rendered = tokensieve::pipeline::render(raw.as_bytes(), Some(&hint), &settings);
            let name = format!("{} @ {budget}", file.display());
            // Past the budget, what the agent reads is a view (the raw
            // bytes would be cut blindly by the harness).
            let Some(r) = rendered else {
                if chars > budget {
                    problems.push(format!("{name}: the raw bytes, {chars} chars"));
                }
                continue;
            };
            // The JSON path (a fixture that is a JSON document) is lossless
            // up to its view, which cuts whole rows: no ledger lines there.
            let text_path = match &r.shape {
                Shape::View { of, .. } => matches!(**of, Shape::Text(_)),
                shape => matches!(shape, Shape::Text(_)),
            };
            if !text_path {
                continue;
            }
            if let Err(why) = tokensieve::text::check_rendering(&raw, &r.text, &settings) {
                problems.push(format!("{name} ({}): {why}", r.shape));
            }
            views += usize::from(matches!(r.shape, Shape::View { .. }));
            let len = r.text.chars().count();
            if len > budget {
                problems.push(format!("{name} ({}): {len} chars", r.shape));
            }
        }
    }
    assert!(views > 100, "only {views} views were checked");
    assert!(problems.is_empty(), "{} of the deliveries fail:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn every_json_fixture_under_every_budget_gets_a_true_view_that_fits() {
    let cmds = manifest_commands();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json");
    let (mut outlines, mut focused, mut problems) = (0, 0, Vec::new());
    for file in common::json_fixtures() {
        let rel = file.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let raw = std::fs::read(&file).unwrap();
        let chars = String::from_utf8_lossy(&raw).chars().count();
        let hint = cmds
            .get(&rel)
            .map(|c| Hint { command: c.split_whitespace().map(str::to_owned).collect(), exit_code: 0 });
        let doc = tokensieve::json::parse(&raw);
        for budget in (2_000..=25_000).step_by(1_000) {
            // Documents of a megabyte and more (two, each over every
            // budget by far, each render seconds long in a debug build):
            // every fourth budget.
            if chars * 2 < budget || (raw.len() >= 1 << 20 && budget % 4_000 != 0) {
                continue;
            }
            let name = format!("{rel} @ {budget}");
            // As the shim renders it: the default focus size, the raw
            // stored under ID; dedup and epochs as given (off, kept) where a
            // focus view is checked value for value.
            let render = |dedup, epoch| {
                let settings = Call {
                    raw_id: Some(ID.into()),
                    raw_note: Some(format!("full output: tokensieve show {ID}")),
                    ..Call::from(Settings {
                        budget: Some(budget),
                        focus: Some(tokensieve::budget::FOCUS_DEFAULT),
                        dedup,
                        epoch,
                        ..Settings::default()
                    })
                };
                tokensieve::pipeline::render(&raw, hint.as_ref(), &settings)
            };
            let Some(r) = render(Dedup::Default, None) else {
                if chars > budget {
                    problems.push(format!("{name}: the raw bytes, {chars} chars"));
                }
                continue;
            };
            let len = r.text.chars().count();
            if len > budget {
                problems.push(format!("{name} ({}): {len} chars", r.shape));
            }
            let Some(doc) = &doc else { continue };
            if r.text.starts_with("# view: focus on ") {
                let r = render(Dedup::Off, Some(Epoch::Keep)).unwrap();
                let (_, program, slurp) = header(r.text.lines().next().unwrap());
                let printed: Vec<serde_json::Value> = tokensieve::jq::run(&program, &raw, slurp)
                    .unwrap_or_else(|e| panic!("{name}: `{program}`: {e:#}"))
                    .iter()
                    .map(|s| serde_json::from_str(s).unwrap())
                    .collect();
                let answer = match <[serde_json::Value; 1]>::try_from(printed) {
                    Ok([one]) => one,
                    Err(many) => serde_json::Value::Array(many),
                };
                // As `show --jq` hands it to the agent: through the JSON
                // stages (empty values sieved out), dedup off, epochs kept.
                let as_shown =
                    Settings { dedup: Dedup::Off, epoch: Some(Epoch::Keep), ..Settings::default() };
                let answer = tokensieve::json::reduce(answer, &as_shown);
                problems.extend(failed(|| check_focus(&name, doc, &r.text, answer)));
                focused += 1;
            } else if matches!(r.shape, Shape::View { .. }) {
                problems.extend(failed(|| {
                    check_view(&name, &raw, &r.text);
                }));
                outlines += 1;
            }
        }
    }
    assert!(problems.is_empty(), "{} of the deliveries fail:\n{}", problems.len(), problems.join("\n"));
    assert!(outlines > 20 && focused > 100, "{outlines} budget views, {focused} focus views checked");
}

/// A check's panic message, so that one run lists every failing case.
fn failed(check: impl FnOnce()) -> Option<String> {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).err()?;
    Some(err.downcast_ref::<String>().cloned().unwrap_or_else(|| "a check failed".into()))
}
