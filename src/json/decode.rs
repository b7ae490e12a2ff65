//! Any emitted shape back to the JSON it stands for: JSON itself, Outline,
//! PVFN (with `@map` and hybrid blocks) and Schema-YAML share one line
//! grammar (docs/FORMAT.md), so one reader serves them all.

use std::collections::HashMap;

use anyhow::{Result, anyhow, bail};
use serde_json::{Map, Value};

use super::literal::{Ctx, Cursor, MAX_DEPTH, RESERVED_KEY, Seg, key_bare_ok};

/// Decodes tokensieve output (or plain JSON) to a `Value`. A failing
/// command's rendering ends with a status line `exit N` (N non-zero) that no
/// shape has as its last line: when the whole does not decode, the text
/// before that line does.
pub fn decode(text: &str) -> Result<Value> {
    match document(text) {
        Ok(v) => Ok(v),
        Err(e) => match strip_status(text) {
            Some(doc) => document(doc).map_err(|_| e),
            None => Err(e),
        },
    }
}

/// `text` without its last line when that line is a status `exit N`.
fn strip_status(text: &str) -> Option<&str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let (doc, last) = body.rsplit_once('\n')?;
    let code = last.strip_prefix("exit ")?;
    let status = !code.is_empty()
        && code.strip_prefix('-').unwrap_or(code).bytes().all(|b| b.is_ascii_digit())
        && code.parse::<i64>().is_ok_and(|c| c != 0);
    status.then_some(doc)
}

fn document(text: &str) -> Result<Value> {
    if let Ok(v) = super::parse::value_exact(text) {
        return Ok(v);
    }
    // Flow: one line, an inline object or array. (Outline never writes a
    // one-line document that starts with a bracket but a lone section
    // header, which means an empty document.)
    let mut flow_err = None;
    if !text.trim_end().contains('\n') && text.starts_with(['{', '[']) {
        let mut c = Cursor::new(text.trim_end());
        match c.value(Ctx::Cell) {
            Ok(v) if c.at_end() => return Ok(v),
            Ok(_) => flow_err = Some(anyhow!("text after the value at column {} of {}", c.pos, c.excerpt())),
            Err(e) => flow_err = Some(e),
        }
    }
    if text.starts_with("# view: ") {
        bail!(
            "this is a view (part of a document), not a whole document: only full renderings decode \
             (TOKENSIEVE_FOCUS=off TOKENSIEVE_BUDGET=off give one)"
        );
    }
    let lines: Vec<&str> = text.lines().collect();
    let outline = Reader { lines, at: 0, abbrev: HashMap::new(), root: Value::Null }.document();
    // Neither: the one-line reading's error says more about a one-liner.
    match (outline, flow_err) {
        (Err(_), Some(e)) => Err(e),
        (other, _) => other,
    }
}

struct Reader<'a> {
    lines: Vec<&'a str>,
    at: usize,
    abbrev: HashMap<String, String>,
    root: Value,
}

