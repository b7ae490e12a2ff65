//! `TOKENSIEVE_DEBUG`: whether to print decisions and their cost on stderr.
//! At the bottom of the crate so every stage may ask without importing the
//! layer that delivers.

/// `TOKENSIEVE_DEBUG` set and non-empty: print decisions and their cost.
pub fn enabled() -> bool {
    std::env::var_os("TOKENSIEVE_DEBUG").is_some_and(|v| !v.is_empty())
}
