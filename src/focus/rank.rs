//! The generic view: which fields of any JSON document carry the answer.
//! Each generalised leaf path (`.Items[].status.phase`) is judged on its
//! key name and its values: identity and state (ids, names, state,
//! status, type, addresses, ports, CIDRs, sizes, counts, errors, reasons,
//! messages) and short values in the records themselves are kept; values
//! that cost much and say little (hashes and opaque tokens, timestamps,
//! quoted ETags, values that contain another field of the record, such as
//! an ARN that embeds the id, long free text deep in a record) are left
//! out, unless they differ from the common value in a few records.

use std::collections::HashSet;

use serde_json::Value;

use super::paths::{GPath, Stat, Step, stats};

/// Key words (lower case, `_`/`-` removed) whose fields hold identity or
/// state: a key ending with one is kept.
const ANSWER_SUFFIXES: &[&str] = &[
    "id",
    "name",
    "key",
    "value",
    "title",
    "number",
    "state",
    "status",
    "phase",
    "type",
    "kind",
    "class",
    "size",
    "count",
    "cidr",
    "cidrip",
    "cidrblock",
    "ip",
    "ipaddress",
    "address",
    "addresses",
    "port",
    "protocol",
    "zone",
    "region",
    "az",
    "reason",
    "message",
    "error",
    "code",
    "description",
    "runtime",
    "role",
    "image",
    "version",
    "memory",
    "memorysize",
    "timeout",
    "default",
    "public",
    "enabled",
    "ready",
    "replicas",
    "capacity",
    "health",
    "conclusion",
    "result",
    "branch",
    "ref",
    "host",
    "engine",
    "handler",
    "device",
    "namespace",
    "node",
    "level",
    "severity",
    "priority",
    "login",
    "author",
    "path",
    "domain",
    "mode",
    "restartcount",
    "encrypted",
    "iops",
    "desired",
    "available",
    "platform",
    "architecture",
    "effect",
    "action",
    "principal",
    "service",
    "condition",
    "label",
    "labels",
    "target",
    "source",
    "destination",
    "vpc",
    "subnet",
    "group",
    "groups",
    "cluster",
    "instance",
];

/// Key words whose fields cost more than they say.
const COST_WORDS: &[&str] = &[
    "etag",
    "sha",
    "sha256",
    "hash",
    "checksum",
    "digest",
    "token",
    "clienttoken",
    "revisionid",
    "fingerprint",
    "signature",
    "nonce",
    "uid",
    "resourceversion",
    "selflink",
    "managedfields",
    "macaddress",
    "dnsname",
    "privatednsname",
    "publicdnsname",
    "nodeid",
    "url",
    "avatarurl",
    "gravatarid",
];

fn norm(key: &str) -> String {
    key.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

/// The last key of a path.
fn last_key(path: &[Step]) -> Option<&str> {
    path.iter().rev().find_map(|s| match s {
        Step::Key(k) => Some(k.as_str()),
        Step::Each => None,
    })
}

/// How deep a path sits in its records: the keys after its last `[]`.
fn depth(path: &[Step]) -> usize {
    path.iter().rev().take_while(|s| **s != Step::Each).count()
}

/// Array levels above a path.
fn levels(path: &[Step]) -> usize {
    path.iter().filter(|s| **s == Step::Each).count()
}

pub fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 16
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[7] == b'-'
        && (b[10] == b'T' || b[10] == b' ')
        && b[13] == b':'
}

/// A hash, a UUID, an opaque token: long, no spaces or separators of
/// words, letters and digits mixed or all hex.
fn is_opaque(s: &str) -> bool {
    let len = s.len();
    if len < 16 || s.contains(char::is_whitespace) {
        return false;
    }
    let hexish = s.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    let b64 = s.chars().all(|c| c.is_ascii_alphanumeric() || "+/=_-".contains(c));
    let digits = s.chars().filter(char::is_ascii_digit).count();
    let upper = s.chars().filter(char::is_ascii_uppercase).count();
    let lower = s.chars().filter(char::is_ascii_lowercase).count();
    // Words are lower case with few digits; tokens mix cases and digits.
    let mixed = digits * 5 >= len || (upper >= 3 && lower >= 3 && digits >= 2);
    // `subnet-0b37…`, `vpc-cidr-assoc-…`: a word and a dash name the kind
    // of thing: an id, not a hash.
    let kind_prefix = s
        .split(['-', '_'])
        .next()
        .is_some_and(|w| w.len() >= 2 && w.len() < len && w.chars().all(|c| c.is_ascii_lowercase()));
    // AWS unique ids (`AROA…`, `AIDA…`): capitals and digits.
    let caps = upper + digits == len && digits >= 1;
    !kind_prefix && (caps || (hexish && digits * 3 >= len) || (b64 && len >= 20 && mixed && !s.contains('.')))
}

