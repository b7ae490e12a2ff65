//! Stack frames of every language, and the one fold of the framework's
//! frames every text path uses (issue 26 rule 4).
//!
//! A frame is the user's when it points into the user's code; frames of the
//! standard library, the test framework, the runtime and reflection are
//! the framework's: JVM (`java.*`, `jdk.*` (reflection included), `sun.*`,
//! `javax.*`, `org.junit.*`, `org.opentest4j.*`, …), Node (`node:internal`,
//! `internal/…`, `node_modules`, `(<anonymous>)`), Python (the interpreter's
//! lib, site-packages: pytest, pluggy, unittest), .NET (`System.*`,
//! `Microsoft.*`), Go (the toolchain's sources, `runtime.`/`testing.`),
//! Rust (a frame whose `at` line points into the toolchain, or that has
//! none). User frames are kept as printed; each run of framework frames
//! becomes one line of ours where it stood, with its count:
//! `(N framework frames)`, indented as the first frame it stands for
//! ([`fold_line`]). The stack's own lines (`Caused by:`, `... 12 more`,
//! the exception) are not frames and stay.
//!
//! The walkers here ([`fold_frames`], [`Fold`]) are the only places a run
//! of framework frames is counted; the recognisers ([`frame_of`],
//! [`python_frame`], [`go_frame`], [`rust_frame`]) are the only places a
//! frame is told from the user's code.

use once_cell::sync::Lazy;
use regex::Regex;

use crate::lines::clean::is_library_path;

/// A frame that starts at some line: how many lines it spans (its source
/// line or location line included) and whether it is the user's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub span: usize,
    pub user: bool,
}

/// The one line of ours that stands for `n` framework frames in a row,
/// indented as the first of them was.
pub fn fold_line(indent: &str, n: usize) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{indent}({n} framework frame{s})")
}

/// The leading blanks of `line`.
fn indent_of(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// Framework frames counted one at a time, for a filter that walks its
/// output line by line: [`Fold::frame`] for each framework frame,
/// [`Fold::flush`] before any other line it writes (and at the end).
#[derive(Debug, Default)]
pub struct Fold {
    n: usize,
    indent: String,
}

impl Fold {
    /// One framework frame whose first line is `line`.
    pub fn frame(&mut self, line: &str) {
        if self.n == 0 {
            self.indent = indent_of(line).to_string();
        }
        self.n += 1;
    }

    /// A frame line: the user's kept as printed (after the count of the run
    /// before it), the framework's counted.
    pub fn push(&mut self, line: &str, user: bool, out: &mut Vec<String>) {
        if user {
            self.flush(out);
            out.push(line.to_string());
        } else {
            self.frame(line);
        }
    }

    /// The count line of the run so far (if any), appended to `out`.
    pub fn flush(&mut self, out: &mut Vec<String>) {
        if self.n > 0 {
            out.push(fold_line(&self.indent, self.n));
            self.n = 0;
        }
    }
}

/// One piece of a stack as rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A line of the output, kept as it is.
    Line(usize),
    /// `n` framework frames in a row, the first at line `first`.
    Folded { first: usize, n: usize },
}

/// What a stack's walker makes of the line it stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// A frame: kept (all its lines) when the user's, else folded.
    Frame(Frame),
    /// A line of the stack kept as it is (`Caused by:`, `... 12 more`).
    Keep,
    /// A line of the stack left out (a blank, the carets under a source
    /// line): it neither shows nor ends a run of framework frames.
    Skip,
    /// Not part of the stack: the walk ends here.
    Stop,
}

/// Walks a stack from `start` with `step` telling each line's part: user
/// frames and kept lines as [`Piece::Line`]s, each run of framework frames
/// one [`Piece::Folded`]. Returns the pieces and the line where it stopped.
pub fn fold_frames(lines: &[&str], start: usize, mut step: impl FnMut(usize) -> Step) -> (Vec<Piece>, usize) {
    let mut pieces = Vec::new();
    let mut i = start;
    while i < lines.len() {
        match step(i) {
            Step::Frame(f) if f.user => {
                let end = (i + f.span.max(1)).min(lines.len());
                pieces.extend((i..end).map(Piece::Line));
                i = end;
            }
            Step::Frame(f) => {
                match pieces.last_mut() {
                    Some(Piece::Folded { n, .. }) => *n += 1,
                    _ => pieces.push(Piece::Folded { first: i, n: 1 }),
                }
                i += f.span.max(1);
            }
            Step::Keep => {
                pieces.push(Piece::Line(i));
                i += 1;
            }
            Step::Skip => i += 1,
            Step::Stop => break,
        }
    }
    (pieces, i.min(lines.len()))
}

