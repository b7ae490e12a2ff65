//! Tool calls and their results, in each format: what `discover` pairs and
//! what `session compact` offers to the compactor.

use super::Format;
use super::spans::{Kind, Node};

/// A tool call: its id, the tool's name and, for a shell tool, the command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    pub id: String,
    pub tool: String,
    pub command: Option<String>,
    /// The file a file tool read or wrote (`file_path`).
    pub path: Option<String>,
}

/// A tool result: the call it answers, the string node the model read
/// (`None` when it is not one string: images, several parts), and whether
/// the tool reported an error.
#[derive(Clone, Debug)]
pub struct Result<'n> {
    pub call_id: String,
    pub text_node: Option<&'n Node>,
    pub is_error: bool,
}

fn str_of(node: Option<&Node>, line: &[u8]) -> Option<String> {
    node.and_then(|n| n.str(line)).map(|s| s.into_owned())
}

/// The content blocks of a Claude Code line's message.
fn claude_blocks(root: &Node) -> &[Node] {
    root.get("message").and_then(|m| m.get("content")).map(Node::items).unwrap_or(&[])
}

/// Shell tools, by the name each agent gives its own.
pub fn is_shell(tool: &str) -> bool {
    matches!(tool, "Bash" | "shell" | "exec_command" | "local_shell" | "container.exec" | "run_shell_command")
}

/// The calls one line makes.
pub fn calls(format: Format, root: &Node, line: &[u8]) -> Vec<Call> {
    let mut out = Vec::new();
    match format {
        Format::Claude => {
            for b in claude_blocks(root) {
                if str_of(b.get("type"), line).as_deref() != Some("tool_use") {
                    continue;
                }
                let tool = str_of(b.get("name"), line).unwrap_or_default();
                let command = if is_shell(&tool) {
                    str_of(b.get("input").and_then(|i| i.get("command")), line)
                } else {
                    None
                };
                let path = str_of(b.get("input").and_then(|i| i.get("file_path")), line);
                out.push(Call { id: str_of(b.get("id"), line).unwrap_or_default(), tool, command, path });
            }
        }
        Format::Codex => {
            let Some(p) = root.get("payload") else { return out };
            let ptype = str_of(p.get("type"), line);
            if !matches!(ptype.as_deref(), Some("function_call" | "custom_tool_call" | "local_shell_call")) {
                return out;
            }
            let tool = str_of(p.get("name"), line).unwrap_or_else(|| "local_shell".into());
            let args = str_of(p.get("arguments"), line).and_then(|a| serde_json::from_str(&a).ok());
            let command = args.as_ref().and_then(codex_command);
            out.push(Call {
                id: str_of(p.get("call_id"), line).unwrap_or_default(),
                tool,
                command,
                path: None,
            });
        }
        Format::Seed => {
            if let Some(tool) = str_of(root.get("tool_name"), line) {
                let input = root.get("tool_input");
                let command = if is_shell(&tool) || input.and_then(|i| i.get("command")).is_some() {
                    str_of(input.and_then(|i| i.get("command")), line)
                } else {
                    None
                };
                out.push(Call { id: seed_id(root, line), tool, command, path: None });
            }
        }
    }
    out
}

/// A seed entry's call id (`tool_use_id`, `tool_call_id`, `id`); empty
/// links a result to the last call.
fn seed_id(root: &Node, line: &[u8]) -> String {
    ["tool_use_id", "tool_call_id", "id"].iter().find_map(|k| str_of(root.get(k), line)).unwrap_or_default()
}

/// The shell command of a Codex call's arguments: `{"command": ["bash",
/// "-lc", "ls"]}` (the script), `{"command": "ls"}` or `{"cmd": "ls"}`.
fn codex_command(args: &serde_json::Value) -> Option<String> {
    let command = args.get("command").or_else(|| args.get("cmd"))?;
    match command {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Array(words) => {
            let words: Vec<&str> = words.iter().filter_map(|w| w.as_str()).collect();
            match words.as_slice() {
                [shell, flag, script]
                    if shell.ends_with("sh") && flag.starts_with('-') && flag.ends_with('c') =>
                {
                    Some((*script).to_owned())
                }
                _ => Some(words.join(" ")),
            }
        }
        _ => None,
    }
}

