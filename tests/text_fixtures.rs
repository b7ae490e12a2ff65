//! Every captured dev-tool run in fixtures/text (the shared corpus) and
//! fixtures/text/local (runs captured on this machine, see its README) goes
//! through the real binary as `tokensieve --cmd CMD --exit N`: every
//! `must_keep` string survives, a non-zero status is stated as `exit N`, and
//! the receipt never shows more tokens out than in; outputs of 2,000+ tokens
//! are at least halved and each set saves 80 % overall. The set folders under
//! fixtures/text/local (build, tests, lint, logs, pkg, search, vcs, docs: see the
//! README there) are checked the same way; a set whose `KIND` file reads
//! `documents` is checked for must_keep and never-worse only.
//!
//! `KNOWN_FAILURES` lists the captures that fail today, each with the kind of
//! failure (fixtures/text/local/README.md explains each kind). It is strict:
//! a listed capture that passes fails the test until its row is removed, so
//! the list only shrinks as the renderers get fixed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Outcome {
    stdout: String,
    original: usize,
    compressed: usize,
    shape: String,
}

fn run(cmd: &str, exit: i64, input: &[u8], home: &Path) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .args(["--cmd", cmd, "--exit", &exit.to_string()])
        .env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE")
        .env_remove("CLAUDECODE")
        .env_remove("TOKENSIEVE_BUDGET")
        .env_remove("BASH_MAX_OUTPUT_LENGTH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tokensieve runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "tokensieve failed for {cmd}: {}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let receipt = stderr.lines().find(|l| l.starts_with("[TokenSieve]")).expect("a receipt line").to_string();
    let field = |name: &str| -> String {
        let at = receipt.find(name).unwrap_or_else(|| panic!("{name} in {receipt}")) + name.len();
        receipt[at..].trim_start().split([' ', '|']).next().unwrap().to_string()
    };
    Outcome {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        original: field("Original:").parse().unwrap(),
        compressed: field("Compressed:").parse().unwrap(),
        shape: field("Shape:"),
    }
}

fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

