//! Property test of issue 26 rule 4: stacks of every language, user frames
//! and framework frames drawn at random, inside some noise, rendered as the
//! output of the filters that read stacks and of commands no filter claims
//! (the generic path). Every user frame must be in the rendering as printed
//! and every run of framework frames folded to one line of ours with its
//! count, in the stack's order (the lines of ours `lines::frames::fold_line`
//! writes).

use proptest::prelude::*;

use crate::lines::frames::fold_line;
use crate::settings::{Hint, Settings};
use crate::text::render;

/// A language's stacks: how a frame of each kind is printed.
#[derive(Clone, Copy, Debug)]
enum Lang {
    Jvm,
    JunitConsole,
    Node,
    Python,
    Dotnet,
    Go,
    Rust,
}

const LANGS: &[Lang] =
    &[Lang::Jvm, Lang::JunitConsole, Lang::Node, Lang::Python, Lang::Dotnet, Lang::Go, Lang::Rust];

/// One frame: its lines as printed, and whether it is the user's.
type Frame = (Vec<String>, bool);

fn frame(lang: Lang, user: bool, k: usize, n: u32) -> Frame {
    let f = |s: &str| vec![s.to_string()];
    let lines = match (lang, user) {
        (Lang::Jvm, true) => f(&format!("\tat com.acme.mod{k}.Orders.place{n}(Orders.java:{n})")),
        (Lang::Jvm, false) => f(&format!(
            "\tat {}.Impl{k}.call(Impl.java:{n})",
            [
                "java.util",
                "jdk.internal.reflect",
                "sun.nio.ch",
                "javax.servlet",
                "org.junit.jupiter.engine",
                "org.opentest4j",
                "junit.framework"
            ][k % 7]
        )),
        (Lang::JunitConsole, true) => f(&format!("       inventory.Stock{k}.take{n}(Stock.java:{n})")),
        (Lang::JunitConsole, false) => f(&format!(
            "       {}.Impl{k}.invoke(Impl.java:{n})",
            [
                "java.base/jdk.internal.reflect",
                "org.junit.platform.commons.util",
                "org.junit.jupiter.api",
                "java.base/java.lang.reflect"
            ][k % 4]
        )),
        (Lang::Node, true) => f(&format!("    at handle{n} (/srv/app/src/routes{k}.js:{n}:7)")),
        (Lang::Node, false) => f(&[
            format!("    at Module._compile (node:internal/modules/cjs/loader:{n}:14)"),
            "    at new Promise (<anonymous>)".to_string(),
            format!("    at callAsync (/srv/app/node_modules/jest-circus/build/utils.js:{n}:3)"),
            format!("    at process.processTicksAndRejections (node:internal/process/task_queues:{n}:5)"),
        ][k % 4]),
        (Lang::Python, true) => vec![
            format!("  File \"/app/shop/mod{k}.py\", line {n}, in step{n}"),
            format!("    step{}(order)", n + 1),
        ],
        (Lang::Python, false) => vec![
            format!(
                "  File \"{}\", line {n}, in run",
                [
                    "/usr/lib/python3.11/unittest/case.py",
                    "/app/venv/lib/python3.11/site-packages/_pytest/python.py",
                    "/app/venv/lib/python3.11/site-packages/pluggy/_callers.py"
                ][k % 3]
            ),
            "    return self._call(*args)".to_string(),
        ],
        (Lang::Dotnet, true) => f(&format!("   at Shop.Cart{k}.Total{n}() in /src/Shop/Cart.cs:line {n}")),
        (Lang::Dotnet, false) => f(&[
            "   at System.Linq.Enumerable.Sum(IEnumerable`1 source)".to_string(),
            format!(
                "   at Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke{n}(HttpContext httpContext)"
            ),
            "   at System.Threading.Tasks.Task.InnerInvoke()".to_string(),
        ][k % 3]),
        (Lang::Go, true) => vec![
            format!("example.com/app/shop{k}.(*Cart).Total{n}(...)"),
            format!("\t/home/dev/app/shop/cart{k}.go:{n} +0x1d"),
        ],
        (Lang::Go, false) => vec![
            ["runtime.main()", "testing.tRunner(0xc000007a00, 0x5a8b10)", "runtime.goexit()"][k % 3]
                .to_string(),
            format!(
                "\t/usr/local/go/src/{}.go:{n} +0x207",
                ["runtime/proc", "testing/testing", "runtime/asm_amd64"][k % 3]
            ),
        ],
        (Lang::Rust, true) => vec![
            format!("  {n:>2}: app::shop{k}::total{n}"),
            format!("             at ./src/shop{k}.rs:{n}:5"),
        ],
        (Lang::Rust, false) => match k % 3 {
            0 => vec![
                format!("  {n:>2}: core::panicking::panic_fmt"),
                format!("             at /rustc/abc/library/core/src/panicking.rs:{n}:14"),
            ],
            1 => vec![
                format!("  {n:>2}: std::rt::lang_start_internal"),
                format!("             at /rustc/abc/library/std/src/rt.rs:{n}:20"),
            ],
            _ => vec![format!("  {n:>2}: <unknown>")],
        },
    };
    (lines, user)
}

