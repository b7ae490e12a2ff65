//! Maven (`mvn`, `./mvnw`): the build's findings and results stay as
//! printed — compiler errors and warnings with their `symbol:`/`location:`
//! lines, each failing test with its exception and frames, the `Results:`
//! list, `Tests run:` totals of failing classes, `BUILD SUCCESS|FAILURE`,
//! `Failed to execute goal …`. Progress goes, counted: the banner and
//! separators, `--- plugin:version:goal @ module ---` steps, downloads,
//! `Compiling N source files`, resource copying, `Running` and the
//! `Tests run:` lines of passing classes, timing; in a test's stack the
//! frames of the JVM, JUnit and Surefire fold to a count per run. After `Failed to execute
//! goal` Maven prints every compiler error again and its help links: those
//! `[ERROR]` lines go when the rendering can give the command that shows
//! them (`(N lines: tokensieve show ID --grep …)`), else they stay.

use std::collections::HashSet;

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::lines::frames::{self, Fold};
use crate::text::guard::{self, Source};

pub struct Maven;

/// `[INFO]` lines that only report progress.
static PROGRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"^\[INFO\](?: *$| (?:-{8,}|-+[<\[] .* [>\]]-+$|--- .* ---$|Scanning for projects|Building (?:jar|war|ear)?:?|",
        r"Download(?:ing|ed) from |Progress \(|skip non existing resourceDirectory|Changes detected - recompiling|",
        r"Compiling \d+ source files? |Nothing to compile|Using '.*' encoding|Copying \d+ resources?|",
        r"No sources to compile|No tests to run| *T E S T S$|Running [\w.$]+$|Results:$|Total time:|Finished at:|",
        r"Tests run: \d+, Failures: 0, Errors: 0, Skipped: \d+, Time elapsed: .* - in |",
        r"Recompile with -Xlint|Some input files use ))"
    ))
    .expect("valid maven progress regex")
});
/// Maven's own help text after a failure.
static HELP: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"^\[ERROR\](?: *$| (?:-> \[Help \d+\]$|\[Help \d+\] https?://|To see the full stack trace of the errors|",
        r"Re-run Maven using the -X switch|For more information about the errors and possible solutions|",
        r"Please refer to dump files|After correcting the problems, you can resume the build))"
    ))
    .expect("valid maven help regex")
});
const FAILED_GOAL: &str = "[ERROR] Failed to execute goal ";

impl Filter for Maven {
    fn name(&self) -> &'static str {
        "maven"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["mvn", "mvnw", "mvnd"])
    }

    fn summarize(&self, _inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        let lines: Vec<&str> = text.split('\n').collect();
        if !lines.iter().any(|l| l.starts_with("[INFO] ") || l.starts_with("[ERROR] ")) {
            return None;
        }
        // no command can show the trailer's repeats: they stay where they were
        render(&lines, Some(src)).or_else(|| render(&lines, None))
    }
}

/// The rendering; with `src`, the failure trailer's repeats go behind a
/// count line (`None` when no count line can be given for them).
fn render(lines: &[&str], src: Option<&Source>) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let mut progress = 0usize;
    // what the failure trailer may repeat: earlier lines, `[ERROR] ` aside
    let mut seen: HashSet<&str> = HashSet::new();
    let mut trailer = false;
    let mut repeats: Vec<usize> = Vec::new();
    let mut repeat_at: Option<usize> = None;
    let mut fold = Fold::default();
    for (i, line) in lines.iter().enumerate() {
        let body = line.strip_prefix("[ERROR] ").unwrap_or(line);
        if src.is_some() && line.starts_with(FAILED_GOAL) {
            trailer = true;
            out.push(line.to_string());
            repeat_at = Some(out.len());
            continue;
        }
        if trailer && line.starts_with("[ERROR]") && (HELP.is_match(line) || seen.contains(body.trim())) {
            repeats.push(i);
            continue;
        }
        if PROGRESS.is_match(line) {
            progress += 1;
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        // a test's stack: the JVM's, JUnit's and Surefire's frames counted
        if frames::frame_of(line) == Some(false) {
            fold.frame(line);
            continue;
        }
        fold.flush(&mut out);
        seen.insert(body.trim());
        out.push(line.to_string());
    }
    fold.flush(&mut out);
    if let Some(src) = src
        && !repeats.is_empty()
    {
        // `[ERROR]`, or `[` + colour + `ERROR` when Maven coloured it
        let count = guard::count_line(src, r"^\[\S*ERROR", &repeats)?;
        out.insert(
            repeat_at.unwrap_or(out.len()),
            format!("(the errors above again and Maven's help links {count})"),
        );
    }
    if progress > 0 {
        out.push(format!("({progress} lines of Maven progress not shown)"));
    }
    Some(out.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::guard::Owned;

    const RUN: &str = "[INFO] Scanning for projects...\n[INFO] \n[INFO] --- maven-compiler-plugin:3.10.1:compile (default-compile) @ orders ---\n[INFO] Compiling 3 source files to /p/target/classes\n[ERROR] /p/A.java:[2,5] cannot find symbol\n  symbol:   class Nope\n[INFO] BUILD FAILURE\n[INFO] Total time:  3.074 s\n[ERROR] Failed to execute goal x:y:1:compile (default-compile) on project orders: Compilation failure\n[ERROR] /p/A.java:[2,5] cannot find symbol\n[ERROR]   symbol:   class Nope\n[ERROR] -> [Help 1]\n[ERROR] \n[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/MojoFailureException\n";

    #[test]
    fn progress_and_the_repeated_trailer_go_with_a_command() {
        let owned = Owned::new(RUN);
        let inv = Invocation::parse(&["mvn".to_string(), "compile".to_string()]).unwrap();
        let out = Maven.summarize(&inv, &crate::text::clean::clean(RUN), &owned.src()).unwrap();
        assert_eq!(
            out,
            "[ERROR] /p/A.java:[2,5] cannot find symbol\n  symbol:   class Nope\n[INFO] BUILD FAILURE\n\
             [ERROR] Failed to execute goal x:y:1:compile (default-compile) on project orders: Compilation failure\n\
             (the errors above again and Maven's help links (7 lines: tokensieve show abc123 --grep '^\\[\\S*ERROR'))\n\
             (5 lines of Maven progress not shown)\n"
        );
        assert_eq!(guard::check(&out, &owned.src()), Ok(()));
    }

    #[test]
    fn without_a_stored_raw_the_trailer_stays() {
        let owned = Owned::new(RUN);
        let src = Source { id: None, ..owned.src() };
        let inv = Invocation::parse(&["mvn".to_string()]).unwrap();
        let out = Maven.summarize(&inv, &crate::text::clean::clean(RUN), &src).unwrap();
        assert!(out.contains("[ERROR]   symbol:   class Nope\n[ERROR] -> [Help 1]\n"), "{out}");
        assert!(!out.contains("Scanning"), "{out}");
    }
}
