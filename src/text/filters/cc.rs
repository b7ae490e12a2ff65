//! make and C/C++ compilers (gcc, g++, clang, cc, cmake --build, ninja),
//! and javac (the same `path:line: error:` findings over a code frame):
//! every `path:line:col: error|warning:` diagnostic (wherever it points),
//! its `In function` context, the first line of an instantiation chain and
//! its `required from` steps in the user's code, the user's own notes,
//! linker errors and make's `***` lines stay, as printed. Notes and
//! `required from` steps inside system headers fold to one count per run
//! (an overload error's ~60 `note: candidate` lines are noise next to the
//! next `error:`), and so do the nested notes (`note:   …`, indented) that
//! follow such a candidate even when they point at the call in the user's
//! file (`x.cpp:19:66: note:   cannot convert … to type ‘char’`: why that
//! candidate was rejected); `In file included from` context, code frames and caret
//! lines (gcc's `N |` gutter, clang's and javac's source line over
//! `^~~~`) go; compiler command lines and `[ 45%] Building ...` progress
//! are counted, not shown; `Entering/Leaving directory` lines go.

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::clean::{is_library_path, tidy};
use crate::text::guard::{self, Source};

pub struct Cc;

static DIAG: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\S.*?:\d+(?::\d+)?: (?:fatal error|error|warning|Error|undefined reference)").unwrap()
});
/// A note or an instantiation step: `path:l:c: note: …`, `path:l:c:   required from …`.
static NOTE: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^(\S.*?):\d+(?::\d+)?: +(?:note:|required from|required by|in (?:expansion|definition) of)")
        .unwrap()
});
/// The message of a note nested under the one before (`note:   …`).
static NESTED: Lazy<Regex> = Lazy::new(|| Regex::new(r": note:   +\S").unwrap());
/// `In file included from a.h:3,` and its `                 from b.c:1:` lines.
static INCLUDED: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(?:In file included from |\s+from )\S+:\d+[:,]$").unwrap());
static FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*\d*\s*\|").unwrap());
/// clang's caret line under a code frame: `    ~~~~ ^  ~~~~`.
static CARET: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*[~^][~^ ]*$").unwrap());
static MAKE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^g?make(?:\[\d+\])?: ").unwrap());
static PROGRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\[\s*\d+%\] |^\[\d+/\d+\] |^-- (?:Build files|Configuring done|Generating done)").unwrap()
});
const COMPILERS: &[&str] = &[
    "gcc", "g++", "cc", "c++", "clang", "clang++", "ar", "ranlib", "ld", "as", "nvcc", "icc", "icpx", "emcc",
    "libtool", "javac",
];

impl Filter for Cc {
    fn name(&self) -> &'static str {
        "cc"
    }

    fn claims(&self, inv: &Invocation) -> bool {
        inv.is(&["make", "gmake", "ninja"])
            || inv.is(COMPILERS)
            || (inv.tool == "cmake" && inv.has_flag("--build"))
    }

    fn summarize(&self, _inv: &Invocation, text: &str, src: &Source) -> Option<String> {
        let mut out = Vec::new();
        let mut anchored = false;
        let mut commands = 0usize;
        let mut system_notes = 0usize;
        // nested notes folded in the current run: line index, `path:line`
        let mut nested: Vec<(usize, String)> = Vec::new();
        // the last note was in a system header (nested notes after it are its)
        let mut in_system = false;
        let lines: Vec<&str> = text.lines().collect();
        let caret = |i: usize| lines.get(i).is_some_and(|l| CARET.is_match(l));
        for (i, &line) in lines.iter().enumerate() {
            // clang's code frame: the source line under a finding, then its
            // caret line (gcc's have a `N |` gutter, see FRAME)
            if caret(i)
                || caret(i + 1) && i > 0 && (DIAG.is_match(lines[i - 1]) || NOTE.is_match(lines[i - 1]))
            {
                continue;
            }
            let first = line.split_whitespace().next().unwrap_or("");
            let first = first.rsplit('/').next().unwrap_or(first);
            let first = first.trim_start_matches("x86_64-linux-gnu-");
            if let Some(c) = NOTE.captures(line) {
                anchored = true;
                if is_library_path(&c[1]) {
                    system_notes += 1;
                    in_system = true;
                } else if in_system && NESTED.is_match(line) {
                    system_notes += 1;
                    let at = line.split(": note:").next().unwrap_or("");
                    nested.push((i, at.rsplit_once(':').map_or(at, |(l, _)| l).to_string()));
                } else {
                    flush_notes(&mut system_notes, &mut nested, src, &mut out);
                    in_system = false;
                    out.push(line.to_string());
                }
                continue;
            }
            if INCLUDED.is_match(line) {
                anchored = true;
                continue;
            }
            if !FRAME.is_match(line) && !line.trim().is_empty() {
                flush_notes(&mut system_notes, &mut nested, src, &mut out);
                in_system = false;
            }
            if DIAG.is_match(line)
                || line.contains(": In function")
                || line.contains(": In member function")
                || line.contains(": In instantiation of")
                || line.contains(": In constructor")
                || line.contains(": In destructor")
                || line.contains(": At global scope")
            {
                anchored = true;
                out.push(line.to_string());
            } else if MAKE.is_match(line) {
                anchored = true;
                if !line.contains("Entering directory") && !line.contains("Leaving directory") {
                    out.push(line.to_string());
                }
            } else if COMPILERS.contains(&first.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-'))
                || PROGRESS.is_match(line)
            {
                anchored = true;
                commands += 1;
            } else if FRAME.is_match(line) || line.trim().is_empty() {
            } else {
                out.push(line.to_string());
            }
        }
        if !anchored {
            return None;
        }
        flush_notes(&mut system_notes, &mut nested, src, &mut out);
        if commands > 0 {
            out.push(format!("({commands} compile/link steps not shown)"));
        }
        Some(tidy(&out))
    }
}

