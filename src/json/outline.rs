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
    /// Records that each hold an array of records (reservations of
    /// instances) as one table of the inner records with the outer ones'
    /// fields as columns, where a plain table does not fit.
    pub nested_tables: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            section_min_lines: 3,
            table_min_fill: 0.3,
            table_max_nested_share: 0.5,
            nested_tables: false,
        }
    }
}

/// Encodes `value` as Outline.
pub fn encode(value: &Value, tuning: Tuning) -> String {
    encode_counted(value, tuning).0
}

/// A table's columns to write whatever its rows hold: the array at `.0`
/// (an absolute path), when written as a table, lists every column of
/// `.1` in its header (a view's rows shown are a few of many: the header
/// names all the columns of all of them).
pub type Wide = (Vec<Seg>, Vec<Vec<Seg>>);

/// `encode`, with the tables at the paths of `wide` listing those columns
/// too (after their own, so they take no cell in any row).
pub fn encode_wide(value: &Value, tuning: Tuning, wide: &[Wide]) -> String {
    Writer::new(tuning, wide).document(value).0
}

/// `encode`, or `None` as soon as the text is longer than `cap` chars (a
/// rendering that cannot fit the budget is not finished: the view replaces
/// it).
pub fn encode_within(value: &Value, tuning: Tuning, cap: usize) -> Option<String> {
    let mut w = Writer::new(tuning, &[]);
    (w.cap, w.check_at) = (Some(cap), cap);
    let (text, _) = w.document(value);
    (!w.stopped && crate::budget::fits(&text, Some(cap))).then_some(text)
}

/// `encode`, and whether a nested table was written (the router keeps that
/// candidate only then).
pub fn encode_counted(value: &Value, tuning: Tuning) -> (String, bool) {
    Writer::new(tuning, &[]).document(value)
}

/// Arrays shorter than this are written without first checking that they
/// can fit the cap (`Writer::hopeless`).
const HOPELESS_MIN_ITEMS: usize = 64;

struct Writer<'w> {
    out: String,
    /// The section the next relative line belongs to.
    section: Vec<Seg>,
    tuning: Tuning,
    nested: bool,
    wide: &'w [Wide],
    /// Stop once the text is longer than this many chars (`encode_within`).
    cap: Option<usize>,
    /// The text's length in bytes at which to count its chars again: it
    /// cannot pass the cap before (a char is at least one byte).
    check_at: usize,
    stopped: bool,
}

/// How a table's columns are written: sub-tables and header constants.
struct Layout<'a> {
    subs: Vec<Option<Table<'a>>>,
    consts: Vec<Option<&'a Value>>,
}

impl<'w> Writer<'w> {
    fn new(tuning: Tuning, wide: &'w [Wide]) -> Self {
        Writer {
            out: String::new(),
            section: Vec::new(),
            tuning,
            nested: false,
            wide,
            cap: None,
            check_at: usize::MAX,
            stopped: false,
        }
    }

    /// Whether the text passed the cap: then every loop returns at once.
    fn over(&mut self) -> bool {
        if self.stopped || self.out.len() <= self.check_at {
            return self.stopped;
        }
        let cap = self.cap.unwrap_or(usize::MAX);
        let chars = crate::budget::chars(&self.out);
        if chars > cap {
            self.stopped = true;
        } else {
            self.check_at = self.out.len() + (cap - chars);
        }
        self.stopped
    }

    /// With a cap: whether the records in `items` cannot fit in what is
    /// left of it, however they are written (`flatten::varying_cells`);
    /// then writing stops, before a table of a large array is built only
    /// to be thrown away (memory: the rows of 2,000 records of 77 columns
    /// are 1.4 MB).
    fn hopeless(&mut self, items: &[Value]) -> bool {
        let Some(cap) = self.cap.filter(|_| items.len() >= HOPELESS_MIN_ITEMS) else { return false };
        if crate::budget::chars(&self.out) + flatten::varying_cells(items) > cap {
            self.stopped = true;
        }
        self.stopped
    }

    fn document(&mut self, value: &Value) -> (String, bool) {
        match value {
            Value::Object(m) if !m.is_empty() => self.section_body(m, &[]),
            Value::Array(items) if !items.is_empty() => self.array(items, &[]),
            other => return (other.to_string(), false),
        }
        (std::mem::take(&mut self.out), self.nested)
    }

