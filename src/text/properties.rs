//! Property tests of the whole text path: random noise with signal lines of
//! every detector kind injected, rendered as the output of every filter's
//! commands and of unclaimed ones (generic path, documents and logs, below
//! and above the threshold). Each injected signal line must be in the
//! rendering, or counted by a line whose command prints it — checked here
//! by re-running the command's grep over the raw lines, independently of
//! the guard.

use proptest::prelude::*;
use regex::Regex;

use crate::settings::{Hint, Settings};
use crate::text::render;

/// Commands that reach each filter, and some no filter claims.
const COMMANDS: &[&str] = &[
    "cargo build",
    "cargo test",
    "pytest -q",
    "go test ./...",
    "npx jest",
    "node --test",
    "npx tsc -p .",
    "npx eslint src",
    "ruff check .",
    "mypy app.py",
    "git status",
    "git diff",
    "git log",
    "git push",
    "npm install",
    "pip install requests",
    "npm ls",
    "apt-get install -y x",
    "terraform plan",
    "make -j2",
    "g++ -c a.cpp",
    "docker build .",
    "docker ps",
    "kubectl get pods",
    "grep -rn x .",
    "find . -name x",
    "ls -la",
    "./service.sh",
    "python3 worker.py",
    "cat notes.md",
    "sed -n 1,400p app.log",
    "man ls",
    "cmake -S . -B build",
    "prove -v t/",
];

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "alpha", "queue", "ledger", "parse", "order", "cart", "bucket", "token", "river", "stone", "index",
    ])
    .prop_map(str::to_string)
}

fn words() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 1..5).prop_map(|w| w.join(" "))
}

/// One self-contained signal line of some detector kind.
fn signal_line() -> impl Strategy<Value = String> {
    (0usize..43, word(), words(), 1u32..900, 1u32..90).prop_map(|(kind, w, ws, n, m)| match kind {
        0 => format!("src/{w}.c:{n}:{m}: error: {ws}"),
        1 => format!("src/{w}.cpp:{n}:{m}: warning: {ws} [-Wunused-{w}]"),
        2 => format!("error[E0{n:03}]: {ws}"),
        3 => format!("src/{w}.ts({n},{m}): error TS{n}{m}: {ws}"),
        4 => format!("{w}.py:{n}:{m}: E{n:03} {ws}"),
        5 => format!("--- FAIL: Test{w}{n} (0.0{m}s)"),
        6 => format!("FAILED tests/test_{w}.py::test_{w}_{n} - {ws}"),
        7 => format!("not ok {n} - {ws}"),
        8 => format!("test {w}::case_{n} ... FAILED"),
        9 => format!("2026-01-0{} 12:{:02}:{:02} ERROR {ws}", m % 9 + 1, m % 60, n % 60),
        10 => format!("{{\"level\":\"error\",\"msg\":\"{ws} {n}\"}}"),
        11 => format!("[CRITICAL] {ws} {n}"),
        12 => format!("127.0.0.1 - - [21/Nov/2026 23:57:{:02}] \"GET /{w}/{n} HTTP/1.1\" 50{} -", m % 60, m % 4),
        13 => format!("[{n}.{m:06}] Out of memory: Killed process {n}{m} ({w})"),
        14 => format!("{n} passed, {m} failed in 0.{n}s"),
        15 => format!("Found {n} errors in {m} files"),
        16 => format!("test result: FAILED. {n} passed; {m} failed; 0 ignored; 0 measured; 0 filtered out"),
        17 => format!("panic: {ws} {n}"),
        18 => format!("thread 'main' panicked at src/{w}.rs:{n}:{m}:"),
        19 => format!("Caused by: java.io.IOException: {ws} {n}"),
        20 => format!("make: *** [Makefile:{n}: {w}.o] Error {}", m % 3 + 1),
        21 => format!("FATAL {ws} {n}"),
        22 => format!("src/{w}.sh:{n}:{m}: note: {ws} [SC{n}{m}]"),
        23 => format!("==1{n}==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x60{m}"),
        24 => format!("SUMMARY: AddressSanitizer: heap-buffer-overflow /app/{w}.c:{n} in {w}"),
        25 => format!("{w}: {w}.c:{n}: main: Assertion `{w} > {m}' failed."),
        26 => format!("src/{w}.c:{n}:{m}: runtime error: signed integer overflow: {n} * {m}"),
        27 => format!("/app/{w}.py:{n}: DeprecationWarning: {ws}"),
        28 => format!("main.c:(.text+0x{m}): undefined reference to `{w}_{n}'"),
        29 => format!("CMake Error at CMakeLists.txt:{n} (add_executable):"),
        30 => format!("deploy.sh: line {n}: {w}: command not found"),
        31 => format!("TypeError: Cannot read properties of null (reading '{w}{n}')"),
        32 => format!("[{n}.{m:06}] {w}[{n}]: segfault at 0 ip 0000{m} sp 0000{n} error 4 in {w}"),
        33 => format!("Result: FAIL ({n} of {m} subtests)"),
        34 => format!("Files={n}, Tests={m},  1 wallclock secs"),
        35 => format!("│ Error: Unsupported argument {w}{n}"),
        37 => format!("E{:04} '{w}' is not of type 'integer'\n{w}.yaml:{n}:{m}", 1000 + n),
        38 => format!("2026-11-23 17:10:16.712 UTC [{n}] STATEMENT:  SELECT * FROM {w} WHERE id = {m};"),
        36 => format!("{ws} at lib/{w}.pl line {n}."),
        39 => format!("Nov 23 08:22:{:02} web01 systemd[1]: {w}.service: Main process exited, code=dumped, status={}/SEGV", m % 60, n % 30),
        // go test's failure messages, after the result line and (-v) before it
        40 => format!("--- FAIL: Test{w}{n} (0.0{m}s)\n    {w}_test.go:{n}: {ws}, want {m}"),
        41 => format!("=== RUN   Test{w}{n}\n    {w}_test.go:{n}: {ws}, want {m}\n--- FAIL: Test{w}{n} (0.0{m}s)"),
        _ => format!("Traceback (most recent call last):\n  File \"/app/{w}.py\", line {n}, in run\n    {w}()\nValueError: {ws} {m}"),
    })
}

