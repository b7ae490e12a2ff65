//! Manifests: what a team mate needs to know about a shared raw output
//! without its bytes (docs/FORMAT.md §10). One JSON file per object,
//! `manifests/<sha256>.json`, in the tree of the commit that
//! `refs/tokensieve/manifests` points to.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use crate::history;
use crate::json::deduper::iso_utc;
use crate::store::{ID_LEN, Store};

pub const FORMAT: &str = "tokensieve-manifest/1";
/// The folder of the manifest tree that holds the files.
pub const DIR: &str = "manifests";
/// A manifest larger than this is not read (one object's calls: a few
/// hundred bytes each).
pub const MAX_BYTES: u64 = 1 << 20;
/// All of a remote's manifests together, at most.
pub const TOTAL_MAX_BYTES: u64 = 64 << 20;

/// One object's manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    pub sha256: String,
    pub size: u64,
    pub json: Value,
}

impl Manifest {
    /// Its path in the manifest tree.
    pub fn path(&self) -> String {
        path_of(&self.sha256)
    }

    /// The file's bytes: pretty JSON, one trailing newline (stable, so the
    /// same manifest is the same git blob on every machine).
    pub fn bytes(&self) -> Vec<u8> {
        let mut text = serde_json::to_string_pretty(&self.json).unwrap_or_default();
        text.push('\n');
        text.into_bytes()
    }

    /// Reads a manifest file; `None` when it is not one of ours.
    pub fn parse(bytes: &[u8]) -> Option<Manifest> {
        let json: Value = serde_json::from_slice(bytes).ok()?;
        let sha256 = json.get("sha256")?.as_str()?.to_owned();
        let size = json.get("size")?.as_u64()?;
        (json.get("format")?.as_str()? == FORMAT && is_sha256(&sha256)).then_some(Manifest {
            sha256,
            size,
            json,
        })
    }
}

pub fn path_of(sha256: &str) -> String {
    format!("{DIR}/{sha256}.json")
}

/// The hash in a manifest path, if it is one.
pub fn sha256_of_path(path: &str) -> Option<&str> {
    let name = path.strip_prefix(DIR)?.strip_prefix('/')?.strip_suffix(".json")?;
    is_sha256(name).then_some(name)
}

pub fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A manifest for every object in the store, with the calls the history
/// recorded for it (none when the history is missing or unreadable: the
/// bytes are what must travel).
pub fn build(store: &Store, home: &Path, top: Option<&Path>) -> Result<Vec<Manifest>> {
    let objects = store.objects()?;
    let calls = match history::open_existing(home) {
        Ok(Some(conn)) => read_calls(&conn).unwrap_or_default(),
        _ => Vec::new(),
    };
    Ok(assemble(&objects, &calls, top))
}

/// What a manifest says of one recorded call.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    pub ts_ms: i64,
    pub tool: String,
    pub subcommand: String,
    pub exit_code: i64,
    pub duration_ms: i64,
    pub shape: String,
    pub original_tokens: i64,
    pub compressed_tokens: i64,
    /// The receipt's raw id (the first `ID_LEN` hex digits of the hash).
    pub object_id: String,
    /// The call's typed result (status, counts, findings), when recorded.
    pub result: Option<Value>,
    /// Where it ran, as recorded (absolute).
    pub cwd: Option<String>,
}

