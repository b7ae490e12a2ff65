//! The text path on arbitrary bytes, as each tool family's output: the
//! filters, the generic folding and the token counter (long pieces too)
//! never panic, and what is delivered is never bigger than the raw output
//! in tokens.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokensieve::auditor::{self, Encoding};
use tokensieve::handoff::settle;
use tokensieve::pipeline::render;
use tokensieve::settings::{Hint, Settings};

/// One command per filter family, and one no filter claims.
const COMMANDS: &[&str] = &[
    "cargo test",
    "pytest -q",
    "go test ./...",
    "npx jest",
    "tsc --noEmit",
    "git status",
    "git diff",
    "git log",
    "npm install",
    "make",
    "docker ps",
    "kubectl get pods",
    "grep -rn x .",
    "ls -l",
    "journalctl -u web",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, raw)) = data.split_first() else { return };
    let command = COMMANDS[pick as usize % COMMANDS.len()];
    let hint = Hint { command: command.split(' ').map(str::to_owned).collect(), exit_code: i32::from(pick >> 4) };
    let settings = Settings { text_threshold: 400, ..Settings::default() };
    let rendered = render(raw, Some(&hint), &settings);
    let (_, receipt) = settle(raw, rendered, &settings);
    assert!(receipt.compressed <= receipt.original, "{receipt}");
    if let Ok(text) = std::str::from_utf8(raw) {
        let _ = auditor::count(Encoding::O200k, text);
        // Repeated past 8 KB, a piece is counted in chunks: its cuts on
        // arbitrary bytes.
        if !text.is_empty() && text.len() < 2048 {
            let long = text.repeat(9000 / text.len() + 1);
            let _ = auditor::count(Encoding::Cl100k, &long);
        }
    }
});
