//! Budgeted views (SPEC §6b, docs/FORMAT.md §8): what the agent reads when
//! the rendering is longer than the budget. Never a blind cut: a view shows
//! whole rows and lines, says what it left out, and gives the exact command
//! that shows the rest from the stored raw output.
//!
//! - JSON: the outline of every path (types, counts, summaries of values,
//!   counted on the document as the tool wrote it), then the document with
//!   each large array cut to as many whole rows as fit (signal rows first),
//!   in the Outline shape.
//! - Text: whole lines by priority (signal lines and their blocks, then the
//!   head and tail, then the rest as room allows), gaps stated with the
//!   `--lines` range that shows them.
//!
//! # Design: Budget and views (`src/budget.rs`, `src/view/`, `src/jq.rs`)
//!
//! `config` resolves the budget into `Settings.budget` (`None`: off; `budget::parse` checks a value, `budget::harness_default` follows `BASH_MAX_OUTPUT_LENGTH`).
//! `pipeline::render_json` measures a document for a view before the sieve consumes it
//! when the input itself is over the budget (`view::prepare`: the outline of
//! every path, counted in one walk over a tree of paths, and the arrays to
//! cut with their signal rows, `view/signal.rs`), compresses as always (a
//! large document's Outline stops being written once it passes the budget:
//! `router::route_within`, `outline::encode_within`, which stops before it
//! builds the table of an array of 64 or more items whose cells in
//! non-constant columns alone, one char each at least, pass what is left:
//! `flatten::varying_cells`), and only when the
//! rendering does not fit builds the view (`view::json`): the
//! cut arrays sliced out of the *reduced* document (the sieve and deduper work
//! per element, so a slice of the reduced document is the reduced slice; when
//! the sieve dropped elements of a cut array, the raw is parsed again so row
//! numbers stay the raw's), the number of rows found from a guess (the size
//! of 8 rows), then steps that double, then halving
//! (no try renders much more than the budget), each try written as Outline
//! with the cut tables' headers naming every column of the whole array
//! (`outline::encode_wide`, columns from `flatten::columns`).
//! Text (`view/text.rs`) keeps whole lines by the signal ledger's priority.
//! `handoff::settle` takes a view whatever its token count (the raw bytes would
//! be cut by the harness). The views' commands use `Settings.raw_id`, set by
//! the handoff with the store's plan. `tokensieve show ID --jq F [--slurp]`
//! (`src/jq.rs`) runs a jq program with jaq over the stored raw output (after
//! the scrubber), one JSON value per output line, and delivers the answer
//! through `handoff::deliver` like any output. Grammar: docs/FORMAT.md §8.

mod paths;
pub(crate) mod signal;
mod text;

pub use text::text;

use serde_json::Value;

use crate::auditor::Shape;
use crate::budget;
use crate::json::literal::Seg;
use crate::json::{flatten, outline, reduce};
use crate::settings::{Call, Rendered};

use paths::Detail;

/// Share of the budget the outline may take before it loses detail.
const OUTLINE_SHARE: f64 = 0.4;

/// Appends `.key` (or `."key"` when jq needs the quotes) to a jq path.
pub(crate) fn jq_key(path: &mut String, key: &str) {
    let ident = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    path.push('.');
    if ident {
        path.push_str(key);
    } else {
        path.push_str(&Value::from(key).to_string());
    }
}

/// A jq path of concrete steps (`.Reservations[0].Instances`).
fn jq_path(segs: &[Seg]) -> String {
    let mut out = String::new();
    for s in segs {
        match s {
            Seg::Key(k) => jq_key(&mut out, k),
            Seg::Index(i) => {
                if out.is_empty() {
                    out.push('.');
                }
                out.push_str(&format!("[{i}]"));
            }
        }
    }
    if out.is_empty() { ".".into() } else { out }
}

/// `tokensieve show ID ARGS`, or `None` when the raw output was not stored.
fn show(call: &Call, args: &str) -> Option<String> {
    let id = call.raw_id.as_deref()?;
    Some(if args.is_empty() {
        format!("tokensieve show {id}")
    } else {
        format!("tokensieve show {id} {args}")
    })
}

/// A jq program as one shell word.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// An array cut for the view: where it is, its length, and its signal rows.
struct Cut {
    path: Vec<Seg>,
    len: usize,
    /// (row, jq condition that made it signal)
    signal: Vec<(usize, String)>,
}

