//! The budget (SPEC §6b) through the built binary: every fixture fits the
//! default budget, every figure a view shows is recomputed here from the raw
//! document, rows shown are the raw's rows, signal rows come first, and the
//! commands a view prints give the rest.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::receipt_field;
use serde_json::Value;
use tokensieve::settings::Settings;

fn run(home: &Path, args: &[&str], env: &[(&str, &str)], input: &[u8]) -> Output {
    let mut cmd = Command::new(common::BIN);
    cmd.args(args)
        .env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE_BUDGET")
        .env_remove("BASH_MAX_OUTPUT_LENGTH")
        .env_remove("TOKENSIEVE_TOKENIZER")
        // The budget view of the whole document; the focus view (which
        // takes its place when it fits) is tests/focus.rs's.
        .env("TOKENSIEVE_FOCUS", "off");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn fixtures() -> Vec<PathBuf> {
    common::json_fixtures()
}

/// One step of a jq path as views write them.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
    Each,
}

/// `.a."b c"[0][].d` → steps; returns the rest of the text after the path.
fn jq_path(s: &str) -> (Vec<Step>, &str) {
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
fn values_at<'a>(doc: &'a Value, steps: &[Step]) -> Vec<&'a Value> {
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

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Object(_) => "object",
        Value::Array(_) => "array",
    }
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| v.to_string().parse().unwrap())
}

/// Checks one outline line against the raw document.
fn check_outline_line(doc: &Value, line: &str) {
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
fn rows_note(line: &str) -> (Vec<Step>, Vec<usize>, usize) {
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
fn slice(doc: &Value, cuts: &[(Vec<Step>, Vec<usize>)], at: &mut Vec<Step>) -> Value {
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
fn table_header(line: &str) -> Option<(usize, Vec<String>)> {
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
fn check_view(name: &str, raw: &[u8], view: &str) -> usize {
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
    assert!(!cuts.is_empty(), "{name}: a view without rows notes");
    let shown = tokensieve::json::decode::decode(&body).unwrap_or_else(|e| panic!("{name}: body: {e:#}"));
    let expected = tokensieve::json::reduce(slice(&doc, &cuts, &mut Vec::new()), &Settings::default());
    assert_eq!(shown, expected, "{name}: the rows shown are not the raw's rows");
    tables
}

#[test]
fn every_fixture_fits_the_default_budget_and_views_are_true() {
    let home = tempfile::tempdir().unwrap();
    let (mut views, mut tables) = (0, 0);
    for f in fixtures() {
        let raw = std::fs::read(&f).unwrap();
        let out = run(home.path(), &[], &[], &raw);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let name = f.display().to_string();
        assert!(text.chars().count() <= 25_000, "{name}: {} chars", text.chars().count());
        let shape = receipt_field(&String::from_utf8(out.stderr).unwrap(), "Shape").unwrap();
        if shape.contains(" view ") {
            assert!(shape.starts_with("Outline view ") && shape.ends_with(" rows"), "{shape}");
            tables += check_view(&name, &raw, &text);
            views += 1;
        }
    }
    // describe-instance-types and describe-images are far over it.
    assert!(views >= 2, "{views} views");
    assert!(tables >= 2, "{tables} table headers checked");
}

#[test]
fn budget_off_is_the_lossless_output() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/json/aws/ec2-describe-images-owners-amazon.json"),
    )
    .unwrap();
    let off = run(home.path(), &[], &[("TOKENSIEVE_BUDGET", "off")], &raw);
    let text = String::from_utf8(off.stdout).unwrap();
    assert!(text.chars().count() > 100_000);
    let shape = receipt_field(&String::from_utf8(off.stderr).unwrap(), "Shape").unwrap();
    assert!(!shape.contains("view"), "{shape}");
    let decoded = tokensieve::json::decode::decode(&text).unwrap();
    let settings = Settings::default();
    assert_eq!(decoded, tokensieve::json::reduce(tokensieve::json::parse(&raw).unwrap(), &settings));
    // The same bytes as the library's compression (what every release before
    // the budget printed).
    assert_eq!(text, tokensieve::json::compress(tokensieve::json::parse(&raw).unwrap(), &settings).text);
}

#[test]
fn the_harness_cap_sets_the_budget() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/json/aws/s3api-list-objects-v2-120-objects.json"),
    )
    .unwrap();
    // 6,000 chars of harness cap → a 5,000-char budget.
    let out = run(home.path(), &[], &[("BASH_MAX_OUTPUT_LENGTH", "6000")], &raw);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# view: this output is over the 5000-char budget"), "{}", &text[..200]);
    assert!(text.chars().count() <= 5_000);
    check_view("s3 at 5000", &raw, &text);
    // Our own setting wins.
    let out =
        run(home.path(), &[], &[("BASH_MAX_OUTPUT_LENGTH", "6000"), ("TOKENSIEVE_BUDGET", "off")], &raw);
    assert!(!String::from_utf8(out.stdout).unwrap().starts_with("# view"));
    // A bad value is one warning and the defaults: a pipeline keeps its output.
    let out = run(home.path(), &[], &[("TOKENSIEVE_BUDGET", "lots")], &raw);
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty());
    assert!(String::from_utf8(out.stderr).unwrap().contains("warning: TOKENSIEVE_BUDGET: must be"));
}

