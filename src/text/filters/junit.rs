//! JUnit 5's console launcher (`java -jar junit-platform-console-standalone.jar
//! …`, `junit-platform-console`, `ConsoleLauncher`): the test tree's passing
//! nodes (`✔`) are counted, every other node (`✘` with its message,
//! skipped, aborted) stays as printed; the `Failures (N):` section keeps
//! each failure's name and exception, its stack folded as every stack is
//! (`lines::frames`: user frames as printed, each run of framework frames
//! one count line, `Caused by:` and `[...]` kept); `MethodSource [...]`
//! lines (the failure's name says it) and the banner go; the run's closing
//! counts stay.

use super::{Filter, Invocation};
use crate::lines::frames::{self, Frame, Step};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct JunitConsole;

impl Filter for JunitConsole {
    fn name(&self) -> &'static str {
        "junit"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "junit-platform-console"
            || inv.tool == "java"
                && inv
                    .args
                    .iter()
                    .any(|a| a.contains("junit-platform-console") || a.ends_with(".ConsoleLauncher"))
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        summarize(text)
    }
}

/// The tree's drawing characters (`╷`, `├─`, `│`, `└─`).
fn is_tree(line: &str) -> bool {
    line.starts_with(['╷', '├', '│', '└'])
}

fn summarize(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    if !lines.iter().any(|l| l.starts_with("Test run finished after ")) {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    let mut passed = 0usize;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if frames::frame_of(line).is_some() {
            let (pieces, end) = frames::fold_frames(&lines, i, |k| match frames::frame_of(lines[k]) {
                Some(user) => Step::Frame(Frame { span: 1, user }),
                None if frames::is_stack_note(lines[k]) => Step::Keep,
                None => Step::Stop,
            });
            out.extend(frames::render(&pieces, &lines));
            i = end;
            continue;
        }
        let t = line.trim();
        if is_tree(line) && t.ends_with('✔') {
            passed += 1;
        } else if !(t == "╷"
            || t.is_empty()
            || line.starts_with("Thanks for using JUnit")
            || t.starts_with("MethodSource [")
            || t.starts_with("ClassSource ["))
        {
            out.push(line.to_string());
        }
        i += 1;
    }
    if passed > 0 {
        out.push(format!("({passed} passing tests and containers not shown)"));
    }
    Some(tidy(&out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::guard::{self, Owned};

    #[test]
    fn the_real_launcher_keeps_failures_and_folds_framework_frames() {
        let raw = include_str!("../../../fixtures/text/local/tests/junit-console-failures.txt");
        let text = crate::lines::cleaned(raw);
        let out = summarize(&text).unwrap();
        assert!(
            out.contains("├─ valueNeedsEveryPrice() ✘ Cannot invoke \"java.lang.Long.longValue()\""),
            "{out}"
        );
        assert!(!out.contains("receiveAddsUp() ✔"), "{out}");
        assert!(
            out.contains(
                "  JUnit Jupiter:StockTest:overReservingIsRefused()\n    => org.opentest4j.AssertionFailedError: Unexpected exception type thrown"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "       (4 framework frames)\n       inventory.StockTest.overReservingIsRefused(StockTest.java:39)\n       [...]\n     Caused by: java.lang.IllegalStateException: cannot reserve 5 of C-3, only 2 free\n       inventory.Stock.reserve(Stock.java:22)\n"
            ),
            "{out}"
        );
        assert!(!out.contains("MethodSource") && !out.contains("jdk.internal.reflect"), "{out}");
        assert!(
            out.ends_with(
                "[         5 tests failed          ]\n(12 passing tests and containers not shown)\n"
            ),
            "{out}"
        );
        let owned = Owned::new(&text);
        assert_eq!(guard::check(&out, &owned.src()), Ok(()));
    }

    #[test]
    fn other_java_programs_are_not_claimed() {
        let inv = Invocation::parse(&["java".into(), "-jar".into(), "app.jar".into()]).unwrap();
        assert!(!JunitConsole.claims(&inv));
        let inv = Invocation::parse(
            &["java", "-jar", "/usr/share/java/junit-platform-console-standalone.jar", "-cp", "out"]
                .map(String::from),
        )
        .unwrap();
        assert!(JunitConsole.claims(&inv));
        assert!(summarize("hello\n").is_none());
    }
}
