//! Seed 000's Schema-YAML (docs/FORMAT.md §4): the keys of a record array once
//! in `schema:`, then one flow sequence per record under `data:` (`-` marks a
//! missing cell). Used at the root and as PVFN's hybrid blocks.

use serde_json::Value;

use super::flatten::Table;
use super::literal::{Ctx, write_path, write_value};

/// Seed 000's sparsity guard: below this fill, `-` fillers cost more than the
/// repeated keys they save.
pub const MIN_FILL: f64 = 0.55;

/// Root form: optional `Wrapper:` line, a `schema:` list, `data:` rows.
pub fn encode_root(wrapper: Option<&str>, table: &Table) -> String {
    let mut out = String::new();
    if let Some(w) = wrapper {
        super::literal::write_key(&mut out, w);
        out.push_str(":\n");
    }
    out.push_str("schema:\n");
    for col in &table.columns {
        out.push_str("- ");
        write_path(&mut out, col);
        out.push('\n');
    }
    out.push_str("data:\n");
    rows(&mut out, table);
    out
}

/// Hybrid form inside PVFN, after the `path:` line: `schema:[a, b]`, `data:`, rows.
pub fn encode_block(out: &mut String, table: &Table) {
    out.push_str("schema:[");
    for (i, col) in table.columns.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_path(out, col);
    }
    out.push_str("]\ndata:\n");
    rows(out, table);
}

fn rows(out: &mut String, table: &Table) {
    for row in &table.rows {
        out.push_str("- [");
        for (i, cell) in row.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match cell {
                Some(v) => write_value(out, v, Ctx::Cell),
                None => out.push('-'),
            }
        }
        out.push_str("]\n");
    }
}

/// Seed 000's root test: an array of objects, or a single-key object wrapping
/// one, with a dense union schema.
pub fn root_records(value: &Value) -> Option<(Option<&str>, &[Value])> {
    match value {
        Value::Array(items) if !items.is_empty() => Some((None, items)),
        Value::Object(m) if m.len() == 1 => {
            let (k, v) = m.iter().next()?;
            let items = v.as_array().filter(|a| !a.is_empty())?;
            Some((Some(k.as_str()), items))
        }
        _ => None,
    }
}
