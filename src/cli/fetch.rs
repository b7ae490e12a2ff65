//! `tokensieve fetch -- 'CMD1' 'CMD2'...`: several commands (each through
//! `sh -c`, all at once) merged into one JSON document keyed by the command
//! string, compressed once with one receipt. Outputs that are not JSON are
//! kept as strings; a command that failed keeps its own status beside its
//! output (`{"exit_code": N, "output": ...}`); the exit status is the first
//! non-zero one, in argument order.

use std::ffi::OsString;
use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::thread;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::{Map, Value};

use super::Global;
use crate::handoff;
use crate::settings::Hint;
use crate::shim::{child_exit_code, policy::DEPTH_ENV, resolve};

pub(crate) fn run(cmds: Vec<OsString>, global: &Global) -> Result<ExitCode> {
    if cmds.is_empty() {
        bail!("no commands (tokensieve fetch -- 'CMD1' 'CMD2' ...)");
    }
    let started = Instant::now();
    let shims = resolve::ids_env_value(&resolve::self_ids());
    let mut running = Vec::new();
    for cmd in &cmds {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            // Shims inside the commands hand us raw output: we compress once.
            .env(DEPTH_ENV, "1")
            .env(resolve::SHIMS_ENV, &shims)
            .env("AWS_PAGER", "")
            .env("PAGER", "cat")
            .env("GIT_PAGER", "cat")
            .env("GH_PAGER", "cat")
            .spawn()
            .with_context(|| format!("cannot start sh for '{}'", cmd.to_string_lossy()))?;
        let mut out = child.stdout.take().context("no stdout pipe")?;
        let reader = thread::spawn(move || {
            let mut buf = Vec::new();
            let read = out.read_to_end(&mut buf);
            (buf, read)
        });
        running.push((cmd.to_string_lossy().into_owned(), child, reader));
    }
    let mut outputs = Vec::new();
    let mut code = 0;
    for (cmd, mut child, reader) in running {
        let (buf, read) = reader.join().map_err(|_| anyhow::anyhow!("reader thread failed"))?;
        read.with_context(|| format!("cannot read the output of '{cmd}'"))?;
        let status = child.wait().with_context(|| format!("cannot wait for '{cmd}'"))?;
        let this = child_exit_code(status);
        if code == 0 && this != 0 {
            code = this;
        }
        outputs.push((cmd, this, buf));
    }
    let mut doc = serde_json::to_vec(&merge(outputs)).context("cannot encode the merged document")?;
    // A document on stdout ends its line, as every other output does.
    doc.push(b'\n');
    let hint = Hint { command: vec!["tokensieve".into(), "fetch".into()], exit_code: code };
    handoff::deliver(
        handoff::Sink::Stdout,
        handoff::Output::Whole(doc),
        Some(&hint),
        &global.settings,
        &crate::config::get().store(),
        started,
    )?;
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}

/// One object keyed by command string (a repeated command gets ` #2`, ...);
/// a command that failed keeps its status beside its output
/// (`{"exit_code": 1, "output": ...}`).
fn merge(outputs: Vec<(String, i32, Vec<u8>)>) -> Value {
    let mut map = Map::new();
    for (cmd, code, raw) in outputs {
        let mut value = crate::json::parse(&raw)
            .unwrap_or_else(|| Value::String(String::from_utf8_lossy(&raw).trim_end().to_owned()));
        if code != 0 {
            value = serde_json::json!({"exit_code": code, "output": value});
        }
        let mut key = cmd.clone();
        let mut n = 1;
        while map.contains_key(&key) {
            n += 1;
            key = format!("{cmd} #{n}");
        }
        map.insert(key, value);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_json_and_text_by_command() {
        let merged = merge(vec![
            ("a".into(), 0, b"{\"x\": 1}\n".to_vec()),
            ("b".into(), 0, b"plain text\n".to_vec()),
            ("a".into(), 0, b"[1, 2]".to_vec()),
        ]);
        assert_eq!(merged.to_string(), r#"{"a":{"x":1},"b":"plain text","a #2":[1,2]}"#);
    }

    /// Issue 24: `fetch -- false` kept `"false":""`, its status lost.
    #[test]
    fn fetch_keeps_each_command_exit_status() {
        let merged = merge(vec![("false".into(), 1, Vec::new()), ("echo hi".into(), 0, b"hi\n".to_vec())]);
        assert_eq!(merged.to_string(), r#"{"false":{"exit_code":1,"output":""},"echo hi":"hi"}"#);
    }
}
