//! Our lines in a person's text file: between a begin and an end marker
//! line, added at the end, replaced in place, taken out exactly. Markers
//! that do not pair up (a begin without an end, an end first, two begins)
//! are an error: the file is left alone rather than guessed at.

use anyhow::{Result, bail};

/// A marked block's two marker lines.
#[derive(Clone, Copy)]
pub struct Markers {
    pub begin: &'static str,
    pub end: &'static str,
}

/// Where the block is: the byte range from its begin line to the end of its
/// end line. `None` when there is none.
fn find(text: &str, m: Markers) -> Result<Option<(usize, usize)>> {
    let mut at = 0;
    let mut begin = None;
    let mut found = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == m.begin {
            if begin.is_some() || found.is_some() {
                bail!("a second '{}' line", m.begin);
            }
            begin = Some(at);
        } else if bare == m.end {
            match begin.take() {
                Some(start) => found = Some((start, at + line.len())),
                None => bail!("'{}' without '{}' before it", m.end, m.begin),
            }
        }
        at += line.len();
    }
    if begin.is_some() {
        bail!("'{}' without '{}' after it", m.begin, m.end);
    }
    Ok(found)
}

/// `text` with the block holding `body` (lines, newline-terminated): the
/// old block replaced in place, or a new one at the end after a blank line.
pub fn with_block(text: &str, m: Markers, body: &str) -> Result<String> {
    let block = format!("{}\n{body}{}\n", m.begin, m.end);
    Ok(match find(text, m)? {
        Some((start, end)) => format!("{}{block}{}", &text[..start], &text[end..]),
        None if text.is_empty() => block,
        None if text.ends_with("\n\n") => format!("{text}{block}"),
        None if text.ends_with('\n') => format!("{text}\n{block}"),
        None => format!("{text}\n\n{block}"),
    })
}

/// `text` without the block (and without the blank line `with_block` put
/// before it, when the block ended the file).
pub fn without_block(text: &str, m: Markers) -> Result<String> {
    let Some((mut start, end)) = find(text, m)? else { return Ok(text.to_owned()) };
    if end == text.len() && text[..start].ends_with("\n\n") {
        start -= 1;
    }
    Ok(format!("{}{}", &text[..start], &text[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Markers = Markers { begin: "<!-- >>> x >>> -->", end: "<!-- <<< x <<< -->" };

    #[test]
    fn added_replaced_and_removed() {
        let one = with_block("# Notes\nkeep me\n", M, "v1\n").unwrap();
        assert_eq!(one, format!("# Notes\nkeep me\n\n{}\nv1\n{}\n", M.begin, M.end));
        let two = with_block(&one, M, "v2\n").unwrap();
        assert_eq!(two, one.replace("v1", "v2"));
        assert_eq!(without_block(&two, M).unwrap(), "# Notes\nkeep me\n");
        assert_eq!(with_block("", M, "b\n").unwrap(), format!("{}\nb\n{}\n", M.begin, M.end));
        let mid = format!("a\n{}\nb\n{}\nc\n", M.begin, M.end);
        assert_eq!(without_block(&mid, M).unwrap(), "a\nc\n");
    }

    #[test]
    fn unpaired_markers_leave_the_file_alone() {
        for text in [
            format!("export A=1\n{}\nPATH=/x:$PATH\nalias important=keep\n", M.begin),
            format!("{}\n{}\n", M.end, M.begin),
            format!("{0}\n{1}\n{0}\n{1}\n", M.begin, M.end),
        ] {
            assert!(without_block(&text, M).is_err(), "{text}");
            assert!(with_block(&text, M, "x\n").is_err(), "{text}");
        }
    }
}
