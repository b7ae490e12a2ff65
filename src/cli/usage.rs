//! Usage errors as one line (`tokensieve SUB: what is wrong; try '...'`),
//! help on stdout, and what else comes from the definitions in `args`:
//! shell completions and the man page.

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use clap::CommandFactory;
use clap::error::ErrorKind;

use super::args::Cli;

/// Exit status of a usage error (as clap, cargo and ripgrep use it).
pub(crate) const USAGE_EXIT: u8 = 2;

/// Prints what clap stopped on: help and version on stdout (exit 0, a
/// closed reader included), anything else as one line on stderr (exit 2).
pub(crate) fn clap_error(e: clap::Error, args: &[OsString]) -> ExitCode {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        // A reader that closed early (`--help | head -1`) is not an error.
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let root = Cli::command();
    let (path, cmd) = subcommand_path(&root, args);
    let line = if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let subs: Vec<&str> = cmd.get_subcommands().map(|c| c.get_name()).filter(|n| *n != "help").collect();
        format!("missing subcommand ({}); try '{path} --help'", subs.join(", "))
    } else {
        one_line(&e.render().to_string(), &path)
    };
    error_line(&path, &line);
    ExitCode::from(USAGE_EXIT)
}

/// The subcommand the arguments name (`tokensieve objects push`), and its
/// definition: each word that names a subcommand of the one before it,
/// skipping the values of options that take one.
fn subcommand_path<'a>(root: &'a clap::Command, args: &[OsString]) -> (String, &'a clap::Command) {
    let mut cmd = root;
    let mut path = vec![root.get_name().to_owned()];
    let mut words = args.iter().filter_map(|a| a.to_str());
    while let Some(w) = words.next() {
        if w == "--" {
            break;
        }
        if let Some(long) = w.strip_prefix("--").filter(|l| !l.contains('='))
            && cmd.get_arguments().any(|a| a.get_long() == Some(long) && a.get_action().takes_values())
        {
            words.next();
        } else if let Some(sub) = cmd.find_subcommand(w) {
            cmd = sub;
            path.push(w.to_owned());
        }
    }
    (path.join(" "), cmd)
}

/// `error: ...` as clap renders it, folded into the command it is about and
/// one line: the message (with the list a trailing `:` announces), the
/// suggestions clap found, and where the usage is.
fn one_line(rendered: &str, path: &str) -> String {
    let mut message = String::new();
    let mut tips = Vec::new();
    let mut in_message = true;
    for l in rendered.lines() {
        let t = l.trim();
        if let Some(m) = t.strip_prefix("error: ") {
            message.push_str(m);
        } else if let Some(tip) = t.strip_prefix("tip: ") {
            in_message = false;
            if tip.contains("similar") {
                tips.push(tip.to_owned());
            }
        } else if t.starts_with("Usage: ") {
            in_message = false;
        } else if t.is_empty() {
            in_message = message.is_empty();
        } else if in_message {
            message.push(' ');
            message.push_str(t);
        }
    }
    let mut line = message.trim_end_matches(':').trim().to_owned();
    for tip in tips {
        line.push_str(&format!(" ({tip})"));
    }
    line.push_str(&format!("; try '{path} --help'"));
    line
}

/// `tokensieve SUB: message` on stderr (never a panic, stderr closed or not).
pub(crate) fn error_line(path: &str, message: &str) {
    let _ = writeln!(io::stderr(), "{path}: {message}");
}

/// A first argument that is neither a subcommand nor a file: a mistyped
/// subcommand (`tokensieve gian`) is what a bare word most likely is.
pub(crate) fn unknown_command(word: &str) -> ExitCode {
    let names: Vec<String> =
        Cli::command().get_subcommands().map(|c| c.get_name().to_owned()).chain(["help".into()]).collect();
    let best = names.iter().map(|n| (distance(word, n), n)).filter(|(d, _)| *d <= 2).min();
    let tip = match best {
        Some((_, name)) => format!(" (a similar command exists: '{name}')"),
        None => String::new(),
    };
    error_line(
        "tokensieve",
        &format!(
            "unknown command '{word}'{tip}, and no file of that name to filter; try 'tokensieve --help'"
        ),
    );
    ExitCode::from(USAGE_EXIT)
}

/// Levenshtein distance (short words only: subcommand names).
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Text for a roff paragraph: backslashes and a leading dot or quote escaped.
fn roff_text(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with(['.', '\'']) { format!("\\&{s}") } else { s }
}

/// `tokensieve completions SHELL`: the script on stdout.
pub(crate) fn completions(shell: clap_complete::Shell) -> io::Result<()> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "tokensieve", &mut buf);
    let mut out = io::stdout().lock();
    out.write_all(&buf)?;
    out.flush()
}

/// `tokensieve man`: the page (roff) on stdout, every subcommand in it.
pub(crate) fn man() -> io::Result<()> {
    let cmd = Cli::command();
    let mut buf = Vec::new();
    let page = clap_mangen::Man::new(cmd.clone());
    page.render_title(&mut buf)?;
    page.render_name_section(&mut buf)?;
    page.render_synopsis_section(&mut buf)?;
    page.render_description_section(&mut buf)?;
    page.render_options_section(&mut buf)?;
    page.render_subcommands_section(&mut buf)?;
    // Each subcommand's own options, under its name (one page for all).
    let mut todo: Vec<(String, &clap::Command)> =
        cmd.get_subcommands().map(|s| (s.get_name().to_owned(), s)).collect();
    while !todo.is_empty() {
        let (name, sub) = todo.remove(0);
        let nested: Vec<(String, &clap::Command)> =
            sub.get_subcommands().map(|s| (format!("{name} {}", s.get_name()), s)).collect();
        todo.splice(0..0, nested);
        if sub.get_arguments().any(|a| !a.is_hide_set() && a.get_long() != Some("help")) {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            writeln!(buf, ".SH \"TOKENSIEVE {}\"\n{}", name.to_uppercase(), roff_text(&about))?;
            let mut section = Vec::new();
            clap_mangen::Man::new(sub.clone()).render_options_section(&mut section)?;
            // (the section opens with its own heading: the options follow it)
            let section = String::from_utf8_lossy(&section);
            let options = section.split_once(".SH OPTIONS\n").map_or("", |(_, o)| o);
            buf.extend_from_slice(options.as_bytes());
        }
    }
    page.render_version_section(&mut buf)?;
    page.render_extra_section(&mut buf)?;
    let mut out = io::stdout().lock();
    out.write_all(&buf)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(distance("gian", "gain"), 2);
        assert_eq!(distance("gain", "gain"), 0);
        assert_eq!(distance("dcotor", "doctor"), 2);
        assert_eq!(distance("x", "recall"), 6);
    }

    #[test]
    fn clap_errors_fold_into_one_line() {
        let rendered = "error: unexpected argument '--jsno' found\n\n  tip: a similar argument exists: '--json'\n\nUsage: tokensieve gain --json\n\nFor more information, try '--help'.\n";
        let line = one_line(rendered, "tokensieve gain");
        assert_eq!(
            line,
            "unexpected argument '--jsno' found (a similar argument exists: '--json'); try 'tokensieve gain --help'"
        );
        let missing = "error: the following required arguments were not provided:\n  <ID>\n\nUsage: tokensieve show <ID>\n";
        assert_eq!(
            one_line(missing, "tokensieve show"),
            "the following required arguments were not provided: <ID>; try 'tokensieve show --help'"
        );
    }
}
