//! `tokensieve mcp`: the same captures as an MCP server on stdio (rmcp, the
//! official Rust SDK), for an agent that calls tools rather than a shell.
//!
//! Tools:
//! - `run` (`command`, optional `cwd`): the command through `tokensieve
//!   run`, exactly as the shim treats it; the compressed text, and the
//!   typed result (docs/FORMAT.md §9) as structured content.
//! - `show` (`id`, optional `lines`, `grep`, `jq`, `summary`): `tokensieve
//!   show`.
//! - `recall` (`status`, `tool`, `file`, `since`, `cwd`, `limit`): the
//!   history's captures, as `tokensieve recall --json` lists them.
//!
//! `run` and `show` start this same binary as a child, so their answers are
//! the CLI's, byte for byte; a tool that fails is a result with `isError`,
//! a request the server cannot read a protocol error.
//!
//! The server stays responsive while a command runs: each call runs on a
//! blocking thread, so `ping`, `tools/list` and other calls are answered
//! meanwhile. A command runs in its own process group, with a deadline
//! (`timeout_secs`, else `TOKENSIEVE_MCP_TIMEOUT_SECS`, else 120 s: then
//! SIGTERM, and what it printed so far); `notifications/cancelled` ends
//! its group the same way. When stdin closes the server ends every group
//! and exits; when the server is killed, a watchdog per command (a shell
//! waiting on a pipe only the server holds) ends the group. A line that is
//! not JSON gets a -32700 error (rmcp itself drops it silently).
//!
//! # Design: MCP (`src/mcp.rs`)
//!
//! `tokensieve mcp` serves the Model Context Protocol on stdio with rmcp (the
//! official Rust SDK; server side and the stdio transport only, no macros, on
//! a one-thread tokio runtime). Two pumps sit between stdio and rmcp: a line
//! that is not JSON gets a -32700 reply there (rmcp drops it silently), and
//! stdin's end ends every running command before rmcp sees it. Each call runs
//! on a blocking thread (`ping` and `tools/list` are answered meanwhile);
//! `run` and `show` children run in their own process group with a deadline
//! (`timeout_secs`, `TOKENSIEVE_MCP_TIMEOUT_SECS`, 120 s), SIGTERM then
//! SIGKILL after 3 s, the same on `notifications/cancelled`, and the group is
//! ended when the child exits. A watchdog per command (`sh` reading a pipe
//! only the server holds) ends the group when the server dies, SIGKILL
//! included; the child also has `PR_SET_PDEATHSIG`. Three tools, their input schemas written out
//! in `mcp::tools`: `run` starts this binary as `tokensieve run -- WORDS` (a
//! plain command line split into words, so the tool's filter applies exactly
//! as in the shim; one that needs a shell goes to `sh -c`) with
//! `TOKENSIEVE_FORMAT=json`, and answers with the compressed text as content
//! and the typed result as structured content; `show` runs `tokensieve show`;
//! `recall` queries the history in process. A failing tool is a result with
//! `isError` and one line; an unknown tool a protocol error. `init claude
//! --mcp` adds the user-scoped entry `claude mcp add --scope user` writes
//! (`mcpServers.tokensieve` in `~/.claude.json`, or in `$CLAUDE_CONFIG_DIR`),
//! through `agents::edit` like every other init edit. Tested with the official
//! Python client (`tests/mcp.rs`, `tests/mcp/client.py`).

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use crate::history::{self, Query};

/// A command's deadline when the call gives none.
const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// After SIGTERM, this long before SIGKILL.
const GRACE: Duration = Duration::from_secs(3);
/// A request line longer than this is refused (-32700), not buffered.
const MAX_LINE: usize = 32 << 20;
/// A child's stdout and stderr are kept up to this much each.
const MAX_OUTPUT: u64 = 64 << 20;