/// The pieces as lines: kept lines verbatim, each fold as its [`fold_line`].
pub fn render(pieces: &[Piece], lines: &[&str]) -> Vec<String> {
    pieces
        .iter()
        .map(|p| match *p {
            Piece::Line(i) => lines[i].to_string(),
            Piece::Folded { first, n } => fold_line(indent_of(lines[first]), n),
        })
        .collect()
}

/// Packages of the JVM's runtime, reflection, test frameworks and common
/// application frameworks: their frames are machinery, not the user's code.
const JVM_FRAMEWORK: &[&str] = &[
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "com.sun.",
    "kotlin.",
    "kotlinx.",
    "scala.",
    "groovy.",
    "org.junit.",
    "junit.",
    "org.opentest4j.",
    "org.testng.",
    "org.assertj.",
    "org.hamcrest.",
    "org.apache.",
    "org.springframework.",
    "org.hibernate.",
    "io.netty.",
    "reactor.",
    "com.fasterxml.",
    "org.eclipse.",
    "org.gradle.",
    "worker.org.gradle.",
    "org.codehaus.",
    "org.mockito.",
    "net.bytebuddy.",
    "com.google.common.",
    "io.micronaut.",
    "io.quarkus.",
    "akka.",
];

/// .NET's runtime and test frameworks.
const DOTNET_FRAMEWORK: &[&str] = &["System.", "Microsoft.", "Xunit.", "xunit.", "NUnit.", "Castle."];

/// `pkg.Class.method(File.java:12)`, `(Native Method)`, `(Unknown Source)`,
/// the location after the module that holds it as the JVM's thread dumps
/// and Java 9+ traces print it (`java.base@17.0.15/Thread.java:840`,
/// `app//Main.java:3`).
static JVM_FRAME: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"^([\w$./<>-]+)\((?:[\w.$-]*(?:@[\w.+-]+)?//?)?(?:[\w$-]+\.(?:java|kt|scala|groovy|clj):\d+|Native Method|Unknown Source)\)$",
    )
    .expect("valid jvm frame regex")
});
/// Node `fn (path:l:c)` / `path:l:c`, .NET `M() in path:line N`.
static PATH_FRAME: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\(((?:file://)?[^()\s]+):\d+:\d+\)$|^((?:file://)?[^()\s]+):\d+:\d+$| in (\S+):line \d+$")
        .expect("valid path frame regex")
});
/// Node's frames of native code: `new Promise (<anonymous>)`,
/// `Array.forEach (<anonymous>)`, `async Promise.all (index 0)`.
static NODE_NATIVE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\S[^()]* \((?:<anonymous>|native|index \d+)\)$").expect("valid native frame regex")
});
/// A .NET frame without a location: `Namespace.Type.Method(Type arg)`.
static DOTNET_FRAME: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^([\w.`<>$|+\[\]]+(?:, [\w.`\[\]]+)*)\([^()]*\)$").expect("valid .NET frame regex")
});

/// A stack frame line of the JVM, Node or .NET (`at …`, or a JVM frame
/// printed bare and indented, as JUnit's console launcher does):
/// `Some(true)` when it is the user's code.
pub fn frame_of(line: &str) -> Option<bool> {
    let body = line.trim_start();
    if body.len() == line.len() {
        return None;
    }
    let Some(body) = body.strip_prefix("at ") else {
        // JUnit's console launcher prints JVM frames without `at`
        if !body.ends_with(')') {
            return None;
        }
        return JVM_FRAME.captures(body).map(|c| jvm_user(&c[1]));
    };
    if body.is_empty() || body.starts_with(' ') {
        return None;
    }
    if let Some(c) = JVM_FRAME.captures(body) {
        return Some(jvm_user(&c[1]));
    }
    if let Some(user) = path_frame(body) {
        return Some(user);
    }
    if NODE_NATIVE.is_match(body) {
        return Some(false);
    }
    if let Some(c) = DOTNET_FRAME.captures(body) {
        return Some(!DOTNET_FRAMEWORK.iter().any(|p| c[1].starts_with(p)));
    }
    None
}

/// A frame that names its place: Node's `fn (path:l:c)` or `path:l:c`,
/// .NET's `M() in path:line N`.
fn path_frame(body: &str) -> Option<bool> {
    let c = PATH_FRAME.captures(body)?;
    let path = c.get(1).or(c.get(2)).or(c.get(3)).map_or("", |m| m.as_str());
    let framework = is_library_path(path)
        || path.starts_with("node:")
        || c.get(3).is_some() && DOTNET_FRAMEWORK.iter().any(|p| body.starts_with(p));
    Some(!framework)
}

/// A JavaScript frame printed without `at`, as TAP's `stack: |-` block
/// does (`    Test.run (node:internal/test_runner/test:631:25)`).
pub fn bare_js_frame(line: &str) -> Option<bool> {
    let body = line.trim_start();
    if body.len() == line.len() || !body.ends_with(')') || !body.contains(" (") {
        return None;
    }
    path_frame(body)
}

