//! Entry point: everything lives in the library; this only hands over argv.
fn main() -> std::process::ExitCode {
    tokensieve::entry(std::env::args_os().collect())
}
