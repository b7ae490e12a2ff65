//! What every JSON view must be, checked against its raw document: the
//! budget view (`check_view`: the outline's figures recomputed, the rows
//! shown are the raw's rows, a table names every column) and the focus
//! view (`check_focus`: the fields it leaves out are named, and its
//! command prints exactly their values). Shared by tests/view.rs,
//! tests/focus.rs and tests/view_guard.rs (every budget).

use std::collections::BTreeMap;

use serde_json::Value;
use tokensieve::settings::Settings;

/// fixture path (under fixtures/json) → its command, from MANIFEST.tsv.
pub fn manifest_commands() -> std::collections::HashMap<String, String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/json");
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            Some((cols.first()?.to_string(), cols.get(2)?.to_string()))
        })
        .collect()
}

/// One step of a jq path as views write them.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
    Each,
}

/// `.a."b c"[0][].d` → steps; returns the rest of the text after the path.
pub fn jq_path(s: &str) -> (Vec<Step>, &str) {
    let b = s.as_bytes();
    let mut steps = Vec::new();
    let mut i = 0;
    assert_eq!(b[0], b'.', "a jq path: {s}");
    if b.len() == 1 || b[1] == b' ' || b[1] == b':' {
        return (steps, &s[1..]);
    }
    while i < b.len() && b[i] != b' ' && b[i] != b':' {
        match b[i] {
            b'.' if b.get(i + 1) == Some(&b'"') => {
                let mut de = serde_json::Deserializer::from_str(&s[i + 1..]).into_iter::<String>();
                let k = de.next().unwrap().unwrap();
                i += 1 + de.byte_offset();
                steps.push(Step::Key(k));
            }
            b'.' if b.get(i + 1) == Some(&b'[') => i += 1,
            b'.' => {
                let end = s[i + 1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(s.len(), |e| e + i + 1);
                steps.push(Step::Key(s[i + 1..end].to_owned()));
                i = end;
            }
            b'[' if b.get(i + 1) == Some(&b']') => {
                steps.push(Step::Each);
                i += 2;
            }
            b'[' => {
                let end = s[i..].find(']').unwrap() + i;
                steps.push(Step::Index(s[i + 1..end].parse().unwrap()));
                i = end + 1;
            }
            _ => panic!("unexpected {:?} in path {s}", b[i] as char),
        }
    }
    (steps, &s[i..])
}

/// Every value at `steps` (keys that exist, every element for `[]`).
pub fn values_at<'a>(doc: &'a Value, steps: &[Step]) -> Vec<&'a Value> {
    let mut cur = vec![doc];
    for step in steps {
        cur = cur
            .into_iter()
            .flat_map(|v| -> Vec<&Value> {
                match (step, v) {
                    (Step::Key(k), Value::Object(m)) => m.get(k).into_iter().collect(),
                    (Step::Index(i), Value::Array(a)) => a.get(*i).into_iter().collect(),
                    (Step::Each, Value::Array(a)) => a.iter().collect(),
                    _ => vec![],
                }
            })
            .collect();
    }
    cur
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
    }
}

pub fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| v.to_string().parse().unwrap())
}