/// Process groups of the commands running now (ended when the server ends).
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Runs the server until the client closes stdin.
pub fn serve() -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let served = runtime.block_on(async {
        // stdin → (a line that is not JSON answered here) → rmcp → stdout
        let (rmcp_in, mut to_rmcp) = tokio::io::simplex(1 << 16);
        let (mut from_rmcp, rmcp_out) = tokio::io::simplex(1 << 16);
        let stdout = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
        let out = stdout.clone();
        let input = tokio::spawn(async move {
            let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
            while let Some(line) = read_line(&mut stdin).await {
                if let Some(reply) = parse_error(&line) {
                    let mut o = out.lock().await;
                    let _ = o.write_all(reply.as_bytes()).await;
                    let _ = o.flush().await;
                    continue;
                }
                if to_rmcp.write_all(&line).await.is_err() || to_rmcp.write_all(b"\n").await.is_err() {
                    break;
                }
            }
            // stdin closed: no one is left to read an answer. The commands
            // end now (rmcp would wait for them), then rmcp sees the end
            // of its input and stops.
            end_all_groups();
            let _ = to_rmcp.shutdown().await;
        });
        let output = tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(&mut from_rmcp);
            let mut line = Vec::new();
            loop {
                line.clear();
                match lines.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let mut o = stdout.lock().await;
                        if o.write_all(&line).await.is_err() || o.flush().await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let running = Server.serve((rmcp_in, rmcp_out)).await.context("MCP initialisation failed")?;
        let quit = running.waiting().await.context("MCP service stopped");
        input.abort();
        // what rmcp wrote last reaches stdout; its pipe never closes by itself
        let _ = tokio::time::timeout(Duration::from_millis(200), output).await;
        quit.map(drop)
    });
    end_all_groups();
    // Calls still waiting on a child end with it; do not wait for them.
    runtime.shutdown_timeout(Duration::from_millis(200));
    served
}

/// One line of stdin, without its newline; `None` at the end. A line past
/// `MAX_LINE` is dropped as it arrives and returned as one byte that does
/// not parse (so it gets -32700).
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(r: &mut R) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    let mut over = false;
    loop {
        let buf = r.fill_buf().await.ok()?;
        if buf.is_empty() {
            return (!line.is_empty() || over).then(|| if over { b"\x00".to_vec() } else { line });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if line.len() + chunk.len() > MAX_LINE {
            over = true;
            line = Vec::new();
        } else if !over {
            line.extend_from_slice(chunk);
        }
        let used = done.unwrap_or(buf.len());
        r.consume(used);
        if done.is_some() {
            return Some(if over { b"\x00".to_vec() } else { line });
        }
    }
}

/// The JSON-RPC -32700 reply for a line that is not JSON; `None` for one
/// that is (rmcp answers those, -32600 when they are not a message).
fn parse_error(line: &[u8]) -> Option<String> {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    if body.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(body) {
        Err(e)
            if matches!(
                e.classify(),
                serde_json::error::Category::Syntax | serde_json::error::Category::Eof
            ) =>
        {
            Some(
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}})
                    .to_string()
                    + "\n",
            )
        }
        _ => None,
    }
}

fn end_all_groups() {
    let groups: Vec<i32> = GROUPS.lock().map(|g| g.clone()).unwrap_or_default();
    for pgid in groups {
        // SAFETY: signalling process groups this server created.
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
    }
}

