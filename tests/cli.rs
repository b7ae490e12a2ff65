//! The `tokensieve` command line as people meet it (issue 24): every
//! subcommand's help, usage errors as one line with exit 2, a closed stdout
//! as a quiet exit 0, completions and the man page from the same
//! definitions, and the docs naming exactly what `--help` lists. The
//! regression tests are named after the defect they pin.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::BIN;
use sha2::{Digest, Sha256};

/// A private HOME and TOKENSIEVE_HOME (with its shim folder), and a
/// working directory, none of them the user's.
struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let env = Env { dir: tempfile::tempdir().unwrap() };
        for d in ["home", "ts/bin", "work"] {
            fs::create_dir_all(env.dir.path().join(d)).unwrap();
        }
        env
    }

    fn ts(&self) -> PathBuf {
        self.dir.path().join("ts")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(self.dir.path().join("work"))
            .env("HOME", self.dir.path().join("home"))
            .env("TOKENSIEVE_HOME", self.ts())
            .env_remove("TOKENSIEVE")
            .env_remove("TOKENSIEVE_FORMAT")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
    }

    /// Every path and file's bytes under the sandbox (homes, history, shims).
    fn digest(&self) -> String {
        let mut h = Sha256::new();
        let mut stack = vec![self.dir.path().to_path_buf()];
        let mut entries = Vec::new();
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                let meta = fs::symlink_metadata(&p).unwrap();
                if meta.is_dir() {
                    stack.push(p.clone());
                }
                entries.push((p, meta));
            }
        }
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (p, meta) in entries {
            h.update(p.to_string_lossy().as_bytes());
            if meta.is_file() {
                h.update(fs::read(&p).unwrap());
            } else if meta.file_type().is_symlink() {
                h.update(fs::read_link(&p).unwrap().to_string_lossy().as_bytes());
            }
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Exit 2 and one line on stderr naming tokensieve, nothing on stdout.
fn assert_usage_error(out: &Output, what: &str) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    assert!(err.starts_with("tokensieve"), "{what}: {err}");
    assert!(out.stdout.is_empty(), "{what}: {}", text(&out.stdout));
    err
}

fn assert_no_panic(out: &Output, what: &str) {
    let err = text(&out.stderr);
    assert!(!err.contains("panicked") && out.status.code() != Some(101), "{what}: {err}");
}

/// The subcommands `--help` lists (with their own, for the groups), and
/// the long options each help lists, read from the help itself.
fn surface() -> BTreeMap<String, BTreeSet<String>> {
    let env = Env::new();
    let mut out = BTreeMap::new();
    let mut todo = vec![String::new()];
    while let Some(path) = todo.pop() {
        let mut args: Vec<&str> = path.split_whitespace().collect();
        args.push("--help");
        let help = text(&env.run(&args).stdout);
        let mut flags = BTreeSet::new();
        let mut in_commands = false;
        for line in help.lines() {
            if line == "Commands:" {
                in_commands = true;
                continue;
            }
            if in_commands {
                match line.split_whitespace().next() {
                    Some(name) if line.starts_with("  ") && name != "help" => {
                        todo.push(format!("{path} {name}").trim().to_owned())
                    }
                    Some(_) => {}
                    None => in_commands = false,
                }
                continue;
            }
            let t = line.trim_start();
            let t = t.strip_prefix("-h, ").or_else(|| t.strip_prefix("-V, ")).unwrap_or(t);
            if let Some(flag) = t.strip_prefix("--")
                && line.starts_with("  ")
            {
                let name: String =
                    flag.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
                if !matches!(name.as_str(), "help" | "version") {
                    flags.insert(format!("--{name}"));
                }
            }
        }
        out.insert(path, flags);
    }
    out
}

