//! `tokensieve session compact`: seed 003's contract, line by line.
//!
//! - Header entries, user turns, tool names, tool inputs and
//!   `tool_mark.brief` are never touched (their bytes are not even
//!   re-serialised: an edit replaces the bytes of one string value).
//! - Assistant text gets the lossless transforms (`strip::nfc`,
//!   `zero_width`, `whitespace`); thinking also gets the lossy ones (stop
//!   words, opt-in synonyms) — unless it is signed: a Claude `thinking`
//!   block's `signature` covers its text, so a changed block could not be
//!   sent back when the session resumes. Signed blocks stay as they are
//!   (or, with `strip_signed_thinking`, lose their text and the session its
//!   resumability).
//! - With `tool_results`, each tool output is offered to a caller-supplied
//!   compactor (the CLI runs it through our pipeline and the raw store).
//! - Order kept, nothing dropped; a line that is not JSON, or that no reader
//!   knows, is written back as it was.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use super::spans::{self, Kind, Node, encode_string};
use super::strip;
use super::{EntryKind, Format, Line};
use crate::auditor::{self, Encoding};

/// What the transforms may do.
#[derive(Clone, Debug)]
pub struct Options {
    pub stop_words: &'static [&'static str],
    /// The phrase table, when synonym substitution is on.
    pub synonyms: Option<Vec<(String, String)>>,
    pub strip_signed_thinking: bool,
    pub tool_results: bool,
    pub encoding: Encoding,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            stop_words: strip::stop_words("en").unwrap_or(&[]),
            synonyms: None,
            strip_signed_thinking: false,
            tool_results: false,
            encoding: Encoding::Cl100k,
        }
    }
}

/// A tool output offered to the compactor.
#[derive(Debug)]
pub struct ToolOutput<'a> {
    /// The call's id (`toolu_…`, `call_…`), empty when unknown.
    pub call_id: &'a str,
    /// The tool's name (`Bash`, `Read`, `shell`), empty when unknown.
    pub tool: &'a str,
    /// The shell command it ran, when it ran one.
    pub command: Option<&'a str>,
    /// The file it read, when it read one.
    pub path: Option<&'a str>,
    pub text: &'a str,
}

/// Counts of what each transform did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transforms {
    /// Entries where NFC normalisation changed the text.
    pub nfc: usize,
    /// Entries where zero-width or unusual whitespace characters went.
    pub zero_width: usize,
    /// Entries where whitespace canonicalisation changed the text.
    pub whitespace: usize,
    /// Thinking blocks that lost stop words.
    pub stop_words: usize,
    /// Thinking blocks where a synonym replaced a phrase.
    pub synonyms: usize,
    /// Signed thinking blocks left untouched.
    pub signed_thinking_kept: usize,
    /// Signed thinking blocks whose text was dropped.
    pub signed_thinking_stripped: usize,
    /// Tool results replaced by the compactor.
    pub tool_results_compacted: usize,
}

/// Per entry kind: entries, bytes of their lines and tokens of their
/// content (the text a model reads: messages, thinking, tool inputs and
/// outputs), in and out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KindStats {
    pub entries: usize,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub entries_in: usize,
    pub entries_out: usize,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Lines that are not JSON or of no known format (kept as they were).
    pub malformed: Vec<usize>,
    pub kinds: BTreeMap<EntryKind, KindStats>,
    pub transforms: Transforms,
}

impl Stats {
    /// A session whose signed thinking lost its text cannot be resumed.
    pub fn resumable(&self) -> bool {
        self.transforms.signed_thinking_stripped == 0
    }

    pub fn tokens(&self) -> (u64, u64) {
        self.kinds.values().fold((0, 0), |(i, o), k| (i + k.tokens_in, o + k.tokens_out))
    }