struct Server;

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "run",
            "Run a shell command line (it runs as a shell command with the user's rights, unsandboxed, like \
             typing it in their terminal) and get its output compressed for reading (every fact kept, the raw \
             output stored: `show` gives it back), with its typed result: status from the exit code, counts, \
             findings with path:line, and the raw id. It is stopped after `timeout_secs` (default 120) with \
             what it printed so far.",
            schema(json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "the command line, as typed in a shell"},
                    "cwd": {"type": "string", "description": "directory to run it in (default: the server's)"},
                    "timeout_secs": {"type": "integer", "minimum": 1, "description": "stop it after this long (default 120)"}
                },
                "required": ["command"]
            })),
        ),
        Tool::new(
            "show",
            "A stored raw output back (the id from a `run` result), whole or in part, or its stored typed \
             result.",
            schema(json!({
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "raw output id (4+ hex digits)"},
                    "lines": {"type": "string", "description": "line range A:B, A:, :B or N"},
                    "grep": {"type": "string", "description": "only lines matching this regex, numbered"},
                    "jq": {"type": "string", "description": "a jq program over the JSON output"},
                    "summary": {"type": "boolean", "description": "the stored typed result instead"}
                },
                "required": ["id"]
            })),
        ),
        Tool::new(
            "recall",
            "Past captures found by their typed result, newest first: by status, tool, a file their findings \
             touch, time and project directory.",
            schema(json!({
                "type": "object",
                "properties": {
                    "status": {"type": "string", "enum": ["passed", "failed", "error"]},
                    "tool": {"type": "string", "description": "e.g. pytest, cargo, tsc"},
                    "file": {"type": "string", "description": "a path a finding names (src/auth.rs)"},
                    "since": {"type": "string", "description": "a span like 30m, 24h, 2d, 1w"},
                    "cwd": {"type": "string", "description": "a project directory: calls made in it or below"},
                    "limit": {"type": "integer", "minimum": 1}
                }
            })),
        ),
    ]
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("tokensieve", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "run: a command's output compressed, with its typed result; show: the stored raw output; \
                 recall: past captures by status, tool or file.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult { tools: tools(), ..Default::default() })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let cancelled = context.ct.clone();
        let stop = move || cancelled.is_cancelled();
        // On a blocking thread: the runtime goes on answering meanwhile.
        let work: fn(&JsonObject, &dyn Fn() -> bool) -> Result<CallToolResult> = match request.name.as_ref() {
            "run" => run,
            "show" => show,
            "recall" => |a, _| recall(a),
            other => return Err(ErrorData::invalid_params(format!("no tool named '{other}'"), None)),
        };
        let result = tokio::task::spawn_blocking(move || work(&args, &stop))
            .await
            .unwrap_or_else(|e| Err(anyhow::anyhow!("the call failed: {e}")));
        Ok(match result {
            Ok(r) => r,
            Err(e) => CallToolResult::error(vec![ContentBlock::text(format!("{e:#}"))]),
        }
        .into())
    }
}

fn text_arg<'a>(args: &'a JsonObject, key: &str) -> Result<Option<&'a str>> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => anyhow::bail!("'{key}' must be a string"),
    }
}

/// This binary, to run `run` and `show` exactly as the CLI does.
fn me() -> Result<std::path::PathBuf> {
    std::env::current_exe().context("cannot find the tokensieve binary")
}

/// `tokensieve run -- WORDS` for a plain command line (the words name the
/// tool, so its filter applies as in the shim); `sh -c LINE` for one that
/// needs a shell (pipes, redirects, variables, globs).
pub fn run_argv(line: &str) -> Vec<String> {
    match shell_words(line) {
        Some(words) if !words.is_empty() => words,
        _ => vec!["sh".into(), "-c".into(), line.into()],
    }
}

/// Splits a command line into words when it holds only words and quotes
/// (`'…'`, `"…"` without `$` or backquotes, `\x`); `None` when a shell must
/// read it.
fn shell_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => words.extend(cur.take()),
            '\'' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => w.push(c),
                    }
                }
            }
            '"' => {
                let w = cur.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' | '\\' => return None,
                        c => w.push(c),
                    }
                }
            }
            '\\' => cur.get_or_insert_with(String::new).push(chars.next()?),
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '[' | '#' | '~' | '{'
            | '\n' => {
                return None;
            }
            // `VAR=value cmd` is for a shell to read
            '=' if words.is_empty() => return None,
            c => cur.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(cur);
    Some(words)
}

