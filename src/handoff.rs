//! The last step of every call: count, pick raw or compressed (never worse),
//! keep the raw bytes in the store when something was dropped, write stdout,
//! flush, then the receipt on stderr, then the history row.
//!
//! # Design: One buffer through the pipeline and the handoff
//!
//! One stdout buffer, from the child process to the receipt:
//!
//! 1. `src/main.rs` hands argv to `tokensieve::entry` (`src/lib.rs`), which
//!    dispatches on the basename of argv[0]: `tokensieve` → `src/cli/`, any other
//!    name → `src/shim/`.
//! 2. The bytes to compress (a child's stdout, stdin, or a file) go to
//!    `pipeline::render` (`src/pipeline.rs`): binary → raw; JSON → `src/json/`;
//!    other text → `src/text/`. A rendering (or text passing as it is) longer
//!    than the budget (`src/budget.rs`: 25,000 chars, `TOKENSIEVE_BUDGET`,
//!    `BASH_MAX_OUTPUT_LENGTH`) becomes a view (`src/view/`, below).
//! 3. `src/json/`: `scrubber` (ANSI, BOM) → `parse` (one document or NDJSON) →
//!    compression stages → encoders; `decode` reverses any emitted shape.
//! 4. `handoff::deliver` (`src/handoff.rs`) runs the rest. Before rendering it
//!    asks the store where the raw bytes *would* go (`Store::plan`, pure: sha256
//!    → id and path) and puts `full output: tokensieve show ID  (file: PATH)` in
//!    the call's `settings::Call` (`raw_note`, `raw_id`) for summaries to quote. While `pipeline::render`
//!    works, a scoped side thread counts the raw bytes' tokens and opens the
//!    history database (neither needs the rendering); the count leaves its
//!    piece memo to threads that count later (`auditor::count_bytes_shared`).
//!    `settle` counts tokens with
//!    `auditor` (`src/auditor.rs`; a long rendering in two halves on two
//!    threads, `auditor::count_halves`) and keeps the raw bytes unless the rendering
//!    is smaller, counting the receipt line an agent reads with it; if it is, `Store::put` keeps the raw bytes and the receipt gets
//!    ` | raw: ID`. `emit` writes stdout, flushes, then the receipt on stderr:
//!    the long line for a person, the short one when an agent marker is set
//!    (`[tokensieve 728→238 raw 9439d8]`: ≤ 12 tokens without an id, ≤ 16
//!    with one, the counts left out when they would pass that;
//!    `TOKENSIEVE_RECEIPT=short|long`), whose tokens count against the
//!    savings and go into the history's compressed column; an agent gets no
//!    receipt at all for output delivered untouched.
//!    Last, `history::record` adds the call's row on the connection opened
//!    beside the render.
//!    **Large JSON** (`src/handoff/large.rs`): every caller hands its bytes
//!    over (`Output::Whole`), and `deliver`'s one panic guard (`guarded`)
//!    must write them if our code panics: `large::store` stores them while
//!    the delivery still holds them (`Held::Bytes`), then
//!    `large::deliver_stored` takes them, and from there the guard's
//!    fallback reads the stored copy (`Held::Stored`). A document of 1 MiB or more that the
//!    parser reads as it is (UTF-8, nothing to scrub) is stored first; the
//!    side thread takes the bytes, counts them, reads what the tree does not
//!    keep (`json::parse::check`: repeated keys, exponents as written; the
//!    harness's cut; the first 256 bytes) and drops them, while the main
//!    thread parses the stored copy (`json::parse::documents_from`), which
//!    waits at three quarters of the file until the bytes are gone: the tree
//!    (~7.5× minified JSON) and the bytes are never in memory together, and
//!    the render reads the raw again through `json::Source::File`. Not JSON
//!    after all, a panic, or raw bytes that beat the rendering: the bytes are
//!    read back and the ordinary path runs. Such an object is kept even when
//!    the call ends up delivering the raw bytes.
//!    A tree is only built when it fits: from 1 MiB on, a document whose tree
//!    would take more than 8× its text (`json::parse::too_dense`, one pass
//!    counting values, members and string bytes; `[1,1,1,…]` is ~40×, small
//!    minified records 20–30×, real CLI output under 8×) leaves the JSON path
//!    (`pipeline::route`) and is read as text: its view shows the
//!    start and gives the `show ID --jq` command that asks the stored
//!    document. Peak RSS stays under 10× any single-line input.

