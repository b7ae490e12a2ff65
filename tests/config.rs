//! Settings files and user filters end to end: the built binary, real
//! shims, real files in a temp home and a temp project folder.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use common::*;
use tokensieve::config::SPECS;

const MINUTE: Duration = Duration::from_secs(60);

/// A value for each setting, as a file writes it and as its variable holds it.
fn sample(key: &str) -> (&'static str, &'static str) {
    match key {
        "tokenizer" => ("\"o200k\"", "o200k"),
        "budget" => ("9000", "9000"),
        "focus" => ("800", "800"),
        "text_threshold" => ("5000", "5000"),
        "dedup" => ("\"aggressive\"", "aggressive"),
        "epoch" => ("\"keep\"", "keep"),
        "receipt" => ("\"short\"", "short"),
        "format" => ("\"json\"", "json"),
        "store_max_bytes" => ("\"64M\"", "64M"),
        "capture_max_bytes" => ("\"16M\"", "16M"),
        "text_wait_secs" => ("30", "30"),
        "agent_markers" => ("[\"MY_BOT\"]", "MY_BOT"),
        "live" => ("[\"logs tail\"]", "logs tail"),
        other => panic!("no sample value for the setting '{other}': add one here"),
    }
}

/// Every setting, one per line from line 1, then a tool switch.
fn settings_file(tool_on: bool) -> String {
    let mut s: String = SPECS.iter().map(|spec| format!("{} = {}\n", spec.key, sample(spec.key).0)).collect();
    s.push_str(&format!("[tool.aws]\nenabled = {tool_on}\n"));
    s
}

/// `config show` as (key → (value, source)).
fn show(cmd: &mut Command) -> Vec<(String, String, String)> {
    let out = cmd.args(["config", "show"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let parts: Vec<&str> = l.split("  ").map(str::trim).filter(|p| !p.is_empty()).collect();
            (parts[0].to_string(), parts[1].to_string(), parts[2..].join(" "))
        })
        .collect()
}

fn row<'a>(rows: &'a [(String, String, String)], key: &str) -> &'a (String, String, String) {
    rows.iter().find(|r| r.0 == key).unwrap_or_else(|| panic!("no row {key} in {rows:?}"))
}

/// The CLI in `dir` with `home`, none of our variables set.
fn cli(home: &Path, dir: &Path) -> Command {
    let mut c = tokensieve_in(home);
    for spec in SPECS {
        c.env_remove(spec.env);
    }
    c.env_remove("TOKENSIEVE_TOOLS").env_remove("BASH_MAX_OUTPUT_LENGTH").current_dir(dir);
    c
}