impl Cut {
    /// The rows shown when at most `k` fit: signal rows first, then from
    /// the start; in document order.
    fn rows(&self, k: usize) -> Vec<usize> {
        let k = k.min(self.len);
        // Signal rows are in document order, so the chosen ones are sorted.
        let chosen: Vec<usize> = self.signal.iter().map(|(i, _)| *i).take(k).collect();
        let mut rows = chosen.clone();
        let mut next = 0;
        while rows.len() < k {
            if chosen.binary_search(&next).is_err() {
                rows.push(next);
            }
            next += 1;
        }
        rows.sort_unstable();
        rows
    }
}

/// Arrays of two or more elements not inside another such array: the
/// document's record lists (`.InstanceTypes`, `.Reservations[0].Instances`,
/// the lines of a JSON-lines log).
fn cuts(v: &Value, path: &mut Vec<Seg>, out: &mut Vec<Cut>) {
    match v {
        Value::Array(items) if items.len() >= 2 => {
            let signal =
                items.iter().enumerate().filter_map(|(i, r)| signal::trigger(r).map(|t| (i, t))).collect();
            out.push(Cut { path: path.clone(), len: items.len(), signal });
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                path.push(Seg::Index(i));
                cuts(x, path, out);
                path.pop();
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Seg::Key(k.clone()));
                cuts(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

/// `v` with the array at each cut's path reduced to `rows`.
fn slice(v: &Value, path: &mut Vec<Seg>, plan: &[(&Cut, Vec<usize>)]) -> Value {
    if let Some((_, rows)) = plan.iter().find(|(c, _)| c.path == *path) {
        let items = v.as_array().expect("cuts are arrays");
        return Value::Array(rows.iter().map(|&i| items[i].clone()).collect());
    }
    // Only walk down toward a cut.
    if !plan.iter().any(|(c, _)| c.path.starts_with(path)) {
        return v.clone();
    }
    match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    path.push(Seg::Index(i));
                    let out = slice(x, path, plan);
                    path.pop();
                    out
                })
                .collect(),
        ),
        // A member whose rows all stay out is left out of the body (its
        // rows note says `0 of N shown`): `builds=[]` would read as none.
        Value::Object(m) => Value::Object(
            m.iter()
                .filter_map(|(k, x)| {
                    path.push(Seg::Key(k.clone()));
                    let none_shown = plan.iter().any(|(c, rows)| c.path == *path && rows.is_empty());
                    let out = (!none_shown).then(|| slice(x, path, plan));
                    path.pop();
                    Some((k.clone(), out?))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The value at `path` in `v`.
fn at<'v>(v: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    path.iter().try_fold(v, |v, s| match s {
        Seg::Key(k) => v.get(k),
        Seg::Index(i) => v.get(i),
    })
}

/// `0-27,1200`: sorted rows as ranges.
fn ranges(rows: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i;
        while j + 1 < rows.len() && rows[j + 1] == rows[j] + 1 {
            j += 1;
        }
        out.push(if i == j { rows[i].to_string() } else { format!("{}-{}", rows[i], rows[j]) });
        i = j + 1;
    }
    out.join(",")
}

/// What a JSON view needs from the document as the tool wrote it, taken
/// before the sieve and deduper consume it (no copy of a large document).
pub struct Prep {
    /// The view's first lines: what it is, and the outline.
    head: Vec<String>,
    cuts: Vec<Cut>,
    /// The document was several (JSON lines): jq reads them one by one
    /// unless `--slurp`.
    slurped: bool,
    /// No lossless rendering can fit the budget (`paths::text_floor`).
    pub certain: bool,
}

/// Measures `doc` for a view, should its rendering not fit the budget.
pub fn prepare(doc: &Value, slurped: bool, call: &Call) -> Prep {
    let budget = call.budget.unwrap_or(budget::DEFAULT);
    let mut head = vec![format!(
        "# view: this output is over the {budget}-char budget; counts are of the raw document{}",
        show(call, "").map_or_else(
            || " (not stored: TOKENSIEVE_BUDGET=off prints all of it)".to_string(),
            |c| format!("; all of it: {c}")
        )
    )];
    head.push("# outline: path types count [items= distinct= min= max= top=]".into());
    // The outline and the cut arrays read the same document: side by side.
    let room = (budget as f64 * OUTLINE_SHARE) as usize;
    let (outline, found) = crate::threads::beside(
        || outline_lines(doc, room),
        || {
            let mut found = Vec::new();
            cuts(doc, &mut Vec::new(), &mut found);
            found
        },
    );
    let (outline, floor) = outline.unwrap_or_else(|_| outline_lines(doc, room));
    head.extend(outline);
    let certain = floor > budget;
    Prep { head, cuts: found, slurped, certain }
}