use std::io::{self, Write};
use std::time::Instant;

#[cfg(test)]
use crate::auditor::ReceiptForm;
use crate::auditor::{self, Receipt, Shape};
use crate::history;
use crate::json::sniff::Sniff;
use crate::pipeline;
use crate::settings::Format;
use crate::settings::{Call, Excerpt, Gap, Hint, Rendered, Settings};
use crate::store::{Object, Store};
use crate::typed::{self, TypedResult};

mod large;

/// What a caller hands over: all of the output, or (too large to hold)
/// an excerpt of it with every byte already in the raw store.
pub enum Output<'a> {
    /// Every byte, in memory. A large JSON document is let go before its
    /// tree is complete (`large`).
    Whole(Vec<u8>),
    /// `Whole`, with the sniff of its first bytes the capture took
    /// (`json::sniff`), so that the route does not take it again.
    Sniffed(Vec<u8>, Sniff),
    Spooled {
        /// Head, signal lines of the middle, tail (see `settings::Excerpt`).
        text: &'a str,
        excerpt: &'a Excerpt,
        object: &'a Object,
        /// The exact token count of the whole output.
        tokens: usize,
    },
}

/// Where a delivery writes what the agent reads. The receipt always goes
/// to stderr, after the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// The call's output: its history row is the call's.
    Stdout,
    /// The tool's stderr read apart from its stdout (`shim::apart`), treated
    /// on its own: no history row (the stdout half is the call's row, and
    /// `recall` must find stdout there).
    Stderr,
}

impl Sink {
    fn writer(self) -> Box<dyn Write> {
        match self {
            Sink::Stdout => Box::new(io::stdout().lock()),
            Sink::Stderr => Box::new(io::stderr().lock()),
        }
    }
}

/// Everything after the bytes are captured: render, settle, store, emit the
/// output and the receipt, record the call. The one call every front end
/// makes (the shim, `run`, filter mode, `fetch`, `show --jq`, `filter
/// try`), with the call's one raw store (`config::Config::store`) and its
/// settings; nothing here reads the configuration. (`started` is when the
/// call began, for the history's duration column.)
///
/// The one panic guard of a delivery is here, at the edge that holds the
/// raw bytes: a bug of ours anywhere below (render, store, large path,
/// history) costs the agent nothing but one stderr line — it gets the raw
/// bytes (or their stored copy), and the caller keeps the tool's exit code.
///
/// The raw store and the history are a convenience: if either fails (locked,
/// corrupt, unwritable, disk full) the agent still gets its output and the
/// caller its exit code, plus one `tokensieve: warning:` line on stderr.
///
/// `sink` is where the agent reads it: stdout, or (a tool's stderr read
/// apart, `shim::apart`) stderr.
pub fn deliver(
    sink: Sink,
    output: Output,
    hint: Option<&Hint>,
    settings: &Settings,
    raw_store: &Store,
    started: Instant,
) -> io::Result<()> {
    let (held, spooled, first) = match output {
        Output::Whole(raw) => (Held::Bytes(raw), None, None),
        Output::Sniffed(raw, first) => (Held::Bytes(raw), None, Some(first)),
        Output::Spooled { text, excerpt, object, tokens } => {
            (Held::Spooled(object), Some((text, excerpt, object, tokens)), None)
        }
    };
    let edge = Edge { held: std::cell::RefCell::new(held), written: std::cell::Cell::new(false), sink };
    guarded(
        edge,
        || sink.writer(),
        |edge| match spooled {
            Some(excerpt) => deliver_excerpt(edge, excerpt, hint, settings, raw_store.home(), started),
            None => deliver_held(edge, first, hint, settings, raw_store, started),
        },
    )
}

/// Runs a delivery; if our code panics before stdout was written, `out`
/// gets the raw bytes from wherever they are now, and stderr one line.
fn guarded<'a, W: Write>(
    edge: Edge<'a>,
    out: impl FnOnce() -> W,
    delivery: impl FnOnce(&Edge<'a>) -> io::Result<Receipt>,
) -> io::Result<()> {
    match pipeline::caught(|| delivery(&edge)) {
        Some(done) => done.map(drop),
        None if edge.written.get() => {
            eprintln!("tokensieve: internal error after the output was written");
            Ok(())
        }
        None => {
            eprintln!("tokensieve: internal error while compressing; raw output delivered");
            match edge.held.into_inner().write_raw(&mut out()) {
                Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e),
                _ => Ok(()),
            }
        }
    }
}