/// The command whose output a shell call returned, as words for a hint:
/// the last command of a `&&`/`||`/`;` list (after `cd`, `export`,
/// `source`), and of a pipeline its first stage, the tool that made the
/// output (`mix test 2>&1 | tail -20` → `mix test 2>&1`). Quotes are
/// respected when splitting; the words are split on whitespace, as
/// `tokensieve --cmd` splits its argument.
pub fn hint_command(command: &str) -> String {
    let mut segments: Vec<(String, bool)> = Vec::new(); // (text, starts a new list element)
    let mut cur = String::new();
    let mut new_element = true;
    let (mut quote, mut chars) = (None::<char>, command.chars().peekable());
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), _) if c == q => {
                quote = None;
                cur.push(c);
            }
            (Some(_), '\\') => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (Some(_), _) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                cur.push(c);
            }
            (None, '\\') => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            (None, ';' | '\n') => {
                segments.push((std::mem::take(&mut cur), new_element));
                new_element = true;
            }
            (None, '&') if chars.peek() == Some(&'&') => {
                chars.next();
                segments.push((std::mem::take(&mut cur), new_element));
                new_element = true;
            }
            (None, '|') if chars.peek() == Some(&'|') => {
                chars.next();
                segments.push((std::mem::take(&mut cur), new_element));
                new_element = true;
            }
            (None, '|') if !cur.ends_with('>') => {
                segments.push((std::mem::take(&mut cur), new_element));
                new_element = false;
            }
            _ => cur.push(c),
        }
    }
    segments.push((cur, new_element));
    let skip = |s: &str| {
        let first = s.split_whitespace().next().unwrap_or("");
        first.is_empty() || matches!(first, "cd" | "export" | "source" | "." | "set" | "pushd" | "popd")
    };
    // First stages of list elements, the last one that runs a tool.
    let chosen = segments
        .iter()
        .filter(|(_, starts)| *starts)
        .map(|(s, _)| s.trim())
        .rfind(|s| !skip(s))
        .unwrap_or(command.trim());
    // `tokensieve run -- CMD` is CMD, run through us.
    let unwrapped = chosen.strip_prefix("tokensieve run").map(|r| r.trim_start());
    let unwrapped = unwrapped.map(|r| r.strip_prefix("--").map_or(r, str::trim_start));
    unwrapped.filter(|r| !r.is_empty()).unwrap_or(chosen).to_owned()
}

/// `hint_command` as the words a hint holds.
pub fn hint_words(command: &str) -> Vec<String> {
    hint_command(command).split_whitespace().map(str::to_owned).collect()
}

/// The results one line hands back.
pub fn results<'n>(format: Format, root: &'n Node, line: &[u8]) -> Vec<Result<'n>> {
    let mut out = Vec::new();
    match format {
        Format::Claude => {
            for b in claude_blocks(root) {
                if str_of(b.get("type"), line).as_deref() != Some("tool_result") {
                    continue;
                }
                let is_error = b.get("is_error").is_some_and(|e| &line[e.range.clone()] == b"true");
                out.push(Result {
                    call_id: str_of(b.get("tool_use_id"), line).unwrap_or_default(),
                    text_node: b.get("content").and_then(single_text),
                    is_error,
                });
            }
        }
        Format::Codex => {
            let Some(p) = root.get("payload") else { return out };
            let ptype = str_of(p.get("type"), line).unwrap_or_default();
            if !ptype.ends_with("_output") {
                return out;
            }
            out.push(Result {
                call_id: str_of(p.get("call_id"), line).unwrap_or_default(),
                text_node: p.get("output").filter(|n| n.kind == Kind::String),
                is_error: false,
            });
        }
        Format::Seed => {
            let text = root.get("content").or_else(|| root.get("output")).filter(|n| n.kind == Kind::String);
            let is_error = root.get("is_error").is_some_and(|e| &line[e.range.clone()] == b"true");
            out.push(Result { call_id: seed_id(root, line), text_node: text, is_error });
        }
    }
    out
}

/// A result's text when it is one string, or a list of one text part.
fn single_text(content: &Node) -> Option<&Node> {
    match &content.kind {
        Kind::String => Some(content),
        Kind::Array(parts) if parts.len() == 1 => parts[0].get("text").filter(|n| n.kind == Kind::String),
        _ => None,
    }
}