/// The view: `prep`'s outline, then `reduced` (the sieved and deduped
/// document) with each cut array down to the rows that fit. `raw` is read
/// again only when the sieve removed elements of a cut array (row numbers
/// must be the raw document's).
pub fn json(prep: Prep, reduced: &Value, raw: crate::json::Source, call: &Call) -> Rendered {
    let budget = call.budget.unwrap_or(budget::DEFAULT);
    let Prep { head, cuts: found, slurped, .. } = prep;
    let jq = |filter: &str| -> Option<String> {
        let flag = if slurped { "--slurp --jq" } else { "--jq" };
        show(call, &format!("{flag} {}", shell_quote(filter)))
    };
    let same_rows = found
        .iter()
        .all(|c| at(reduced, &c.path).and_then(Value::as_array).is_some_and(|a| a.len() == c.len));
    let original = if same_rows { None } else { raw.parse() };
    // Each cut table's header names every column of its array, not only
    // those of the rows shown (columns as the reduced document has them).
    let wide: Vec<outline::Wide> = found
        .iter()
        .filter_map(|c| {
            let items = at(reduced, &c.path)?.as_array()?;
            Some((c.path.clone(), flatten::columns(items)))
        })
        .collect();
    let most = found.iter().map(|c| c.len).max().unwrap_or(0);
    let total: usize = found.iter().map(|c| c.len).sum();

    let assemble = |k: usize| -> (String, usize) {
        let plan: Vec<(&Cut, Vec<usize>)> = found.iter().map(|c| (c, c.rows(k))).collect();
        let mut notes = Vec::new();
        for (cut, rows) in &plan {
            notes.push(rows_note(cut, rows, &jq));
        }
        let cut = match &original {
            None => slice(reduced, &mut Vec::new(), &plan),
            Some(doc) => reduce(slice(doc, &mut Vec::new(), &plan), call),
        };
        let body = outline::encode_wide(&cut, outline::Tuning::default(), &wide);
        let shown = plan.iter().map(|(_, r)| r.len()).sum();
        let mut text = head.join("\n");
        text.push('\n');
        for n in notes {
            text.push_str(&n);
            text.push('\n');
        }
        text.push_str(&body);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        (text, shown)
    };

    // The most rows per array that fit (more rows only grow the text):
    // a guess from the size of a few rows, then steps from it that double
    // until they pass the answer, then halving; each try renders about as
    // many rows as the answer.
    let size = |k: usize| budget::chars(&assemble(k).0);
    let fits = |k: usize| size(k) <= budget;
    let probe = 8.min(most);
    let (empty, probed) = (size(0), size(probe));
    // `lo` fits (0 always counts as fitting: the last resort cuts lines);
    // `hi` does not, or is past the end.
    let (mut lo, mut hi) = if probed <= budget {
        let per_row = (probed.saturating_sub(empty) / probe.max(1)).max(1);
        let guess = (probe + (budget - probed) / per_row).min(most);
        let step = (guess / 16).max(1);
        if fits(guess) {
            let (mut lo, mut next, mut step) = (guess, guess + step, step);
            while next <= most && fits(next) {
                lo = next;
                step *= 2;
                next += step;
            }
            (lo, next.min(most + 1))
        } else {
            let (mut hi, mut next, mut step) = (guess, guess.saturating_sub(step).max(probe), step);
            while next > probe && !fits(next) {
                hi = next;
                step *= 2;
                next = next.saturating_sub(step).max(probe);
            }
            (next, hi)
        }
    } else {
        (0, probe)
    };
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if mid <= most && fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (mut text, shown) = assemble(lo);
    if !budget::fits(&text, Some(budget)) {
        text = cut_lines(&text, budget, &show(call, "").unwrap_or_else(|| "TOKENSIEVE_BUDGET=off".into()));
    }
    Rendered { text, shape: Shape::View { of: Box::new(Shape::Outline), shown, total, unit: "rows" } }
}

/// `# rows .Items: 28 of 1263 shown (0-27); signal rows: 1 (.level == "error"); rest: CMD`
fn rows_note(cut: &Cut, rows: &[usize], jq: &impl Fn(&str) -> Option<String>) -> String {
    let path = jq_path(&cut.path);
    let mut note = format!("# rows {path}: {} of {} shown", rows.len(), cut.len);
    if !rows.is_empty() {
        note.push_str(&format!(" ({})", ranges(rows)));
    }
    if let Some((_, cond)) = cut.signal.first() {
        let shown = cut.signal.iter().filter(|(i, _)| rows.binary_search(i).is_ok()).count();
        note.push_str(&format!("; signal rows: {} ({cond}…)", cut.signal.len()));
        if shown < cut.signal.len()
            && let Some(cmd) = jq(&format!("[{} | select({cond})]", each(&path)))
        {
            note.push_str(&format!(", {shown} shown; those like the first: {cmd}"));
        }
    }
    // Rows shown are a run from 0 (plus signal rows): the rest starts after it.
    let first_missing = (0..cut.len).find(|i| rows.binary_search(i).is_err());
    if let Some(from) = first_missing
        && let Some(cmd) = jq(&format!("{path}[{from}:]"))
    {
        note.push_str(&format!("; rest: {cmd}"));
    }
    note
}