/// The state of one delivery that its panic guard reads: where the raw
/// bytes are now, and whether stdout was written (then nothing more is).
struct Edge<'a> {
    held: std::cell::RefCell<Held<'a>>,
    written: std::cell::Cell<bool>,
    sink: Sink,
}

impl Edge<'_> {
    /// `emit` to the sink, noting that it has its bytes.
    fn emit(&self, out: &[u8], receipt_line: Option<&str>) -> io::Result<()> {
        self.written.set(true);
        emit_to(self.sink, out, receipt_line)
    }

    /// Every byte of a stored object to the sink, then the receipt.
    fn emit_stored(&self, object: &Object, receipt_line: Option<&str>) -> io::Result<()> {
        self.written.set(true);
        match write_stored(object, &mut self.sink.writer()) {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e),
            _ => emit_to(self.sink, b"", receipt_line),
        }
    }

    /// Whether this delivery is a call the history records: not a stderr
    /// delivery (see `Sink`), not a dry run or an inspection (`not_a_call`).
    fn records(&self) -> bool {
        self.sink == Sink::Stdout && RECORD_CALLS.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// `after_output`, with the history row only for a call it records.
    fn after_output(
        &self,
        call: history::Call,
        history: anyhow::Result<rusqlite::Connection>,
        home: &std::path::Path,
        warnings: Vec<String>,
        took: (std::time::Duration, std::time::Duration),
    ) {
        after_output(call, history, home, warnings, took, self.records())
    }
}

/// Where the raw bytes of a delivery are.
enum Held<'a> {
    /// In memory.
    Bytes(Vec<u8>),
    /// Let go; the stored copy stands in for them (the large path).
    Stored(Object),
    /// Never held whole: every byte is in the store.
    Spooled(&'a Object),
}

impl Held<'_> {
    /// Every byte of the output to `out`.
    fn write_raw(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Held::Bytes(raw) => out.write_all(raw).and_then(|()| out.flush()),
            Held::Stored(object) => write_stored(object, out),
            Held::Spooled(object) => write_stored(object, out),
        }
    }
}

/// An output held whole: a large JSON document (`pipeline::route` says
/// which) by the large path (its bytes let go, the stored copy standing
/// in), else `deliver_bytes`, on the route already taken.
fn deliver_held(
    edge: &Edge,
    first: Option<Sniff>,
    hint: Option<&Hint>,
    settings: &Settings,
    raw_store: &Store,
    started: Instant,
) -> io::Result<Receipt> {
    {
        let held = edge.held.borrow();
        let Held::Bytes(raw) = &*held else { unreachable!("a whole output is held") };
        let route = pipeline::route(raw, first, hint, &Call::new(settings));
        let stored = match route {
            pipeline::Route::Json { large: true, .. } => large::store(raw, raw_store),
            _ => None,
        };
        let Some(stored) = stored else {
            return deliver_bytes(edge, raw, route, hint, settings, raw_store, started);
        };
        drop(held);
        let Held::Bytes(raw) = edge.held.replace(Held::Stored(stored.object().clone())) else {
            unreachable!("only held bytes are stored")
        };
        match large::deliver_stored(edge, raw, stored, hint, settings, started) {
            Ok(done) => return done,
            // Read back: the ordinary path.
            Err(raw) => drop(edge.held.replace(Held::Bytes(raw))),
        }
    }
    let held = edge.held.borrow();
    let Held::Bytes(raw) = &*held else { unreachable!("the ordinary path holds its bytes") };
    let route = pipeline::route(raw, first, hint, &Call::new(settings));
    deliver_bytes(edge, raw, route, hint, settings, raw_store, started)
}

