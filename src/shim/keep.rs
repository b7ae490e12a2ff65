//! What the shim holds of an output too large to hold whole: the first lines
//! (head), a rolling window of the last ones (tail) and, from everything in
//! between, the signal lines (`text::is_signal_line`). Every byte goes to the
//! raw store meanwhile (`store::Spool`), so what is left out here stays one
//! `tokensieve show` away. Pure: bytes in, an `Excerpt` out; memory stays
//! within the limits whatever the output's size or shape (very long lines
//! are cut, signal lines past their budget are counted, not kept).

use std::collections::VecDeque;
use std::sync::Arc;

use crate::settings::{Excerpt, Gap};

/// Byte budgets of the parts kept.
#[derive(Clone, Copy, Debug)]
pub struct KeepLimits {
    pub head: usize,
    pub tail: usize,
    pub signals: usize,
    /// A longer line keeps this many bytes and says how many it lost.
    pub line: usize,
}

impl Default for KeepLimits {
    fn default() -> KeepLimits {
        KeepLimits { head: 256 << 10, tail: 1 << 20, signals: 256 << 10, line: 64 << 10 }
    }
}

/// The kept lines as one text, and where they sit in the whole output.
#[derive(Debug)]
pub struct Kept {
    pub text: String,
    pub excerpt: Excerpt,
}

#[derive(Debug)]
pub struct Keeper {
    limits: KeepLimits,
    head: Vec<String>,
    head_bytes: usize,
    head_done: bool,
    tail: VecDeque<String>,
    tail_bytes: usize,
    /// 0-based index of the tail's first line.
    tail_first: usize,
    signals: Vec<(usize, String)>,
    signal_bytes: usize,
    signals_dropped: usize,
    /// The line being read: its first `limits.line` bytes, and how many more.
    partial: Vec<u8>,
    partial_cut: usize,
    /// Complete lines so far.
    lines: usize,
    bytes: u64,
    chars: u64,
}

impl Keeper {
    pub fn new(limits: KeepLimits) -> Keeper {
        Keeper {
            limits,
            head: Vec::new(),
            head_bytes: 0,
            head_done: false,
            tail: VecDeque::new(),
            tail_bytes: 0,
            tail_first: 0,
            signals: Vec::new(),
            signal_bytes: 0,
            signals_dropped: 0,
            partial: Vec::new(),
            partial_cut: 0,
            lines: 0,
            bytes: 0,
            chars: 0,
        }
    }

    /// The next bytes of the output (any cut: lines and characters may span
    /// calls).
    pub fn push(&mut self, mut bytes: &[u8]) {
        self.bytes += bytes.len() as u64;
        // UTF-8 continuation bytes are not characters of their own.
        self.chars += bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64;
        while let Some(i) = bytes.iter().position(|&b| b == b'\n') {
            self.extend_partial(&bytes[..i]);
            let line = self.take_partial();
            self.add_line(line);
            bytes = &bytes[i + 1..];
        }
        self.extend_partial(bytes);
    }

    fn extend_partial(&mut self, bytes: &[u8]) {
        let room = self.limits.line.saturating_sub(self.partial.len()).min(bytes.len());
        self.partial.extend_from_slice(&bytes[..room]);
        self.partial_cut += bytes.len() - room;
    }

    fn take_partial(&mut self) -> String {
        let mut bytes = std::mem::take(&mut self.partial);
        let mut cut = std::mem::take(&mut self.partial_cut);
        if cut > 0
            && let Err(e) = std::str::from_utf8(&bytes)
            && e.error_len().is_none()
        {
            // The cut split a character: it goes whole.
            cut += bytes.len() - e.valid_up_to();
            bytes.truncate(e.valid_up_to());
        }
        let mut line =
            String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into());
        if cut > 0 {
            line.push_str(&format!(" … (line cut here: {cut} more bytes)"));
        }
        line
    }

    fn add_line(&mut self, line: String) {
        let index = self.lines;
        self.lines += 1;
        if !self.head_done && self.head_bytes + line.len() < self.limits.head {
            self.head_bytes += line.len() + 1;
            self.head.push(line);
            return;
        }
        self.head_done = true;
        if self.tail.is_empty() {
            self.tail_first = index;
        }
        self.tail_bytes += line.len() + 1;
        self.tail.push_back(line);
        while self.tail_bytes > self.limits.tail && self.tail.len() > 1 {
            let out = self.tail.pop_front().expect("the tail has lines");
            self.tail_bytes -= out.len() + 1;
            let at = self.tail_first;
            self.tail_first += 1;
            self.left_out(at, out);
        }
    }

    /// A line that falls between head and tail: kept only if it is a signal.
    fn left_out(&mut self, index: usize, line: String) {
        if !is_signal(&line) {
            return;
        }
        if self.signal_bytes + line.len() <= self.limits.signals {
            self.signal_bytes += line.len() + 1;
            self.signals.push((index, line));
        } else {
            self.signals_dropped += 1;
        }
    }

    /// The excerpt: head, the left-out stretch's signal lines, tail, in the
    /// output's order. A last line without a newline stays without one.
    pub fn finish(mut self) -> Kept {
        let ends_open = !self.partial.is_empty() || self.partial_cut > 0;
        if ends_open {
            let line = self.take_partial();
            self.add_line(line);
        }
        let total_lines = self.lines;
        let gap_first = self.head.len();
        let gap = (self.tail_first > gap_first).then(|| Gap {
            first: gap_first + 1,
            last: self.tail_first,
            signals_kept: self.signals.len(),
            signals_dropped: self.signals_dropped,
        });
        let mut numbers = Vec::with_capacity(self.head.len() + self.signals.len() + self.tail.len());
        numbers.extend(1..=self.head.len());
        numbers.extend(self.signals.iter().map(|(i, _)| i + 1));
        numbers.extend((self.tail_first + 1..).take(self.tail.len()));
        let parts = self.head.iter().chain(self.signals.iter().map(|(_, l)| l)).chain(self.tail.iter());
        let mut text = String::with_capacity(self.head_bytes + self.signal_bytes + self.tail_bytes);
        for (i, line) in parts.enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(line);
        }
        if !ends_open && total_lines > 0 {
            text.push('\n');
        }
        let excerpt =
            Excerpt { line_numbers: Arc::from(numbers), lines: total_lines, chars: self.chars, gap };
        Kept { text, excerpt }
    }
}