#[test]
fn every_setting_at_every_level_names_its_source() {
    let home = tempfile::tempdir().unwrap();
    let proj = tempfile::tempdir().unwrap();
    let deep = proj.path().join("a/b");
    fs::create_dir_all(&deep).unwrap();

    // Nothing set: defaults.
    let rows = show(&mut cli(home.path(), &deep));
    for spec in SPECS {
        assert!(row(&rows, spec.key).2.starts_with("default"), "{:?}", row(&rows, spec.key));
    }

    // The user's file.
    let user = home.path().join("config.toml");
    fs::write(&user, settings_file(false)).unwrap();
    let rows = show(&mut cli(home.path(), &deep));
    for (i, spec) in SPECS.iter().enumerate() {
        let r = row(&rows, spec.key);
        assert_eq!(r.2, format!("{}:{}", user.display(), i + 1), "{r:?}");
        assert_eq!(r.1, sample(spec.key).1.replace(", ", ","), "{r:?}");
    }
    let aws = row(&rows, "tool.aws");
    assert_eq!(
        (aws.1.as_str(), aws.2.clone()),
        ("disabled", format!("{}:{}", user.display(), SPECS.len() + 2))
    );

    // The project's file, found from a folder below it, wins over the user's.
    // Untrusted, it may set only the harmless keys (docs/config.md, "Trust").
    let project = proj.path().join(".tokensieve.toml");
    fs::write(&project, format!("# the project's settings\n{}", settings_file(true))).unwrap();
    let rows = show(&mut cli(home.path(), &deep));
    for (i, spec) in SPECS.iter().enumerate() {
        let from_project = tokensieve::config::UNTRUSTED_KEYS.contains(&spec.key);
        let want = if from_project { &project } else { &user };
        let line = if from_project { i + 2 } else { i + 1 };
        assert_eq!(row(&rows, spec.key).2, format!("{}:{line}", want.display()), "{}", spec.key);
    }
    assert_eq!(row(&rows, "tool.aws").1, "disabled");
    let trusted = cli(home.path(), &deep).arg("trust").output().unwrap();
    assert!(trusted.status.success(), "{}", String::from_utf8_lossy(&trusted.stderr));
    let rows = show(&mut cli(home.path(), &deep));
    for (i, spec) in SPECS.iter().enumerate() {
        assert_eq!(row(&rows, spec.key).2, format!("{}:{}", project.display(), i + 2));
    }
    assert_eq!(row(&rows, "tool.aws").1, "enabled");

    // The environment wins over both.
    let mut cmd = cli(home.path(), &deep);
    for spec in SPECS {
        cmd.env(spec.env, sample(spec.key).1);
    }
    cmd.env("TOKENSIEVE_TOOLS", "aws=off");
    let rows = show(&mut cmd);
    for spec in SPECS {
        let r = row(&rows, spec.key);
        assert_eq!(r.2, format!("env {}", spec.env), "{r:?}");
    }
    assert_eq!(row(&rows, "tool.aws").2, "env TOKENSIEVE_TOOLS");

    // `config path` names both files.
    let out = cli(home.path(), &deep).args(["config", "path"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(&user.display().to_string()) && text.contains(&project.display().to_string()),
        "{text}"
    );
}

#[test]
fn settings_from_files_take_effect() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    fs::write(home.path().join("config.toml"), "tokenizer = \"o200k\"\ndedup = \"off\"\nepoch = \"keep\"\n")
        .unwrap();
    let doc =
        br#"{"cluster_id": "c1", "tags": {"ClusterId": "c1", "createdAt": 1700000000000}, "items": [1, 2]}"#;
    let out = output_with_stdin(cli(home.path(), dir.path()).env("TOKENSIEVE_RECEIPT", "long"), doc);
    let text = String::from_utf8(out.stdout).unwrap();
    // dedup off keeps the repeated id; epoch keep leaves the number alone
    assert_eq!(text.matches("c1").count(), 2, "{text}");
    assert!(text.contains("1700000000000"), "{text}");
    // the same through the variables' names for the defaults: the id goes
    fs::remove_file(home.path().join("config.toml")).unwrap();
    let out = output_with_stdin(&mut cli(home.path(), dir.path()), doc);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("c1").count(), 1, "{text}");
    assert!(text.contains("2023-11-14T22:13:20"), "{text}");
}

/// A JSON-printing `aws` that compresses well.
fn aws(sb: &Sandbox) {
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/aws/ec2-describe-instances.json");
    sb.shimmed("aws", &format!("#!/bin/sh\ncat '{fixture}'\n"));
}

fn run_in(mut cmd: Command, dir: &Path) -> Output {
    output_within(cmd.current_dir(dir), MINUTE)
}

/// Whether the output is not the raw bytes (with stderr for the failure).
fn changed(out: &Output, raw: &[u8]) -> Result<(), String> {
    if out.stdout == raw {
        Err(format!("passed through: {}", String::from_utf8_lossy(&out.stderr)))
    } else {
        Ok(())
    }
}

fn same(out: &Output, raw: &[u8]) -> Result<(), String> {
    if out.stdout == raw {
        Ok(())
    } else {
        Err(format!("compressed: {}", String::from_utf8_lossy(&out.stderr)))
    }
}

#[test]
fn a_tool_turned_off_at_any_level_is_passed_through() {
    let sb = Sandbox::new();
    aws(&sb);
    let raw = fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/aws/ec2-describe-instances.json"))
        .unwrap();
    let proj = tempfile::tempdir().unwrap();
    let agent = |args: &[&str]| {
        let mut c = sb.agent(sb.shims.join("aws"));
        c.args(args);
        c
    };
    // on by default
    let out = run_in(agent(&["ec2", "describe-instances"]), proj.path());
    changed(&out, &raw).unwrap();
    // user file
    fs::write(sb.home.join("config.toml"), "[tool.aws]\nenabled = false\n").unwrap();
    let out = run_in(agent(&["ec2", "describe-instances"]), proj.path());
    same(&out, &raw).unwrap();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // the project turns it back on, once trusted (untrusted, it may only
    // turn tools off)
    fs::write(proj.path().join(".tokensieve.toml"), "[tool.aws]\nenabled = true\n").unwrap();
    same(&run_in(agent(&["ec2", "describe-instances"]), proj.path()), &raw).unwrap();
    let mut trust = sb.cmd(BIN);
    trust.arg("trust").current_dir(proj.path());
    assert!(trust.output().unwrap().status.success());
    changed(&run_in(agent(&["ec2", "describe-instances"]), proj.path()), &raw).unwrap();
    // the environment turns it off again
    let mut c = agent(&["ec2", "describe-instances"]);
    c.env("TOKENSIEVE_TOOLS", "aws=off");
    same(&run_in(c, proj.path()), &raw).unwrap();
    // one subcommand only
    fs::remove_file(sb.home.join("config.toml")).unwrap();
    fs::write(proj.path().join(".tokensieve.toml"), "[tool.aws.ec2]\nenabled = false\n").unwrap();
    same(&run_in(agent(&["ec2", "describe-instances"]), proj.path()), &raw).unwrap();
    changed(&run_in(agent(&["s3api", "list"]), proj.path()), &raw).unwrap();
}

