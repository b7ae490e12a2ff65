//! The tool-aware filters, one module per tool family, and the registry that
//! picks one from the command line. A filter only proposes a rendering: the
//! guard (`text::guard`) checks it against the signal ledger and has the
//! last word.

mod cargo;
mod cc;
mod docker;
mod exunit;
mod git;
mod gotool;
mod install;
mod jstest;
mod junit;
mod kubectl;
mod lint;
mod listing;
pub(crate) use listing::any_listing;
mod maven;
mod python;
mod terraform;
mod valgrind;

pub use crate::command::Invocation;
use crate::text::guard::Source;

/// One tool family's summariser.
pub trait Filter: Sync {
    /// Short name, shown in the receipt as `text:<name>`.
    fn name(&self) -> &'static str;
    /// Whether this filter knows the command's output format.
    fn claims(&self, inv: &Invocation) -> bool;
    /// The summary of `text` (already ANSI-free, `\r` redraws resolved), or
    /// `None` when the expected anchors are missing. `src` has the raw lines,
    /// the ledger and the stored raw's id, for count lines that give the
    /// command showing what they count (`guard::count_line`). The caller
    /// adds `exit N`.
    fn summarize(&self, inv: &Invocation, text: &str, src: &Source) -> Option<String>;
    /// Whether the summary is the answer itself (a listing, search hits):
    /// never condensed or capped, only the budget may cut it.
    fn lossless(&self) -> bool {
        false
    }
}

/// Every tool-aware filter, most specific first.
pub(crate) static FILTERS: &[&dyn Filter] = &[
    &cargo::Cargo,
    &python::Pytest,
    &python::Unittest,
    &gotool::Go,
    &jstest::JsTest,
    &exunit::ExUnit,
    &lint::Tsc,
    &lint::Eslint,
    &lint::PyLint,
    &lint::ShellCheck,
    &git::Status,
    &git::Diff,
    &git::Log,
    &git::Blame,
    &git::Sync,
    &install::Install,
    &install::NpmLs,
    &install::Apt,
    &terraform::Terraform,
    &cc::Cc,
    &maven::Maven,
    &junit::JunitConsole,
    &docker::Docker,
    &kubectl::Kubectl,
    &valgrind::Valgrind,
    &listing::Grep,
    &listing::Find,
    &listing::Ls,
];

/// The filter that claims `command`, with the parsed invocation.
pub fn filter_for(command: &[String]) -> Option<(Invocation, &'static dyn Filter)> {
    let inv = Invocation::parse(command)?;
    let f = FILTERS.iter().copied().find(|f| f.claims(&inv))?;
    Some((inv, f))
}