/// A noise line: progress, passes, log chatter, code, prose, blanks.
fn noise_line() -> impl Strategy<Value = String> {
    (0usize..14, word(), words(), 1u32..5000).prop_map(|(kind, w, ws, n)| match kind {
        0 => format!("   Compiling {w} v0.{}.{}", n % 9, n % 7),
        1 => format!("test {w}::case_{n} ... ok"),
        2 => format!("2026-01-01 12:{:02}:{:02} INFO {ws} {n}", n % 60, n % 59),
        3 => format!("127.0.0.1 - - [21/Nov/2026 23:57:03] \"GET /static/{w}{n}.txt HTTP/1.1\" 200 -"),
        4 => format!("    let {w} = {n};"),
        5 => format!("The {ws} keeps the {w} in order."),
        6 => String::new(),
        7 => format!("Downloading {w}-{}.{}.tar.gz", n % 9, n % 5),
        8 => format!("  ✓ {ws} ({} ms)", n % 90),
        9 => format!("{} |     {w}({n});", n % 300),
        10 => format!("tests/test_{w}.py::test_{n} PASSED [ {}%]", n % 100),
        11 => format!("./src/{w}/{n}.rs"),
        12 => format!("-rw-r--r-- 1 dev dev {n} Nov 21 10:00 {w}.txt"),
        _ => format!("worker {} processed batch {n}", n % 8),
    })
}

/// Noise with signal lines put in at random places; the signal lines too.
fn output() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        prop::collection::vec(noise_line(), 0..400),
        prop::collection::vec((signal_line(), any::<prop::sample::Index>()), 1..12),
    )
        .prop_map(|(mut noise, signals)| {
            let mut injected = Vec::new();
            for (line, at) in signals {
                let k = at.index(noise.len() + 1);
                injected.push(line.clone());
                noise.insert(k, line);
            }
            (noise.join("\n") + "\n", injected)
        })
}

/// The lines of ours that count raw lines, as (count, pattern).
fn count_lines(out: &str) -> Vec<(usize, String)> {
    let re = Regex::new(r"\((\d+) lines?: tokensieve show abc123 --grep '((?:[^']|'\\'')*)'\)").unwrap();
    re.captures_iter(out).map(|c| (c[1].parse().unwrap(), c[2].replace("'\\''", "'"))).collect()
}