/// Captures that lose signal or miss a size target today: `set/name` and the
/// kind of failure. Remove a row when its capture passes.
const KNOWN_FAILURES: &[(&str, &str)] = &[
    (
        "docs/git-show-long-message",
        "over the budget: long added runs of the diff cut to `… N more added lines (tokensieve show ID --lines A:B) …`",
    ),
    ("docs/man-git-log-overstrike", "over the 25,000-char budget: a view of the page, not all of it"),
    ("docs/man-grep", "over the 25,000-char budget: a view of the page, not all of it"),
    ("lint/cppcheck-all", "not halved: 60 `unusedFunction` findings, one line each, quoted as printed"),
    ("lint/pylint-json", "not halved: a finding list under the condense size passes whole"),
    (
        "lint/pylint-logging",
        "convention findings condensed by family (locations and names kept, not each line); not halved",
    ),
    ("lint/pyright-logging", "not halved: error findings are kept one by one"),
    ("search/grep-context-lines", "not halved: every hit and its context lines are the answer"),
    ("search/git-grep-pub-fn", "not halved: every hit is the answer"),
    ("search/grep-rn-many-per-file", "over the budget: files past it counted with their command; not halved"),
    ("search/grep-rn-raise", "not halved: every hit is the answer"),
    ("search/rg-many-per-file", "not halved: every hit is the answer"),
    (
        "local/git-log-stat",
        "not halved: written commit messages are a document; over the budget the view shows 492 of 594 lines",
    ),
    ("local/find-real", "not halved: within the budget every path is the answer, as printed"),
    // issue 26: every finding is quoted as printed, so a list of findings
    // and little else is not halved
    (
        "unfiltered/bandit-werkzeug",
        "not halved: each issue's header, severity, CWE and location kept, code excerpts go",
    ),
    (
        "unfiltered/coverage-report",
        "not halved: a coverage table of 70 files passes whole (no finding, no noise)",
    ),
    ("unfiltered/pydocstyle-ntheory", "not halved: every finding and its message line kept"),
    ("unfiltered/pydocstyle-werkzeug", "not halved: every finding and its message line kept"),
    ("unfiltered/vulture-werkzeug", "not halved: 210 findings, one line each, quoted as printed"),
    (
        "unfiltered/rubocop-stdlib",
        "over the 25,000-char budget: findings past the view's share left to its command",
    ),
    // the held-out set (measured, not tuned on)
    ("unfiltered-heldout/htmlhint-pydoc-html", "not halved: every finding and its message line kept"),
    ("unfiltered-heldout/markdownlint-npm-readmes", "not halved: one finding a line, quoted as printed"),
    // its later runs (repro/unfiltered6.sh, measured, not tuned on)
    (
        "unfiltered-heldout/clang-format-dry-run",
        "not halved: 56 one-line findings of one rule, each with its source line and caret",
    ),
    (
        "unfiltered-heldout/wget-spider-broken-links",
        "not halved: wget's per-URL request blocks read as a document and pass nearly whole",
    ),
    // the second held-out set's later runs (measured, not tuned on)
    ("unfiltered-heldout2/splint-strict-ring", "not halved: 49 findings of several lines each"),
    // the third held-out set (measured, not tuned on)
    (
        "unfiltered-heldout3/perlcritic-stdlib",
        "over the 25,000-char budget: findings past the view's share left to its command; not halved",
    ),
    (
        "unfiltered-heldout3/cspell-docs-perllib",
        "not halved: 408 findings of one shape cost most of their size",
    ),
    // the fourth held-out set (repro/unfiltered7.sh, measured, not tuned on)
    (
        "unfiltered-heldout4/cg-annotate-sortbench",
        "not halved: cg_annotate's tables and annotated source read as a document and pass whole",
    ),
    (
        "unfiltered-heldout4/jfr-summary",
        "not halved: jfr's event-count table reads as a document and passes whole",
    ),
    (
        "unfiltered-heldout4/nstat-az",
        "not halved: a counter table of 396 lines reads as a document and passes whole",
    ),
    (
        "unfiltered-heldout4/objdump-disassemble",
        "not halved: a disassembly reads as a document and passes whole",
    ),
    (
        "unfiltered-heldout4/pidstat-urd",
        "not halved (2,014 -> 1,424 tokens): the closing `Average:` tables are the tail, whole, and the \
         middle quotes the rows of templates seen once",
    ),
    (
        "unfiltered-heldout4/sysctl-all",
        "over the 25,000-char budget: a view of the first and last settings; not halved (read as a document)",
    ),
    (
        "unfiltered-heldout4/vacuumdb-verbose",
        "over the 25,000-char budget: read as a document, the view's hidden middle holds the racks table's \
         `tuples: 60 removed` (0 signal lines)",
    ),
];

/// Sets whose total savings are under the 80 % goal today.
/// (pkg: terraform plans and apt plans keep every planned resource/package.)
/// (unfiltered-heldout: lists of findings of tools no filter names, folded
/// by rule with every place and value listed, still cost about half their
/// size; unfiltered-heldout2: tables (ps, readelf, gprof) pass whole; unfiltered-heldout3:
/// most of its 64 runs are short and pass raw, large lists of findings barely shrink;
/// unfiltered-heldout4: tables, counters and listings read as documents and pass whole.)
const SETS_UNDER_GOAL: &[&str] = &[
    "build",
    "tests",
    "lint",
    "pkg",
    "search",
    "vcs",
    "unfiltered-heldout",
    "unfiltered-heldout2",
    "unfiltered-heldout3",
    "unfiltered-heldout4",
];

