//! The text guard through the real binary: count lines carry a command that
//! really prints what they count; a filter that loses a signal line is
//! replaced (and `TOKENSIEVE_DEBUG=1` says so); documents pass whole.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{BIN, receipt};

fn filter(cmd: &str, exit: i32, input: &[u8], home: &Path, debug: bool) -> Output {
    let mut c = Command::new(BIN);
    c.args(["--cmd", cmd, "--exit", &exit.to_string()])
        .env("TOKENSIEVE_HOME", home)
        .env_remove("TOKENSIEVE")
        .env_remove("CLAUDECODE")
        .env_remove("TOKENSIEVE_DEBUG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if debug {
        c.env("TOKENSIEVE_DEBUG", "1");
    }
    let mut child = c.spawn().expect("tokensieve runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// `(N lines: tokensieve show ID --grep 'RE')` → (N, ID, RE), shell quoting undone.
fn count_lines(out: &str) -> Vec<(usize, String, String)> {
    let re = regex::Regex::new(r"\((\d+) lines?: tokensieve show ([0-9a-f]+) --grep '((?:[^']|'\\'')*)'\)")
        .unwrap();
    re.captures_iter(out)
        .map(|c| (c[1].parse().unwrap(), c[2].to_string(), c[3].replace("'\\''", "'")))
        .collect()
}

/// A service log: 3,000 routine lines, 120 distinct failures of one shape
/// spread through it, and one of another shape.
fn service_log() -> String {
    let mut s = String::new();
    for i in 0..3000 {
        let t = format!("2026-03-04 10:{:02}:{:02}", i / 60 % 60, i % 60);
        s.push_str(&format!("{t} INFO  worker-{} handled request {} in {} ms\n", i % 8, 1000 + i, i % 97));
        if i % 25 == 7 {
            s.push_str(&format!(
                "{t} ERROR worker-{} lost its connection to db-{} (attempt {})\n",
                i % 8,
                i % 5,
                i
            ));
        }
        if i == 2222 {
            s.push_str(&format!("{t} ERROR can't reach the 'billing' queue\n"));
        }
    }
    s
}

#[test]
fn count_lines_give_a_command_that_prints_those_lines() {
    let home = tempfile::tempdir().unwrap();
    let log = service_log();
    let out = filter("./service.sh", 0, log.as_bytes(), home.path(), false);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(receipt(&out.stderr).unwrap().contains("text:generic"), "{text}");
    let counts = count_lines(&text);
    assert!(!counts.is_empty(), "{text}");
    assert!(text.len() * 10 < log.len(), "{} of {}", text.len(), log.len());
    assert!(text.contains("ERROR can't reach the 'billing' queue"), "{text}");
    let mut printed = String::new();
    for (n, id, pattern) in counts {
        let shown = Command::new(BIN)
            .args(["show", &id, "--grep", &pattern])
            .env("TOKENSIEVE_HOME", home.path())
            .output()
            .unwrap();
        assert!(shown.status.success(), "{}", String::from_utf8_lossy(&shown.stderr));
        let shown = String::from_utf8(shown.stdout).unwrap();
        assert_eq!(shown.lines().count(), n, "{pattern}");
        printed.push_str(&shown);
    }
    // every failure line is either in the output or printed by a command it gives
    for line in log.lines().filter(|l| l.contains(" ERROR ")) {
        assert!(text.contains(line) || printed.contains(line), "lost: {line}");
    }
}

#[test]
fn a_filter_that_drops_a_signal_line_gives_way_and_says_so() {
    // BuildKit output: the filter keeps only the failed step's lines, but a
    // step that succeeded printed a compiler error worth seeing
    let raw = "#1 [internal] load build definition from Dockerfile\n#1 transferring dockerfile: 120B done\n#1 DONE 0.0s\n\
               #4 [2/3] RUN make lint\n#4 0.311 src/pay.c:41:9: error: use of undeclared identifier 'amount'\n#4 0.312 lint finished\n#4 DONE 0.4s\n\
               #5 [3/3] RUN make\n#5 0.412 gcc -c a.c\n#5 ERROR: process \"/bin/sh -c make\" did not complete successfully: exit code: 2\n\
               ERROR: failed to solve: process \"/bin/sh -c make\" did not complete successfully: exit code: 2\n";
    let home = tempfile::tempdir().unwrap();
    let out = filter("docker build .", 1, raw.as_bytes(), home.path(), true);
    let text = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("#4 0.311 src/pay.c:41:9: error: use of undeclared identifier 'amount'"), "{text}");
    assert!(stderr.contains("tokensieve: text:docker 1 signal lines lost"), "{stderr}");
    assert!(!receipt(&out.stderr).unwrap().contains("text:docker"), "{stderr}");
    // without the debug variable, nothing is said
    let quiet = filter("docker build .", 1, raw.as_bytes(), home.path(), false);
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("signal lines lost"));
}

#[test]
fn a_man_page_passes_whole_without_overstrike() {
    let mut page = String::new();
    let bold = |s: &str| s.chars().map(|c| format!("{c}\u{8}{c}")).collect::<String>();
    page.push_str(&format!("{}\n       frob - turn knobs\n\n{}\n", bold("NAME"), bold("DESCRIPTION")));
    let words = [
        "knob", "dial", "lever", "turns", "quietly", "every", "given", "order", "skipped", "printed", "plan",
        "twice",
    ];
    for i in 0..80usize {
        let line: Vec<&str> = (0..4 + i % 7).map(|k| words[(i * 5 + k * 7 + i / 12) % words.len()]).collect();
        page.push_str(&format!("       {}.\n", line.join(" ")));
        if i % 9 == 8 {
            page.push_str(&format!("\n{}\n", bold("OPTIONS")));
        }
    }
    let home = tempfile::tempdir().unwrap();
    let out = filter("man frob", 0, page.as_bytes(), home.path(), false);
    let text = String::from_utf8(out.stdout).unwrap();
    let cleaned = regex::Regex::new(".\u{8}").unwrap().replace_all(&page, "");
    assert_eq!(text, cleaned);
    assert!(receipt(&out.stderr).unwrap().contains("text:document"));
}

#[test]
fn a_failed_test_runs_passes_are_counted_by_a_command_that_prints_them() {
    // prove -v, which no filter claims: the generic rendering, then the
    // test-run rule drops the TAP `ok` lines of the failed run
    let raw = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/local/tests/prove-tap-failures.txt"),
    )
    .unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = filter("prove -v t/", 1, raw.as_bytes(), home.path(), false);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("not ok 3 - folds accents") && !text.contains("ok 13 - sort numbers"), "{text}");
    let counts = count_lines(&text);
    assert_eq!(counts.len(), 1, "{text}");
    let (n, id, pattern) = &counts[0];
    assert!(text.contains(&format!("passing tests not shown ({n} lines: tokensieve show {id}")), "{text}");
    let shown = Command::new(BIN)
        .args(["show", id, "--grep", pattern])
        .env("TOKENSIEVE_HOME", home.path())
        .output()
        .unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert_eq!(shown.lines().count(), *n, "{shown}");
    // every pass left out is among what the command prints
    for pass in raw.lines().filter(|l| l.starts_with("ok ")) {
        assert!(!text.contains(pass) && shown.contains(pass), "{pass}");
    }
}