/// The stack's frames as the rendering must show them: user frames as
/// printed, each run of framework frames its fold line.
fn expected(frames: &[Frame]) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for (lines, user) in frames {
        if *user {
            if let Some(first) = run.first() {
                let indent = &first[..first.len() - first.trim_start().len()];
                out.push(fold_line(indent, run.len()));
                run.clear();
            }
            out.extend(lines.iter().cloned());
        } else {
            run.push(&lines[0]);
        }
    }
    if let Some(first) = run.first() {
        let indent = &first[..first.len() - first.trim_start().len()];
        out.push(fold_line(indent, run.len()));
    }
    out
}

/// The whole output around the stack, for `cmd`: the stack as the tool
/// prints it inside its report, with some noise around when no filter reads
/// it.
fn output(lang: Lang, frames: &[Frame], noise: usize, filter: bool) -> (String, &'static str) {
    let body: Vec<String> = frames.iter().flat_map(|(l, _)| l.iter().cloned()).collect();
    let body = body.join("\n");
    let pre: String =
        (0..noise).map(|i| format!("2026-01-01 12:00:{:02} INFO request {i} handled\n", i % 60)).collect();
    let (text, cmd) = match (lang, filter) {
        (Lang::Jvm, false) => (
            format!("{pre}java.lang.IllegalStateException: boom\n{body}\n\t... 3 more\n{pre}"),
            "./service.sh",
        ),
        (Lang::Jvm, true) => (
            format!(
                "[ERROR] Tests run: 1, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! -- in shop.OrdersTest\n[ERROR] shop.OrdersTest.place -- Time elapsed: 0.01 s <<< ERROR!\njava.lang.IllegalStateException: boom\n{body}\n\n[INFO] BUILD FAILURE\n"
            ),
            "mvn test",
        ),
        (Lang::JunitConsole, _) => (
            format!(
                "Failures (1):\n  JUnit Jupiter:StockTest:take()\n    MethodSource [className = 'inventory.StockTest', methodName = 'take', methodParameterTypes = '']\n    => org.opentest4j.AssertionFailedError: expected: <5> but was: <6>\n{body}\n       [...]\n\nTest run finished after 80 ms\n[         1 tests failed          ]\n"
            ),
            "java -jar junit-platform-console-standalone.jar",
        ),
        (Lang::Node, false) => (
            format!("{pre}TypeError: Cannot read properties of undefined (reading 'id')\n{body}\n{pre}"),
            "node server.js",
        ),
        (Lang::Node, true) => (
            format!(
                "FAIL src/cart.test.js\n  ● cart › totals\n\n    TypeError: Cannot read properties of undefined (reading 'id')\n\n{body}\n\nTests:       1 failed, 1 total\n"
            ),
            "npx jest",
        ),
        (Lang::Python, false) => (
            format!("{pre}Traceback (most recent call last):\n{body}\nValueError: boom\n{pre}"),
            "python3 worker.py",
        ),
        (Lang::Python, true) => (
            format!(
                "E\n======================================================================\nERROR: test_total (tests.test_cart.CartTest.test_total)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n{body}\nValueError: boom\n\n----------------------------------------------------------------------\nRan 1 test in 0.001s\n\nFAILED (errors=1)\n"
            ),
            "python3 -m unittest",
        ),
        (Lang::Dotnet, _) => (
            format!("{pre}Unhandled exception. System.InvalidOperationException: boom\n{body}\n{pre}"),
            "dotnet run",
        ),
        (Lang::Go, false) => {
            (format!("{pre}panic: boom\n\ngoroutine 1 [running]:\n{body}\nexit status 2\n"), "./server")
        }
        (Lang::Go, true) => (
            format!(
                "--- FAIL: TestTotal (0.00s)\npanic: boom [recovered]\n\tpanic: boom\n\ngoroutine 7 [running]:\n{body}\nFAIL\texample.com/app\t0.003s\nFAIL\n"
            ),
            "go test ./...",
        ),
        (Lang::Rust, false) => (
            format!(
                "{pre}thread 'main' panicked at src/main.rs:4:5:\nboom\nstack backtrace:\n{body}\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n"
            ),
            "./target/debug/app",
        ),
        (Lang::Rust, true) => (
            format!(
                "running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n\nthread 't' panicked at src/lib.rs:3:5:\nboom\nstack backtrace:\n{body}\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: test failed, to rerun pass `--lib`\n"
            ),
            "cargo test",
        ),
    };
    (text, cmd)
}