/// A traceback's source line (`    run()`) and go's `=== RUN` header:
/// context of the signal lines around them, not signal lines themselves.
fn is_context(line: &str) -> bool {
    line.starts_with("    ") && !line.contains(':') || line.starts_with("=== RUN")
}

/// Whether `line` (a raw line) is shown, indentation and all, or counted by
/// a command that prints it.
fn accounted(line: &str, raw: &str, out: &str, counts: &[(usize, String)]) -> bool {
    if out.contains(line.trim_end()) {
        return true;
    }
    counts.iter().any(|(n, pattern)| {
        let Ok(re) = Regex::new(pattern) else { return false };
        let printed: Vec<&str> = raw.lines().filter(|l| re.is_match(l)).collect();
        printed.len() == *n && printed.contains(&line)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn the_ledger_marks_every_injected_line((raw, injected) in output()) {
        let ledger = crate::text::ledger::scan(raw.split('\n'));
        let lines: Vec<&str> = raw.split('\n').collect();
        for signal in &injected {
            for line in signal.lines().filter(|l| !is_context(l)) {
                let marked = lines.iter().enumerate().any(|(i, l)| *l == line && ledger.kind(i).is_some());
                prop_assert!(marked, "not marked: {:?}", line);
            }
        }
    }

    #[test]
    fn every_signal_line_is_shown_or_counted((raw, injected) in output(), threshold in prop::sample::select(vec![4000usize, 800])) {
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings { text_threshold: threshold, ..Settings::default() }.into() };
        for cmd in COMMANDS {
            let hint = Hint { command: cmd.split_whitespace().map(str::to_string).collect(), exit_code: 1 };
            let Some(rendered) = render(&raw, Some(&hint), &settings) else { continue };
            let counts = count_lines(&rendered.text);
            for signal in &injected {
                for line in signal.lines() {
                    // a traceback's header, user frame and exception line are its
                    // signal lines; the frame's source line is context
                    if is_context(line) {
                        continue;
                    }
                    prop_assert!(
                        accounted(line, &raw, &rendered.text, &counts),
                        "`{}` lost {:?}:\n{}", cmd, line, rendered.text
                    );
                }
            }
        }
    }
}

/// Commands no filter claims: findings reach the generic path.
const UNCLAIMED: &[&str] = &["vulture pkg", "bandit -r pkg", "./checker --all", "codespell src"];

/// A finding of a checker no filter names (issue 26), one shape each:
/// names a place, or is a block whose location line does.
fn finding() -> impl Strategy<Value = String> {
    (0usize..12, word(), words(), 1u32..900, 1u32..90).prop_map(|(kind, w, ws, n, m)| match kind {
        0 => format!("pkg/{w}.py:{n}: unused variable '{w}_{m}' (100% confidence)"),
        1 => format!("src/{w}.py:{n}: {w}e ==> {w}"),
        2 => format!("js/{w}.js: line {n}, col {m}, {ws}."),
        3 => format!("line {n} column {m} - Warning: <{w}> {ws}"),
        4 => format!(
            ">> Issue: [B{n}:{w}] {ws}\n   Severity: High   Confidence: High\n   Location: pkg/{w}.py:{n}:{m}"
        ),
        5 => format!("L: {n:>3} | P: {m:>3} | LT0{} | {ws}. [layout.{w}]", m % 9),
        6 => format!(
            "  {n}:{m}  ✖  Unknown value \"{w}\" for property \"{w}\"  declaration-property-value-no-unknown"
        ),
        7 => format!("H0{} {n}:{m} {ws}. <{w}>", m % 90 + 10),
        8 => format!("    M {n}:{m} {w}.run - {} ({})", ["C", "D", "E", "F"][(m % 4) as usize], n % 60 + 11),
        9 => format!(
            "pkg/{w}.py:{n} in public function `{w}`:\n        D103: Missing docstring in public function"
        ),
        10 => format!("lib/{w}.rb:{n}:{m}: C: Style/{w}: {ws}.\n  {w}({n})\n  ^^^^"),
        _ => format!("docs/{w}.md:{n}:{m} error MD0{} {ws}", m % 50 + 10),
    })
}

/// Noise no rule calls a finding: progress, passes, prose, code, blanks.
fn plain_noise() -> impl Strategy<Value = String> {
    (0usize..7, word(), words(), 1u32..5000).prop_map(|(kind, w, ws, n)| match kind {
        0 => format!("Checking {w}/{w}_{}.lua OK", n % 40),
        1 => format!("{}/{} files checked {}% done", n % 34, 34, n % 100),
        2 => format!("The {ws} keeps the {w} in order."),
        3 => String::new(),
        4 => format!("worker {} processed batch {n}", n % 8),
        5 => format!("{n}\t    {w} = {ws}"),
        _ => format!("Downloading {w}-{}.{}.tar.gz", n % 9, n % 5),
    })
}

/// Noise with findings injected at random places, and runs of findings that
/// differ only in their line numbers (the runs a fold may keep by numbers).
fn report_output() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        // findings a good share of the lines: a report (a log's summary
        // quotes each finding, but not yet a bandit block's header)
        prop::collection::vec(plain_noise(), 0..120),
        prop::collection::vec((finding(), any::<prop::sample::Index>()), 12..40),
        (word(), 0usize..30),
    )
        .prop_map(|(mut noise, found, (w, run))| {
            let mut injected = Vec::new();
            for (line, at) in found {
                let k = at.index(noise.len() + 1);
                injected.push(line.clone());
                noise.insert(k, line);
            }
            let run: Vec<String> =
                (0..run).map(|k| format!("src/{w}.c:{}:0: style: unused '{w}'", 3 * k + 7)).collect();
            injected.extend(run.iter().cloned());
            noise.extend(run);
            (noise.join("\n") + "\n", injected)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Rule 1 (issue 26): every finding is shown as printed. Rule 2: a finding's block (bandit's header, severity, location;
    /// pydocstyle's location and message) stays together, in order.
    #[test]
    fn every_finding_of_an_unclaimed_checker_survives((raw, injected) in report_output(), threshold in prop::sample::select(vec![4000usize, 800])) {
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings { text_threshold: threshold, ..Settings::default() }.into() };
        for cmd in UNCLAIMED {
            let hint = Hint { command: cmd.split_whitespace().map(str::to_string).collect(), exit_code: 1 };
            let text = render(&raw, Some(&hint), &settings).map_or(raw.clone(), |r| r.text);
            for found in &injected {
                let lines: Vec<&str> = found.lines().filter(|l| !l.trim_start().starts_with('^')).collect();
                // a block's lines in order; rubocop's code excerpt may go
                let kept: Vec<&str> = lines.iter().copied().filter(|l| !l.starts_with("  ") || l.contains(':')).collect();
                if kept.len() > 1 {
                    // each line of the block, in order, on consecutive lines
                    // (a summary prefixes the first with its line number)
                    let out: Vec<&str> = text.lines().collect();
                    let together = out.iter().enumerate().any(|(k, l)| {
                        l.ends_with(kept[0]) && kept[1..].iter().enumerate().all(|(j, b)| out.get(k + 1 + j) == Some(b))
                    });
                    prop_assert!(together, "`{}` split {:?}:\n{}", cmd, kept, text);
                    continue;
                }
                for line in kept {
                    prop_assert!(
                        text.contains(line),
                        "`{}` lost {:?}:\n{}", cmd, line, text
                    );
                }
            }
        }
    }
}

