//! Agent session transcripts (JSON lines), read one line at a time: Claude
//! Code sessions (`~/.claude/projects/*/*.jsonl` and their `subagents/`),
//! Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) and seed
//! 003's entry shape. The format is decided per line, so a file that mixes
//! them, or holds a line that is not JSON, still reads: such a line is
//! reported and kept as it is.
//!
//! `discover` pairs the shell commands with their outputs (`events`);
//! `session compact` rewrites lines in place (`compact`), editing only the
//! bytes of the string values it changes (`spans`).
//!
//! # Design: Transcripts (`src/transcript/`, `src/cli/{discover,session}.rs`)
//!
//! Agent session logs, one JSON line at a time (`Reader`: `read_until`
//! through `take(LINE_MAX + 1)` into one reused buffer, so memory is the
//! longest line, not the file; a line over 16 MiB is read past, never held,
//! with one note on stderr, and one that runs on past 256 MiB more stops the
//! read). Per line, `spans::index` records where each
//! value sits in the bytes (a small validating scanner; not JSON → the line is
//! reported and kept) and `detect` names the format: Claude Code (`type` user,
//! assistant, system, summary, progress, file-history-snapshot,
//! queue-operation), Codex (a typed line with a `payload`: session_meta,
//! turn_context, event_msg, response_item and the metadata types newer
//! versions add), seed 003 (`kind`/`role`). `kind` sorts it into header, user
//! turn, tool result, assistant or other. `events` gives the tool calls (id,
//! tool, shell command, file path) and results (the string node the model
//! read, the error flag), `split_exit` a result's status header, and
//! `hint_command` the command a shell call's output came from.
//!
//! - `compact::Session::compact_line` (pure; the tool-result compactor is a
//!   closure) applies seed 003's contract: edits are byte ranges of string
//!   values, spliced into the line (`spans::splice`), so nothing else is
//!   re-serialised. Transforms in `strip` (NFC through `unicode-normalization`,
//!   zero-width, whitespace, stop words, synonyms). Stats count entries, bytes
//!   and content tokens per kind (`auditor::count`).
//! - `session.rs`'s `ResultStore` is that closure: an output already seen
//!   (sha256) becomes a reference; a numbered listing (`numbered::split`) loses
//!   its numbers and, read again from the same line, becomes its changes since
//!   the previous whole read (`numbered::changes`, Myers' diff on lines, given
//!   up past 400 edits); everything goes through `handoff::assess_with` — the
//!   handoff's own plan, render and settle, nothing written — and only a
//!   rendering that wins is kept, after `Store::put` stored the original.
//! - `discover.rs` pairs each shell call with its result, checks for a receipt
//!   or a history row (`history::tool_times`), and otherwise asks
//!   `handoff::assess` what `tokensieve --cmd CMD --exit N` would have saved
//!   (same settings, same store plan, the short receipt's tokens counted).
//!
//! Fixtures: `fixtures/sessions/` (the shared corpus's Claude sessions, and
//! Codex 0.169.0 rollouts written by the real `codex exec` against
//! `tests/agents/model.rs`, `codex/repro.sh`). `tests/transcript.rs` checks the
//! contract on every line and on synthetic lines (proptest), every compacted
//! result against `show`, the ≥ 25 % target, and discover against
//! `tokensieve --cmd` run per output; `scripts/transcript-rss.sh` measures a
//! 100 MB transcript's peak RSS.

pub mod compact;
pub mod events;
pub mod numbered;
pub mod spans;
pub mod strip;

use std::io::{self, BufRead, Read};

use spans::Node;

/// One line of a transcript: its bytes without the line end, and whether
/// it had one (the last line of a file may not).
#[derive(Debug, Default, Clone)]
pub struct Line {
    /// 1-based line number.
    pub no: usize,
    pub bytes: Vec<u8>,
    pub newline: bool,
}

/// The longest transcript line held (a tool result can be megabytes on one
/// line; an agent's own lines stay far below this).
pub const LINE_MAX: u64 = 16 << 20;
/// How far past `LINE_MAX` an over-long line is read (and dropped) looking
/// for its end; a line that runs on further (an endless stream) stops the
/// read with an error.
pub const SKIP_MAX: u64 = 256 << 20;

