//! `kubectl get` tables (and the table helper docker uses). Small tables are
//! left alone: padding is cheap in tokens and the table is the signal. Large
//! ones keep every row that is not healthy verbatim and fold the healthy rows
//! (Running, Completed, Ready, Bound...) into one line of names per status.

use std::collections::BTreeMap;

use super::{Filter, Invocation};
use crate::text::guard::Source;

pub struct Kubectl;

/// Tables with more rows than this get the healthy rows folded.
const FOLD_ROWS: usize = 20;
const HEALTHY: &[&str] =
    &["Running", "Completed", "Succeeded", "Active", "Ready", "Bound", "True", "Available"];

/// A whitespace-aligned table: the header's column starts, and each row cut
/// at those starts (cells trimmed).
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// Parses a table whose header is upper-case words separated by 2+ spaces.
/// `None` when the first line does not look like such a header.
pub fn parse_table(lines: &[&str]) -> Option<Table> {
    let header_line = lines.first()?;
    let mut starts = Vec::new();
    let bytes = header_line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let at_word = b != b' ' && (i == 0 || (i >= 2 && bytes[i - 1] == b' ' && bytes[i - 2] == b' '));
        if at_word {
            starts.push(i);
        }
    }
    let header: Vec<String> = cut(header_line, &starts);
    if header.len() < 2
        || !header.iter().all(|h| h.chars().all(|c| c.is_ascii_uppercase() || " -_()/".contains(c)))
    {
        return None;
    }
    let rows = lines[1..].iter().filter(|l| !l.trim().is_empty()).map(|l| cut(l, &starts)).collect();
    Some(Table { header, rows })
}

fn cut(line: &str, starts: &[usize]) -> Vec<String> {
    let mut cells = Vec::new();
    for (k, &s) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(line.len()).min(line.len());
        let s = s.min(line.len());
        // a cell may run past the next header start when a value is wide:
        // snap to char boundaries and whitespace
        let cell = line.get(s..end).unwrap_or("").trim();
        cells.push(cell.to_string());
    }
    cells
}

/// `-o wide` or no `-o` at all: the output is a table (not YAML/JSON/names).
fn table_output(args: &[String]) -> bool {
    let mut format = None;
    for (k, a) in args.iter().enumerate() {
        if a == "-o" || a == "--output" {
            format = args.get(k + 1).cloned();
        } else if let Some(f) = a.strip_prefix("--output=").or_else(|| a.strip_prefix("-o")) {
            format = Some(f.trim_start_matches('=').to_string());
        }
    }
    format.is_none_or(|f| f == "wide")
}

impl Filter for Kubectl {
    fn name(&self) -> &'static str {
        "kubectl"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["kubectl", "oc"]) && inv.sub() == "get" && table_output(&inv.args)
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.iter().position(|l| parse_table(&[l]).is_some())?;
        let table_lines = &lines[start..];
        // rows must line up with the header for the fold to be honest
        if table_lines.iter().skip(1).any(|l| !l.trim().is_empty() && l.split_whitespace().count() < 2) {
            return None;
        }
        let table = parse_table(table_lines)?;
        if table.rows.len() <= FOLD_ROWS {
            return None;
        }
        let col = |name: &str| table.header.iter().position(|h| h == name);
        let status_col = col("STATUS").or_else(|| col("PHASE"))?;
        let name_col = col("NAME")?;
        let ns_col = col("NAMESPACE");
        // looked up once: the header does not change from row to row
        let restarts_col = col("RESTARTS");
        let ready_col = col("READY");
        let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
        out.push(table_lines[0].to_string());
        let mut folded: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (row, raw) in table.rows.iter().zip(table_lines[1..].iter().filter(|l| !l.trim().is_empty())) {
            let status = &row[status_col];
            let restarts_ok = restarts_col.is_none_or(|c| row[c].split_whitespace().next() == Some("0"));
            let ready_ok = ready_col.is_none_or(|c| {
                let r = &row[c];
                r.split_once('/').is_none_or(|(a, b)| a == b) && r != "False"
            });
            if HEALTHY.contains(&status.as_str()) && restarts_ok && ready_ok {
                let name = match ns_col {
                    Some(n) => format!("{}/{}", row[n], row[name_col]),
                    None => row[name_col].clone(),
                };
                folded.entry(status.clone()).or_default().push(name);
            } else {
                out.push(raw.to_string());
            }
        }
        for (status, names) in folded {
            out.push(format!("{} {status} (ready, no restarts): {}", names.len(), names.join(" ")));
        }
        Some(out.join("\n") + "\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_columns_follow_the_header() {
        let t = parse_table(&[
            "NAME   READY   STATUS    AGE",
            "web-1  1/1     Running   2d",
            "db-0   0/1     Pending   1m",
        ])
        .unwrap();
        assert_eq!(t.header, vec!["NAME", "READY", "STATUS", "AGE"]);
        assert_eq!(t.rows[1], vec!["db-0", "0/1", "Pending", "1m"]);
        assert!(parse_table(&["not a table", "x"]).is_none());
    }

    #[test]
    fn healthy_pods_fold_problem_pods_stay() {
        let mut text = String::from("NAME      READY   STATUS             RESTARTS   AGE\n");
        for i in 0..30 {
            text.push_str(&format!("web-{i:02}    1/1     Running            0          2d\n"));
        }
        text.push_str("db-0      0/1     CrashLoopBackOff   7          1h\n");
        let inv = Invocation::parse(&["kubectl".into(), "get".into(), "pods".into()]).unwrap();
        let out = Kubectl.summarize(&inv, &text, &crate::text::guard::Owned::new(&text).src()).unwrap();
        assert!(out.contains("db-0      0/1     CrashLoopBackOff   7          1h"));
        assert!(out.contains("30 Running (ready, no restarts): web-00 web-01"));
        assert_eq!(out.lines().count(), 3);
    }
}
