//! Seed 000's PVFN, Path-Value Flattened Notation (docs/FORMAT.md §3): an
//! `@map` of abbreviations for long repeated keys, one `path=value` line per
//! leaf, and hybrid Schema-YAML blocks for dense arrays of records.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::flatten;
use super::literal::{Ctx, Seg, key_bare_ok, write_path, write_value};
use super::schema_yaml;

/// Encodes `value` as PVFN.
pub fn encode(value: &Value) -> String {
    // Pass 1 counts the keys as they appear in written paths (a prefix key
    // repeats on every line below it); pass 2 writes with the map.
    let mut uses = Vec::new();
    walk(value, &mut Vec::new(), &HashMap::new(), &mut String::new(), &mut uses);
    let abbrev = abbreviations(value, &uses);
    let mut out = String::new();
    if !abbrev.is_empty() {
        out.push_str("@map\n");
        for (key, short) in &abbrev {
            out.push_str(&format!("{short}={key}\n"));
        }
        out.push('\n');
    }
    let lookup: HashMap<&str, &str> = abbrev.iter().map(|(k, s)| (k.as_str(), s.as_str())).collect();
    walk(value, &mut Vec::new(), &lookup, &mut out, &mut Vec::new());
    out
}

fn walk(
    v: &Value,
    path: &mut Vec<Seg>,
    abbrev: &HashMap<&str, &str>,
    out: &mut String,
    uses: &mut Vec<String>,
) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, child) in m {
                let seg = abbrev.get(k.as_str()).map_or_else(|| k.clone(), |s| s.to_string());
                path.push(Seg::Key(seg));
                walk(child, path, abbrev, out, uses);
                path.pop();
            }
        }
        Value::Array(items) if !items.is_empty() => {
            // A dense record array below the root is a hybrid block.
            if !path.is_empty()
                && items.len() >= 2
                && let Some(table) = flatten::flatten(items).filter(|t| t.fill() >= schema_yaml::MIN_FILL)
            {
                note_uses(path, uses);
                write_path(out, path);
                out.push_str(":\n");
                schema_yaml::encode_block(out, &table);
                return;
            }
            for (i, item) in items.iter().enumerate() {
                path.push(Seg::Index(i));
                walk(item, path, abbrev, out, uses);
                path.pop();
            }
        }
        _ if path.is_empty() => out.push_str(&v.to_string()),
        _ => {
            note_uses(path, uses);
            write_path(out, path);
            out.push('=');
            write_value(out, v, Ctx::Line);
            out.push('\n');
        }
    }
}

fn note_uses(path: &[Seg], uses: &mut Vec<String>) {
    uses.extend(path.iter().filter_map(|s| match s {
        Seg::Key(k) => Some(k.clone()),
        Seg::Index(_) => None,
    }));
}

/// Keys written at least twice in paths and at least 7 characters long get a
/// camelCase initialism (`NetworkInterfaces` → `NI`, `security_groups` →
/// `sg`); a collision with any real key or another abbreviation gets a digit
/// suffix, so decoding can expand every bare segment that matches.
pub fn abbreviations(value: &Value, uses: &[String]) -> Vec<(String, String)> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut order = Vec::new();
    for k in uses {
        let c = counts.entry(k.as_str()).or_insert(0);
        if *c == 0 {
            order.push(k.as_str());
        }
        *c += 1;
    }
    let mut real = HashSet::new();
    all_keys(value, &mut real);
    let mut taken: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for key in order {
        if counts[key] < 2 || key.chars().count() < 7 || !key_bare_ok(key) {
            continue;
        }
        let base = initialism(key);
        // Digits only (`0_______` → `0`) would stay digits whatever suffix
        // is added, and a digit-only segment reads as an index: no
        // abbreviation, rather than a search that never ends.
        if !key_bare_ok(&base) {
            continue;
        }
        let mut short = base.clone();
        let mut n = 2;
        while real.contains(short.as_str()) || taken.contains(&short) || !key_bare_ok(&short) {
            short = format!("{base}{n}");
            n += 1;
        }
        if short.len() < key.len() {
            taken.insert(short.clone());
            out.push((key.to_owned(), short));
        }
    }
    out
}

fn all_keys<'a>(v: &'a Value, keys: &mut HashSet<&'a str>) {
    match v {
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            keys.insert(k.as_str());
            all_keys(x, keys);
        }),
        Value::Array(a) => a.iter().for_each(|x| all_keys(x, keys)),
        _ => {}
    }
}

/// `NetworkInterfaces` → `NI`, `cluster_id` → `ci`, `SSEDescription` → `SSED`.
fn initialism(key: &str) -> String {
    let mut out = String::new();
    let mut prev: Option<char> = None;
    for c in key.chars() {
        let starts_word = match prev {
            None => true,
            Some(p) => {
                (c.is_uppercase() && !p.is_uppercase()) || (!matches!(p, 'a'..='z' | 'A'..='Z' | '0'..='9'))
            }
        };
        let in_capitals = c.is_uppercase() && prev.is_some_and(char::is_uppercase);
        if (starts_word && c.is_alphanumeric()) || in_capitals {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn initialisms() {
        assert_eq!(initialism("NetworkInterfaces"), "NI");
        assert_eq!(initialism("SecurityGroups"), "SG");
        assert_eq!(initialism("cluster_id"), "ci");
    }

    #[test]
    fn collisions_get_a_suffix() {
        let v = json!({"SG": 1, "a": [{"SecurityGroups": [1]}, {"SecurityGroups": [2]}]});
        let uses = vec!["SecurityGroups".to_string(), "SecurityGroups".to_string()];
        assert_eq!(abbreviations(&v, &uses), vec![("SecurityGroups".to_string(), "SG2".to_string())]);
        let v = json!({"SG": 1, "x": {"SecurityGroups": 1}, "y": {"SecurityGroups": 2}});
        let text = encode(&v);
        assert_eq!(text, "@map\nSG2=SecurityGroups\n\nSG=1\nx.SG2=1\ny.SG2=2\n");
        assert_eq!(crate::json::decode::decode(&text).unwrap(), v);
    }

    #[test]
    fn a_key_whose_initialism_is_digits_gets_no_abbreviation() {
        let v = json!({"a": {"0_______": 1}, "b": {"0_______": 2}});
        let uses = vec!["0_______".to_string(), "0_______".to_string()];
        assert_eq!(abbreviations(&v, &uses), vec![]);
        assert_eq!(crate::json::decode::decode(&encode(&v)).unwrap(), v);
    }

    #[test]
    fn seed_example_shape() {
        let v = json!({"instance": {"InstanceId": "i-abc123", "SecurityGroups": [
            {"GroupId": "sg-abc", "GroupName": "web-sg"}, {"GroupId": "sg-def", "GroupName": "db-sg"}]}});
        assert_eq!(
            encode(&v),
            "@map\ni=instance\n\ni.InstanceId=i-abc123\ni.SecurityGroups:\nschema:[GroupId, GroupName]\ndata:\n- [sg-abc, web-sg]\n- [sg-def, db-sg]\n"
        );
    }
}
