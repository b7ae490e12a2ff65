//! Stage 4: remove repeats and make machine-only values readable.
//!
//! Default (measured on our corpus; see SPEC §4): a string field is dropped
//! only when an *enclosing* object — a strict ancestor — already holds the same
//! value under the same key name (compared case-, `_`- and `-`-insensitively):
//! the seed's `cluster_id` / `default_tags.ClusterId`, an instance `VpcId` and
//! its interfaces' `VpcId`. Siblings never drop each other (two interfaces on
//! one subnet both keep `SubnetId`), booleans and numbers are never dropped,
//! and key order does not matter because an object registers all its own
//! fields before its children are visited. Epoch-millisecond integers under a
//! time-like key become ISO-8601 UTC strings.
//!
//! Aggressive (seed 000's rule, opt-in): any string or number seen earlier in
//! the same scope is dropped whatever its key (root array: a fresh scope per
//! element; nested array element: a copy of the parent's scope; objects:
//! scalars and objects first, arrays second), and epoch-ms values are deleted.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::sieve::sieve;
use crate::settings::{Dedup, Epoch};

/// Runs the deduper with `mode` (`Aggressive`: seed 000's value-only rule)
/// and `epoch` for epoch-ms values under time-like keys.
pub fn dedup(mut value: Value, mode: Dedup, epoch: Epoch) -> Value {
    let out = match mode {
        Dedup::Aggressive => match value {
            Value::Array(items) => {
                Value::Array(items.into_iter().map(|v| seed_walk(v, &mut HashSet::new(), epoch)).collect())
            }
            other => seed_walk(other, &mut HashSet::new(), epoch),
        },
        Dedup::Default => {
            key_walk(&mut value, &mut Vec::new(), epoch);
            value
        }
        Dedup::Off => {
            if epoch != Epoch::Keep {
                epochs_only(&mut value, epoch);
            }
            return value;
        }
    };
    // Dropping fields can empty an object: prune again, keeping the root.
    sieve(out)
}

/// Key name as compared by the deduper: `cluster_id` == `ClusterId`.
fn norm_key(key: &str) -> String {
    // Keys are nearly always ASCII: byte by byte is several times faster
    // than the Unicode lowercase, and gives the same string.
    if key.is_ascii() {
        let mut out = String::with_capacity(key.len());
        out.extend(
            key.bytes().filter(|b| *b != b'_' && *b != b'-').map(|b| char::from(b.to_ascii_lowercase())),
        );
        return out;
    }
    key.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
}

/// Default rule, in place (no map is rebuilt). `ancestors` holds
/// (normalised key, value) of every string field of the enclosing objects.
fn key_walk(value: &mut Value, ancestors: &mut Vec<(String, String)>, epoch: Epoch) {
    match value {
        Value::Object(map) => {
            let mark = ancestors.len();
            // Our own strings matter only to descendants: a leaf object (the
            // most common kind) neither clones nor normalises anything.
            let has_children = map.values().any(|v| v.is_object() || v.is_array());
            let mut own = Vec::new();
            map.retain(|k, v| {
                if !apply_epoch(k, v, epoch) {
                    return false;
                }
                if let Value::String(s) = v
                    && (mark > 0 || has_children)
                {
                    // Compare values first: the key is normalised (an
                    // allocation) only when some ancestor holds this value.
                    let mut nk: Option<String> = None;
                    if ancestors
                        .iter()
                        .any(|(ak, av)| av == s && *ak == *nk.get_or_insert_with(|| norm_key(k)))
                    {
                        return false;
                    }
                    if has_children {
                        own.push((nk.unwrap_or_else(|| norm_key(k)), s.clone()));
                    }
                }
                true
            });
            ancestors.extend(own);
            for v in map.values_mut() {
                key_walk(v, ancestors, epoch);
            }
            ancestors.truncate(mark);
        }
        Value::Array(items) => items.iter_mut().for_each(|v| key_walk(v, ancestors, epoch)),
        _ => {}
    }
}

