//! Text outputs: tool-aware summaries and the generic treatment (SPEC §6).
//!
//! Every text is cleaned first (`clean`) and its signal lines marked
//! (`ledger`). Then candidates, safest last: the user's filter for the
//! command (`crate::userfilter`), if any; the hint's command picks a
//! [`Filter`] (`filters/`); the generic treatment (`generic`: documents
//! whole, logs folded and summarised); the cleaned text whole. The guard
//! (`guard`) has the last word over each: the first candidate that keeps
//! every signal line (or counts it with the command that shows it) is the
//! answer. Status comes from the exit code only: a non-zero code is stated
//! as `exit N`, never guessed from the text.
//!
//! # Design: Text (`src/text/`)
//!
//! Non-JSON stdout reaches `text::render(text, hint, settings)` only with a hint
//! (the shim's command line, for every command an agent reads, or `--cmd
//! "cargo test" --exit 101` in filter mode); without one, text passes through
//! untouched. The layout follows the flow: `clean` → `ledger` → candidates
//! (`filters/`, `generic`) → `guard`, which has the last word.
//!
//! 1. `clean`: ANSI stripped, man-page overstrike (`N\bN`, `_\bN`) reduced to
//!    the printed character, each `\r`-redrawn line reduced to its final state
//!    (progress bars), lines of only blanks emptied (a line with content keeps
//!    its trailing blanks: quoted byte for byte, pytest's `test_x.py:24: `).
//!    Line numbers stay those of the raw output.
//! 2. `ledger` marks the signal lines of the cleaned text, independent of any
//!    filter: a pure function over lines (`ledger::scan`), or line by line
//!    (`ledger::Scanner`, for a capture that never holds the whole output).
//!    Detectors (`DETECTOR_SPECS`, one kind per line, first match wins):
//!    - trace: Python `Traceback`, its user frames (`File "…"` outside
//!      libraries) and final exception line, chaining lines; Java/Node/.NET `at`
//!      frames of user code and the error line above the first frame, every
//!      `Caused by:`; Go `panic:`, `fatal error:`, `goroutine N [...]:`; Rust
//!      `panicked at`;
//!    - diagnostic: `path:line[:col]: error|warning|fatal|style|portability|
//!      performance …` (also `(l,c)`), `path:l:c - error`, lint codes after a
//!      location (`E302`, `C0103:`), notes carrying a check code (`[SC2086]`),
//!      rustc `error[E…]:`/`error:`/`warning:` headers, `--> path:line:col`
//!      outside the toolchain, `error TS…`;
//!    - test-failure: `FAIL`, `FAILED`, `--- FAIL`, `not ok N`, `✗ ✕ × ✖`
//!      marks, ExUnit `N) test`, `rspec path:line`; Go's testing log lines
//!      (`    name_test.go:12: got 3, want 4`: indented, a bare `.go` file
//!      name) of a failed test — after its `--- FAIL:` line, or streamed
//!      before it with `-v` (held since the last `--- PASS`/`--- SKIP`, marked
//!      at a `--- FAIL:`, a `panic:` or the package's `FAIL`); a passing
//!      test's log is not signal;
//!    - oom: `Out of memory: Killed process`, `oom-killer`, `oom_reaper`,
//!      `OOMKilled`, `Killed process N`;
//!    - http-5xx: a 5xx status after `HTTP/x"` or in a `status=`/`code` field;
//!    - level: ERROR, FATAL, CRITICAL, SEVERE, EMERG, ALERT, PANIC in capitals,
//!      `level=error`, `"level":"error"`, `[error]`/`[crit]`, glog `E0123`;
//!    - summary: known result/footer lines (`test result:`, pytest's `== N
//!      passed in Xs ==`, `Tests: N …`, `Found N errors`, `added N packages`,
//!      `Finished …`, `BUILD …`, `make: ***`, `Plan: N to add` …) anywhere, and
//!      lines with a count of results among the last three non-blank lines.
//!
//!    Also, found on captures of kinds no filter was written for
//!    (`fixtures/text/local/repro/unseen.sh`): an exception line on its own
//!    (`TypeError: …`, `│ Error: …`, `java.lang.X: …`, `** (RuntimeError) …`),
//!    sanitizer reports (`==N==ERROR: AddressSanitizer`, `SUMMARY: …`), failed
//!    C asserts, UBSan `path:l:c: runtime error:`, Python warnings
//!    (`app.py:27: DeprecationWarning:`), linker errors (`undefined reference
//!    to`, `collect2: error:`), `CMake Error at`, shell errors (`x.sh: line N:
//!    … command not found`), PHP/Ruby/Perl error lines, kernel crash lines
//!
//!    (`segfault at`, `general protection fault`, `BUG:`, `Call Trace:`,
//!    hung tasks, `Kernel panic`), apt's `E:`, PostgreSQL's `DETAIL:  `/
//!    `STATEMENT:  ` lines, processes that died of a signal or failed as a
//!    supervisor or shell reports it (systemd's `code=dumped, status=11/SEGV`,
//!    `code=exited, status=1/…`, `Failed with result '…'`, `(core dumped)`;
//!    from the held-out set, `repro/heldout.sh`), cfn-lint's `E3012 …` and its bare `path:l:c`
//!    line, hadolint's `path:l DL3000 …`, and TAP/doctest/googletest/
//!    ctest/PHPUnit summaries (`Result: FAIL`, `Files=N, Tests=N`,
//!    `***Test Failed***`, `[  FAILED  ]`). Java's `... N more` lines are
//!    quoted with their trace.
//!    A stems prefilter (plus "has a `:digit`") skips most lines before the
//!    detector set runs. The detector set and the other per-line patterns every
//!    text command compiles (`kind`'s stamps, error and count lines) are byte
//!    regexes with ASCII classes (`text::ascii_regex`): compiling Unicode `\w`/
//!    `\d` tables was ~75 % of a short text command's CPU. `text::is_signal_line` is the one-line form (no
//!    context) for the shim's bounded capture.
//! 3. `command::Invocation` names the tool and subcommand: env assignments
//!    (`RUST_BACKTRACE=1`), wrappers (`npx`, `uv run`, `poetry run`, `sudo`,
//!    `python -m X` → `X`) and value-taking global flags (`git -C dir`,
//!    `kubectl -n ns`) are skipped. `text::claims` is "some filter claims this
//!    invocation".
//! 4. Candidate 0, the user's filter for the command (`[[filter]]` in the
//!    settings files, `crate::userfilter`), when one matches and its rules
//!    change the text; `builtin = false` in it skips candidate 1.
//!    Candidate 1, the tool's filter. The registry (`FILTERS` in
//!    `filters/mod.rs`, one module per tool family under `filters/`) holds one
//!    `Filter` per tool family: `cargo` (and `rustc`; not `cargo run`: its
//!    stdout is the program's; cargo-nextest's captured output per failing
//!    test reduced like libtest's), `python` (pytest, `python -m unittest`),
//!    `gotool`, `jstest` (jest, vitest, `node --test` incl. TAP), `exunit`
//!    (`mix test`), `lint` (tsc, eslint, ruff/mypy/flake8/pylint/pyright,
//!    shellcheck), `git` (status, diff/show, log, push/pull/fetch/clone),
//!    `install` (npm/pnpm/yarn/pip/uv installs, `npm ls`, apt-get),
//!    `terraform` (plan/apply: values and changes kept; block syntax, unknown
//!    values, `# (N unchanged attributes hidden)` notes and refresh/progress
//!    lines counted), `cc` (make, gcc/clang, javac: notes and
//!    `required from` steps in system headers counted, with the notes nested
//!    under such a candidate wherever they point (and their `show --grep`),
//!    the user's kept, code frames dropped), `maven` (progress counted; the failure trailer that
//!    repeats every error goes with its `show --grep` command), `docker`,
//!    `kubectl`, `valgrind` (banner and flag hints counted, `==PID==` lines
//!    with nothing after the tag emptied), `listing` (grep/rg, find/fd, ls -l/-R). A filter gets the cleaned text and
//!    the guard's `Source` (raw lines, ledger, stored id, budget) for count
//!    lines. A filter keeps failing test names,
//!    `path:line[:col]` locations, error codes and messages, assertion values and
//!    summary counts, each tool line it keeps quoted as printed (pytest's `=`
//!    bars, mypy's parenthetical, `--> path`), and drops passes, progress,
//!    banners and library frames (`clean::is_library_path`). It returns `None`
//!    when its anchors are missing. Listings (`Filter::lossless`: grep, find,
//!    ls) are the answer: every grep hit as printed (`path:line:text`), every
//!    find path as printed, dependency folders the command did not name
//!    counted per package with the command that prints them; past the budget
//!    find's paths are grouped by directory (every name kept) and the files or
//!    folders that still do not fit are counted, each with its `tokensieve
//!    show ID --grep`. `git log` passes whole when it is short (4,000 chars)
//!    or its messages are written prose (messages are documents, cut only by
//!    the budget's view); only a log whose message lines mostly repeat a
//!    template (one word aside, three lines alike: bot bumps, scripted
//!    commits) gets one line per commit; `git diff`/`show` quote each hunk header and keep every
//!    changed line within the budget. Other filters' output, for an input past
//!    twice the threshold whose summary is still over half its size, is
//!    condensed (`condense`): a family of findings (same message once the
//!    location and quoted names are set aside; errors never) keeps its first
//!    line and lists every other member's location and names, each path once
//!    (`… 7 more like it in src/ at a.c:5:3, 9:1; b.c:7:2 (8 lines: tokensieve
//!    show ID --grep '…')`; from 1.5× the text threshold, about the 2,000
//!    tokens past which an output must be halved); then `cap` keeps the summary's head and tail within 45 % plus
//!    every line of the cut middle that holds a signal line or a count line.
//! 5. Candidate 2, `generic`. A command's JSON lines whose records all carry
//!    a level and a time key (`kind::json_lines_log`, sampled) are a log, not
//!    a document: `pipeline` sends them here rather than to the JSON outline,
//!    so the error record and the last records are quoted as printed (without
//!    a command hint JSON lines stay JSON). `kind::asked` reads what the command asked for:
//!    documentation (`--help`, `-h`, `help` subcommands, `man`, `pydoc`,
//!    issue and pull-request views, `git log`/`show`/`blame`/`cat-file`) is a document
//!    whatever its lines look like; a file's content (`cat`, `head`, `tail`,
//!    `sed`, `less`...) is a document unless 30 % of its lines are stamped with
//!    a time or level (a log file read whole: a C header's `# define` lines or
//!    a Cargo.lock repeat their shapes, but they are still the file). For any
//!    other output `kind::classify` decides from the text whether it reads as
//!    a log: at least 12 non-blank lines and one of: 30 % stamped with
//!    a time or level near the line start, 50 % opening like the line before
//!    (first two words, numbers aside), 50 % of the same shape as the line
//!    before, 60 % of a shape shared by 3+ lines. An output made mostly of stack
//!    traces counts as a log too (a crash report).
//!    - A document (help and man pages, files, issue and commit texts,
//!      listings) passes whole: only runs of 3+ identical lines fold to
//!      `line (×N)`. Receipt shape `text:document`. The budget (issue 12) is the
//!      one place that may cut it. A program's output that reads as a document
//!      (nothing asked for a document or a file) still gets its stack traces
//!      as blocks (below: library frames counted).
//!    - A log is folded: identical runs → `line (×N)`; runs of 3+ lines that
//!      differ only in numbers/hex ids keep every distinguishing value in
//!      place (`app.py:11,14,17:1: E302 … (×3 similar)`, times, durations and
//!      percentages aside) where one or two places vary, the run's last line
//!      after them as printed (never twice); a run where more vary is cut
//!      into such pieces, or, when they would be mostly single lines, reads
//!      `first (×N similar: tokensieve show ID --lines A:B)` and its last
//!      line (`generic`: a fold never drops a value it stands for); a run
//!      of similar ledger lines keeps its first line, then `… N more like it:`
//!      its values and a count line (or every line when short or when no count
//!      line can be given); keyword
//!      lines (error/warn/fail/… words, HTTP 4xx/5xx) only with their own kind;
//!      caret-only lines go. `blocks` makes each stack trace one atomic item
//!      (Python incl. chained, Java with `Caused by:`, Node, .NET, Go panics,
//!      Rust panics): header, user frames with their source line, causes and
//!      exception lines kept, each run of framework frames one line of ours
//!      (`(N framework frames)`, `lines::frames`).
//!    - A log still above `text_threshold` (4,000 chars) gets `summary`: line
//!      and keyword counts, head 5 and tail 10 items, between them every stack
//!      trace whole with the line it interrupted (the last line of the run
//!      before it, as printed: where the program was; so too in the head and
//!      tail, and the output's last run, blank lines aside, ends with its last
//!      line) and every ledger line (`L123: …`, verbatim); a shape with
//!      more than 3 distinct ledger lines shows its first line, its values and
//!      a count line, the other keyword lines one per shape, then the most
//!      common line shapes.
//!    - A test run (`runner::is_test_run`, from the command: `pytest`,
//!      `prove`, `python -m doctest`, `ctest`, `jest`, `go test`, `npm test`,
//!      `mix test`, `cargo nextest run`, `node --test`, a `*_test` binary...)
//!      has its filter's or the generic rendering passed through `runner`:
//!      a run of 4+ lines repeating earlier ones (indentation aside) and
//!      holding a failure or diagnostic line (node's `✖ failing tests:` recap)
//!      becomes `(N lines repeated from above, from "…")`; and when the run
//!      failed (exit code, or a test-failure line), passing-test records (TAP
//!      `ok N`, `✔`/`✓`, nextest `PASS [`, `… ... ok`, `--- PASS:`, pytest
//!      `PASSED`, gtest `[       OK ]`, ctest `Passed`, doctest's `Trying:`
//!      … `ok` examples, go's `ok  pkg 0.1s`, dotnet's `Passed`), per-test
//!      start lines (`[ RUN      ]`, `Start N:`, `=== RUN`) and gradle's
//!      `> Task :x` progress go (gradle and maven builds run tests too), counted by one line `passing tests not shown (N lines:
//!      tokensieve show ID --grep 'RE')` whose grep prints them. Lines holding
//!      a signal line stay; with no stored raw nothing goes; in an all-passing
//!      run the passes are the answer and stay.
//! 6. `guard` checks a candidate against the ledger: every signal line must be
//!    in it verbatim (inside one rendered line, with its leading indentation:
//!    only trailing blanks are ignored, so a kept frame or message that lost its
//!    indentation counts as lost) or counted by
//!    a line of ours of the one accepted form `(N lines: tokensieve show ID
//!    --grep 'RE')` — the guard runs that grep over the raw lines exactly as
//!    `tokensieve show` does and requires the count to be what it prints and
//!    the lines it prints to include the ones counted. A failing candidate is
//!    replaced by the next one (filter → generic → the cleaned text whole);
//!    `TOKENSIEVE_DEBUG=1` prints why on stderr. Candidate 0 (user filters) is
//!    checked inside `render` like the others; a rendering made anywhere else
//!    goes through the same guard with `text::check_rendering(raw, rendering,
//!    settings)`: `Ok(())`, or the reason in one line, after which the caller
//!    delivers `text::render`'s answer instead (each candidate guarded).
//! 7. `mod.rs` adds `exit N` for a non-zero status (from the exit code only)
//!    and the call's `Call::raw_note` (where the raw bytes are stored) for outputs above
//!    the threshold that were summarised; a rendering equal to the raw text
//!    passes the raw bytes instead.
//!
//! The handoff then keeps whichever of raw and summary has fewer tokens.
//! Fixtures: `fixtures/text/` (shared corpus) and `fixtures/text/local/` (runs
//! captured here, see its README; its set folders `build`, `tests`, `lint`,
//! `logs`, `pkg`, `search`, `vcs` and `docs` (documents) come with the scripts that
//! made them in `repro/`), all checked by `tests/text_fixtures.rs`, whose
//! `KNOWN_FAILURES` lists the captures that still lose signal;
//! `tests/text_guard.rs` runs the guard's promises through the binary;
//! `text::properties` (proptest) injects signal lines of every detector kind
//! into random noise and renders them as the output of every filter's commands
//! and of unclaimed ones: each must be shown or counted by a command that
//! prints it (re-checked by the test's own grep), and marked by the ledger.

