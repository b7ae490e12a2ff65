//! Claude Code's Read tool numbers every line (`    12→text`, the number
//! right-aligned in six columns). The numbers are consecutive, so they
//! carry nothing but the first one; left in, they cost about three tokens
//! a line. A numbered listing is told by its shape, not by the tool name.

/// A numbered listing: the first and last line numbers, the text without
/// its numbers, and what followed the numbered lines (a reminder the
/// harness appended), as it was.
#[derive(Debug, PartialEq, Eq)]
pub struct Numbered<'a> {
    /// A line or two before the listing (Edit and Write say which file
    /// they changed), as it was.
    pub preamble: &'a str,
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
    let start = text.split_inclusive('\n').take(3).position(|l| numbered_line(l).is_some())?;
    let at: usize = text.split_inclusive('\n').take(start).map(str::len).sum();
    if at > 600 {
        return None;
    }
    let (preamble, text) = text.split_at(at);
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
    Some(Numbered { preamble, first, last, body, tail: &text[consumed..] })
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
        let mut out =
            format!("{}(lines {}-{}, numbers left out)\n{body}", self.preamble, self.first, self.last);
        if !self.tail.is_empty() {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(self.tail);
        }
        out
    }
}

/// Lines `new_start..new_start + new_len` of the new text replace lines
/// `old_start..old_start + old_len` of the old one (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
}

/// Past this many changed lines a re-read is shown whole.
const MAX_EDITS: isize = 400;

/// The changes from `old` to `new`, line by line (Myers' shortest edit
/// script); `None` when they are too many to be worth listing.
pub fn changes(old: &str, new: &str) -> Option<Vec<Hunk>> {
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let (n, m) = (a.len() as isize, b.len() as isize);
    let off = n + m + 1;
    let mut v = vec![0isize; (2 * off + 1) as usize];
    // The furthest x on each diagonal after each step, for the way back.
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let mut end = None;
    'steps: for d in 0..=MAX_EDITS.min(n + m) {
        for k in (-d..=d).step_by(2) {
            let i = (off + k) as usize;
            let mut x = if k == -d || (k != d && v[i - 1] < v[i + 1]) { v[i + 1] } else { v[i - 1] + 1 };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[i] = x;
            if x >= n && y >= m {
                trace.push(v[(off - d) as usize..=(off + d) as usize].to_vec());
                end = Some(d);
                break 'steps;
            }
        }
        trace.push(v[(off - d) as usize..=(off + d) as usize].to_vec());
    }
    let end = end?;
    // Back from the end: the lines both texts share, as (old, new) pairs.
    let (mut x, mut y) = (n, m);
    let mut same: Vec<(usize, usize)> = Vec::new();
    for d in (1..=end).rev() {
        let prev = &trace[(d - 1) as usize];
        let at = |k: isize| prev[(k + d - 1) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && at(k - 1) < at(k + 1)) { k + 1 } else { k - 1 };
        let (px, py) = (at(prev_k), at(prev_k) - prev_k);
        while x > px && y > py {
            x -= 1;
            y -= 1;
            same.push((x as usize, y as usize));
        }
        (x, y) = (px, py);
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        same.push((x as usize, y as usize));
    }
    same.reverse();
    let mut hunks = Vec::new();
    let (mut i, mut j) = (0, 0);
    for (si, sj) in same.into_iter().chain(std::iter::once((a.len(), b.len()))) {
        if si > i || sj > j {
            hunks.push(Hunk { old_start: i, old_len: si - i, new_start: j, new_len: sj - j });
        }
        (i, j) = (si + 1, sj + 1);
    }
    Some(hunks)
}

impl Numbered<'_> {
    /// A re-read of a file shown as its changes since the earlier read
    /// `earlier` (a call id): each changed stretch as a hunk header with
    /// the file's line numbers and the new lines (removed lines are not
    /// repeated: the earlier read shows them).
    pub fn render_changes(&self, earlier: &str, hunks: &[Hunk]) -> String {
        let lines: Vec<&str> = self.body.split_inclusive('\n').collect();
        let mut out = format!(
            "{}(lines {}-{}, numbers left out: as read by {earlier} above, but for {} changed stretches)\n",
            self.preamble,
            self.first,
            self.last,
            hunks.len()
        );
        for h in hunks {
            out.push_str(&format!(
                "@@ -{},{} +{},{} @@\n",
                self.first + h.old_start,
                h.old_len,
                self.first + h.new_start,
                h.new_len
            ));
            for line in &lines[h.new_start..h.new_start + h.new_len] {
                out.push_str(line);
                if !line.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        if !self.tail.is_empty() {
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
    fn a_reread_lists_only_what_changed() {
        let old = "a\nb\nc\nd\ne\n";
        let new = "a\nB\nc\nd\ne\nf\n";
        let hunks = changes(old, new).unwrap();
        assert_eq!(
            hunks,
            vec![
                Hunk { old_start: 1, old_len: 1, new_start: 1, new_len: 1 },
                Hunk { old_start: 5, old_len: 0, new_start: 5, new_len: 1 }
            ]
        );
        let listing = Numbered { preamble: "", first: 1, last: 6, body: new.into(), tail: "" };
        assert_eq!(
            listing.render_changes("toolu_1", &hunks),
            "(lines 1-6, numbers left out: as read by toolu_1 above, but for 2 changed stretches)\n\
             @@ -2,1 +2,1 @@\nB\n@@ -6,0 +6,1 @@\nf\n"
        );
        assert_eq!(changes("x\ny\n", "x\ny\n").unwrap(), vec![]);
        assert_eq!(
            changes("", "q\n").unwrap(),
            vec![Hunk { old_start: 0, old_len: 0, new_start: 0, new_len: 1 }]
        );
        assert_eq!(
            changes("q\n", "").unwrap(),
            vec![Hunk { old_start: 0, old_len: 1, new_start: 0, new_len: 0 }]
        );
    }

    #[test]
    fn short_or_broken_sequences_are_not_listings() {
        assert!(split("     1→a\n     2→b").is_none());
        assert!(split("     1→a\n     3→b\n     4→c").is_none());
        assert!(split("plain text\n").is_none());
        let edit = split("The file f has been updated:\n     1→a\n     2→b\n     3→c").unwrap();
        assert_eq!((edit.preamble, edit.body.as_str()), ("The file f has been updated:\n", "a\nb\nc"));
    }
}
