//! valgrind (memcheck, helgrind, drd...): every report stays as printed —
//! the error line, its `at`/`by` frames, the block it points into, the heap
//! and leak summaries, the error summary — and the program's own output
//! between them. A `==PID==` line with nothing after the tag becomes an
//! empty line. What goes, counted: the banner (tool name, copyright,
//! version) and the hints that only say which flag would print more
//! (`rerun with: -s`).

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::guard::Source;

pub struct Valgrind;

/// `==1234== ` (memcheck) or `--1234-- ` (valgrind's own messages).
static TAG: Lazy<Regex> = Lazy::new(|| Regex::new(r"^(?:==|--)\d+(?:==|--) ?").unwrap());
/// The banner and the flag hints, after the tag.
static NOISE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(concat!(
        r"^(?:\w+, a [\w ,-]+ detector$|Copyright \(C\) |Using Valgrind-[\d.]+.* rerun with -h|",
        r"For (?:lists|counts) of detected and suppressed errors, rerun with: |",
        r"Rerun with --leak-check=full to see details|To see them, rerun with: |",
        r"Use --track-origins=yes to see where uninitiali[sz]ed values come from|",
        r"Reachable blocks \(those to which a pointer was found\) are not shown\.$)"
    ))
    .unwrap()
});

impl Filter for Valgrind {
    fn name(&self) -> &'static str {
        "valgrind"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.tool == "valgrind"
    }

    fn summarize(&self, _inv: &Invocation, text: &str, _src: &Source) -> Option<String> {
        let mut out = Vec::new();
        let mut tagged = false;
        let mut hidden = 0usize;
        for line in text.lines() {
            let Some(tag) = TAG.find(line) else {
                out.push(line);
                continue;
            };
            tagged = true;
            let rest = &line[tag.end()..];
            if rest.trim().is_empty() {
                if out.last().is_some_and(|l| !l.is_empty()) {
                    out.push("");
                }
            } else if NOISE.is_match(rest) {
                hidden += 1;
            } else {
                out.push(line);
            }
        }
        if !tagged || hidden == 0 {
            return None;
        }
        let mut body = out.join("\n");
        body.push_str(&format!("\n({hidden} lines of valgrind's banner and flag hints not shown)\n"));
        Some(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::inv;
    use crate::text::guard::Owned;

    #[test]
    fn reports_stay_banner_hints_and_empty_tagged_lines_go() {
        let text = "==5710== Memcheck, a memory error detector\n==5710== Copyright (C) 2002-2022, and GNU GPL'd, by Julian Seward et al.\n==5710== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info\n==5710== Command: ./leaky\n==5710== \n==5710== Invalid read of size 4\n==5710==    at 0x1091DE: sum (leaky.c:19)\n==5710== \nsum 60\n==5710== LEAK SUMMARY:\n==5710==    definitely lost: 23 bytes in 2 blocks\n==5710== \n==5710== For lists of detected and suppressed errors, rerun with: -s\n==5710== ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 0 from 0)\n";
        let out = Valgrind.summarize(&inv("valgrind ./leaky"), text, &Owned::new(text).src()).unwrap();
        assert_eq!(
            out,
            "==5710== Command: ./leaky\n\n==5710== Invalid read of size 4\n==5710==    at 0x1091DE: sum (leaky.c:19)\n\nsum 60\n==5710== LEAK SUMMARY:\n==5710==    definitely lost: 23 bytes in 2 blocks\n\n==5710== ERROR SUMMARY: 3 errors from 3 contexts (suppressed: 0 from 0)\n(4 lines of valgrind's banner and flag hints not shown)\n"
        );
        assert!(Valgrind.summarize(&inv("valgrind ./ok"), "hello\n", &Owned::new("hello\n").src()).is_none());
    }
}
