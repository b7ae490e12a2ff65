//! The guard has the last word over every byte the agent reads, views
//! included: every text fixture (fixtures/text, its `.signal.json` giving
//! the command and exit code) rendered under every budget from 2,000 to
//! 25,000 chars, and the guard's verdict (`text::check_rendering`: every
//! signal line of the ledger present verbatim, or counted by a
//! `tokensieve show ID --grep` line whose grep prints what it says) taken
//! on the bytes delivered. What is delivered must also fit the budget.
//! (A fixture that is a JSON document takes the JSON path: lossless up to
//! its view, which keeps whole rows; the text guard does not apply.)

use std::path::{Path, PathBuf};

use tokensieve::auditor::Shape;
use tokensieve::settings::{Call, Hint, Settings};

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