/// Claude Code's Bash tool puts `Exit code N` first when the command
/// failed: the status, and the output after it.
pub fn split_exit(text: &str) -> (i32, &str) {
    if let Some(rest) = text.strip_prefix("Exit code ") {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(code) = digits.parse::<i32>() {
            let after = &rest[digits.len()..];
            return (code, after.strip_prefix('\n').unwrap_or(after));
        }
    }
    // Codex's shell output: a few `Name: value` lines (`Exit code: N` or
    // `Process exited with code N`, `Wall time: …`), then `Output:`.
    if let Some(at) = text.find("\nOutput:\n").filter(|&at| at < 400) {
        let header = &text[..at];
        let code = header.lines().find_map(|l| {
            l.strip_prefix("Exit code: ")
                .or_else(|| l.strip_prefix("Process exited with code "))?
                .trim()
                .parse()
                .ok()
        });
        if let Some(code) = code {
            return (code, &text[at + "\nOutput:\n".len()..]);
        }
    }
    (0, text)
}

/// A receipt of ours in a result: the command ran through a shim (or
/// `tokensieve run`), so its output is already ours.
pub fn has_receipt(text: &str) -> bool {
    text.contains("[TokenSieve] Original: ")
        || text.lines().any(|l| {
            // `[tokensieve 4821→612]`, `… raw ID]`, `[tokensieve raw ID]`,
            // and the older `[tokensieve N→M tok …]`
            l.starts_with("[tokensieve ") && (l.contains('→') || l.contains(" raw ") || l.contains(" tok"))
        })
}

/// A line's `timestamp` (ISO-8601 UTC, as both agents write it) in ms.
pub fn timestamp_ms(root: &Node, line: &[u8]) -> Option<i64> {
    parse_iso_ms(&str_of(root.get("timestamp"), line)?)
}

/// `2026-02-10T22:57:59.113Z` → milliseconds since the epoch.
pub fn parse_iso_ms(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let frac = s[19..].strip_prefix('.').map_or(0, |f| {
        let digits: String = f.chars().take_while(|c| c.is_ascii_digit()).take(3).collect();
        format!("{digits:0<3}").parse::<i64>().unwrap_or(0)
    });
    // Days from civil (Howard Hinnant's algorithm, proleptic Gregorian).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((mo + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + mi) * 60_000 + sec * 1000 + frac)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::spans::index;

    #[test]
    fn iso_times_become_epoch_ms() {
        assert_eq!(parse_iso_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_iso_ms("2026-02-10T22:57:59.113Z"), Some(1_770_764_279_113));
        assert_eq!(parse_iso_ms("2000-03-01T00:00:00.5Z"), Some(951_868_800_500));
        assert_eq!(parse_iso_ms("yesterday"), None);
    }

    #[test]
    fn exit_status_comes_off_the_front() {
        assert_eq!(split_exit("Exit code 2\nboom"), (2, "boom"));
        assert_eq!(split_exit("Exit code: 1\nWall time: 0.1 seconds\nOutput:\nno\n"), (1, "no\n"));
        assert_eq!(split_exit("fine"), (0, "fine"));
        let codex = "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 3\nOriginal token count: 9\nOutput:\nx\n";
        assert_eq!(split_exit(codex), (3, "x\n"));
    }

    #[test]
    fn the_hint_is_the_tool_that_made_the_output() {
        assert_eq!(hint_command("cd /x && mix test 2>&1 | tail -20"), "mix test 2>&1");
        assert_eq!(hint_command("git status; git diff --stat"), "git diff --stat");
        assert_eq!(hint_command("grep 'a|b' f.txt"), "grep 'a|b' f.txt");
        assert_eq!(hint_command("cargo test || echo \"x && y\""), "echo \"x && y\"");
        assert_eq!(hint_command("cd somewhere"), "cd somewhere");
        assert_eq!(hint_command("tokensieve run -- cargo test"), "cargo test");
    }

    #[test]
    fn codex_calls_name_the_script_bash_runs() {
        let line = br#"{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"git status\"]}","call_id":"c1"}}"#;
        let root = index(line).unwrap();
        assert_eq!(
            calls(Format::Codex, &root, line),
            vec![Call {
                id: "c1".into(),
                tool: "shell".into(),
                command: Some("git status".into()),
                path: None
            }]
        );
    }
}
