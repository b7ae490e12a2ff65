//! Every command an agent reads is treated, not only the ones a filter
//! claims (SPEC §3.4): real tools behind a shim or `tokensieve run`, real
//! pipes, real signals. Gathered text is cleaned and summarised; an output
//! too large to hold keeps head, tail and signal lines in bounded memory
//! with every byte in the raw store; a store that cannot keep the bytes
//! means raw passthrough; a harness's SIGTERM/SIGINT still gets what was
//! gathered, rendered, before we exit.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const MINUTE: Duration = Duration::from_secs(60);

/// A log with colour codes, man-page overstrike, a `\r` progress redraw, a
/// long run of similar lines and one error; exits 3.
const NOISY: &str = r#"#!/bin/sh
printf '\033[1mreport\033[0m for N\bNI\bIG\bGH\bHT\bT\n'
printf 'loading 10%%\rloading 60%%\rloading done\n'
i=1
while [ $i -le 300 ]; do echo "worker $i processed batch ok"; i=$((i+1)); done
echo "ERROR: db down at step 301"
exit 3
"#;

fn stdout_text(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

#[test]
fn an_unclaimed_command_reaches_an_agent_cleaned_and_summarised() {
    let sb = Sandbox::new();
    let raw = Command::new("sh").arg("-c").arg(NOISY).output().unwrap().stdout;
    sb.shimmed("nightly-report", NOISY);
    for mut cmd in [sb.agent(sb.shims.join("nightly-report")), {
        let mut run = sb.cmd(BIN);
        run.args(["run", "--", "nightly-report"]);
        run
    }] {
        let out = output_within(&mut cmd, MINUTE);
        assert_eq!(out.status.code(), Some(3));
        let text = stdout_text(&out);
        assert!(!text.contains(['\x1b', '\x08', '\r']), "{text:?}");
        assert!(text.starts_with("report for NIGHT\nloading done\n"), "{text}");
        assert!(text.contains("ERROR: db down at step 301\n") && text.contains("exit 3\n"), "{text}");
        assert!(text.len() * 4 < raw.len(), "{} of {} bytes", text.len(), raw.len());
        let id = receipt_raw_id(&out.stderr).expect("a raw id in the receipt");
        assert_eq!(show(&sb, &id, &[]), raw, "show gives the tool's bytes back");
    }
}

#[test]
fn a_small_unclaimed_output_is_cleaned_and_a_clean_one_left_alone() {
    let sb = Sandbox::new();
    sb.shimmed("lsc", "#!/bin/sh\nprintf '\\033[01;34msrc\\033[0m  Cargo.toml\\n'\n");
    sb.shimmed("plain", "#!/bin/sh\nprintf 'src  Cargo.toml\\n'\n");
    let out = output_within(&mut sb.agent(sb.shims.join("lsc")), MINUTE);
    assert_eq!(out.stdout, b"src  Cargo.toml\n");
    let out = output_within(&mut sb.agent(sb.shims.join("plain")), MINUTE);
    assert_eq!(out.stdout, b"src  Cargo.toml\n");
    assert_eq!(receipt_raw_id(&out.stderr), None, "nothing changed, nothing to store");
}

/// Seconds from the start until the first stdout line, and the lines.
fn first_line_after(mut cmd: Command) -> (Duration, String) {
    let started = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    let at = started.elapsed();
    let mut rest = String::new();
    lines.read_to_string(&mut rest).unwrap();
    child.wait().unwrap();
    (at, first + &rest)
}

#[test]
fn text_is_gathered_for_an_agent_and_live_for_a_person() {
    let sb = Sandbox::new();
    sb.shimmed("slow", "#!/bin/sh\necho first line\nsleep 3\necho second line\n");
    // A person: the first line shows at once (load can only delay it, and
    // nothing else holds it for the tool's three seconds).
    let (at, all) = first_line_after(sb.cmd(sb.shims.join("slow")));
    assert_eq!(all, "first line\nsecond line\n");
    let person = at;
    // An agent does not watch output stream: it gets it when the tool ends.
    let (at, all) = first_line_after(sb.agent(sb.shims.join("slow")));
    assert_eq!(all, "first line\nsecond line\n");
    assert!(at >= Duration::from_millis(2900), "the agent's copy came {at:?} after the start");
    assert!(person < at, "person {person:?}, agent {at:?}");
}

/// A service log of `lines` lines: a start line, INFO lines, ERROR lines at
/// a third and two thirds, a summary line; the script writes the sha256 of
/// what it printed to `sha_file`.
fn service_log(sb: &Sandbox, name: &str, lines: usize, sha_file: &std::path::Path) {
    sb.shimmed(
        name,
        &format!(
            "#!/usr/bin/env python3\nimport hashlib, sys\nout, h, buf, n = sys.stdout.buffer, hashlib.sha256(), [], {lines}\n\
             def w(s):\n    b = s.encode(); h.update(b); buf.append(b)\n    if len(buf) >= 4096:\n        out.write(b''.join(buf)); buf.clear()\n\
             users = ['ana', 'bo', 'chen', 'dara', 'eli', 'fay', 'gus']\n\
             w('service starting: worker pool=8 queue=jobs\\n')\n\
             for i in range(1, n + 1):\n    if i in (n // 3, 2 * n // 3):\n        w(f'2026-11-23T10:{{i % 60:02d}}:00Z ERROR job {{i}} failed: connection refused to db:5432\\n')\n\
             \x20   else:\n        w(f'2026-11-23T10:{{i % 60:02d}}:{{i % 60:02d}}Z INFO job {{i}} for {{users[i % 7]}} done in {{i % 97}} ms, queue depth {{i % 13}}\\n')\n\
             w('summary: 2 jobs failed\\n')\nout.write(b''.join(buf)); out.flush()\nopen('{}', 'w').write(h.hexdigest())\n",
            sha_file.display()
        ),
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    tokensieve::store::hash_hex(bytes)
}

#[test]
fn a_huge_output_is_held_in_bounded_memory_and_stored_whole() {
    let sb = Sandbox::new();
    let sha = sb.path("big.sha");
    let n = 1_400_000; // ~108 MB
    service_log(&sb, "bigsvc", n, &sha);
    let out = output_within(&mut with_peak_rss(&sb, &sb.shims.join("bigsvc")), MINUTE * 4);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let kb = peak_rss_kb(&out.stderr);
    eprintln!("108 MB of text through the shim: peak RSS {kb} kB (python's own included)");
    assert!(kb <= 96 * 1024, "peak RSS {kb} kB");
    let text = stdout_text(&out);
    assert!(text.len() < 16 * 1024, "{} bytes reached the agent", text.len());
    let (first, second) = (n / 3, 2 * n / 3);
    for want in [
        "service starting: worker pool=8 queue=jobs\n".to_string(),
        format!("ERROR job {first} failed"),
        format!("ERROR job {second} failed"),
        "summary: 2 jobs failed\n".to_string(),
    ] {
        assert!(text.contains(&want), "{want:?} missing from:\n{text}");
    }
    let id = receipt_raw_id(&out.stderr).expect("a raw id");
    let note = text.lines().find(|l| l.contains("left out")).expect("a line saying what was left out");
    let range = note.rsplit(' ').next().unwrap();
    assert!(note.ends_with(&format!("tokensieve show {id} --lines {range}")), "{note}");
    // Every byte is in the store, and the line numbers are the output's own.
    let stored = show(&sb, &id, &[]);
    assert_eq!(sha256_hex(&stored), std::fs::read_to_string(&sha).unwrap());
    let line = show(&sb, &id, &["--lines", &(first + 1).to_string()]);
    assert!(String::from_utf8_lossy(&line).contains(&format!("ERROR job {first} failed")));
}

#[test]
fn an_output_past_the_memory_limit_is_counted_and_numbered_as_a_whole() {
    let sb = Sandbox::new();
    let sha = sb.path("svc.sha");
    service_log(&sb, "svc", 30_000, &sha);
    let out =
        output_within(sb.agent(sb.shims.join("svc")).env("TOKENSIEVE_CAPTURE_MAX_BYTES", "256K"), MINUTE);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout_text(&out);
    let id = receipt_raw_id(&out.stderr).expect("a raw id");
    let stored = show(&sb, &id, &[]);
    assert_eq!(sha256_hex(&stored), std::fs::read_to_string(&sha).unwrap());
    // The receipt counts all of it, exactly.
    let tokens = tokensieve::auditor::count_bytes(tokensieve::auditor::Encoding::Cl100k, &stored);
    assert_eq!(receipt_original(&out.stderr), Some(tokens));
    // A line the summary numbers is that line of the whole output.
    let numbered: Vec<(usize, &str)> = text
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.strip_prefix('L')?.split_once(": ")?;
            Some((n.parse().ok()?, rest))
        })
        .collect();
    assert!(numbered.iter().any(|(_, l)| l.contains("ERROR job 10000 failed")), "{text}");
    for (n, line) in numbered {
        let want = show(&sb, &id, &["--lines", &n.to_string()]);
        let want = String::from_utf8_lossy(&want);
        let line = line.split(" (×").next().unwrap();
        assert!(want.trim_end().starts_with(line.trim_end_matches('…')), "L{n}: {line:?} is {want:?}");
    }
    assert!(text.starts_with("30002 lines, "), "{}", &text[..200]);
}