/// Blocks of one rule with their places varied, among noise: bandit's
/// issue, severity and location; pydocstyle's header over its message;
/// csslint's file, place and message. Each block's lines.
fn rule_blocks() -> impl Strategy<Value = (String, Vec<Vec<String>>)> {
    (
        0usize..3,
        word(),
        words(),
        prop::collection::vec((1u32..900, 1u32..90, word()), 4..16),
        prop::collection::vec(plain_noise(), 0..20),
    )
        .prop_map(|(kind, w, ws, places, noise)| {
            let blocks: Vec<Vec<String>> = places
                .iter()
                .map(|(n, m, f)| match kind {
                    0 => vec![
                        format!(">> Issue: [B101:{w}] {ws}."),
                        "   Severity: Low   Confidence: High".to_string(),
                        format!("   Location: pkg/{f}.py:{n}:{m}"),
                    ],
                    1 => vec![
                        format!("pkg/{f}.py:{n} in public function `{w}`:"),
                        format!("        D103: {ws}"),
                    ],
                    _ => vec![
                        format!("{f}.css"),
                        format!("{n}: warning at line {n}, col {m}"),
                        format!("{ws}."),
                    ],
                })
                .collect();
            let mut out: Vec<String> = noise.into_iter().filter(|l| !l.is_empty()).collect();
            out.push(String::new());
            for b in &blocks {
                out.extend(b.iter().cloned());
                if kind != 1 {
                    out.push(String::new());
                }
            }
            out.push(format!("Found {} problems.", blocks.len()));
            (out.join("\n") + "\n", blocks)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Rules 1 and 2 past the focus size: blocks of one rule fold to the
    /// lines that differ, and still every line of every block is in the
    /// rendering as printed, and every line of the rendering is a line the
    /// tool printed or one of ours (`… `, `(`, `exit `).
    #[test]
    fn blocks_of_one_rule_fold_without_rewriting_a_line((raw, blocks) in rule_blocks(), focus in prop::sample::select(vec![Some(10usize), Some(500), None])) {
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings { focus, ..Settings::default() }.into() };
        let hint = Hint { command: vec!["./checker".into(), "--all".into()], exit_code: 1 };
        let text = render(&raw, Some(&hint), &settings).map_or(raw.clone(), |r| r.text);
        let out: std::collections::HashSet<&str> = text.lines().collect();
        for line in blocks.iter().flatten() {
            prop_assert!(out.contains(line.as_str()), "lost {:?}:\n{}", line, text);
        }
        let printed: std::collections::HashSet<&str> = raw.lines().collect();
        for line in text.lines() {
            let ours = line.starts_with("… ") || line.starts_with('(') || line.starts_with("exit ") || line.starts_with("full output: ");
            prop_assert!(ours || printed.contains(line), "rewritten {:?}:\n{}", line, text);
        }
    }
}

/// A formatter's `--check --diff` output (black, isort): per file a
/// `--- a`/`+++ b` header, hunks of unchanged/removed/added lines, and the
/// tool's `would reformat` lines; the files and their hunk counts.
fn formatter_diff() -> impl Strategy<Value = (String, Vec<String>, Vec<String>)> {
    prop::collection::vec((word(), prop::collection::vec((1u32..400, 2usize..30), 1..4)), 2..6).prop_map(
        |files| {
            let mut out = String::new();
            let mut names = Vec::new();
            let mut tool = Vec::new();
            for (k, (w, hunks)) in files.into_iter().enumerate() {
                let name = format!("pkg/{w}_{k}.py");
                out.push_str(&format!(
                    "--- {name}\t2026-11-27 03:00:00+00:00\n+++ {name}\t2026-11-27 03:00:01+00:00\n"
                ));
                for (at, len) in hunks {
                    out.push_str(&format!("@@ -{at},{len} +{at},{len} @@\n"));
                    for j in 0..len {
                        out.push_str(&format!(" def {w}_{j}(x):\n-    return x+{j}\n+    return x + {j}\n"));
                    }
                }
                let line = format!("would reformat {name}");
                out.push_str(&line);
                out.push('\n');
                tool.push(line);
                names.push(name);
            }
            out.push_str(&format!("Oh no! 💥 💔 💥\n{} files would be reformatted.\n", names.len()));
            (out, names, tool)
        },
    )
}

/// The `--lines A:B` range a rendering gives for `name`'s diff.
fn diff_range(out: &str, name: &str) -> Option<(usize, usize)> {
    let re = Regex::new(&format!(r"\(diff of {}: .*--lines (\d+):(\d+)\)", regex::escape(name))).unwrap();
    let c = re.captures(out)?;
    Some((c[1].parse().ok()?, c[2].parse().ok()?))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Rule 6 (issue 26): a formatter's diff above the threshold shows the
    /// tool's own lines (which files would change, the totals) first, then
    /// one line per file naming the `show --lines` range that prints
    /// exactly that file's diff, header to last hunk line.
    #[test]
    fn a_formatter_diff_lists_its_files_then_each_file_range((raw, names, tool) in formatter_diff()) {
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings { text_threshold: 800, ..Settings::default() }.into() };
        let hint = Hint { command: vec!["black".into(), "--check".into(), "--diff".into(), ".".into()], exit_code: 1 };
        let text = render(&raw, Some(&hint), &settings).map_or(raw.clone(), |r| r.text);
        let raw_lines: Vec<&str> = raw.lines().collect();
        if raw.len() <= 800 {
            return Ok(());
        }
        // the tool's lines, each as printed, before any file's range
        let first_range = text.find("(diff of ").unwrap_or(text.len());
        for line in &tool {
            let at = text.find(line.as_str());
            prop_assert!(at.is_some_and(|a| a < first_range), "{:?} not first:\n{}", line, text);
        }
        for name in &names {
            let range = diff_range(&text, name);
            prop_assert!(range.is_some(), "no range for {}:\n{}", name, text);
            let (a, b) = range.unwrap();
            // the range starts at the file's header and ends on its last diff line
            prop_assert_eq!(raw_lines[a - 1], format!("--- {name}\t2026-11-27 03:00:00+00:00"));
            prop_assert!(raw_lines[b - 1].starts_with('+'), "range of {} ends on {:?}", name, raw_lines[b - 1]);
            prop_assert!(raw_lines.get(b).is_some_and(|l| l.starts_with("would reformat ")), "range of {} stops early", name);
        }
    }
}

