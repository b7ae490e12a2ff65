//! `tokensieve gain [--since 24h|7d|all] [--json]`: recorded savings per
//! command, with bars and totals; `--markdown [--since-ref REF]` the PR
//! scorecard (per tool, calls made in this repository since the branch left
//! REF).

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::out::{Stream, Style, clip, group};
use crate::history::{self, CommandStats};
use crate::store;

#[derive(Debug)]
pub(crate) struct Args {
    /// `None`: all time.
    pub since: Option<Duration>,
    /// The window as the user wrote it, for the heading.
    pub label: String,
    pub json: bool,
    /// A per-tool table for a PR description (`--markdown`).
    pub markdown: bool,
    /// Count calls made in this repository since this ref's branch point.
    pub since_ref: Option<String>,
}

impl Args {
    pub fn new(opts: super::args::GainArgs) -> Result<Args> {
        if opts.since_ref.is_some() && !opts.markdown {
            bail!("--since-ref goes with --markdown (the PR scorecard)");
        }
        if opts.since_ref.is_some() && opts.since.is_some() {
            bail!("--since-ref and --since both set the window; give one");
        }
        if opts.markdown && opts.json {
            bail!("--markdown and --json are two formats; give one");
        }
        let label = opts.since.unwrap_or_else(|| "all".to_owned());
        Ok(Args {
            since: parse_since(&label)?,
            label,
            json: opts.json,
            markdown: opts.markdown,
            since_ref: opts.since_ref,
        })
    }
}

pub(crate) use crate::history::query::parse_since;

pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let home = store::home();
    let mut since_ms = args.since.map(|d| history::now_ms().saturating_sub(d.as_millis() as i64));
    let mut window = Window { label: args.label.clone(), base: None, repo: None };
    if args.markdown {
        window.repo = git(&["rev-parse", "--show-toplevel"]).ok();
        if let Some(r) = &args.since_ref {
            let base =
                git(&["merge-base", "HEAD", r]).with_context(|| format!("no branch point with '{r}'"))?;
            let secs: i64 = git(&["show", "-s", "--format=%ct", &base])?.parse().context("a commit time")?;
            since_ms = Some(secs * 1000);
            window.base = Some((r.clone(), base.chars().take(10).collect()));
        }
    }
    let stats = match read_history(&home, |conn| match args.markdown {
        true => history::by_tool(conn, since_ms, window.repo.as_deref()),
        false => history::by_command(conn, since_ms),
    })? {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let text = if args.markdown {
        render_markdown(&stats, &window)
    } else if args.json {
        render_json(&stats, &args.label).to_string()
    } else {
        render_table(&stats, &args.label)
    };
    super::out::text(&format!("{text}\n"))?;
    Ok(ExitCode::SUCCESS)
}

/// The history read by `f` (nothing recorded yet: the empty answer); a
/// damaged database is one line that says how to reset it, and exit 1.
pub(crate) fn read_history<T: Default>(
    home: &std::path::Path,
    f: impl FnOnce(&rusqlite::Connection) -> Result<T>,
) -> Result<std::result::Result<T, ExitCode>> {
    match history::open_existing(home).and_then(|c| c.map_or_else(|| Ok(T::default()), |conn| f(&conn))) {
        Ok(v) => Ok(Ok(v)),
        Err(e) if history::is_corrupt(&e) => {
            super::usage::error_line("tokensieve", &history::describe_error(&e, home));
            Ok(Err(ExitCode::from(1)))
        }
        Err(e) => Err(e.context("cannot read the history")),
    }
}