#[test]
fn when_the_store_cannot_keep_it_the_output_passes_through_whole() {
    let sb = Sandbox::new();
    let sha = sb.path("svc.sha");
    service_log(&sb, "svc", 12_000, &sha); // ~900 KB
    let run = |env: &[(&str, &str)]| {
        let mut cmd = sb.agent(sb.shims.join("svc"));
        cmd.env("TOKENSIEVE_CAPTURE_MAX_BYTES", "64K");
        for (k, v) in env {
            cmd.env(k, v);
        }
        output_within(&mut cmd, MINUTE)
    };
    let blocked = sb.path("not-a-folder");
    std::fs::write(&blocked, "a file where the home should be").unwrap();
    let cases: [&[(&str, &str)]; 3] = [
        &[("TOKENSIEVE_STORE_MAX_BYTES", "0")],
        &[("TOKENSIEVE_STORE_MAX_BYTES", "512K")],
        &[("TOKENSIEVE_HOME", blocked.to_str().unwrap())],
    ];
    for (i, env) in cases.into_iter().enumerate() {
        let out = run(env);
        assert!(out.status.success());
        assert_eq!(
            sha256_hex(&out.stdout),
            std::fs::read_to_string(&sha).unwrap(),
            "{env:?}: not the raw bytes"
        );
        // A store turned off is the user's choice: no warning for it.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.contains("raw output not stored"), i > 0, "{env:?}: {stderr}");
    }
}

