//! make and C/C++ compilers (gcc, g++, clang, cc, cmake --build, ninja):
//! every `path:line:col: error|warning|note:` diagnostic, its `In function`
//! context, linker errors and make's `***` lines stay; code frames and caret
//! lines go; compiler command lines and `[ 45%] Building ...` progress are
//! counted, not shown; `Entering/Leaving directory` lines go.

use once_cell::sync::Lazy;
use regex::Regex;

use super::{Filter, Invocation};
use crate::text::clean::tidy;

pub struct Cc;

static DIAG: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\S.*?:\d+(?::\d+)?: (?:fatal error|error|warning|note|Error|undefined reference)").unwrap()
});
static FRAME: Lazy<Regex> = Lazy::new(|| Regex::new(r"^\s*\d*\s*\|").unwrap());
static MAKE: Lazy<Regex> = Lazy::new(|| Regex::new(r"^g?make(?:\[\d+\])?: ").unwrap());
static PROGRESS: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"^\[\s*\d+%\] |^\[\d+/\d+\] |^-- (?:Build files|Configuring done|Generating done)").unwrap()
});
const COMPILERS: &[&str] = &[
    "gcc", "g++", "cc", "c++", "clang", "clang++", "ar", "ranlib", "ld", "as", "nvcc", "icc", "icpx", "emcc",
    "libtool",
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

    fn summarize(&self, _inv: &Invocation, text: &str, _exit: i32) -> Option<String> {
        let mut out = Vec::new();
        let mut anchored = false;
        let mut commands = 0usize;
        for line in text.lines() {
            let first = line.split_whitespace().next().unwrap_or("");
            let first = first.rsplit('/').next().unwrap_or(first);
            let first = first.trim_start_matches("x86_64-linux-gnu-");
            if DIAG.is_match(line)
                || line.contains(": In function")
                || line.starts_with("In file included from")
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
        if commands > 0 {
            out.push(format!("({commands} compile/link steps not shown)"));
        }
        Some(tidy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcc_frames_and_commands_go() {
        let text = "gcc -c a.c -o a.o\na.c: In function ‘f’:\na.c:3:5: error: expected ‘;’ before ‘}’ token\n    3 |     return 0\n      |             ^\nmake: *** [Makefile:2: a.o] Error 1\n";
        let inv = Invocation::parse(&["make".to_string()]).unwrap();
        assert_eq!(
            Cc.summarize(&inv, text, 2).unwrap(),
            "a.c: In function ‘f’:\na.c:3:5: error: expected ‘;’ before ‘}’ token\nmake: *** [Makefile:2: a.o] Error 1\n(1 compile/link steps not shown)\n"
        );
    }
}
