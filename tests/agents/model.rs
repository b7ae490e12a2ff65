//! A stand-in for a model provider on 127.0.0.1, enough to drive a real
//! agent CLI through one shell command: the first request of a conversation
//! gets a streamed call of the agent's shell tool with the command found in
//! the prompt (`CASE=name`, then the command between `<<<CMD` and `CMD>>>`);
//! the request that carries the tool's result is recorded (what the model
//! would have read) and answered with a final message. Two dialects: the
//! Anthropic Messages API (Claude Code) and the OpenAI Responses API (Codex),
//! both as server-sent events.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Anthropic,
    OpenAi,
}

/// The prompt for one case.
pub fn prompt(case: &str, command: &str) -> String {
    format!("CASE={case}\n<<<CMD\n{command}\nCMD>>>")
}

#[derive(Default)]
struct Seen {
    /// Case name → the tool result text the agent sent back.
    results: HashMap<String, String>,
    /// Every request body, for checks on what else reached the model.
    bodies: Vec<String>,
}

pub struct Model {
    pub port: u16,
    seen: Arc<Mutex<Seen>>,
}

impl Model {
    /// Listens on a free local port; serves until the test process ends.
    pub fn start(api: Api) -> Model {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Seen::default()));
        let shared = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let seen = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve(stream, api, &seen);
                });
            }
        });
        Model { port, seen }
    }

    /// The tool result of `case`, once the agent sent it.
    pub fn tool_result(&self, case: &str, wait: Duration) -> Option<String> {
        let start = Instant::now();
        loop {
            if let Some(text) = self.seen.lock().unwrap().results.get(case) {
                return Some(text.clone());
            }
            if start.elapsed() > wait {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether any request the agent made contains `needle`.
    pub fn saw(&self, needle: &str) -> bool {
        self.seen.lock().unwrap().bodies.iter().any(|b| b.contains(needle))
    }
}

/// One HTTP/1.1 exchange, then the connection closes.
fn serve(stream: TcpStream, api: Api, seen: &Mutex<Seen>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().split('?').next().unwrap_or_default().to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let mut out = stream;
    if headers.get("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let body = read_body(&mut reader, &headers)?;
    let body_text = String::from_utf8_lossy(&body).into_owned();
    seen.lock().unwrap().bodies.push(body_text.clone());
    let request: Value = serde_json::from_str(&body_text).unwrap_or(Value::Null);
    let (ctype, payload) = match (method.as_str(), api) {
        ("POST", Api::Anthropic) if path.ends_with("/count_tokens") => {
            json_reply(json!({"input_tokens": 100}))
        }
        ("POST", Api::Anthropic) if path.ends_with("/messages") => anthropic(&request, seen),
        ("POST", Api::OpenAi) if path.ends_with("/responses") => openai(&request, seen),
        ("GET", _) if path.ends_with("/models") => {
            json_reply(json!({"object": "list", "data": [], "models": []}))
        }
        _ => json_reply(json!({})),
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    out.write_all(head.as_bytes())?;
    if method != "HEAD" {
        out.write_all(&payload)?;
    }
    out.flush()
}

fn read_body(
    reader: &mut BufReader<TcpStream>,
    headers: &HashMap<String, String>,
) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::new();
    if headers.get("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = headers.get("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(n, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(body)
}

fn json_reply(v: Value) -> (&'static str, Vec<u8>) {
    ("application/json", v.to_string().into_bytes())
}

fn sse(events: &[Value]) -> (&'static str, Vec<u8>) {
    let mut out = String::new();
    for e in events {
        out.push_str(&format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or_default()));
    }
    ("text/event-stream", out.into_bytes())
}

/// The case name and command in a conversation's user text.
fn case_of(text: &str) -> Option<(String, String)> {
    let case = text.split("CASE=").nth(1)?.split_whitespace().next()?.to_owned();
    let command = text.split("<<<CMD\n").nth(1)?.split("\nCMD>>>").next()?.to_owned();
    Some((case, command))
}

/// All text of a message `content` (a string, or a list of blocks).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

fn anthropic(request: &Value, seen: &Mutex<Seen>) -> (&'static str, Vec<u8>) {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let user =
        messages.iter().find(|m| m["role"] == "user").map(|m| text_of(&m["content"])).unwrap_or_default();
    let last = messages.last().cloned().unwrap_or(Value::Null);
    let result =
        last["content"].as_array().and_then(|blocks| blocks.iter().find(|b| b["type"] == "tool_result"));
    let offers_bash = request["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["name"] == "Bash"));
    let block = match (case_of(&user), result) {
        (Some((case, _)), Some(result)) => {
            seen.lock().unwrap().results.insert(case.clone(), text_of(&result["content"]));
            json!({"type": "text", "text": format!("Done with {case}.")})
        }
        (Some((case, command)), None) if offers_bash => json!({
            "type": "tool_use", "id": format!("toolu_{case}"), "name": "Bash",
            "input": {"command": command, "description": format!("case {case}")}
        }),
        _ => json!({"type": "text", "text": "ok"}),
    };
    let stop = if block["type"] == "tool_use" { "tool_use" } else { "end_turn" };
    if request["stream"] != true {
        return json_reply(json!({
            "id": "msg_test", "type": "message", "role": "assistant", "model": request["model"],
            "content": [block], "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 20}
        }));
    }
    let mut start = block.clone();
    let delta = if block["type"] == "tool_use" {
        start["input"] = json!({});
        json!({"type": "input_json_delta", "partial_json": block["input"].to_string()})
    } else {
        start["text"] = json!("");
        json!({"type": "text_delta", "text": block["text"]})
    };
    sse(&[
        json!({"type": "message_start", "message": {
            "id": "msg_test", "type": "message", "role": "assistant", "model": request["model"],
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": start}),
        json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 20}}),
        json!({"type": "message_stop"}),
    ])
}

fn openai(request: &Value, seen: &Mutex<Seen>) -> (&'static str, Vec<u8>) {
    let items = match &request["input"] {
        Value::Array(items) => items.clone(),
        Value::String(s) => vec![json!({"type": "message", "role": "user", "content": s})],
        _ => vec![],
    };
    let user: String = items
        .iter()
        .filter(|i| i["role"] == "user")
        .map(|i| text_of(&i["content"]))
        .collect::<Vec<_>>()
        .join("\n");
    let output = items
        .iter()
        .rev()
        .find(|i| matches!(i["type"].as_str(), Some("function_call_output" | "custom_tool_call_output")));
    let tools: Vec<&str> = request["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str().or(t["function"]["name"].as_str())).collect())
        .unwrap_or_default();
    let item = match (case_of(&user), output) {
        (Some((case, _)), Some(out)) => {
            let text = match &out["output"] {
                Value::String(s) => s.clone(),
                Value::Object(o) => o.get("content").map(text_of).unwrap_or_default(),
                other => text_of(other),
            };
            seen.lock().unwrap().results.insert(case.clone(), text);
            message(&format!("Done with {case}."))
        }
        (Some((case, command)), None) => {
            let (name, args) = if tools.contains(&"shell_command") {
                ("shell_command", json!({"command": command}))
            } else if tools.contains(&"exec_command") {
                ("exec_command", json!({"cmd": command}))
            } else {
                ("shell", json!({"command": ["bash", "-lc", command]}))
            };
            json!({"type": "function_call", "id": "fc_test", "call_id": format!("call_{case}"),
                   "name": name, "arguments": args.to_string(), "status": "completed"})
        }
        _ => message("ok"),
    };
    let response = json!({"id": "resp_test", "object": "response", "created_at": 0, "status": "in_progress",
                          "model": request["model"], "output": []});
    let usage = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
                       "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 30});
    let mut done = response.clone();
    done["status"] = json!("completed");
    done["output"] = json!([item]);
    done["usage"] = usage;
    sse(&[
        json!({"type": "response.created", "response": response}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        json!({"type": "response.completed", "response": done}),
    ])
}

fn message(text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "id": "msg_test", "status": "completed",
           "content": [{"type": "output_text", "text": text, "annotations": []}]})
}