fn stack() -> impl Strategy<Value = (Lang, Vec<Frame>)> {
    (prop::sample::select(LANGS), prop::collection::vec((any::<bool>(), 0usize..12, 1u32..900), 1..24))
        .prop_map(|(lang, kinds)| {
            let mut frames: Vec<Frame> =
                kinds.into_iter().map(|(user, k, n)| frame(lang, user, k, n)).collect();
            // a stack has at least one frame of the user's: the one that failed
            if !frames.iter().any(|f| f.1) {
                frames.insert(0, frame(lang, true, 0, 1));
            }
            (lang, frames)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn user_frames_stay_and_framework_frames_fold_with_their_count(
        (lang, frames) in stack(),
        noise in 0usize..40,
        filter in any::<bool>(),
    ) {
        let (raw, cmd) = output(lang, &frames, noise, filter);
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings::default().into() };
        let hint = Hint { command: cmd.split_whitespace().map(str::to_string).collect(), exit_code: 1 };
        let rendered = render(&raw, Some(&hint), &settings).expect("a rendering");
        let want = expected(&frames);
        let got: Vec<&str> = rendered.text.lines().collect();
        let found = got.windows(want.len()).any(|w| w.iter().zip(&want).all(|(g, w)| g == w));
        prop_assert!(found, "`{}` ({:?}): want the frames as\n{}\ngot:\n{}", cmd, lang, want.join("\n"), rendered.text);
    }
}

/// A server hitting the same bug on every request: one stack, printed
/// `repeats` times among access lines, each time with its own value in the
/// exception. Through the generic path the stack's frames are said once
/// (`same trace as L…`) and every exception line stays as printed.
fn repeated(lang: Lang, frames: &[Frame], repeats: usize, noise: usize) -> (String, Vec<String>) {
    let body: String = frames.iter().flat_map(|f| f.0.iter()).map(|l| format!("{l}\n")).collect();
    let mut text = String::new();
    let mut exceptions = Vec::new();
    for r in 0..repeats {
        for i in 0..noise {
            text.push_str(&format!(
                "127.0.0.1 - - [27/Nov/2026:05:33:{:02}] \"GET /ok/{i} HTTP/1.1\" 200 17\n",
                i % 60
            ));
        }
        let exception = match lang {
            Lang::Python => {
                let e = format!("KeyError: 'SKU-{r:03}'");
                text.push_str(&format!("Traceback (most recent call last):\n{body}{e}\n"));
                e
            }
            Lang::Node => {
                let e = format!("TypeError: Cannot read properties of undefined (reading 'sku{r}')");
                text.push_str(&format!("{e}\n{body}"));
                e
            }
            _ => {
                let e = format!("java.lang.IllegalStateException: no price for 'SKU-{r:03}'");
                text.push_str(&format!("{e}\n{body}\t... 3 more\n"));
                e
            }
        };
        exceptions.push(exception);
        text.push_str(&format!(
            "127.0.0.1 - - [27/Nov/2026:05:33:59] \"GET /price/SKU-{r:03} HTTP/1.1\" 500 0\n"
        ));
    }
    (text, exceptions)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn a_repeated_stack_is_said_once_and_each_exception_stays(
        (lang, frames) in stack().prop_filter("a language whose stacks the generic path reads", |(l, _)| matches!(l, Lang::Python | Lang::Node | Lang::Jvm)),
        repeats in 2usize..8,
        noise in 0usize..30,
    ) {
        let (raw, exceptions) = repeated(lang, &frames, repeats, noise);
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings::default().into() };
        let hint = Hint { command: vec!["./server".to_string()], exit_code: 1 };
        let rendered = render(&raw, Some(&hint), &settings).expect("a rendering");
        let got: Vec<&str> = rendered.text.lines().collect();
        for e in &exceptions {
            prop_assert!(got.iter().any(|l| l.ends_with(e.as_str())), "{e} lost:\n{}", rendered.text);
        }
        let want = expected(&frames);
        let shown = got.windows(want.len()).filter(|w| w.iter().zip(&want).all(|(g, w)| g.ends_with(w.as_str()))).count();
        // a trace of fewer than three lines is shown whole every time
        let lines = want.len() + if matches!(lang, Lang::Node) { 1 } else { 2 };
        let once = if lines >= 3 { 1 } else { repeats };
        prop_assert_eq!(shown, once, "the frames:\n{}\ngot:\n{}", want.join("\n"), rendered.text);
        prop_assert!(lines < 3 || rendered.text.contains("same trace as L"), "{}", rendered.text);
    }
}