fn run(args: &JsonObject, cancelled: &dyn Fn() -> bool) -> Result<CallToolResult> {
    let line = text_arg(args, "command")?.context("'command' is required")?;
    let timeout = match args.get("timeout_secs") {
        None | Some(Value::Null) => default_timeout(),
        Some(v) => Duration::from_secs(
            v.as_u64().filter(|&n| n > 0).context("'timeout_secs' must be a positive integer")?,
        ),
    };
    let mut cmd = Command::new(me()?);
    cmd.arg("run").arg("--").args(run_argv(line));
    if let Some(dir) = text_arg(args, "cwd")? {
        anyhow::ensure!(Path::new(dir).is_dir(), "cwd '{dir}' is not a directory");
        cmd.current_dir(dir);
    }
    // the typed result holding the text; stdin is not the client's protocol
    cmd.env("TOKENSIEVE_FORMAT", "json");
    let out = supervised(cmd, timeout, cancelled).with_context(|| format!("cannot run '{line}'"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let (text, mut result) = match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(Value::Object(mut doc)) if doc.contains_key("status") => {
            let text = doc.remove("output").and_then(|o| o.as_str().map(str::to_owned)).unwrap_or_default();
            (text, Value::Object(doc))
        }
        // passed through untouched (a live command): its bytes as they are
        _ => {
            let code = out.code;
            let words = run_argv(line);
            let mut r = crate::typed::TypedResult::bare(&words, code).to_json();
            r["note"] = "the output passed through untouched (not compressed)".into();
            (String::from_utf8_lossy(&out.stdout).into_owned(), r)
        }
    };
    let mut content = vec![ContentBlock::text(text)];
    if let Some(why) = &out.stopped {
        result["stopped"] = why.clone().into();
        content.push(ContentBlock::text(format!("stopped: {why}; the output is what it printed until then")));
    }
    if !stderr.trim().is_empty() {
        content.push(ContentBlock::text(format!("stderr:\n{stderr}")));
    }
    let mut r = CallToolResult::success(content);
    r.structured_content = Some(result);
    Ok(r)
}

fn default_timeout() -> Duration {
    let secs = std::env::var("TOKENSIEVE_MCP_TIMEOUT_SECS").ok().and_then(|v| v.trim().parse::<u64>().ok());
    Duration::from_secs(secs.filter(|&n| n > 0).unwrap_or(DEFAULT_TIMEOUT_SECS))
}

/// What a supervised child left: its status and output, and why it was
/// stopped, if it was.
struct Finished {
    code: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    stopped: Option<String>,
}

/// Runs `cmd` in its own process group, with a watchdog that ends the
/// group if this server dies first; SIGTERM to the group at `timeout` or
/// when `cancelled()` says so, SIGKILL after `GRACE`. The group is ended
/// after the child too (nothing it started in it outlives the call).
fn supervised(mut cmd: Command, timeout: Duration, cancelled: &dyn Fn() -> bool) -> Result<Finished> {
    use std::os::unix::process::CommandExt;
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            // the child hears of our death too (the watchdog ends the rest)
            #[cfg(target_os = "linux")]
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let pgid = child.id() as i32;
    let group = Group::register(pgid);
    let watchdog = watchdog(pgid);
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut r) = r {
                let _ = (&mut r).take(MAX_OUTPUT).read_to_end(&mut bytes);
                let _ = std::io::copy(&mut r, &mut std::io::sink());
            }
            bytes
        })
    };
    let out = drain(child.stdout.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|r| Box::new(r) as Box<dyn Read + Send>));
    let started = Instant::now();
    let mut stopped: Option<(String, Instant)> = None;
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        match &stopped {
            None if cancelled() => stopped = Some(("cancelled by the client".into(), group.term())),
            None if started.elapsed() >= timeout => {
                stopped = Some((format!("timed out after {} s", timeout.as_secs()), group.term()))
            }
            Some((_, at)) if at.elapsed() >= GRACE => group.kill(),
            _ => {}
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // whatever it left in its group (a background job holding the pipes)
    group.kill();
    if let Some(mut w) = watchdog {
        if let Some(mut stdin) = w.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(b"done\n");
        }
        let _ = w.wait();
    }
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    Ok(Finished {
        code,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        stopped: stopped.map(|(why, _)| why),
    })
}

/// A running command's process group, listed in `GROUPS` while it lives.
struct Group(i32);

impl Group {
    fn register(pgid: i32) -> Group {
        if let Ok(mut g) = GROUPS.lock() {
            g.push(pgid);
        }
        Group(pgid)
    }