#[test]
fn binary_past_the_memory_limit_passes_through_byte_for_byte() {
    let sb = Sandbox::new();
    let file = sb.path("mixed.bin");
    let mut bytes: Vec<u8> =
        (0..5000).flat_map(|i| format!("text line {i} before the blob\n").into_bytes()).collect();
    bytes.extend((0..100_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    std::fs::write(&file, &bytes).unwrap();
    sb.shimmed("mixed", &format!("#!/bin/sh\ncat '{}'\n", file.display()));
    let out =
        output_within(sb.agent(sb.shims.join("mixed")).env("TOKENSIEVE_CAPTURE_MAX_BYTES", "32K"), MINUTE);
    assert!(out.status.success());
    assert!(out.stdout == bytes, "binary output changed");
    assert_eq!(receipt(&out.stderr), None);
}

/// Kills a process group when dropped: a failing assertion still ends
/// whatever the test started (a tool left looping would outlive the suite).
struct GroupGuard(i32);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        // SAFETY: signalling the process group this test created.
        unsafe { libc::kill(-self.0, libc::SIGKILL) };
    }
}

/// Starts `cmd` (its own process group, so the test can clean up whatever
/// the tool leaves), waits for `ready`, sends `sig` to tokensieve, and
/// returns its output and how long it took to exit after the signal.
///
/// The signal's disposition is reset to the default in the child first: a
/// shell starts a background job (`( ./scripts/test.sh & )`) with SIGINT
/// and SIGQUIT ignored, tokensieve rightly keeps an inherited ignore (as
/// under `nohup`), and the test would then wait on a signal that does
/// nothing.
fn stopped(sb: &Sandbox, mut cmd: Command, sig: i32) -> (std::process::Output, Duration) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0).stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(sig, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let pid = child.id() as i32;
    let _group = GroupGuard(pid);
    wait_for_file(&sb.path("ready"), MINUTE);
    // SAFETY: signalling the process we spawned.
    unsafe { libc::kill(pid, sig) };
    let at = Instant::now();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(at.elapsed() < MINUTE, "tokensieve still running a minute after the signal");
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = at.elapsed();
    // Whatever the tool left behind holds the pipes: end the group first.
    drop(_group);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    stdout.read_to_end(&mut out).unwrap();
    stderr.read_to_end(&mut err).unwrap();
    (std::process::Output { status, stdout: out, stderr: err }, took)
}

