//! A program's output made of many paragraphs of one shape (issue 26: a
//! JVM thread dump's threads, a pool's workers, any record printed as a
//! header and the lines under it, blank-line separated), read as a
//! document. Such paragraphs fold:
//!
//! - paragraphs that differ only in their values (numbers, quoted names,
//!   `key=value` values in the header; numbers and hex ids below it) show
//!   once, the first as printed, then `… N more like it: "worker-14";
//!   "worker-17" <0x…d688> (tokensieve show ID --lines A:B)`, the values
//!   that tell each other one apart (its header's names, and what differs
//!   below it);
//! - under each paragraph shown, each run of framework frames is one count
//!   line of `lines::frames` (the fold every path shares);
//! - a paragraph with a problem in it (a signal line of the ledger, a
//!   problem word, a `BLOCKED` thread) stays whole, frames and all, and
//!   folds only with paragraphs whose lines under the header are the same
//!   to the byte (threads blocked on one lock).
//!
//! Pure: the caller checks the rendering with the guard.

use crate::lines::frames::{self, Fold};
use crate::text::generic;
use crate::text::guard::Source;
use crate::values::{self, Values};

/// The output holds at least this many paragraphs for the rule to apply.
const MIN_PARAGRAPHS: usize = 6;
/// Values listed for each other paragraph of a group, at most.
const MAX_VALUES: usize = 4;

/// One paragraph: lines `start..end`, none blank.
#[derive(Debug, Clone, Copy)]
struct Para {
    start: usize,
    end: usize,
}

/// The non-blank runs of `lines`.
fn paragraphs(lines: &[&str]) -> Vec<Para> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim().is_empty() {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && !lines[i].trim().is_empty() {
            i += 1;
        }
        out.push(Para { start, end: i });
    }
    out
}

/// Whether the paragraph reports a problem: it then stays whole.
fn troubled(src: &Source, p: Para) -> bool {
    // (the ledger marks a stack's user frames too: frames are not trouble)
    (p.start..p.end).any(|i| {
        let l = src.cleaned[i];
        let marked = src.ledger.kind(i).is_some() && frames::frame_of(l).is_none();
        marked || generic::is_signal(l) || l.split_whitespace().any(|w| w == "BLOCKED")
    })
}

/// The key paragraphs of one shape share: the header's template (values
/// aside), the lines under it with numbers aside, or exactly as printed
/// when the paragraph is troubled.
fn key(src: &Source, p: Para, troubled: bool) -> Vec<String> {
    let lines = &src.cleaned;
    let mut key = vec![values::mask(lines[p.start], Values::Fields)];
    key.extend(
        (p.start + 1..p.end)
            .map(|i| if troubled { lines[i].to_string() } else { values::mask(lines[i], Values::Numbers) }),
    );
    key
}

/// The values of line `i` (header: `Values::Fields` places; below it:
/// numbers: what its key set aside, so as many as `first` has) that
/// differ from those of line `first`, in order.
fn differing<'a>(lines: &[&'a str], first: usize, i: usize, header: bool) -> Vec<&'a str> {
    let spans = |k: usize| {
        if header { values::fields(lines[k]) } else { values::slots(lines[k]) }
    };
    let (a, b) = (spans(first), spans(i));
    if a.len() != b.len() {
        return Vec::new();
    }
    a.iter()
        .zip(&b)
        .filter(|(x, y)| lines[first][x.0..x.1] != lines[i][y.0..y.1])
        .map(|(_, y)| &lines[i][y.0..y.1])
        .collect()
}

/// What tells paragraph `p` apart from `first` (same key): its header's
/// quoted names when they differ (else its differing header values), then
/// the differing values under it; at most `MAX_VALUES`.
fn label(lines: &[&str], first: Para, p: Para) -> String {
    let header = differing(lines, first.start, p.start, true);
    let quoted: Vec<&str> = header.iter().copied().filter(|v| v.starts_with(['"', '\'', '`'])).collect();
    let mut values = if quoted.is_empty() { header } else { quoted };
    for k in 1..p.end - p.start {
        values.extend(differing(lines, first.start + k, p.start + k, false));
    }
    let more = values.len().saturating_sub(MAX_VALUES);
    values.truncate(MAX_VALUES);
    let mut out = values.join(" ");
    if more > 0 {
        out.push_str(&format!(" (+{more} values)"));
    }
    out
}