    /// The `--stats-json` document.
    pub fn to_json(&self) -> serde_json::Value {
        let t = &self.transforms;
        let (tokens_in, tokens_out) = self.tokens();
        let kinds: serde_json::Map<String, serde_json::Value> = self
            .kinds
            .iter()
            .map(|(k, s)| {
                (
                    k.name().to_owned(),
                    serde_json::json!({"entries": s.entries, "bytes_in": s.bytes_in, "bytes_out": s.bytes_out,
                        "tokens_in": s.tokens_in, "tokens_out": s.tokens_out}),
                )
            })
            .collect();
        serde_json::json!({
            "entries_in": self.entries_in,
            "entries_out": self.entries_out,
            "bytes_in": self.bytes_in,
            "bytes_out": self.bytes_out,
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "malformed_lines": self.malformed,
            "resumable": self.resumable(),
            "kinds": kinds,
            "transforms": {
                "nfc": t.nfc, "zero_width": t.zero_width, "whitespace": t.whitespace,
                "stop_words": t.stop_words, "synonyms": t.synonyms,
                "signed_thinking_kept": t.signed_thinking_kept,
                "signed_thinking_stripped": t.signed_thinking_stripped,
                "tool_results_compacted": t.tool_results_compacted,
            },
        })
    }
}

/// A tool call seen earlier in the session, for its result's hint.
#[derive(Clone, Debug)]
struct Call {
    tool: String,
    command: Option<String>,
    path: Option<String>,
}

/// One session's state: the tool calls seen so far and the stats.
#[derive(Default)]
pub struct Session {
    calls: HashMap<String, Call>,
    pub stats: Stats,
}

/// Where the lossless and lossy transforms may go within one string.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Assistant prose: lossless only.
    Prose,
    /// Thinking: lossless and lossy.
    Thinking,
    /// Seed 003's assistant content: lossy only inside `<thinking>…</thinking>`.
    Tagged,
}

impl Session {
    /// The line to write for `line` (the input's bytes when nothing
    /// changed). `results` compacts one tool output (`None`: keep it).
    pub fn compact_line(
        &mut self,
        line: &Line,
        opts: &Options,
        results: &mut dyn FnMut(&ToolOutput) -> Option<String>,
    ) -> Vec<u8> {
        let bytes = &line.bytes;
        let parsed = spans::index(bytes).and_then(|root| super::detect(&root, bytes).map(|f| (root, f)));
        let (out, kind, tokens_in, tokens_out) = match parsed {
            None => {
                self.stats.malformed.push(line.no);
                (bytes.clone(), EntryKind::Other, 0, 0)
            }
            Some((root, format)) => {
                let kind = super::kind(format, &root, bytes);
                let mut edits: Vec<(Range<usize>, String)> = Vec::new();
                self.note_calls(format, &root, bytes);
                match kind {
                    EntryKind::Assistant => self.assistant(format, &root, bytes, opts, &mut edits),
                    EntryKind::ToolResult if opts.tool_results => {
                        self.tool_results(format, &root, bytes, results, &mut edits)
                    }
                    _ => {}
                }
                let tokens_in = content_tokens(format, &root, bytes, opts.encoding);
                if edits.is_empty() {
                    (bytes.clone(), kind, tokens_in, tokens_in)
                } else {
                    let out = spans::splice(bytes, edits);
                    let tokens_out = spans::index(&out)
                        .map_or(tokens_in, |r| content_tokens(format, &r, &out, opts.encoding));
                    (out, kind, tokens_in, tokens_out)
                }
            }
        };
        let s = &mut self.stats;
        s.entries_in += 1;
        s.entries_out += 1;
        let ends = u64::from(line.newline);
        s.bytes_in += bytes.len() as u64 + ends;
        s.bytes_out += out.len() as u64 + ends;
        let k = s.kinds.entry(kind).or_default();
        k.entries += 1;
        k.bytes_in += bytes.len() as u64 + ends;
        k.bytes_out += out.len() as u64 + ends;
        k.tokens_in += tokens_in;
        k.tokens_out += tokens_out;
        out
    }