/// A PostgreSQL server's log: statements with their durations, checkpoints,
/// connections; the lines rule 5 calls signal injected among them.
fn server_log() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        prop::collection::vec((0usize..4, 1u32..30, 100u32..999), 40..160),
        prop::collection::vec((0usize..5, 1000u32..9000, any::<prop::sample::Index>()), 1..5),
    )
        .prop_map(|(noise, signal)| {
            let stamp = |k: usize| format!("2026-11-27 03:{:02}:{:02}.{:03} UTC", k / 60 % 60, k % 60, k % 1000);
            let mut lines: Vec<String> = noise
                .iter()
                .enumerate()
                .map(|(k, (kind, ms, pid))| match kind {
                    0 => format!("{} [{pid}] LOG:  duration: {ms}.{:03} ms  statement: select * from orders where id = {k}", stamp(k), k % 1000),
                    1 => format!("{} [{pid}] LOG:  connection received: host=[local]", stamp(k)),
                    2 => format!("{} [{pid}] LOG:  checkpoint starting: time", stamp(k)),
                    _ => format!("{} [{pid}] LOG:  connection authorized: user=app database=shop", stamp(k)),
                })
                .collect();
            let mut injected = Vec::new();
            for (kind, n, at) in signal {
                let line = match kind {
                    0 => format!("{} [{n}] FATAL:  terminating connection due to administrator command", stamp(n as usize)),
                    1 => format!("{} [{n}] PANIC:  could not write to file \"pg_wal/xlogtemp.{n}\": No space left on device", stamp(n as usize)),
                    2 => format!("{} [{n}] ERROR:  deadlock detected", stamp(n as usize)),
                    3 => format!("{} [{n}] LOG:  process {n} detected deadlock while waiting for ShareLock on transaction {}", stamp(n as usize), n + 7),
                    _ => format!("{} [{n}] WARNING:  could not open statistics file \"pg_stat_tmp/global.stat\": Operation not permitted", stamp(n as usize)),
                };
                let k = at.index(lines.len() + 1);
                lines.insert(k, line.clone());
                injected.push(line);
            }
            (lines.join("\n") + "\n", injected)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Rule 5 (issue 26): in a server's log, `FATAL`, `PANIC`, deadlocks
    /// and `WARNING` lines are signal: each shown as printed or counted by
    /// a command that prints it, the rest folded.
    #[test]
    fn a_server_logs_fatal_panic_deadlock_and_warning_lines_survive((raw, injected) in server_log(), threshold in prop::sample::select(vec![4000usize, 800])) {
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings { text_threshold: threshold, ..Settings::default() }.into() };
        for cmd in ["./pg-tail", "journalctl -u postgresql"] {
            let hint = Hint { command: cmd.split_whitespace().map(str::to_string).collect(), exit_code: 0 };
            let text = render(&raw, Some(&hint), &settings).map_or(raw.clone(), |r| r.text);
            let counts = count_lines(&text);
            for line in &injected {
                prop_assert!(accounted(line, &raw, &text, &counts), "`{}` lost {:?}:\n{}", cmd, line, text);
            }
        }
    }
}