/// The ordinary path: the bytes rendered from memory, on their `route`.
#[allow(clippy::too_many_arguments)]
fn deliver_bytes(
    edge: &Edge,
    raw: &[u8],
    route: pipeline::Route,
    hint: Option<&Hint>,
    settings: &Settings,
    raw_store: &Store,
    started: Instant,
) -> io::Result<Receipt> {
    let mut warnings: Vec<String> = Vec::new();
    // Known before rendering, so a text summary can point at the full output.
    let plan_started = Instant::now();
    let planned = raw_store.plan(raw);
    let plan_took = plan_started.elapsed();
    // `deliver`'s callers end the process after it.
    let call = Call { ends_process: true, ..with_plan(settings, planned.as_ref()) };
    let settings = &call;

    // Counting the raw bytes and opening the history (file checks, locks,
    // schema read: ~0.5 ms) need nothing from the rendering: do them on the
    // other core meanwhile.
    let home = raw_store.home();
    let record = edge.records();
    let side_work = || {
        let original = auditor::count_bytes_shared(settings.encoding, raw);
        let opened = Instant::now();
        (original, open_history(record, home), opened.elapsed())
    };
    let (side, (rendered, result)) =
        crate::threads::beside(side_work, || pipeline::render_routed(route, hint, settings));
    let (original, history, open_took) = side.unwrap_or_else(|_| side_work());
    let planned_id = planned.as_ref().map(|obj| obj.id.as_str());
    let (mut out, mut receipt) = settle_counted(raw, original, rendered, settings, planned_id);
    let store_started = Instant::now();
    // Raw shape: the agent saw every byte, nothing to keep. Otherwise what
    // was left out must be recoverable: when the raw bytes cannot be kept,
    // the agent gets them instead of the rendering.
    if receipt.shape != Shape::Raw {
        let kept = match &planned {
            Some(obj) => raw_store.put(raw, obj).map(|()| obj.id.clone()).map_err(|e| {
                Some(format!("raw output not stored ({e:#}); delivered whole so that nothing is lost"))
            }),
            // Store off: the user's choice, no warning on every call.
            None if raw_store.max_bytes() == 0 => Err(None),
            None => Err(Some(format!(
                "raw output not stored ({} bytes, over the store cap of {}; TOKENSIEVE_STORE_MAX_BYTES raises \
                 it); delivered whole so that nothing is lost",
                raw.len(),
                raw_store.max_bytes()
            ))),
        };
        match kept {
            Ok(id) => receipt.raw_id = Some(id),
            Err(why) => {
                warnings.extend(why);
                (out, receipt) = settle_counted(raw, original, None, settings, None);
            }
        }
    }
    let store_took = plan_took + store_started.elapsed();
    // The line as it will be written (a failed store leaves its id out).
    receipt.overhead = receipt.overhead_of(settings.receipt, settings.encoding);
    let result = typed_result(result, hint, &receipt);
    edge.emit(&formatted(out, &result, settings), receipt.line(settings.receipt).as_deref())?;

    let harness = crate::budget::harness_tokens(settings.encoding, raw, receipt.original, settings.budget);
    let call = history::Call::new(hint, &receipt, harness, started.elapsed()).with_result(&result);
    edge.after_output(call, history, home, warnings, (store_took, open_took));
    Ok(receipt)
}

/// Every byte of a stored object to `out`, flushed.
fn write_stored(object: &Object, out: &mut dyn Write) -> io::Result<()> {
    io::copy(&mut std::fs::File::open(&object.path)?, out)?;
    out.flush()
}

/// The call's typed result: the text's, or the exit code's verdict alone
/// (JSON, binary, no text filter), with the raw id it was stored under.
fn typed_result(result: Option<TypedResult>, hint: Option<&Hint>, receipt: &Receipt) -> TypedResult {
    let mut result = result.unwrap_or_else(|| match hint {
        Some(h) => TypedResult::bare(&h.command, h.exit_code),
        None => TypedResult::bare(&[], 0),
    });
    result.raw = receipt.raw_id.clone();
    result
}

/// What stdout gets: the text, or (`--format json|yaml`) the typed result
/// holding it.
fn formatted(out: Vec<u8>, result: &TypedResult, settings: &Settings) -> Vec<u8> {
    match settings.format {
        Format::Text => out,
        format => typed::document(result, &String::from_utf8_lossy(&out), format).into_bytes(),
    }
}

