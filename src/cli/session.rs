//! `tokensieve session compact [OPTIONS] < in.jsonl > out.jsonl`: an agent
//! transcript with seed 003's transforms (`transcript::compact`) and, with
//! `--tool-results`, its tool outputs through our own pipeline, the
//! originals kept in the raw store.

use std::collections::HashMap;
use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::args::{SessionArgs, SessionVerb};
use super::progress::{Counting, Progress, Unit, stdin_len};

use crate::auditor::{ReceiptForm, Shape};
use crate::handoff;
use crate::pipeline;
use crate::settings::{Hint, Rendered, Settings};
use crate::store::{self, Store};
use crate::transcript::compact::{Options, Session, ToolOutput};
use crate::transcript::{Line, Reader, numbered, strip};

pub(crate) fn run(args: SessionArgs) -> Result<ExitCode> {
    let SessionVerb::Compact(a) = args.verb;
    let mut opts = Options::default();
    if let Some(lang) = &a.stopwords {
        opts.stop_words = strip::stop_words(lang).with_context(|| {
            format!("--stopwords: no list for '{lang}' (known: {})", strip::STOP_WORD_LANGS)
        })?;
    }
    if a.synonyms {
        opts.synonyms = Some(strip::default_synonyms());
    }
    opts.strip_signed_thinking = a.strip_signed_thinking;
    opts.tool_results = a.tool_results;
    if let Some(path) = &a.synonym_table {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("cannot read '{}'", path.display()))?;
        opts.synonyms =
            Some(strip::parse_synonyms(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?);
    }
    // The statistics file is opened before the work, so a path that cannot
    // be written fails before the transcript is (it is written once).
    let stats_file = match &a.stats_json {
        Some(path) => {
            Some(std::fs::File::create(path).with_context(|| format!("cannot write '{}'", path.display()))?)
        }
        None => None,
    };
    let mut settings = super::settings();
    // The compacted text is read by a model: the short receipt, counted.
    settings.receipt = ReceiptForm::Short;
    opts.encoding = settings.encoding;

    let progress = Progress::new("compacting", Unit::Bytes, stdin_len());
    let stdin = io::BufReader::with_capacity(1 << 16, Counting { inner: io::stdin().lock(), progress });
    let stdout = io::stdout().lock();
    let mut results = ResultStore::new(settings);
    let session = compact(stdin, stdout, &opts, &mut results)?;
    for no in &session.stats.malformed {
        eprintln!("tokensieve session: line {no}: not a transcript entry (kept as it is)");
    }
    for w in &results.warnings {
        super::out::warn(w);
    }
    if let (Some(mut file), Some(path)) = (stats_file, &a.stats_json) {
        let mut doc = session.stats.to_json();
        doc["tool_results_referenced"] = results.referenced.into();
        file.write_all(format!("{doc:#}\n").as_bytes())
            .with_context(|| format!("cannot write '{}'", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Streams `input` to `output` line by line (one line held at a time).
fn compact(
    input: impl BufRead,
    output: impl Write,
    opts: &Options,
    results: &mut ResultStore,
) -> Result<Session> {
    let mut reader = Reader::new(input);
    let mut out = BufWriter::with_capacity(1 << 16, output);
    let mut session = Session::default();
    let mut line = Line::default();
    let mut offer = |o: &ToolOutput| results.compact(o);
    while reader.next_into(&mut line).context("cannot read the transcript")? {
        let bytes = session.compact_line(&line, opts, &mut offer);
        let written =
            out.write_all(&bytes).and_then(|_| if line.newline { out.write_all(b"\n") } else { Ok(()) });
        match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(session),
            other => other.context("cannot write the compacted transcript")?,
        }
    }
    match out.flush() {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        other => other.context("cannot write the compacted transcript")?,
    }
    Ok(session)
}

/// A file's read as the compacted transcript shows it.
struct Read {
    call_id: String,
    first: usize,
    body: String,
}

/// A numbered listing (Claude Code's Read, Edit, Write): the text without
/// its line numbers through the pipeline; a re-read of a file read whole
/// before, from the same line, as its changes when that is shorter.
fn render_listing(
    listing: &numbered::Numbered,
    earlier: Option<&Read>,
    hint: &Hint,
    s: &crate::settings::Call,
) -> Rendered {
    let body = pipeline::render_guarded(listing.body.as_bytes(), Some(hint), s);
    let shape = body.as_ref().map_or(Shape::Text("numbered".into()), |r| r.shape.clone());
    let whole = Rendered {
        text: listing.render(body.as_ref().map_or(listing.body.as_str(), |r| r.text.as_str())),
        shape,
    };
    let changed = earlier
        .filter(|e| e.first == listing.first)
        .and_then(|e| Some((e, numbered::changes(&e.body, &listing.body)?)))
        .map(|(e, hunks)| listing.render_changes(&e.call_id, &hunks));
    match changed {
        Some(text) if text.len() < whole.text.len() => Rendered { text, shape: Shape::Text("reread".into()) },
        _ => whole,
    }
}

/// Tool outputs through the pipeline, their raw bytes into the store.
struct ResultStore {
    store: Store,
    settings: Settings,
    /// sha256 of each output seen → the call that first returned it.
    seen: HashMap<String, String>,
    /// Per file, the last read of it the compacted transcript shows whole.
    reads: HashMap<String, Read>,
    referenced: usize,
    warnings: Vec<String>,
}

impl ResultStore {
    fn new(settings: Settings) -> ResultStore {
        let max = crate::config::get().store_max_bytes();
        ResultStore {
            store: Store::new(store::home(), max),
            settings,
            seen: HashMap::new(),
            reads: HashMap::new(),
            referenced: 0,
            warnings: vec![],
        }
    }

    /// The text to leave in place of `o.text`, when it costs fewer tokens
    /// and the original is safely stored.
    fn compact(&mut self, o: &ToolOutput) -> Option<String> {
        let raw = o.text.as_bytes();
        // Empty, or already through tokensieve (its receipt is in it).
        if raw.is_empty() || crate::transcript::events::has_receipt(o.text) {
            return None;
        }
        let hex = store::hash_hex(raw);
        if let Some(first) = self.seen.get(&hex).cloned() {
            return self.reference(o, &first);
        }
        self.seen.insert(hex, o.call_id.to_owned());
        let command: Vec<String> = match o.command {
            Some(c) => crate::transcript::events::hint_words(c),
            None => vec![o.tool.to_owned()],
        };
        // A status header (`Exit code 1`, Codex's `Process exited with code
        // 0 … Output:`) stays as it is; the output after it is the tool's.
        let (exit, body) = crate::transcript::events::split_exit(o.text);
        let header = &o.text[..o.text.len() - body.len()];
        let hint = Hint { command, exit_code: exit };
        let listing = numbered::split(o.text);
        let earlier = o.path.and_then(|p| self.reads.get(p));
        let (text, receipt, planned) =
            handoff::assess_with(raw, &self.settings, &self.store, |s| match &listing {
                Some(listing) => Some(render_listing(listing, earlier, &hint, s)),
                None => pipeline::render_guarded(body.as_bytes(), Some(&hint), s)
                    .map(|r| Rendered { text: format!("{header}{}", r.text), shape: r.shape }),
            });
        // The next read of this file may be shown as changes to this one
        // when the reader sees all of it here.
        if let (Some(path), Some(listing)) = (o.path, &listing)
            && !matches!(receipt.shape, Shape::View { .. })
        {
            let read =
                Read { call_id: o.call_id.to_owned(), first: listing.first, body: listing.body.clone() };
            self.reads.insert(path.to_owned(), read);
        }
        let obj = planned?;
        if let Err(e) = self.store.put(raw, &obj) {
            self.warnings.push(format!("a tool result was kept whole: raw store: {e:#}"));
            return None;
        }
        let mut text = String::from_utf8(text).ok()?;
        text.push_str(&receipt.line(ReceiptForm::Short)?);
        Some(text)
    }

    /// An output identical to an earlier one: a reference to it (and to
    /// the stored bytes), when that is shorter.
    fn reference(&mut self, o: &ToolOutput, first: &str) -> Option<String> {
        let raw = o.text.as_bytes();
        let obj = self.store.plan(raw)?;
        let original = crate::auditor::count(self.settings.encoding, o.text);
        let short = &obj.id[..obj.id.len().min(8)];
        let text = format!("[tokensieve {original} tok · same output as {first} above · raw {short}]");
        if crate::auditor::count(self.settings.encoding, &text) >= original {
            return None;
        }
        if let Err(e) = self.store.put(raw, &obj) {
            self.warnings.push(format!("a tool result was kept whole: raw store: {e:#}"));
            return None;
        }
        self.referenced += 1;
        Some(text)
    }
}
