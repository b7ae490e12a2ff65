//! The value and path grammar shared by every text shape (docs/FORMAT.md §1).
//!
//! A scalar is written bare when that is unambiguous and JSON-quoted
//! otherwise; containers inside a cell are written inline (`[a,b]`,
//! `{k:v}`). Paths are `.`-joined segments: a bare key, a JSON-quoted key, or
//! an array index.

use anyhow::{Result, anyhow, bail};
use serde_json::{Map, Value};

/// Where a literal stands, which decides what must be quoted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Ctx {
    /// After `path=`, up to the end of the line.
    Line,
    /// A table cell or an item of an inline container: `,` `]` `}` end it.
    Cell,
}

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// Containers nest at most this deep in a value we read (serde_json's own
/// limit for the JSON we parse): deeper input is an error, not a stack
/// overflow.
pub const MAX_DEPTH: usize = 128;

/// Whether `s` is exactly one JSON number (RFC 8259: `-? int frac? exp?`).
pub fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// The number `s` stands for, kept exactly as written (`1E+2` stays
/// `1E+2`: serde_json's own parser would write `1e+2`).
pub fn exact_number(s: &str) -> Option<serde_json::Number> {
    // With `arbitrary_precision` a Number is its literal; this is the
    // constructor that keeps it (checked against the grammar first).
    is_json_number(s).then(|| serde_json::Number::from_string_unchecked(s.to_owned()))
}

/// Whether `s` can be written without quotes in `ctx`.
pub fn bare_ok(s: &str, ctx: Ctx) -> bool {
    let Some(first) = s.chars().next() else { return false };
    let last = s.chars().next_back().unwrap_or(first);
    if first.is_whitespace() || last.is_whitespace() || matches!(first, '"' | '[' | '{') {
        return false;
    }
    if matches!(s, "true" | "false" | "null" | "-") || is_json_number(s) {
        return false;
    }
    s.chars().all(|c| !(c.is_control() || ctx == Ctx::Cell && matches!(c, ',' | ']' | '}')))
}

/// Appends a JSON string literal (serde_json's escaping: `"`, `\`, controls).
pub fn write_quoted(out: &mut String, s: &str) {
    out.push_str(&Value::String(s.to_owned()).to_string());
}