/// What fails in one set folder (empty: all holds).
fn check_dir(dir: &Path, min: usize) -> Vec<String> {
    let home = tempfile::tempdir().unwrap();
    let files = fixtures(dir);
    assert!(files.len() >= min, "expected at least {min} fixtures in {}", dir.display());
    let set = dir.file_name().unwrap().to_string_lossy().into_owned();
    let documents = std::fs::read_to_string(dir.join("KIND")).is_ok_and(|k| k.trim() == "documents");
    let mut problems = Vec::new();
    let mut known_passing = Vec::new();
    let (mut total_in, mut total_out) = (0usize, 0usize);
    for txt in &files {
        let before = problems.len();
        let sidecar = txt.with_extension("signal.json");
        let sig: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
        let cmd = sig["command"].as_str().unwrap();
        let exit = sig["exit_code"].as_i64().unwrap();
        let raw = std::fs::read(txt).unwrap();
        let o = run(cmd, exit, &raw, home.path());
        let name = txt.file_name().unwrap().to_string_lossy();
        for keep in sig["must_keep"].as_array().unwrap() {
            let keep = keep.as_str().unwrap();
            if !o.stdout.contains(keep) {
                problems.push(format!("{name}: lost {keep:?}"));
            }
        }
        // a non-zero status is stated, unless the output went through raw
        // (tiny or not compressible: stating it would cost more than raw)
        if exit != 0 && !o.stdout.contains(&format!("exit {exit}")) && o.shape != "raw" {
            problems.push(format!("{name}: exit {exit} not stated"));
        }
        if o.compressed > o.original {
            problems.push(format!("{name}: {} tokens out > {} in", o.compressed, o.original));
        }
        if !documents && o.original >= 2000 && o.compressed * 2 > o.original {
            problems.push(format!("{name}: large output not halved ({} → {})", o.original, o.compressed));
        }
        // The default budget (SPEC §6b): what the agent reads fits the window.
        if o.stdout.chars().count() > tokensieve::budget::DEFAULT {
            problems.push(format!("{name}: {} chars of stdout, over the budget", o.stdout.chars().count()));
        }
        if o.shape == "raw" {
            assert_eq!(o.stdout.as_bytes(), &raw[..], "{name}: raw shape must deliver the exact bytes");
        }
        total_in += o.original;
        total_out += o.compressed;
        let id = format!("{set}/{}", txt.file_stem().unwrap().to_string_lossy());
        if KNOWN_FAILURES.iter().any(|(k, _)| *k == id) {
            if problems.len() == before {
                known_passing.push(id);
            }
            problems.truncate(before);
        }
    }
    if !known_passing.is_empty() {
        problems.push(format!("now passing, remove from KNOWN_FAILURES: {known_passing:?}"));
    }
    let saved = 1.0 - total_out as f64 / total_in as f64;
    if documents {
        return problems;
    }
    // a set may state its own goal (a file GOAL: tools no filter names, 0.70)
    let goal: f64 = std::fs::read_to_string(dir.join("GOAL"))
        .map_or(0.80, |g| g.trim().parse().expect("GOAL holds a share"));
    if SETS_UNDER_GOAL.contains(&set.as_str()) {
        if saved >= goal {
            problems.push(format!("{set} now saves {:.1}%: remove it from SETS_UNDER_GOAL", saved * 100.0));
        }
    } else if saved < goal {
        problems.push(format!("{}: saved only {:.1}% (goal {goal})", dir.display(), saved * 100.0));
    }
    problems
}

/// Fails naming every problem of every set.
fn assert_sets(problems: Vec<String>) {
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn shared_corpus_keeps_signal_and_saves_tokens() {
    assert_sets(check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text"), 39));
}

#[test]
fn local_captures_keep_signal_and_save_tokens() {
    assert_sets(check_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/local"), 1));
}

/// Every set folder under fixtures/text/local (the repro scripts aside).
#[test]
fn local_sets_keep_signal_and_save_tokens() {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/local");
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&local)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "repro"))
        .collect();
    sets.sort();
    assert!(sets.len() >= 8, "expected the eight capture sets in {}", local.display());
    assert_sets(sets.iter().flat_map(|set| check_dir(set, 1)).collect());
    let listed: Vec<&str> = KNOWN_FAILURES.iter().map(|(k, _)| *k).collect();
    for id in listed {
        // `local/NAME` is a capture at the folder's top level
        let path = local.join(format!("{}.txt", id.strip_prefix("local/").unwrap_or(id)));
        assert!(path.exists(), "KNOWN_FAILURES names a missing capture: {id}");
    }
}

#[test]
fn without_a_hint_text_passes_through() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/cargo-test-fail.txt"))
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_tokensieve"))
        .env("TOKENSIEVE_HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(&raw)?;
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.stdout, raw);
}