/// Whether deliveries are recorded in the history (see `not_a_call`).
static RECORD_CALLS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// For the rest of this process, deliveries are not calls: a dry run
/// (`filter try`) or an inspection of a stored output (`show --jq`) goes
/// through the pipeline like a call, but counting it would show a draft as
/// savings in `gain` and as a capture in `recall`.
pub fn not_a_call() {
    RECORD_CALLS.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// The history's connection when the delivery is recorded; opening it
/// (file checks, locks, the schema read) is wasted on one that is not.
fn open_history(record: bool, home: &std::path::Path) -> anyhow::Result<rusqlite::Connection> {
    match record {
        true => history::open(home),
        false => Err(anyhow::anyhow!("this delivery is not recorded")),
    }
}

/// After the output: the history row, then any warnings and, with
/// `TOKENSIEVE_DEBUG`, what the store and the history cost.
fn after_output(
    call: history::Call,
    history: anyhow::Result<rusqlite::Connection>,
    home: &std::path::Path,
    mut warnings: Vec<String>,
    (store_took, open_took): (std::time::Duration, std::time::Duration),
    record: bool,
) {
    let history_started = Instant::now();
    let recorded = match record {
        true => history.and_then(|db| history::record(&db, home, &call)),
        false => Ok(()),
    };
    if let Err(e) = recorded {
        warnings.push(format!("call not recorded: {}", history::describe_error(&e, home)));
    }
    if !warnings.is_empty() {
        let _ = writeln!(io::stderr().lock(), "tokensieve: warning: {}", warnings.join("; "));
    }
    if crate::debug::enabled() {
        eprintln!(
            "tokensieve: raw store {} µs, history open {} µs (beside the render), row {} µs",
            store_took.as_micros(),
            open_took.as_micros(),
            history_started.elapsed().as_micros()
        );
    }
}

/// An output too large to hold: the excerpt is rendered as the whole output
/// would be (line numbers and sizes are the whole's), then a line names the
/// lines left out and the command that shows them. The raw bytes are
/// already stored; the receipt counts all of them.
fn deliver_excerpt(
    edge: &Edge,
    (text, excerpt, object, tokens): (&str, &Excerpt, &Object, usize),
    hint: Option<&Hint>,
    settings: &Settings,
    home: &std::path::Path,
    started: Instant,
) -> io::Result<Receipt> {
    let call = Call {
        raw_note: Some(raw_note(object)),
        raw_id: Some(object.id.clone()),
        excerpt: Some(excerpt.clone()),
        ..Call::new(settings)
    };
    let settings = &call;
    let record = edge.records();
    let open_side = || {
        let opened = Instant::now();
        (open_history(record, home), opened.elapsed())
    };
    let (side, (rendered, result)) =
        crate::threads::beside(open_side, || pipeline::render_typed(text.as_bytes(), hint, settings));
    let (history, open_took) = side.unwrap_or_else(|_| open_side());
    let (mut out, shape) = match rendered {
        Some(r) => (r.text, r.shape),
        None => (crate::lines::cleaned(text), Shape::Text("excerpt".into())),
    };
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some(gap) = &excerpt.gap {
        out.push_str(&gap_note(gap, object));
    }
    let compressed = auditor::count(settings.encoding, &out);
    let mut receipt =
        Receipt { original: tokens, compressed, shape, raw_id: Some(object.id.clone()), overhead: 0 };
    receipt.overhead = receipt.overhead_of(settings.receipt, settings.encoding);
    if compressed + receipt.overhead < tokens {
        let result = typed_result(result.clone(), hint, &receipt);
        edge.emit(
            &formatted(out.into_bytes(), &result, settings),
            receipt.line(settings.receipt).as_deref(),
        )?;
    } else {
        // Never worse: the stored bytes themselves.
        receipt =
            Receipt { original: tokens, compressed: tokens, shape: Shape::Raw, raw_id: None, overhead: 0 };
        edge.emit_stored(object, receipt.line(settings.receipt).as_deref())?;
    }
    // What the harness would have shown: the output's head and tail, which
    // the excerpt holds as they are.
    let harness = crate::budget::harness_tokens(settings.encoding, text.as_bytes(), tokens, settings.budget);
    let result = typed_result(result, hint, &receipt);
    let call = history::Call::new(hint, &receipt, harness, started.elapsed()).with_result(&result);
    edge.after_output(call, history, home, Vec::new(), (Default::default(), open_took));
    Ok(receipt)
}

/// The line after an excerpt's rendering: which lines it leaves out, and
/// the command that shows them.
pub fn gap_note(gap: &Gap, object: &Object) -> String {
    let lines = gap.last - gap.first + 1;
    let signals = match (gap.signals_kept, gap.signals_dropped) {
        (0, 0) => "none of them signal lines".to_string(),
        (1, 0) => "its one signal line is above".to_string(),
        (kept, 0) => format!("its {kept} signal lines are above"),
        (kept, dropped) => {
            format!("{kept} of its signal lines are above, {dropped} more did not fit in memory")
        }
    };
    format!(
        "lines {}-{} ({lines} lines) were too many to hold and are left out ({signals}): tokensieve show {} --lines {}:{}\n",
        gap.first, gap.last, object.id, gap.first, gap.last
    )
}

/// The call: `settings` with the raw note and id of the object the raw
/// bytes will be (when the store is on), which summaries and views quote.
fn with_plan<'s>(settings: &'s Settings, planned: Option<&Object>) -> Call<'s> {
    Call { raw_note: planned.map(raw_note), raw_id: planned.map(|obj| obj.id.clone()), ..Call::new(settings) }
}

