//! The view of a text output over the budget: whole lines of the (cleaned)
//! output, chosen by priority, in their own order, with every gap stated as
//! the `--lines` range that shows it.
//!
//! Priority: signal lines (the signal ledger, `lines::ledger`) with their blocks (the line
//! before, and the indented or signal lines after), first to last; then the
//! first `HEAD` and last `TAIL` lines; then more of the start and end, as
//! room allows.

use crate::auditor::Shape;
use crate::budget;
use crate::settings::{Call, Hint, Rendered};

const HEAD: usize = 5;
const TAIL: usize = 10;
/// Lines after a signal line that belong to its block at most.
const BLOCK: usize = 8;
/// Longer lines are shown cut, with the `--lines` command for the whole.
const MAX_LINE: usize = 500;
/// Room kept for each gap line (`… lines 120-450 not shown: ...`).
const GAP_COST: usize = 90;

/// The view of `text`: the raw output (`summary: None`; gaps then name
/// their `--lines` range), or a tool-aware summary that is itself over the
/// budget (`Some(shape)` of the summary: its lines are the tool's facts).
pub fn text(text: &str, summary: Option<Shape>, hint: Option<&Hint>, call: &Call) -> Rendered {
    let budget = call.budget.unwrap_or(budget::DEFAULT);
    let exit = hint.map_or(0, |h| h.exit_code);
    let from_raw = summary.is_none();
    let cleaned = if from_raw { crate::lines::cleaned(text) } else { text.to_owned() };
    let mut lines: Vec<&str> = cleaned.lines().collect();
    // The status goes last whatever else is cut.
    if !from_raw && exit != 0 && lines.last() == Some(&format!("exit {exit}").as_str()) {
        lines.pop();
    }
    let raw = text;
    let n = lines.len();
    let ledger = crate::lines::ledger::scan(lines.iter().copied());
    let signal: Vec<usize> = ledger.entries.iter().map(|e| e.line).collect();

    let show = |args: &str| super::show(call, args);
    // An excerpt of a larger output (see `settings::Excerpt`): numbers and
    // sizes are the whole output's.
    let excerpt = call.excerpt.as_ref().filter(|_| from_raw);
    let num = |i: usize| excerpt.map_or(i + 1, |e| e.line_number(i));
    let total = excerpt.map_or(n, |e| e.lines);
    let chars = excerpt.map_or_else(|| budget::chars(raw), |e| e.chars as usize);
    let what = if from_raw { "" } else { " of the summary" };
    let header = format!(
        "# view: {total} lines{what}, {chars} chars, over the {budget}-char budget; {} signal lines; {}",
        signal.len(),
        show("").map_or_else(|| "the raw output was not stored".to_string(), |c| format!("all of it: {c}"))
    );
    let mut footer: Vec<String> = Vec::new();
    if !signal.is_empty()
        && let Some(c) = show("--grep '(?i)error|warn|fail|exception|panic|traceback'")
    {
        footer.push(format!("# signal lines: {c}"));
    }
    // JSON read as text (too dense to hold as a tree, `pipeline::route`):
    // the stored document answers jq filters
    // (validated without building one: a log opening with `[INFO]` is not)
    let json = from_raw
        .then(|| text.trim_start().as_bytes().first().copied())
        .flatten()
        .filter(|b| matches!(b, b'[' | b'{'))
        .filter(|_| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok());
    if let Some(c) = match json {
        Some(b'[') => show("--jq '.[0:20]'"),
        Some(b'{') => show("--jq 'keys'"),
        _ => None,
    } {
        footer.push(format!("# JSON: ask it with jq, e.g. {c}"));
    }
    if exit != 0 {
        footer.push(format!("exit {exit}"));
    }
    let fixed: usize =
        budget::chars(&header) + footer.iter().map(|f| budget::chars(f) + 1).sum::<usize>() + 1;

    // Candidate lines in priority order.
    let mut order: Vec<usize> = Vec::new();
    for &s in &signal {
        order.extend(s.saturating_sub(1)..=s);
        let indent = leading(lines[s]);
        let mut j = s + 1;
        while j < n && j <= s + BLOCK && (leading(lines[j]) > indent || ledger.kind(j).is_some()) {
            order.push(j);
            j += 1;
        }
    }
    order.extend(0..HEAD.min(n));
    order.extend(n.saturating_sub(TAIL)..n);
    // Then alternately from the start and the end.
    let (mut a, mut b) = (0, n);
    while a < b {
        order.push(a);
        a += 1;
        if a < b {
            b -= 1;
            order.push(b);
        }
    }

    // Whole lines by `order` while they fit, with room for the gap lines
    // they leave; the lines kept, in the order they were taken.
    let select = |order: &[usize], fixed: usize| -> Vec<usize> {
        let mut kept = vec![false; n];
        let mut taken = Vec::new();
        let mut used = fixed;
        let mut gaps = 1;
        for &i in order {
            if kept[i] {
                continue;
            }
            let cost = budget::chars(&shown_line(lines[i], from_raw.then(|| num(i)), call)) + 1;
            // (an excerpt's neighbours may be lines it never held: hidden too)
            let left_hidden = if i == 0 { num(0) > 1 } else { !kept[i - 1] || num(i - 1) + 1 < num(i) };
            let right_hidden =
                if i + 1 == n { num(i) < total } else { !kept[i + 1] || num(i) + 1 < num(i + 1) };
            // Keeping `i` splits its gap, ends it, or moves its edge.
            let gap_change: isize = match (left_hidden, right_hidden) {
                (true, true) => 1,
                (false, false) => -1,
                _ => 0,
            };
            let new_gaps = (gaps as isize + gap_change).max(0) as usize;
            if used + cost + new_gaps * GAP_COST > budget {
                continue;
            }
            kept[i] = true;
            taken.push(i);
            used += cost;
            gaps = new_gaps;
        }
        taken
    };
    let mut taken = select(&order, fixed);
    // Signal lines the view cannot show (more of them than the budget
    // holds, or crowded out by their blocks): the signal lines alone
    // first, in ledger order, as many as fit, and one line that counts
    // the rest with the command that prints them (the guard re-runs it).
    // (a signal line longer than `MAX_LINE` is shown cut: not whole either)
    let dropped = |taken: &[usize]| -> Vec<usize> {
        signal
            .iter()
            .copied()
            .filter(|&s| !taken.contains(&s) || budget::chars(lines[s]) > MAX_LINE)
            .collect()
    };
    let mut rest = None;
    // (counting needs the raw output stored, and all of it here: the grep
    // of an excerpt's count would run over lines the view never held)
    let countable = call.raw_id.is_some() && excerpt.is_none();
    if from_raw && countable && !dropped(&taken).is_empty() {
        let first: Vec<usize> = signal.iter().copied().chain(order.iter().copied()).collect();
        let src = crate::text::guard::Source {
            raw: crate::text::guard::raw_lines(raw),
            cleaned: lines.clone(),
            ledger: &ledger,
            id: call.raw_id.as_deref(),
            budget: call.budget,
            focus: crate::budget::record_focus(call.focus),
            excerpt: None,
        };
        let mut reserved = 0;
        for _ in 0..4 {
            taken = select(&first, fixed + reserved);
            let missing = dropped(&taken);
            let Some(line) =
                (!missing.is_empty()).then(|| rest_line(&missing, &lines, &src, budget)).flatten()
            else {
                rest = None;
                break;
            };
            let cost = budget::chars(&line) + 1;
            rest = Some(line);
            if cost <= reserved {
                break;
            }
            reserved = cost + 16;
        }
    }
    if let Some(line) = &rest {
        footer.insert(0, line.clone());
    }

    let assemble = |taken: &[usize]| -> String {
        let mut kept = vec![false; n];
        for &i in taken {
            kept[i] = true;
        }
        let mut out = vec![header.clone()];
        let gap = |from: usize, to: usize, sig: usize| {
            let what = if sig > 0 { format!(", {sig} signal") } else { String::new() };
            let cmd = show(&format!("--lines {from}:{to}")).map_or_else(String::new, |c| format!(": {c}"));
            format!("… lines {from}-{to} not shown ({} lines{what}){cmd}", to - from + 1)
        };
        // `next`: the number of the first line not yet shown or stated as a gap
        let (mut next, mut sig) = (1, 0);
        for i in 0..n {
            if !kept[i] {
                sig += usize::from(ledger.kind(i).is_some());
                continue;
            }
            if num(i) > next {
                out.push(gap(next, num(i) - 1, sig));
            }
            out.push(shown_line(lines[i], from_raw.then(|| num(i)), call));
            (next, sig) = (num(i) + 1, 0);
        }
        if next <= total {
            out.push(gap(next, total, sig));
        }
        out.extend(footer.iter().cloned());
        let mut text = out.join("\n");
        text.push('\n');
        text
    };
    // Gap lines longer than the room kept for them can pass the budget:
    // the lines taken last go until it fits.
    let mut text = assemble(&taken);
    while budget::chars(&text) > budget && taken.pop().is_some() {
        text = assemble(&taken);
    }
    let shown = taken.len();
    Rendered {
        text,
        shape: Shape::View { of: Box::new(Shape::Text("view".into())), shown, total, unit: "lines" },
    }
}