mod blocks;
mod condense;
mod context;
pub mod filters;
#[cfg(test)]
mod frame_properties;
mod generic;
pub mod guard;
mod kind;
#[cfg(test)]
mod linear;
pub use kind::json_lines_log;
mod paragraphs;
#[cfg(test)]
mod properties;
mod report;
mod runner;
mod summary;

use std::collections::HashSet;

use aho_corasick::{AhoCorasick, AhoCorasickKind};

use crate::auditor::Shape;
use crate::command::Invocation;
// The cleaning and the signal ledger sit below in `crate::lines` (`typed`,
// `view` and the shim read them too); the filters reach them through here.
pub(crate) use crate::lines::{ascii_regex, clean};
pub use crate::lines::{cleaned, ledger};
use crate::settings::{Call, Hint, Rendered};
use crate::typed::TypedResult;

pub use filters::Filter;
use filters::filter_for;

/// Below this many chars an output is only cleaned.
pub const TINY: usize = 100;

/// Whether one cleaned line must reach the agent even when the lines around
/// it are left out: a signal line of the ledger's detectors that need no
/// context (diagnostics, failures, levels, 5xx, OOM kills, summaries, trace
/// headers), or a line with a problem word. For a capture that keeps only
/// some lines of an output too large to hold; `ledger::Scanner` also marks
/// the lines that need their neighbours (stack frames, exception lines).
pub fn is_signal_line(line: &str) -> bool {
    ledger::detect_line(line).is_some() || generic::is_signal(line)
}