/// A tool that prints 200 lines with one error, then never ends; `trap`
/// is shell code run first (e.g. to ignore TERM).
fn hanging_tool(sb: &Sandbox, name: &str, prelude: &str) {
    sb.shimmed(
        name,
        &format!(
            "#!/bin/sh\n{prelude}\ni=1\nwhile [ $i -le 200 ]; do echo \"step $i of the migration ok\"; i=$((i+1)); done\n\
             echo 'ERROR: waiting for lock on table orders'\ntouch '{}'\nwhile :; do sleep 1; done\n",
            sb.path("ready").display()
        ),
    );
}

fn assert_delivered(out: &std::process::Output, sig_name: &str, code: i32) {
    let text = stdout_text(out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert!(text.contains(" of the migration ok"), "{text}");
    assert!(text.contains("ERROR: waiting for lock on table orders"), "{text}");
    assert!(text.len() < 200 * 20, "{} bytes: not summarised", text.len());
    assert!(receipt_raw_id(&out.stderr).is_some(), "{stderr}");
    assert!(stderr.contains(&format!("stopped by {sig_name} after ")), "{stderr}");
}

#[test]
fn sigterm_while_gathering_delivers_what_was_gathered() {
    let sb = Sandbox::new();
    hanging_tool(&sb, "migrate", "");
    let (out, took) = stopped(&sb, sb.agent(sb.shims.join("migrate")), libc::SIGTERM);
    assert_delivered(&out, "SIGTERM", 143);
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn sigint_while_gathering_delivers_and_exits_130() {
    let sb = Sandbox::new();
    hanging_tool(&sb, "migrate", "");
    let mut cmd = sb.cmd(BIN);
    cmd.args(["run", "--", "migrate"]);
    let (out, _) = stopped(&sb, cmd, libc::SIGINT);
    assert_delivered(&out, "SIGINT", 130);
}

#[test]
fn a_tool_that_ignores_the_signal_does_not_hold_the_output_back() {
    let sb = Sandbox::new();
    hanging_tool(&sb, "stubborn", "trap '' TERM");
    let (out, took) = stopped(&sb, sb.agent(sb.shims.join("stubborn")), libc::SIGTERM);
    assert_delivered(&out, "SIGTERM", 143);
    assert!(took >= Duration::from_millis(1900), "the grace was cut short: {took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_grandchild_holding_stdout_does_not_hold_the_output_back() {
    let sb = Sandbox::new();
    // The tool dies on TERM at once; the background job it started keeps
    // our pipe open.
    hanging_tool(&sb, "spawner", "sleep 600 &");
    let (out, took) = stopped(&sb, sb.agent(sb.shims.join("spawner")), libc::SIGTERM);
    assert_delivered(&out, "SIGTERM", 143);
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[test]
fn a_long_maven_build_through_run_gives_the_summary_and_the_stored_file() {
    // Seed 001's case: `./mvnw package` is slow; the agent gets a summary
    // and the path of the whole log instead of running it again to grep.
    let settings = std::path::Path::new("/etc/maven/settings-debian.xml");
    if Command::new("mvn").arg("--version").output().is_err() || !settings.exists() {
        eprintln!("note: mvn or Debian's offline Maven repository is missing; seed 001 case skipped");
        return;
    }
    let sb = Sandbox::new();
    let project = sb.path("rates");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/text/local/repro/projects/java-rates");
    assert!(Command::new("cp").arg("-r").arg(&src).arg(&project).status().unwrap().success());
    let mvnw = project.join("mvnw");
    std::fs::write(&mvnw, "#!/bin/sh\n# the machine's Maven, offline, in place of the wrapper\nexec mvn -o -s /etc/maven/settings-debian.xml \"$@\"\n").unwrap();
    assert!(Command::new("chmod").arg("755").arg(&mvnw).status().unwrap().success());
    let mut cmd = sb.cmd(BIN);
    cmd.current_dir(&project).args([
        "run",
        "--",
        "./mvnw",
        "package",
        "-Dsurefire.useFile=false",
        "-DtrimStackTrace=false",
    ]);
    let out = output_within(&mut cmd, MINUTE * 5);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let text = stdout_text(&out);
    for want in [
        "[INFO] BUILD FAILURE",
        "[ERROR] Tests run: 17, Failures: 1, Errors: 3, Skipped: 0",
        "ConverterTest.eurToUsd:13 expected:<108.0> but was:<108.00>",
        "Caused by: java.nio.file.NoSuchFileException: rates/table.txt",
        "exit 1",
    ] {
        assert!(text.contains(want), "{want:?} missing from:\n{text}");
    }
    let id = receipt_raw_id(&out.stderr)
        .unwrap_or_else(|| panic!("no raw id: {}", String::from_utf8_lossy(&out.stderr)));
    let note =
        text.lines().find(|l| l.starts_with("full output: tokensieve show ")).expect("the stored file");
    let path = note.split("(file: ").nth(1).and_then(|p| p.strip_suffix(')')).expect("a path");
    let stored = std::fs::read(path).expect("the stored log is readable at that path");
    assert_eq!(stored, show(&sb, &id, &[]));
    assert!(stored.len() > 3 * text.len(), "{} stored, {} shown", stored.len(), text.len());
}

#[test]
fn a_view_of_a_kept_output_tiles_the_whole_outputs_lines() {
    let sb = Sandbox::new();
    // An error every 50 lines: the summary is over the budget, a view it is.
    sb.shimmed(
        "noisy",
        "#!/usr/bin/env python3\nimport sys\nusers = ['ana', 'bo', 'chen', 'dara', 'eli', 'fay', 'gus']\n\
         out = ['service starting\\n']\nfor i in range(1, 30001):\n    if i % 50 == 0:\n        \
         out.append(f'2026-11-23T10:{i % 60:02d}:00Z ERROR job {i} failed: connection refused to db:{5000 + i % 997}\\n')\n    \
         else:\n        out.append(f'2026-11-23T10:{i % 60:02d}:{i % 60:02d}Z INFO job {i} for {users[i % 7]} done in {i % 97} ms\\n')\n\
         out.append('summary: done\\n')\nsys.stdout.write(''.join(out))\n",
    );
    let out =
        output_within(sb.agent(sb.shims.join("noisy")).env("TOKENSIEVE_CAPTURE_MAX_BYTES", "256K"), MINUTE);
    assert!(out.status.success());
    let text = stdout_text(&out);
    let id = receipt_raw_id(&out.stderr).expect("a raw id");
    let stored = show(&sb, &id, &[]);
    let whole: Vec<&str> = std::str::from_utf8(&stored).unwrap().lines().collect();
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with(&format!("# view: {} lines, ", whole.len())), "{text}");
    // Shown lines and `… lines A-B not shown` ranges cover the output in
    // order, each shown line being that line of the whole output.
    let mut next = 1;
    for line in lines.take_while(|l| !l.starts_with("# ")) {
        if let Some(range) = line.strip_prefix("… lines ") {
            let (a, rest) = range.split_once('-').unwrap();
            let b: usize = rest.split(' ').next().unwrap().parse().unwrap();
            assert_eq!(a.parse::<usize>().unwrap(), next, "{line}");
            assert!(line.ends_with(&format!("tokensieve show {id} --lines {a}:{b}")), "{line}");
            next = b + 1;
        } else {
            assert_eq!(line, whole[next - 1], "line {next}");
            next += 1;
        }
    }
    assert_eq!(next, whole.len() + 1, "{text}");
}

#[test]
fn json_lines_past_the_cap_are_summarised_as_lines_of_the_whole() {
    let sb = Sandbox::new();
    // JSON lines (a structured log): past the cap only some records are
    // held, so no record count or table may pretend to be the whole.
    sb.shimmed(
        "jsonlog",
        "#!/usr/bin/env python3\nimport json, sys\nfor i in range(40000):\n    \
         lvl = 'error' if i == 20000 else 'info'\n    \
         sys.stdout.write(json.dumps({'ts': 1700000000 + i, 'level': lvl, 'msg': f'request {i} served', 'ms': i % 97}) + '\\n')\n",
    );
    let out =
        output_within(sb.agent(sb.shims.join("jsonlog")).env("TOKENSIEVE_CAPTURE_MAX_BYTES", "512K"), MINUTE);
    assert!(out.status.success());
    let text = stdout_text(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("\"level\": \"error\", \"msg\": \"request 20000 served\""), "{text}");
    let id = receipt_raw_id(&out.stderr).expect("a raw id");
    assert!(
        text.contains(&format!("left out (its one signal line is above): tokensieve show {id} --lines ")),
        "{text}"
    );
    assert!(stderr.contains("text:"), "rendered as lines, not as a JSON document: {stderr}");
}
