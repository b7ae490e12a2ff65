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

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use anyhow::{Context, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use crate::history::{self, Query};

/// Runs the server until the client closes stdin.
pub fn serve() -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    runtime.block_on(async {
        let running = Server.serve(rmcp::transport::stdio()).await.context("MCP initialisation failed")?;
        running.waiting().await.context("MCP service stopped")?;
        Ok(())
    })
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
            "Run a shell command line and get its output compressed for reading (every fact kept, the raw \
             output stored: `show` gives it back), with its typed result: status from the exit code, counts, \
             findings with path:line, and the raw id.",
            schema(json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "the command line, as typed in a shell"},
                    "cwd": {"type": "string", "description": "directory to run it in (default: the server's)"}
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "run" => run(&args),
            "show" => show(&args),
            "recall" => recall(&args),
            other => return Err(ErrorData::invalid_params(format!("no tool named '{other}'"), None)),
        };
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

fn run(args: &JsonObject) -> Result<CallToolResult> {
    let line = text_arg(args, "command")?.context("'command' is required")?;
    let mut cmd = Command::new(me()?);
    cmd.arg("run").arg("--").args(run_argv(line));
    if let Some(dir) = text_arg(args, "cwd")? {
        anyhow::ensure!(Path::new(dir).is_dir(), "cwd '{dir}' is not a directory");
        cmd.current_dir(dir);
    }
    // the typed result holding the text; stdin is not the client's protocol
    let out = cmd
        .env("TOKENSIEVE_FORMAT", "json")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run '{line}'"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let (text, result) = match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(Value::Object(mut doc)) if doc.contains_key("status") => {
            let text = doc.remove("output").and_then(|o| o.as_str().map(str::to_owned)).unwrap_or_default();
            (text, Value::Object(doc))
        }
        // passed through untouched (a live command): its bytes as they are
        _ => {
            let code = out.status.code().unwrap_or(-1);
            let words = run_argv(line);
            let mut r = crate::typed::TypedResult::bare(&words, code).to_json();
            r["note"] = "the output passed through untouched (not compressed)".into();
            (String::from_utf8_lossy(&out.stdout).into_owned(), r)
        }
    };
    let mut content = vec![ContentBlock::text(text)];
    if !stderr.trim().is_empty() {
        content.push(ContentBlock::text(format!("stderr:\n{stderr}")));
    }
    let mut r = CallToolResult::success(content);
    r.structured_content = Some(result);
    Ok(r)
}

fn show(args: &JsonObject) -> Result<CallToolResult> {
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
    let out = cmd.stdin(Stdio::null()).env_remove("TOKENSIEVE_FORMAT").output().context("cannot run show")?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // `--grep` finding nothing is exit 1 with no message: an empty answer
    if !out.status.success() && !stderr.trim().is_empty() {
        let why = stderr.trim().trim_start_matches("tokensieve: ").to_string();
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