/// What `deliver` would hand the agent for `raw`, with nothing written:
/// the bytes, the receipt (naming the object the raw bytes would be) with
/// its overhead as `deliver` counts it, and that object. `discover` uses it
/// so its numbers are the shim's.
pub fn assess(
    raw: &[u8],
    hint: Option<&Hint>,
    settings: &Settings,
    raw_store: &Store,
) -> (Vec<u8>, Receipt, Option<Object>) {
    assess_with(raw, settings, raw_store, |s| pipeline::render_guarded(raw, hint, s))
}

/// `assess` with the rendering made by `render` (given the settings that
/// name the planned object), for callers that prepare the text first.
pub fn assess_with(
    raw: &[u8],
    settings: &Settings,
    raw_store: &Store,
    render: impl FnOnce(&Call) -> Option<Rendered>,
) -> (Vec<u8>, Receipt, Option<Object>) {
    let planned = raw_store.plan(raw);
    let call = with_plan(settings, planned.as_ref());
    let settings = &call;
    let original = auditor::count_bytes(settings.encoding, raw);
    let rendered = render(settings);
    let planned_id = planned.as_ref().map(|obj| obj.id.as_str());
    let (out, mut receipt) = settle_counted(raw, original, rendered, settings, planned_id);
    match planned {
        Some(obj) if receipt.shape != Shape::Raw => {
            receipt.raw_id = Some(obj.id.clone());
            receipt.overhead = receipt.overhead_of(settings.receipt, settings.encoding);
            (out, receipt, Some(obj))
        }
        // Raw, or no store to keep the raw bytes: `deliver` hands them over whole.
        _ => {
            let (out, receipt) = settle_counted(raw, original, None, settings, None);
            (out, receipt, None)
        }
    }
}

/// The line a summary can quote to lead the agent to the full output.
pub fn raw_note(obj: &Object) -> String {
    format!("full output: tokensieve show {}  (file: {})", obj.id, obj.path.display())
}

/// Decides what the agent reads and the receipt that proves it. Pure: no I/O.
pub fn settle(raw: &[u8], rendered: Option<Rendered>, settings: &Settings) -> (Vec<u8>, Receipt) {
    settle_counted(raw, auditor::count_bytes(settings.encoding, raw), rendered, settings, None)
}

/// `settle` with the raw bytes' token count already known. Never worse:
/// the rendering wins only when it costs fewer tokens than the raw bytes,
/// counting the receipt line an agent reads with it (`planned_id` is the id
/// it will name).
fn settle_counted(
    raw: &[u8],
    original: usize,
    rendered: Option<Rendered>,
    settings: &Settings,
    planned_id: Option<&str>,
) -> (Vec<u8>, Receipt) {
    rendered.and_then(|r| rendering_wins(original, r, settings, planned_id)).unwrap_or_else(|| {
        (
            raw.to_vec(),
            Receipt { original, compressed: original, shape: Shape::Raw, raw_id: None, overhead: 0 },
        )
    })
}

/// The rendering and its receipt, when the agent should get it rather than
/// the `original` tokens of raw bytes.
fn rendering_wins(
    original: usize,
    mut r: Rendered,
    settings: &Settings,
    planned_id: Option<&str>,
) -> Option<(Vec<u8>, Receipt)> {
    // Our text always ends its last line: an agent that merges stderr
    // into stdout would otherwise read the receipt glued onto it.
    if !r.text.ends_with('\n') {
        r.text.push('\n');
    }
    // The last long step before the output is written: on both cores.
    let compressed = auditor::count_halves(settings.encoding, &r.text);
    let mut receipt =
        Receipt { original, compressed, shape: r.shape, raw_id: planned_id.map(str::to_owned), overhead: 0 };
    receipt.overhead = receipt.overhead_of(settings.receipt, settings.encoding);
    receipt.raw_id = None;
    // A view stands in for an output past the budget: the raw bytes
    // would be cut by the harness, so it wins whatever their count.
    let view = matches!(receipt.shape, Shape::View { .. });
    (compressed + receipt.overhead < original || view).then(|| (r.text.into_bytes(), receipt))
}

