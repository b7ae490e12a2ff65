//! The Outline shape (docs/FORMAT.md §2): `path=value` lines grouped under
//! `[section]` headers, and record tables with one row per record.
//!
//! Why this shape: with cl100k every line indented by two or more spaces pays
//! an extra token, braces and quotes cost tokens, and repeating a long path on
//! every line (PVFN) costs more than minified JSON on deep one-off objects.
//! Sections state a long prefix once without indentation; tables state the
//! keys of a record array once and keep one record per line, with columns
//! that hold the same value in every row written once in the header.

use serde_json::{Map, Value};

use super::flatten::{self, Table};
use super::literal::{Ctx, Seg, write_path, write_value};

/// Tuning, chosen by measurement on the fixtures (scripts/stress-tests.sh).
#[derive(Clone, Copy, Debug)]
pub struct Tuning {
    /// A nested object with at least this many lines gets its own section.
    pub section_min_lines: usize,
    /// A record array becomes a table when at least this share of cells is filled.
    pub table_min_fill: f64,
    /// ... and arrays of records inside cells hold at most this share of its leaves.
    pub table_max_nested_share: f64,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning { section_min_lines: 3, table_min_fill: 0.3, table_max_nested_share: 0.5 }
    }
}

/// Encodes `value` as Outline.
pub fn encode(value: &Value, tuning: Tuning) -> String {
    let mut w = Writer { out: String::new(), section: Vec::new(), tuning };
    match value {
        Value::Object(m) if !m.is_empty() => w.section_body(m, &[]),
        Value::Array(items) if !items.is_empty() => w.array(items, &[]),
        other => return other.to_string(),
    }
    w.out
}

struct Writer {
    out: String,
    /// The section the next relative line belongs to.
    section: Vec<Seg>,
    tuning: Tuning,
}

impl Writer {
    fn open_section(&mut self, abs: &[Seg]) {
        if self.section != abs {
            self.out.push('[');
            write_path(&mut self.out, abs);
            self.out.push_str("]\n");
            self.section = abs.to_vec();
        }
    }

    fn line(&mut self, rel: &[Seg], v: &Value) {
        write_path(&mut self.out, rel);
        self.out.push('=');
        write_value(&mut self.out, v, Ctx::Line);
        self.out.push('\n');
    }

    /// The members of the object at `abs` (its section is open): direct
    /// lines first, then the sections of large children.
    fn section_body(&mut self, map: &Map<String, Value>, abs: &[Seg]) {
        let mut deferred = Vec::new();
        self.members(map, &mut Vec::new(), &mut deferred);
        for (rel, v) in deferred {
            let child: Vec<Seg> = abs.iter().cloned().chain(rel.iter().cloned()).collect();
            match v {
                Value::Object(m) => {
                    self.open_section(&child);
                    self.section_body(m, &child);
                }
                Value::Array(items) => self.array(items, &child),
                _ => unreachable!("only containers are deferred"),
            }
        }
    }

    fn members<'a>(
        &mut self,
        map: &'a Map<String, Value>,
        rel: &mut Vec<Seg>,
        deferred: &mut Vec<(Vec<Seg>, &'a Value)>,
    ) {
        for (k, v) in map {
            rel.push(Seg::Key(k.clone()));
            match v {
                Value::Object(m) if !m.is_empty() => {
                    if lines(v) >= self.tuning.section_min_lines {
                        deferred.push((rel.clone(), v));
                    } else {
                        self.members(m, rel, deferred);
                    }
                }
                Value::Array(items) if needs_own_place(items) => {
                    if let Some(table) = self.tabular(items) {
                        // Rows end by count: the section stays open after them.
                        self.table(&table, rel, items.len());
                    } else if flatten::leaves(v) < self.tuning.section_min_lines {
                        // `ports=[{containerPort:80}]` beats a section of one line.
                        self.line(rel, v);
                    } else {
                        deferred.push((rel.clone(), v));
                    }
                }
                _ => self.line(rel, v),
            }
            rel.pop();
        }
    }

    /// An array that is not written inline: as a table when it is one,
    /// otherwise element by element.
    fn array(&mut self, items: &[Value], abs: &[Seg]) {
        if let Some(table) = self.tabular(items) {
            let (parent, last) = abs.split_at(abs.len().saturating_sub(1));
            self.open_section(parent);
            self.table(&table, last, items.len());
            return;
        }
        for (i, item) in items.iter().enumerate() {
            let mut child = abs.to_vec();
            child.push(Seg::Index(i));
            match item {
                Value::Object(m) if !m.is_empty() => {
                    self.open_section(&child);
                    self.section_body(m, &child);
                }
                Value::Array(inner) if needs_own_place(inner) => self.array(inner, &child),
                _ => {
                    self.open_section(abs);
                    self.line(&[Seg::Index(i)], item);
                }
            }
        }
    }

