//! Where a line's values sit (numbers and hex ids, quoted names, the
//! values of `key=value` fields) and the line with them masked: the one
//! notion of "lines that differ only in their values" that every fold uses
//! (the generic path, reports, paragraphs, git, users' `fold` filters).
//! Pure byte scans, no regex: they run on every line of a log.

/// The byte ranges of a line's numbers and hex ids: each maximal run of
/// ASCII hex digits that holds a decimal digit, a `0x` prefix included
/// (what `0[xX][0-9a-fA-F]+|[0-9a-fA-F]*[0-9][0-9a-fA-F]*` finds, without
/// a regex search per log line).
pub fn slots(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_hexdigit() {
            i += 1;
            continue;
        }
        let start = i;
        let hex_prefix = b[i] == b'0'
            && matches!(b.get(i + 1), Some(b'x' | b'X'))
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if hex_prefix {
            i += 2;
        }
        let mut digit = hex_prefix;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            digit |= b[i].is_ascii_digit();
            i += 1;
        }
        if digit {
            // Runs start and end at ASCII bytes: char boundaries.
            out.push((start, i));
        }
    }
    out
}

/// Which of a line's values `mask` sets aside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// Numbers and hex ids (`slots`): the fold's notion of similar lines.
    Numbers,
    /// Those and quoted names (`places`): a checker's rule and message.
    Quoted,
    /// Those and the value of each `key=value` field: a server log's
    /// template (`Client closed connection id=# addr=# … cmd=#`).
    Fields,
}

/// The line with each of its `values` replaced by `#`: one template for
/// lines that differ only there.
pub fn mask(line: &str, values: Values) -> String {
    let spans = match values {
        Values::Numbers => slots(line),
        Values::Quoted => places(line),
        Values::Fields => fields(line),
    };
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    for (start, end) in spans {
        out.push_str(&line[copied..start]);
        out.push('#');
        copied = end;
    }
    out.push_str(&line[copied..]);
    out
}

/// The line with every number and hex id (see `slots`) replaced by `#`.
pub fn shape(line: &str) -> String {
    mask(line, Values::Numbers)
}

/// Where a finding's values sit: each quoted name (`'x'`, `"x"`, `` `x` ``,
/// the quote not inside a word: `doesn't` opens nothing) and each number or
/// hex id outside them. Byte ranges, in order.
pub fn places(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let word = |c: Option<&u8>| c.is_some_and(u8::is_ascii_alphanumeric);
    let mut quoted = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let q = b[i];
        if matches!(q, b'\'' | b'"' | b'`') && !word(i.checked_sub(1).and_then(|k| b.get(k))) {
            let close = b[i + 1..].iter().position(|&c| c == q).map(|len| i + len + 2);
            if let Some(end) = close.filter(|&end| !word(b.get(end))) {
                quoted.push((i, end));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    let mut out: Vec<(usize, usize)> =
        slots(line).into_iter().filter(|&(s, e)| !quoted.iter().any(|&(qs, qe)| s < qe && e > qs)).collect();
    out.extend(quoted);
    out.sort_unstable();
    out
}

/// `places`, and the value of each `key=value` field (up to the next
/// blank) in place of the places inside it. Byte ranges, in order.
pub fn fields(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut values: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        // a key: a word run at the line's start or after a blank, then `=`
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'-' | b'.')) {
            i += 1;
        }
        let at_word = start == 0 || b[start - 1].is_ascii_whitespace();
        if i > start && at_word && b.get(i) == Some(&b'=') {
            let from = i + 1;
            let mut end = from;
            while end < b.len() && !b[end].is_ascii_whitespace() {
                end += 1;
            }
            if end > from {
                values.push((from, end));
            }
            i = end;
        } else {
            i = i.max(start + 1);
        }
    }
    let mut out: Vec<(usize, usize)> =
        places(line).into_iter().filter(|&(s, e)| !values.iter().any(|&(vs, ve)| s < ve && e > vs)).collect();
    out.extend(values);
    out.sort_unstable();
    out
}