/// Checks one outline line against the raw document.
pub fn check_outline_line(doc: &Value, line: &str) {
    let (steps, rest) = jq_path(line);
    let found = values_at(doc, &steps);
    let mut words = rest.trim_start().splitn(3, ' ');
    let types = words.next().unwrap();
    let count: usize = words.next().unwrap().parse().unwrap();
    assert_eq!(count, found.len(), "{line}: count");
    let mut seen: Vec<&str> = Vec::new();
    for v in &found {
        if !seen.contains(&type_name(v)) {
            seen.push(type_name(v));
        }
    }
    let mut listed: Vec<&str> = types.split('|').collect();
    listed.sort();
    seen.sort();
    assert_eq!(listed, seen, "{line}: types");
    let scalars: Vec<&Value> = found.iter().copied().filter(|v| !v.is_object() && !v.is_array()).collect();
    let key = |v: &Value| format!("{}:{}", type_name(v), v);
    let mut fields = words.next().unwrap_or("");
    while !fields.is_empty() {
        let (name, after) = fields.split_once('=').unwrap();
        let mut de = serde_json::Deserializer::from_str(after).into_iter::<Value>();
        let value = de.next().unwrap().unwrap();
        fields = after[de.byte_offset()..].trim_start();
        match name {
            "items" => {
                let n: usize = found.iter().filter_map(|v| v.as_array()).map(Vec::len).sum();
                assert_eq!(value, n, "{line}: items");
            }
            "distinct" => {
                let mut keys: Vec<String> = scalars.iter().map(|v| key(v)).collect();
                keys.sort();
                keys.dedup();
                assert_eq!(value, keys.len(), "{line}: distinct");
            }
            "min" | "max" => {
                let nums: Vec<f64> = scalars.iter().filter(|v| v.is_number()).map(|v| num(v)).collect();
                if value.is_number() {
                    let want = if name == "min" {
                        nums.iter().cloned().fold(f64::INFINITY, f64::min)
                    } else {
                        nums.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
                    };
                    assert_eq!(num(&value), want, "{line}: {name}");
                    assert!(scalars.contains(&&value), "{line}: {name} is a value of the raw");
                } else {
                    let strs = scalars.iter().filter_map(|v| v.as_str());
                    let want = if name == "min" { strs.min() } else { strs.max() };
                    assert_eq!(value.as_str(), want, "{line}: {name}");
                }
            }
            "top" => {
                let mut counts: std::collections::HashMap<String, usize> = Default::default();
                for v in &scalars {
                    *counts.entry(key(v)).or_default() += 1;
                }
                let pairs = value.as_array().unwrap();
                let mut least = usize::MAX;
                for p in pairs {
                    let c = p[1].as_u64().unwrap() as usize;
                    assert_eq!(counts.remove(&key(&p[0])), Some(c), "{line}: top {p}");
                    least = least.min(c);
                }
                assert!(counts.values().all(|&c| c <= least), "{line}: an unlisted value is more frequent");
            }
            other => panic!("{line}: unknown field {other}"),
        }
    }
}

/// `# rows PATH: N of M shown (RANGES)...` → (steps, shown rows, M).
pub fn rows_note(line: &str) -> (Vec<Step>, Vec<usize>, usize) {
    let rest = line.strip_prefix("# rows ").unwrap();
    let (steps, after) = jq_path(rest);
    let after = after.strip_prefix(": ").unwrap_or(after.trim_start_matches(':').trim_start());
    let mut w = after.split(' ');
    let n: usize = w.next().unwrap().parse().unwrap();
    assert_eq!(w.next(), Some("of"));
    let m: usize = w.next().unwrap().trim_end_matches(';').parse().unwrap();
    let mut rows = Vec::new();
    if let Some(open) = after.find(" shown (") {
        let inner = &after[open + 8..after[open..].find(')').unwrap() + open];
        for part in inner.split(',') {
            match part.split_once('-') {
                Some((a, b)) => rows.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
                None => rows.push(part.parse().unwrap()),
            }
        }
    }
    assert_eq!(rows.len(), n, "{line}");
    (steps, rows, m)
}