/// Whether a tool-aware filter claims this command (the shim gathers every
/// command's output either way).
pub fn claims(command: &[String]) -> bool {
    filter_for(command).is_some()
}

/// A rendering of `text` for an agent, or `None` to pass it through as it
/// is. Without a hint (plain `tokensieve < file`) text passes through
/// untouched.
pub fn render(text: &str, hint: Option<&Hint>, call: &Call) -> Option<Rendered> {
    render_typed(text, hint, call).0
}

/// `render`, and the typed result of the output (`crate::typed`), read from
/// the same cleaned lines and ledger. Without a hint there is neither.
pub fn render_typed(text: &str, hint: Option<&Hint>, call: &Call) -> (Option<Rendered>, Option<TypedResult>) {
    let Some(hint) = hint else { return (None, None) };
    let cleaned = clean::clean(text);
    let lines: Vec<&str> = cleaned.split('\n').collect();
    let ledger = ledger::scan(lines.iter().copied());
    let mut anchors = None;
    let rendered = render_lines(text, hint, call, &cleaned, &lines, &ledger, &mut anchors);
    let mut result = TypedResult::of_text(&hint.command, hint.exit_code, &lines, &ledger, anchors);
    if let Some(ex) = &call.excerpt {
        for f in &mut result.findings {
            f.raw_line = ex.line_number(f.raw_line - 1);
        }
    }
    (rendered, Some(result))
}

