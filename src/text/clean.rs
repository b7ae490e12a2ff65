//! What every text path does first, and small helpers the filters share:
//! ANSI stripped, `\r` redraws resolved to what a terminal would finally show,
//! backspace overstrike (man pages' `N\bN` bold, `_\bN` underline) resolved
//! the same way, trailing blanks dropped; library-path and location
//! recognisers.

use std::borrow::Cow;

use once_cell::sync::Lazy;
use regex::Regex;

/// ANSI-free text, one line per terminal line, trailing spaces removed.
pub fn clean(text: &str) -> String {
    let text = crate::json::scrubber::scrub(text);
    let lines: Vec<Cow<str>> = text.split('\n').map(|l| overstrike(resolve_cr(l).trim_end())).collect();
    lines.join("\n")
}

/// What a terminal shows for a line with backspaces: each one moves the
/// cursor back and the next character overwrites. `N\bN` (bold) and `_\bN`
/// (underline), as `man` and `nroff` print them, leave `N`.
fn overstrike(line: &str) -> Cow<'_, str> {
    if !line.contains('\x08') {
        return Cow::Borrowed(line);
    }
    let mut shown: Vec<char> = Vec::with_capacity(line.len());
    let mut cursor = 0usize;
    for c in line.chars() {
        if c == '\x08' {
            cursor = cursor.saturating_sub(1);
        } else if cursor < shown.len() {
            shown[cursor] = c;
            cursor += 1;
        } else {
            shown.push(c);
            cursor += 1;
        }
    }
    Cow::Owned(shown.into_iter().collect::<String>().trim_end().to_owned())
}

/// A line redrawn with `\r` (progress bars) shows its last non-empty segment;
/// a CRLF ending is just an ending.
fn resolve_cr(line: &str) -> &str {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if !line.contains('\r') {
        return line;
    }
    line.rsplit('\r').find(|seg| !seg.trim().is_empty()).unwrap_or("")
}

/// Paths into toolchains, registries and vendored dependencies: frames and
/// notes there are the language's machinery, not the user's code.
pub fn is_library_path(path: &str) -> bool {
    const MARKERS: &[&str] = &[
        "/rustc/",
        "/.cargo/registry/",
        "/.cargo/git/",
        "/.rustup/",
        "/library/std/",
        "/library/core/",
        "/library/alloc/",
        "site-packages/",
        "dist-packages/",
        "/lib/python",
        "<frozen ",
        "node_modules/",
        "node:internal",
        "internal/modules/",
        "internal/process/",
        "/usr/lib/go",
        "/usr/local/go/",
        "/go/pkg/mod/",
        "/usr/include/",
        "/usr/lib/gcc/",
        "/.pyenv/",
        "/_pytest/",
        "/pluggy/",
    ];
    MARKERS.iter().any(|m| path.contains(m)) || path.starts_with("<") || path == "???"
}

static LIST_TAIL: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"\(([^()]*?): ([^()]{200,})\)").expect("valid list regex"));

/// Shortens a very long comma list inside parentheses (pip's "from versions:
/// 0.1, 0.2, ...") to its first and last items with a count.
pub fn shorten_long_lists(line: &str) -> String {
    LIST_TAIL
        .replace_all(line, |c: &regex::Captures| {
            let items: Vec<&str> = c[2].split(", ").collect();
            if items.len() <= 10 {
                return c[0].to_string();
            }
            let head = items[..3].join(", ");
            let tail = items[items.len() - 4..].join(", ");
            format!("({}: {}, … {} more …, {})", &c[1], head, items.len() - 7, tail)
        })
        .into_owned()
}

/// Drops runs of blank lines beyond one and blank lines at both ends.
pub fn tidy(lines: &[String]) -> String {
    let mut out = String::new();
    let mut blank = true;
    for l in lines {
        if l.trim().is_empty() {
            if !blank {
                out.push('\n');
            }
            blank = true;
        } else {
            out.push_str(l);
            out.push('\n');
            blank = false;
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carriage_returns_keep_the_final_redraw() {
        let raw = "Counting:  1% (1/9)\rCounting: 100% (9/9), done.\nnext\r\n";
        assert_eq!(clean(raw), "Counting: 100% (9/9), done.\nnext\n");
    }

    #[test]
    fn overstrike_shows_what_a_terminal_shows() {
        // man's bold heading and underlined word, as `man ls | cat` prints them
        let raw = "N\x08NA\x08AM\x08ME\x08E\n       _\x08l_\x08s - list\nab\x08\x08\n";
        assert_eq!(clean(raw), "NAME\n       ls - list\nab\n");
        assert_eq!(clean("\x08x"), "x");
    }

    #[test]
    fn ansi_and_trailing_space_removed() {
        assert_eq!(clean("\x1b[31merror\x1b[0m   \nok"), "error\nok");
    }

    #[test]
    fn library_paths() {
        assert!(is_library_path("/rustc/abc/library/core/src/ops/arith.rs"));
        assert!(is_library_path("/usr/lib/go-1.19/src/testing/testing.go"));
        assert!(is_library_path("../venv/lib/python3.11/site-packages/_pytest/python.py"));
        assert!(!is_library_path("tests/regressions.rs"));
        assert!(!is_library_path("/home/dev/work/pub/gosvc/bucket.go"));
    }

    #[test]
    fn long_lists_shortened() {
        let versions: Vec<String> = (0..60).map(|i| format!("0.{i}")).collect();
        let line = format!("ERROR: no match (from versions: {})", versions.join(", "));
        let short = shorten_long_lists(&line);
        assert!(short.starts_with("ERROR: no match (from versions: 0.0, 0.1, 0.2, … 53 more …, 0.56"));
        assert!(short.len() < 100);
        assert_eq!(shorten_long_lists("(a: b, c)"), "(a: b, c)");
    }

    #[test]
    fn tidy_squeezes_blanks() {
        let lines: Vec<String> = ["", "a", "", "", "b", ""].iter().map(|s| s.to_string()).collect();
        assert_eq!(tidy(&lines), "a\n\nb\n");
    }
}
