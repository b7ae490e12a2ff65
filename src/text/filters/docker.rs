//! docker ps/images/build (and podman).
//! - ps/images: the table without the columns an agent rarely needs (the
//!   container's COMMAND and CREATED time, an image's CREATED), cells joined
//!   by ` | ` instead of padding.
//! - build: BuildKit step headers, errors and the failing step's output stay;
//!   per-step log lines, `DONE`/`CACHED` timings and transfer lines go. The
//!   classic builder keeps `Step N/M` lines and results.

use once_cell::sync::Lazy;
use regex::Regex;

use super::kubectl::parse_table;
use super::{Filter, Invocation};
use crate::text::clean::tidy;
use crate::text::guard::Source;

pub struct Docker;

const DROP_COLUMNS: &[&str] = &["COMMAND", "CREATED", "CREATED AT"];

static BK_STEP: Lazy<Regex> = Lazy::new(|| Regex::new(r"^#(\d+) (\[.*|ERROR.*|CANCELED.*)$").unwrap());
static BK_LINE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^#(\d+) (.*)$").unwrap());

impl Filter for Docker {
    fn name(&self) -> &'static str {
        "docker"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        let args = &inv.args;
        inv.is(&["docker", "podman"])
            && (matches!(inv.sub(), "ps" | "images" | "build")
                || (inv.sub() == "container" && args.iter().any(|a| a == "ls" || a == "ps"))
                || (inv.sub() == "image" && args.iter().any(|a| a == "ls"))
                || (inv.sub() == "buildx" && args.iter().any(|a| a == "build"))
                || (inv.sub() == "compose" && args.iter().any(|a| a == "ps" || a == "build")))
            && !inv.args.iter().any(|a| a.starts_with("--format") || a == "-q" || a == "--quiet")
    }

    fn summarize(&self, inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        if inv.args.iter().any(|a| a == "build") { build(text) } else { table(text) }
    }
}

fn table(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let t = parse_table(&lines)?;
    let keep: Vec<usize> =
        (0..t.header.len()).filter(|&k| !DROP_COLUMNS.contains(&t.header[k].as_str())).collect();
    if keep.len() == t.header.len() {
        return None;
    }
    let mut out = vec![keep.iter().map(|&k| t.header[k].as_str()).collect::<Vec<_>>().join(" | ")];
    for row in &t.rows {
        out.push(keep.iter().map(|&k| row[k].as_str()).collect::<Vec<_>>().join(" | "));
    }
    Some(out.join("\n") + "\n")
}

fn build(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().any(|l| BK_LINE.is_match(l)) {
        return buildkit(&lines);
    }
    if !lines.iter().any(|l| l.starts_with("Step ")) {
        return None;
    }
    let out: Vec<String> = lines
        .iter()
        .filter(|l| !l.starts_with(" ---> ") && !l.starts_with("Removing intermediate container"))
        .map(|l| l.to_string())
        .collect();
    Some(tidy(&out))
}

/// BuildKit's plain progress: `#N [stage k/n] INSTRUCTION`, `#N 0.123 output`,
/// `#N DONE 1.2s`. A step's output is shown only if the step failed.
fn buildkit(lines: &[&str]) -> Option<String> {
    let failed: Vec<String> = lines
        .iter()
        .filter_map(|l| BK_LINE.captures(l))
        .filter(|c| c[2].starts_with("ERROR"))
        .map(|c| c[1].to_string())
        .collect();
    let mut out = Vec::new();
    for line in lines {
        if BK_STEP.is_match(line) {
            out.push(line.to_string());
        } else if let Some(c) = BK_LINE.captures(line) {
            if failed.iter().any(|f| *f == c[1]) && !c[2].starts_with("DONE") {
                out.push(line.to_string());
            }
        } else if !line.trim().is_empty() {
            out.push(line.to_string());
        }
    }
    Some(tidy(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ps_drops_command_and_created() {
        let text = "CONTAINER ID   IMAGE          COMMAND                  CREATED       STATUS       PORTS                  NAMES\n3f2a1b0c9d8e   nginx:1.27     \"/docker-entrypoint.…\"   2 hours ago   Up 2 hours   0.0.0.0:8080->80/tcp   web\n";
        assert_eq!(
            table(text).unwrap(),
            "CONTAINER ID | IMAGE | STATUS | PORTS | NAMES\n3f2a1b0c9d8e | nginx:1.27 | Up 2 hours | 0.0.0.0:8080->80/tcp | web\n"
        );
    }

    #[test]
    fn buildkit_keeps_steps_and_the_failure() {
        let text = "#1 [internal] load build definition from Dockerfile\n#1 transferring dockerfile: 120B done\n#1 DONE 0.0s\n#5 [2/3] RUN make\n#5 0.412 gcc -c a.c\n#5 0.530 a.c:1:1: error: oops\n#5 ERROR: process \"/bin/sh -c make\" did not complete successfully: exit code: 2\nERROR: failed to solve: exit code: 2\n";
        let out = buildkit(&text.lines().collect::<Vec<_>>()).unwrap();
        assert!(out.contains("#5 0.530 a.c:1:1: error: oops"));
        assert!(!out.contains("transferring") && !out.contains("DONE"));
        assert!(out.contains("ERROR: failed to solve"));
    }
}
