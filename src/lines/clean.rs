//! What every text path does first, and small helpers the filters share:
//! ANSI stripped, man-page overstrike (`N\bN`, `_\bN`) reduced to the
//! character a terminal shows, `\r` redraws resolved to what a terminal
//! would finally show, blank lines emptied; library-path and location
//! recognisers.

/// ANSI-free text, one line per terminal line, lines of only blanks empty.
/// A line with content keeps its trailing blanks: a kept line is the
/// tool's line byte for byte (pytest's `test_x.py:24: `).
pub fn clean(text: &str) -> String {
    let text = crate::json::scrubber::scrub(text);
    let text = overstrike(&text);
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| {
            let l = resolve_cr(l);
            if l.trim().is_empty() { "" } else { l }
        })
        .collect();
    lines.join("\n")
}

/// Backspace overstrike as `man`/`nroff` print it: `N\bN` is a bold N,
/// `_\bN` an underlined one; what stays is the character printed last.
fn overstrike(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{8}') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\u{8}' {
            // a backspace at a line start has nothing to strike over
            if !out.ends_with('\n') {
                out.pop();
            }
        } else {
            out.push(c);
        }
    }
    out.into()
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
        // clang names the toolchain's headers through its own folder
        "/lib/gcc/",
        "/include/c++/",
        "/.pyenv/",
        "/_pytest/",
        "/pluggy/",
    ];
    MARKERS.iter().any(|m| path.contains(m)) || path.starts_with("<") || path == "???"
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
    fn overstrike_keeps_the_printed_character() {
        assert_eq!(
            clean("N\u{8}NA\u{8}AM\u{8}ME\u{8}E\n     _\u{8}f_\u{8}i_\u{8}l_\u{8}e"),
            "NAME\n     file"
        );
        assert_eq!(clean("\u{8}x\na\u{8}\u{8}b"), "x\nb");
    }

    #[test]
    fn ansi_removed_and_lines_kept_as_printed() {
        assert_eq!(clean("\x1b[31merror\x1b[0m\nok"), "error\nok");
        // pytest's frame location ends with a blank; a blank line is empty
        assert_eq!(clean("test_feed.py:24: \n    \t\nok"), "test_feed.py:24: \n\nok");
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
    fn tidy_squeezes_blanks() {
        let lines: Vec<String> = ["", "a", "", "", "b", ""].iter().map(|s| s.to_string()).collect();
        assert_eq!(tidy(&lines), "a\n\nb\n");
    }
}