impl<'a> Reader<'a> {
    fn next_line(&mut self) -> Option<&'a str> {
        let l = self.lines.get(self.at).copied();
        self.at += 1;
        l
    }

    fn err(&self, msg: impl std::fmt::Display) -> anyhow::Error {
        anyhow!("line {}: {msg}", self.at)
    }

    fn document(mut self) -> Result<Value> {
        if self.lines.first() == Some(&"@map") {
            self.at = 1;
            while let Some(line) = self.next_line() {
                if line.is_empty() {
                    break;
                }
                let (short, key) = line.split_once('=').ok_or_else(|| self.err("bad @map entry"))?;
                self.abbrev.insert(short.to_owned(), key.to_owned());
            }
        }
        if let Some(v) = self.schema_yaml_root()? {
            return Ok(v);
        }
        let mut section: Vec<Seg> = Vec::new();
        while let Some(line) = self.next_line() {
            if line.is_empty() {
                continue;
            }
            let mut c = Cursor::new(line);
            if line.starts_with('[') && !is_root_table(line) {
                c.pos = 1;
                section = if c.rest() == "]" { Vec::new() } else { self.path(&mut c, "]")? };
                c.expect(']')?;
                if !c.at_end() {
                    return Err(self.err("text after a section header"));
                }
                continue;
            }
            let rel = if line.starts_with('[') { Vec::new() } else { self.path(&mut c, "=[:")? };
            let mut path = section.clone();
            path.extend(rel);
            match c.peek() {
                Some('=') => {
                    c.pos += 1;
                    let v = c.value(Ctx::Line).map_err(|e| self.err(e))?;
                    if !c.at_end() {
                        return Err(self.err("text after a value"));
                    }
                    self.insert(&path, v)?;
                }
                Some('[') => {
                    let v = self.outline_table(&mut c)?;
                    self.insert(&path, v)?;
                }
                Some(':') if c.rest() == ":" => {
                    let v = self.hybrid_block()?;
                    self.insert(&path, v)?;
                }
                _ => return Err(self.err("expected '=', a table or a block after the path")),
            }
        }
        Ok(match self.root {
            Value::Null => Value::Object(Map::new()),
            v => v,
        })
    }

    fn path(&self, c: &mut Cursor, stops: &str) -> Result<Vec<Seg>> {
        let mut p = c.path(stops).map_err(|e| self.err(e))?;
        for seg in &mut p {
            if let Seg::Key(k) = seg
                && let Some(full) = self.abbrev.get(k)
            {
                *k = full.clone();
            }
        }
        Ok(p)
    }

    /// `[N]{cols}:` or `path[N]{cols}:` (cursor at `[`), then N rows; or a
    /// nested table `path[N]{cols}.key[M]{cols}:` and M rows.
    fn outline_table(&mut self, c: &mut Cursor) -> Result<Value> {
        let n = self.count(c)?;
        let cols = self.columns(c)?;
        if c.eat('.') {
            let key = c.path("[").map_err(|e| self.err(e))?;
            let m = self.count(c)?;
            let inner = self.columns(c)?;
            self.table_end(c)?;
            return self.nested_rows(n, &cols, &key, m, &inner);
        }
        self.table_end(c)?;
        if cols.iter().any(|c| c.group) {
            return Err(self.err("a '^' column outside a nested table"));
        }
        let free: Vec<&Column> = cols.iter().filter(|c| c.constant.is_none()).collect();
        self.rows_follow(n)?;
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let line = self.next_line().ok_or_else(|| self.err("table ends early"))?;
            let cells = self.row_cells(line, &free)?;
            rows.push(self.record(&cols, cells)?);
        }
        Ok(Value::Array(rows))
    }

    /// The header's count is only a claim until the rows are there.
    fn rows_follow(&self, n: usize) -> Result<()> {
        if n > self.lines.len() - self.at.min(self.lines.len()) {
            return Err(self.err(format!("the table announces {n} rows but fewer lines follow")));
        }
        Ok(())
    }

    /// `[N]` (cursor at `[`).
    fn count(&self, c: &mut Cursor) -> Result<usize> {
        c.expect('[')?;
        let digits: String = c.rest().chars().take_while(char::is_ascii_digit).collect();
        c.pos += digits.len();
        let n: usize = digits.parse().map_err(|_| self.err("bad row count"))?;
        c.expect(']')?;
        Ok(n)
    }

    /// `{col,col=const,sub[]{a,b}}`
    fn columns(&self, c: &mut Cursor) -> Result<Vec<Column>> {
        c.expect('{')?;
        let mut cols: Vec<Column> = Vec::new();
        loop {
            let group = c.eat('^');
            let path = c.path("=,}[").map_err(|e| self.err(e))?;
            let constant = if c.eat('=') { Some(c.value(Ctx::Cell).map_err(|e| self.err(e))?) } else { None };
            let mut sub = None;
            if c.eat('[') {
                c.expect(']')?;
                c.expect('{')?;
                sub = Some(c.path_list('}').map_err(|e| self.err(e))?);
            }
            cols.push(Column { path, constant, sub, group });
            if c.eat('}') {
                return Ok(cols);
            }
            c.expect(',').map_err(|e| self.err(e))?;
        }
    }

    fn table_end(&self, c: &mut Cursor) -> Result<()> {
        c.expect(':')?;
        if !c.at_end() {
            return Err(self.err("text after a table header"));
        }
        Ok(())
    }

    /// The cells of one row, one per column of `free` (missing ones `None`).
    fn row_cells(&self, line: &str, free: &[&Column]) -> Result<Vec<Option<Value>>> {
        let mut rc = Cursor::new(line);
        let mut cells: Vec<Option<Value>> = Vec::new();
        while !rc.at_end() {
            if !cells.is_empty() {
                rc.expect(',').map_err(|e| self.err(e))?;
            }
            let col = free.get(cells.len()).ok_or_else(|| self.err("row has more cells than the header"))?;
            cells.push(cell(&mut rc, col).map_err(|e| self.err(e))?);
        }
        cells.resize(free.len(), None);
        Ok(cells)
    }

    /// A record from its table's columns and its free cells in order.
    fn record(&self, cols: &[Column], cells: Vec<Option<Value>>) -> Result<Value> {
        let mut cells = cells.into_iter();
        let mut row = Value::Object(Map::new());
        for col in cols {
            let v = match &col.constant {
                Some(v) => Some(v.clone()),
                None => cells.next().flatten(),
            };
            if let Some(v) = v {
                insert(&mut row, &col.path, v).map_err(|e| self.err(e))?;
            }
        }
        Ok(row)
    }

    /// The M rows of a nested table: a row that starts with a count opens
    /// the next outer record (its cells follow); the rows after it, with
    /// the count and outer cells empty, are its other inner records.
    fn nested_rows(
        &mut self,
        n: usize,
        outer: &[Column],
        key: &[Seg],
        m: usize,
        inner: &[Column],
    ) -> Result<Value> {
        let count_col = Column { path: Vec::new(), constant: None, sub: None, group: false };
        if outer.iter().any(|c| c.group) {
            return Err(self.err("a '^' column among the outer columns"));
        }
        let free_outer: Vec<&Column> = outer.iter().filter(|c| c.constant.is_none()).collect();
        let free_inner: Vec<&Column> = inner.iter().filter(|c| c.constant.is_none()).collect();
        let free: Vec<&Column> = std::iter::once(&count_col)
            .chain(free_outer.iter().copied())
            .chain(free_inner.iter().copied())
            .collect();
        self.rows_follow(m)?;
        if n > m {
            return Err(self.err("a nested table has more outer records than rows"));
        }
        let mut parents: Vec<(Value, Vec<Value>)> = Vec::with_capacity(n);
        let mut left = 0u64;
        // The current outer record's first inner row, for its `^` columns.
        let mut first: Vec<Option<Value>> = Vec::new();
        for _ in 0..m {
            let line = self.next_line().ok_or_else(|| self.err("table ends early"))?;
            let mut cells = self.row_cells(line, &free)?.into_iter();
            let count = cells.next().flatten();
            let outer_cells: Vec<Option<Value>> = cells.by_ref().take(free_outer.len()).collect();
            match &count {
                Some(v) => {
                    if left != 0 {
                        return Err(self.err("an outer record starts before the last one's rows end"));
                    }
                    left = v.as_u64().filter(|n| *n > 0).ok_or_else(|| self.err("bad inner row count"))?;
                    parents.push((self.record(outer, outer_cells)?, Vec::new()));
                }
                None if left == 0 || outer_cells.iter().any(Option::is_some) => {
                    return Err(self.err("a row without its outer record's count"));
                }
                None => {}
            }
            left -= 1;
            let mut inner_cells: Vec<Option<Value>> = cells.collect();
            if count.is_some() {
                first = inner_cells.clone();
            } else {
                for (i, col) in free_inner.iter().enumerate() {
                    if col.group {
                        if inner_cells[i].is_some() {
                            return Err(self.err("a '^' cell after its group's first row"));
                        }
                        inner_cells[i] = first[i].clone();
                    }
                }
            }
            let child = self.record(inner, inner_cells)?;
            parents.last_mut().expect("a count came first").1.push(child);
        }
        if left != 0 || parents.len() != n {
            return Err(self.err("nested table rows do not match its counts"));
        }
        let mut out = Vec::with_capacity(n);
        for (mut parent, children) in parents {
            insert(&mut parent, key, Value::Array(children)).map_err(|e| self.err(e))?;
            out.push(parent);
        }
        Ok(Value::Array(out))
    }

    /// Seed 000's root Schema-YAML, when the document is one.
    fn schema_yaml_root(&mut self) -> Result<Option<Value>> {
        let start = self.at;
        let first = self.lines.get(start).copied().unwrap_or_default();
        let (wrapper, schema_at) = if first == "schema:" {
            (None, start)
        } else if self.lines.get(start + 1) == Some(&"schema:") && first.ends_with(':') {
            // `Wrapper:` is one key and nothing else.
            let mut c = Cursor::new(&first[..first.len() - 1]);
            match c.key(":") {
                Ok(k) if c.at_end() && (first.starts_with('"') || key_bare_ok(&k)) => (Some(k), start + 1),
                _ => return Ok(None),
            }
        } else {
            return Ok(None);
        };
        self.at = schema_at + 1;
        let mut cols = Vec::new();
        while let Some(line) = self.lines.get(self.at).and_then(|l| l.strip_prefix("- ")) {
            cols.push(self.path(&mut Cursor::new(line), "")?);
            self.at += 1;
        }
        if self.next_line() != Some("data:") {
            return Err(self.err("expected 'data:'"));
        }
        let rows = self.schema_rows(&cols)?;
        if self.at < self.lines.len() {
            return Err(self.err("text after Schema-YAML data"));
        }
        Ok(Some(match wrapper {
            Some(k) => Value::Object(Map::from_iter([(k, rows)])),
            None => rows,
        }))
    }

    /// PVFN's hybrid block after a `path:` line.
    fn hybrid_block(&mut self) -> Result<Value> {
        let line = self.next_line().ok_or_else(|| self.err("missing schema"))?;
        let inner = line.strip_prefix("schema:[").ok_or_else(|| self.err("expected 'schema:[...]'"))?;
        let mut c = Cursor::new(inner);
        let cols = c.path_list(']').map_err(|e| self.err(e))?;
        if !c.at_end() {
            return Err(self.err("text after the schema"));
        }
        if self.next_line() != Some("data:") {
            return Err(self.err("expected 'data:'"));
        }
        self.schema_rows(&cols)
    }

    /// `- [a, b, -]` rows until the first line that is not one.
    fn schema_rows(&mut self, cols: &[Vec<Seg>]) -> Result<Value> {
        let mut rows = Vec::new();
        while let Some(line) = self.lines.get(self.at).copied().filter(|l| l.starts_with("- [")) {
            self.at += 1;
            let mut c = Cursor::new(&line[2..]);
            c.expect('[')?;
            let mut row = Value::Object(Map::new());
            for (i, col) in cols.iter().enumerate() {
                if i > 0 {
                    c.expect(',').map_err(|e| self.err(e))?;
                    c.skip_spaces();
                }
                if c.rest().starts_with("-,") || c.rest() == "-]" {
                    c.pos += 1;
                    continue;
                }
                let v = c.value(Ctx::Cell).map_err(|e| self.err(e))?;
                insert(&mut row, col, v).map_err(|e| self.err(e))?;
            }
            c.expect(']').map_err(|e| self.err(e))?;
            rows.push(row);
        }
        Ok(Value::Array(rows))
    }

    fn insert(&mut self, path: &[Seg], v: Value) -> Result<()> {
        if path.is_empty() {
            if !self.root.is_null() {
                bail!("{}", self.err("a second root value"));
            }
            check_depth(0, &v).map_err(|e| self.err(e))?;
            self.root = v;
            return Ok(());
        }
        insert(&mut self.root, path, v).map_err(|e| self.err(e))
    }
}