/// The candidates over the cleaned lines and their ledger; `anchors` learns
/// the claiming built-in filter's name and whether it found its anchors.
fn render_lines(
    text: &str,
    hint: &Hint,
    call: &Call,
    cleaned: &str,
    lines: &[&str],
    ledger: &ledger::Ledger,
    anchors: &mut Option<(&'static str, bool)>,
) -> Option<Rendered> {
    // The user's filter for this command (settings files), if any; one
    // that only turns the built-in off proposes nothing itself.
    let user = crate::userfilter::pick(&call.user_filters, &hint.command);
    let proposes = user.filter(|u| u.transforms());
    let src = guard::Source {
        raw: guard::raw_lines(text),
        cleaned: lines.to_vec(),
        ledger,
        // an excerpt's counts would not be what `show ID --grep` prints
        id: call.raw_id.as_deref().filter(|_| call.excerpt.is_none()),
        excerpt: call.excerpt.as_ref(),
        budget: call.budget,
        focus: crate::budget::record_focus(call.focus),
    };
    let builtin = if user.is_some_and(|u| !u.builtin) { None } else { filter_for(&hint.command) };
    if text.len() < TINY && proposes.is_none() {
        *anchors = builtin.as_ref().map(|(inv, f)| (f.name(), f.summarize(inv, cleaned, &src).is_some()));
        return tiny(text, cleaned, hint.exit_code);
    }
    let large = text.len() > call.text_threshold;
    let note = if large { call.raw_note.as_deref() } else { None };
    let exit = hint.exit_code;
    let invocation = Invocation::parse(&hint.command);
    // a test run's failure recaps, and a failed one's passes, go whichever
    // candidate renders it
    let test_run = invocation.as_ref().is_some_and(runner::is_test_run);
    let failed = exit != 0 || ledger.entries.iter().any(|e| e.kind == ledger::Kind::TestFailure);
    let reduce = |body: String| if test_run { runner::reduce(body, &src, failed) } else { body };

    // The user's filter first; the guard has the last word over it too.
    // One that changes nothing (its patterns are for another output of the
    // tool) leaves the command to the next candidates.
    if let Some(user) = proposes
        && let body = user.apply(text, cleaned)
        && body.trim_end_matches('\n') != cleaned.trim_end_matches('\n')
    {
        let out = finish(body, exit, note);
        match guard::check(&out, &src) {
            Ok(()) => return whole_or(text, out, &format!("user:{}", user.name)),
            Err(b) => debug(&format!("user filter {} {}; trying the next", user.name, b.describe(&src))),
        }
        if text.len() < TINY {
            return tiny(text, cleaned, exit);
        }
    }
    let claimed = builtin.is_some();
    if let Some((inv, filter)) = builtin {
        let summary = filter.summarize(&inv, cleaned, &src);
        *anchors = Some((filter.name(), summary.is_some()));
        if let Some(body) = summary {
            let body = reduce(body);
            // dense output (many findings; from 1.5× the threshold, about the
            // 2,000 tokens past which an output must be halved): families
            // condensed, then the cap
            let dense =
                !filter.lossless() && text.len() > 3 * call.text_threshold / 2 && body.len() * 2 > text.len();
            let body = if dense {
                let body = condense::condense(&body, &src).unwrap_or(body);
                cap(body, text.len(), note, &src)
            } else {
                body
            };
            let out = finish(body, exit, note);
            match guard::check(&out, &src) {
                Ok(()) => return Some(Rendered { text: out, shape: Shape::Text(filter.name().into()) }),
                Err(b) => debug(&format!(
                    "text:{} {}; trying the generic rendering",
                    filter.name(),
                    b.describe(&src)
                )),
            }
        }
    }

    // A long listing from a tool no filter names is an answer: every name
    // in `ls`'s compact rows rather than a log summary.
    if !claimed && let Some(body) = filters::any_listing(cleaned) {
        let out = finish(body, exit, None);
        match guard::check(&out, &src) {
            Ok(()) => return whole_or(text, out, "listing"),
            Err(b) => debug(&format!("text:listing {}; trying the generic rendering", b.describe(&src))),
        }
    }
    let asked = kind::asked(invocation.as_ref());
    let (body, kind) = generic::render(&src, call, asked);
    let body = reduce(body);
    let (name, note) = match kind {
        kind::Kind::Document => ("document", None),
        kind::Kind::Log => ("generic", note),
    };
    let out = finish(body, exit, note);
    match guard::check(&out, &src) {
        Ok(()) => return whole_or(text, out, name),
        Err(b) => debug(&format!("text:generic {}; delivering the cleaned text whole", b.describe(&src))),
    }
    whole_or(text, finish(cleaned.to_string(), exit, None), "clean")
}

/// The guard for a rendering made outside `render` (a user's `[[filter]]`
/// from config.toml): `Ok(())` when every signal line the ledger marks in
/// `raw` is in `rendering` verbatim (its indentation too) or counted by a line
/// `(N lines: tokensieve show ID --grep 'RE')` whose grep, run over the
/// stored raw output (`Call::raw_id`), prints exactly N lines including
/// those; otherwise the reason, one line. A caller whose rendering fails
/// delivers `render(raw, hint, settings)` instead (built-in filter, then the
/// generic path, then the cleaned text: each under the same guard).
pub fn check_rendering(raw: &str, rendering: &str, call: &Call) -> Result<(), String> {
    let cleaned = clean::clean(raw);
    let lines: Vec<&str> = cleaned.split('\n').collect();
    let ledger = ledger::scan(lines.iter().copied());
    let src = guard::Source {
        raw: guard::raw_lines(raw),
        cleaned: lines,
        ledger: &ledger,
        id: call.raw_id.as_deref().filter(|_| call.excerpt.is_none()),
        excerpt: call.excerpt.as_ref(),
        budget: call.budget,
        focus: crate::budget::record_focus(call.focus),
    };
    guard::check(rendering, &src).map_err(|b| b.describe(&src))
}

/// A text too short to summarise, which an agent still reads cleaned.
fn tiny(text: &str, cleaned: &str, exit: i32) -> Option<Rendered> {
    let unchanged = cleaned.trim_end_matches('\n') == text.trim_end_matches('\n');
    (!unchanged).then(|| Rendered {
        text: finish(cleaned.to_string(), exit, None),
        shape: Shape::Text("clean".into()),
    })
}

/// `out`, unless it is the raw text itself (plus a newline): then `None`,
/// the raw bytes pass through.
fn whole_or(raw: &str, out: String, name: &str) -> Option<Rendered> {
    if out.trim_end_matches('\n') == raw.trim_end_matches('\n') {
        return None;
    }
    Some(Rendered { text: out, shape: Shape::Text(name.into()) })
}

/// With `TOKENSIEVE_DEBUG` set: one line on stderr about a decision.
fn debug(what: &str) {
    if crate::debug::enabled() {
        eprintln!("tokensieve: {what}");
    }
}

/// A large output whose summary is still more than half of it (in chars) is
/// cut to this share: head and tail of the summary stay, the middle is
/// counted, structural headings (files of a diff) are listed.
const MAX_SHARE: f64 = 0.45;

/// The last resort for dense summaries (thousands of findings, a diff of
/// many small edits): keep the summary's head and tail within the budget;
/// from the middle, only lines that hold a signal line of the raw output.
fn cap(body: String, raw_len: usize, raw_note: Option<&str>, src: &guard::Source) -> String {
    let budget = (raw_len as f64 * MAX_SHARE) as usize;
    if body.len() * 2 <= raw_len {
        return body;
    }
    let lines: Vec<&str> = body.lines().collect();
    let (head_budget, tail_budget) = (budget * 3 / 4, budget / 5);
    let mut head = 0;
    let mut used = 0;
    while head < lines.len() && used + lines[head].len() < head_budget {
        used += lines[head].len() + 1;
        head += 1;
    }
    let mut tail = lines.len();
    used = 0;
    while tail > head && used + lines[tail - 1].len() < tail_budget {
        tail -= 1;
        used += lines[tail].len() + 1;
    }
    let signal = signal_finder(src);
    let middle = &lines[head..tail];
    // signal lines, and our lines that count some with the command showing them
    let kept: Vec<&str> = middle
        .iter()
        .copied()
        .filter(|l| signal.as_ref().is_some_and(|s| s.is_match(l)) || guard::counts(l))
        .collect();
    let headings: Vec<&str> = middle
        .iter()
        .copied()
        .filter(|l| l.starts_with("diff --git ") || l.starts_with("commit "))
        .take(40)
        .collect();
    let mut out: Vec<String> = lines[..head].iter().map(|l| l.to_string()).collect();
    let whence = raw_note.map_or("see the raw output".to_string(), |n| n.trim().to_string());
    let cut = middle.len() - kept.len();
    if cut == 0 {
        return body;
    }
    if kept.is_empty() {
        out.push(format!("… {cut} lines of this summary cut to stay short ({whence})"));
    } else {
        out.push(format!(
            "… {cut} lines of this summary cut to stay short, its {} signal lines kept ({whence}):",
            kept.len()
        ));
        out.extend(kept.iter().map(|l| l.to_string()));
    }
    // worth listing only when they are a small part of what was cut
    if !headings.is_empty() && headings.len() * 3 <= middle.len() {
        out.push("cut sections:".into());
        out.extend(headings.iter().map(|h| format!(" {h}")));
    }
    out.extend(lines[tail..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

/// Signal lines longer than this are looked for by a plain substring
/// search, not in the automaton: an Aho-Corasick DFA over one 10 MB line
/// took minutes to build (issue 25, the cargo filter's long-line stall).
const LONG_NEEDLE: usize = 512;
/// At most this many long signal lines get a substring search per line;
/// the rest only an equality check (the guard still checks them all).
const LONG_SEARCHES: usize = 64;

/// Finds the raw output's signal lines (trimmed) inside lines of a
/// rendering, in time linear in the needles and in each line searched.
struct SignalFinder<'a> {
    short: Option<AhoCorasick>,
    long: Vec<&'a str>,
    long_set: HashSet<&'a str>,
}

impl SignalFinder<'_> {
    fn is_match(&self, line: &str) -> bool {
        if self.short.as_ref().is_some_and(|s| s.is_match(line)) {
            return true;
        }
        if self.long.is_empty() || line.len() < LONG_NEEDLE {
            return false;
        }
        self.long_set.contains(line.trim())
            || self.long.iter().take(LONG_SEARCHES).any(|n| n.len() <= line.len() && line.contains(n))
    }
}

fn signal_finder<'a>(src: &guard::Source<'a>) -> Option<SignalFinder<'a>> {
    let mut needles: Vec<&'a str> = src
        .ledger
        .entries
        .iter()
        .filter_map(|e| src.cleaned.get(e.line).copied())
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    needles.sort_unstable();
    needles.dedup();
    if needles.is_empty() {
        return None;
    }
    let (long, short): (Vec<&str>, Vec<&str>) = needles.into_iter().partition(|n| n.len() > LONG_NEEDLE);
    // A contiguous NFA: built in time linear in the needles' bytes (the
    // default may pick a DFA, whose build grows much faster).
    let short = (!short.is_empty())
        .then(|| AhoCorasick::builder().kind(Some(AhoCorasickKind::ContiguousNFA)).build(&short).ok())
        .flatten();
    Some(SignalFinder { short, long_set: long.iter().copied().collect(), long })
}