    /// `table` with the columns `wide` names for the array at `abs` that
    /// its rows lack, appended empty.
    fn widen(&self, table: &mut Table, abs: &[Seg]) {
        let Some((_, all)) = self.wide.iter().find(|(p, _)| p == abs) else { return };
        let have: std::collections::HashSet<&Vec<Seg>> = table.columns.iter().collect();
        let missing: Vec<Vec<Seg>> = all.iter().filter(|c| !have.contains(c)).cloned().collect();
        table.columns.extend(missing);
        for row in &mut table.rows {
            row.resize(table.columns.len(), None);
        }
    }

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
            if self.over() {
                return;
            }
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
            if self.over() {
                return;
            }
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
                    if self.hopeless(items) {
                        return;
                    }
                    if let Some(mut table) = self.tabular(items) {
                        if !self.wide.is_empty() {
                            let abs: Vec<Seg> = self.section.iter().chain(rel.iter()).cloned().collect();
                            self.widen(&mut table, &abs);
                        }
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
        if self.hopeless(items) {
            return;
        }
        if let Some(mut table) = self.tabular(items) {
            self.widen(&mut table, abs);
            let (parent, last) = abs.split_at(abs.len().saturating_sub(1));
            self.open_section(parent);
            self.table(&table, last, items.len());
            return;
        }
        if self.tuning.nested_tables
            && let Some((key, parents, children)) = self.nested(items)
        {
            let (parent, last) = abs.split_at(abs.len().saturating_sub(1));
            self.open_section(parent);
            self.nested_table(last, &key, items, &parents, &children);
            self.nested = true;
            return;
        }
        for (i, item) in items.iter().enumerate() {
            if self.over() {
                return;
            }
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
        self.fits_table(flatten::flatten(items)?)
    }

    /// `table`, if it is filled enough and not mostly records in cells.
    fn fits_table<'a>(&self, table: Table<'a>) -> Option<Table<'a>> {
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
        let layout = layout(table, n);
        self.out.push_str(&format!("[{n}]"));
        header(&mut self.out, table, &layout);
        self.out.push_str(":\n");
        // Each sub-table's rows, consumed in record order.
        let mut sub_rows: Vec<usize> = vec![0; layout.subs.len()];
        for row in &table.rows {
            if self.over() {
                return;
            }
            let mut line = String::new();
            cells(&mut line, row, &layout, &mut sub_rows);
            self.out.push_str(line.trim_end_matches(','));
            self.out.push('\n');
        }
    }

    /// Records (`items`) that each hold a non-empty array of records at
    /// one path through objects (`Instances`, `spec.containers`), with at
    /// least one other field: the path, each record without it, and every
    /// inner record in order. Of several such paths, the one whose records
    /// are the largest (containers rather than a pod's conditions or
    /// tolerations: small records are cheap as sub-table cells). The inner table must be one a plain table would accept.
    fn nested<'a>(&self, items: &'a [Value]) -> Option<(Vec<String>, Vec<Value>, Vec<&'a Value>)> {
        if items.len() < 2 {
            return None;
        }
        let mut paths = Vec::new();
        record_paths(items.first()?.as_object()?, &mut Vec::new(), &mut paths);
        let key = paths
            .into_iter()
            .filter_map(|p| {
                let (leaves, records) = items.iter().try_fold((0, 0), |(sum, n), item| {
                    let inner = at_keys(item, &p).filter(|v| is_records(v))?;
                    Some((sum + flatten::leaves(inner), n + inner.as_array().map_or(0, Vec::len)))
                })?;
                // Leaves per record (records > 0: `is_records`).
                let weight = leaves * 1000 / records;
                Some((weight, p))
            })
            // The first of equals: the shallowest, earliest path.
            .fold(None::<(usize, Vec<String>)>, |best, (w, p)| match best {
                Some((bw, _)) if bw >= w => best,
                _ => Some((w, p)),
            })?
            .1;
        let mut parents = Vec::with_capacity(items.len());
        let mut children = Vec::new();
        for item in items {
            let inner = at_keys(item, &key)?.as_array()?;
            let rest = without(item.as_object()?, &key);
            if rest.is_empty() {
                return None;
            }
            parents.push(Value::Object(rest));
            children.extend(inner.iter());
        }
        let inner = self.fits_table(flatten::flatten(children.iter().copied())?)?;
        // A row of constants only would be a blank line.
        if layout(&inner, children.len()).consts.iter().all(Option::is_some) {
            return None;
        }
        Some((key, parents, children))
    }

    /// `rel[N]{outer cols}.key[M]{inner cols}:` and M rows: the first row of
    /// each outer record starts with its number of inner records and its
    /// cells; the next ones leave those empty.
    fn nested_table(
        &mut self,
        rel: &[Seg],
        key: &[String],
        items: &[Value],
        parents: &[Value],
        children: &[&Value],
    ) {
        let outer = flatten::flatten(parents).expect("checked by nested");
        let inner = flatten::flatten(children.iter().copied()).expect("checked by nested");
        let (outer_layout, inner_layout) = (layout(&outer, parents.len()), layout(&inner, children.len()));
        write_path(&mut self.out, rel);
        self.out.push_str(&format!("[{}]", parents.len()));
        header(&mut self.out, &outer, &outer_layout);
        self.out.push('.');
        let key_segs: Vec<Seg> = key.iter().map(|k| Seg::Key(k.clone())).collect();
        write_path(&mut self.out, &key_segs);
        self.out.push_str(&format!("[{}]", children.len()));
        let sizes: Vec<usize> = items
            .iter()
            .map(|item| at_keys(item, key).and_then(Value::as_array).map_or(0, Vec::len))
            .collect();
        let group = group_columns(&inner, &inner_layout, &sizes);
        header_marked(&mut self.out, &inner, &inner_layout, &group);
        self.out.push_str(":\n");
        let free_outer = outer_layout.consts.iter().filter(|c| c.is_none()).count();
        let (mut outer_subs, mut inner_subs) = (vec![0; outer.columns.len()], vec![0; inner.columns.len()]);
        let mut child = 0;
        for (p, item) in items.iter().enumerate() {
            if self.over() {
                return;
            }
            let n = at_keys(item, key).and_then(Value::as_array).map_or(0, Vec::len);
            for j in 0..n {
                let mut line = String::new();
                if j == 0 {
                    line.push_str(&format!("{n},"));
                    cells(&mut line, &outer.rows[p], &outer_layout, &mut outer_subs);
                    if free_outer > 0 {
                        line.push(',');
                    }
                    cells(&mut line, &inner.rows[child], &inner_layout, &mut inner_subs);
                } else {
                    line.push_str(&",".repeat(free_outer + 1));
                    cells_but(&mut line, &inner.rows[child], &inner_layout, &mut inner_subs, &group);
                }
                child += 1;
                self.out.push_str(line.trim_end_matches(','));
                self.out.push('\n');
            }
        }
    }
}