/// Seed 000's value-only rule with its scoping.
fn seed_walk(value: Value, seen: &mut HashSet<String>, epoch: Epoch) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            let mut arrays = Vec::new();
            for (k, v) in map {
                match v {
                    Value::Array(items) => arrays.push((k, items)),
                    Value::Object(_) => {
                        out.insert(k, seed_walk(v, seen, epoch));
                    }
                    // The seed deletes every epoch-ms value, whatever its key.
                    Value::Number(n) if is_epoch_ms(&n) && epoch == Epoch::Drop => {}
                    Value::Number(n) if is_epoch_ms(&n) && epoch == Epoch::Iso && is_time_key(&k) => {
                        out.insert(k.clone(), Value::String(iso_utc(n.as_u64().unwrap_or_default())));
                    }
                    Value::String(_) | Value::Number(_) => {
                        let text = v.to_string();
                        if seen.insert(text) {
                            out.insert(k, v);
                        }
                    }
                    other => {
                        out.insert(k, other);
                    }
                }
            }
            for (k, items) in arrays {
                let items = items.into_iter().map(|v| seed_walk(v, &mut seen.clone(), epoch)).collect();
                out.insert(k, Value::Array(items));
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| seed_walk(v, &mut seen.clone(), epoch)).collect())
        }
        other => other,
    }
}

fn is_epoch_ms(n: &serde_json::Number) -> bool {
    n.as_u64().is_some_and(|x| (1_000_000_000_000..4_100_000_000_000).contains(&x))
}

/// Key names that hold points in time: `createdAt`, `last_restarted_time`,
/// `CreationDate`, `expires`, `lastModified` ...
fn is_time_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    ["time", "date", "stamp", "epoch", "expir", "modified", "created", "updated", "started", "ended", "since"]
        .iter()
        .any(|w| k.contains(w))
        || key.ends_with("At")
        || k.ends_with("_at")
        || k == "ts"
}

/// The epoch rule for one field; `false`: drop the field.
fn apply_epoch(key: &str, v: &mut Value, epoch: Epoch) -> bool {
    if let Value::Number(n) = v
        && is_epoch_ms(n)
        && is_time_key(key)
    {
        match epoch {
            Epoch::Iso => *v = Value::String(iso_utc(n.as_u64().unwrap_or_default())),
            Epoch::Drop => return false,
            Epoch::Keep => {}
        }
    }
    true
}

/// The epoch rule alone (dedup off).
fn epochs_only(value: &mut Value, epoch: Epoch) {
    match value {
        Value::Object(map) => {
            map.retain(|k, v| apply_epoch(k, v, epoch));
            map.values_mut().for_each(|v| epochs_only(v, epoch));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| epochs_only(v, epoch)),
        _ => {}
    }
}