    /// Remembers tool calls (id → tool, command) for their results' hints.
    fn note_calls(&mut self, format: Format, root: &Node, line: &[u8]) {
        for call in super::events::calls(format, root, line) {
            self.calls.insert(call.id, Call { tool: call.tool, command: call.command, path: call.path });
        }
    }

    fn assistant(
        &mut self,
        format: Format,
        root: &Node,
        line: &[u8],
        opts: &Options,
        edits: &mut Vec<(Range<usize>, String)>,
    ) {
        let mut changed = [false; 3];
        match format {
            Format::Claude => {
                let Some(content) = root.get("message").and_then(|m| m.get("content")) else { return };
                if content.kind == Kind::String {
                    self.edit_text(content, line, Scope::Prose, opts, &mut changed, edits);
                }
                for block in content.items() {
                    match block.get("type").and_then(|t| t.str(line)).as_deref() {
                        Some("text") => {
                            if let Some(text) = block.get("text") {
                                self.edit_text(text, line, Scope::Prose, opts, &mut changed, edits);
                            }
                        }
                        Some("thinking") => self.thinking(block, line, opts, &mut changed, edits),
                        _ => {}
                    }
                }
            }
            Format::Codex => {
                let payload = root.get("payload");
                let is_message = payload.and_then(|p| p.get("type")).and_then(|t| t.str(line)).as_deref()
                    == Some("message");
                if !is_message {
                    return;
                }
                for part in payload.and_then(|p| p.get("content")).map(Node::items).unwrap_or(&[]) {
                    if part.get("type").and_then(|t| t.str(line)).as_deref() == Some("output_text")
                        && let Some(text) = part.get("text")
                    {
                        self.edit_text(text, line, Scope::Prose, opts, &mut changed, edits);
                    }
                }
            }
            Format::Seed => {
                if let Some(content) = root.get("content") {
                    self.edit_text(content, line, Scope::Tagged, opts, &mut changed, edits);
                }
            }
        }
        let t = &mut self.stats.transforms;
        t.nfc += usize::from(changed[0]);
        t.zero_width += usize::from(changed[1]);
        t.whitespace += usize::from(changed[2]);
    }

    fn thinking(
        &mut self,
        block: &Node,
        line: &[u8],
        opts: &Options,
        changed: &mut [bool; 3],
        edits: &mut Vec<(Range<usize>, String)>,
    ) {
        let Some(text) = block.get("thinking") else { return };
        let signed = block.get("signature").and_then(|s| s.str(line)).is_some_and(|s| !s.is_empty());
        if !signed {
            self.edit_text(text, line, Scope::Thinking, opts, changed, edits);
        } else if opts.strip_signed_thinking {
            if text.str(line).is_some_and(|t| !t.is_empty()) {
                edits.push((text.range.clone(), "\"\"".into()));
                self.stats.transforms.signed_thinking_stripped += 1;
            }
        } else {
            self.stats.transforms.signed_thinking_kept += 1;
        }
    }

    /// Applies the transforms `scope` allows to one string value.
    fn edit_text(
        &mut self,
        node: &Node,
        line: &[u8],
        scope: Scope,
        opts: &Options,
        changed: &mut [bool; 3],
        edits: &mut Vec<(Range<usize>, String)>,
    ) {
        let Some(text) = node.str(line) else { return };
        let mut text = text.into_owned();
        let before = text.clone();
        for (i, f) in [strip::nfc, strip::zero_width, strip::whitespace].iter().enumerate() {
            if let Some(t) = f(&text) {
                text = t;
                changed[i] = true;
            }
        }
        match scope {
            Scope::Prose => {}
            Scope::Thinking => text = self.lossy(&text, opts),
            Scope::Tagged => text = self.tagged(&text, opts),
        }
        if text != before {
            edits.push((node.range.clone(), encode_string(&text)));
        }
    }

