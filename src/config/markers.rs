//! Which environment means "an AI agent runs this shell": the built-in
//! markers. `Config::agent_present` adds the user's own
//! (`TOKENSIEVE_AGENT_MARKERS`); the shim's policy and the receipt's form
//! both ask.

use std::ffi::OsString;

/// Environment variables that mean "an AI agent runs this shell" (any value
/// but empty); `CURSOR_ROLE` needs a specific value. Public so tests and
/// tools can clear exactly these.
pub const AGENT_MARKERS: &[&str] = &[
    "CLAUDECODE",
    "CODEX_CI",
    "CODEX_SANDBOX",
    "CODEX_THREAD_ID",
    "GEMINI_CLI",
    "CURSOR_AGENT",
    "OPENCODE",
    "OPENCODE_CLIENT",
    "AGENT",
    "AI_AGENT",
    "COPILOT_CLI",
];
/// Cursor's variable: an agent only when it is `agent-exec`.
pub const CURSOR_ROLE: &str = "CURSOR_EXTENSION_HOST_ROLE";

/// Whether one of the built-in markers is set.
pub fn agent_present(get: &dyn Fn(&str) -> Option<OsString>) -> bool {
    AGENT_MARKERS.iter().any(|k| get(k).is_some_and(|v| !v.is_empty()))
        || get(CURSOR_ROLE).is_some_and(|v| v == "agent-exec")
}