/// Milliseconds since 1970 as `YYYY-MM-DDTHH:MM:SS.mmmZ` (proleptic Gregorian).
pub fn iso_utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil-from-days (Howard Hinnant's public-domain algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_normalise_alike_in_ascii_and_beyond() {
        assert_eq!(norm_key("Cluster_Id-X"), "clusteridx");
        assert_eq!(norm_key("cluster_id"), norm_key("ClusterId"));
        // The ASCII path and the Unicode one agree.
        let unicode = |k: &str| -> String {
            k.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect()
        };
        for k in ["VpcId", "vpc-id", "_A_b-C_", "", "ÜBER_Größe", "ǅungla-Key"] {
            assert_eq!(norm_key(k), unicode(k), "{k}");
        }
    }

    #[test]
    fn seed_cluster_id_and_default_tags() {
        let v =
            json!({"cluster_id": "abc123", "default_tags": {"ClusterId": "abc123", "Region": "us-east-1"}});
        assert_eq!(
            dedup(v, Dedup::Default, Epoch::Iso),
            json!({"cluster_id": "abc123", "default_tags": {"Region": "us-east-1"}})
        );
    }

    #[test]
    fn sibling_interfaces_on_one_subnet_both_keep_subnet_id() {
        let v = json!({"InstanceId": "i-1", "NetworkInterfaces": [
            {"SubnetId": "subnet-a", "NetworkInterfaceId": "eni-1"},
            {"SubnetId": "subnet-a", "NetworkInterfaceId": "eni-2"}]});
        assert_eq!(dedup(v.clone(), Dedup::Default, Epoch::Iso), v);
    }

    #[test]
    fn vpc_id_registered_before_the_array_regardless_of_key_order() {
        let v = json!({"NetworkInterfaces": [{"vpc_id": "vpc-1", "SubnetId": "s"}], "VpcId": "vpc-1"});
        assert_eq!(
            dedup(v, Dedup::Default, Epoch::Iso),
            json!({"NetworkInterfaces": [{"SubnetId": "s"}], "VpcId": "vpc-1"})
        );
    }

    #[test]
    fn device_name_and_root_device_name_both_kept() {
        let v = json!({"RootDeviceName": "/dev/xvda",
                       "BlockDeviceMappings": [{"DeviceName": "/dev/xvda", "Ebs": {"VolumeId": "vol-1"}}]});
        assert_eq!(dedup(v.clone(), Dedup::Default, Epoch::Iso), v);
    }

    #[test]
    fn booleans_and_numbers_never_dropped() {
        let v = json!({"Enabled": true, "Port": 443, "Inner": {"Enabled": true, "Port": 443}});
        assert_eq!(dedup(v.clone(), Dedup::Default, Epoch::Iso), v);
    }

    #[test]
    fn sibling_subtrees_never_drop_each_other() {
        let v = json!({"metadata": {"name": "web"}, "spec": {"containers": [{"name": "web"}]}});
        assert_eq!(dedup(v.clone(), Dedup::Default, Epoch::Iso), v);
    }

    #[test]
    fn epoch_ms_under_time_key_becomes_iso() {
        let v = json!({"last_restarted_time": 1772633534144u64, "num_workers": 4, "id": 1772633534144u64});
        assert_eq!(
            dedup(v, Dedup::Default, Epoch::Iso),
            json!({"last_restarted_time": "2026-03-04T14:12:14.144Z", "num_workers": 4, "id": 1772633534144u64})
        );
    }

    #[test]
    fn aggressive_is_the_seed_rule() {
        let v = json!({"cluster_id": "abc123", "t": 1772633534144u64, "default_tags": {"Owner": "abc123", "Region": "r"}});
        assert_eq!(
            dedup(v, Dedup::Aggressive, Epoch::Drop),
            json!({"cluster_id": "abc123", "default_tags": {"Region": "r"}})
        );
        // Root array: each element has its own scope.
        let v = json!([{"region": "r"}, {"region": "r"}]);
        assert_eq!(dedup(v.clone(), Dedup::Aggressive, Epoch::Drop), v);
    }

    #[test]
    fn emptied_objects_are_pruned() {
        let v = json!({"VpcId": "v", "Attachment": {"VpcId": "v"}, "keep": 1});
        assert_eq!(dedup(v, Dedup::Default, Epoch::Iso), json!({"VpcId": "v", "keep": 1}));
    }

    #[test]
    fn iso_dates() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_utc(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn off_keeps_repeats_and_epoch_follows_its_setting() {
        let v = json!({"cluster_id": "c", "tags": {"ClusterId": "c", "createdAt": 1700000000000u64}});
        assert_eq!(dedup(v.clone(), Dedup::Off, Epoch::Keep), v);
        let iso = dedup(v.clone(), Dedup::Off, Epoch::Iso);
        assert_eq!(iso["tags"]["ClusterId"], "c");
        assert_eq!(iso["tags"]["createdAt"], "2023-11-14T22:13:20.000Z");
        let kept = dedup(v.clone(), Dedup::Default, Epoch::Keep);
        assert_eq!(kept, json!({"cluster_id": "c", "tags": {"createdAt": 1700000000000u64}}));
        let dropped = dedup(v, Dedup::Default, Epoch::Drop);
        assert_eq!(dropped, json!({"cluster_id": "c"}));
    }
}