    fn term(&self) -> Instant {
        // SAFETY: signalling the process group we created.
        unsafe { libc::kill(-self.0, libc::SIGTERM) };
        Instant::now()
    }

    fn kill(&self) {
        // SAFETY: signalling the process group we created.
        unsafe { libc::kill(-self.0, libc::SIGKILL) };
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Ok(mut g) = GROUPS.lock() {
            g.retain(|&p| p != self.0);
        }
    }
}

/// A shell that reads one line from a pipe only this process holds:
/// `done` when the command ended here; end of file when this server died
/// (even by SIGKILL), and then it ends the command's group.
fn watchdog(pgid: i32) -> Option<Child> {
    Command::new("/bin/sh")
        .args(["-c", "read -r word; [ \"$word\" = done ] || kill -KILL -\"$1\" 2>/dev/null", "watchdog"])
        .arg(pgid.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

fn show(args: &JsonObject, cancelled: &dyn Fn() -> bool) -> Result<CallToolResult> {
    let id = text_arg(args, "id")?.context("'id' is required")?;
    let mut cmd = Command::new(me()?);
    cmd.args(["show", id]);
    for key in ["lines", "grep", "jq"] {
        if let Some(v) = text_arg(args, key)? {
            cmd.arg(format!("--{key}")).arg(v);
        }
    }
    if args.get("summary").and_then(Value::as_bool).unwrap_or(false) {
        cmd.arg("--summary");
    }
    cmd.env_remove("TOKENSIEVE_FORMAT");
    let out = supervised(cmd, default_timeout(), cancelled).context("cannot run show")?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if let Some(why) = out.stopped {
        return Ok(CallToolResult::error(vec![ContentBlock::text(format!("show {why}"))]));
    }
    // `--grep` finding nothing is exit 1 with no message: an empty answer
    if out.code != 0 && !stderr.trim().is_empty() {
        let why = stderr
            .trim()
            .trim_start_matches("tokensieve show: ")
            .trim_start_matches("tokensieve: ")
            .to_string();
        return Ok(CallToolResult::error(vec![ContentBlock::text(why)]));
    }
    Ok(CallToolResult::success(vec![ContentBlock::text(stdout)]))
}

fn recall(args: &JsonObject) -> Result<CallToolResult> {
    let opts = history::query::Options {
        status: text_arg(args, "status")?.map(str::to_owned),
        tool: text_arg(args, "tool")?.map(str::to_owned),
        file: text_arg(args, "file")?.map(str::to_owned),
        cwd: false,
        limit: match args.get("limit") {
            None | Some(Value::Null) => None,
            Some(v) => Some(v.as_u64().context("'limit' must be a positive integer")?.to_string()),
        },
    };
    let mut q: Query = history::query::from_options(&opts, text_arg(args, "since")?)?;
    q.cwd = text_arg(args, "cwd")?.map(str::to_owned);
    let home = crate::store::home();
    let found = match history::open_existing(&home)? {
        Some(conn) => history::recall(&conn, &q)?,
        None => Vec::new(),
    };
    let list = history::query::to_json(&found);
    let mut r = CallToolResult::success(vec![ContentBlock::text(history::query::render_text(
        &found,
        q.file.as_deref(),
    ))]);
    r.structured_content = Some(json!({ "captures": list }));
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_are_words_others_go_to_a_shell() {
        let w = |s: &str| run_argv(s);
        assert_eq!(w("cargo test --all"), ["cargo", "test", "--all"]);
        assert_eq!(w("git log -n 3 --format='%h %s'"), ["git", "log", "-n", "3", "--format=%h %s"]);
        assert_eq!(w(r#"grep -rn "fn main" src"#), ["grep", "-rn", "fn main", "src"]);
        assert_eq!(w(r"echo a\ b"), ["echo", "a b"]);
        for shell in
            ["ls | head", "make && make test", "echo $HOME", "ls *.rs", "A=1 cmd", "cat < f", "echo 'open"]
        {
            assert_eq!(w(shell), ["sh", "-c", shell], "{shell}");
        }
    }
}