/// Inner columns (plain, not constant) that hold one value in all the inner
/// records of each outer one (a reservation's launch time), where some outer
/// record has two or more: written on each group's first row only.
fn group_columns(inner: &Table, layout: &Layout, sizes: &[usize]) -> Vec<bool> {
    if sizes.iter().all(|&n| n < 2) {
        return vec![false; inner.columns.len()];
    }
    let group: Vec<bool> = (0..inner.columns.len())
        .map(|c| {
            layout.consts[c].is_none()
                && layout.subs[c].is_none()
                && sizes
                    .iter()
                    .scan(0, |start, &n| {
                        let rows = &inner.rows[*start..*start + n];
                        *start += n;
                        Some(rows.iter().all(|r| r[c] == rows[0][c]))
                    })
                    .all(|same| same)
        })
        .collect();
    // Later rows need one cell of their own, or they would be blank lines.
    let free = (0..inner.columns.len()).filter(|&c| layout.consts[c].is_none());
    if free.clone().all(|c| group[c]) { vec![false; inner.columns.len()] } else { group }
}

/// The paths through objects (not arrays) under `map` that hold records.
fn record_paths(map: &Map<String, Value>, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    for (k, v) in map {
        prefix.push(k.clone());
        match v {
            Value::Object(m) => record_paths(m, prefix, out),
            v if is_records(v) => out.push(prefix.clone()),
            _ => {}
        }
        prefix.pop();
    }
}

/// The value at a path of keys.
fn at_keys<'v>(v: &'v Value, keys: &[String]) -> Option<&'v Value> {
    keys.iter().try_fold(v, |v, k| v.get(k))
}

/// `map` without the value at `keys`, and without the objects that held
/// only it (decoding puts the value back where it was).
fn without(map: &Map<String, Value>, keys: &[String]) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in map {
        if *k != keys[0] {
            out.insert(k.clone(), v.clone());
        } else if let (Some(m), true) = (v.as_object(), keys.len() > 1) {
            let inner = without(m, &keys[1..]);
            if !inner.is_empty() {
                out.insert(k.clone(), Value::Object(inner));
            }
        }
    }
    out
}