/// A paragraph as shown: as printed when troubled, else with each run of
/// framework frames counted.
fn show(src: &Source, p: Para, troubled: bool, out: &mut Vec<String>) {
    let lines = &src.cleaned;
    if troubled {
        out.extend(lines[p.start..p.end].iter().map(|l| l.to_string()));
        return;
    }
    let mut fold = Fold::default();
    for &line in &lines[p.start..p.end] {
        match frames::frame_of(line) {
            Some(user) => fold.push(line, user, out),
            None => {
                fold.flush(out);
                out.push(line.to_string());
            }
        }
    }
    fold.flush(out);
}

/// The folded rendering, when the output is made of paragraphs and folding
/// them leaves something out; `None` otherwise.
pub fn render(src: &Source) -> Option<Vec<String>> {
    let lines = &src.cleaned;
    let paras = paragraphs(lines);
    if paras.len() < MIN_PARAGRAPHS {
        return None;
    }
    let trouble: Vec<bool> = paras.iter().map(|&p| troubled(src, p)).collect();

    let keys: Vec<Vec<String>> = paras.iter().zip(&trouble).map(|(&p, &t)| key(src, p, t)).collect();
    // groups of one key, in order of first appearance; a header that is a
    // signal line itself never folds into another
    let mut group_of: Vec<usize> = (0..paras.len()).collect();
    let mut firsts: std::collections::HashMap<&[String], usize> = std::collections::HashMap::new();
    for k in 0..paras.len() {
        if src.ledger.kind(paras[k].start).is_some() {
            continue;
        }
        group_of[k] = *firsts.entry(keys[k].as_slice()).or_insert(k);
    }
    let folds = (0..paras.len()).any(|k| group_of[k] != k);
    let framed = (0..paras.len()).any(|k| {
        !trouble[k] && (paras[k].start..paras[k].end).any(|i| frames::frame_of(lines[i]) == Some(false))
    });
    if !folds && !framed {
        return None;
    }
    let mut others: Vec<Vec<usize>> = vec![Vec::new(); paras.len()];
    for (j, &g) in group_of.iter().enumerate().filter(|(j, g)| *j != **g) {
        others[g].push(j);
    }
    let mut out: Vec<String> = Vec::new();
    for k in 0..paras.len() {
        let p = paras[k];
        if group_of[k] != k {
            continue;
        }
        // the blank lines before it, as printed
        let gap_from = if k == 0 { 0 } else { paras[k - 1].end };
        out.extend(lines[gap_from..p.start].iter().map(|l| l.to_string()));
        show(src, p, trouble[k], &mut out);
        let others = &others[k];
        if let Some(&last) = others.last() {
            let labels: Vec<String> = others.iter().map(|&j| label(lines, p, paras[j])).collect();
            let range = src
                .id
                .map(|id| {
                    let to = src.line_no(paras[last].end - 1);
                    format!(" (tokensieve show {id} --lines {}:{to})", src.line_no(p.start))
                })
                .unwrap_or_default();
            out.push(format!("… {} more like it: {}{range}", others.len(), labels.join("; ")));
        }
    }
    // the blank lines after the last paragraph
    let tail_from = paras.last().map_or(0, |p| p.end);
    out.extend(lines[tail_from..].iter().map(|l| l.to_string()));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::guard::Owned;

    fn fold(text: &str) -> Option<String> {
        let owned = Owned::new(text);
        render(&owned.src()).map(|v| v.join("\n"))
    }

    /// A thread of a dump: a header with its name and ids, its state, its frames.
    fn thread(name: &str, n: usize, state: &str, frames: &[&str]) -> String {
        let mut t = format!(
            "\"{name}\" #{n} prio=5 os_prio=0 cpu={}.{}ms tid=0x00007f0f640{n:02x}290 nid=0x{:x} waiting\n   State: {state}\n",
            n % 7,
            n * 3,
            n + 4000
        );
        for f in frames {
            t.push_str(&format!("\tat {f}\n"));
        }
        t.push('\n');
        t
    }

    const POOL: &[&str] = &[
        "java.lang.Thread.sleep(java.base@17.0.15/Native Method)",
        "shop.Worker.poll(Worker.java:21)",
        "java.util.concurrent.FutureTask.run(java.base@17.0.15/FutureTask.java:264)",
        "java.util.concurrent.ThreadPoolExecutor.runWorker(java.base@17.0.15/ThreadPoolExecutor.java:1136)",
        "java.lang.Thread.run(java.base@17.0.15/Thread.java:840)",
    ];

    #[test]
    fn paragraphs_of_one_shape_fold_with_what_tells_them_apart() {
        let mut text = String::from("Full thread dump:\n\n");
        for n in 1..=6 {
            text.push_str(&thread(&format!("worker-{n}"), n, "TIMED_WAITING (sleeping)", POOL));
        }
        text.push_str(&thread("main", 9, "RUNNABLE", &["shop.Main.main(Main.java:7)"]));
        let out = fold(&text).expect("a fold");
        // the first as printed, framework frames counted, the user's kept
        assert!(out.contains("\"worker-1\" #1 prio=5"), "{out}");
        assert!(
            out.contains(
                "\t(1 framework frame)\n\tat shop.Worker.poll(Worker.java:21)\n\t(3 framework frames)\n"
            ),
            "{out}"
        );
        // every other one named, with the lines that print them all
        assert!(
            out.contains("… 5 more like it: \"worker-2\"; \"worker-3\"; \"worker-4\"; \"worker-5\"; \"worker-6\" (tokensieve show abc123 --lines 3:49)"),
            "{out}"
        );
        assert!(!out.contains("\"worker-2\" #2"), "{out}");
        assert!(out.contains("\"main\" #9") && out.contains("\tat shop.Main.main(Main.java:7)"), "{out}");
    }

    #[test]
    fn blocked_threads_stay_whole_and_fold_only_when_the_same() {
        let lock = |addr: &str| {
            vec![
                "shop.Ledger.post(Ledger.java:13)".to_string(),
                format!("- waiting to lock <{addr}> (a java.lang.Object)"),
                "java.lang.Thread.run(java.base@17.0.15/Thread.java:840)".to_string(),
            ]
        };
        let mut text = String::new();
        for n in 1..=3 {
            let frames = lock("0x00000000f840c938");
            let frames: Vec<&str> = frames.iter().map(String::as_str).collect();
            text.push_str(&thread(&format!("w-{n}"), n, "BLOCKED (on object monitor)", &frames));
        }
        let other = lock("0x00000000f840ffff");
        let other: Vec<&str> = other.iter().map(String::as_str).collect();
        text.push_str(&thread("w-4", 4, "BLOCKED (on object monitor)", &other));
        for n in 5..=7 {
            text.push_str(&thread(&format!("w-{n}"), n, "RUNNABLE", POOL));
        }
        let out = fold(&text).expect("a fold");
        // whole: the framework frame of a blocked thread is not counted
        assert!(out.contains("\tat java.lang.Thread.run(java.base@17.0.15/Thread.java:840)"), "{out}");
        assert!(out.contains("… 2 more like it: \"w-2\"; \"w-3\""), "{out}");
        // another lock: its own paragraph, whole
        assert!(out.contains("\"w-4\" #4") && out.contains("<0x00000000f840ffff>"), "{out}");
        assert!(out.contains("… 2 more like it: \"w-6\"; \"w-7\""), "{out}");
    }

    #[test]
    fn a_header_value_of_another_width_is_listed() {
        let mut text = String::new();
        for (n, cpu) in ["0.47", "12", "3.5", "100", "7", "0.01"].iter().enumerate() {
            text.push_str(&format!("\"w-{n}\" cpu={cpu}ms\n   State: RUNNABLE\n\n"));
        }
        let out = fold(&text).expect("a fold");
        assert!(out.contains("… 5 more like it: \"w-1\"; \"w-2\"; \"w-3\"; \"w-4\"; \"w-5\""), "{out}");
    }

    #[test]
    fn values_below_the_header_are_listed() {
        let mut text = String::new();
        for n in 1..=6 {
            text.push_str(&format!("job {n}\n  waits for <0x{:08x}>\n\n", n * 16));
        }
        let out = fold(&text).expect("a fold");
        assert!(
            out.starts_with("job 1\n  waits for <0x00000010>\n… 5 more like it: 2 0x00000020; 3 0x00000030;"),
            "{out}"
        );
    }

    #[test]
    fn prose_and_few_paragraphs_pass() {
        assert_eq!(fold("a\n\nb\n\nc\n"), None);
        let prose: String =
            (0..8).map(|k| format!("Paragraph {k} says something else entirely, word {k}.\n\n")).collect();
        // one shape: they fold (the numbers listed)
        assert!(fold(&prose).is_some_and(|o| o.contains("… 7 more like it: 1 1; 2 2;")));
        let varied = "Intro line here.\n\nSecond has more words in it.\n\nThird: a list\n- a\n- b\n\nFourth.\n\nFifth one?\n\nSixth and last.\n";
        assert_eq!(fold(varied), None);
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;
    use crate::text::guard::Owned;

    /// A record of one of three shapes: a quoted name and numbers in its
    /// header, a state, frames, a lock address; some blocked.
    fn record() -> impl Strategy<Value = (String, bool)> {
        (0usize..3, 1u32..5000, 0u32..4, prop::bool::weighted(0.2)).prop_map(|(shape, n, lock, blocked)| {
            let state = if blocked { "BLOCKED (on object monitor)" } else { "WAITING (parking)" };
            let body = match shape {
                0 => format!("\tat java.lang.Thread.sleep(java.base@17.0.15/Native Method)\n\tat shop.Pool.take(Pool.java:{})", 10 + lock),
                1 => format!("\t- waiting to lock <0x00000000f840c9{lock:02}> (a java.lang.Object)\n\tat shop.Ledger.post(Ledger.java:13)"),
                _ => "\tat java.util.concurrent.FutureTask.run(java.base@17.0.15/FutureTask.java:264)".to_string(),
            };
            (format!("\"worker-{n}\" #{n} prio=5 cpu={}.{}ms nid=0x{n:x} waiting\n   State: {state}\n{body}", n % 9, n % 97), blocked)
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Many paragraphs of a few shapes: every one is shown, or named on
        /// the fold line of its shape with what tells it apart and a range
        /// that prints it; a blocked one is shown whole or folded with one
        /// the same to the byte below its header.
        #[test]
        fn every_paragraph_is_shown_or_named(records in prop::collection::vec(record(), 6..30)) {
            // One record per thread: two drawn with the same number would
            // share a header, and the checks below find a record by it.
            let mut seen = std::collections::HashSet::new();
            let records: Vec<(String, bool)> =
                records.into_iter().filter(|(r, _)| seen.insert(r.lines().next().unwrap_or("").to_string())).collect();
            let raw: String = records.iter().map(|(r, _)| format!("{r}\n\n")).collect();
            let owned = Owned::new(&raw);
            let Some(out) = render(&owned.src()) else { return Ok(()) };
            let text = out.join("\n");
            let raw_lines: Vec<&str> = raw.lines().collect();
            for (r, blocked) in &records {
                let header = r.lines().next().unwrap();
                let name = &header[..header.find(' ').unwrap()];
                if text.contains(header) {
                    if *blocked {
                        prop_assert!(text.contains(r.as_str()), "blocked record not whole: {:?}\n{}", r, text);
                    }
                    continue;
                }
                let fold = text.lines().find(|l| l.starts_with("… ") && l.contains(name));
                prop_assert!(fold.is_some(), "{} neither shown nor named:\n{}", name, text);
                let fold = fold.unwrap();
                // the range printed by `show --lines` holds it
                let range = fold.rsplit("--lines ").next().unwrap().trim_end_matches(')');
                let (a, b) = range.split_once(':').unwrap();
                let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
                prop_assert!(raw_lines[a - 1..b].contains(&header), "{} outside {}:\n{}", name, range, text);
                if *blocked {
                    // its lines below the header are shown as printed
                    let below: Vec<&str> = r.lines().skip(1).collect();
                    prop_assert!(below.iter().all(|l| text.contains(l)), "blocked {} lost its lines:\n{}", name, text);
                }
            }
        }
    }
}