/// A log with context around its signal lines (rule 3): a list whose
/// items failed under the line that opens it, a banner over a section
/// holding an error, a file's path over its findings, a unit's failure
/// followed by what systemd did next. Each as (lines, the context lines).
fn signal_with_context() -> impl Strategy<Value = (String, Vec<String>)> {
    (0usize..4, word(), words(), 1u32..900, 0usize..4).prop_map(|(kind, w, ws, n, gap)| {
        let stamp = format!("Nov 23 08:{:02}:{:02} web01", n % 60, (n / 7) % 60);
        match kind {
            0 => {
                let head = format!("The following {w} checks did not pass:");
                let items: Vec<String> = (0..gap + 1).map(|k| format!("  {w}_{k}: error {ws} {n}")).collect();
                (format!("{head}\n{}", items.join("\n")), vec![head])
            }
            1 => {
                let banner = format!("====== {} ======", w.to_uppercase());
                let body: Vec<String> = (0..gap).map(|k| format!("  step {k} of {w} done")).collect();
                let mut chunk = vec![banner.clone()];
                chunk.extend(body);
                chunk.push(format!("ERROR: {ws} {n}"));
                (chunk.join("\n"), vec![banner])
            }
            2 => {
                let path = format!("css/{w}.css");
                let rows: Vec<String> = (0..gap + 1)
                    .map(|k| {
                        format!(
                            "  {}:{}  ✖  Unexpected unknown property \"{w}\"  property-no-unknown",
                            n + k as u32,
                            k + 1
                        )
                    })
                    .collect();
                (format!("{path}\n{}", rows.join("\n")), vec![path])
            }
            _ => {
                let next = format!(
                    "{stamp} systemd[1]: {w}.service: Scheduled restart job, restart counter is at {}.",
                    gap + 1
                );
                (
                    format!("{stamp} systemd[1]: {w}.service: Failed with result 'exit-code'.\n{next}"),
                    vec![next],
                )
            }
        }
    })
}