/// A non-empty array of non-empty objects.
fn is_records(v: &Value) -> bool {
    matches!(v, Value::Array(a) if !a.is_empty() && a.iter().all(|x| x.as_object().is_some_and(|m| !m.is_empty())))
}

/// Sub-tables and (for 3+ rows) constant columns of `table`.
fn layout<'a>(table: &'a Table<'a>, n: usize) -> Layout<'a> {
    let subs: Vec<Option<Table>> = (0..table.columns.len()).map(|c| sub_table(table, c)).collect();
    let consts = (0..table.columns.len())
        .map(|c| if n >= 3 && subs[c].is_none() { table.constant(c) } else { None })
        .collect();
    Layout { subs, consts }
}

/// `{col,col=const,sub[]{a,b},...}`
fn header(out: &mut String, table: &Table, layout: &Layout) {
    header_marked(out, table, layout, &[]);
}

/// `header`, with `^` before the columns `group[c]` (same value in every
/// inner record of an outer one).
fn header_marked(out: &mut String, table: &Table, layout: &Layout, group: &[bool]) {
    out.push('{');
    for (c, col) in table.columns.iter().enumerate() {
        if c > 0 {
            out.push(',');
        }
        if group.get(c).copied().unwrap_or(false) {
            out.push('^');
        }
        write_path(out, col);
        if let Some(v) = layout.consts[c] {
            out.push('=');
            write_value(out, v, Ctx::Cell);
        }
        if let Some(sub) = &layout.subs[c] {
            out.push_str("[]{");
            for (i, sc) in sub.columns.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_path(out, sc);
            }
            out.push('}');
        }
    }
    out.push('}');
}

/// One row's cells (constant columns take none), comma-separated, trailing
/// empty cells included; `sub_rows` tracks each sub-table's next row.
fn cells(line: &mut String, row: &[Option<&Value>], layout: &Layout, sub_rows: &mut [usize]) {
    cells_but(line, row, layout, sub_rows, &[]);
}