fn ends_with_any(key: &str, words: &[&str]) -> bool {
    words.iter().any(|w| key.ends_with(w))
}

/// The fields the generic view keeps.
pub fn keep(doc: &Value) -> HashSet<GPath> {
    let all = stats(doc);
    let mut keep: HashSet<GPath> = HashSet::new();
    for (path, stat) in &all {
        if judge(path, stat) {
            keep.insert(path.clone());
        }
    }
    // Values that contain another kept field of the same record (an ARN
    // embedding the id or name) say nothing new.
    let derived = derivable(doc, &keep);
    for p in derived {
        keep.remove(&p);
    }
    keep
}

fn judge(path: &[Step], stat: &Stat) -> bool {
    let Some(key) = last_key(path) else { return true };
    let k = norm(key);
    // prose: most of the values seen hold a space (counted over all of
    // them, not one picked from the map, whose order is the hasher's and
    // changes from run to run)
    let seen: usize = stat.values.values().sum();
    let spaced: usize = stat.values.iter().filter(|(v, _)| v.contains(' ')).map(|(_, n)| n).sum();
    let strings = stat.strings == stat.n;
    let time_key =
        ["time", "date", "timestamp", "modified", "created", "updated"].iter().any(|w| k.ends_with(w))
            || k.ends_with("at") && k.len() > 4;
    let times = strings && stat.values.keys().all(|v| is_time(v));
    // Epoch numbers under a time key cost like the ISO times they stand for.
    let costly = COST_WORDS.iter().any(|w| k.ends_with(w))
        || (strings && stat.values.keys().all(|v| is_opaque(v) || v.starts_with('"')))
        || times
        || (time_key && !strings);
    // Few records differ from the common value: those say something.
    let differs = stat.n >= 3 && stat.distinct() > 1 && stat.top_share() >= 0.75 && stat.mean_chars() <= 40;
    if costly {
        return differs && !times && !time_key;
    }
    let named = ends_with_any(&k, ANSWER_SUFFIXES);
    if levels(path) >= 2 && depth(path) >= 2 {
        // Inside a record's nested records: names and states only.
        return named && stat.mean_chars() <= 80;
    }
    let short = stat.mean_chars() <= 64;
    let free_text = strings && spaced * 2 > seen && stat.mean_chars() > 120;
    if named {
        return !free_text || ["message", "reason", "error", "description"].iter().any(|w| k.ends_with(w));
    }
    (short || differs) && depth(path) <= 2 && !free_text
}

/// Paths whose every value contains the value of another kept string field
/// of the same record (at least 4 chars), where that field is shorter.
fn derivable(doc: &Value, keep: &HashSet<GPath>) -> HashSet<GPath> {
    // candidate -> (occurrences, occurrences containing a sibling's value)
    let mut seen: std::collections::HashMap<GPath, (usize, usize)> = std::collections::HashMap::new();
    records(doc, &mut Vec::new(), &mut |path, rec| {
        // One path buffer per record; a field's path is copied only when kept.
        let mut p = path.to_vec();
        let fields: Vec<(GPath, &str)> = rec
            .iter()
            .filter_map(|(k, v)| {
                let s = v.as_str()?;
                p.push(Step::Key(k.clone()));
                let kept = keep.contains(&p).then(|| (p.clone(), s));
                p.pop();
                kept
            })
            .collect();
        for (p, s) in &fields {
            let inside =
                fields.iter().any(|(q, t)| q != p && t.len() >= 4 && t.len() < s.len() && s.contains(t));
            // the path is copied only the first time it is seen
            match seen.get_mut(p) {
                Some(e) => *e = (e.0 + 1, e.1 + usize::from(inside)),
                None => {
                    seen.insert(p.clone(), (1, usize::from(inside)));
                }
            }
        }
    });
    seen.into_iter().filter(|(p, (n, d))| *n > 0 && n == d && !is_identity_like(p)).map(|(p, _)| p).collect()
}

/// Names and keys stay even when they contain another field (`Key` of an
/// S3 object holds its prefix).
fn is_identity_like(path: &[Step]) -> bool {
    last_key(path).is_some_and(|k| {
        let k = norm(k);
        k.ends_with("name") || k == "key" || k == "id" || k.ends_with("path")
    })
}

/// Calls `f` with every object of `doc` (its generalised path too).
fn records(v: &Value, path: &mut GPath, f: &mut impl FnMut(&[Step], &serde_json::Map<String, Value>)) {
    super::paths::visit(v, path, &mut |p, x| {
        if let Value::Object(m) = x {
            f(p, m)
        }
    });
}