/// `git ARGS` in the current directory: its trimmed stdout, or why not.
fn git(args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        bail!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// What the scorecard counts: a time window, the ref's branch point
/// (`(ref, short sha)`) and the repository the calls ran in.
pub(crate) struct Window {
    pub label: String,
    pub base: Option<(String, String)>,
    pub repo: Option<String>,
}

/// The PR scorecard: tokens kept out of the agent's context per tool, as a
/// Markdown table (the numbers right-aligned, totals last).
pub(crate) fn render_markdown(stats: &[CommandStats], w: &Window) -> String {
    let window = match (&w.base, w.label.as_str()) {
        (Some((r, sha)), _) => format!("since this branch left `{r}` ({sha})"),
        (None, "all") => "all recorded calls".to_string(),
        (None, l) => format!("the last {l}"),
    };
    let mut out = format!("#### tokensieve: tokens kept out of the agent's context, {window}\n\n");
    if stats.is_empty() {
        out.push_str("No calls recorded in this window.");
        return out;
    }
    out.push_str("| tool | calls | tokens in | tokens out | kept out | saved |\n");
    out.push_str("|---|---:|---:|---:|---:|---:|\n");
    let row = |name: &str, s: &CommandStats| {
        format!(
            "| {name} | {} | {} | {} | {} | {:.1}% |\n",
            group(s.calls),
            group(s.original_tokens),
            group(s.compressed_tokens),
            group(s.saved_tokens()),
            pct(s)
        )
    };
    for s in stats {
        // a tool name is a plain word (history's rules); `|` cannot occur
        out.push_str(&row(&format!("`{}`", s.tool), s));
    }
    out.push_str(&row("**total**", &totals(stats)));
    out.truncate(out.trim_end().len());
    out
}

fn totals(stats: &[CommandStats]) -> CommandStats {
    CommandStats {
        tool: "total".into(),
        subcommand: String::new(),
        calls: stats.iter().map(|s| s.calls).sum(),
        original_tokens: stats.iter().map(|s| s.original_tokens).sum(),
        compressed_tokens: stats.iter().map(|s| s.compressed_tokens).sum(),
        harness_tokens: stats.iter().map(|s| s.harness_tokens).sum(),
    }
}

fn pct(s: &CommandStats) -> f64 {
    if s.original_tokens == 0 { 0.0 } else { s.saved_tokens() as f64 * 100.0 / s.original_tokens as f64 }
}

/// Share saved against what the harness would have shown (an output past
/// its cap counts only the part it would have kept).
fn pct_vs_harness(s: &CommandStats) -> f64 {
    if s.harness_tokens == 0 { 0.0 } else { s.saved_vs_harness() as f64 * 100.0 / s.harness_tokens as f64 }
}

/// The machine-readable report.
pub(crate) fn render_json(stats: &[CommandStats], label: &str) -> serde_json::Value {
    let t = totals(stats);
    let row = |s: &CommandStats| {
        json!({
            "command": s.command(),
            "tool": s.tool,
            "subcommand": s.subcommand,
            "calls": s.calls,
            "original_tokens": s.original_tokens,
            "compressed_tokens": s.compressed_tokens,
            "saved_tokens": s.saved_tokens(),
            "saved_pct": (pct(s) * 10.0).round() / 10.0,
            "harness_tokens": s.harness_tokens,
            "saved_vs_harness_tokens": s.saved_vs_harness(),
            "saved_vs_harness_pct": (pct_vs_harness(s) * 10.0).round() / 10.0,
        })
    };
    json!({
        "since": label,
        "calls": t.calls,
        "original_tokens": t.original_tokens,
        "compressed_tokens": t.compressed_tokens,
        "saved_tokens": t.saved_tokens(),
        "saved_pct": (pct(&t) * 10.0).round() / 10.0,
        "harness_tokens": t.harness_tokens,
        "saved_vs_harness_tokens": t.saved_vs_harness(),
        "saved_vs_harness_pct": (pct_vs_harness(&t) * 10.0).round() / 10.0,
        "by_command": stats.iter().map(row).collect::<Vec<_>>(),
    })
}

const BAR_WIDTH: usize = 10;
/// The table fits this many columns (the command names are clipped to it).
const TABLE_WIDTH: usize = 100;
const MIN_COMMAND_WIDTH: usize = 16;

/// The table for people: one row per command, a bar of the share saved,
/// totals last; at most `TABLE_WIDTH` columns wide.
pub(crate) fn render_table(stats: &[CommandStats], label: &str) -> String {
    let window = if label == "all" { "all time".to_owned() } else { format!("last {label}") };
    if stats.is_empty() {
        return format!("tokensieve gain ({window}): no calls recorded");
    }
    let t = totals(stats);
    let mut out = format!(
        "tokensieve gain ({window}): {} calls, saved {} of {} tokens ({:.1}%)\n\
         against what the harness would have shown ({} tokens): saved {} ({:.1}%)\n\n",
        group(t.calls),
        group(t.saved_tokens()),
        group(t.original_tokens),
        pct(&t),
        group(t.harness_tokens),
        signed(t.saved_vs_harness()),
        pct_vs_harness(&t)
    );
    let cells = |s: &CommandStats| {
        // (tokens out = in - saved: in the JSON and the scorecard, not here,
        // so the table fits 100 columns with the longest command names)
        [
            group(s.calls),
            group(s.original_tokens),
            group(s.saved_tokens()),
            format!("{:.1}%", pct(s)),
            format!("{:.1}%", pct_vs_harness(s)),
        ]
    };
    let header = ["calls", "tokens in", "saved", "%", "vs harness"];
    let rows: Vec<[String; 5]> = stats.iter().chain([&t]).map(cells).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0))
        .collect();
    let numbers: usize = widths.iter().map(|w| w + 2).sum();
    let room = TABLE_WIDTH.saturating_sub(numbers + 2 + BAR_WIDTH).max(MIN_COMMAND_WIDTH);
    let names: Vec<String> = stats.iter().map(|s| clip(&s.command(), room)).chain(["total".into()]).collect();
    let name_width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0).max("command".len());
    let row = |name: &str, cells: &[String], bar: &str| {
        let mut line = format!("{name:<name_width$}");
        for (c, w) in cells.iter().zip(&widths) {
            line.push_str(&format!("  {c:>w$}"));
        }
        if !bar.is_empty() {
            line.push_str("  ");
            line.push_str(bar);
        }
        line.push('\n');
        line
    };
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    out.push_str(&row("command", &header, ""));
    for ((name, cells), s) in names.iter().zip(&rows).zip(stats.iter().chain([&t])) {
        out.push_str(&row(name, cells, &bar(pct(s))));
    }
    out.truncate(out.trim_end().len());
    out
}