/// Reads lines of up to `LINE_MAX` bytes, holding one line at a time: a
/// longer line is read past, never held, with one note on stderr.
pub struct Reader<R> {
    input: R,
    no: usize,
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R) -> Self {
        Reader { input, no: 0 }
    }

    /// The next line into `line` (its buffer reused); `false` at the end.
    pub fn next_into(&mut self, line: &mut Line) -> io::Result<bool> {
        loop {
            line.bytes.clear();
            if (&mut self.input).take(LINE_MAX + 1).read_until(b'\n', &mut line.bytes)? == 0 {
                return Ok(false);
            }
            self.no += 1;
            if line.bytes.len() as u64 > LINE_MAX && line.bytes.last() != Some(&b'\n') {
                line.bytes = Vec::new();
                skip_line(&mut self.input, self.no)?;
                eprintln!(
                    "tokensieve: line {} of the transcript is longer than {} MiB: skipped (left out of what follows)",
                    self.no,
                    LINE_MAX >> 20
                );
                continue;
            }
            line.no = self.no;
            line.newline = line.bytes.last() == Some(&b'\n');
            if line.newline {
                line.bytes.pop();
            }
            return Ok(true);
        }
    }
}

/// Reads past the rest of an over-long line without holding it, up to
/// `SKIP_MAX` bytes.
fn skip_line(input: &mut impl BufRead, no: usize) -> io::Result<()> {
    let skipped = input.take(SKIP_MAX).skip_until(b'\n')?;
    if skipped as u64 >= SKIP_MAX {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "line {no} of the transcript runs past {} MiB without a line end: stopped",
                SKIP_MAX >> 20
            ),
        ));
    }
    Ok(())
}

/// Which agent wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Claude,
    Codex,
    /// Seed 003's `raw.jsonl` entries: `kind` (or `role`) `header`, `user`,
    /// `assistant`, `tool`, with `content`, `tool_name`, `tool_input`,
    /// `tool_mark.brief`.
    Seed,
}

/// Claude Code's line types.
const CLAUDE_TYPES: &[&str] =
    &["user", "assistant", "system", "summary", "progress", "file-history-snapshot", "queue-operation"];
/// Codex rollout line types (each carries a `payload`).
const CODEX_TYPES: &[&str] = &["session_meta", "turn_context", "event_msg", "response_item", "compacted"];

/// The format of one parsed line, `None` when no reader knows it.
pub fn detect(root: &Node, line: &[u8]) -> Option<Format> {
    let ty = root.get("type").and_then(|n| n.str(line));
    if let Some(ty) = ty.as_deref() {
        // Codex adds line types from version to version (`world_state`,
        // `token_usage_record`): any typed line with a payload and a time
        // that is not Claude's is a Codex line (metadata unless known).
        let codex_shaped = root.get("payload").is_some() && root.get("timestamp").is_some();
        if root.get("payload").is_some()
            && (CODEX_TYPES.contains(&ty) || codex_shaped && !CLAUDE_TYPES.contains(&ty))
        {
            return Some(Format::Codex);
        }
        if CLAUDE_TYPES.contains(&ty) && (root.get("message").is_some() || root.get("payload").is_none()) {
            return Some(Format::Claude);
        }
    }
    let seed_kind = seed_kind(root, line);
    (seed_kind.is_some() && root.get("message").is_none()).then_some(Format::Seed)
}

/// A seed 003 entry's kind (`kind`, else `role`).
pub fn seed_kind(root: &Node, line: &[u8]) -> Option<String> {
    ["kind", "role"].iter().find_map(|k| root.get(k).and_then(|n| n.str(line)).map(|s| s.into_owned()))
}

/// What an entry is, for the stats and the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EntryKind {
    /// Session metadata: Claude's system, summary, progress, snapshots,
    /// queue operations; Codex's session_meta, turn_context, event_msg;
    /// seed headers. Never changed.
    Header,
    /// What the person typed. Never changed.
    User,
    /// Tool outputs handed back to the model (Claude user lines made of
    /// `tool_result` blocks, Codex `function_call_output`, seed `tool`).
    ToolResult,
    /// The model's own entries: text, thinking, tool calls.
    Assistant,
    /// A line that is not JSON or that no reader knows: kept as it is.
    Other,
}

impl EntryKind {
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::Header => "header",
            EntryKind::User => "user",
            EntryKind::ToolResult => "tool_result",
            EntryKind::Assistant => "assistant",
            EntryKind::Other => "other",
        }
    }

    pub const ALL: [EntryKind; 5] =
        [EntryKind::Header, EntryKind::User, EntryKind::ToolResult, EntryKind::Assistant, EntryKind::Other];
}