/// Log chatter with no problem word and no section of its own.
fn chatter() -> impl Strategy<Value = String> {
    (0usize..4, word(), 1u32..5000).prop_map(|(kind, w, n)| {
        let stamp = format!("Nov 23 0{}:{:02}:{:02} web01", n % 10, n % 60, n % 59);
        match kind {
            0 => format!("{stamp} CRON[{n}]: (www-data) CMD (php /srv/{w}/artisan schedule:run)"),
            1 => format!("{stamp} thumbd[1190]: resized upload {n}.jpg to 3 sizes in {} ms", n % 300),
            2 => format!("{stamp} sshd[{n}]: Connection closed by user {w} port {n} [preauth]"),
            _ => format!("{stamp} nginx[880]: reload: worker process {n} exited with code 0"),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Rule 3 (issue 26): the line that opens a surviving list, the banner
    /// or file path over a kept line, and the next line of a failed unit
    /// from the same source are shown as printed, whether the log is folded
    /// or summarised.
    #[test]
    fn the_context_of_signal_lines_is_kept(
        noise in prop::collection::vec(chatter(), 20..400),
        chunks in prop::collection::vec((signal_with_context(), any::<prop::sample::Index>()), 1..5),
        threshold in prop::sample::select(vec![4000usize, 800]),
    ) {
        let mut lines = noise;
        let mut context = Vec::new();
        for ((chunk, ctx), at) in chunks {
            let k = at.index(lines.len() + 1);
            lines.insert(k, chunk);
            context.extend(ctx);
        }
        let raw = lines.join("\n") + "\n";
        let settings = crate::settings::Call { raw_id: Some("abc123".into()), ..Settings { text_threshold: threshold, ..Settings::default() }.into() };
        for cmd in ["./service.sh", "journalctl -b"] {
            let hint = Hint { command: cmd.split_whitespace().map(str::to_string).collect(), exit_code: 1 };
            let text = render(&raw, Some(&hint), &settings).map_or(raw.clone(), |r| r.text);
            for line in &context {
                prop_assert!(text.lines().any(|l| l.ends_with(line.as_str())), "`{}` lost {:?}:\n{}", cmd, line, text);
            }
        }
    }
}