/// A service's JSON-lines log: thousands of requests, one error among them.
fn service_log(lines: usize, error_at: usize) -> String {
    let mut out = String::new();
    for i in 0..lines {
        let (level, msg, status) = if i == error_at {
            ("error", "upstream timeout talking to billing", 504)
        } else {
            ("info", "request completed", 200)
        };
        out.push_str(&format!(
            "{{\"ts\":\"2025-11-23T10:{:02}:{:02}.{:03}Z\",\"level\":\"{level}\",\"service\":\"orders\",\"msg\":\"{msg}\",\"method\":\"GET\",\"path\":\"/v1/orders/{}\",\"status\":{status},\"latency_ms\":{},\"request_id\":\"req-{:06x}\"}}\n",
            (i / 60) % 60,
            i % 60,
            i % 1000,
            10_000 + i * 7 % 5000,
            3 + i * 13 % 200,
            i * 7919 % 0xffffff
        ));
    }
    out
}

#[test]
fn a_json_lines_log_shows_its_one_error_record() {
    let home = tempfile::tempdir().unwrap();
    let log = service_log(7203, 5150);
    let out = run(home.path(), &[], &[], log.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(text.chars().count() <= 25_000);
    let request = format!("req-{:06x}", 5150 * 7919 % 0xffffff);
    assert!(text.contains(&request) && text.contains("upstream timeout talking to billing"), "{text}");
    assert!(text.contains(".[].level string 7203 distinct=2 top=[[\"info\",7202],[\"error\",1]]"), "{text}");
    let note = text.lines().find(|l| l.starts_with("# rows .: ")).unwrap();
    assert!(
        note.contains("of 7203 shown") && note.contains(",5150") && note.contains("signal rows: 1"),
        "{note}"
    );
    check_view("service log", log.as_bytes(), &text);
    let shape = receipt_field(&err, "Shape").unwrap();
    assert!(shape.starts_with("Outline view ") && shape.ends_with("/7203 rows"), "{shape}");

    // The rest, with the command the view gives (JSON lines: --slurp).
    let id = receipt_field(&err, "raw").unwrap();
    let rest = note.split("rest: ").nth(1).unwrap();
    let filter = rest.split(" --jq '").nth(1).unwrap().trim_end_matches('\'');
    assert!(rest.starts_with(&format!("tokensieve show {id} --slurp --jq '.[")), "{rest}");
    let from: usize = filter.trim_start_matches(".[").trim_end_matches(":]").parse().unwrap();
    let out = run(home.path(), &["show", &id, "--slurp", "--jq", &format!("{filter} | length")], &[], b"");
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), (7203 - from).to_string());
}

/// The same log as a command's output (a hint: `--cmd`, a shim, `run`) is a
/// log like any other: its error record and its last record quoted as
/// printed, not re-rendered as table rows.
#[test]
fn a_commands_json_lines_log_quotes_its_records() {
    let home = tempfile::tempdir().unwrap();
    let log = service_log(7203, 5150);
    let out = run(home.path(), &["--cmd", "node server.js"], &[], log.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert!(text.contains(lines[5150]), "{text}");
    assert!(text.contains(lines[7202]), "{text}");
    assert_eq!(receipt_field(&err, "Shape").as_deref(), Some("text:generic"), "{err}");
    assert!(text.chars().count() < 5_000, "{}", text.chars().count());
}

#[test]
fn a_long_text_output_is_a_view_by_signal_priority() {
    let home = tempfile::tempdir().unwrap();
    let mut log: Vec<String> =
        (0..9000).map(|i| format!("2025-11-23 10:00:{:02} GET /static/{i}.css 200", i % 60)).collect();
    log[6001] = "2025-11-23 10:00:21 ERROR worker 3 crashed: out of memory".into();
    let raw = log.join("\n") + "\n";
    // Without a hint text passes as it is: past the budget, a view of it.
    let out = run(home.path(), &[], &[], raw.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(text.chars().count() <= 25_000);
    assert!(text.contains(&log[6001]), "{text}");
    assert!(text.starts_with("# view: 9000 lines, "), "{}", &text[..100]);
    let shape = receipt_field(&err, "Shape").unwrap();
    assert!(shape.ends_with("/9000 lines"), "{shape}");
    // A gap's command prints exactly the lines it stands for.
    let id = receipt_field(&err, "raw").unwrap();
    let gap = text.lines().find(|l| l.starts_with("… lines ")).unwrap();
    let range = gap.split("--lines ").nth(1).unwrap();
    let (a, b) = range.split_once(':').unwrap();
    let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
    let out = run(home.path(), &["show", &id, "--lines", range], &[], b"");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        log[a - 1..b].iter().map(|l| format!("{l}\n")).collect::<String>()
    );
}

#[test]
fn gain_counts_savings_against_what_the_harness_would_have_shown() {
    let home = tempfile::tempdir().unwrap();
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/json/aws/ec2-describe-images-owners-amazon.json"),
    )
    .unwrap();
    let out = run(home.path(), &[], &[], &raw);
    let err = String::from_utf8(out.stderr).unwrap();
    let original: u64 = receipt_field(&err, "Original").unwrap().trim_end_matches(" tok").parse().unwrap();
    let shown: u64 = receipt_field(&err, "Compressed").unwrap().trim_end_matches(" tok").parse().unwrap();
    // What a harness keeping 25,000 chars (head and tail) would have shown.
    let text = String::from_utf8(raw.clone()).unwrap();
    let chars: Vec<char> = text.chars().collect();
    let head: String = chars[..12_500].iter().collect();
    let tail: String = chars[chars.len() - 12_500..].iter().collect();
    let enc = tokensieve::auditor::Encoding::Cl100k;
    let harness = (tokensieve::auditor::count(enc, &head) + tokensieve::auditor::count(enc, &tail)) as u64;
    let gain = run(home.path(), &["gain", "--json"], &[], b"");
    let v: Value = serde_json::from_slice(&gain.stdout).unwrap();
    assert_eq!(v["original_tokens"], original);
    assert_eq!(v["harness_tokens"], harness);
    assert_eq!(v["saved_vs_harness_tokens"], harness as i64 - shown as i64);
    assert!(harness < original / 10);
}