fn jvm_user(class: &str) -> bool {
    // a lambda's synthetic class (`Workers$$Lambda$2/0x7f0e.call`) is the
    // JVM's glue between the user's frames around it
    if class.contains("$$Lambda") {
        return false;
    }
    let class = class.rsplit_once('/').map_or(class, |(_, c)| c);
    !JVM_FRAMEWORK.iter().any(|p| class.starts_with(p))
}

/// A line of a JVM stack that is not a frame: `Caused by:`/`Suppressed:`,
/// the tool's own count of frames shared with the trace above (`... 12
/// more`, logback's `... 3 common frames omitted`), JUnit's `[...]`. Short,
/// quoted as printed.
pub fn is_stack_note(line: &str) -> bool {
    STACK_NOTE.is_match(line)
}

static STACK_NOTE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(
        r"^\s*(?:Caused by|Suppressed): |^\s+(?:\.\.\. \d+ (?:more|common frames omitted)|\[\.\.\.\]$)",
    )
    .expect("valid stack note regex")
});

static PY_FRAME: Lazy<Regex> =
    Lazy::new(|| Regex::new(r#"^\s+File "([^"]+)", line \d+"#).expect("valid python frame regex"));
/// A line of carets (or tildes) under a source line: Python 3.11+, pytest.
static CARETS: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*[\^~]+\s*$").expect("valid caret regex"));

/// A Python traceback's frame line (`  File "path", line N, in f`): whether
/// it is the user's code.
pub fn python_frame_line(line: &str) -> Option<bool> {
    PY_FRAME.captures(line).map(|c| !is_library_path(&c[1]))
}

/// A Python traceback's frame at line `i`: its `File` line and the source
/// line printed under it, when there is one.
pub fn python_frame(lines: &[&str], i: usize) -> Option<Frame> {
    let user = python_frame_line(lines[i])?;
    let src = lines
        .get(i + 1)
        .is_some_and(|n| n.starts_with("    ") && !PY_FRAME.is_match(n) && !CARETS.is_match(n));
    Some(Frame { span: if src { 2 } else { 1 }, user })
}

/// A line of only carets or tildes (the marks under a source line).
pub fn is_carets(line: &str) -> bool {
    CARETS.is_match(line)
}

static GO_LOC: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\t(\S+):\d+(?: \+0x[0-9a-f]+)?$").expect("valid go location regex"));
/// The race detector's frames: `  pkg.F()` then `      /path/f.go:12 +0x..`.
static RACE_FUNC: Lazy<Regex> = Lazy::new(|| Regex::new(r"^  \S.*\)$").expect("valid race frame regex"));
static RACE_LOC: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^ {6}(\S+\.go):\d+(?: \+0x[0-9a-f]+)?$").expect("valid race location regex"));

/// A goroutine's frame at line `i`: the function line, then its
/// tab-indented `path:line +0x..` line. The toolchain's sources and the
/// `runtime.`/`testing.` functions are the framework's.
pub fn go_frame(lines: &[&str], i: usize) -> Option<Frame> {
    let func = lines[i];
    if func.trim().is_empty() || func.starts_with('\t') {
        return None;
    }
    let c = GO_LOC.captures(lines.get(i + 1)?)?;
    Some(Frame { span: 2, user: go_user(func, &c[1]) })
}

/// A frame of the race detector's report at line `i` (`  pkg.F()`, then
/// `      /path/f.go:12 +0x..`).
pub fn go_race_frame(lines: &[&str], i: usize) -> Option<Frame> {
    let func = lines[i];
    if !RACE_FUNC.is_match(func) {
        return None;
    }
    let c = RACE_LOC.captures(lines.get(i + 1)?)?;
    Some(Frame { span: 2, user: go_user(func.trim_start(), &c[1]) })
}

fn go_user(func: &str, path: &str) -> bool {
    !(is_library_path(path) || func.starts_with("runtime.") || func.starts_with("testing."))
}

static RUST_FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s+\d+: (.+)$").expect("valid rust frame regex"));
static RUST_AT: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\s+at (.+):\d+(?::\d+)?$").expect("valid rust location regex"));

/// A frame of a Rust backtrace at line `i`: `  N: function`, then its
/// `at path:line:col` line when it has one. The user's when that line
/// points outside the toolchain (the signal ledger marks those lines);
/// a frame without one is the runtime's.
pub fn rust_frame(lines: &[&str], i: usize) -> Option<Frame> {
    if !RUST_FRAME.is_match(lines[i]) {
        return None;
    }
    match lines.get(i + 1).and_then(|n| RUST_AT.captures(n)) {
        Some(c) => Some(Frame { span: 2, user: !is_library_path(c[1].trim()) }),
        None => Some(Frame { span: 1, user: false }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_of_every_language() {
        for (line, user) in [
            ("\tat com.acme.Orders.place(Orders.java:42)", true),
            ("\tat java.base/java.lang.reflect.Method.invoke(Method.java:569)", false),
            (
                "       org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)",
                false,
            ),
            ("       java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)", false),
            ("       inventory.Stock.value(Stock.java:37)", true),
            // a thread dump's frames name the module that holds their class
            ("\tat java.lang.Thread.sleep(java.base@17.0.15/Native Method)", false),
            ("\tat java.util.concurrent.FutureTask.run(java.base@17.0.15/FutureTask.java:264)", false),
            ("\tat com.acme.Main.run(app//Main.java:3)", true),
            ("\tat Workers$$Lambda$2/0x00007f0ef0000c28.call(Unknown Source)", false),
            ("    at handler (/srv/app/routes/orders.js:41:22)", true),
            ("    at Module._compile (node:internal/modules/cjs/loader:1256:14)", false),
            ("    at new Promise (<anonymous>)", false),
            ("    at async Promise.all (index 0)", false),
            ("   at Shop.Cart.Total() in /src/Shop/Cart.cs:line 17", true),
            ("   at System.Linq.Enumerable.Sum(IEnumerable`1 source)", false),
            ("   at Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke(HttpContext httpContext)", false),
            ("   at Shop.Program.Main(String[] args)", true),
        ] {
            assert_eq!(frame_of(line), Some(user), "{line}");
        }
        for line in ["at the end of the day", "    look at this (really)", "com.acme.X.y(X.java:1)", "  x"] {
            assert_eq!(frame_of(line), None, "{line}");
        }
    }

    #[test]
    fn runs_of_framework_frames_fold_where_they_stood() {
        let lines = [
            "java.lang.IllegalStateException: bad",
            "\tat com.acme.A.f(A.java:1)",
            "\tat java.base/java.util.X.y(X.java:2)",
            "\tat org.junit.Z.z(Z.java:3)",
            "\tat com.acme.B.g(B.java:4)",
            "\t... 3 more",
            "next",
        ];
        let (pieces, end) = fold_frames(&lines, 1, |i| match frame_of(lines[i]) {
            Some(user) => Step::Frame(Frame { span: 1, user }),
            None if lines[i].starts_with('\t') => Step::Keep,
            None => Step::Stop,
        });
        assert_eq!(end, 6);
        assert_eq!(
            render(&pieces, &lines),
            vec![
                "\tat com.acme.A.f(A.java:1)",
                "\t(2 framework frames)",
                "\tat com.acme.B.g(B.java:4)",
                "\t... 3 more"
            ]
        );
    }

    #[test]
    fn the_fold_counts_runs_between_kept_lines() {
        let mut fold = Fold::default();
        let mut out = Vec::new();
        fold.frame("    at x (node:internal/a:1:1)");
        fold.flush(&mut out);
        fold.flush(&mut out);
        fold.frame("  runtime.main()");
        fold.frame("  runtime.goexit()");
        fold.flush(&mut out);
        assert_eq!(out, vec!["    (1 framework frame)", "  (2 framework frames)"]);
    }

    #[test]
    fn rust_and_go_and_python_frames() {
        let rust = [
            "   0: core::panicking::panic_fmt",
            "             at /rustc/abc/library/core/src/panicking.rs:80:14",
            "   1: k::t",
            "             at ./src/lib.rs:3:5",
            "   2: <unknown>",
        ];
        assert_eq!(rust_frame(&rust, 0), Some(Frame { span: 2, user: false }));
        assert_eq!(rust_frame(&rust, 2), Some(Frame { span: 2, user: true }));
        assert_eq!(rust_frame(&rust, 4), Some(Frame { span: 1, user: false }));
        let go = [
            "main.pick(...)",
            "\t/home/dev/app/main.go:12",
            "runtime.main()",
            "\t/opt/go/src/runtime/proc.go:250 +0x207",
        ];
        assert_eq!(go_frame(&go, 0), Some(Frame { span: 2, user: true }));
        assert_eq!(go_frame(&go, 2), Some(Frame { span: 2, user: false }));
        assert_eq!(go_frame(&go, 1), None);
        let py = [
            "  File \"/app/a.py\", line 3, in f",
            "    g()",
            "    ^^^",
            "  File \"/usr/lib/python3.11/json/decoder.py\", line 9, in decode",
        ];
        assert_eq!(python_frame(&py, 0), Some(Frame { span: 2, user: true }));
        assert_eq!(python_frame(&py, 3), Some(Frame { span: 1, user: false }));
    }
}