/// JUnit 5's console launcher, captured here (fixtures/text/local/tests,
/// repro/tests.sh): its bare frames fold like every stack's, each user
/// frame stays as printed, and the output shrinks by more than half.
#[test]
fn junit_console_keeps_user_frames_and_folds_the_framework() {
    let raw = include_str!("../../fixtures/text/local/tests/junit-console-failures.txt");
    let hint = Hint {
        command: ["java", "-jar", "junit-platform-console-standalone.jar"].map(String::from).to_vec(),
        exit_code: 1,
    };
    let r = render(raw, Some(&hint), &Settings::default().into()).expect("a rendering");
    let cleaned = crate::lines::cleaned(raw);
    for line in cleaned.lines().filter(|l| crate::lines::frames::frame_of(l) == Some(true)) {
        assert!(r.text.lines().any(|l| l == line), "user frame lost: {line:?}\n{}", r.text);
    }
    assert!(
        !r.text.contains("jdk.internal.reflect") && !r.text.contains("AssertionFailureBuilder"),
        "{}",
        r.text
    );
    assert!(r.text.contains("\n       (8 framework frames)\n       [...]\n"), "{}", r.text);
    assert!(r.text.len() * 2 < raw.len(), "{} of {} bytes:\n{}", r.text.len(), raw.len(), r.text);
}
