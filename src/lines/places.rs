//! Lines that name a place the way checkers print their findings
//! (`path:line[:col]`, `path: line N, col M`, `line N column M`, a
//! `Location:` line under an issue header, a `L: n | P: m` row,
//! `M 88:4 name - D (23)`): issue 26's rule 1 in one detector, for the
//! generic report (`text::report`) and the typed result's findings
//! (`typed`).

use once_cell::sync::Lazy;
use regex::bytes::RegexSet;

/// Lines that name a place (see the module doc). Compiled without Unicode
/// classes, as the ledger's detectors are.
static FINDING: Lazy<RegexSet> = Lazy::new(|| {
    regex::bytes::RegexSetBuilder::new([
        // `path.ext:12[:3]` opening the line (indentation allowed)
        r"^\s{0,12}(?:\S*[/\\])?[\w.+~-]*\w\.[A-Za-z]\w{0,9}:\d+(?:[:,]\d+)?(?:[:\s,]|$)",
        // jshint `path: line 7, col 16, ...`; tidy, csslint `line 7 column 3`, `at line 7, col 3`
        r"^\s{0,12}\S+: line \d+, col \d+",
        // ... and at the end of a sentence (perlcritic `... at line 36, column 5.`)
        r"(?i)(?:^|[\s(\[])line \d+,? col(?:umn)? \d+(?:[\s,.:;)\]]|$)",
        // an issue's location line (bandit)
        r"^\s*Location: \S+:\d+",
        // sqlfluff rows
        r"^\s*L:\s*\d+ \| P:\s*\d+ \|",
        // stylelint/eslint rows under a file header
        r"^\s*\d+:\d+\s+(?:\S\s+)?(?:error|warning|warn|info|✖|⚠|×)",
        // djlint `H005 2:0 message`, radon `M 88:4 name - D (23)`, htmlhint `L12 |`
        r"^\s*[A-Z]{1,3}\d{3,5} \d+:\d+ ",
        // radon ranks A and B pass; C to F are findings
        r"^\s*[MCF] \d+:\d+ \S+ - [C-F] \(\d+\)",
        r"^\s*L\d+ \|",
    ])
    .unicode(false)
    .build()
    .expect("valid finding regexes")
});

/// Whether `line` names a place the way checkers print their findings.
pub fn is_finding(line: &str) -> bool {
    FINDING.is_match(line.as_bytes())
}
