//! A large JSON input, delivered without its bytes and its parsed tree in
//! memory side by side. A tree of minified JSON takes ~7.5 times the bytes
//! (docs/performance.md, "Single-line inputs"), so the bytes themselves
//! would add another 1x at the peak, which comes at the end of the parse.
//! Here the raw bytes are stored first; a side thread takes them, counts
//! them, reads what the tree does not keep (repeated keys, numbers as
//! written, the first bytes, the harness's cut) and lets them go, while
//! the document is parsed from the stored copy. Anything unusual (not
//! JSON after all, a panic, raw bytes that beat the rendering) reads the
//! bytes back and takes the ordinary path.

use std::io;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::{Edge, Receipt, formatted, open_history, rendering_wins, typed_result, with_plan};
use crate::auditor::{self, Encoding};
use crate::history;
use crate::json::{self, Source, parse::Checked};
use crate::pipeline;
use crate::settings::{Hint, Settings};
use crate::store::{Object, Store};

/// What the side thread learnt from the raw bytes before letting them go.
struct Read {
    original: usize,
    harness: usize,
    checked: Checked,
    head: Vec<u8>,
    history: anyhow::Result<rusqlite::Connection>,
    open_took: Duration,
}

fn read(
    raw: Vec<u8>,
    enc: Encoding,
    budget: Option<usize>,
    (home, record): (&std::path::Path, bool),
    released: mpsc::Sender<()>,
) -> Read {
    let original = auditor::count_bytes(enc, &raw);
    let harness = crate::budget::harness_tokens(enc, &raw, original, budget);
    let checked = json::parse::check(&raw);
    let head = raw[..raw.len().min(Source::HEAD)].to_vec();
    drop(raw);
    let _ = released.send(());
    let opened = Instant::now();
    Read {
        original,
        harness,
        checked,
        head,
        history: open_history(record, home),
        open_took: opened.elapsed(),
    }
}

/// A large JSON document whose raw bytes are in the store: from here on the
/// caller may let its own copy go, since the stored one can stand in for it
/// (`object().path`), whatever happens next.
pub(super) struct Stored {
    store: Store,
    obj: Object,
    took: Duration,
}

impl Stored {
    /// Where the raw bytes are.
    pub(super) fn object(&self) -> &Object {
        &self.obj
    }
}

/// Stores `raw`, a document `pipeline::route` sent this way. `None` for
/// the ordinary path: no store to hold it, or storing failed.
pub(super) fn store(raw: &[u8], store: &Store) -> Option<Stored> {
    let store = store.clone();
    let started = Instant::now();
    let obj = store.plan(raw)?;
    store.put(raw, &obj).ok()?;
    Some(Stored { store, obj, took: started.elapsed() })
}

/// `super::deliver` once `raw` is `stored` (the edge's guard now falls
/// back to the stored copy), or `Err(raw)`, read back from the store, for
/// the ordinary path: not JSON after all, or raw bytes that beat the
/// rendering.
pub(super) fn deliver_stored(
    edge: &Edge,
    raw: Vec<u8>,
    stored: Stored,
    hint: Option<&Hint>,
    settings: &Settings,
    started: Instant,
) -> Result<io::Result<Receipt>, Vec<u8>> {
    let Stored { store: raw_store, obj, took: store_took } = stored;
    let call = with_plan(settings, Some(&obj));
    let settings = &call;
    let home = raw_store.home();
    let len = raw.len();
    let reread = || std::fs::read(&obj.path);

    let record = edge.records();
    let (released, gate) = mpsc::channel();
    let (side, documents) = crate::threads::beside(
        move || read(raw, settings.encoding, settings.budget, (home, record), released),
        || {
            std::fs::File::open(&obj.path).ok().and_then(|file| {
                json::parse::documents_from(Gated {
                    inner: file,
                    read: 0,
                    wait_at: len / 4 * 3,
                    gate: Some(gate),
                })
            })
        },
    );
    let side = side.ok();
    let (Some(documents), Some(side)) = (documents, side) else { return ordinary(reread()) };
    let rendered = json::parse::finish(documents, &side.checked).map(|value| {
        let source = Source::File { path: &obj.path, len, head: &side.head };
        json::with_status(pipeline::render_json(value, source, settings), hint.map(|h| h.exit_code))
    });
    let Some((out, mut receipt)) =
        rendered.and_then(|r| rendering_wins(side.original, r, settings, Some(&obj.id)))
    else {
        return ordinary(reread());
    };
    receipt.raw_id = Some(obj.id.clone());
    receipt.overhead = receipt.overhead_of(settings.receipt, settings.encoding);
    let result = typed_result(None, hint, &receipt);
    Ok(edge.emit(&formatted(out, &result, settings), receipt.line(settings.receipt).as_deref()).map(|()| {
        let call = history::Call::new(hint, &receipt, side.harness, started.elapsed()).with_result(&result);
        edge.after_output(call, side.history, home, Vec::new(), (store_took, side.open_took));
        receipt
    }))
}

/// The stored copy as the parser reads it: past `wait_at` bytes it waits
/// until the side thread has let the raw bytes go, so that they and the
/// whole tree are never in memory together, however the threads run.
struct Gated<R> {
    inner: R,
    read: usize,
    wait_at: usize,
    /// A message (or the side thread's end) when the raw bytes are gone.
    gate: Option<mpsc::Receiver<()>>,
}

impl<R: io::Read> io::Read for Gated<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.read >= self.wait_at
            && let Some(gate) = self.gate.take()
        {
            let _ = gate.recv();
        }
        let n = self.inner.read(buf)?;
        self.read += n;
        Ok(n)
    }
}

/// The bytes read back, for the ordinary path (or the error that lost them).
fn ordinary(raw: io::Result<Vec<u8>>) -> Result<io::Result<Receipt>, Vec<u8>> {
    match raw {
        Ok(raw) => Err(raw),
        Err(e) => Ok(Err(e)),
    }
}
