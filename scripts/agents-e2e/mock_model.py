#!/usr/bin/env python3
"""A scripted stand-in for a model API, for the end-to-end agent runs.

It speaks the two wire formats the agents under test use: the Gemini API
(`:generateContent`, `:streamGenerateContent`, `:countTokens`; Gemini CLI)
and OpenAI Chat Completions, streamed or not (OpenCode, Copilot CLI).

The script is the user's prompt: it holds `RUN=<id>` and one shell command
between the lines `<<<CMD` and `CMD>>>`. The first time the model is asked
with a shell tool on offer, it calls that tool with the command; when the
tool's result comes back, the result's text is saved as OUT/<id>.txt and the
model ends the turn. Anything else (titles, routing, next-speaker checks)
gets a short answer that fits what was asked. Every request is appended to
OUT/requests.jsonl.

usage: mock_model.py OUT     (listens on 127.0.0.1; the port goes to OUT/port)
Stdlib only. Stops on SIGTERM.
"""
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

OUT = Path(sys.argv[1])
OUT.mkdir(parents=True, exist_ok=True)
WRITE = threading.Lock()
RUN_ID = re.compile(r"RUN=([A-Za-z0-9_.-]+)")
COMMAND = re.compile(r"<<<CMD\n(.*?)\nCMD>>>", re.S)
# Names agents give their shell tool, most specific first.
SHELL_TOOLS = ("run_shell_command", "bash", "shell", "Shell", "Bash")


def note(entry):
    with WRITE, open(OUT / "requests.jsonl", "a") as f:
        f.write(json.dumps(entry) + "\n")


def keep_result(run_id, text, raw):
    with WRITE:
        (OUT / f"{run_id}.txt").write_text(text)
        (OUT / f"{run_id}.json").write_text(json.dumps(raw, indent=1))


def script_of(prompt):
    """(run id, command) from the user's text, or (None, None)."""
    # `opencode run` hands over an argument with spaces quoted, "\"" inside.
    if prompt.startswith('"') and prompt.rstrip().endswith('"'):
        prompt = prompt.strip()[1:-1].replace('\\"', '"')
    run, cmd = RUN_ID.search(prompt), COMMAND.search(prompt)
    return (run.group(1) if run else None), (cmd.group(1) if cmd else None)


def arguments(schema, command):
    """Arguments for a shell tool: the command, and a plausible value for
    every other required parameter the schema names."""
    props = (schema or {}).get("properties") or {}
    key = next((k for k in ("command", "cmd") if k in props), "command")
    args = {key: command}
    for name in (schema or {}).get("required") or []:
        if name in args:
            continue
        spec = props.get(name) or {}
        kind = spec.get("type")
        if spec.get("enum"):
            args[name] = "sync" if "sync" in spec["enum"] else spec["enum"][0]
        elif kind in ("integer", "number"):
            args[name] = 120 if ("wait" in name or "timeout" in name) else 1
        elif kind == "boolean":
            args[name] = False
        elif kind == "array":
            args[name] = []
        elif kind == "object":
            args[name] = {}
        else:
            args[name] = "tokensieve end-to-end run"
    return args