    /// Stop words and synonyms, counted per block.
    fn lossy(&mut self, text: &str, opts: &Options) -> String {
        let mut out = text.to_owned();
        if let Some(t) = strip::drop_stop_words(&out, opts.stop_words) {
            out = t;
            self.stats.transforms.stop_words += 1;
        }
        if let Some(table) = &opts.synonyms
            && let Some(t) = strip::substitute(&out, table)
        {
            out = t;
            self.stats.transforms.synonyms += 1;
        }
        out
    }

    /// The lossy transforms on each `<thinking>…</thinking>` section only.
    fn tagged(&mut self, text: &str, opts: &Options) -> String {
        const OPEN: &str = "<thinking>";
        const CLOSE: &str = "</thinking>";
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(start) = rest.find(OPEN) {
            let inner_at = start + OPEN.len();
            let Some(len) = rest[inner_at..].find(CLOSE) else { break };
            out.push_str(&rest[..inner_at]);
            out.push_str(&self.lossy(&rest[inner_at..inner_at + len], opts));
            out.push_str(CLOSE);
            rest = &rest[inner_at + len + CLOSE.len()..];
        }
        out.push_str(rest);
        out
    }

    fn tool_results(
        &mut self,
        format: Format,
        root: &Node,
        line: &[u8],
        results: &mut dyn FnMut(&ToolOutput) -> Option<String>,
        edits: &mut Vec<(Range<usize>, String)>,
    ) {
        for found in super::events::results(format, root, line) {
            if found.is_error {
                continue; // errors are short and are the signal itself
            }
            let Some(node) = found.text_node else { continue };
            let Some(text) = node.str(line) else { continue };
            let call = self.calls.get(&found.call_id).cloned();
            let out = ToolOutput {
                call_id: &found.call_id,
                tool: call.as_ref().map_or("", |c| c.tool.as_str()),
                command: call.as_ref().and_then(|c| c.command.as_deref()),
                path: call.as_ref().and_then(|c| c.path.as_deref()),
                text: &text,
            };
            if let Some(new) = results(&out) {
                edits.push((node.range.clone(), encode_string(&new)));
                self.stats.transforms.tool_results_compacted += 1;
            }
        }
    }
}

/// Tokens of the text a model reads in one line: message text, thinking,
/// tool inputs (their JSON text) and tool outputs. Metadata is not counted.
pub fn content_tokens(format: Format, root: &Node, line: &[u8], enc: Encoding) -> u64 {
    let mut total = 0u64;
    let mut add_str = |n: &Node| {
        if let Some(s) = n.str(line) {
            total += auditor::count(enc, &s) as u64;
        }
    };
    let mut raw_tokens = 0u64;
    let mut add_raw = |n: &Node| {
        raw_tokens += auditor::count_bytes(enc, &line[n.range.clone()]) as u64;
    };
    match format {
        Format::Claude => {
            let Some(content) = root.get("message").and_then(|m| m.get("content")) else { return 0 };
            add_str(content);
            for block in content.items() {
                for key in ["text", "thinking"] {
                    if let Some(n) = block.get(key) {
                        add_str(n);
                    }
                }
                if let Some(n) = block.get("input") {
                    add_raw(n);
                }
                if let Some(c) = block.get("content") {
                    add_str(c);
                    for part in c.items() {
                        if let Some(n) = part.get("text") {
                            add_str(n);
                        }
                    }
                }
            }
        }
        Format::Codex => {
            // event_msg lines repeat the items for the UI: counted once.
            if root.get("type").and_then(|t| t.str(line)).as_deref() != Some("response_item") {
                return 0;
            }
            let Some(p) = root.get("payload") else { return 0 };
            for part in p.get("content").map(Node::items).unwrap_or(&[]) {
                if let Some(n) = part.get("text") {
                    add_str(n);
                }
            }
            for key in ["arguments", "input", "output"] {
                if let Some(n) = p.get(key) {
                    add_str(n);
                }
            }
        }
        Format::Seed => {
            for key in ["content", "output"] {
                if let Some(n) = root.get(key) {
                    add_str(n);
                }
            }
            if let Some(n) = root.get("tool_input") {
                add_raw(n);
            }
        }
    }
    total + raw_tokens
}