/// The line that counts the signal lines `missing` (0-based) a view cannot
/// show whole: `# K signal lines not shown whole; they and the lines like them: (N
/// lines: tokensieve show ID --grep 'RE')`, RE the starts of their shapes
/// (as long as a pattern of a tenth of the budget allows). `None` when the
/// raw output is not stored or no such pattern finds them all.
fn rest_line(
    missing: &[usize],
    lines: &[&str],
    src: &crate::text::guard::Source,
    budget: usize,
) -> Option<String> {
    let limit = (budget / 10).max(120);
    for width in [80, 48, 32, 20, 12, 8, 5] {
        let mut seen = std::collections::HashSet::new();
        let mut parts = Vec::new();
        for &i in missing {
            let p = crate::text::guard::similar_pattern_within(lines[i], width);
            if seen.insert(p.clone()) {
                parts.push(p);
            }
        }
        let pattern = parts.join("|");
        if pattern.len() > limit {
            continue;
        }
        if let Some(count) = crate::text::guard::count_line(src, &pattern, missing) {
            let k = missing.len();
            return Some(format!(
                "# {k} signal lines not shown whole; they and the lines like them: {count}"
            ));
        }
    }
    None
}

fn leading(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// A line as the view shows it: whole, or its start and (for a line of the
/// raw output, number `raw_line` from 1) the command that prints all of it.
fn shown_line(line: &str, raw_line: Option<usize>, call: &Call) -> String {
    if budget::chars(line) <= MAX_LINE {
        return line.to_owned();
    }
    let cut: String = line.chars().take(MAX_LINE).collect();
    let rest = budget::chars(line) - MAX_LINE;
    let cmd = raw_line
        .and_then(|i| super::show(call, &format!("--lines {i}")))
        .map_or_else(String::new, |c| format!("; {c}"));
    format!("{cut}… (+{rest} chars{cmd})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Settings;

    fn settings(b: usize) -> Call<'static> {
        Call {
            raw_id: Some("feedbeef".into()),
            ..Call::from(Settings { budget: Some(b), ..Settings::default() })
        }
    }

    #[test]
    fn signal_lines_and_blocks_come_first() {
        let mut lines: Vec<String> = (0..3000).map(|i| format!("GET /item/{i} 200 ok")).collect();
        lines[1700] = "Traceback (most recent call last):".into();
        lines[1701] = "  File \"app.py\", line 3, in handler".into();
        lines[1702] = "ValueError: bad id".into();
        let raw = lines.join("\n");
        let hint = Hint { command: vec!["server".into()], exit_code: 1 };
        let r = text(&raw, None, Some(&hint), &settings(4000));
        assert!(budget::chars(&r.text) <= 4000, "{}", r.text.len());
        for l in &lines[1699..=1702] {
            assert!(r.text.contains(l.as_str()), "{l} missing:\n{}", r.text);
        }
        assert!(r.text.contains("GET /item/0 200 ok") && r.text.contains("GET /item/2999 200 ok"));
        assert!(r.text.contains("tokensieve show feedbeef --lines "), "{}", r.text);
        assert!(r.text.ends_with("exit 1\n"));
        let Shape::View { shown, total, .. } = r.shape else { panic!() };
        assert_eq!(total, 3000);
        // Every hidden line is in exactly one stated gap.
        let hidden: usize = r
            .text
            .lines()
            .filter_map(|l| l.strip_prefix("… lines "))
            .map(|l| l.split(" (").nth(1).unwrap().split(' ').next().unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(hidden + shown, 3000);
    }

    #[test]
    fn signal_lines_past_the_budget_are_kept_in_order_and_the_rest_counted() {
        // 300 error lines alone are over the budget: the first ones in
        // ledger order, and one line that counts the rest with a command
        // whose grep prints them (the guard re-runs it).
        let raw: String =
            (0..300).map(|i| format!("2026-01-01 12:00:00 ERROR job {i} failed: disk full\n")).collect();
        let r = text(&raw, None, None, &settings(3000));
        assert!(budget::chars(&r.text) <= 3000, "{}", r.text);
        assert!(r.text.contains("ERROR job 0 failed") && r.text.contains("ERROR job 1 failed"), "{}", r.text);
        let rest = r.text.lines().find(|l| l.starts_with("# ") && l.contains("signal lines not shown whole"));
        let rest = rest.unwrap_or_else(|| panic!("no count line:\n{}", r.text));
        assert!(rest.contains("(300 lines: tokensieve show feedbeef --grep '"), "{rest}");
        assert_eq!(crate::text::check_rendering(&raw, &r.text, &settings(3000)), Ok(()));
    }

    #[test]
    fn long_lines_are_cut_with_the_command_for_all_of_it() {
        let raw = format!("short\n{}\nend\n", "x".repeat(30_000));
        let r = text(&raw, None, None, &settings(2000));
        assert!(budget::chars(&r.text) <= 2000);
        assert!(r.text.contains("(+29500 chars; tokensieve show feedbeef --lines 2)"), "{}", r.text);
    }

    #[test]
    fn json_read_as_text_gets_the_jq_command_a_log_in_brackets_does_not() {
        let array = format!("[{}1]", "1,".repeat(20_000));
        let r = text(&array, None, None, &settings(2000));
        assert!(
            r.text.contains("# JSON: ask it with jq, e.g. tokensieve show feedbeef --jq '.[0:20]'"),
            "{}",
            r.text
        );
        let object = format!("{{\"a\":[{}1]}}", "1,".repeat(20_000));
        assert!(text(&object, None, None, &settings(2000)).text.contains("--jq 'keys'"));
        let log: String = (0..3000).map(|i| format!("[INFO] step {i}, done\n")).collect();
        assert!(!text(&log, None, None, &settings(2000)).text.contains("--jq"));
    }
}