/// `-1,234` or `1,234`.
fn signed(n: i64) -> String {
    if n < 0 { format!("-{}", group(n.unsigned_abs())) } else { group(n as u64) }
}

/// The share saved as a bar (green on a terminal).
fn bar(pct: f64) -> String {
    let filled = ((pct / 100.0) * BAR_WIDTH as f64).round().clamp(0.0, BAR_WIDTH as f64) as usize;
    let done = super::out::paint(&"█".repeat(filled), Style::Good, Stream::Stdout);
    format!("{done}{}", "░".repeat(BAR_WIDTH - filled))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(tool: &str, sub: &str, calls: u64, o: u64, c: u64) -> CommandStats {
        CommandStats {
            tool: tool.into(),
            subcommand: sub.into(),
            calls,
            original_tokens: o,
            compressed_tokens: c,
            harness_tokens: o,
        }
    }

    #[test]
    fn json_totals_are_sums() {
        let stats = vec![stat("aws", "ec2 describe-vpcs", 2, 1000, 250), stat("-", "", 1, 10, 10)];
        let v = render_json(&stats, "all");
        assert_eq!(v["calls"], 3);
        assert_eq!(v["original_tokens"], 1010);
        assert_eq!(v["compressed_tokens"], 260);
        assert_eq!(v["saved_tokens"], 750);
        assert_eq!(v["by_command"][0]["command"], "aws ec2 describe-vpcs");
        assert_eq!(v["by_command"][0]["saved_pct"].to_string(), "75.0");
        assert_eq!(v["harness_tokens"], 1010);
    }

    #[test]
    fn savings_against_the_harness() {
        // 1M tokens the harness would have cut to 8,000: a 7,000-token view
        // saved 1,000 of what the agent would have read, not 993,000.
        let mut big = stat("aws", "ec2 describe-instance-types", 1, 1_000_000, 7_000);
        big.harness_tokens = 8_000;
        let v = render_json(std::slice::from_ref(&big), "all");
        assert_eq!(v["saved_tokens"], 993_000);
        assert_eq!(v["saved_vs_harness_tokens"], 1_000);
        assert_eq!(v["saved_vs_harness_pct"].to_string(), "12.5");
        let t = render_table(&[big], "all");
        assert!(t.contains("harness would have shown (8,000 tokens"), "{t}");
        assert!(t.contains("saved 1,000 (12.5%)"), "{t}");
        let mut worse = stat("x", "", 1, 100_000, 9_000);
        worse.harness_tokens = 8_000;
        assert!(render_table(&[worse], "all").contains("saved -1,000 (-12.5%)"));
    }

    #[test]
    fn table_has_rows_bars_and_total() {
        let stats = vec![stat("aws", "ec2 describe-vpcs", 2, 1_200_000, 300_000)];
        let t = render_table(&stats, "7d");
        assert!(
            t.starts_with("tokensieve gain (last 7d): 2 calls, saved 900,000 of 1,200,000 tokens (75.0%)")
        );
        assert!(t.contains("aws ec2 describe-vpcs"));
        assert!(t.contains(&format!("75.0%  {}{}", "█".repeat(8), "░".repeat(2))), "{t}");
        assert!(t.lines().last().unwrap().starts_with("total "));
        assert_eq!(render_table(&[], "24h"), "tokensieve gain (last 24h): no calls recorded");
    }

    /// Issue 24: the table fits 100 columns with long command names.
    #[test]
    fn gain_table_fits_100_columns() {
        // The longest command names of the fixtures, at a busy month's counts.
        let stats = vec![
            stat("aws", "ec2 describe-instance-types", 1_234, 12_345_678, 1_234_567),
            stat("gcloud", "compute instances list", 321, 2_345_678, 234_567),
            stat("kubectl", "get pods", 1, 10, 10),
        ];
        let t = render_table(&stats, "all");
        for l in t.lines() {
            assert!(l.chars().count() <= 100, "{} columns: {l}", l.chars().count());
        }
        assert!(t.contains("aws ec2 describe-instance-types "), "{t}");
        // Huge counts clip the names instead of widening the table.
        let huge = vec![stat("aws", "ec2 describe-instance-types", 99_999, 9_876_543_210, 98_765_432)];
        assert!(render_table(&huge, "all").lines().all(|l| l.chars().count() <= 100));
    }
}