/// Appends a value: scalars bare when allowed, containers inline.
pub fn write_value(out: &mut String, v: &Value, ctx: Ctx) {
    match v {
        Value::String(s) if bare_ok(s, ctx) => out.push_str(s),
        Value::String(s) => write_quoted(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item, Ctx::Cell);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_key(out, k);
                out.push(':');
                write_value(out, item, Ctx::Cell);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Whether a key can stand bare as a path segment or an inline-object key.
pub fn key_bare_ok(k: &str) -> bool {
    !k.is_empty()
        && !k.bytes().all(|b| b.is_ascii_digit())
        && !k.starts_with(['@', '-', '#', '*', '^'])
        && k.chars().all(|c| !c.is_whitespace() && !c.is_control() && !".=[]{},:\"".contains(c))
}

/// Appends a key segment (quoted when it is not a plain name).
pub fn write_key(out: &mut String, k: &str) {
    if key_bare_ok(k) { out.push_str(k) } else { write_quoted(out, k) }
}

/// Appends a dotted path.
pub fn write_path(out: &mut String, path: &[Seg]) {
    for (i, seg) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        match seg {
            Seg::Key(k) => write_key(out, k),
            Seg::Index(n) => out.push_str(&n.to_string()),
        }
    }
}

/// A cursor over one line of text.
pub struct Cursor<'a> {
    pub s: &'a str,
    pub pos: usize,
    /// Containers open around the value being read.
    depth: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(s: &'a str) -> Self {
        Cursor { s, pos: 0, depth: 0 }
    }
    pub fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }
    pub fn expect(&mut self, c: char) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            bail!("expected '{c}' at column {} of {}", self.pos, self.excerpt())
        }
    }

    /// The line around the cursor, short enough for a one-line error.
    pub fn excerpt(&self) -> String {
        const SIDE: usize = 30;
        let mut from = self.pos.saturating_sub(SIDE).min(self.s.len());
        while !self.s.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = (self.pos + SIDE).min(self.s.len());
        while !self.s.is_char_boundary(to) {
            to += 1;
        }
        let dots = |cut: bool| if cut { "…" } else { "" };
        format!("{:?}", format!("{}{}{}", dots(from > 0), &self.s[from..to], dots(to < self.s.len())))
    }
    pub fn skip_spaces(&mut self) {
        while self.eat(' ') {}
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    /// A JSON string literal starting at the cursor.
    pub fn quoted(&mut self) -> Result<String> {
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let mut i = 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => {
                    let s: String = serde_json::from_str(&rest[..=i])?;
                    self.pos += i + 1;
                    return Ok(s);
                }
                _ => i += 1,
            }
        }
        bail!("unterminated string in {}", self.excerpt())
    }

    /// A key: quoted, or bare up to one of `stops`.
    pub fn key(&mut self, stops: &str) -> Result<String> {
        if self.peek() == Some('"') {
            return self.quoted();
        }
        let rest = self.rest();
        let end = rest.find(|c: char| stops.contains(c)).unwrap_or(rest.len());
        if end == 0 {
            bail!("expected a key at column {} of {}", self.pos, self.excerpt());
        }
        self.pos += end;
        Ok(rest[..end].to_owned())
    }

    /// A dotted path up to one of `stops` (digit-only bare segments are indices).
    pub fn path(&mut self, stops: &str) -> Result<Vec<Seg>> {
        let mut path = Vec::new();
        let all_stops = format!("{stops}.");
        loop {
            let quoted = self.peek() == Some('"');
            let k = self.key(&all_stops)?;
            path.push(match k.parse::<usize>() {
                Ok(n) if !quoted && k.bytes().all(|b| b.is_ascii_digit()) => Seg::Index(n),
                _ => Seg::Key(k),
            });
            if !self.eat('.') {
                return Ok(path);
            }
        }
    }

    /// Column paths up to `close`: `a, b.c, "d.e"]` (spaces after commas allowed).
    pub fn path_list(&mut self, close: char) -> Result<Vec<Vec<Seg>>> {
        let stops = format!(",{close}");
        let mut out = Vec::new();
        loop {
            self.skip_spaces();
            out.push(self.path(&stops)?);
            if self.eat(close) {
                return Ok(out);
            }
            self.expect(',')?;
        }
    }

    /// A value in `ctx` (a `Line` value runs to the end of the text).
    pub fn value(&mut self, ctx: Ctx) -> Result<Value> {
        if matches!(self.peek(), Some('[' | '{')) {
            if self.depth >= MAX_DEPTH {
                bail!("containers nested deeper than {MAX_DEPTH} levels");
            }
            self.depth += 1;
            let v = self.container();
            self.depth -= 1;
            return v;
        }
        match self.peek() {
            Some('"') => Ok(Value::String(self.quoted()?)),
            _ => {
                let rest = self.rest();
                let end = match ctx {
                    Ctx::Line => rest.len(),
                    Ctx::Cell => rest.find([',', ']', '}']).unwrap_or(rest.len()),
                };
                self.pos += end;
                bare_scalar(&rest[..end])
            }
        }
    }

    /// An inline `[...]` or `{...}` at the cursor.
    fn container(&mut self) -> Result<Value> {
        match self.peek() {
            Some('[') => {
                self.pos += 1;
                let mut items = Vec::new();
                if !self.eat(']') {
                    loop {
                        self.skip_spaces();
                        items.push(self.value(Ctx::Cell)?);
                        if self.eat(']') {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                Ok(Value::Array(items))
            }
            Some('{') => {
                self.pos += 1;
                let mut map = Map::new();
                if !self.eat('}') {
                    loop {
                        self.skip_spaces();
                        let k = self.key(":")?;
                        self.expect(':')?;
                        map.insert(k, self.value(Ctx::Cell)?);
                        if self.eat('}') {
                            break;
                        }
                        self.expect(',')?;
                    }
                }
                Ok(Value::Object(map))
            }
            _ => unreachable!("called at a bracket"),
        }
    }
}

/// The value a bare token stands for.
pub fn bare_scalar(tok: &str) -> Result<Value> {
    Ok(match tok {
        "" => return Err(anyhow!("empty value")),
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "null" => Value::Null,
        t => match exact_number(t) {
            Some(n) => Value::Number(n),
            None => Value::String(t.to_owned()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round(v: &Value, ctx: Ctx) -> Value {
        let mut s = String::new();
        write_value(&mut s, v, ctx);
        let mut c = Cursor::new(&s);
        let back = c.value(ctx).unwrap();
        assert!(c.at_end(), "{s}");
        back
    }

    #[test]
    fn ambiguous_strings_are_quoted() {
        for s in ["true", "null", "42", "-1.5e3", "-", " lead", "trail ", "", "a\nb", "\"q", "[x", "{y"] {
            assert!(!bare_ok(s, Ctx::Line), "{s:?}");
            assert_eq!(round(&json!(s), Ctx::Line), json!(s));
        }
        assert!(bare_ok("arn:aws:iam::123:role/x", Ctx::Cell));
        assert!(bare_ok("a,b", Ctx::Line) && !bare_ok("a,b", Ctx::Cell));
        assert!(bare_ok("0123", Ctx::Line), "not a JSON number, so not ambiguous");
    }

    #[test]
    fn numbers_are_json_numbers_exactly() {
        for n in ["0", "-0", "42", "-1.5e3", "1E+2", "1e400", "0.000", "12345678901234567890123"] {
            assert!(is_json_number(n), "{n}");
            assert_eq!(exact_number(n).unwrap().to_string(), n);
        }
        for s in ["", "-", "01", "1.", ".5", "+1", "1e", "1e+", "0x10", "1 ", "NaN", "1_000"] {
            assert!(!is_json_number(s), "{s:?}");
        }
    }

    #[test]
    fn deep_inline_containers_are_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        let err = Cursor::new(&deep).value(Ctx::Cell).unwrap_err();
        assert!(err.to_string().contains("nested deeper than 128"), "{err}");
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(Cursor::new(&ok).value(Ctx::Cell).is_ok());
    }

    #[test]
    fn inline_containers_round_trip() {
        let v = json!({"a": [1, "x,y", {"k.e": true}], "b": "c:d", "": "e", "7": null});
        assert_eq!(round(&v, Ctx::Cell), v);
    }

    #[test]
    fn paths_quote_dots_digits_and_brackets() {
        let path =
            vec![Seg::Key("a.b".into()), Seg::Index(3), Seg::Key("12".into()), Seg::Key("x[y]".into())];
        let mut s = String::new();
        write_path(&mut s, &path);
        assert_eq!(s, r#""a.b".3."12"."x[y]""#);
        assert_eq!(Cursor::new(&s).path("=").unwrap(), path);
    }
}
