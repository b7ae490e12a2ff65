//! Claude Code's Read tool numbers every line (`    12→text`, the number
//! right-aligned in six columns). The numbers are consecutive, so they
//! carry nothing but the first one; left in, they cost about three tokens
//! a line. A numbered listing is told by its shape, not by the tool name.

/// A numbered listing: the first and last line numbers, the text without
/// its numbers, and what followed the numbered lines (a reminder the
/// harness appended), as it was.
#[derive(Debug, PartialEq, Eq)]
pub struct Numbered<'a> {
    pub first: usize,
    pub last: usize,
    pub body: String,
    pub tail: &'a str,
}

/// Fewer numbered lines than this are not worth a header.
const MIN_LINES: usize = 3;

/// The listing in `text`, when it starts with at least `MIN_LINES`
/// consecutively numbered lines.
pub fn split(text: &str) -> Option<Numbered<'_>> {
    let mut body = String::with_capacity(text.len());
    let mut first = None;
    let mut last = 0;
    let mut consumed = 0;
    for line in text.split_inclusive('\n') {
        let Some((n, rest)) = numbered_line(line) else { break };
        match first {
            None => first = Some(n),
            Some(_) if n != last + 1 => break,
            Some(_) => {}
        }
        last = n;
        body.push_str(rest);
        consumed += line.len();
    }
    let first = first?;
    if last + 1 - first < MIN_LINES {
        return None;
    }
    Some(Numbered { first, last, body, tail: &text[consumed..] })
}

/// `   12→text` → (12, "text").
fn numbered_line(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_start_matches(' ');
    let digits = trimmed.len() - trimmed.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 9 {
        return None;
    }
    let rest = trimmed[digits..].strip_prefix('→')?;
    Some((trimmed[..digits].parse().ok()?, rest))
}

impl Numbered<'_> {
    /// The listing as the compacted result shows it: a header that says
    /// which lines these are, the text, then the tail as it was.
    pub fn render(&self, body: &str) -> String {
        let mut out = format!("(lines {}-{}, numbers left out)\n{body}", self.first, self.last);
        if !self.tail.is_empty() {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(self.tail);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_come_off_and_the_tail_stays() {
        let text = "     7→a\n     8→  b\n     9→\n    10→c\n\n<system-reminder>\nx\n</system-reminder>\n";
        let n = split(text).unwrap();
        assert_eq!((n.first, n.last), (7, 10));
        assert_eq!(n.body, "a\n  b\n\nc\n");
        assert_eq!(n.tail, "\n<system-reminder>\nx\n</system-reminder>\n");
        assert_eq!(n.render(&n.body), format!("(lines 7-10, numbers left out)\na\n  b\n\nc\n{}", n.tail));
    }

    #[test]
    fn short_or_broken_sequences_are_not_listings() {
        assert!(split("     1→a\n     2→b").is_none());
        assert!(split("     1→a\n     3→b\n     4→c").is_none());
        assert!(split("plain text\n").is_none());
    }
}