/// A run of notes inside system headers (with the `nested` ones about those
/// candidates, wherever they point: line index and `path:line`) becomes one
/// count line where it stood; the nested ones get the command that prints
/// the nested notes at their places.
fn flush_notes(n: &mut usize, nested: &mut Vec<(usize, String)>, src: &Source, out: &mut Vec<String>) {
    if *n == 0 {
        return;
    }
    let mut about = String::new();
    if !nested.is_empty() {
        let mut places: Vec<String> = nested.iter().map(|(_, at)| regex::escape(at)).collect();
        places.sort();
        places.dedup();
        let pattern = format!("^(?:{}):[0-9]+: note:   ", places.join("|"));
        let targets: Vec<usize> = nested.iter().map(|(i, _)| *i).collect();
        about = match guard::count_line(src, &pattern, &targets) {
            Some(count) => format!(", {} nested under their candidates {count}", nested.len()),
            None => format!(", {} nested under their candidates", nested.len()),
        };
    }
    out.push(format!("  (… {n} notes from system headers{about})"));
    *n = 0;
    nested.clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_nested_under_a_system_candidate_fold_with_it() {
        let text = "shapes.cpp:19:51: error: no match for ‘operator<<’\n/usr/include/c++/12/ostream:108:7: note: candidate: ‘operator<<(bool)’\n/usr/include/c++/12/ostream:108:36: note:   no known conversion for argument 1\n/usr/include/c++/12/string_view:672:5: note: candidate: ‘template<class _CharT> operator<<’\n/usr/include/c++/12/string_view:672:5: note:   template argument deduction/substitution failed:\nshapes.cpp:19:66: note:   ‘Point’ is not derived from ‘std::basic_string_view<_CharT>’\nshapes.cpp:15:5: note: declared here\nshapes.cpp:22:21: error: too many arguments to function ‘int area(const Shape&)’\n";
        let inv = Invocation::parse(&["g++".to_string()]).unwrap();
        assert_eq!(
            Cc.summarize(&inv, text, &crate::text::guard::Owned::new(text).src()).unwrap(),
            "shapes.cpp:19:51: error: no match for ‘operator<<’\n  (… 5 notes from system headers, 1 nested under their candidates (1 lines: tokensieve show abc123 --grep '^(?:shapes\\.cpp:19):[0-9]+: note:   '))\nshapes.cpp:15:5: note: declared here\nshapes.cpp:22:21: error: too many arguments to function ‘int area(const Shape&)’\n"
        );
    }

    #[test]
    fn gcc_frames_and_commands_go() {
        let text = "gcc -c a.c -o a.o\na.c: In function ‘f’:\na.c:3:5: error: expected ‘;’ before ‘}’ token\n    3 |     return 0\n      |             ^\nmake: *** [Makefile:2: a.o] Error 1\n";
        let inv = Invocation::parse(&["make".to_string()]).unwrap();
        assert_eq!(
            Cc.summarize(&inv, text, &crate::text::guard::Owned::new(text).src()).unwrap(),
            "a.c: In function ‘f’:\na.c:3:5: error: expected ‘;’ before ‘}’ token\nmake: *** [Makefile:2: a.o] Error 1\n(1 compile/link steps not shown)\n"
        );
    }
}