/// A table column: its path, its constant, or the columns of the records
/// each cell holds (`addr_info[]{family,local}`).
struct Column {
    path: Vec<Seg>,
    constant: Option<Value>,
    sub: Option<Vec<Vec<Seg>>>,
    /// `^col` in a nested table: one value per outer record, written on its
    /// first row.
    group: bool,
}

/// One cell of a row: empty, a value, or `[[..],[..]]` records of a sub-table.
fn cell(c: &mut Cursor, col: &Column) -> Result<Option<Value>> {
    if c.at_end() || c.peek() == Some(',') {
        return Ok(None);
    }
    let Some(subs) = &col.sub else { return c.value(Ctx::Cell).map(Some) };
    c.expect('[')?;
    let mut records = Vec::new();
    loop {
        c.expect('[')?;
        let mut rec = Value::Object(Map::new());
        let mut i = 0;
        while !c.eat(']') {
            if i > 0 {
                c.expect(',')?;
            }
            let path = subs.get(i).ok_or_else(|| anyhow!("sub-row has more cells than its header"))?;
            if !matches!(c.peek(), Some(',') | Some(']')) {
                insert(&mut rec, path, c.value(Ctx::Cell)?)?;
            }
            i += 1;
        }
        records.push(rec);
        if c.eat(']') {
            return Ok(Some(Value::Array(records)));
        }
        c.expect(',')?;
    }
}