/// Writes `out` to the sink and flushes it before the receipt goes to
/// stderr, so the two never interleave. A closed sink (EPIPE) is the
/// reader's choice, not an error.
fn emit_to(sink: Sink, out: &[u8], receipt_line: Option<&str>) -> io::Result<()> {
    let mut writer = sink.writer();
    match writer.write_all(out).and_then(|_| writer.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        other => other?,
    }
    drop(writer);
    // One write: stderr is unbuffered.
    if let Some(line) = receipt_line {
        let _ = io::stderr().lock().write_all(format!("{line}\n").as_bytes());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edge(held: Held) -> Edge {
        Edge { held: std::cell::RefCell::new(held), written: std::cell::Cell::new(false), sink: Sink::Stdout }
    }

    #[test]
    fn a_panic_in_a_delivery_gives_stdout_the_raw_bytes() {
        let raw = b"{\"a\": 1}\n".to_vec();
        let mut got = Vec::new();
        guarded(edge(Held::Bytes(raw.clone())), || &mut got, |_| panic!("a bug in a stage")).unwrap();
        assert_eq!(got, raw);
    }

    #[test]
    fn a_panic_after_a_large_document_was_handed_over_delivers_its_stored_copy() {
        // The large path lets the bytes go with the delivery that took
        // them: the stored copy stands in, byte for byte.
        let home = tempfile::tempdir().unwrap();
        let store = Store::new(home.path().to_path_buf(), u64::MAX);
        let raw: Vec<u8> = (0..20_000).flat_map(|i| format!("{{\"n\":{i}}},").into_bytes()).collect();
        let object = store.plan(&raw).unwrap();
        store.put(&raw, &object).unwrap();
        let mut got = Vec::new();
        guarded(
            edge(Held::Bytes(raw.clone())),
            || &mut got,
            |edge| {
                let Held::Bytes(bytes) = edge.held.replace(Held::Stored(object.clone())) else {
                    unreachable!()
                };
                drop(bytes);
                panic!("a bug after the hand-over");
            },
        )
        .unwrap();
        assert!(got == raw, "{} of {} bytes", got.len(), raw.len());
    }

    #[test]
    fn a_panic_after_the_output_was_written_writes_nothing_more() {
        let mut got = Vec::new();
        guarded(
            edge(Held::Bytes(b"raw".to_vec())),
            || &mut got,
            |edge| {
                edge.written.set(true);
                panic!("a bug in the history row");
            },
        )
        .unwrap();
        assert!(got.is_empty());
    }

    #[test]
    fn the_agents_receipt_counts_against_the_savings() {
        // Saves 2 tokens: worth it for a person, not for an agent who also
        // reads a ~12-token receipt.
        let raw = br#"{"key": "value", "n": 1}"#;
        let rendered = Rendered { text: "key=value\nn=1".into(), shape: Shape::Pvfn };
        let person = Settings::default();
        let agent = Settings { receipt: ReceiptForm::Short, ..Settings::default() };
        let (_, for_person) = settle(raw, Some(rendered.clone()), &person);
        assert_eq!(for_person.shape, Shape::Pvfn);
        assert_eq!(for_person.overhead, 0);
        let (out, for_agent) = settle(raw, Some(rendered), &agent);
        assert_eq!((out.as_slice(), for_agent.shape), (&raw[..], Shape::Raw));
        assert!(for_person.compressed + 10 > for_person.original);
    }

    #[test]
    fn never_worse_falls_back_to_raw() {
        let raw = br#"{"a":1}"#;
        let bigger = Rendered { text: "a long rendering that costs more tokens".into(), shape: Shape::Pvfn };
        let (out, receipt) = settle(raw, Some(bigger), &Settings::default());
        assert_eq!(out, raw);
        assert_eq!(receipt.shape, Shape::Raw);
        assert_eq!(receipt.original, receipt.compressed);
    }
}
