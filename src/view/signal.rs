//! Records that carry signal come first in a view: an error or failed level,
//! status or state, a non-zero exit code, an HTTP status of 400 or more, a
//! non-empty error message. Each finding is also a jq condition, so the view
//! can print the exact command that lists all such records.

use serde_json::{Map, Value};

use super::jq_key;

/// The first field of `record` (its own keys, then nested objects; not
/// inside arrays) that marks it as signal, as a jq condition on the record
/// (`.level == "error"`).
pub fn trigger(record: &Value) -> Option<String> {
    let Value::Object(m) = record else { return None };
    let mut path = String::new();
    find(m, &mut path)
}

fn find(m: &Map<String, Value>, path: &mut String) -> Option<String> {
    for (k, v) in m {
        let len = path.len();
        jq_key(path, k);
        let hit = match v {
            Value::String(s) if marks(k, s) => Some(format!("{path} == {}", Value::from(s.as_str()))),
            Value::Number(n) if bad_code(k, n) => Some(format!("{path} == {n}")),
            _ => None,
        };
        if hit.is_some() {
            return hit;
        }
        path.truncate(len);
    }
    for (k, v) in m {
        if let Value::Object(child) = v {
            let len = path.len();
            jq_key(path, k);
            if let Some(hit) = find(child, path) {
                return Some(hit);
            }
            path.truncate(len);
        }
    }
    None
}

/// Lower case, without `_` and `-`: `exit_code`, `ExitCode` → `exitcode`.
fn norm(key: &str) -> String {
    key.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

/// Key names whose string value states an outcome or a severity.
const OUTCOME_KEYS: &[&str] =
    &["level", "severity", "status", "state", "result", "conclusion", "outcome", "phase"];
/// Values of those that mean something went wrong (whole words of the value).
const BAD_WORDS: &[&str] = &[
    "error",
    "errored",
    "err",
    "fatal",
    "critical",
    "crit",
    "alert",
    "emerg",
    "emergency",
    "panic",
    "fail",
    "failed",
    "failure",
    "failing",
];
/// Key names that hold an error message: a non-empty one is signal.
const ERROR_KEYS: &[&str] = &["error", "err", "errormessage", "exception"];

fn marks(key: &str, value: &str) -> bool {
    let k = norm(key);
    if ERROR_KEYS.contains(&k.as_str()) {
        return !value.trim().is_empty();
    }
    OUTCOME_KEYS.iter().any(|o| k.ends_with(o))
        && value
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| BAD_WORDS.iter().any(|b| w.eq_ignore_ascii_case(b)))
}

/// A non-zero exit or error code; an HTTP status of 400-599.
fn bad_code(key: &str, n: &serde_json::Number) -> bool {
    let Some(v) = n.as_f64() else { return false };
    match norm(key).as_str() {
        "code" | "exitcode" | "exitstatus" | "returncode" | "rc" | "errorcode" => v != 0.0,
        "status" | "statuscode" | "httpstatus" | "httpstatuscode" | "responsecode" => {
            (400.0..600.0).contains(&v)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn levels_states_and_codes() {
        assert_eq!(
            trigger(&json!({"ts": 1, "level": "error", "msg": "x"})).as_deref(),
            Some(".level == \"error\"")
        );
        assert_eq!(trigger(&json!({"level": "ERROR"})).as_deref(), Some(".level == \"ERROR\""));
        assert_eq!(
            trigger(&json!({"StackStatus": "CREATE_FAILED"})).as_deref(),
            Some(".StackStatus == \"CREATE_FAILED\"")
        );
        assert_eq!(
            trigger(&json!({"status": {"phase": "Failed"}})).as_deref(),
            Some(".status.phase == \"Failed\"")
        );
        assert_eq!(trigger(&json!({"exit_code": 2})).as_deref(), Some(".exit_code == 2"));
        assert_eq!(trigger(&json!({"status": 503})).as_deref(), Some(".status == 503"));
        assert_eq!(trigger(&json!({"error": "disk full"})).as_deref(), Some(".error == \"disk full\""));
        assert_eq!(
            trigger(&json!({"x": {"a.b": {"level": "fatal"}}})).as_deref(),
            Some(".x.\"a.b\".level == \"fatal\"")
        );
    }

    #[test]
    fn ordinary_records_are_not_signal() {
        for rec in [
            json!({"level": "info", "msg": "error budget ok"}),
            json!({"status": 200, "code": 0}),
            json!({"State": {"Name": "running"}}),
            json!({"error": ""}),
            json!({"zipcode": 12345, "status": "terrorist-free"}),
            json!({"conclusion": "success"}),
            json!({"items": [{"level": "error"}]}),
        ] {
            assert_eq!(trigger(&rec), None, "{rec}");
        }
    }
}
