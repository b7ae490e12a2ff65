//! Documents are not logs: whether an output reads as a log (many lines of
//! one shape, stamped with times or levels, repeating) or as a document
//! (help and man pages, files, issue and commit texts, listings), decided
//! from the text alone. Only a log gets the head/tail summary; a document
//! passes whole (cleaned, exact repeats folded) up to the budget.

use once_cell::sync::Lazy;

use crate::command::Invocation;
use crate::values::shape;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Document,
    Log,
}

/// Fewer non-blank lines than this are too few to call a log.
const MIN_LINES: usize = 12;
/// A log when at least this share of lines starts with a time or a level...
const STAMPED: f64 = 0.3;
/// ...or this share of lines opens like the line before (same first two
/// words, numbers aside)...
const SAME_OPENING: f64 = 0.5;
/// ...or the generic fold would remove this share of the lines...
const REPEATED: f64 = 0.5;
/// ...or this share of lines has a shape (numbers aside) that at least
/// `COMMON` lines share.
const COMMON_SHARE: f64 = 0.6;
const COMMON: usize = 3;

/// A time, a date or a log level within a line's first characters.
static STAMP: Lazy<regex::bytes::Regex> = Lazy::new(|| {
    crate::text::ascii_regex(concat!(
        r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\d\d:\d\d:\d\d|\[\d\d?/\w{3}/\d{4}|^\w{3} [ \d]\d \d\d:\d\d|^\[\s*\d+\.\d+\]|",
        r"^\d{10}(?:\.\d+)?\s|^[IWEF]\d{4} |",
        r"(?-u:\b)(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE)(?-u:\b)|",
        r#"(?i)\[(?:trace|debug|info|notice|warn|warning|error|fatal|crit)\]|(?i)(?-u:\b)level["']?\s*[=:]"#
    ))
    .expect("valid stamp regex")
});
/// How far into a line a stamp counts as the line's opening.
const STAMP_SPAN: usize = 48;

/// What the command asked for, as far as its words tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asked {
    /// Help, a man page, an issue or pull request view: a document whatever
    /// its lines look like.
    Document,
    /// A file's bytes (`cat`, `head`, `sed -n 1,80p`...): a document unless
    /// its lines are stamped with times or levels (a log file read whole).
    File,
    /// Anything else: the text decides.
    Output,
}

/// Tools whose output is a file's content.
const FILE_READERS: &[&str] = &[
    "cat", "bat", "batcat", "head", "tail", "sed", "nl", "tac", "less", "more", "view", "awk", "cut",
    "column",
];
/// Tools whose output is documentation.
const DOC_TOOLS: &[&str] = &["man", "info", "pydoc", "perldoc", "tldr", "apropos", "whatis", "ri"];

/// What `inv` asks for: documentation (`--help`, `man`, `help` subcommands,
/// issue and pull-request views), a file's content, or a program's output.
pub fn asked(inv: Option<&Invocation>) -> Asked {
    let Some(inv) = inv else { return Asked::Output };
    let help =
        inv.args.iter().any(|a| a == "--help" || a == "-h" || a == "-help" || a.starts_with("--help="))
            || inv.sub() == "help";
    let words: Vec<&str> = inv.args.iter().take(3).map(String::as_str).collect();
    let viewing = words.iter().any(|w| matches!(*w, "show" | "view"));
    let view = viewing
        && (inv.is(&["issues", "bd", "jira", "linear", "tea"])
            || words.iter().any(|w| matches!(*w, "issue" | "pr" | "mr")));
    // commit messages (`git show` of a commit without a patch, `git log`),
    // a file as git has it (`git show REV:path`, `cat-file -p`, `blame`)
    let commits =
        inv.tool == "git" && matches!(inv.sub(), "log" | "show" | "blame" | "cat-file" | "annotate");
    if help || view || commits || inv.is(DOC_TOOLS) {
        return Asked::Document;
    }
    // `tail -f` follows a live log; the shim streams it anyway
    if inv.is(FILE_READERS) {
        return Asked::File;
    }
    Asked::Output
}

/// Decides whether `lines` (cleaned) read as a log, given what was asked.
pub fn classify_asked(lines: &[&str], asked: Asked) -> Kind {
    match asked {
        Asked::Document => Kind::Document,
        Asked::File if stamped_share(lines) < STAMPED => Kind::Document,
        _ => classify(lines),
    }
}

/// The share of non-blank lines stamped with a time or a level near their start.
fn stamped_share(lines: &[&str]) -> f64 {
    let body: Vec<&str> = lines.iter().copied().filter(|l| !l.trim().is_empty()).collect();
    let stamped = body.iter().filter(|l| STAMP.is_match(opening(l).as_bytes())).count();
    stamped as f64 / body.len().max(1) as f64
}