    fn tabular<'a>(&self, items: &'a [Value]) -> Option<Table<'a>> {
        if items.len() < 2 {
            return None;
        }
        let table = flatten::flatten(items)?;
        // Records nested in a cell repeat their keys on every row: fine now
        // and then, not when they carry most of the table.
        let (mut nested, mut all) = (0, 0);
        for v in table.rows.iter().flatten().flatten() {
            let n = flatten::leaves(v);
            all += n;
            if matches!(v, Value::Array(a) if needs_own_place(a)) {
                nested += n;
            }
        }
        let heavy = nested as f64 > all as f64 * self.tuning.table_max_nested_share;
        (!heavy && table.fill() >= self.tuning.table_min_fill).then_some(table)
    }

    /// `rel[N]{col,col=const,sub[]{a,b},...}:` and N rows.
    fn table(&mut self, table: &Table, rel: &[Seg], n: usize) {
        write_path(&mut self.out, rel);
        self.out.push_str(&format!("[{n}]{{"));
        let subs: Vec<Option<Table>> = (0..table.columns.len()).map(|c| sub_table(table, c)).collect();
        let consts: Vec<Option<&Value>> = (0..table.columns.len())
            .map(|c| if n >= 3 && subs[c].is_none() { table.constant(c) } else { None })
            .collect();
        for (c, col) in table.columns.iter().enumerate() {
            if c > 0 {
                self.out.push(',');
            }
            write_path(&mut self.out, col);
            if let Some(v) = consts[c] {
                self.out.push('=');
                write_value(&mut self.out, v, Ctx::Cell);
            }
            if let Some(sub) = &subs[c] {
                self.out.push_str("[]{");
                for (i, sc) in sub.columns.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    write_path(&mut self.out, sc);
                }
                self.out.push('}');
            }
        }
        self.out.push_str("}:\n");
        // Each sub-table's rows, consumed in record order.
        let mut sub_rows: Vec<usize> = vec![0; subs.len()];
        for row in &table.rows {
            let mut line = String::new();
            let mut written = 0;
            for (c, cell) in row.iter().enumerate() {
                if consts[c].is_some() {
                    continue;
                }
                if written > 0 {
                    line.push(',');
                }
                written += 1;
                match (cell, &subs[c]) {
                    (Some(Value::Array(items)), Some(sub)) => {
                        line.push('[');
                        for i in 0..items.len() {
                            if i > 0 {
                                line.push(',');
                            }
                            write_cells(&mut line, &sub.rows[sub_rows[c] + i], '[', ']');
                        }
                        sub_rows[c] += items.len();
                        line.push(']');
                    }
                    (Some(v), _) => write_value(&mut line, v, Ctx::Cell),
                    (None, _) => {}
                }
            }
            self.out.push_str(line.trim_end_matches(','));
            self.out.push('\n');
        }
    }
}

/// `open` cells `close`, empty for missing, trailing empties left out.
fn write_cells(out: &mut String, cells: &[Option<&Value>], open: char, close: char) {
    out.push(open);
    let last = cells.iter().rposition(Option::is_some).map_or(0, |p| p + 1);
    for (i, cell) in cells[..last].iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if let Some(v) = cell {
            write_value(out, v, Ctx::Cell);
        }
    }
    out.push(close);
}

/// Column `c` as a table of its own when every cell holding it is an array
/// of records that share most keys (`NetworkCards`, `addr_info`): the keys go
/// to the header once instead of into every row.
fn sub_table<'a>(table: &Table<'a>, c: usize) -> Option<Table<'a>> {
    let mut records: Vec<&'a Value> = Vec::new();
    for row in &table.rows {
        match row[c] {
            None => {}
            Some(Value::Array(items))
                if !items.is_empty()
                    && items.iter().all(|v| v.as_object().is_some_and(|m| !m.is_empty())) =>
            {
                records.extend(items.iter())
            }
            Some(_) => return None,
        }
    }
    if records.len() < 2 {
        return None;
    }
    flatten::flatten(records).filter(|t| t.fill() >= 0.5)
}

/// Arrays holding objects (or nested such arrays) get a table or sections;
/// arrays of scalars stay on one line.
fn needs_own_place(items: &[Value]) -> bool {
    items.iter().any(|v| match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => needs_own_place(a),
        _ => false,
    })
}

/// How many lines `v` takes when written as dotted lines.
fn lines(v: &Value) -> usize {
    match v {
        Value::Object(m) if !m.is_empty() => m.values().map(lines).sum(),
        Value::Array(items) if needs_own_place(items) => items.len() + 1,
        _ => 1,
    }
}