/// `cells`, with the columns `blank[c]` left empty (a nested table's
/// group columns after a group's first row).
fn cells_but(
    line: &mut String,
    row: &[Option<&Value>],
    layout: &Layout,
    sub_rows: &mut [usize],
    blank: &[bool],
) {
    let mut written = 0;
    for (c, cell) in row.iter().enumerate() {
        if layout.consts[c].is_some() {
            continue;
        }
        if written > 0 {
            line.push(',');
        }
        written += 1;
        if blank.get(c).copied().unwrap_or(false) {
            continue;
        }
        match (cell, &layout.subs[c]) {
            (Some(Value::Array(items)), Some(sub)) => {
                line.push('[');
                for i in 0..items.len() {
                    if i > 0 {
                        line.push(',');
                    }
                    write_cells(line, &sub.rows[sub_rows[c] + i], '[', ']');
                }
                sub_rows[c] += items.len();
                line.push(']');
            }
            (Some(v), _) => write_value(line, v, Ctx::Cell),
            (None, _) => {}
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NESTED: Tuning = Tuning { nested_tables: true, ..DEFAULT };
    const DEFAULT: Tuning = Tuning {
        section_min_lines: 3,
        table_min_fill: 0.3,
        table_max_nested_share: 0.5,
        nested_tables: false,
    };

    #[test]
    fn records_of_records_as_one_table() {
        let doc = json!({"Reservations": [
            {"ReservationId": "r-1", "OwnerId": "42", "Instances": [
                {"Id": "i-1", "Type": "t3", "Tags": [{"k": "a"}]}, {"Id": "i-2", "Type": "t3"}]},
            {"ReservationId": "r-2", "OwnerId": "42", "Instances": [{"Id": "i-3", "Type": "m5"}]},
            {"ReservationId": "r-3", "OwnerId": "42", "Instances": [{"Id": "i-4", "Type": "t3"}]}
        ]});
        let (text, nested) = encode_counted(&doc, NESTED);
        assert!(nested);
        assert_eq!(
            text,
            "Reservations[3]{ReservationId,OwnerId=\"42\"}.Instances[4]{Id,^Type,Tags}:\n\
             2,r-1,i-1,t3,[{k:a}]\n\
             ,,i-2\n\
             1,r-2,i-3,m5\n\
             1,r-3,i-4,t3\n"
        );
        assert_eq!(crate::json::decode::decode(&text).unwrap(), doc);
        // Off by default, and only where the inner records make a table.
        assert!(!encode_counted(&doc, DEFAULT).1);
        assert!(!encode_counted(&json!([{"a": 1, "xs": [1, 2]}, {"a": 2, "xs": [3]}]), NESTED).1);
    }

    #[test]
    fn children_deeper_in_the_record_and_the_largest_ones() {
        // Containers (large records) under `spec`, beside small conditions;
        // the second pod's `spec` holds only its containers.
        let doc = json!({"items": [
            {"name": "a", "spec": {"node": "n1", "containers": [
                {"image": "nginx", "name": "web", "port": 80}, {"image": "envoy", "name": "proxy", "port": 9901}]},
             "conditions": [{"type": "Ready"}, {"type": "Scheduled"}]},
            {"name": "b", "spec": {"containers": [{"image": "redis", "name": "cache", "port": 6379}]},
             "conditions": [{"type": "Ready"}]}
        ]});
        let (text, nested) = encode_counted(&doc, NESTED);
        assert!(nested);
        assert!(
            text.starts_with(
                "items[2]{name,spec.node,conditions[]{type}}.spec.containers[3]{image,name,port}:\n"
            ),
            "{text}"
        );
        assert_eq!(crate::json::decode::decode(&text).unwrap(), doc);
    }

    #[test]
    fn a_wide_table_names_columns_its_rows_lack_after_its_own() {
        let doc = json!({"Items": [{"a": 1, "b": 2}, {"a": 3}]});
        let wide = vec![(
            vec![Seg::Key("Items".into())],
            vec![
                vec![Seg::Key("c".into())],
                vec![Seg::Key("a".into())],
                vec![Seg::Key("d".into()), Seg::Key("e".into())],
            ],
        )];
        let text = encode_wide(&doc, DEFAULT, &wide);
        assert_eq!(text, "Items[2]{a,b,c,d.e}:\n1,2\n3\n");
        assert_eq!(crate::json::decode::decode(&text).unwrap(), doc);
        // Elsewhere nothing changes.
        assert_eq!(encode_wide(&json!({"X": [{"a": 1}, {"a": 2}]}), DEFAULT, &wide), "X[2]{a}:\n1\n2\n");
    }

    #[test]
    fn a_capped_rendering_is_the_whole_one_or_none_whatever_stops_it() {
        // Arrays long enough to be checked against the cap before their
        // table is built: records with constant columns (hoisted), records
        // holding records (nested tables), sparse ones (sections), scalars.
        let n = HOPELESS_MIN_ITEMS as u64 + 6;
        let flat: Vec<Value> = (0..n)
            .map(|i| json!({"id": format!("i-{i}"), "kind": "t3", "cores": [1, 2], "n": i % 3}))
            .collect();
        let holding: Vec<Value> = (0..n)
            .map(|i| json!({"r": i, "owner": "42", "xs": [{"id": i, "t": "a"}, {"id": i + 1, "t": "b"}]}))
            .collect();
        let sparse: Vec<Value> =
            (0..n).map(|i| json!({format!("k{i}"): i, "z": {"deep": {"er": i}}})).collect();
        let docs = [
            json!({"Items": flat, "Next": "tok"}),
            json!({"Reservations": holding}),
            json!(sparse),
            json!({"meta": {"a": 1}, "list": (0..n).collect::<Vec<_>>()}),
        ];
        for doc in &docs {
            for tuning in [DEFAULT, NESTED] {
                let whole = encode(doc, tuning);
                let len = crate::budget::chars(&whole);
                for cap in [0, 1, 10, len / 4, len / 2, len - 1, len, len + 1, 10 * len] {
                    let expected = (len <= cap).then(|| whole.clone());
                    assert_eq!(encode_within(doc, tuning, cap), expected, "cap {cap} of {len}: {whole}");
                }
            }
        }
    }

    #[test]
    fn nested_rows_must_match_their_counts() {
        for bad in [
            "R[2]{a}.I[3]{x}:\n2,p,1\n,,2\n,,3\n",
            "R[1]{a}.I[2]{x}:\n,p,1\n1,q,2\n",
            "R[2]{a}.I[2]{x}:\n1,p,1\n,,2\n",
        ] {
            assert!(crate::json::decode::decode(bad).is_err(), "{bad}");
        }
    }
}
