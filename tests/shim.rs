//! The shim end to end: real processes, a real symlink named like a tool first
//! on PATH, real pipes, files, signals and exit codes.

#[path = "shim/aws.rs"]
mod aws;
mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const MINUTE: Duration = Duration::from_secs(60);
const META: &str = "cargo metadata --format-version 1 --no-deps";

/// The real `cargo metadata` output for this crate, straight from cargo.
fn real_metadata() -> Vec<u8> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

fn cargo_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.shim("cargo");
    sb
}

fn in_crate(mut cmd: Command) -> Command {
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

#[test]
fn an_agent_reading_stdout_gets_the_compressed_form_and_a_receipt() {
    let sb = cargo_sandbox();
    let raw = real_metadata();
    // The agent spawned the tool itself, and the agent spawned `bash -c`.
    let direct = in_crate({
        let mut c = sb.agent(sb.shims.join("cargo"));
        c.args(["metadata", "--format-version", "1", "--no-deps"]);
        c
    })
    .output()
    .unwrap();
    let via_bash = in_crate(sb.agent_bash(META)).output().unwrap();
    for out in [direct, via_bash] {
        assert!(out.status.success());
        let receipt = receipt(&out.stderr).expect("a receipt on stderr");
        assert!(receipt.contains("Original: "), "{receipt}");
        if receipt.ends_with("Shape: raw") {
            assert_eq!(out.stdout, raw);
        } else {
            assert!(out.stdout.len() < raw.len(), "{receipt}");
        }
    }
}

#[test]
fn program_consumers_get_the_raw_bytes_and_no_receipt() {
    let sb = cargo_sandbox();
    let raw = real_metadata();
    let file = sb.path("out.json");
    let cases: Vec<(&str, String)> = vec![
        ("piped into a program", format!("{META} | cat")),
        (
            "piped into python",
            format!("{META} | python3 -c 'import sys; sys.stdout.write(sys.stdin.read())'"),
        ),
        ("captured by $(...)", format!("x=$({META}); printf '%s\\n' \"$x\"")),
        ("captured by $(...; ...)", format!("x=$({META}; true); printf '%s\\n' \"$x\"")),
        ("redirected to a file", format!("{META} > '{}' && cat '{}'", file.display(), file.display())),
    ];
    for (what, script) in cases {
        let out = in_crate(sb.agent_bash(&script)).output().unwrap();
        assert!(out.status.success(), "{what}");
        assert_eq!(receipt(&out.stderr), None, "{what}");
        assert_eq!(out.stdout, raw, "{what}");
    }
    let head = in_crate(sb.agent_bash(&format!("{META} | head -c 40"))).output().unwrap();
    assert_eq!(receipt(&head.stderr), None);
    assert_eq!(head.stdout, raw[..40]);
}

#[test]
fn without_an_agent_marker_or_with_tokensieve_off_nothing_changes() {
    let sb = cargo_sandbox();
    let raw = real_metadata();
    let mut human = in_crate(sb.cmd("bash"));
    human.arg("-c").arg(META);
    let mut off = in_crate(sb.agent_bash(META));
    off.env("TOKENSIEVE", "off");
    for mut cmd in [human, off] {
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        assert_eq!(receipt(&out.stderr), None);
        assert_eq!(out.stdout, raw);
    }
    // TOKENSIEVE=on stands in for a marker.
    let mut on = in_crate(sb.cmd("bash"));
    on.arg("-c").arg(META).env("TOKENSIEVE", "on");
    assert!(receipt(&on.output().unwrap().stderr).is_some());
}

#[test]
fn exit_codes_are_the_tools_own() {
    let sb = Sandbox::new();
    sb.shimmed("exiter", "#!/bin/sh\necho '{\"a\": [1, 2]}'\nexit \"$1\"\n");
    sb.shimmed("texter", "#!/bin/sh\necho plain text\nexit \"$1\"\n");
    // All at once: each case is a few process starts.
    let mut running = Vec::new();
    for code in [0, 1, 2, 42, 127, 255] {
        for tool in ["exiter", "texter"] {
            for agent in [true, false] {
                let mut cmd = if agent { sb.agent(sb.shims.join(tool)) } else { sb.cmd(sb.shims.join(tool)) };
                let child =
                    cmd.arg(code.to_string()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
                running.push((code, tool, agent, child));
            }
        }
    }
    for (code, tool, agent, child) in running {
        let out = wait_within(child, MINUTE);
        assert_eq!(out.status.code(), Some(code), "{tool} {code} agent={agent}");
    }
}

#[test]
fn death_by_a_signal_is_128_plus_n() {
    let sb = Sandbox::new();
    // Exits through `kill` with no command after it: the signal must not be
    // blocked in the tool (a blocked TERM would let it print "not reached").
    sb.shimmed("suicide", "#!/bin/sh\necho '{\"a\": 1}'\nkill -TERM $$\necho not reached\n");
    let out = sb.agent(sb.shims.join("suicide")).output().unwrap();
    assert_eq!(code(out.status), 143);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("not reached"));
    // Through a shell, as an agent sees it.
    let out = sb.agent_bash("suicide").output().unwrap();
    assert_eq!(out.status.code(), Some(143));
    // A signal our caller ignores (as under nohup) stays ignored in the tool.
    sb.shimmed("hupper", "#!/bin/sh\nkill -HUP $$\necho survived\n");
    let out = sb.agent_bash("trap '' HUP; exec hupper").output().unwrap();
    assert_eq!((out.status.code(), out.stdout), (Some(0), b"survived\n".to_vec()));
}

#[test]
fn sigterm_sent_to_the_shim_reaches_the_tool() {
    let sb = Sandbox::new();
    let ready = sb.path("ready");
    let heard = sb.path("heard");
    sb.shimmed(
        "waiter",
        &format!(
            // `wait` returns at once for a trapped signal (a foreground
            // `sleep` would first run out): the tool answers within the
            // shim's grace even on a loaded machine.
            "#!/bin/sh\ntrap 'echo TERM > {heard}; exit 7' TERM\necho '{{\"a\": 1}}'\ntouch {ready}\n\
             while :; do sleep 1 >/dev/null & wait $!; done\n",
            heard = heard.display(),
            ready = ready.display()
        ),
    );
    let child =
        sb.agent(sb.shims.join("waiter")).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    wait_for_file(&ready, MINUTE);
    // SAFETY: signalling the shim we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = wait_within(child, MINUTE);
    assert_eq!(std::fs::read_to_string(&heard).unwrap().trim(), "TERM");
    assert_eq!(out.status.code(), Some(7), "the shim survives to report the tool's status");
}

/// Runs `cmd`, reads its first stdout line, then the rest: the lines, and how
/// far apart they arrived. A tool that sleeps between them shows the sleep
/// here only if nothing held the first line back (load can only delay).
fn arrival_gap(mut cmd: Command) -> (String, String, Duration) {
    let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    let at = Instant::now();
    let mut rest = String::new();
    lines.read_to_string(&mut rest).unwrap();
    let gap = at.elapsed();
    assert!(child.wait().unwrap().success());
    (first, rest, gap)
}

#[test]
fn binary_output_is_byte_identical() {
    let sb = Sandbox::new();
    // Starts like JSON, so it is buffered first, then turns binary.
    let mut bytes = b"{\"a\": ".to_vec();
    let mut state: u32 = 12345;
    while bytes.len() < 1 << 20 {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        bytes.push((state >> 16) as u8);
    }
    let file = sb.path("blob.bin");
    std::fs::write(&file, &bytes).unwrap();
    sb.shimmed("blob", &format!("#!/bin/sh\ncat '{}'\n", file.display()));
    let out = sb.agent(sb.shims.join("blob")).output().unwrap();
    assert!(out.status.success());
    assert_eq!(receipt(&out.stderr), None);
    assert!(out.stdout == bytes, "binary output changed");
}

#[test]
fn stderr_and_stdin_belong_to_the_tool() {
    let sb = Sandbox::new();
    sb.shimmed("talker", "#!/bin/sh\necho 'to stderr' >&2\ncat\n");
    let mut child = sb
        .agent(sb.shims.join("talker"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"from stdin\n").unwrap();
    let out = wait_within(child, MINUTE);
    assert_eq!(out.stdout, b"from stdin\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("to stderr"));
}

#[test]
fn a_missing_real_tool_is_127_with_one_clear_line() {
    let sb = Sandbox::new();
    sb.shim("nosuchtool-xyz");
    for mut cmd in [sb.agent(sb.shims.join("nosuchtool-xyz")), sb.cmd(sb.shims.join("nosuchtool-xyz"))] {
        let out = output_within(&mut cmd, MINUTE);
        assert_eq!(out.status.code(), Some(127));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr).trim(),
            "tokensieve: real 'nosuchtool-xyz' not found on PATH (after ~/.tokensieve/bin)"
        );
    }
}

#[test]
fn several_shim_folders_never_recurse() {
    let mut sb = Sandbox::new();
    sb.shimmed("lister", "#!/bin/sh\necho '[1, 2, 3]'\n");
    // A second folder of symlinks, a symlink to the shim folder, and a folder
    // with a *copy* of the binary, all before the real tool.
    let second = sb.path("second");
    std::fs::create_dir(&second).unwrap();
    std::os::unix::fs::symlink(BIN, second.join("lister")).unwrap();
    let linked = sb.path("linked");
    std::os::unix::fs::symlink(&sb.shims, &linked).unwrap();
    let copied = sb.path("copied");
    std::fs::create_dir(&copied).unwrap();
    std::fs::copy(BIN, copied.join("tokensieve")).unwrap();
    std::os::unix::fs::symlink("tokensieve", copied.join("lister")).unwrap();
    sb.front = vec![second.clone(), linked, copied.clone()];
    for agent in [true, false] {
        let mut cmd = if agent { sb.agent(copied.join("lister")) } else { sb.cmd(second.join("lister")) };
        let out = output_within(&mut cmd, MINUTE);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        if !agent {
            assert_eq!(out.stdout, b"[1, 2, 3]\n");
        }
    }
    // Missing everywhere: still a clean 127, no loop.
    std::fs::remove_file(sb.tools.join("lister")).unwrap();
    let out = output_within(&mut sb.agent(copied.join("lister")), MINUTE);
    assert_eq!(out.status.code(), Some(127));
}

#[test]
fn a_shim_called_inside_a_shimmed_tool_passes_raw_json() {
    let sb = Sandbox::new();
    let json = "{\"Items\": [{\"Id\": \"a\", \"Tags\": []}, {\"Id\": \"b\", \"Tags\": []}]}\n";
    sb.shimmed("inner", &format!("#!/bin/sh\nprintf '%s' '{json}'\n"));
    let captured = sb.path("inner.out");
    // A program (not a shell) reads the inner tool's stdout through a pipe:
    // outside a shimmed tool that would count as an agent reading.
    let outer = format!(
        "#!/usr/bin/env python3\nimport subprocess\n\
         r = subprocess.run(['inner'], stdout=subprocess.PIPE)\n\
         open('{}', 'wb').write(r.stdout)\nprint('outer done')\n",
        captured.display()
    );
    sb.shimmed("outer", &outer);
    let out = output_within(&mut sb.agent(sb.shims.join("outer")), MINUTE);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, b"outer done\n");
    assert_eq!(std::fs::read_to_string(&captured).unwrap(), json);
    // One receipt: the outer tool's (its output is the agent's); none from
    // the inner one.
    let receipts = String::from_utf8_lossy(&out.stderr).matches("[TokenSieve]").count();
    assert_eq!(receipts, 1, "{}", String::from_utf8_lossy(&out.stderr));
    // The control: the same python reader, not inside a shimmed tool, is
    // served as an agent.
    let script = sb.tool("reader.py", &outer.replace("outer done", "reader done"));
    let out = output_within(&mut sb.agent(script), MINUTE);
    assert!(receipt(&out.stderr).is_some(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn hundred_megabytes_of_json_with_bounded_memory() {
    let sb = Sandbox::new();
    // ~100 MB of JSON on one line, written in pieces: past the capture cap
    // it is not parsed; the agent gets a short view and every byte is stored.
    sb.shimmed(
        "bigjson",
        "#!/usr/bin/env python3\nimport sys\nw = sys.stdout.write\nrow = '{\"id\": %d, \"name\": \"item-%d\", \
         \"tags\": [\"alpha\", \"beta\"], \"state\": \"running\", \"pad\": \"xxxxxxxxxxxxxxxxxxxxxxxx\"}'\n\
         w('[')\nfor i in range(1000000):\n    w((',' if i else '') + row % (i, i))\nw(']\\n')\n",
    );
    let out = output_within(&mut with_peak_rss(&sb, &sb.shims.join("bigjson")), MINUTE * 3);
    assert!(out.status.success());
    assert!(out.stdout.len() < 8192, "{} bytes reached the agent", out.stdout.len());
    let kb = peak_rss_kb(&out.stderr);
    eprintln!("100 MB of JSON through the shim: peak RSS {kb} kB");
    // 64 MiB held as one document at most, then head/tail/signals
    assert!(kb <= 192 * 1024, "peak RSS {kb} kB");
    let id = receipt_raw_id(&out.stderr).expect("a raw id");
    let stored = show(&sb, &id, &[]);
    assert!(stored.len() > 100_000_000, "only {} bytes stored", stored.len());
    assert!(stored.starts_with(b"[{\"id\": 0, ") && stored.ends_with(b"}]\n"));
}

#[test]
fn follow_and_interactive_commands_are_exec_passthrough() {
    let sb = Sandbox::new();
    // Prints JSON then keeps running: buffering it would hold the agent back.
    sb.shimmed("kubectl", "#!/bin/sh\necho '{\"a\": 1}'\nsleep 3\necho '{\"b\": 2}'\n");
    let mut cmd = sb.agent(sb.shims.join("kubectl"));
    cmd.args(["logs", "-f", "pod"]);
    let (first, rest, gap) = arrival_gap(cmd);
    assert_eq!((first.as_str(), rest.as_str()), ("{\"a\": 1}\n", "{\"b\": 2}\n"));
    assert!(gap > Duration::from_millis(1500), "logs -f was buffered ({gap:?} apart)");
}

#[test]
fn pagers_are_off_when_capturing() {
    let sb = Sandbox::new();
    sb.shimmed("pagerly", "#!/bin/sh\nprintf '{\"pager\": \"%s\", \"aws\": \"%s\", \"depth\": \"%s\"}' \"$PAGER\" \"${AWS_PAGER-unset}\" \"$TOKENSIEVE_DEPTH\"\n");
    let out =
        sb.agent(sb.shims.join("pagerly")).env("PAGER", "less").env("AWS_PAGER", "less").output().unwrap();
    assert!(receipt(&out.stderr).is_some());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("cat") && !text.contains("less"), "{text}");
}

#[test]
fn run_wraps_one_command_explicitly() {
    let sb = Sandbox::new();
    sb.tool("emit", "#!/bin/sh\necho '{\"a\": [1, 2, 3]}'\nexit 3\n");
    // No agent marker: `run` stands in for one.
    let out = output_within(sb.cmd(BIN).args(["run", "--", "emit"]), MINUTE);
    assert_eq!(out.status.code(), Some(3));
    assert!(receipt(&out.stderr).is_some());
    let out = output_within(sb.cmd(BIN).args(["run", "--", "no-such-cmd-xyz"]), MINUTE);
    assert_eq!(out.status.code(), Some(127));
    let out = output_within(sb.cmd(BIN).args(["run", "--", "emit"]).env("TOKENSIEVE", "off"), MINUTE);
    assert_eq!(receipt(&out.stderr), None);
    assert_eq!(out.stdout, b"{\"a\": [1, 2, 3]}\n");
}

#[test]
fn fetch_merges_several_commands_into_one_document() {
    let sb = Sandbox::new();
    let out = output_within(
        sb.cmd(BIN).args(["fetch", "--", "echo '{\"a\": 1}'", "echo plain", "echo '[1]'; exit 4", "exit 5"]),
        MINUTE,
    );
    assert_eq!(out.status.code(), Some(4), "the first non-zero status");
    let receipt = receipt(&out.stderr).expect("one receipt");
    let json = if receipt.ends_with("Shape: raw") {
        out.stdout.clone()
    } else {
        let mut dec = sb.cmd(BIN).arg("decode").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        dec.stdin.take().unwrap().write_all(&out.stdout).unwrap();
        dec.wait_with_output().unwrap().stdout
    };
    let doc: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(doc["echo '{\"a\": 1}'"]["a"], 1);
    assert_eq!(doc["echo plain"], "plain");
    // A command that failed keeps its status beside its output.
    assert_eq!(doc["echo '[1]'; exit 4"]["exit_code"], 4);
    assert_eq!(doc["echo '[1]'; exit 4"]["output"][0], 1);
    assert_eq!(doc["exit 5"]["exit_code"], 5);
}

#[test]
fn a_command_a_text_filter_claims_is_buffered_and_summarised() {
    let sb = Sandbox::new();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/text/cargo-test-fail.txt");
    sb.shimmed("cargo", &format!("#!/bin/sh\ncat '{}'\nexit 101\n", fixture.display()));
    let out = output_within(sb.agent(sb.shims.join("cargo")).arg("test"), MINUTE);
    assert_eq!(out.status.code(), Some(101));
    let receipt = receipt(&out.stderr).expect("a receipt");
    assert!(receipt.contains("Shape: text:"), "{receipt}");
    assert!(out.stdout.len() < std::fs::read(&fixture).unwrap().len());
}

#[test]
fn a_claimed_text_command_is_not_held_past_the_wait_limit() {
    let sb = Sandbox::new();
    sb.shimmed("pytest", "#!/bin/sh\necho first line\nsleep 3\necho second line\n");
    let mut cmd = sb.agent(sb.shims.join("pytest"));
    cmd.env("TOKENSIEVE_TEXT_WAIT_SECS", "1");
    let (first, rest, gap) = arrival_gap(cmd);
    assert_eq!((first.as_str(), rest.as_str()), ("first line\n", "second line\n"));
    assert!(gap > Duration::from_millis(1000), "held to the end ({gap:?} apart)");
}

#[test]
fn a_killed_shim_leaves_no_orphan() {
    let sb = Sandbox::new();
    let ready = sb.path("ready");
    let heard = sb.path("heard");
    sb.shimmed(
        "orphan",
        &format!(
            "#!/bin/sh\ntrap 'echo TERM > {heard}; exit 0' TERM\necho '{{\"a\": 1}}'\ntouch {ready}\n\
             while :; do sleep 0.05; done\n",
            heard = heard.display(),
            ready = ready.display()
        ),
    );
    let mut child = sb.agent(sb.shims.join("orphan")).stdout(Stdio::piped()).spawn().unwrap();
    wait_for_file(&ready, MINUTE);
    child.kill().unwrap(); // SIGKILL: no chance to forward anything
    child.wait().unwrap();
    wait_for_file(&heard, MINUTE);
}

#[test]
fn a_signal_after_the_tool_exited_stops_the_shim_itself() {
    let sb = Sandbox::new();
    let done = sb.path("done");
    // Several MB of JSON: compressing it keeps the shim busy after the tool
    // is gone. SIGTERM then is for the shim (no child to forward it to).
    sb.shimmed(
        "bulk",
        &format!(
            "#!/usr/bin/env python3\nimport json, sys\n\
             rows = [{{'id': i, 'name': 'item-%d' % i, 'state': 'running'}} for i in range(150000)]\n\
             sys.stdout.write(json.dumps(rows))\nsys.stdout.flush()\nopen('{}', 'w').close()\n",
            done.display()
        ),
    );
    let mut child =
        sb.agent(sb.shims.join("bulk")).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let drain = std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    wait_for_file(&done, MINUTE);
    std::thread::sleep(Duration::from_millis(300));
    if child.try_wait().unwrap().is_some() {
        eprintln!("note: the shim finished compressing within 300 ms; nothing to interrupt");
        return;
    }
    // SAFETY: signalling the shim we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = wait_within(child, MINUTE);
    drain.join().unwrap().unwrap();
    assert_eq!(code(out.status), 143);
}

#[test]
fn a_tool_script_without_a_shebang_runs_as_the_shell_would_run_it() {
    let sb = Sandbox::new();
    sb.shimmed("bare", "echo '{\"a\": [1, 2]}'\nexit 3\n");
    for agent in [true, false] {
        let mut cmd = if agent { sb.agent(sb.shims.join("bare")) } else { sb.cmd(sb.shims.join("bare")) };
        let out = output_within(&mut cmd, MINUTE);
        assert_eq!(out.status.code(), Some(3), "agent={agent}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(receipt(&out.stderr).is_some(), agent);
    }
}

#[test]
fn a_pty_agent_reads_the_compressed_form() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("note: util-linux `script` is missing; pty case skipped");
        return;
    }
    let sb = Sandbox::new();
    sb.shimmed("lister", "#!/bin/sh\necho '{\"Items\": [{\"Id\": 1}, {\"Id\": 2}, {\"Id\": 3}]}'\n");
    // `script` gives the tool a terminal as stdout (and stderr), as Gemini CLI
    // or Codex with a tty do.
    let mut agent = sb.agent("script");
    agent.args(["-qec", "lister", "/dev/null"]);
    let mut human = sb.cmd("script");
    human.args(["-qec", "lister", "/dev/null"]);
    let agent = output_within(&mut agent, MINUTE);
    let human = output_within(&mut human, MINUTE);
    assert!(receipt(&agent.stdout).is_some(), "{}", String::from_utf8_lossy(&agent.stdout));
    assert_eq!(receipt(&human.stdout), None);
    assert!(String::from_utf8_lossy(&human.stdout).starts_with("{\"Items\""));
}

#[test]
fn a_node_agent_hands_out_a_socket_and_is_served() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("note: node is missing; socket-stdout case skipped");
        return;
    }
    let sb = Sandbox::new();
    sb.shimmed("lister", "#!/bin/sh\necho '{\"Items\": [{\"Id\": 1}, {\"Id\": 2}, {\"Id\": 3}]}'\n");
    // Like Claude Code: node spawns `bash -c` with piped stdio (libuv makes
    // those socketpairs) and reads stdout itself.
    let agent = "const r = require('child_process').spawnSync('bash', ['-c', process.argv[1]], \
                 {stdio: ['pipe', 'pipe', 'pipe']}); process.stdout.write(r.stdout); \
                 process.stderr.write(r.stderr);";
    let out = output_within(sb.agent("node").args(["-e", agent, "lister"]), MINUTE);
    assert!(receipt(&out.stderr).is_some(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = output_within(sb.agent("node").args(["-e", agent, "lister | cat"]), MINUTE);
    assert_eq!(receipt(&out.stderr), None);
    assert!(out.stdout.starts_with(b"{\"Items\""));
}

/// Exact cl100k count of `text` by the reference implementation.
fn reference_tokens(text: &[u8]) -> usize {
    tiktoken_rs::cl100k_base_singleton().encode_ordinary(&String::from_utf8_lossy(text)).len()
}

#[test]
fn short_receipts_for_agents_count_in_the_history() {
    let sb = Sandbox::new();
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/json/aws/ec2-describe-instances.json");
    sb.shimmed("aws", &format!("#!/bin/sh\ncat '{fixture}'\n"));
    let raw = std::fs::read(fixture).unwrap();
    let mut agent = sb.agent(sb.shims.join("aws"));
    agent.env_remove("TOKENSIEVE_RECEIPT");
    let out = output_within(&mut agent, MINUTE);
    let stderr = String::from_utf8(without_config_warning(&out.stderr)).unwrap();
    // The receipt is the whole of stderr: one short line.
    let line = stderr.strip_suffix('\n').unwrap();
    assert!(!line.contains('\n'), "{stderr}");
    let (counts, id) = line.strip_prefix("[tokensieve ").unwrap().split_once("raw ").unwrap();
    let id = id.strip_suffix(']').unwrap();
    // The counts stay unless they would take the line over its limit.
    if let Some((before, after)) = counts.trim_end().split_once('→') {
        assert_eq!(before.parse::<usize>().unwrap(), reference_tokens(&raw));
        assert_eq!(after.parse::<usize>().unwrap(), reference_tokens(&out.stdout));
    }
    // Counted by the reference tokenizer, not ours: the limit of issue 22.
    let overhead = reference_tokens(stderr.as_bytes());
    assert!(overhead <= 16, "{line}: {overhead} tokens");
    assert_eq!(id.len(), 6);
    let shown = sb.cmd(BIN).args(["show", id]).output().unwrap();
    assert_eq!(shown.stdout, raw);
    // The history charges the agent for the line it read.
    let gain = sb.cmd(BIN).args(["gain", "--json"]).output().unwrap();
    let gain: serde_json::Value = serde_json::from_slice(&gain.stdout).unwrap();
    assert_eq!(gain["compressed_tokens"], reference_tokens(&out.stdout) + overhead);

    // A person gets the long form; so does an agent that asks for it.
    for mut cmd in [sb.cmd(sb.shims.join("aws")), sb.agent(sb.shims.join("aws"))] {
        cmd.env("TOKENSIEVE", "on");
        let out = output_within(&mut cmd, MINUTE);
        assert!(receipt(&out.stderr).unwrap().starts_with("[TokenSieve] Original: "));
    }
}

#[test]
fn an_agent_gets_no_receipt_when_compression_does_not_pay_for_it() {
    let sb = Sandbox::new();
    // Saves a few tokens: less than the receipt would cost.
    sb.shimmed("tiny", "#!/bin/sh\nprintf '{\"name\": \"web\", \"note\": null, \"tags\": []}'\n");
    let mut agent = sb.agent(sb.shims.join("tiny"));
    agent.env_remove("TOKENSIEVE_RECEIPT");
    let out = output_within(&mut agent, MINUTE);
    assert_eq!(out.stdout, br#"{"name": "web", "note": null, "tags": []}"#);
    assert!(without_config_warning(&out.stderr).is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let person = output_within(sb.cmd(sb.shims.join("tiny")).env("TOKENSIEVE", "on"), MINUTE);
    assert!(receipt(&person.stderr).is_some_and(|r| !r.ends_with("Shape: raw")));
}
