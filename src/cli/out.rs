//! What the subcommands print, one way: stdout writes that report a closed
//! reader (`| head`) as an error `cli::main` turns into a quiet exit 0 (as
//! ripgrep does), numbers grouped for people, and colour only where someone
//! can see it.

use std::io::{self, IsTerminal, Write};
use std::sync::OnceLock;

use super::args::ColorWhen;

/// `println!` that returns the write's error instead of panicking on EPIPE.
macro_rules! outln {
    ($($t:tt)*) => { $crate::cli::out::line(format_args!($($t)*)) };
}
pub(crate) use outln;

pub(crate) fn line(args: std::fmt::Arguments) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)?;
    out.write_all(b"\n")
}

/// All of `text` on stdout, flushed.
pub(crate) fn text(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Whether an error is a write to a reader that went away.
pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

/// `1234567` → `1,234,567` (human output; JSON keeps raw numbers).
pub(crate) fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `s` cut to `max` characters, the cut marked with `…`.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        crate::untrusted::printable(s, max.saturating_sub(1))
    }
}

static COLOR: OnceLock<ColorWhen> = OnceLock::new();

/// `--color` as given (first call wins; `auto` until then).
pub(crate) fn set_color(when: ColorWhen) {
    let _ = COLOR.set(when);
}

/// Whether text for this stream gets colour: `--color always|never`, else
/// only on a terminal and unless `NO_COLOR` (any value) or `CLICOLOR=0`.
pub(crate) fn colored(stream: Stream) -> bool {
    match COLOR.get().copied().unwrap_or(ColorWhen::Auto) {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            let env_off = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
                || std::env::var_os("CLICOLOR").is_some_and(|v| v == "0");
            !env_off
                && match stream {
                    Stream::Stdout => io::stdout().is_terminal(),
                    Stream::Stderr => io::stderr().is_terminal(),
                }
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Style {
    /// Failures and problems.
    Bad,
    /// Warnings.
    Warn,
    /// Passing checks, savings.
    Good,
}

/// `text` in `style` when `stream` gets colour, else as it is.
pub(crate) fn paint(text: &str, style: Style, stream: Stream) -> String {
    if !colored(stream) {
        return text.to_owned();
    }
    let code = match style {
        Style::Bad => "1;31",
        Style::Warn => "33",
        Style::Good => "32",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// One warning line on stderr (`tokensieve: warning: ...`).
pub(crate) fn warn(msg: &str) {
    let label = paint("warning", Style::Warn, Stream::Stderr);
    let _ = writeln!(io::stderr(), "tokensieve: {label}: {msg}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1234567), "1,234,567");
    }
}