def fill(schema):
    """Some JSON that fits a response schema (routing and next-speaker
    checks ask for one)."""
    kind = (schema or {}).get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    kind = str(kind).lower()
    if schema and schema.get("enum"):
        values = schema["enum"]
        return "user" if "user" in values else values[0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: ("user" if k == "next_speaker" else fill(v)) for k, v in props.items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "ok"


# ------------------------------------------------------------- Gemini API

def gemini_text(parts):
    return "\n".join(p["text"] for p in parts or [] if isinstance(p, dict) and "text" in p)


def gemini_turn(body):
    contents = body.get("contents") or []
    prompt = "\n".join(gemini_text(c.get("parts")) for c in contents if c.get("role") == "user")
    run_id, command = script_of(prompt)
    answers = [p["functionResponse"] for c in contents for p in c.get("parts") or []
               if isinstance(p, dict) and "functionResponse" in p]
    if run_id and answers:
        response = answers[-1].get("response")
        text = response.get("output") if isinstance(response, dict) else None
        if not isinstance(text, str):
            text = json.dumps(response)
        keep_result(run_id, text, answers[-1])
        return [{"text": f"Finished {run_id}."}]
    tools = {}
    for group in body.get("tools") or []:
        for decl in group.get("functionDeclarations") or []:
            tools[decl.get("name")] = decl.get("parametersJsonSchema") or decl.get("parameters") or {}
    shell = next((t for t in SHELL_TOOLS if t in tools), None)
    if run_id and command and shell:
        return [{"functionCall": {"name": shell, "args": arguments(tools[shell], command)}}]
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema or config.get("responseMimeType") == "application/json":
        return [{"text": json.dumps(fill(schema or {}))}]
    return [{"text": "ok"}]


def gemini_reply(parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
            "modelVersion": "mock"}


# ------------------------------------------------- OpenAI Chat Completions

def message_text(message):
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def chat_turn(body):
    """(message fields, finish reason)."""
    messages = body.get("messages") or []
    prompt = "\n".join(message_text(m) for m in messages if m.get("role") == "user")
    run_id, command = script_of(prompt)
    results = [m for m in messages if m.get("role") == "tool"]
    if run_id and results:
        keep_result(run_id, message_text(results[-1]), results[-1])
        return {"content": f"Finished {run_id}."}, "stop"
    tools = {}
    for tool in body.get("tools") or []:
        fn = tool.get("function") or tool
        tools[fn.get("name")] = fn.get("parameters") or {}
    shell = next((t for t in SHELL_TOOLS if t in tools), None)
    if run_id and command and shell:
        call = {"id": f"call_{run_id}", "type": "function",
                "function": {"name": shell, "arguments": json.dumps(arguments(tools[shell], command))}}
        return {"tool_calls": [call]}, "tool_calls"
    return {"content": "Scripted run"}, "stop"


def chat_chunks(fields, finish, model):
    head = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta, reason=None):
        return dict(head, choices=[{"index": 0, "delta": delta, "finish_reason": reason}])

    out = [chunk({"role": "assistant", "content": ""})]
    if "tool_calls" in fields:
        call = fields["tool_calls"][0]
        args = call["function"]["arguments"]
        out.append(chunk({"tool_calls": [{"index": 0, "id": call["id"], "type": "function",
                                          "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        # Arguments arrive in pieces, as real APIs send them.
        for i in range(0, len(args), 32):
            out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[i:i + 32]}}]}))
    else:
        out.append(chunk({"content": fields["content"]}))
    out.append(chunk({}, finish))
    out.append(dict(head, choices=[], usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}))
    return "".join(f"data: {json.dumps(c)}\n\n" for c in out) + "data: [DONE]\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, payload, kind="application/json"):
        data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.close_connection = True

    def do_HEAD(self):
        self.send("")

    def do_GET(self):
        note({"method": "GET", "path": self.path})
        if self.path.split("?")[0].endswith("/models"):
            return self.send({"object": "list", "data": [{"id": "mock-model", "object": "model", "owned_by": "mock"}]})
        self.send({})

    def do_POST(self):
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(size) if size else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        note({"method": "POST", "path": self.path, "body": body})
        path = self.path.split("?")[0]
        if path.endswith(":countTokens"):
            return self.send({"totalTokens": 1})
        if path.endswith(":streamGenerateContent"):
            return self.send(f"data: {json.dumps(gemini_reply(gemini_turn(body)))}\r\n\r\n", "text/event-stream")
        if path.endswith(":generateContent"):
            return self.send(gemini_reply(gemini_turn(body)))
        if path.endswith("/chat/completions"):
            fields, finish = chat_turn(body)
            model = body.get("model", "mock-model")
            if body.get("stream"):
                return self.send(chat_chunks(fields, finish, model), "text/event-stream")
            message = {"role": "assistant", "content": fields.get("content"), **({"tool_calls": fields["tool_calls"]}
                                                                              if "tool_calls" in fields else {})}
            return self.send({"id": "chatcmpl-mock", "object": "chat.completion", "created": int(time.time()),
                              "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
        self.send({})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    (OUT / "port").write_text(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()