#[test]
fn extra_agent_markers_and_live_commands() {
    let sb = Sandbox::new();
    aws(&sb);
    let raw = fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/aws/ec2-describe-instances.json"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    // no marker we know: passthrough, until the settings name MY_BOT
    let mut c = sb.cmd(sb.shims.join("aws"));
    c.env("MY_BOT", "1");
    same(&run_in(c, dir.path()), &raw).unwrap();
    fs::write(sb.home.join("config.toml"), "agent_markers = [\"MY_BOT\"]\nlive = [\"logs tail\"]\n").unwrap();
    let mut c = sb.cmd(sb.shims.join("aws"));
    c.env("MY_BOT", "1");
    let out = run_in(c, dir.path());
    changed(&out, &raw).unwrap();
    assert!(receipt(&out.stderr).is_some());
    // a live command of the settings: passthrough even for an agent
    let mut c = sb.agent(sb.shims.join("aws"));
    c.args(["logs", "tail", "/app"]);
    same(&run_in(c, dir.path()), &raw).unwrap();
}

/// A tool printing progress noise and one error line.
const NOISY: &str = "#!/bin/sh\ni=0\nwhile [ $i -lt 60 ]; do echo \"fetching part $i of 60\"; i=$((i+1)); done\n\
                     echo 'src/app.c:12:3: error: expected expression'\necho 'done'\nexit 1\n";

#[test]
fn project_filters_count_only_once_trusted_and_again_after_a_change() {
    let sb = Sandbox::new();
    sb.shimmed("fetchy", NOISY);
    let proj = tempfile::tempdir().unwrap();
    let file = proj.path().join(".tokensieve.toml");
    fs::write(&file, "[[filter]]\nmatch = \"fetchy\"\ndrop = ['^fetching part']\n").unwrap();
    let run = || run_in(sb.agent(sb.shims.join("fetchy")), proj.path());

    let out = run();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(String::from_utf8_lossy(&out.stdout).contains("fetching part"));
    assert_eq!(stderr.lines().filter(|l| l.contains("not trusted")).count(), 1, "{stderr}");
    assert!(stderr.contains("tokensieve trust"), "{stderr}");
    assert_eq!(out.status.code(), Some(1));

    let t = sb.cmd(BIN).arg("trust").current_dir(proj.path()).output().unwrap();
    assert!(t.status.success(), "{}", String::from_utf8_lossy(&t.stderr));
    let out = run();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, "src/app.c:12:3: error: expected expression\ndone\nexit 1\n");
    assert!(
        receipt_field(&String::from_utf8_lossy(&out.stderr), "Shape")
            .is_some_and(|s| s.contains("user:fetchy"))
    );

    fs::write(&file, "[[filter]]\nmatch = \"fetchy\"\ndrop = ['.']\n").unwrap();
    let out = run();
    assert!(String::from_utf8_lossy(&out.stdout).contains("fetching part"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("changed since it was trusted"));
}