/// `doc` with the array at each path down to the given rows.
pub fn slice(doc: &Value, cuts: &[(Vec<Step>, Vec<usize>)], at: &mut Vec<Step>) -> Value {
    if let Some((_, rows)) = cuts.iter().find(|(p, _)| p == at) {
        let a = doc.as_array().unwrap();
        return Value::Array(rows.iter().map(|&i| a[i].clone()).collect());
    }
    match doc {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| {
                    at.push(Step::Key(k.clone()));
                    let out = slice(v, cuts, at);
                    at.pop();
                    (k.clone(), out)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, v)| {
                    at.push(Step::Index(i));
                    let out = slice(v, cuts, at);
                    at.pop();
                    out
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `path[N]{a,b=1,^c,d[]{x,y}}:` → (N, the column paths as written:
/// `a`, `b`, `c`, `d`); `None` for a line that is not a table header.
pub fn table_header(line: &str) -> Option<(usize, Vec<String>)> {
    let body = line.strip_suffix("}:")?;
    // The header's `[N]{` is the first one outside quotes.
    let (mut quoted, mut open) = (false, None);
    for (i, c) in body.char_indices() {
        match c {
            '"' if !body[..i].ends_with('\\') => quoted = !quoted,
            '[' if !quoted => {
                let digits = body[i + 1..].find(|c: char| !c.is_ascii_digit())? + i + 1;
                if digits > i + 1 && body[digits..].starts_with("]{") {
                    open = Some((body[i + 1..digits].parse().ok()?, digits + 2));
                    break;
                }
            }
            _ => {}
        }
    }
    let (n, start) = open?;
    // Columns split at commas outside quotes and brackets; each one's path
    // ends at its first `=` (a constant) or `[` (a sub-table) outside quotes.
    let (mut tokens, mut cur, mut depth, mut quoted, mut prev) = (Vec::new(), String::new(), 0, false, ' ');
    for c in body[start..].chars() {
        match c {
            '"' if prev != '\\' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                tokens.push(std::mem::take(&mut cur));
                prev = c;
                continue;
            }
            _ => {}
        }
        cur.push(c);
        prev = c;
    }
    tokens.push(cur);
    let path_of = |t: &str| {
        let t = t.trim_start_matches('^');
        let (mut quoted, mut prev) = (false, ' ');
        for (i, c) in t.char_indices() {
            match c {
                '"' if prev != '\\' => quoted = !quoted,
                '=' | '[' if !quoted => return t[..i].to_owned(),
                _ => {}
            }
            prev = c;
        }
        t.to_owned()
    };
    Some((n, tokens.iter().map(|t| path_of(t)).collect()))
}

/// Every check a JSON view must pass against its raw document; returns how
/// many of its tables' headers were checked against their whole array.
pub fn check_view(name: &str, raw: &[u8], view: &str) -> usize {
    let doc = tokensieve::json::parse(raw).unwrap();
    let reduced = tokensieve::json::reduce(doc.clone(), &Settings::default());
    let headers: Vec<(usize, Vec<String>)> = view.lines().filter_map(table_header).collect();
    let mut cuts = Vec::new();
    let mut tables = 0;
    let mut body = String::new();
    for line in view.lines() {
        if line.starts_with("# rows ") {
            let (steps, rows, m) = rows_note(line);
            let arr = values_at(&doc, &steps);
            assert_eq!(arr.len(), 1, "{name}: {line}");
            assert_eq!(arr[0].as_array().unwrap().len(), m, "{name}: {line}: total rows");
            // A table of the rows shown names every column of the array
            // (as the lossless output would), not only the shown rows' ones.
            if let [Value::Array(all)] = values_at(&reduced, &steps)[..] {
                let want: Vec<String> = tokensieve::json::flatten::columns(all)
                    .iter()
                    .map(|p| {
                        let mut s = String::new();
                        tokensieve::json::literal::write_path(&mut s, p);
                        s
                    })
                    .collect();
                let mut want_sorted = want.clone();
                want_sorted.sort();
                for (n, cols) in headers.iter().filter(|(n, _)| *n == rows.len()) {
                    if cols.iter().all(|c| want.contains(c)) {
                        let mut got = cols.clone();
                        got.sort();
                        assert_eq!(
                            got, want_sorted,
                            "{name}: {line}: the header lists every column ({n} rows)"
                        );
                        tables += 1;
                    }
                }
            }
            cuts.push((steps, rows));
        } else if line.starts_with('#') {
        } else if line.starts_with('.') {
            check_outline_line(&doc, line);
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    let expected = tokensieve::json::reduce(slice(&doc, &cuts, &mut Vec::new()), &Settings::default());
    if view.lines().any(|l| l.starts_with("# … ") && l.contains(" more lines of this view not shown")) {
        // Not even the outline and no rows fit: the view's own lines, cut
        // (rows notes and body too, perhaps all of it). What is shown must
        // be the start of the sliced document, nothing invented: its
        // longest decodable start lies within it.
        let lines: Vec<&str> = body.lines().collect();
        if lines.is_empty() {
            return tables;
        }
        let shown = (1..=lines.len())
            .rev()
            .find_map(|n| tokensieve::json::decode::decode(&lines[..n].join("\n")).ok())
            .unwrap_or_else(|| panic!("{name}: nothing of the cut body decodes:\n{body}"));
        assert!(within(&shown, &expected), "{name}: the cut body is not of the raw's rows:\n{body}");
        return tables;
    }
    assert!(!cuts.is_empty(), "{name}: a view without rows notes");
    let shown = tokensieve::json::decode::decode(&body).unwrap_or_else(|e| panic!("{name}: body: {e:#}"));
    assert_eq!(shown, expected, "{name}: the rows shown are not the raw's rows");
    tables
}

/// Whether `part` is a start of `whole`: its members are `whole`'s (each a
/// start of the same member), its items the first of `whole`'s, its
/// scalars equal.
pub fn within(part: &Value, whole: &Value) -> bool {
    match (part, whole) {
        (Value::Object(p), Value::Object(w)) => p.iter().all(|(k, v)| w.get(k).is_some_and(|x| within(v, x))),
        (Value::Array(p), Value::Array(w)) => {
            p.len() <= w.len() && p.iter().zip(w).all(|(a, b)| within(a, b))
        }
        (p, w) => p == w,
    }
}

/// Every non-null scalar of `v` by generalised path (`a[].b`), as JSON text.
pub fn leaves(v: &Value, path: &mut String, out: &mut BTreeMap<String, Vec<String>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                leaves(x, path, out);
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            let len = path.len();
            path.push_str("[]");
            for x in items {
                leaves(x, path, out);
            }
            path.truncate(len);
        }
        Value::Null => {}
        leaf => out.entry(path.clone()).or_default().push(leaf.to_string()),
    }
}

pub fn multiset(v: &Value, prefix: &str) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    leaves(v, &mut prefix.to_string(), &mut out);
    for vals in out.values_mut() {
        vals.sort();
    }
    out
}

/// The records path and the jq program of a focus header line.
pub fn header(line: &str) -> (String, String, bool) {
    let records = line.strip_prefix("# view: focus on ").unwrap().split(' ').next().unwrap().to_string();
    let at = line.find("--jq '").expect("the header gives a --jq command");
    let quoted = &line[at + 5..];
    let program = quoted[1..quoted.len() - 1].replace(r"'\''", "'");
    (records, program, line.contains("--slurp --jq"))
}

/// `.Vpcs[]` → `.Vpcs[]`; `.` → ``: the prefix of printed leaves' paths.
pub fn prefix(records: &str) -> String {
    match records {
        "." => String::new(),
        r if r.starts_with(".[") => r[1..].to_string(),
        r => r.to_string(),
    }
}

/// The first key of each record (a top-level value, or an object in an
/// array): where the program puts the record's id.
pub fn ids(v: &Value, path: &mut String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(k) = m.keys().next()
                && !out.contains(&format!("{path}.{k}"))
            {
                out.push(format!("{path}.{k}"));
            }
            for (k, x) in m {
                let len = path.len();
                path.push('.');
                path.push_str(k);
                if let Value::Array(items) = x {
                    path.push_str("[]");
                    for i in items {
                        ids(i, path, out);
                    }
                } else if let Value::Object(_) = x {
                    nested(x, path, out);
                }
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            path.push_str("[]");
            for i in items {
                ids(i, path, out);
            }
        }
        _ => {}
    }
}

/// An object inside a record: only its arrays hold records.
pub fn nested(v: &Value, path: &mut String, out: &mut Vec<String>) {
    if let Value::Object(m) = v {
        for (k, x) in m {
            let len = path.len();
            path.push('.');
            path.push_str(k);
            match x {
                Value::Array(items) => {
                    path.push_str("[]");
                    for i in items {
                        ids(i, path, out);
                    }
                }
                Value::Object(_) => nested(x, path, out),
                _ => {}
            }
            path.truncate(len);
        }
    }
}

/// Every check a focus view (`# view: focus on RECORDS … --jq 'PROGRAM'`)
/// must pass against its raw document `doc`, given what its command prints
/// (`answer`, decoded): (1) the command prints exactly every value of each
/// field it names, (2) every value of the document is shown or printed,
/// (3) a printed field is left out of the body in some records at least,
/// but for the records' id.
pub fn check_focus(name: &str, doc: &Value, view: &str, answer: Value) {
    let (records, program, _) = header(view.lines().next().unwrap_or_default());
    let values = match answer {
        Value::Array(items) if records != "." => items,
        one => vec![one],
    };
    let mut printed: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut firsts: Vec<String> = Vec::new();
    for v in values {
        ids(&v, &mut prefix(&records), &mut firsts);
        for (p, vals) in multiset(&v, &prefix(&records)) {
            printed.entry(p).or_default().extend(vals);
        }
    }
    for vals in printed.values_mut() {
        vals.sort();
    }
    let all = multiset(&tokensieve::json::sieve::sieve(doc.clone()), "");
    for (p, vals) in &printed {
        assert_eq!(Some(vals), all.get(p), "{name}: `{program}` prints {p} not as the document has it");
    }
    let body: String =
        view.lines().skip(1).filter(|l| !l.starts_with("exit ")).collect::<Vec<_>>().join("\n");
    let decoded =
        tokensieve::json::decode::decode(&body).unwrap_or_else(|e| panic!("{name}: the body: {e:#}\n{body}"));
    let shown = multiset(&tokensieve::json::sieve::sieve(decoded), "");
    for (p, vals) in &all {
        let seen = shown.get(p).map_or(0, Vec::len) + printed.get(p).map_or(0, Vec::len);
        assert!(seen >= vals.len(), "{name}: {p} is neither shown nor printed by `{program}`");
    }
    for (p, vals) in &printed {
        let in_body = shown.get(p).map_or(0, Vec::len);
        if in_body >= vals.len() {
            assert!(firsts.contains(p), "{name}: {p} is printed by `{program}` but also shown in full");
        }
    }
}