/// Arguments that make a subcommand's usage complete (before an extra one
/// is added), or `None` where every further word is one of its own (tools,
/// agents, paths, a command line).
fn complete_args(path: &str) -> Option<&'static [&'static str]> {
    Some(match path {
        "" | "install" | "uninstall" | "init" | "discover" | "run" | "fetch" => return None,
        "show" => &["abcd1234"],
        "hook" => &["gemini"],
        "trust" | "decode" | "filter test" => &["some-file"],
        "filter try" => &["some-file", "--cmd", "x"],
        "inspect" => &["--stage", "dedup", "some-file"],
        "completions" => &["bash"],
        "objects push" | "objects pull" => &["origin"],
        _ => &[],
    })
}

/// Subcommands that do their work when given nothing and only read: the
/// walk runs them bare too (exit 0, 1 or, for want of input, 2).
const READS_WITHOUT_ARGUMENTS: &[&str] = &[
    "doctor",
    "gain",
    "recall",
    "discover",
    "init",
    "config",
    "config show",
    "config path",
    "man",
    "decode",
    "filter test",
    "session compact",
];
/// ... and those that write or serve (left out of the no-argument case).
const WRITES_WITHOUT_ARGUMENTS: &[&str] =
    &["", "install", "uninstall", "trust", "mcp", "objects push", "objects pull"];

