//! `tokensieve show ID [--lines A:B] [--grep RE] [--path] [--jq FILTER]`: a
//! stored raw output back, exactly, or the part of it asked for. A jq
//! program's answer goes through the same pipeline as any output (compact,
//! within the budget, with its own receipt).

use std::io::{self, Write};
use std::process::ExitCode;

use std::time::Instant;

use anyhow::{Context, Result, bail};
use regex::bytes::Regex;

use super::Global;
use crate::settings::Format;
use crate::store::{self, Lookup, Store};
use crate::typed;
use crate::{handoff, history, jq, share};

/// A 1-based inclusive line range; `end: None` runs to the last line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineRange {
    pub start: usize,
    pub end: Option<usize>,
}

#[derive(Debug)]
pub(crate) struct Args {
    pub id: String,
    pub lines: Option<LineRange>,
    pub grep: Option<Regex>,
    pub path: bool,
    pub jq: Option<String>,
    pub slurp: bool,
    /// The stored typed result instead of the raw bytes.
    pub summary: bool,
    /// ... as JSON.
    pub json: bool,
}

impl Args {
    pub fn new(opts: super::args::ShowArgs) -> Result<Args> {
        let id = store::parse_id(&opts.id)?;
        let lines = opts.lines.as_deref().map(parse_lines).transpose()?;
        let grep = match opts.grep.as_deref() {
            // regex's own message draws the pattern with a caret over
            // several lines; its last line says what is wrong.
            Some(re) => Some(Regex::new(re).map_err(|e| {
                let why = e.to_string();
                let why = why.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
                anyhow::anyhow!("invalid --grep pattern '{re}': {}", why.trim_start_matches("error: "))
            })?),
            None => None,
        };
        if opts.path && (lines.is_some() || grep.is_some()) {
            bail!("--path prints the file's path; it does not combine with --lines or --grep");
        }
        if opts.jq.is_some() && (lines.is_some() || grep.is_some() || opts.path) {
            bail!("--jq queries the JSON; it does not combine with --lines, --grep or --path");
        }
        if opts.slurp && opts.jq.is_none() {
            bail!("--slurp goes with --jq (it reads every JSON value of the output into one array)");
        }
        if opts.json && !opts.summary {
            bail!("--json goes with --summary (the stored result as JSON)");
        }
        if opts.summary && (lines.is_some() || grep.is_some() || opts.path || opts.jq.is_some()) {
            bail!(
                "--summary prints the stored result; it does not combine with --lines, --grep, --path or --jq"
            );
        }
        Ok(Args {
            id,
            lines,
            grep,
            path: opts.path,
            jq: opts.jq,
            slurp: opts.slurp,
            summary: opts.summary,
            json: opts.json,
        })
    }
}

impl LineRange {
    /// The range as it would be typed.
    fn label(self) -> String {
        match self.end {
            Some(e) if e == self.start => e.to_string(),
            Some(e) => format!("{}:{e}", self.start),
            None => format!("{}:", self.start),
        }
    }
}

/// `A:B`, `A:`, `:B` or `N` (one line); lines count from 1.
pub(crate) fn parse_lines(s: &str) -> Result<LineRange> {
    let num = |t: &str| -> Result<usize> {
        let n: usize =
            t.trim().parse().map_err(|_| anyhow::anyhow!("--lines wants A:B (e.g. 10:40), got '{s}'"))?;
        if n == 0 {
            bail!("--lines counts from 1, got '{s}'");
        }
        Ok(n)
    };
    let range = match s.split_once(':') {
        None => {
            let n = num(s)?;
            LineRange { start: n, end: Some(n) }
        }
        Some((a, b)) => LineRange {
            start: if a.trim().is_empty() { 1 } else { num(a)? },
            end: if b.trim().is_empty() { None } else { Some(num(b)?) },
        },
    };
    if range.end.is_some_and(|e| e < range.start) {
        bail!("--lines {s}: the end comes before the start");
    }
    Ok(range)
}