/// The kind of one parsed line of `format`.
pub fn kind(format: Format, root: &Node, line: &[u8]) -> EntryKind {
    let str_at = |node: Option<&Node>| node.and_then(|n| n.str(line)).map(|s| s.into_owned());
    match format {
        Format::Claude => match str_at(root.get("type")).as_deref() {
            Some("assistant") => EntryKind::Assistant,
            Some("user") => {
                let content = root.get("message").and_then(|m| m.get("content"));
                let results = content.is_some_and(|c| {
                    c.items().iter().any(|b| str_at(b.get("type")).as_deref() == Some("tool_result"))
                });
                if results { EntryKind::ToolResult } else { EntryKind::User }
            }
            _ => EntryKind::Header,
        },
        Format::Codex => {
            let payload = root.get("payload");
            let ptype = str_at(payload.and_then(|p| p.get("type")));
            match (str_at(root.get("type")).as_deref(), ptype.as_deref()) {
                (Some("response_item"), Some("message")) => {
                    match str_at(payload.and_then(|p| p.get("role"))).as_deref() {
                        Some("assistant") => EntryKind::Assistant,
                        Some("user") => EntryKind::User,
                        _ => EntryKind::Header,
                    }
                }
                (Some("response_item"), Some(t)) if t.ends_with("_output") => EntryKind::ToolResult,
                (Some("response_item"), Some(_)) => EntryKind::Assistant,
                _ => EntryKind::Header,
            }
        }
        Format::Seed => match seed_kind(root, line).as_deref() {
            Some("user") => EntryKind::User,
            Some("assistant") => EntryKind::Assistant,
            Some("tool") | Some("tool_result") => EntryKind::ToolResult,
            _ => EntryKind::Header,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(line: &str) -> Option<(Format, EntryKind)> {
        let root = spans::index(line.as_bytes())?;
        let f = detect(&root, line.as_bytes())?;
        Some((f, kind(f, &root, line.as_bytes())))
    }

    #[test]
    fn formats_are_told_apart_per_line() {
        assert_eq!(
            kind_of(r#"{"type":"user","message":{"role":"user","content":"hi"}}"#),
            Some((Format::Claude, EntryKind::User))
        );
        assert_eq!(
            kind_of(r#"{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]}}"#),
            Some((Format::Claude, EntryKind::ToolResult))
        );
        assert_eq!(
            kind_of(r#"{"type":"file-history-snapshot","snapshot":{}}"#),
            Some((Format::Claude, EntryKind::Header))
        );
        assert_eq!(
            kind_of(
                r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","output":"x"}}"#
            ),
            Some((Format::Codex, EntryKind::ToolResult))
        );
        assert_eq!(
            kind_of(r#"{"type":"session_meta","payload":{"id":"1"}}"#),
            Some((Format::Codex, EntryKind::Header))
        );
        assert_eq!(
            kind_of(r#"{"kind":"assistant","content":"x"}"#),
            Some((Format::Seed, EntryKind::Assistant))
        );
        assert_eq!(kind_of(r#"{"kind":"header","session":"s"}"#), Some((Format::Seed, EntryKind::Header)));
        assert_eq!(
            kind_of(r#"{"timestamp":"t","type":"world_state","payload":{"full":true}}"#),
            Some((Format::Codex, EntryKind::Header))
        );
        assert_eq!(kind_of(r#"{"unrelated":1}"#), None);
        assert_eq!(kind_of("not json"), None);
    }

    #[test]
    fn long_lines_and_a_missing_last_newline_read_whole() {
        let big = "x".repeat(200_000);
        let input = format!("{{\"a\":\"{big}\"}}\nlast");
        let mut reader = Reader::new(io::BufReader::with_capacity(1024, input.as_bytes()));
        let mut line = Line::default();
        assert!(reader.next_into(&mut line).unwrap());
        assert_eq!((line.no, line.bytes.len(), line.newline), (1, big.len() + 8, true));
        assert!(reader.next_into(&mut line).unwrap());
        assert_eq!((line.no, line.bytes.as_slice(), line.newline), (2, &b"last"[..], false));
        assert!(!reader.next_into(&mut line).unwrap());
    }
}