/// The field that names the elements of the array at `path` in `doc`: one
/// of `kept` directly in them, all distinct, its key an id or a name (the
/// array's own noun first: `VpcId` in `Vpcs`).
pub fn identity(
    all: &[(GPath, Stat)],
    kept: &std::collections::BTreeSet<GPath>,
    path: &[Step],
) -> Option<String> {
    let noun = last_key(path).map(|k| norm(k).trim_end_matches('s').to_string()).unwrap_or_default();
    let mut best: Option<(u8, String)> = None;
    for (p, stat) in all {
        if p.len() != path.len() + 1 || !p.starts_with(path) || !kept.contains(p) {
            continue;
        }
        let Some(Step::Key(k)) = p.last() else { continue };
        let n = norm(k);
        let unique = stat.distinct() == stat.n;
        let rank = if !noun.is_empty() && (n == format!("{noun}id") || n == format!("{noun}name")) {
            5
        } else if n == "name" || n == "id" || n == "key" {
            4
        } else if n.ends_with("name") {
            3
        } else if n.ends_with("id") {
            2
        } else {
            continue;
        } + if unique { 4 } else { 0 };
        if best.as_ref().is_none_or(|(r, _)| rank > *r) {
            best = Some((rank, k.clone()));
        }
    }
    best.map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn has(keep: &HashSet<GPath>, path: &[&str]) -> bool {
        let p: GPath =
            path.iter().map(|s| if *s == "[]" { Step::Each } else { Step::Key(s.to_string()) }).collect();
        keep.contains(&p)
    }

    #[test]
    fn ids_and_states_stay_hashes_times_and_arns_go() {
        let rec = |i: usize, state: &str| {
            json!({"GroupId": format!("sg-0a1b2c3d{i:04}"), "GroupName": format!("web-{i}"), "State": state,
                   "Arn": format!("arn:aws:ec2:us-east-1:123456789012:security-group/sg-0a1b2c3d{i:04}"),
                   "Created": format!("2024-05-0{}T10:00:00Z", i % 9 + 1), "Etag": format!("\"9f8e7d6c5b4a{i:04}\""),
                   "Digest": format!("sha256:4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a39281706f5e4d3c2b1a0{i:02}")})
        };
        let doc = json!({"Groups": (0..6).map(|i| rec(i, if i == 4 {"stopped"} else {"running"})).collect::<Vec<_>>()});
        let keep = keep(&doc);
        assert!(has(&keep, &["Groups", "[]", "GroupId"]));
        assert!(has(&keep, &["Groups", "[]", "GroupName"]));
        assert!(has(&keep, &["Groups", "[]", "State"]));
        assert!(!has(&keep, &["Groups", "[]", "Arn"]), "derivable from GroupId");
        assert!(!has(&keep, &["Groups", "[]", "Created"]));
        assert!(!has(&keep, &["Groups", "[]", "Etag"]));
        assert!(!has(&keep, &["Groups", "[]", "Digest"]));
        let all = stats(&doc);
        let kept = keep.iter().cloned().collect();
        assert_eq!(
            identity(&all, &kept, &[Step::Key("Groups".into()), Step::Each]).as_deref(),
            Some("GroupId")
        );
    }

    #[test]
    fn prose_is_judged_on_all_its_values_not_one_the_map_yields_first() {
        // a named field of long texts: left out when most of them are prose
        // (free text), kept when most are one word; the same answer whatever
        // order the hasher gives the values in (it differs per map)
        let prose = |i: usize| {
            format!(
                "Step {i} of the nightly rebuild copies the shards, then checks {}",
                "every index ".repeat(8)
            )
        };
        let word = |i: usize| {
            format!(
                "Nightly-Rebuild-{}-{}",
                ["Alpha", "Beta", "Gamma", "Delta", "Omega", "Sigma"][i],
                "Of-The-Shards-And-Indexes-".repeat(4)
            )
        };
        let doc = |spaced: usize, plain: usize| {
            let vals: Vec<String> = (0..spaced).map(prose).chain((0..plain).map(word)).collect();
            json!({"Jobs": vals.iter().enumerate().map(|(i, v)| json!({"Id": format!("j-{i}"), "Title": v})).collect::<Vec<_>>()})
        };
        for _ in 0..8 {
            assert!(!has(&keep(&doc(5, 1)), &["Jobs", "[]", "Title"]), "mostly prose: free text");
            assert!(has(&keep(&doc(1, 5)), &["Jobs", "[]", "Title"]), "mostly words: kept");
        }
    }

    #[test]
    fn opaque_and_time_values() {
        assert!(is_opaque("d41d8cd98f00b204e9800998ecf8427e"));
        assert!(is_opaque("AROAIOSFODNN7EXAMPLE1"));
        assert!(!is_opaque("payments-public-a"));
        assert!(!is_opaque("nightly-payments-report"));
        assert!(!is_opaque("subnet-0b3762c8edf620440"));
        assert!(is_time("2026-04-16T10:00:00.000Z"));
        assert!(!is_time("10.40.0.0/16"));
    }
}
