//! Every text filter grows linearly with its input (issue 25: one 10 MB
//! line stalled the cargo filter for minutes). Not a timing of how fast:
//! each filter renders an input, then one four times larger, and the
//! thread's CPU time (not wall time: load on a shared machine does not
//! count) may grow by at most `MAX_GROWTH` — linear work grows about 4×,
//! quadratic 16×. `scripts/bench-filter-linear.py` measures the real
//! figures on the release binary.

use std::time::Duration;

use super::filters::{FILTERS, filter_for};
use crate::settings::{Hint, Settings};

/// A command each filter claims (all of `FILTERS` are covered: checked).
const COMMANDS: &[&str] = &[
    "cargo test",
    "pytest",
    "python -m unittest",
    "go test ./...",
    "npx jest",
    "java -jar junit-platform-console-standalone.jar",
    "mix test",
    "tsc --noEmit",
    "eslint .",
    "pylint app",
    "shellcheck run.sh",
    "git status",
    "git diff",
    "git log",
    "git blame a.py",
    "git push",
    "npm install",
    "npm ls",
    "apt-get install curl",
    "terraform plan",
    "gcc -c a.c",
    "mvn package",
    "docker ps",
    "kubectl get pods",
    "valgrind ./a.out",
    "grep -rn main .",
    "find .",
    "ls -la",
];

/// Shapes every filter gets: the line that stalled cargo's, as one line
/// and as many; a compiler finding; a test failure; a long plain line.
const SHAPES: &[(&str, &str)] = &[
    ("warning line", "warning: something happened here "),
    ("warning lines", "warning: something happened here\n"),
    ("findings", "src/app/main.rs:12:5: error: expected `;` found `let`\n"),
    ("test failures", "test tests::it_works ... FAILED\n--- FAIL: TestParse (0.00s)\n"),
    ("plain", "the quick brown fox jumps over the lazy dog 0123456789 "),
];

/// Allowed growth of CPU time from `SMALL` to 4×`SMALL` bytes.
const MAX_GROWTH: f64 = 10.0;
const SMALL: usize = 32 << 10;

fn thread_cpu() -> Duration {
    // SAFETY: clock_gettime into a zeroed timespec.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn cpu_of(text: &str, hint: &Hint) -> Duration {
    // the faster of two runs: a page fault or a cold cache is not the filter
    (0..2)
        .map(|_| {
            let at = thread_cpu();
            let _ = super::render(text, Some(hint), &Settings::default().into());
            thread_cpu() - at
        })
        .min()
        .unwrap_or_default()
}

fn repeated(unit: &str, size: usize) -> String {
    unit.repeat(size / unit.len() + 1)
}

#[test]
fn every_filter_grows_linearly_with_its_input() {
    let words = |c: &str| c.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    let claimed: std::collections::HashSet<&str> =
        COMMANDS.iter().filter_map(|c| filter_for(&words(c)).map(|(_, f)| f.name())).collect();
    for f in FILTERS {
        assert!(claimed.contains(f.name()), "no command here reaches the {} filter", f.name());
    }
    let mut worst = Vec::new();
    for command in COMMANDS {
        let hint = Hint { command: words(command), exit_code: 1 };
        for (shape, unit) in SHAPES {
            let small = cpu_of(&repeated(unit, SMALL), &hint);
            let large = cpu_of(&repeated(unit, 4 * SMALL), &hint);
            // below a few ms the clock's grain decides, not the filter
            let growth = large.as_secs_f64() / small.as_secs_f64().max(0.002);
            if growth > MAX_GROWTH {
                worst.push(format!("{command} / {shape}: {small:?} → {large:?} (×{growth:.1})"));
            }
        }
    }
    assert!(worst.is_empty(), "superlinear growth:\n{}", worst.join("\n"));
}
