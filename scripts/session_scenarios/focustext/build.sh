#!/usr/bin/env bash
# A session scenario of focustext's (issue 22, items 2-5) for
# ../shared/tools/session_bench: record-like text, stderr, an interpreter.
#   notes/   git repository: 24 commits by one author, message bodies, the
#            last commit edits two stretches of a file 40 lines apart
#   gauge/   Rust crate: `cargo build` warns on stderr (unused items), and
#            `cargo test` fails one test (stdout and stderr interleaved)
# usage: build.sh DEST
set -euo pipefail
D="$1"
mkdir -p "$D/notes" "$D/gauge/src"
cd "$D/notes"
git init -q -b main
git config user.name "Mira Okafor"; git config user.email "mira@okafor.example"
python3 - <<'PY'
lines = [f"setting_{i} = {i * 7}  # tuned in round {i % 5}" for i in range(80)]
open("settings.py", "w").write("\n".join(lines) + "\n")
PY
git add . && GIT_AUTHOR_DATE="2026-03-01T09:00:00+01:00" GIT_COMMITTER_DATE="2026-03-01T09:00:00+01:00" git commit -q -m "settings: first cut of the tuning table"
for i in $(seq 1 22); do
  python3 - "$i" <<'PY'
import sys
i = int(sys.argv[1])
open("CHANGES.md", "a").write(f"- round {i}: retuned block {i % 8}\n")
PY
  git add . && GIT_AUTHOR_DATE="2026-03-$(printf %02d $((i + 1)))T10:${i}0:00+01:00" GIT_COMMITTER_DATE="2026-03-$(printf %02d $((i + 1)))T10:00:00+01:00" \
    git commit -q -m "changes: round $i of the tuning notes" -m "Block $((i % 8)) was off by $((i * 3)) percent in the field run of day $i; the new value comes from the logger export." -m "Measured-by: station-$((i % 4))"
done
python3 - <<'PY'
lines = open("settings.py").read().splitlines()
lines[10] = "setting_10 = 71  # raised after the March field run"
lines[52] = "setting_52 = 9999  # capped: the sensor saturates above this"
open("settings.py", "w").write("\n".join(lines) + "\n")
PY
git add . && GIT_AUTHOR_DATE="2026-03-28T16:45:00+01:00" GIT_COMMITTER_DATE="2026-03-28T16:45:00+01:00" git commit -q -m "settings: raise setting_10, cap setting_52" -m "The sensor saturates above 9999 counts (ticket OPS-4471)."
cd "$D/gauge"
cat > Cargo.toml <<'T'
[package]
name = "gauge"
version = "0.2.0"
edition = "2021"
T
cat > src/lib.rs <<'R'
use std::collections::HashMap;

pub struct Reading {
    pub station: String,
    pub counts: u32,
    calibrated_at: u64,
}

/// Mean counts per station.
pub fn mean_by_station(readings: &[Reading]) -> HashMap<String, f64> {
    let mut sums: HashMap<String, (u64, u32)> = HashMap::new();
    let mut skipped = 0;
    for r in readings {
        let e = sums.entry(r.station.clone()).or_insert((0, 0));
        e.0 += u64::from(r.counts);
        e.1 += 1;
    }
    sums.into_iter().map(|(k, (s, n))| (k, s as f64 / f64::from(n))).collect()
}

/// Counts capped where the sensor saturates.
pub fn capped(counts: u32) -> u32 {
    let limit = 9999;
    if counts > limit { limit } else { counts }
}

fn unused_scale(x: f64) -> f64 {
    x * 1.5
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_at_the_saturation_point() {
        assert_eq!(capped(12000), 9999);
    }

    #[test]
    fn mean_of_two_stations() {
        let r = vec![
            Reading { station: "north".into(), counts: 10, calibrated_at: 0 },
            Reading { station: "north".into(), counts: 30, calibrated_at: 0 },
        ];
        assert_eq!(mean_by_station(&r)["north"], 25.0, "mean of north");
    }
}
R
echo "workspace: $(cd "$D" && ls | tr '\n' ' ')"
