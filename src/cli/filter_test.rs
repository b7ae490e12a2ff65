//! `tokensieve filter test [FILE|DIR]`: the inline `[[filter.test]]`s of a
//! settings file (every `*.toml` of a folder; without one, the filters in
//! force). `tokensieve filter try FILE --cmd "CMD" [--exit N] < capture`:
//! what a draft filter makes of a capture, delivered as the shim would,
//! with the receipt.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use super::out::outln;

use super::args::{FilterArgs, FilterVerb};
use crate::config::{self, parse_layer};
use crate::focus::library::{Run, View};
use crate::settings::Hint;
use crate::userfilter::{self, Spec, UserFilter};

pub(crate) fn run(args: FilterArgs) -> Result<ExitCode> {
    match args.verb {
        FilterVerb::Test(a) => match a.target {
            None => {
                let cfg = config::get();
                test_specs(cfg.filter_specs().to_vec(), cfg.view_specs().to_vec(), Vec::new())
            }
            Some(target) => test_path(&target),
        },
        FilterVerb::Try(a) => try_draft(&a.file, &a.cmd, a.exit),
    }
}

/// The filters and views of one file, and its warnings.
fn read(file: &Path) -> Result<(Vec<Spec>, Vec<View>, Vec<String>)> {
    let text = std::fs::read_to_string(file).with_context(|| format!("cannot read '{}'", file.display()))?;
    let layer = parse_layer(file, &text);
    Ok((layer.filters, layer.views, layer.warnings))
}

fn test_path(target: &Path) -> Result<ExitCode> {
    let files: Vec<PathBuf> = if target.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(target)
            .with_context(|| format!("cannot read '{}'", target.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        v.sort();
        v
    } else {
        vec![target.to_path_buf()]
    };
    let (mut specs, mut views, mut warnings) = (Vec::new(), Vec::new(), Vec::new());
    for f in files {
        let (s, v, w) = read(&f)?;
        specs.extend(s);
        views.extend(v);
        warnings.extend(w);
    }
    test_specs(specs, views, warnings)
}

fn test_specs(specs: Vec<Spec>, views: Vec<View>, warnings: Vec<String>) -> Result<ExitCode> {
    for w in &warnings {
        super::out::warn(w);
    }
    if specs.is_empty() && views.is_empty() {
        bail!("no [[filter]] or [[view]] to test");
    }
    let (mut passed, mut failed) = (0, 0);
    // A view: its programs compile and its inline tests pass.
    for view in &views {
        match view.check() {
            Ok(()) => {
                passed += 1;
                outln!("ok    view {} ({} tests)", view.name, view.test.len())?;
            }
            Err(e) => {
                failed += 1;
                let fail = super::out::paint("FAIL", super::out::Style::Bad, super::out::Stream::Stdout);
                outln!("{fail}  view {}\n  {e:#}", view.name)?;
            }
        }
    }
    for spec in &specs {
        if spec.test.is_empty() {
            outln!("--    {} ({}): no tests", spec.matches.as_deref().unwrap_or("regex"), spec.origin)?;
            continue;
        }
        for outcome in run_tests(spec) {
            match outcome.failure {
                None => {
                    passed += 1;
                    outln!("ok    {}", outcome.label)?;
                }
                Some(why) => {
                    failed += 1;
                    let fail = super::out::paint("FAIL", super::out::Style::Bad, super::out::Stream::Stdout);
                    outln!("{fail}  {} ({})\n  {why}", outcome.label, spec.origin)?;
                }
            }
        }
    }
    outln!("{passed} passed, {failed} failed")?;
    // A file that did not read whole is a failure too: a test may be missing.
    Ok(if failed == 0 && warnings.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn try_draft(file: &Path, cmd: &str, exit: i32) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    let (specs, _, warnings) = read(file)?;
    for w in &warnings {
        super::out::warn(w);
    }
    let mut drafts: Vec<UserFilter> = Vec::new();
    for spec in &specs {
        drafts.push(UserFilter::compile(spec).with_context(|| spec.origin.clone())?);
    }
    let command: Vec<String> = cmd.split_whitespace().map(str::to_owned).collect();
    if userfilter::pick(&drafts, &command).is_none() {
        super::out::warn(&format!("no filter in {} matches '{cmd}'", file.display()));
    }
    let mut settings = super::settings();
    // The draft first, then the filters in force.
    drafts.extend(config::get().user_filters().iter().cloned());
    settings.user_filters = Arc::from(drafts);
    let raw = super::inspect::read_stdin()?;
    let hint = Hint { command, exit_code: exit };
    // A draft tried on a capture is not a call of the tool.
    crate::handoff::not_a_call();
    crate::handoff::deliver(
        crate::handoff::Sink::Stdout,
        crate::handoff::Output::Whole(raw),
        Some(&hint),
        &settings,
        &config::get().store(),
        started,
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The outcome of one inline test.
struct Outcome {
    pub label: String,
    /// `None`: passed; else what went wrong.
    pub failure: Option<String>,
}

/// Runs `spec`'s inline tests through the whole rendering (guard, `exit N`
/// line) with `spec` as the only user filter and no budget.
fn run_tests(spec: &Spec) -> Vec<Outcome> {
    let filter = match UserFilter::compile(spec) {
        Ok(f) => f,
        Err(e) => return vec![Outcome { label: spec.origin.clone(), failure: Some(format!("{e:#}")) }],
    };
    let name = filter.name.clone();
    let settings = crate::settings::Settings {
        user_filters: std::sync::Arc::from(vec![filter]),
        budget: None,
        ..crate::settings::Settings::default()
    };
    spec.test
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let label = format!("{name}: {}", t.name.clone().unwrap_or_else(|| format!("test {}", i + 1)));
            let Some(cmd) = t.cmd.clone().or_else(|| spec.matches.clone()) else {
                return Outcome {
                    label,
                    failure: Some("a filter matched by regex needs `cmd` in its tests".into()),
                };
            };
            let hint = crate::settings::Hint {
                command: cmd.split_whitespace().map(str::to_owned).collect(),
                exit_code: t.exit,
            };
            let out = crate::pipeline::render(
                t.input.as_bytes(),
                Some(&hint),
                &crate::settings::Call::new(&settings),
            )
            .map_or_else(|| t.input.clone(), |r| r.text);
            Outcome { label, failure: judge(t, &out) }
        })
        .collect()
}

fn judge(t: &userfilter::Test, out: &str) -> Option<String> {
    let mut problems = Vec::new();
    // trailing blanks aside: a kept line keeps the tool's, invisible in TOML
    let lines = |s: &str| -> Vec<String> {
        s.trim_end_matches('\n').lines().map(|l| l.trim_end().to_owned()).collect()
    };
    if let Some(want) = &t.expected
        && lines(want) != lines(out)
    {
        problems.push(format!("expected:\n{}\n  got:\n{}", indent(want), indent(out)));
    }
    for c in &t.contains {
        if !out.contains(c.as_str()) {
            problems.push(format!("does not contain {c:?}; got:\n{}", indent(out)));
        }
    }
    for a in &t.absent {
        if out.contains(a.as_str()) {
            problems.push(format!("contains {a:?}"));
        }
    }
    (!problems.is_empty()).then(|| problems.join("\n  "))
}

fn indent(text: &str) -> String {
    text.trim_end_matches('\n').lines().map(|l| format!("    | {l}")).collect::<Vec<_>>().join("\n")
}