/// Keys a log record names its level and its time with.
const LEVEL_KEYS: &[&str] = &["level", "lvl", "severity", "levelname", "loglevel", "log.level"];
const TIME_KEYS: &[&str] = &["ts", "time", "timestamp", "@timestamp", "t", "datetime", "asctime", "date"];
/// Records looked at (the first ones and the last).
const RECORDS_SAMPLED: usize = 20;

/// Whether `text` is JSON lines of log records: at least `MIN_LINES` lines,
/// each one JSON object, the sampled ones (the first `RECORDS_SAMPLED` and
/// the last) each with a level and a time key. Such an output is a log, not
/// a document to outline: its records are quoted as printed (the error
/// record verbatim, how the log ended) like any log's lines.
pub fn json_lines_log(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() < MIN_LINES
        || !lines.iter().all(|l| l.trim_start().starts_with('{') && l.trim_end().ends_with('}'))
    {
        return false;
    }
    let record = |line: &str| -> bool {
        let Ok(serde_json::Value::Object(m)) = serde_json::from_str::<serde_json::Value>(line) else {
            return false;
        };
        LEVEL_KEYS.iter().any(|k| m.contains_key(*k)) && TIME_KEYS.iter().any(|k| m.contains_key(*k))
    };
    lines.iter().take(RECORDS_SAMPLED).chain(lines.last()).all(|l| record(l))
}

/// Decides whether `lines` (cleaned) read as a log.
pub fn classify(lines: &[&str]) -> Kind {
    let body: Vec<&str> = lines.iter().copied().filter(|l| !l.trim().is_empty()).collect();
    let n = body.len();
    if n < MIN_LINES {
        return Kind::Document;
    }
    if stamped_share(lines) >= STAMPED {
        return Kind::Log;
    }
    let words: Vec<(String, String)> = body.iter().map(|l| first_words(l)).collect();
    let same = words.windows(2).filter(|w| w[0] == w[1] && !w[0].0.is_empty()).count();
    if same as f64 >= SAME_OPENING * (n - 1) as f64 {
        return Kind::Log;
    }
    let shapes: Vec<String> = body.iter().map(|l| shape(l)).collect();
    let repeats = shapes.windows(2).filter(|w| w[0] == w[1]).count();
    if repeats as f64 >= REPEATED * (n - 1) as f64 {
        return Kind::Log;
    }
    if common_share(&shapes) >= COMMON_SHARE {
        return Kind::Log;
    }
    Kind::Document
}

/// The share of lines whose shape at least `COMMON` lines have.
fn common_share(shapes: &[String]) -> f64 {
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for s in shapes {
        *counts.entry(s).or_default() += 1;
    }
    let common: usize = counts.values().filter(|&&n| n >= COMMON).sum();
    common as f64 / shapes.len().max(1) as f64
}

