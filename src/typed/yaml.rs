//! YAML for a JSON value, for `--format yaml`: block mappings and
//! sequences, two-space indentation, every scalar written as JSON (YAML 1.2
//! reads a JSON scalar as the same value; strings are always double-quoted,
//! so no word is mistaken for a boolean or a number). No crate: serde_yaml
//! is unmaintained, and JSON's own quoting is the escaping YAML needs.

use serde_json::Value;

pub fn encode(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => mapping(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => sequence(&mut out, a, 0),
        _ => {
            out.push_str(&v.to_string());
            out.push('\n');
        }
    }
    out
}

fn is_block(v: &Value) -> bool {
    matches!(v, Value::Object(m) if !m.is_empty()) || matches!(v, Value::Array(a) if !a.is_empty())
}

fn mapping(out: &mut String, m: &serde_json::Map<String, Value>, indent: usize) {
    for (k, v) in m {
        out.push_str(&" ".repeat(indent));
        out.push_str(&Value::String(k.clone()).to_string());
        out.push(':');
        value(out, v, indent);
    }
}

fn sequence(out: &mut String, a: &[Value], indent: usize) {
    for v in a {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match v {
            // `- "k": v` with the mapping's other keys under it
            Value::Object(m) if !m.is_empty() => {
                let mut inner = String::new();
                mapping(&mut inner, m, indent + 2);
                out.push(' ');
                out.push_str(&inner[indent + 2..]);
            }
            _ => value(out, v, indent),
        }
    }
}

/// After `key:` or `-`: a scalar on the same line, a block below.
fn value(out: &mut String, v: &Value, indent: usize) {
    if is_block(v) {
        out.push('\n');
        match v {
            Value::Object(m) => mapping(out, m, indent + 2),
            Value::Array(a) => sequence(out, a, indent + 2),
            _ => {}
        }
    } else {
        out.push(' ');
        out.push_str(&v.to_string());
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_and_scalars() {
        let v = json!({"status": "failed", "n": 3, "none": null, "counts": {}, "findings": [
            {"kind": "error", "line": 4, "tags": ["a", "b"]}, "x\ny"
        ], "list": [[1, 2], []]});
        let y = encode(&v);
        assert_eq!(
            y,
            "\"status\": \"failed\"\n\"n\": 3\n\"none\": null\n\"counts\": {}\n\"findings\":\n  - \"kind\": \"error\"\n    \"line\": 4\n    \"tags\":\n      - \"a\"\n      - \"b\"\n  - \"x\\ny\"\n\"list\":\n  -\n    - 1\n    - 2\n  - []\n"
        );
    }
}
