//! The budget: how many characters of stdout the agent's harness shows whole
//! (SPEC §6b). Harnesses cut longer tool output blindly (Claude Code keeps
//! 30,000 chars and removes the middle); above the budget we print a view
//! (`crate::view`) instead, which says what it left out and how to get it.
//!
//! The focus size (`FOCUS_DEFAULT`; `TOKENSIEVE_FOCUS=N|off`,
//! `Settings.focus`) is SPEC §6c's smaller limit. Record-like text whose
//! whole rendering passes `record_focus` of it gets a focus view from its
//! filter (`past_focus`): `git log` one line per commit plus bodies
//! while they fit and the `show --lines` range of the rest, `git blame` a
//! line of ours per run of lines from one commit, long runs of a diff cut
//! around their `show --lines` range (`text/filters/git.rs`). Lines of ours
//! start with `# ` or `… `, shapes the tool's own lines never have.

use anyhow::{Result, bail};

use crate::auditor::{self, Encoding};

/// 25,000 chars: Claude Code's default cap (30,000) less room for the
/// receipt and the tool's own stderr, which the harness counts too.
pub const DEFAULT: usize = 25_000;

/// Claude Code's default for `BASH_MAX_OUTPUT_LENGTH`; the budget keeps the
/// same share of any other setting (`DEFAULT / HARNESS_DEFAULT`).
const HARNESS_DEFAULT: usize = 30_000;

/// Smallest budget that still holds a useful view (its header, an outline
/// line or two, a few rows).
pub const MIN: usize = 2_000;

/// Record-like text (`git log`, `git blame`) gets its focus view past
/// twice the focus size and keeps message bodies up to it: its records are
/// prose the agent reads whole, not columns to rank, and a log of ten
/// commits with their bodies (the session bench's `git log --stat -n 10`,
/// 1,229 tokens) should keep the bodies that fit in 1,000 tokens.
pub const RECORD_FOCUS_FACTOR: usize = 2;

/// The focus size for record-like text, from the shared one (`None`: off).
pub fn record_focus(focus: Option<usize>) -> Option<usize> {
    focus.map(|f| f.saturating_mul(RECORD_FOCUS_FACTOR))
}

/// Whether `rendering` is past the focus size `focus` (`None`: off).
pub fn past_focus(focus: Option<usize>, rendering: &str) -> bool {
    focus.is_some_and(|f| {
        // a token is at least one byte: no more bytes than `f`, no more tokens
        if rendering.len() <= f {
            return false;
        }
        let mut end = rendering.len().min(f.saturating_mul(PREFIX_BYTES));
        while !rendering.is_char_boundary(end) {
            end -= 1;
        }
        let prefix = auditor::count(Encoding::Cl100k, &rendering[..end]);
        if end == rendering.len() {
            return prefix > f;
        }
        // a prefix's count is not above the whole's but for the few tokens
        // its cut splits a word into, so a prefix well past `f` decides
        // without counting all of a large rendering; one that is not (long
        // runs of one char) leaves it to the whole count
        prefix > f + CUT_SLACK || auditor::count(Encoding::Cl100k, rendering) > f
    })
}

/// Bytes per token of the prefix `past_focus` counts first: above what
/// text of any kind averages (about 4), so the prefix usually decides.
const PREFIX_BYTES: usize = 12;
/// Tokens a cut may add to a prefix's count (a word split in pieces).
const CUT_SLACK: usize = 8;

/// A budget setting's value (`crate::config`: `TOKENSIEVE_BUDGET`, or
/// `budget` in a settings file): a number of characters (at least `MIN`) or
/// `off` (`None`).
pub fn parse(v: &str) -> Result<Option<usize>> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let Ok(n) = v.parse::<usize>() else { bail!("must be a number of characters or 'off', got '{v}'") };
    Ok(Some(n.max(MIN)))
}

/// Tokens of JSON rendering above which a focus view is tried (SPEC §6c,
/// `crate::focus`). Chosen with scripts/bench-focus.py over fixtures/json:
/// below ~500 tokens the view's header line and its command take most of
/// what it saves.
pub const FOCUS_DEFAULT: usize = 500;

/// A focus setting's value (`TOKENSIEVE_FOCUS`, `focus` in a settings
/// file): a number of tokens, or `off` (`None`).
pub fn parse_focus(v: &str) -> Result<Option<usize>> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    match v.parse::<usize>() {
        Ok(n) => Ok(Some(n)),
        Err(_) => bail!("must be a number of tokens or 'off', got '{v}'"),
    }
}

/// The budget when nothing sets it: `BASH_MAX_OUTPUT_LENGTH` (the
/// harness's own cap) scaled to leave the same room as the default, else
/// `DEFAULT`.
pub fn harness_default(harness: Option<&str>) -> Option<usize> {
    // The harness's variable is not ours to reject: a value we cannot read
    // leaves the default.
    if let Some(n) = harness.and_then(|v| v.trim().parse::<usize>().ok()).filter(|n| *n > 0) {
        return Some((n.saturating_mul(DEFAULT) / HARNESS_DEFAULT).max(MIN));
    }
    Some(DEFAULT)
}

#[cfg(test)]
fn from_vars(ours: Option<&str>, harness: Option<&str>) -> Result<Option<usize>> {
    match ours.filter(|v| !v.trim().is_empty()) {
        Some(v) => parse(v),
        None => Ok(harness_default(harness)),
    }
}

/// Characters as the budget counts them (Unicode scalar values).
pub fn chars(text: &str) -> usize {
    // Bytes bound chars from above: most texts are decided without a count.
    if text.len() <= 1 || text.is_ascii() { text.len() } else { text.chars().count() }
}

