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
    let mut index: HashMap<Vec<Seg>, usize> = HashMap::new();
    let mut columns = Vec::new();
    let mut leaves = Vec::new();
    for rec in records {
        let map = rec.as_object().filter(|m| !m.is_empty())?;
        let mut row = Vec::new();
        walk(map, &mut Vec::new(), &mut row);
        let mut cells = Vec::with_capacity(row.len());
        for (path, v) in row {
            let next = columns.len();
            let c = *index.entry(path.clone()).or_insert(next);
            if c == next {
                columns.push(path);
            }
            cells.push((c, v));
        }
        leaves.push(cells);
    }
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

fn walk<'a>(map: &'a Map<String, Value>, prefix: &mut Vec<Seg>, out: &mut Vec<(Vec<Seg>, &'a Value)>) {
    for (k, v) in map {
        prefix.push(Seg::Key(k.clone()));
        match v {
            Value::Object(m) if !m.is_empty() => walk(m, prefix, out),
            _ => out.push((prefix.clone(), v)),
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
    fn non_records_are_refused() {
        assert!(flatten(json!([{"a": 1}, 2]).as_array().unwrap()).is_none());
        assert!(flatten(json!([{"a": 1}, {}]).as_array().unwrap()).is_none());
    }
}
