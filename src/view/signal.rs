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
    let mut path = Vec::new();
    find(m, &mut path)
}

/// `path`: the keys down to `m`; the jq path is written only on a hit
/// (this runs on every record of a large document).
fn find<'a>(m: &'a Map<String, Value>, path: &mut Vec<&'a str>) -> Option<String> {
    let at = |path: &[&str], k: &str| {
        let mut p = String::new();
        for seg in path.iter().chain([&k]) {
            jq_key(&mut p, seg);
        }
        p
    };
    for (k, v) in m {
        match v {
            Value::String(s) if marks(k, s) => {
                return Some(format!("{} == {}", at(path, k), Value::from(s.as_str())));
            }
            // A state's own code (EC2's `State: {Code: 16, Name: running}`)
            // numbers the state, it is no error code.
            Value::Number(n)
                if bad_code(k, n) && !path.last().is_some_and(|p| norm_ends_with(p, "state")) =>
            {
                return Some(format!("{} == {n}", at(path, k)));
            }
            _ => {}
        }
    }
    for (k, v) in m {
        if let Value::Object(child) = v {
            path.push(k);
            if let Some(hit) = find(child, path) {
                return Some(hit);
            }
            path.pop();
        }
    }
    None
}

/// The key's bytes in lower case, without `_` and `-` (`exit_code`,
/// `ExitCode` → `exitcode`); no allocation: this runs on every key of every
/// record of a large document.
fn norm(key: &str) -> impl DoubleEndedIterator<Item = u8> + Clone + '_ {
    key.bytes().filter(|b| *b != b'_' && *b != b'-').map(|b| b.to_ascii_lowercase())
}

fn norm_is(key: &str, word: &str) -> bool {
    norm(key).eq(word.bytes())
}

fn norm_ends_with(key: &str, suffix: &str) -> bool {
    let mut k = norm(key).rev();
    suffix.bytes().rev().all(|b| k.next() == Some(b))
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
    // Cheapest tests first: most values are no outcome word.
    if key.len() <= 14 && ERROR_KEYS.iter().any(|w| norm_is(key, w)) {
        return !value.trim().is_empty();
    }
    // The key before the value: a key's last byte rules out most outcome
    // words at once, a value must be split into words.
    value.len() <= 64
        && OUTCOME_KEYS.iter().any(|o| norm_ends_with(key, o))
        && value
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|w| w.len() <= 9 && BAD_WORDS.iter().any(|b| w.eq_ignore_ascii_case(b)))
}

/// A non-zero exit or error code; an HTTP status of 400-599.
fn bad_code(key: &str, n: &serde_json::Number) -> bool {
    if key.len() > 16 {
        return false;
    }
    // The key first: an exact number's value is parsed from its text.
    let is = |words: &[&str]| words.iter().any(|w| norm_is(key, w));
    if is(&["code", "exitcode", "exitstatus", "returncode", "rc", "errorcode"]) {
        n.as_f64().is_some_and(|v| v != 0.0)
    } else if is(&["status", "statuscode", "httpstatus", "httpstatuscode", "responsecode"]) {
        n.as_f64().is_some_and(|v| (400.0..600.0).contains(&v))
    } else {
        false
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
        assert_eq!(trigger(&json!({"State": {"Code": 16, "Name": "running"}})), None);
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