/// Whether `text` fits `budget` (always, without one).
pub fn fits(text: &str, budget: Option<usize>) -> bool {
    budget.is_none_or(|b| text.len() <= b || chars(text) <= b)
}

/// Tokens the agent would have been shown without us: the raw output, or,
/// when it is longer than the budget, what a harness keeping `budget` chars
/// (half from the start, half from the end, as Claude Code cuts) leaves.
pub fn harness_tokens(enc: Encoding, raw: &[u8], original: usize, budget: Option<usize>) -> usize {
    let Some(b) = budget else { return original };
    // Only the ends are read: a char is at most 4 bytes, so the first and
    // last 4 × (their chars + 1) bytes hold them whole, and lossy decoding
    // is local (a cut char becomes U+FFFD only beyond the chars taken).
    // A short output is decoded whole.
    let (head_n, tail_n) = (b / 2, b - b / 2);
    let reach = 4 * (tail_n + 1);
    if raw.len() <= 2 * reach {
        let text = String::from_utf8_lossy(raw);
        if fits(&text, Some(b)) {
            return original;
        }
        let head_end = text.char_indices().nth(head_n).map_or(text.len(), |(i, _)| i);
        let tail_start = text.char_indices().rev().nth(tail_n - 1).map_or(0, |(i, _)| i);
        return auditor::count(enc, &text[..head_end])
            + auditor::count(enc, &text[tail_start.max(head_end)..]);
    }
    // Over 8 × the budget in bytes: more than the budget in chars.
    let head = String::from_utf8_lossy(&raw[..reach]);
    let tail = String::from_utf8_lossy(&raw[raw.len() - reach..]);
    let head_end = head.char_indices().nth(head_n).map_or(head.len(), |(i, _)| i);
    let tail_start = tail.char_indices().rev().nth(tail_n - 1).map_or(0, |(i, _)| i);
    auditor::count(enc, &head[..head_end]) + auditor::count(enc, &tail[tail_start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_focus_is_the_token_count() {
        let count = |t: &str| auditor::count(Encoding::Cl100k, t);
        // paths and numbers: about 3 chars a token, so 2,400 chars are
        // ~800 tokens, under a focus of 1,000 (chars/2 would say past)
        let line = "sets/conditionset.py:213: lamda ==> lambda\n";
        let under = line.repeat(2400 / line.len());
        assert!(under.len() / 2 > 1000 && count(&under) <= 1000, "{}", count(&under));
        assert!(!past_focus(Some(1000), &under));
        // past it, decided from a prefix or the whole, as counted
        for reps in [60, 100, 400, 4000] {
            let text = line.repeat(reps);
            assert_eq!(past_focus(Some(1000), &text), count(&text) > 1000, "{reps}");
        }
        // a long run of one char (many bytes a token): the whole is counted
        let run = "=".repeat(40_000);
        assert_eq!(past_focus(Some(1000), &run), count(&run) > 1000);
        assert!(!past_focus(None, &run));
        assert!(!past_focus(Some(1000), "short"));
    }

    #[test]
    fn budget_from_the_environment() {
        assert_eq!(from_vars(None, None).unwrap(), Some(DEFAULT));
        assert_eq!(from_vars(Some("off"), Some("50000")).unwrap(), None);
        assert_eq!(from_vars(Some("8000"), Some("50000")).unwrap(), Some(8000));
        assert_eq!(from_vars(Some("10"), None).unwrap(), Some(MIN));
        assert!(from_vars(Some("lots"), None).is_err());
        // The harness's cap, less the same share as the default leaves.
        assert_eq!(from_vars(None, Some("30000")).unwrap(), Some(25_000));
        assert_eq!(from_vars(None, Some("150000")).unwrap(), Some(125_000));
        assert_eq!(from_vars(None, Some("12000")).unwrap(), Some(10_000));
        assert_eq!(from_vars(None, Some("junk")).unwrap(), Some(DEFAULT));
        assert_eq!(from_vars(Some(""), Some("12000")).unwrap(), Some(10_000));
    }

    #[test]
    fn chars_not_bytes() {
        assert_eq!(chars("héllo"), 5);
        assert!(fits("ééé", Some(3)));
        assert!(!fits("éééé", Some(3)));
        assert!(fits("anything", None));
    }

    #[test]
    fn harness_keeps_head_and_tail_of_a_long_output() {
        let enc = Encoding::Cl100k;
        let short = b"a short output";
        let n = auditor::count_bytes(enc, short);
        assert_eq!(harness_tokens(enc, short, n, Some(MIN)), n);
        let long: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let n = auditor::count(enc, &long);
        let cut = harness_tokens(enc, long.as_bytes(), n, Some(2000));
        assert!(cut < n / 5 && cut > 300, "{cut} of {n}");
        assert_eq!(harness_tokens(enc, long.as_bytes(), n, None), n);
    }

    #[test]
    fn the_ends_alone_count_like_the_whole_text() {
        let enc = Encoding::Cl100k;
        // Chars of 1 to 4 bytes, and a broken sequence near each end.
        let mut raw: Vec<u8> = Vec::new();
        for i in 0..3000 {
            raw.extend(format!("{i} é 日本 🦀 x\n").as_bytes());
        }
        raw[5] = 0xE2;
        let at = raw.len() - 7;
        raw[at] = 0xF0;
        for b in [100, 101, 2000, 2001] {
            let text = String::from_utf8_lossy(&raw);
            let head_end = text.char_indices().nth(b / 2).unwrap().0;
            let tail_start = text.char_indices().rev().nth(b - b / 2 - 1).unwrap().0;
            let whole = auditor::count(enc, &text[..head_end]) + auditor::count(enc, &text[tail_start..]);
            assert_eq!(harness_tokens(enc, &raw, 0, Some(b)), whole, "budget {b}");
        }
    }
}
