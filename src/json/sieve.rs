//! Stage 3: prune what carries no information for a reader, bottom-up.
//!
//! - `null`, `""`, `[]`, `{}` are removed (children first, so a subtree whose
//!   fields were all empty collapses: `"Monitoring": {"State": null}`).
//! - Opaque base64 blobs become `<base64 N chars>` (seed 000's content-only
//!   gate: length ≥ 200, base64/url alphabet plus `\n\r`, ≥ 92 % alphanumeric).
//! - PEM blocks become `<pem LABEL N chars>`.

use serde_json::Value;

/// The pruned document. The root itself is kept even when it empties
/// (`{}` or `[]`), so there is always a document to print.
pub fn sieve(mut value: Value) -> Value {
    match &mut value {
        Value::Object(map) => map.retain(|_, v| prune(v)),
        Value::Array(items) => items.retain_mut(prune),
        scalar => {
            if !prune(scalar) {
                return Value::Null;
            }
        }
    }
    value
}

/// Prunes `value` in place; `false` when nothing informative is left and
/// the caller should drop it. In place because rebuilding every map would
/// re-hash every key of the document once more.
fn prune(value: &mut Value) -> bool {
    match value {
        Value::Null => false,
        Value::String(s) if s.is_empty() => false,
        Value::String(s) => {
            *s = redact(std::mem::take(s));
            true
        }
        Value::Array(items) => {
            items.retain_mut(prune);
            !items.is_empty()
        }
        Value::Object(map) => {
            map.retain(|_, v| prune(v));
            !map.is_empty()
        }
        _ => true,
    }
}

/// Replaces a base64 blob or a PEM block by a short marker; other strings pass.
pub fn redact(s: String) -> String {
    if let Some(label) = pem_label(&s) {
        return format!("<pem {label} {} chars>", s.chars().count());
    }
    if is_base64_blob(&s) {
        return format!("<base64 {} chars>", s.len());
    }
    s
}

/// Seed 000's gate: long, only base64/base64url characters (and line breaks),
/// and overwhelmingly alphanumeric. Passes JWTs (dots), UUIDs (short), prose.
pub fn is_base64_blob(s: &str) -> bool {
    if s.len() < 200 {
        return false;
    }
    let mut alnum = 0usize;
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => alnum += 1,
            b'+' | b'/' | b'=' | b'-' | b'_' | b'\n' | b'\r' => {}
            _ => return false,
        }
    }
    alnum * 100 >= s.len() * 92
}

/// `-----BEGIN CERTIFICATE-----` ... `-----END CERTIFICATE-----` → "CERTIFICATE".
fn pem_label(s: &str) -> Option<&str> {
    let rest = s.trim_start().strip_prefix("-----BEGIN ")?;
    let (label, after) = rest.split_once("-----")?;
    let end = format!("-----END {label}-----");
    (after.contains(&end) && !label.is_empty() && label.len() < 64).then_some(label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empties_collapse_bottom_up() {
        let v = json!({"Monitoring": {"State": null}, "Tags": [], "Name": "", "Keep": 0, "F": false,
                       "Deep": {"a": {"b": [null, {}, ""]}}});
        assert_eq!(sieve(v), json!({"Keep": 0, "F": false}));
    }

    #[test]
    fn eks_certificate_authority_becomes_a_marker() {
        let blob = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t".repeat(41);
        let v = json!({"certificateAuthority": {"data": blob}});
        assert_eq!(
            sieve(v),
            json!({"certificateAuthority": {"data": format!("<base64 {} chars>", blob.len())}})
        );
    }

    #[test]
    fn jwt_api_key_uuid_and_prose_are_kept() {
        let jwt =
            format!("eyJhbGciOiJIUzI1NiJ9.{}.{}", "eyJzdWIiOiIxMjM0NTY3ODkwIn0".repeat(8), "a".repeat(43));
        let api_key = "AKIAIOSFODNN7EXAMPLE";
        let uuid = "123e4567-e89b-12d3-a456-426614174000";
        let prose = "This is a long human readable description of a resource. ".repeat(5);
        for s in [jwt.as_str(), api_key, uuid, prose.as_str()] {
            assert_eq!(redact(s.to_string()), s);
        }
    }

    #[test]
    fn low_alphanumeric_ratio_is_not_a_blob() {
        let s = "ab+/".repeat(60); // 50 % alphanumeric
        assert!(!is_base64_blob(&s));
        assert!(is_base64_blob(&"QUJD".repeat(60)));
    }

    #[test]
    fn pem_blocks_are_redacted() {
        let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        assert_eq!(redact(pem.to_string()), format!("<pem CERTIFICATE {} chars>", pem.len()));
    }

    #[test]
    fn root_survives_even_when_empty() {
        assert_eq!(sieve(json!({"a": null})), json!({}));
        assert_eq!(sieve(json!([null])), json!([]));
    }
}