/// Every history row that kept a raw output, oldest first. The typed
/// result and the working directory are read when the history has them
/// (the `result` and `cwd` columns of a newer schema).
fn read_calls(conn: &rusqlite::Connection) -> rusqlite::Result<Vec<Call>> {
    let columns: Vec<String> =
        conn.prepare("SELECT * FROM calls LIMIT 0")?.column_names().map(str::to_owned).collect();
    let optional =
        |name: &str| if columns.iter().any(|c| c == name) { name.to_owned() } else { "NULL".to_owned() };
    let sql = format!(
        "SELECT ts_ms, tool, subcommand, exit_code, duration_ms, shape, original_tokens, \
         compressed_tokens, object_id, {}, {} FROM calls WHERE object_id IS NOT NULL ORDER BY ts_ms, id",
        optional("result"),
        optional("cwd")
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map([], |r| {
        Ok(Call {
            ts_ms: r.get(0)?,
            tool: r.get(1)?,
            subcommand: r.get(2)?,
            exit_code: r.get(3)?,
            duration_ms: r.get(4)?,
            shape: r.get(5)?,
            original_tokens: r.get(6)?,
            compressed_tokens: r.get(7)?,
            object_id: r.get(8)?,
            result: r.get::<_, Option<String>>(9)?.and_then(|t| serde_json::from_str(&t).ok()),
            cwd: r.get(10)?,
        })
    })?;
    rows.collect()
}

/// Pure part of `build`: objects and the history's rows → manifests.
pub fn assemble(objects: &[(String, u64)], calls: &[Call], top: Option<&Path>) -> Vec<Manifest> {
    let mut by_id: HashMap<&str, Vec<&Call>> = HashMap::new();
    for c in calls {
        if c.object_id.len() >= ID_LEN {
            by_id.entry(&c.object_id[..ID_LEN]).or_default().push(c);
        }
    }
    objects
        .iter()
        .map(|(hex, size)| {
            let captures: Vec<Value> = by_id.get(&hex[..ID_LEN]).map_or_else(Vec::new, |cs| {
                cs.iter().filter(|c| hex.starts_with(&c.object_id)).map(|c| capture(c, top)).collect()
            });
            Manifest { sha256: hex.clone(), size: *size, json: object_json(hex, *size, captures) }
        })
        .collect()
}

fn object_json(hex: &str, size: u64, captures: Vec<Value>) -> Value {
    json!({
        "format": FORMAT,
        "id": &hex[..ID_LEN],
        "sha256": hex,
        "size": size,
        "captures": captures,
    })
}

/// One recorded call that produced the object. Its folder is given
/// relative to the repository's top (`top`), and only when it ran inside
/// it: an absolute path of someone's machine helps no team mate.
fn capture(c: &Call, top: Option<&Path>) -> Value {
    let command =
        if c.subcommand.is_empty() { c.tool.clone() } else { format!("{} {}", c.tool, c.subcommand) };
    let mut v = json!({
        "time": iso_utc(c.ts_ms.max(0) as u64),
        "command": command,
        "tool": c.tool,
        "exit_code": c.exit_code,
        "duration_ms": c.duration_ms,
        "shape": c.shape,
        "original_tokens": c.original_tokens,
        "compressed_tokens": c.compressed_tokens,
    });
    let rel = c
        .cwd
        .as_deref()
        .zip(top)
        .and_then(|(cwd, top)| Path::new(cwd).strip_prefix(top).ok().map(Path::to_path_buf));
    if let Some(rel) = rel {
        let rel = rel.to_string_lossy();
        v["cwd"] = Value::String(if rel.is_empty() { ".".into() } else { rel.into_owned() });
    }
    if let Some(r) = &c.result {
        v["result"] = r.clone();
    }
    v
}

/// `ours` and `theirs` for the same object, as one: every capture of
/// either (ours first when both recorded the same call), sorted by time.
pub fn merge(ours: &Manifest, theirs: &Manifest) -> Manifest {
    let key = |c: &Value| format!("{}\u{0}{}", c["time"], c["command"]);
    let mut all: BTreeMap<String, Value> = BTreeMap::new();
    for c in captures(theirs).into_iter().chain(captures(ours)) {
        all.insert(key(&c), c);
    }
    let mut json = ours.json.clone();
    if let Some(obj) = json.as_object_mut() {
        // Fields a newer writer added that we do not know stay.
        if let Some(other) = theirs.json.as_object() {
            for (k, v) in other {
                if !obj.contains_key(k) {
                    obj.insert(k.clone(), v.clone());
                }
            }
        }
        obj.insert("captures".into(), Value::Array(all.into_values().collect()));
    }
    Manifest { sha256: ours.sha256.clone(), size: ours.size, json }
}

fn captures(m: &Manifest) -> Vec<Value> {
    m.json.get("captures").and_then(Value::as_array).cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(ts_ms: i64, tool: &str, id: &str) -> Call {
        Call {
            ts_ms,
            tool: tool.into(),
            subcommand: "test".into(),
            original_tokens: 900,
            compressed_tokens: 90,
            shape: "text".into(),
            exit_code: 1,
            duration_ms: 12,
            object_id: id.into(),
            result: None,
            cwd: Some("/work/app/sub".into()),
        }
    }

    #[test]
    fn every_object_gets_a_manifest_with_its_calls() {
        let a = "ab".repeat(32);
        let b = "cd".repeat(32);
        let objects = vec![(a.clone(), 10), (b.clone(), 20)];
        let calls =
            vec![call(1_700_000_000_000, "cargo", &a[..12]), call(1_700_000_001_000, "pytest", &a[..12])];
        let ms = assemble(&objects, &calls, Some(Path::new("/work/app")));
        assert_eq!(ms.len(), 2);
        assert_eq!(ms[0].json["captures"].as_array().unwrap().len(), 2);
        assert_eq!(ms[0].json["captures"][0]["command"], "cargo test");
        assert_eq!(ms[0].json["captures"][0]["time"], "2023-11-14T22:13:20.000Z");
        assert_eq!(ms[0].json["captures"][0]["cwd"], "sub");
        let elsewhere = assemble(&objects, &calls, Some(Path::new("/other")));
        assert!(elsewhere[0].json["captures"][0].get("cwd").is_none(), "no path from outside the repository");
        assert_eq!(ms[0].json["id"], &a[..12]);
        assert_eq!(ms[1].json["captures"].as_array().unwrap().len(), 0);
        assert_eq!(ms[1].path(), format!("manifests/{b}.json"));
        let back = Manifest::parse(&ms[0].bytes()).unwrap();
        assert_eq!(back, ms[0]);
    }

    #[test]
    fn merging_keeps_every_call_once() {
        let a = "ab".repeat(32);
        let mine =
            assemble(&[(a.clone(), 5)], &[call(1, "cargo", &a[..12]), call(3, "cargo", &a[..12])], None);
        let theirs =
            assemble(&[(a.clone(), 5)], &[call(2, "pytest", &a[..12]), call(3, "cargo", &a[..12])], None);
        let merged = merge(&mine[0], &theirs[0]);
        let times: Vec<&str> =
            merged.json["captures"].as_array().unwrap().iter().map(|c| c["time"].as_str().unwrap()).collect();
        assert_eq!(times.len(), 3);
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn paths_name_hashes_only() {
        let a = "0f".repeat(32);
        assert_eq!(sha256_of_path(&path_of(&a)), Some(a.as_str()));
        assert_eq!(sha256_of_path("manifests/../x.json"), None);
        assert_eq!(sha256_of_path("other/abc.json"), None);
        assert!(Manifest::parse(b"{\"format\":\"x\"}").is_none());
    }
}