/// A stdout whose reader is gone before the first write.
fn closed_stdout() -> Stdio {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

/// Issue 24's walk: every subcommand × {--help, -h, help SUB, no arguments,
/// an unknown flag, an extra positional, a missing flag value}: usage or one
/// error line, exit 0 (help) or 2 (usage), nothing changed in the homes,
/// the history or the shim folder, no panic; and again with stdout closed.
#[test]
fn every_subcommand_answers_help_and_bad_usage_without_side_effects() {
    let surface = surface();
    assert!(surface.len() >= 25, "{:?}", surface.keys());
    let env = Env::new();
    let before = env.digest();
    let mut runs = 0;
    for (path, flags) in &surface {
        let words: Vec<&str> = path.split_whitespace().collect();
        let with =
            |extra: &[&str]| -> Vec<String> { words.iter().chain(extra).map(|s| s.to_string()).collect() };
        let mut help_cases = vec![with(&["--help"]), with(&["-h"])];
        if !path.is_empty() {
            help_cases.push(["help"].iter().chain(&words).map(|s| s.to_string()).collect());
        }
        for args in &help_cases {
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = env.run(&argv);
            let help = text(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{argv:?}: {}", text(&out.stderr));
            assert!(help.contains("Usage: tokensieve"), "{argv:?}: {help}");
            for l in help.lines() {
                assert!(l.chars().count() <= 80, "{argv:?}: {} columns: {l}", l.chars().count());
            }
            let closed = env.cmd(&argv).stdout(closed_stdout()).output().unwrap();
            assert_no_panic(&closed, &format!("{argv:?} >&-"));
            assert_eq!(closed.status.code(), Some(0), "{argv:?} >&-: {}", text(&closed.stderr));
            runs += 2;
        }
        let mut usage_cases = vec![with(&["--bogus-flag"])];
        if let Some(complete) = complete_args(path) {
            usage_cases.push(with(&[complete, &["extra-arg"]].concat()));
        }
        let bare = |list: &[&str]| list.contains(&path.as_str());
        if !bare(READS_WITHOUT_ARGUMENTS) && !bare(WRITES_WITHOUT_ARGUMENTS) {
            usage_cases.push(with(&[]));
        }
        // A flag that takes a value, given last without one.
        let valued = ["--since", "--lines", "--stage", "--backend", "--limit", "--stats-json", "--tokenizer"];
        if let Some(flag) = flags.iter().find(|f| valued.contains(&f.as_str())) {
            usage_cases.push(with(&[flag]));
        }
        for args in &usage_cases {
            let argv: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = env.run(&argv);
            assert_no_panic(&out, &format!("{argv:?}"));
            let err = assert_usage_error(&out, &format!("{argv:?}"));
            assert!(err.contains("--help'"), "{argv:?}: no hint: {err}");
            let closed = env.cmd(&argv).stdout(closed_stdout()).output().unwrap();
            assert_no_panic(&closed, &format!("{argv:?} >&-"));
            assert_eq!(closed.status.code(), Some(2), "{argv:?} >&-");
            runs += 2;
        }
        // The read-only ones with nothing given: they work, and change nothing.
        if bare(READS_WITHOUT_ARGUMENTS) {
            for stdout in [Stdio::piped(), closed_stdout()] {
                let out = env.cmd(&words).stdout(stdout).output().unwrap();
                assert_no_panic(&out, path);
                assert!(matches!(out.status.code(), Some(0..=2)), "{path}: {}", text(&out.stderr));
                runs += 1;
            }
        }
        assert_eq!(env.digest(), before, "after {path}: the homes, history or shim folder changed");
    }
    assert!(runs > 200, "{runs} runs");
}

/// The same with a real reader that stops after one byte, repeated
/// (scripts/cli-walk.sh runs it 100 times over every subcommand's help).
#[test]
fn help_into_head_ends_quietly() {
    let env = Env::new();
    for args in [&["--help"][..], &["doctor", "--help"], &["session", "--help"], &["help", "gain"]] {
        for _ in 0..5 {
            let mut c = env.cmd(args);
            let mut child = c.stdout(Stdio::piped()).spawn().unwrap();
            let mut out = child.stdout.take().unwrap();
            let mut one = [0u8; 1];
            std::io::Read::read_exact(&mut out, &mut one).unwrap();
            drop(out);
            let done = child.wait_with_output().unwrap();
            assert_no_panic(&done, &format!("{args:?} | head -c 1"));
            assert_eq!(done.status.code(), Some(0), "{args:?}: {}", text(&done.stderr));
        }
    }
}

/// Defect 1: `tokensieve filter` (and `filter --`) panicked on a range.
#[test]
fn filter_without_arguments_is_a_usage_error_not_a_panic() {
    let env = Env::new();
    for args in [&["filter"][..], &["filter", "--"]] {
        let out = env.run(args);
        let err = assert_usage_error(&out, &format!("{args:?}"));
        assert!(err.contains("missing subcommand (test, try)"), "{err}");
    }
}

/// Defect 2: a closed stdout panicked ("failed printing to stdout").
#[test]
fn broken_pipe_ends_quietly_with_status_0() {
    let env = Env::new();
    let filters = env.dir.path().join("filters");
    fs::create_dir_all(&filters).unwrap();
    fs::write(
        filters.join("f.toml"),
        "[[filter]]\nmatch = \"noisy\"\ndrop = ['^x']\n[[filter.test]]\ninput = \"x\\ny\\n\"\nexpected = \"y\\n\"\n",
    )
    .unwrap();
    let f = filters.to_string_lossy().into_owned();
    for args in [
        &["--help"][..],
        &["init"],
        &["config", "path"],
        &["config", "show"],
        &["session", "--help"],
        &["filter", "test", &f],
        &["gain"],
        &["completions", "bash"],
        &["man"],
        &["init", "--json"],
    ] {
        let out = env.cmd(args).stdout(closed_stdout()).output().unwrap();
        assert_no_panic(&out, &format!("{args:?}"));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
    }
    // doctor reports problems in a bare home (exit 1), but never a panic.
    let out = env.cmd(&["doctor"]).stdout(closed_stdout()).output().unwrap();
    assert_no_panic(&out, "doctor");
    assert_ne!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // The delivery: filter mode and a shim, their stdout gone.
    let mut c = env.cmd(&["--cmd", "noisy"]);
    c.stdout(closed_stdout()).stdin(Stdio::piped());
    let out = common::output_with_stdin(&mut c, "line\n".repeat(10_000).as_bytes());
    assert_no_panic(&out, "filter mode");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sb = common::Sandbox::new();
    let tool = sb.shimmed(
        "chatty",
        "#!/bin/sh\ni=0\nwhile [ $i -lt 2000 ]; do echo \"{\\\"n\\\": $i}\"; i=$((i+1)); done\n",
    );
    for mut c in [sb.cmd(&tool), sb.agent(&tool)] {
        let out = c.stdout(closed_stdout()).output().unwrap();
        assert_no_panic(&out, "shim");
        assert!(matches!(out.status.code(), Some(0) | None), "shim: {:?} {}", out.status, text(&out.stderr));
    }
}

/// Defect 3: help flags were taken as names (a shim named `--help`, `sh -c
/// --help` recorded as a call, a tool named `--help`, ...).
#[test]
fn help_flags_are_never_taken_as_names() {
    let env = Env::new();
    let before = env.digest();
    for sub in ["install", "fetch", "run", "uninstall", "trust", "hook"] {
        for flag in ["--help", "-h"] {
            let out = env.run(&[sub, flag]);
            assert_eq!(out.status.code(), Some(0), "{sub} {flag}: {}", text(&out.stderr));
            assert!(text(&out.stdout).contains(&format!("Usage: tokensieve {sub}")), "{sub} {flag}");
            assert_ne!(text(&out.stdout).trim(), "{}", "{sub} {flag}");
        }
        let out = env.run(&[sub, "-x"]);
        assert_usage_error(&out, &format!("{sub} -x"));
    }
    assert_eq!(env.digest(), before, "a help flag changed the home, the history or the shims");
    assert!(!env.ts().join("bin/--help").exists());
    // After the command's own name, a flag is the command's.
    let out = env.run(&["run", "sh", "-c", "echo ok"]);
    assert_eq!(text(&out.stdout), "ok\n", "{}", text(&out.stderr));
}

/// Defect 4: `doctor --help`, `doctor --bogus`, `doctor extra` ran doctor;
/// several subcommands printed the global help; `help gain` was refused;
/// `inspect` ignored an extra argument; a typo was "cannot read".
#[test]
fn subcommands_have_their_own_help_and_refuse_bad_usage() {
    let env = Env::new();
    for sub in ["doctor", "init", "filter", "config", "show", "gain", "recall", "mcp", "decode", "inspect"] {
        let out = env.run(&[sub, "--help"]);
        let help = text(&out.stdout);
        assert!(help.contains(&format!("Usage: tokensieve {sub}")), "{sub}: {help}");
        assert!(!help.contains("PATH, in order") && !help.contains("Commands:\n  run"), "{sub}: {help}");
        let via_help = text(&env.run(&["help", sub]).stdout);
        assert!(via_help.contains(&format!("Usage: tokensieve {sub}")), "help {sub}: {via_help}");
    }
    assert_usage_error(&env.run(&["doctor", "--bogus"]), "doctor --bogus");
    assert_usage_error(&env.run(&["doctor", "extra"]), "doctor extra");
    let err =
        assert_usage_error(&env.run(&["inspect", "--stage", "dedup", "/nonexistent", "extra"]), "inspect");
    assert!(err.contains("'extra'"), "{err}");
    let err = assert_usage_error(&env.run(&["gian"]), "gian");
    assert!(err.contains("unknown command 'gian'") && err.contains("'gain'"), "{err}");
    // A file of that name is still filtered.
    fs::write(env.dir.path().join("work/gian"), "{\"a\": 1}\n").unwrap();
    assert_eq!(env.run(&["gian"]).status.code(), Some(0));
}

/// Defect 5: `--exit x` said "invalid digit found in string" twice, and
/// not which option.
#[test]
fn a_bad_exit_value_names_the_option() {
    let err = assert_usage_error(&Env::new().run(&["--exit", "x"]), "--exit x");
    assert!(err.contains("invalid value 'x' for '--exit <N>'"), "{err}");
}

/// Defect 5: pytest states a collection's errors twice (the `Interrupted:`
/// banner and its last line); the typed result counted them twice.
#[test]
fn pytest_collection_error_reports_two_errors_not_four() {
    let log =
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/pytest-collection-error.txt"))
            .unwrap();
    let env = Env::new();
    let out = common::output_with_stdin(
        &mut env.cmd(&["--cmd", "pytest", "--exit", "2", "--format", "json"]),
        &log,
    );
    assert_no_panic(&out, "--format json");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a typed result");
    assert_eq!(v["counts"]["errors"], 2, "{}", v["counts"]);
}

/// A JSON output of `n` records, pretty-printed (a line per field), stored
/// by filter mode; its raw id.
fn stored_json(env: &Env, n: usize) -> (String, String) {
    let items: Vec<serde_json::Value> =
        (0..n).map(|i| serde_json::json!({"Name": format!("item-{i}"), "State": "running"})).collect();
    let raw = format!("{}\n", serde_json::to_string_pretty(&items).unwrap());
    let out =
        common::output_with_stdin(&mut env.cmd(&["--cmd", "aws ec2 describe-instances"]), raw.as_bytes());
    let id = common::receipt_raw_id(&out.stderr).expect("stored");
    (id, raw)
}

/// Defect 5: the agent note said `show ID --lines` prints numbered lines.
#[test]
fn show_lines_prints_lines_as_they_are_and_the_agent_note_says_so() {
    let note = tokensieve::agents::INSTRUCTIONS;
    let at = note.find("--lines").unwrap();
    let sentence = &note[at..note[at..].find(". ").map_or(note.len(), |e| at + e)];
    assert!(!sentence.contains("number"), "the note says --lines numbers its lines: {sentence}");
    let env = Env::new();
    let (id, raw) = stored_json(&env, 100);
    let lines: Vec<&str> = raw.lines().collect();
    let out = env.run(&["show", &id, "--lines", "120:121"]);
    assert_eq!(text(&out.stdout), format!("{}\n{}\n", lines[119], lines[120]));
    let out = env.run(&["show", &id, "--grep", "item-42\""]);
    let n = lines.iter().position(|l| l.contains("item-42\"")).unwrap() + 1;
    assert_eq!(text(&out.stdout), format!("{n}:{}\n", lines[n - 1]));
}

/// Defect 5: `show ID --lines 500:600` past the end was silently empty.
#[test]
fn show_lines_past_the_end_says_so() {
    let env = Env::new();
    let (id, raw) = stored_json(&env, 50);
    let total = raw.lines().count();
    let out = env.run(&["show", &id, "--lines", "500:600"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr),
        format!("tokensieve show: --lines 500:600: the output has {total} lines\n")
    );
    // The last line itself is still there.
    let last = format!("{total}:600");
    assert_eq!(text(&env.run(&["show", &id, "--lines", &last]).stdout), "]\n");
}

fn history_rows(env: &Env) -> usize {
    let out = env.run(&["gain", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["calls"].as_u64().unwrap() as usize
}

/// Defect 5: `show ID --jq` and `filter try` added rows to the history
/// (inspections and drafts counted as savings, shown by `gain`/`recall`).
#[test]
fn show_jq_and_filter_try_add_no_history_rows() {
    let env = Env::new();
    let (id, _) = stored_json(&env, 200);
    assert_eq!(history_rows(&env), 1);
    let out = env.run(&["show", &id, "--jq", ".[] | .Name"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(history_rows(&env), 1, "show --jq recorded a call");
    let draft = env.dir.path().join("draft.toml");
    fs::write(&draft, "[[filter]]\nmatch = \"wget\"\ndrop = ['^progress']\n").unwrap();
    let log = "progress 1%\nprogress 2%\nsaved file\n".repeat(200);
    let mut c = env.cmd(&["filter", "try", &draft.to_string_lossy(), "--cmd", "wget x"]);
    let out = common::output_with_stdin(&mut c, log.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("progress"), "{}", text(&out.stdout));
    assert_eq!(history_rows(&env), 1, "filter try recorded a call");
}

/// Defect 5: `session compact --stats-json /nonexistent/x.json` wrote the
/// whole transcript, then failed.
#[test]
fn session_compact_fails_before_writing_when_the_stats_file_cannot_be() {
    let env = Env::new();
    let line = r#"{"type":"user","message":{"role":"user","content":"hello"}}"#;
    let mut c = env.cmd(&["session", "compact", "--stats-json", "/nonexistent/x.json"]);
    let out = common::output_with_stdin(&mut c, format!("{line}\n").as_bytes());
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(err.starts_with("tokensieve session: cannot write '/nonexistent/x.json'"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Defect 5: `fetch` lost each command's exit status and ended without a
/// newline.
#[test]
fn fetch_keeps_each_command_exit_status_and_ends_its_line() {
    let env = Env::new();
    let out = env.run(&["fetch", "--", "false", "echo hi"]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(stdout.ends_with('\n'), "{stdout:?}");
    assert!(stdout.contains("exit_code") && stdout.contains('1'), "{stdout}");
}

/// Defect 5: `init opencode --uninstall` left an empty `~/.config`.
#[test]
fn init_opencode_uninstall_leaves_no_empty_config() {
    let env = Env::new();
    let home = env.dir.path().join("home");
    assert!(env.run(&["init", "opencode"]).status.success());
    assert!(home.join(".config").exists());
    let out = env.run(&["init", "opencode", "--uninstall"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !home.join(".config").exists(),
        "left: {:?}",
        fs::read_dir(home.join(".config")).map(|d| d.count())
    );
    // A ~/.config that holds something else stays.
    fs::create_dir_all(home.join(".config/other")).unwrap();
    assert!(env.run(&["init", "opencode"]).status.success());
    assert!(env.run(&["init", "opencode", "--uninstall"]).status.success());
    assert!(home.join(".config/other").is_dir());
    assert!(!home.join(".config/opencode").exists());
}

/// `--json` is the machine form of every read command.
#[test]
fn read_commands_speak_json() {
    let env = Env::new();
    for args in [
        &["gain", "--json"][..],
        &["recall", "--json"],
        &["discover", "--json", "."],
        &["doctor", "--json"],
        &["config", "show", "--json"],
        &["init", "--json"],
    ] {
        let out = env.run(args);
        assert_no_panic(&out, &format!("{args:?}"));
        let v: Result<serde_json::Value, _> = serde_json::from_slice(&out.stdout);
        assert!(v.is_ok(), "{args:?}: {}", text(&out.stdout));
    }
    let out = env.run(&["doctor", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["healthy"], false);
    assert!(v["problems"].as_array().is_some_and(|p| !p.is_empty()));
}

/// Colour only on request or on a terminal: `--color always` paints
/// doctor's PROBLEM, `never` and NO_COLOR do not.
#[test]
fn colour_follows_the_flag_and_no_color() {
    let env = Env::new();
    let painted = |args: &[&str], no_color: bool| {
        let mut c = env.cmd(args);
        if no_color {
            c.env("NO_COLOR", "1");
        } else {
            c.env_remove("NO_COLOR");
        }
        text(&c.output().unwrap().stdout).contains("\x1b[")
    };
    assert!(painted(&["doctor", "--color", "always"], true));
    assert!(!painted(&["doctor", "--color", "never"], false));
    assert!(!painted(&["doctor"], false), "not a terminal");
    assert!(!painted(&["doctor", "--color", "auto"], true));
}

/// `tokensieve completions bash`, sourced, registers a completion.
#[test]
fn bash_completions_register() {
    let env = Env::new();
    let script = env.dir.path().join("completions.bash");
    let out = env.run(&["completions", "bash"]);
    assert!(out.status.success());
    fs::write(&script, &out.stdout).unwrap();
    let bash = Command::new("bash")
        .args(["--norc", "-c", &format!("source '{}' && complete -p tokensieve", script.display())])
        .output()
        .unwrap();
    assert!(bash.status.success(), "{}", text(&bash.stderr));
    assert!(text(&bash.stdout).starts_with("complete "), "{}", text(&bash.stdout));
    assert!(text(&bash.stdout).trim_end().ends_with(" tokensieve"), "{}", text(&bash.stdout));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = env.run(&["completions", shell]);
        assert!(out.status.success() && text(&out.stdout).contains("tokensieve"), "{shell}");
    }
}

/// The man page renders (`man -l`), and docs/man/tokensieve.1 is the one
/// `tokensieve man` prints today.
#[test]
fn the_man_page_renders_and_is_current() {
    let env = Env::new();
    let out = env.run(&["man"]);
    assert!(out.status.success());
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/man/tokensieve.1");
    assert_eq!(
        text(&out.stdout),
        fs::read_to_string(&committed).unwrap_or_default(),
        "docs/man/tokensieve.1 is stale: tokensieve man > docs/man/tokensieve.1"
    );
    if Command::new("man").arg("--version").output().is_err() {
        eprintln!("skipped the man -l rendering: no man here (scripts/test.sh installs man-db)");
        return;
    }
    let page = env.dir.path().join("tokensieve.1");
    fs::write(&page, &out.stdout).unwrap();
    let man = Command::new("man")
        .args(["-l", &page.to_string_lossy()])
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "80")
        .output()
        .unwrap();
    assert!(man.status.success(), "{}", text(&man.stderr));
    let rendered = text(&man.stdout);
    for needle in ["tokensieve", "SUBCOMMANDS", "--since-ref", "objects"] {
        assert!(rendered.contains(needle), "{needle} not in the rendered page:\n{rendered}");
    }
}

/// What the docs show a reader to type: every `tokensieve ...` in a code
/// line or a backtick span of README.md and docs/*.md, as words.
fn documented_commands() -> Vec<(String, Vec<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    files.extend(common::files_under(&root.join("docs"), "md"));
    let mut out = Vec::new();
    for f in files {
        let doc = fs::read_to_string(&f).unwrap();
        let name = f.strip_prefix(root).unwrap().display().to_string();
        for line in doc.lines() {
            let mut spans: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
            if line.starts_with("    ") {
                spans.push(line);
            }
            for span in spans {
                let mut rest = span;
                while let Some(at) = rest.find("tokensieve ") {
                    let before = &rest[..at];
                    rest = &rest[at + "tokensieve ".len()..];
                    // `tokensieve` the word in a path or a name is not the command.
                    if before.ends_with(['/', '.', '-', '_', '[', '~']) {
                        continue;
                    }
                    let cmd = rest.split(" # ").next().unwrap_or("");
                    out.push((name.clone(), words(cmd)));
                }
            }
        }
    }
    out
}

/// Shell-like words, up to a pipe, `;`, `&&` or a redirect.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, ' ') => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            (None, '|' | ';' | '<' | '>' | '&' | ')' | '$') => break,
            (None, c) => cur.push(c),
        }
    }
    if !cur.is_empty() && quote.is_none() {
        out.push(cur);
    }
    out
}

/// README and docs name every subcommand and option `--help` lists, and
/// none that it does not.
#[test]
fn docs_name_exactly_what_help_lists() {
    let surface = surface();
    let documented = documented_commands();
    let mut named: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (file, words) in &documented {
        // The subcommand path the words name.
        let mut path = String::new();
        let mut i = 0;
        while i < words.len() {
            let candidate = format!("{path} {}", words[i]).trim().to_owned();
            if surface.contains_key(&candidate) {
                // A group (`objects`) is named by its subcommands' lines too.
                named.entry(candidate.clone()).or_default();
                path = candidate;
                i += 1;
            } else {
                break;
            }
        }
        let first = words.get(i).map(String::as_str).unwrap_or("");
        let bare_word = !first.is_empty()
            && first.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            && !first.starts_with('-');
        if path.is_empty() && bare_word && !["help"].contains(&first) {
            wrong.push(format!("{file}: `tokensieve {}`: no subcommand '{first}'", words.join(" ")));
            continue;
        }
        let flags = named.entry(path.clone()).or_default();
        for w in &words[i..] {
            if w == "--" {
                break;
            }
            let w = w.trim_start_matches('[').trim_end_matches(']');
            let Some(flag) =
                w.strip_prefix("--").map(|f| format!("--{}", f.split(['=', '|']).next().unwrap_or("")))
            else {
                continue;
            };
            let known = surface[&path].contains(&flag) || ["--help", "--version"].contains(&flag.as_str());
            if !known {
                wrong.push(format!(
                    "{file}: `tokensieve {}`: '{flag}' is not an option of it",
                    words.join(" ")
                ));
            }
            flags.insert(flag);
        }
    }
    // An option the top level shares (--color everywhere; --tokenizer,
    // --aggressive, --format where output is delivered) is named once there.
    let top_documented: BTreeSet<String> = named.get("").cloned().unwrap_or_default();
    for (path, flags) in &surface {
        let Some(doc) = named.get(path) else {
            wrong.push(format!("no `tokensieve {path}` in README.md or docs/"));
            continue;
        };
        for f in flags.difference(doc) {
            if !(surface[""].contains(f) && top_documented.contains(f)) {
                wrong.push(format!("`tokensieve {path} {f}` is in --help but not in README.md or docs/"));
            }
        }
    }
    assert!(wrong.is_empty(), "{} mismatches:\n{}", wrong.len(), wrong.join("\n"));
}

/// `tokensieve` alone on a terminal says what it waits for; from a pipe it
/// filters silently.
#[test]
fn filter_mode_reads_stdin_and_dash() {
    let env = Env::new();
    let plain = common::output_with_stdin(&mut env.cmd(&[]), b"{\"a\": 1}\n");
    let dash = common::output_with_stdin(&mut env.cmd(&["-"]), b"{\"a\": 1}\n");
    assert!(dash.status.success(), "{}", text(&dash.stderr));
    assert!(!dash.stdout.is_empty());
    assert_eq!(dash.stdout, plain.stdout);
    assert!(!text(&plain.stderr).contains("reading the output"), "not a terminal: {}", text(&plain.stderr));
    let mut c = env.cmd(&["decode", "-"]);
    let out = common::output_with_stdin(&mut c, b"{\"a\": 1}\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut script = fs::File::create(env.dir.path().join("in.json")).unwrap();
    script.write_all(b"[1, 2]\n").unwrap();
    let out = env.run(&[&env.dir.path().join("in.json").to_string_lossy()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// Issue 24: the history recorded `g++` as `?` and `flake8` as `flake`, so
/// `recall --tool g++` (or `flake8`) found nothing.
#[test]
fn recall_finds_g_plus_plus_and_flake8_by_their_names() {
    let env = Env::new();
    let gcc =
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/make-gcc-error.txt")).unwrap();
    let flake = b"src/a.py:1:1: F401 'os' imported but unused\nsrc/a.py:3:80: E501 line too long (91 > 79 characters)\n";
    for (cmd, raw) in [("g++ -O2 -c shapes.cpp", &gcc[..]), ("flake8 src", &flake[..])] {
        let out = common::output_with_stdin(&mut env.cmd(&["--cmd", cmd, "--exit", "1"]), raw);
        assert!(out.status.success(), "{cmd}: {}", text(&out.stderr));
    }
    for tool in ["g++", "flake8"] {
        let out = env.run(&["recall", "--tool", tool, "--json"]);
        let found: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(found.as_array().map(Vec::len), Some(1), "recall --tool {tool}: {found}");
        assert_eq!(found[0]["tool"], tool);
    }
    let gain: serde_json::Value = serde_json::from_slice(&env.run(&["gain", "--json"]).stdout).unwrap();
    let tools: Vec<&str> =
        gain["by_command"].as_array().unwrap().iter().filter_map(|r| r["tool"].as_str()).collect();
    assert!(tools.contains(&"g++") && tools.contains(&"flake8") && !tools.contains(&"?"), "{tools:?}");
}

/// `tokensieve` alone on a terminal says what it waits for (on stderr), and
/// a Ctrl-D ends it.
#[test]
fn tokensieve_alone_on_a_terminal_says_what_it_waits_for() {
    use std::os::fd::FromRawFd;
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty writes two descriptors, which the files below own.
    let rc = unsafe {
        libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
    };
    assert_eq!(rc, 0, "openpty");
    let (mut master, slave) = unsafe { (fs::File::from_raw_fd(master), fs::File::from_raw_fd(slave)) };
    let env = Env::new();
    let child = {
        let mut c = env.cmd(&[]);
        c.stdin(Stdio::from(slave));
        c.spawn().unwrap()
    };
    master.write_all(b"\x04").unwrap();
    let out = common::wait_within(child, std::time::Duration::from_secs(20));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.starts_with("tokensieve: reading the output to filter from stdin"), "{err}");
}