/// The first `STAMP_SPAN` chars of a line (at a char boundary).
fn opening(line: &str) -> &str {
    let mut end = line.len().min(STAMP_SPAN);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// The first two whitespace-separated words of a line, numbers replaced.
/// A line of one word gives an empty second word.
fn first_words(line: &str) -> (String, String) {
    let mut words = line.split_whitespace();
    let a = words.next().map(shape).unwrap_or_default();
    let b = words.next().map(shape).unwrap_or_default();
    if b.is_empty() { (String::new(), String::new()) } else { (a, b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(text: &str) -> Kind {
        classify(&text.lines().collect::<Vec<_>>())
    }

    fn asked_of(cmd: &str) -> Asked {
        asked(Some(&crate::command::inv(cmd)))
    }

    #[test]
    fn what_the_command_asked_for() {
        for cmd in [
            "cargo build --help",
            "man ls",
            "gh issue view 12",
            "issues show 10",
            "git blame a.py",
            "git log -5",
        ] {
            assert_eq!(asked_of(cmd), Asked::Document, "{cmd}");
        }
        for cmd in ["cat /usr/include/inttypes.h", "sed -n 1,600p Cargo.lock", "head -50 app.log"] {
            assert_eq!(asked_of(cmd), Asked::File, "{cmd}");
        }
        assert_eq!(asked_of("python3 worker.py"), Asked::Output);
        assert_eq!(asked(None), Asked::Output);
    }

    #[test]
    fn a_file_is_a_document_unless_its_lines_are_stamped() {
        let header: String = (0..40).map(|i| format!("# define PRId{i}\t\"d\"\n")).collect();
        let lines: Vec<&str> = header.lines().collect();
        assert_eq!(classify(&lines), Kind::Log);
        assert_eq!(classify_asked(&lines, Asked::File), Kind::Document);
        assert_eq!(classify_asked(&lines, Asked::Document), Kind::Document);
        let log: String =
            (0..40).map(|i| format!("2026-09-22 04:51:{i:02} status installed pkg{i}\n")).collect();
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(classify_asked(&lines, Asked::File), Kind::Log);
    }

    #[test]
    fn stamped_lines_are_a_log() {
        let log: String = (0..30)
            .map(|i| format!("2026-09-22 04:51:{i:02} status installed pkg{i}:amd64 1.{i}\n"))
            .collect();
        assert_eq!(kind(&log), Kind::Log);
        let levels: String = ["[INFO] Scanning", "[INFO] Building jar", "[WARNING] unchecked"]
            .iter()
            .cycle()
            .take(20)
            .map(|l| format!("{l} x\n"))
            .collect();
        assert_eq!(kind(&levels), Kind::Log);
    }

    #[test]
    fn lines_of_one_opening_are_a_log() {
        let access: String = (0..30)
            .map(|i| format!("127.0.0.1 - - \"GET /static/f{i}.txt HTTP/1.1\" 200 {}\n", i * 7))
            .collect();
        assert_eq!(kind(&access), Kind::Log);
    }

    #[test]
    fn prose_help_and_code_are_documents() {
        let prose = "The quick brown fox jumps over the lazy dog while the cat\nwatches from the window. Nobody knows why the fox keeps\njumping, but the dog has stopped caring about it long ago.\n".to_string()
            + "Each morning the farmer counts his hens and finds one more\nthan the day before, which puzzles him greatly. He asks\nhis neighbour, who shrugs and says the hens must be\nmultiplying by themselves. The farmer is not convinced,\nso he sets up a camera in the barn and waits. On the\nthird night the camera shows a small red hen walking in\nfrom the woods, nodding to the others, and settling down\nas if she had always lived there.\n";
        assert_eq!(kind(&prose), Kind::Document);
        let help = "Usage: tool [OPTIONS] <FILE>\n\nOptions:\n  -v, --verbose     Say more\n  -q, --quiet       Say less\n  -o, --output <F>  Write to F\n  -j, --jobs <N>    Run N jobs\n      --color       Colour output\n  -h, --help        Print help\n  -V, --version     Print version\n\nCommands:\n  build   Compile\n  test    Run tests\n  clean   Remove artifacts\n";
        assert_eq!(kind(help), Kind::Document);
        let code = "fn main() {\n    let x = 1;\n    let y = 2;\n    if x < y {\n        println!(\"less\");\n    }\n    for i in 0..3 {\n        work(i);\n    }\n    match x {\n        1 => one(),\n        _ => other(),\n    }\n}\n";
        assert_eq!(kind(code), Kind::Document);
    }

    #[test]
    fn short_outputs_are_documents() {
        assert_eq!(kind("12:00:01 INFO a\n12:00:02 INFO b\n"), Kind::Document);
    }

    /// JSON lines of records with a level and a time are a log; other JSON
    /// lines (listings, events without a level) and a log with one non-JSON
    /// line are not.
    #[test]
    fn json_lines_of_log_records() {
        let record = |i: usize, level: &str| {
            format!("{{\"ts\": {i}.5, \"level\": \"{level}\", \"msg\": \"quote {i}\"}}\n")
        };
        let log: String = (0..30).map(|i| record(i, if i == 17 { "error" } else { "info" })).collect();
        assert!(super::json_lines_log(&log));
        assert!(!super::json_lines_log(&log[..log.len() / 10]), "too few lines");
        assert!(!super::json_lines_log(&format!("{log}Traceback (most recent call last):\n")));
        let listing: String =
            (0..30).map(|i| format!("{{\"name\": \"pod-{i}\", \"status\": \"Running\"}}\n")).collect();
        assert!(!super::json_lines_log(&listing));
    }
}

#[cfg(test)]
mod survey {
    /// `SURVEY_DIR=... cargo test --lib kind::survey -- --ignored --nocapture`:
    /// the decision and its three measures for every `.txt` in a folder.
    #[test]
    #[ignore]
    fn print_kinds() {
        let dir = std::env::var("SURVEY_DIR").unwrap_or_else(|_| "fixtures/text".into());
        let mut paths: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for p in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "txt")) {
            let text = crate::text::clean::clean(&String::from_utf8_lossy(&std::fs::read(p).unwrap()));
            let lines: Vec<&str> = text.lines().collect();
            let body: Vec<&str> = lines.iter().copied().filter(|l| !l.trim().is_empty()).collect();
            let n = body.len().max(2) as f64;
            let stamped = body.iter().filter(|l| super::STAMP.is_match(super::opening(l).as_bytes())).count()
                as f64
                / n;
            let w: Vec<_> = body.iter().map(|l| super::first_words(l)).collect();
            let same = w.windows(2).filter(|w| w[0] == w[1] && !w[0].0.is_empty()).count() as f64 / (n - 1.0);
            let s: Vec<_> = body.iter().map(|l| super::shape(l)).collect();
            let rep = s.windows(2).filter(|w| w[0] == w[1]).count() as f64 / (n - 1.0);
            let common = super::common_share(&s);
            println!(
                "{:<9?} stamped {stamped:.2} same {same:.2} repeated {rep:.2} common {common:.2} lines {:>5} {}",
                super::classify(&lines),
                body.len(),
                p.file_name().unwrap().to_string_lossy()
            );
        }
    }
}