/// A value placed under `steps` containers must not nest deeper than
/// `MAX_DEPTH` in all: deeper JSON is what our own parser (and serde_json's
/// readers) refuse, and what overflows the stack of a reader that recurses.
fn check_depth(steps: usize, v: &Value) -> Result<()> {
    fn depth(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            Value::Object(m) => 1 + m.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }
    // `steps` is checked first so the walk below stays short.
    if steps > MAX_DEPTH || steps + depth(v) > MAX_DEPTH {
        bail!("containers nested deeper than {MAX_DEPTH} levels");
    }
    Ok(())
}

fn is_root_table(line: &str) -> bool {
    let digits = line[1..].bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && line[1 + digits..].starts_with("]{")
}

/// Sets `path` in `root`, creating objects and arrays on the way (an index
/// may only extend an array by one: paths come in document order).
pub fn insert(root: &mut Value, path: &[Seg], v: Value) -> Result<()> {
    check_depth(path.len(), &v)?;
    if path.iter().any(|s| matches!(s, Seg::Key(k) if k == RESERVED_KEY)) {
        bail!("the key {RESERVED_KEY:?} is reserved by the JSON library");
    }
    let mut cur = root;
    for (i, seg) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        if cur.is_null() {
            *cur = match seg {
                Seg::Key(_) => Value::Object(Map::new()),
                Seg::Index(_) => Value::Array(Vec::new()),
            };
        }
        let slot = match (seg, cur) {
            (Seg::Key(k), Value::Object(m)) => m.entry(k.clone()).or_insert(Value::Null),
            (Seg::Index(n), Value::Array(a)) => {
                if *n == a.len() {
                    a.push(Value::Null);
                } else if *n > a.len() {
                    bail!("index {n} skips past the end of an array of {}", a.len());
                }
                &mut a[*n]
            }
            (seg, _) => bail!("path step {seg:?} does not fit the value already there"),
        };
        if last {
            if !slot.is_null() {
                bail!("value set twice");
            }
            *slot = v;
            return Ok(());
        }
        cur = slot;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_status_line_after_any_shape_is_read_past() {
        let doc = json!({"a": 1, "items": [{"id": 1, "s": "x"}, {"id": 2, "s": "y"}]});
        for text in [
            "a=1\nitems[2]{id,s}:\n1,x\n2,y\n",
            "{\"a\":1,\"items\":[{\"id\":1,\"s\":\"x\"},{\"id\":2,\"s\":\"y\"}]}\n",
        ] {
            assert_eq!(decode(text).unwrap(), doc);
            assert_eq!(decode(&format!("{text}exit 1\n")).unwrap(), doc, "{text}");
            assert_eq!(decode(&format!("{text}exit 137")).unwrap(), doc, "{text}");
            // only a non-zero status, and only as the last line
            assert!(decode(&format!("{text}exit 0\n")).is_err());
            assert!(decode(&format!("{text}exit 1\nexit 1\n")).is_err());
        }
        // a table row that reads `exit 1` is the document's, not a status
        let rows = "[2]{s}:\nok\nexit 1\n";
        assert_eq!(decode(rows).unwrap(), json!([{"s": "ok"}, {"s": "exit 1"}]));
        assert_eq!(decode(&format!("{rows}exit 1\n")).unwrap(), json!([{"s": "ok"}, {"s": "exit 1"}]));
    }
}