/// Signal lines are judged as an agent would read them: colour codes,
/// redraws and overstrike removed first (only when there are any).
fn is_signal(line: &str) -> bool {
    if line.bytes().any(|b| matches!(b, 0x1b | b'\r' | 0x08)) {
        crate::text::is_signal_line(&crate::lines::cleaned(line))
    } else {
        crate::text::is_signal_line(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> KeepLimits {
        KeepLimits { head: 40, tail: 40, signals: 60, line: 30 }
    }

    fn keep(limits: KeepLimits, input: &str, piece: usize) -> Kept {
        let mut k = Keeper::new(limits);
        for chunk in input.as_bytes().chunks(piece) {
            k.push(chunk);
        }
        k.finish()
    }

    #[test]
    fn small_outputs_are_kept_whole() {
        let input = "one\ntwo\nthree\n";
        let kept = keep(KeepLimits::default(), input, 3);
        assert_eq!(kept.text, input);
        assert_eq!(kept.excerpt.gap, None);
        assert_eq!(&kept.excerpt.line_numbers[..], &[1, 2, 3]);
        assert_eq!((kept.excerpt.lines, kept.excerpt.chars), (3, input.len() as u64));
        let open = keep(KeepLimits::default(), "a\nb", 1);
        assert_eq!(open.text, "a\nb");
    }

    #[test]
    fn the_middle_keeps_only_signal_lines_with_their_numbers() {
        let mut input = String::new();
        for i in 1..=200 {
            if i == 77 {
                input.push_str("ERROR: disk full on /var\n");
            } else if i == 150 {
                input.push_str("\x1b[31merror\x1b[0m: retry failed\n");
            } else {
                input.push_str(&format!("line {i} ok\n"));
            }
        }
        for piece in [1, 7, 4096] {
            let kept = keep(small(), &input, piece);
            let lines: Vec<&str> = kept.text.lines().collect();
            assert_eq!(&lines[..3], &["line 1 ok", "line 2 ok", "line 3 ok"]);
            assert!(lines.contains(&"ERROR: disk full on /var"), "{lines:?}");
            assert!(lines.contains(&"\x1b[31merror\x1b[0m: retry failed"), "{lines:?}");
            assert_eq!(lines.last(), Some(&"line 200 ok"));
            let at = lines.iter().position(|l| l.starts_with("ERROR")).unwrap();
            assert_eq!(kept.excerpt.line_numbers[at], 77);
            assert_eq!(kept.excerpt.line_numbers[lines.len() - 1], 200);
            assert_eq!(kept.excerpt.lines, 200);
            let gap = kept.excerpt.gap.expect("a gap");
            assert_eq!((gap.signals_kept, gap.signals_dropped), (2, 0));
            let numbers = &kept.excerpt.line_numbers;
            assert_eq!(numbers[gap.first - 1], 77, "the gap's first signal follows the head");
            assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
            let tail_at = numbers.iter().position(|&n| n > 150).unwrap();
            assert_eq!(numbers[tail_at], gap.last + 1);
        }
    }

    #[test]
    fn memory_stays_within_the_limits() {
        let limits = small();
        let mut k = Keeper::new(limits);
        for i in 0..100_000 {
            k.push(format!("error {i}: something failed\n").as_bytes());
        }
        k.push(&[b'x'; 10_000]);
        let kept = k.finish();
        let budget = limits.head + limits.tail + limits.signals + 3 * (limits.line + 64);
        assert!(kept.text.len() <= budget, "{} bytes kept", kept.text.len());
        let gap = kept.excerpt.gap.unwrap();
        assert_eq!(gap.signals_kept + gap.signals_dropped, gap.last - gap.first + 1);
        assert!(kept.text.ends_with("x … (line cut here: 9970 more bytes)"), "{}", kept.text);
    }

    #[test]
    fn long_lines_are_cut_on_a_character_boundary() {
        let line = "é".repeat(40); // 80 bytes, limit 30
        let kept = keep(small(), &format!("{line}\n"), 5);
        assert_eq!(kept.text, format!("{} … (line cut here: 50 more bytes)\n", "é".repeat(15)));
        let kept = keep(small(), &format!("x{line}\n"), 5);
        assert_eq!(kept.text, format!("x{} … (line cut here: 52 more bytes)\n", "é".repeat(14)));
    }
}