/// The lines of `raw` (each with its own terminator) numbered from 1,
/// limited to `range`.
pub(crate) fn select_lines(raw: &[u8], range: Option<LineRange>) -> impl Iterator<Item = (usize, &[u8])> {
    let range = range.unwrap_or(LineRange { start: 1, end: None });
    raw.split_inclusive(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .skip(range.start - 1)
        .take_while(move |(n, _)| range.end.is_none_or(|e| *n <= e))
}

pub(crate) fn run(args: &Args, global: &Global) -> Result<ExitCode> {
    let home = store::home();
    if args.summary {
        let format = if args.json { Format::Json } else { global.settings.format };
        return summary(&home, &args.id, format);
    }
    let raw_store = Store::new(home.clone(), crate::config::get().store_max_bytes());
    let mut found = raw_store.find(&args.id)?;
    if matches!(found, Lookup::Evicted | Lookup::NeverStored) {
        // Shared through git from another machine (`objects push`): fetch
        // it from the remote this repository shares with, checked by hash.
        match share::fetch_missing(&raw_store, &args.id) {
            Ok(Some(_)) => found = raw_store.find(&args.id)?,
            Ok(None) => {}
            Err(e) => {
                eprintln!("tokensieve show: {e:#}");
                return Ok(ExitCode::from(1));
            }
        }
    }
    let (hex, path) = match found {
        Lookup::Found { hex, path } => (hex, path),
        Lookup::Ambiguous(n) => {
            eprintln!("tokensieve show: id {} matches {n} stored outputs; give more of its digits", args.id);
            return Ok(ExitCode::from(1));
        }
        Lookup::Evicted => return Ok(evicted(&args.id, &raw_store)),
        Lookup::NeverStored if history::mentions_object(&home, &args.id) => {
            return Ok(evicted(&args.id, &raw_store));
        }
        Lookup::NeverStored => {
            eprintln!(
                "tokensieve show: raw output {} was never stored in {}",
                args.id,
                raw_store.objects_dir().display()
            );
            return Ok(ExitCode::from(1));
        }
    };
    if args.path {
        super::out::outln!("{}", path.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    let raw = raw_store.read(&hex).with_context(|| format!("cannot read {}", path.display()))?;
    if store::hash_hex(&raw) != hex {
        eprintln!(
            "tokensieve show: the stored copy of {} is damaged (its bytes no longer match their hash): {}",
            args.id,
            path.display()
        );
        return Ok(ExitCode::from(1));
    }
    if let Some(filter) = &args.jq {
        return query(&raw, filter, args.slurp, global);
    }
    if let Some(range) = args.lines {
        let total = select_lines(&raw, None).count();
        if range.start > total {
            eprintln!(
                "tokensieve show: --lines {}: the output has {total} line{}",
                range.label(),
                if total == 1 { "" } else { "s" }
            );
            return Ok(ExitCode::from(1));
        }
    }
    let mut out = io::stdout().lock();
    let mut matched = false;
    let written = (|| -> io::Result<()> {
        match (&args.grep, args.lines) {
            (None, None) => out.write_all(&raw)?,
            (None, Some(range)) => {
                for (_, line) in select_lines(&raw, Some(range)) {
                    out.write_all(line)?;
                }
            }
            (Some(re), range) => {
                for (n, line) in select_lines(&raw, range) {
                    let body = line.strip_suffix(b"\n").unwrap_or(line);
                    if re.is_match(body) {
                        matched = true;
                        write!(out, "{n}:")?;
                        out.write_all(body)?;
                        out.write_all(b"\n")?;
                    }
                }
            }
        }
        out.flush()
    })();
    match written {
        // The reader closed early (`| head`): its choice, not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        other => other.context("cannot write to stdout")?,
    }
    // Like grep: no matching line is exit 1.
    Ok(if args.grep.is_some() && !matched { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `--jq` (with `--slurp`: over one array of every value, for JSON lines):
/// the program's outputs, one compact JSON value per line (as
/// `jq -c` prints them), delivered like any captured output.
fn query(raw: &[u8], filter: &str, slurp: bool, global: &Global) -> Result<ExitCode> {
    let started = Instant::now();
    // A question about a stored output is not a new call of its tool.
    handoff::not_a_call();
    let outputs = match jq::run(filter, raw, slurp) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("tokensieve show: {e:#}");
            return Ok(ExitCode::from(1));
        }
    };
    let mut text = outputs.join("\n");
    if !text.is_empty() {
        text.push('\n');
    }
    // The answer asked for is shown whole: a focus view of it would leave
    // out again what the agent asked for (the budget still applies).
    let settings = crate::settings::Settings { focus: None, ..global.settings.clone() };
    handoff::deliver(
        handoff::Sink::Stdout,
        handoff::Output::Whole(text.into_bytes()),
        None,
        &settings,
        &crate::config::get().store(),
        started,
    )
    .context("cannot write to stdout")?;
    Ok(ExitCode::SUCCESS)
}

/// `--summary`: the typed result stored with the call (it outlives an
/// evicted raw output), as text or, with `--format json|yaml`, as stored.
fn summary(home: &std::path::Path, id: &str, format: Format) -> Result<ExitCode> {
    let Some(v) = crate::history::result_of(home, id).context("cannot read the history")? else {
        eprintln!(
            "tokensieve show: no typed result is stored for {id} (calls recorded before results were kept have none)"
        );
        return Ok(ExitCode::from(1));
    };
    let text = match format {
        Format::Text => typed::summary_text(&v),
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&v)?),
        Format::Yaml => typed::to_yaml(&v),
    };
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {}
        other => other.context("cannot write to stdout")?,
    }
    Ok(ExitCode::SUCCESS)
}

fn evicted(id: &str, raw_store: &Store) -> ExitCode {
    eprintln!(
        "tokensieve show: raw output {id} was evicted from the store (oldest first, to stay under its {} byte cap; \
         TOKENSIEVE_STORE_MAX_BYTES raises it); re-run the command to see it again",
        raw_store.eviction(id).flatten().unwrap_or(raw_store.max_bytes())
    );
    ExitCode::from(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges() {
        assert_eq!(parse_lines("10:40").unwrap(), LineRange { start: 10, end: Some(40) });
        assert_eq!(parse_lines("5:").unwrap(), LineRange { start: 5, end: None });
        assert_eq!(parse_lines(":3").unwrap(), LineRange { start: 1, end: Some(3) });
        assert_eq!(parse_lines("7").unwrap(), LineRange { start: 7, end: Some(7) });
        assert!(parse_lines("0:3").is_err());
        assert!(parse_lines("4:2").is_err());
        assert!(parse_lines("a:b").is_err());
    }

    #[test]
    fn selected_lines_keep_their_bytes() {
        let raw = b"one\ntwo\r\nthree\nfour";
        let got: Vec<_> = select_lines(raw, Some(parse_lines("2:3").unwrap())).collect();
        assert_eq!(got, vec![(2, &b"two\r\n"[..]), (3, &b"three\n"[..])]);
        let tail: Vec<_> = select_lines(raw, Some(parse_lines("4:").unwrap())).collect();
        assert_eq!(tail, vec![(4, &b"four"[..])]);
        assert_eq!(select_lines(raw, None).count(), 4);
        assert_eq!(select_lines(raw, Some(parse_lines("9:").unwrap())).count(), 0);
    }
}