/// Appends the status line and, for large outputs, where the raw bytes are.
fn finish(body: String, exit_code: i32, raw_note: Option<&str>) -> String {
    let mut out = body.trim_end_matches('\n').to_string();
    out.push('\n');
    if exit_code != 0 {
        out.push_str(&format!("exit {exit_code}\n"));
    }
    if let Some(note) = raw_note {
        out.push_str(note.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn generic_summary_ends_its_last_line() {
        let log: String =
            (0..400).map(|i| format!("worker {i} processed batch ok\n")).collect::<String>() + "done";
        let hint = Hint { command: words("./long-job.sh"), exit_code: 0 };
        let out = render(&log, Some(&hint), &Call::from(Settings::default())).expect("a summary");
        assert!(out.text.ends_with('\n'), "{:?}", &out.text[out.text.len().saturating_sub(40)..]);
    }

    #[test]
    fn claims_follow_the_command() {
        assert!(claims(&words("cargo test --all")));
        assert!(claims(&words("npx jest")));
        assert!(claims(&words("python3 -m pytest -q")));
        assert!(!claims(&words("cargo run --release")));
        assert!(!claims(&words("python3 server.py")));
        assert!(claims(&words("RUST_BACKTRACE=1 cargo test")));
        assert!(claims(&words("git -C repo status")));
        assert!(!claims(&words("aws s3 ls")));
        assert!(!claims(&words("git commit -m x")));
        assert!(!claims(&words("python3 -m http.server 8765")));
        assert!(!claims(&[]));
    }

    #[test]
    fn no_hint_passes_through_and_tiny_is_untouched() {
        let s = Call::from(Settings::default());
        let long = "x\n".repeat(200);
        assert!(render(&long, None, &s).is_none());
        let hint = Hint { command: words("cargo build"), exit_code: 101 };
        assert!(render("error: oops\n", Some(&hint), &s).is_none());
    }

    #[test]
    fn signal_lines_one_by_one() {
        assert!(is_signal_line("src/a.c:3:5: error: expected ';'"));
        assert!(is_signal_line("[12.3] Out of memory: Killed process 4242 (java)"));
        assert!(is_signal_line("app.py:11:1: E302 expected 2 blank lines"));
        assert!(is_signal_line("2 tests failed"));
        assert!(!is_signal_line("processed 12 files in 3 s"));
    }

    #[test]
    fn nonzero_exit_is_stated() {
        let out = finish("body".into(), 2, None);
        assert_eq!(out, "body\nexit 2\n");
        assert_eq!(finish("body\n".into(), 0, Some("raw: abc")), "body\nraw: abc\n");
    }

    /// A guard source over `raw` (already clean), stored as `abc123`.
    fn with_source<T>(raw: &str, f: impl FnOnce(&guard::Source) -> T) -> T {
        f(&guard::Owned::new(raw).src())
    }

    #[test]
    fn dense_summaries_are_capped_with_head_and_tail_and_signal() {
        let body: String = (0..400).map(|i| format!("src/f{i}.rs:{i}:1: thing {i} is odd\n")).collect();
        let raw = body.replace("src/f200.rs:200:1: thing", "src/f200.rs:200:1: error: thing");
        let raw_len = raw.len() + 100;
        let out = with_source(&raw, |src| cap(raw.clone(), raw_len, Some("raw: abc"), src));
        assert!(out.len() as f64 <= raw_len as f64 * MAX_SHARE + 200.0, "{}", out.len());
        assert!(out.starts_with("src/f0.rs:0:1: thing"));
        assert!(out.ends_with("src/f399.rs:399:1: thing 399 is odd\n"));
        assert!(
            out.contains("lines of this summary cut to stay short, its 1 signal lines kept (raw: abc):\nsrc/f200.rs:200:1: error: thing 200 is odd\n"),
            "{out}"
        );
        let half: String = "x\n".repeat(10);
        assert_eq!(with_source(&half, |src| cap(half.clone(), 40, None, src)), half);
        let small = "a\nb\n".to_string();
        assert_eq!(with_source(&small, |src| cap(small.clone(), 1000, None, src)), small);
    }

    #[test]
    fn a_traceback_from_any_tool_folds_library_frames() {
        let hint = Hint { command: words("aws s3 ls"), exit_code: 255 };
        let text = "Traceback (most recent call last):\n  File \"/usr/lib/python3/dist-packages/awscli/clidriver.py\", line 9, in main\n    return run()\n           ^^^^^\nKeyError: 'region'\n";
        let r = render(text, Some(&hint), &Call::from(Settings::default())).unwrap();
        assert_eq!(r.shape, Shape::Text("generic".into()));
        assert_eq!(
            r.text,
            "Traceback (most recent call last):\n  (1 framework frame)\nKeyError: 'region'\nexit 255\n"
        );
    }

    #[test]
    fn a_summary_shows_the_first_line_of_a_template_seen_twice() {
        // a packet capture: thousands of acks, two resets in the middle
        let mut x: u64 = 7;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        let mut lines: Vec<String> = (0..600)
            .map(|i| {
                let (port, ack, ts, ecr) = (next() % 60000, next() % 900, next(), next());
                format!("09:38:{:02}.{i:06} IP 127.0.0.1.{port} > 127.0.0.1.8765: Flags [{}], ack {ack}, win 64, options [nop,nop,TS val {ts} ecr {ecr}], length 0", i % 60, ["S", "S.", ".", "P.", "F."][i % 5])
            })
            .collect();
        lines[300] =
            "09:38:16.761336 IP 127.0.0.1.43536 > 127.0.0.1.2222: Flags [R.], seq 1, ack 1, win 64, length 0"
                .into();
        lines[310] =
            "09:38:16.802403 IP 127.0.0.1.38966 > 127.0.0.1.8765: Flags [R.], seq 1, ack 1, win 64, length 0"
                .into();
        let text = lines.join("\n") + "\n";
        let hint = Hint { command: words("tcpdump -nn -r cap.pcap"), exit_code: 0 };
        let r = render(&text, Some(&hint), &Call::from(Settings::default())).unwrap();
        assert!(r.text.contains("signal lines between head and tail:"), "{}", r.text);
        assert!(r.text.contains(&format!("L301: {}", lines[300])), "{}", r.text);
        assert!(!r.text.contains("L311:"), "{}", r.text);
    }

    #[test]
    fn a_few_files_of_a_listing_keep_their_names_whole() {
        let mut text = String::new();
        for size in ["128", "512"] {
            for i in 1..=5 {
                text.push_str(&format!(
                    "2026-11-27 11:58:20 {:>10} thumbs/{size}/u-1042/img_{i:02}.jpg\n",
                    4000 + 97 * i
                ));
            }
        }
        text.push_str(&"2026-11-27 11:58:20          0 quarantine/.keep\n".repeat(3));
        let hint = Hint { command: words("aws s3 ls s3://media --recursive"), exit_code: 0 };
        let r = render(&text, Some(&hint), &Call::from(Settings::default())).unwrap();
        for line in text.lines().take(10) {
            assert!(r.text.lines().any(|l| l == line), "{line} lost:\n{}", r.text);
        }
        // lines that name no file of their own still fold
        assert!(r.text.contains("quarantine/.keep (×3)"), "{}", r.text);
    }

    #[test]
    fn unclaimed_command_gets_generic_shape() {
        let hint = Hint { command: words("mytool run"), exit_code: 0 };
        let text = "same line here\n".repeat(40);
        let r = render(&text, Some(&hint), &Call::from(Settings::default())).unwrap();
        assert_eq!(r.shape, Shape::Text("generic".into()));
        assert!(r.text.contains("same line here (×40)"), "{}", r.text);
    }
}

/// The guard's entry point for renderings made outside `render`.
#[cfg(test)]
mod check_rendering_tests {
    use super::*;
    use crate::settings::Settings;

    #[test]
    fn a_user_rendering_must_keep_or_count_every_signal_line() {
        let raw = "step 1\nstep 2\nsrc/a.c:3:1: error: boom\nstep 3\nERROR disk full\n";
        let settings = Call { raw_id: Some("abc123".into()), ..Call::from(Settings::default()) };
        assert_eq!(check_rendering(raw, "src/a.c:3:1: error: boom\nERROR disk full\n", &settings), Ok(()));
        let counted = "src/a.c:3:1: error: boom\n(1 lines: tokensieve show abc123 --grep 'ERROR')\n";
        assert_eq!(check_rendering(raw, counted, &settings), Ok(()));
        let lost = check_rendering(raw, "3 steps\n", &settings).unwrap_err();
        assert!(lost.starts_with("2 signal lines lost (first: L3 "), "{lost}");
        let wrong = "src/a.c:3:1: error: boom\n(2 lines: tokensieve show abc123 --grep 'ERROR')\n";
        assert!(check_rendering(raw, wrong, &settings).unwrap_err().contains("false count"));
    }
}

/// Each filter on real runs captured on this machine (fixtures/text/local,
/// README there): the noise it promises to drop is gone, the facts stay.
#[cfg(test)]
mod real_outputs {
    use super::*;
    use crate::settings::Settings;

    fn run(cmd: &str, exit: i32, raw: &str) -> Rendered {
        let hint = Hint { command: cmd.split_whitespace().map(str::to_owned).collect(), exit_code: exit };
        render(raw, Some(&hint), &Call::from(Settings::default())).expect("a summary")
    }

    macro_rules! local {
        ($name:literal) => {
            include_str!(concat!("../../fixtures/text/local/", $name, ".txt"))
        };
    }

    #[test]
    fn a_server_log_says_each_repeated_trace_once_with_its_own_message() {
        let raw = local!("unfiltered-heldout3/gunicorn-keyerror");
        let r = run(
            "timeout -s INT 6 gunicorn -w 2 -b 127.0.0.1:58090 --access-logfile - wsgi_app:app",
            124,
            raw,
        );
        let keys: Vec<&str> = raw.lines().filter(|l| l.starts_with("KeyError: ")).collect();
        assert!(keys.len() >= 20, "{}", keys.len());
        for key in &keys {
            assert!(r.text.lines().any(|l| l == *key), "{key} lost:\n{}", r.text);
        }
        let frame = "  File \"/tmp/tsrepro/heldout3/py/wsgi_app.py\", line 22, in lookup";
        assert_eq!(r.text.lines().filter(|l| *l == frame).count(), 1, "{}", r.text);
        assert!(r.text.contains("same trace as L28, except:\nKeyError: 'SKU-063'\n"), "{}", r.text);
    }

    #[test]
    fn a_summary_keeps_the_closing_section_whole() {
        let raw = local!("unfiltered-heldout4/pidstat-urd");
        let r = run("pidstat -u -r -d 1 2", 0, raw);
        assert!(r.text.contains("\ntail:\n"), "{}", r.text);
        for line in raw.lines().filter(|l| l.starts_with("Average:")) {
            assert!(r.text.lines().any(|l| l == line), "{line} lost:\n{}", r.text);
        }
        assert!(r.text.len() < raw.len(), "{}", r.text);
    }

    #[test]
    fn a_summary_tail_starts_where_its_section_does_and_drawings_are_no_events() {
        let raw = local!("unfiltered-heldout4/ms-print-massif");
        let r = run("ms_print massif.out", 0, raw);
        assert!(r.text.contains("\ntail:\n"), "{}", r.text);
        // the peak snapshot's tree whole, from its table row down
        let peak = " 70      1,956,754        2,834,080        2,769,920        64,160            0\n97.74% (2,769,920B) (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n->58.71% (1,664,000B) 0x10918A: grow (alloc.c:9)\n";
        assert!(r.text.contains(peak), "{}", r.text);
        // a line seen once among the graph's rows, which are not events
        assert!(
            r.text.contains(" Detailed snapshots: [3, 6, 14, 21, 32, 38, 49, 59, 69, 70 (peak)]"),
            "{}",
            r.text
        );
    }

    #[test]
    fn cargo_test_drops_std_frames_keeps_user_frame() {
        let r = run("cargo test", 101, local!("cargo-test-real"));
        assert_eq!(r.shape, Shape::Text("cargo".into()));
        assert!(!r.text.contains("/rustc/") && !r.text.contains("test generated_"), "{}", r.text);
        // the user frame quoted as printed: its function line, then its `at` line
        assert!(
            r.text.contains("\n   4: ledger::tests::total_of_two\n             at ./src/lib.rs:21:9\n"),
            "{}",
            r.text
        );
        // the binary's `Running` line, then its result, both as printed
        assert!(
            r.text.contains("     Running unittests src/lib.rs (")
                && r.text.contains("\ntest result: FAILED. 1 passed; 2 failed"),
            "{}",
            r.text
        );
    }

    #[test]
    fn clippy_merges_repeated_lints() {
        let r = run("cargo clippy", 0, local!("clippy-pedantic"));
        assert!(
            r.text.contains("warning: item in documentation is missing backticks (×"),
            "{}",
            &r.text[..500]
        );
        assert!(!r.text.contains("help: to override"));
    }

    #[test]
    fn pytest_verbose_drops_passed_lines() {
        let r = run("python -m pytest -v", 1, local!("pytest-v-real"));
        assert!(!r.text.contains("PASSED"), "{}", r.text);
        assert!(r.text.contains("5 failed, 60 passed"));
    }

    #[test]
    fn git_log_lists_every_commit_once() {
        let r = run("git log", 0, local!("git-log-real"));
        assert!(r.text.starts_with("# focus view: 26 commits"), "{}", r.text);
        let heads = r.text.lines().filter(|l| {
            l.starts_with("commit ")
                || l.len() > 8 && l[..7].bytes().all(|b| b.is_ascii_hexdigit()) && &l[7..8] == " "
        });
        assert_eq!(heads.count(), 26, "{}", r.text);
    }

    #[test]
    fn node_tap_keeps_failures_only() {
        let r = run("node --test", 1, local!("node-test-real"));
        assert!(!r.text.contains("duration_ms") && !r.text.contains("ok 1 -"), "{}", r.text);
        assert!(r.text.contains("not ok 21 - split keeps the remainder"));
    }

    #[test]
    fn gcc_frames_go_linker_errors_stay() {
        let r = run("make", 2, local!("make-real"));
        assert!(!r.text.contains(" | "), "{}", r.text);
        assert!(r.text.contains("undefined reference to `missing_fn'"));
        assert!(r.text.ends_with("exit 2\n"));
    }

    #[test]
    fn tsc_pretty_code_frames_go() {
        let r = run("npx tsc -p . --pretty", 1, local!("tsc-pretty-real"));
        assert!(!r.text.contains("~~") && !r.text.contains("\x1b["), "{}", r.text);
        assert!(r.text.contains("src/order.ts:17:18 - error TS2304: Cannot find name 'o'."));
    }

    #[test]
    fn push_progress_goes() {
        let r = run("git push --progress -u origin main", 0, local!("git-push-real"));
        assert!(!r.text.contains("Counting objects") && !r.text.contains('\r'), "{}", r.text);
        assert!(r.text.contains("main -> main"));
    }

    #[test]
    fn grep_folds_site_packages() {
        let r = run("grep -rn def .", 0, local!("grep-real"));
        assert!(r.text.contains("./site-packages/ (dependencies, not listed):"), "{}", &r.text[..300]);
        assert!(r.text.contains("\n./plistlib.py:90:    def __repr__(self):\n"), "{}", r.text);
    }

    #[test]
    fn gxx_overload_error_keeps_every_error_and_counts_system_notes() {
        let r = run(
            "g++ -c shapes.cpp -o shapes.o",
            1,
            include_str!("../../fixtures/text/local/build/gxx-overload-candidates.txt"),
        );
        assert_eq!(r.shape, Shape::Text("cc".into()));
        for e in [
            "shapes.cpp:19:51: error: no match for",
            "shapes.cpp:21:16: error:",
            "shapes.cpp:22:21: error: too many arguments",
        ] {
            assert!(r.text.contains(e), "{e}: {}", r.text);
        }
        assert!(!r.text.contains("note: candidate: ‘std::basic_ostream"), "{}", r.text);
        assert!(r.text.contains("notes from system headers"), "{}", r.text);
    }

    #[test]
    fn a_java_log_keeps_each_trace_with_its_innermost_cause() {
        let raw = include_str!("../../fixtures/text/local/logs/java-service-caused-by.txt");
        let r = run("java -cp out svc.OrderServer", 1, raw);
        let innermost: Vec<&str> = raw.lines().filter(|l| l.starts_with("Caused by:")).collect();
        assert!(!innermost.is_empty());
        for cause in innermost {
            assert!(r.text.contains(cause), "{cause}: {}", r.text);
        }
        assert!(r.text.len() * 20 < raw.len(), "{}", r.text.len());
    }

    #[test]
    fn nextest_captured_output_loses_std_frames_and_libtest_chatter() {
        let raw = include_str!("../../fixtures/text/local/tests/nextest-no-fail-fast.txt");
        let r = run("cargo nextest run --no-fail-fast", 100, raw);
        assert_eq!(r.shape, Shape::Text("cargo".into()));
        assert!(!r.text.contains("/rustc/") && !r.text.contains("running 1 test"), "{}", r.text);
        assert!(
            r.text
                .contains("    thread 'tests::truncate_short_input' (25718) panicked at src/lib.rs:19:20:\n")
        );
        assert!(
            r.text.contains("\n       6: slugs::truncate\n                 at ./src/lib.rs:19:20\n"),
            "{}",
            r.text
        );
        assert!(r.text.len() * 2 < raw.len(), "{}", r.text.len());
    }

    #[test]
    fn maven_progress_and_help_go_results_stay() {
        let raw = include_str!("../../fixtures/text/local/tests/mvn-test-surefire.txt");
        let hint = Hint { command: vec!["mvn".into(), "test".into()], exit_code: 1 };
        let stored = Call { raw_id: Some("0123abcd".into()), ..Call::from(Settings::default()) };
        let r = render(raw, Some(&hint), &stored).expect("a summary");
        assert_eq!(r.shape, Shape::Text("maven".into()));
        assert!(!r.text.contains("maven-resources-plugin") && !r.text.contains("[Help 1]"), "{}", r.text);
        assert!(r.text.contains("[ERROR] Tests run: 17, Failures: 1, Errors: 3, Skipped: 0\n"), "{}", r.text);
        assert!(r.text.contains("Caused by: java.nio.file.NoSuchFileException: rates/table.txt"));
    }

    #[test]
    fn shellcheck_rewrites_go_findings_stay() {
        let raw = include_str!("../../fixtures/text/local/lint/shellcheck-scripts.txt");
        let r = run("shellcheck scripts/backup.sh", 1, raw);
        assert_eq!(r.shape, Shape::Text("shellcheck".into()));
        assert!(
            !r.text.contains("Did you mean") && !r.text.contains("https://www.shellcheck.net"),
            "{}",
            r.text
        );
        assert!(r.text.contains("In scripts/backup.sh line 12:\nif [ $count > 30 ]; then\n"), "{}", r.text);
        assert!(
            r.text
                .contains("            ^-- SC2071 (error): > is for string comparisons. Use -gt instead.\n")
        );
    }

    #[test]
    fn clang_code_frames_and_system_notes_go() {
        let raw = include_str!("../../fixtures/text/local/build/clangxx-overload-candidates.txt");
        let r = run("clang++ -c shapes.cpp -o shapes.o", 1, raw);
        assert!(!r.text.contains("    ^\n") && !r.text.contains("include/c++/12/ostream:"), "{}", r.text);
        assert!(
            r.text.contains("shapes.cpp:21:10: error: no matching member function for call to 'insert'\n")
        );
        assert!(r.text.contains("notes from system headers)"), "{}", r.text);
    }

    #[test]
    fn unittest_passes_go() {
        let raw = include_str!("../../fixtures/text/local/tests/unittest-verbose.txt");
        let r = run("python3 -m unittest -v", 1, raw);
        assert!(!r.text.contains("... ok") && !r.text.contains("^^^^"), "{}", r.text);
        assert!(
            r.text.contains("AssertionError: 688 != 690\n")
                && r.text.contains("FAILED (failures=1, errors=1)")
        );
    }

    #[test]
    fn dpkg_log_gets_the_large_output_summary() {
        let r = run("tail -n 2500 /var/log/dpkg.log", 0, local!("dpkg-log-real"));
        assert_eq!(r.shape, Shape::Text("generic".into()));
        assert!(r.text.starts_with("2500 lines, "), "{}", r.text);
        assert!(r.text.contains("\ntail:\n"));
    }
}

/// No filter may panic on any text: every filter over every fixture, whole
/// and cut into odd pieces (a panic would only cost the summary, but still).
#[cfg(test)]
mod robustness {
    use super::*;
    use crate::settings::Settings;

    #[test]
    fn every_filter_survives_every_fixture() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text");
        let mut texts = Vec::new();
        for dir in [root.clone(), root.join("local")] {
            for entry in std::fs::read_dir(dir).unwrap() {
                let p = entry.unwrap().path();
                if p.extension().is_some_and(|e| e == "txt") {
                    texts.push(clean::clean(&std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        let inv = Invocation::parse(&["tool".to_string()]).unwrap();
        for text in &texts {
            let lines: Vec<&str> = text.lines().collect();
            let pieces = [
                text.clone(),
                lines[lines.len() / 2..].join("\n"),
                lines.iter().step_by(7).copied().collect::<Vec<_>>().join("\n"),
                lines.iter().map(|l| format!(" {l}")).collect::<Vec<_>>().join("\n"),
            ];
            for piece in &pieces {
                for f in filters::FILTERS {
                    let _ = f.summarize(&inv, piece, &guard::Owned::new(piece).src());
                }
                let hint = Hint { command: vec!["tool".into()], exit_code: 1 };
                let _ = render(
                    piece,
                    Some(&hint),
                    &Call::from(Settings { text_threshold: 500, ..Settings::default() }),
                );
            }
        }
    }
}