/// jq for every element of the array at `path`.
fn each(path: &str) -> String {
    if path == "." { ".[]".into() } else { format!("{path}[]") }
}

/// The outline's lines within `room` chars: every path bare, then as many
/// as fit (first first) with their summaries; past that, the first paths
/// and a count of the others.
/// Also returns the document's `paths::text_floor`.
fn outline_lines(doc: &Value, room: usize) -> (Vec<String>, usize) {
    let stats = paths::summarize(doc);
    let floor = paths::text_floor(&stats);
    let listed: Vec<&paths::PathStat> = stats.iter().filter(|s| s.listed()).collect();
    let mut lines: Vec<String> = listed.iter().map(|s| s.line(Detail::Bare)).collect();
    let mut used: usize = lines.iter().map(|l| budget::chars(l) + 1).sum();
    if used > room {
        let mut kept = Vec::new();
        let mut len = 0;
        for l in lines.iter() {
            len += budget::chars(l) + 1;
            if len + 40 > room {
                break;
            }
            kept.push(l.clone());
        }
        kept.push(format!("# … {} more paths not listed", lines.len() - kept.len()));
        return (kept, floor);
    }
    for (line, stat) in lines.iter_mut().zip(&listed) {
        for detail in [Detail::Full, Detail::Short] {
            let richer = stat.line(detail);
            let extra = budget::chars(&richer) - budget::chars(line);
            if used + extra <= room {
                used += extra;
                *line = richer;
                break;
            }
        }
    }
    (lines, floor)
}

/// Last resort (a document whose parts outside its arrays are over the
/// budget): whole lines up to the budget, then how many were left out.
fn cut_lines(text: &str, budget: usize, whole: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut kept = 0;
    for l in &lines {
        if budget::chars(&out) + budget::chars(l) + 200 > budget {
            break;
        }
        out.push_str(l);
        out.push('\n');
        kept += 1;
    }
    out.push_str(&format!(
        "# … {} more lines of this view not shown; all of the output: {whole}\n",
        lines.len() - kept
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;
    use serde_json::json;

    #[test]
    fn rows_signal_first_then_from_the_start() {
        let cut = Cut { path: vec![], len: 10, signal: vec![(7, ".level == \"error\"".into())] };
        assert_eq!(cut.rows(3), vec![0, 1, 7]);
        assert_eq!(cut.rows(0), Vec::<usize>::new());
        assert_eq!(cut.rows(20), (0..10).collect::<Vec<_>>());
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
    }

    #[test]
    fn jq_paths() {
        let p = vec![Seg::Key("Reservations".into()), Seg::Index(0), Seg::Key("a b".into())];
        assert_eq!(jq_path(&p), ".Reservations[0].\"a b\"");
        assert_eq!(jq_path(&[]), ".");
        assert_eq!(jq_path(&[Seg::Index(2)]), ".[2]");
    }

    #[test]
    fn a_view_fits_and_names_what_it_left_out() {
        let items: Vec<Value> = (0..500)
            .map(|i| json!({"id": i, "name": format!("item-{i}"), "level": if i == 321 { "error" } else { "info" }}))
            .collect();
        let doc = json!({"Items": items});
        let settings = Call {
            raw_id: Some("abc123".into()),
            ..Call::from(Settings { budget: Some(3000), ..Settings::default() })
        };
        let r = json(
            prepare(&doc, false, &settings),
            &reduce(doc.clone(), &settings),
            crate::json::Source::Bytes(b"{}"),
            &settings,
        );
        assert!(budget::chars(&r.text) <= 3000, "{}", r.text.len());
        assert!(r.text.contains("item-321"), "{}", r.text);
        assert!(r.text.contains(".Items[].level string 500 distinct=2 top=[[\"info\",499],[\"error\",1]]"));
        assert!(r.text.contains("tokensieve show abc123 --jq '.Items["), "{}", r.text);
        let Shape::View { shown, total, .. } = r.shape else { panic!() };
        assert_eq!(total, 500);
        assert!(shown > 10 && shown < 500, "{shown}");
        assert!(r.text.contains(&format!("# rows .Items: {shown} of 500 shown")));
    }
}