#[test]
fn a_user_filter_cannot_make_an_error_vanish() {
    let sb = Sandbox::new();
    sb.shimmed("fetchy", NOISY);
    fs::write(
        sb.home.join("config.toml"),
        "[[filter]]\nmatch = \"fetchy\"\ndrop = ['.']\non_empty = 'all fine'\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = run_in(sb.agent(sb.shims.join("fetchy")), dir.path());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("src/app.c:12:3: error: expected expression"), "{text}");
    assert!(!text.contains("all fine"), "{text}");
}

#[test]
fn a_broken_settings_file_costs_one_line_and_never_the_output() {
    let sb = Sandbox::new();
    aws(&sb);
    fs::write(sb.home.join("config.toml"), BROKEN_CONFIG).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // an agent: compressed output, one warning naming file and line
    let out = run_in(sb.agent(sb.shims.join("aws")), dir.path());
    assert!(out.status.success());
    assert!(!out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("tokensieve: warning:")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains(&format!("{}:4:", sb.home.join("config.toml").display())), "{stderr}");
    assert!(receipt(&out.stderr).is_some(), "{stderr}");
    // a passthrough leaves stderr to the tool
    let out = run_in(sb.cmd(sb.shims.join("aws")), dir.path());
    assert!(out.stderr.is_empty() && !out.stdout.is_empty());
    // an unknown key and a bad value: one line each, the rest applies
    fs::write(sb.home.join("config.toml"), "budget = 9000\nbugdet = 1\ndedup = \"lots\"\n").unwrap();
    let out = cli(&sb.home, dir.path()).args(["config", "show"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let path = sb.home.join("config.toml").display().to_string();
    assert!(stderr.contains(&format!("{path}:2: unknown key 'bugdet'")), "{stderr}");
    assert!(stderr.contains(&format!("{path}:3: dedup: must be default, aggressive or off")), "{stderr}");
    let rows: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect();
    assert!(
        rows.iter()
            .any(|r| r.starts_with("budget ") && r.contains(" 9000 ") && r.ends_with(&format!("{path}:1")))
    );
}

#[test]
fn filter_test_runs_the_examples_and_reports_failures() {
    let dir = tempfile::tempdir().unwrap();
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/filters");
    let out = cli(dir.path(), dir.path()).args(["filter", "test", examples]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let files = fs::read_dir(examples)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "toml"));
    assert!(files.count() >= 5);
    assert!(!text.contains("FAIL") && !text.contains("no tests"), "{text}");

    let bad = dir.path().join("bad.toml");
    fs::write(
        &bad,
        "[[filter]]\nmatch = \"fetchy\"\ndrop = ['^x']\n[[filter.test]]\ninput = \"x 1\\ny 2\\n\"\nexpected = \"y 3\\n\"\n",
    )
    .unwrap();
    let out = cli(dir.path(), dir.path()).args(["filter", "test"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("FAIL  fetchy: test 1") && text.contains("| y 2"), "{text}");
}

/// A user's `[[view]]` decides what a JSON output's focus view shows (over
/// the built-in view for the same command), and `filter test` runs its
/// inline tests.
#[test]
fn a_user_view_focuses_json_and_its_tests_run() {
    let home = tempfile::tempdir().unwrap();
    let view = "[[view]]\nname = \"jobs\"\ncommands = [\"jobsctl list\"]\njq = \"records(.jobs; .id, .state)\"\n\
                [[view.test]]\ninput = '{\"jobs\": [{\"id\": 1, \"state\": \"ok\", \"digest\": \"9f86d08\"}]}'\n\
                shows = ['\"state\":\"ok\"']\nhides = ['9f86d08']\n";
    fs::write(home.path().join("config.toml"), view).unwrap();
    let jobs: Vec<String> = (0..40)
        .map(|i| format!("{{\"id\": {i}, \"state\": \"{}\", \"digest\": \"{:040x}\", \"note\": \"job number {i} of the nightly batch\"}}", if i == 7 { "failed" } else { "ok" }, i * 7919))
        .collect();
    let doc = format!("{{\"jobs\": [{}]}}", jobs.join(","));
    let input = home.path().join("jobs.json");
    fs::write(&input, &doc).unwrap();
    let out = cli(home.path(), home.path()).args(["--cmd", "jobsctl list"]).arg(&input).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("# view: focus on .jobs[] (40 records, 1 with signal shown whole)"), "{text}");
    assert!(first.ends_with("--jq '.jobs[] | {id, digest, note}'"), "{first}");
    // The failed job shows whole; the others without their notes.
    assert!(text.contains("job number 7 of") && !text.contains("job number 8 of"), "{text}");

    let out = cli(home.path(), home.path()).args(["filter", "test"]).output().unwrap();
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success() && listed.contains("ok    view jobs (1 tests)"), "{listed}");
    fs::write(home.path().join("config.toml"), view.replace("hides = ['9f86d08']", "hides = ['ok']"))
        .unwrap();
    let out = cli(home.path(), home.path()).args(["filter", "test"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(listed.contains("FAIL  view jobs") && listed.contains("'ok' is shown"), "{listed}");
}

#[test]
fn filter_try_shows_a_draft_on_a_capture_with_the_receipt() {
    let dir = tempfile::tempdir().unwrap();
    let draft = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/filters/zip.toml");
    let capture =
        fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/filters/captures/zip-r.txt")).unwrap();
    let mut cmd = cli(dir.path(), dir.path());
    cmd.env("TOKENSIEVE_RECEIPT", "long").args(["filter", "try", draft, "--cmd", "zip -r tree.zip tree"]);
    let out = output_with_stdin(&mut cmd, &capture);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("tree/src/core/mod40.txt (×40 similar)"), "{text}");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(receipt_field(&stderr, "Shape").is_some_and(|s| s.contains("user:zip-add")), "{stderr}");
}
