//! Records (an array of objects) as a table: one column per flattened leaf
//! path (nested objects become `a.b` columns; arrays stay whole, written
//! inline in their cell). Shared by the Outline tables and Schema-YAML.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::literal::Seg;

pub struct Table<'a> {
    /// Column paths, relative to the record, in first-seen order.
    pub columns: Vec<Vec<Seg>>,
    /// One row per record: the value of each column, `None` when absent.
    pub rows: Vec<Vec<Option<&'a Value>>>,
}

impl Table<'_> {
    /// Share of filled cells.
    pub fn fill(&self) -> f64 {
        let total = self.rows.len() * self.columns.len();
        if total == 0 {
            return 0.0;
        }
        let filled: usize = self.rows.iter().map(|r| r.iter().filter(|c| c.is_some()).count()).sum();
        filled as f64 / total as f64
    }

    /// The value of column `c` when every row holds that same value.
    pub fn constant(&self, c: usize) -> Option<&Value> {
        let first = self.rows.first()?[c]?;
        self.rows.iter().all(|r| r[c] == Some(first)).then_some(first)
    }
}

/// Flattens `records`; `None` when an element is not a non-empty object.
pub fn flatten<'a>(records: impl IntoIterator<Item = &'a Value>) -> Option<Table<'a>> {
    let mut cols = Columns::default();
    let mut leaves = Vec::new();
    let mut row = Vec::new();
    let mut prefix = Vec::new();
    for rec in records {
        let map = rec.as_object().filter(|m| !m.is_empty())?;
        row.clear();
        walk(map, &mut prefix, &mut |path, v| {
            let c = cols.find(path, row.last().map_or(0, |&(c, _)| c + 1));
            row.push((c, v));
        });
        leaves.push(row.clone());
    }
    let columns = cols.segs();
    let rows = leaves
        .into_iter()
        .map(|cells| {
            let mut row = vec![None; columns.len()];
            for (c, v) in cells {
                row[c] = Some(v);
            }
            row
        })
        .collect();
    Some(Table { columns, rows })
}

/// The columns `flatten` would give `records` (objects only; other
/// elements are skipped), without building the rows.
pub fn columns<'a>(records: impl IntoIterator<Item = &'a Value>) -> Vec<Vec<Seg>> {
    let mut cols = Columns::default();
    let mut prefix = Vec::new();
    for map in records.into_iter().filter_map(Value::as_object) {
        let mut last = None;
        walk(map, &mut prefix, &mut |path, _| {
            last = Some(cols.find(path, last.map_or(0, |c| c + 1)));
        });
    }
    cols.segs()
}

/// How many cells of `records` (objects; other elements are skipped) are
/// in columns that hold more than one value. A table, a section or a line
/// writes each such cell in at least one char (constant columns may go to
/// a header once; the sieve leaves no empty value), so this is a floor on
/// the length of any Outline of the records, found without building rows.
pub fn varying_cells<'a>(records: impl IntoIterator<Item = &'a Value>) -> usize {
    let mut cols = Columns::default();
    // Per column: its first value, how many cells, whether they differ.
    let mut seen: Vec<(&Value, usize, bool)> = Vec::new();
    let mut prefix = Vec::new();
    for map in records.into_iter().filter_map(Value::as_object) {
        let mut last = None;
        walk(map, &mut prefix, &mut |path, v| {
            let c = cols.find(path, last.map_or(0, |c| c + 1));
            last = Some(c);
            match seen.get_mut(c) {
                Some((first, n, differ)) => {
                    *n += 1;
                    *differ |= *first != v;
                }
                None => seen.push((v, 1, false)),
            }
        });
    }
    seen.iter().filter(|(_, _, differ)| *differ).map(|(_, n, _)| n).sum()
}

/// Column paths in first-seen order. Paths are borrowed key lists while
/// flattening; records of one array nearly always repeat the previous
/// record's columns in order, so each leaf first tries the column after
/// the previous leaf's, and only a miss builds a key for the index.
#[derive(Default)]
struct Columns<'a> {
    index: HashMap<Vec<&'a str>, usize>,
    paths: Vec<Vec<&'a str>>,
}

impl<'a> Columns<'a> {
    /// The column of `path`, added when new; `guess` is tried first.
    fn find(&mut self, path: &[&'a str], guess: usize) -> usize {
        if self.paths.get(guess).is_some_and(|p| p.as_slice() == path) {
            return guess;
        }
        let next = self.paths.len();
        let c = *self.index.entry(path.to_vec()).or_insert(next);
        if c == next {
            self.paths.push(path.to_vec());
        }
        c
    }

    fn segs(&self) -> Vec<Vec<Seg>> {
        self.paths.iter().map(|p| p.iter().map(|k| Seg::Key((*k).to_owned())).collect()).collect()
    }
}

/// Calls `leaf` with the key path and value of every leaf under `map`.
fn walk<'a>(
    map: &'a Map<String, Value>,
    prefix: &mut Vec<&'a str>,
    leaf: &mut impl FnMut(&[&'a str], &'a Value),
) {
    for (k, v) in map {
        prefix.push(k);
        match v {
            Value::Object(m) if !m.is_empty() => walk(m, prefix, leaf),
            _ => leaf(prefix, v),
        }
        prefix.pop();
    }
}

/// Number of scalar leaves under `v` (a container cell's weight).
pub fn leaves(v: &Value) -> usize {
    match v {
        Value::Object(m) => m.values().map(leaves).sum(),
        Value::Array(a) => a.iter().map(leaves).sum(),
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn union_of_flattened_columns() {
        let v = json!([{"a": 1, "b": {"c": 2}}, {"b": {"d": 3}, "e": [1, 2]}]);
        let t = flatten(v.as_array().unwrap()).unwrap();
        let names: Vec<String> = t.columns.iter().map(|p| format!("{p:?}")).collect();
        assert_eq!(names.len(), 4);
        assert_eq!(t.rows[1][0], None);
        assert!((t.fill() - 0.5).abs() < 1e-9);
    }

    #[test]
    fn varying_cells_leave_out_constant_columns() {
        let v =
            json!([{"a": 1, "b": {"c": "x"}, "d": [1]}, {"a": 2, "b": {"c": "x"}}, {"a": 3, "d": [2]}, 5]);
        // `a`: 3 cells that differ; `b.c` constant; `d`: 2 that differ.
        assert_eq!(varying_cells(v.as_array().unwrap()), 5);
        assert_eq!(varying_cells(json!([{"a": 1}, {"a": 1}]).as_array().unwrap()), 0);
    }

    #[test]
    fn non_records_are_refused() {
        assert!(flatten(json!([{"a": 1}, 2]).as_array().unwrap()).is_none());
        assert!(flatten(json!([{"a": 1}, {}]).as_array().unwrap()).is_none());
    }
}
